// symbolInfo and documentation rows.
using System.Text;
using System.Xml.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;

namespace Sextant.RoslynHost;

public sealed partial class Queries
{
    // ---------- symbol info / documentation ----------

    async Task<SymbolInfoRow> SymbolInfo(ISymbol s, Solution sol, CancellationToken ct)
    {
        var row = new SymbolInfoRow { Symbol = Ref(s, sol), IsFromSource = s.Locations.Any(l => l.IsInSource), Signature = s.ToDisplayString(SymbolDisplayFormat.CSharpErrorMessageFormat) };
        ITypeSymbol? type = s switch { ILocalSymbol l => l.Type, IParameterSymbol p => p.Type, IFieldSymbol f => f.Type, IPropertySymbol p => p.Type, IEventSymbol e => e.Type, IMethodSymbol m when m.MethodKind != MethodKind.Constructor => m.ReturnType, _ => null };
        if (type != null) row.Type = Ref(type.OriginalDefinition, sol, withLocations: true);
        if (row.Type != null && type != null) row.Type.Display = type.ToDisplayString();
        var mods = new List<string>();
        if (s.DeclaredAccessibility != Accessibility.NotApplicable) mods.Add(SyntaxFacts.GetText(s.DeclaredAccessibility));
        if (s.IsStatic) mods.Add("static");
        if (s.IsAbstract) mods.Add("abstract");
        if (s.IsVirtual) mods.Add("virtual");
        if (s.IsOverride) mods.Add("override");
        if (s.IsSealed) mods.Add("sealed");
        if (s.IsExtern) mods.Add("extern");
        if (s is IMethodSymbol { IsAsync: true }) mods.Add("async");
        if (s is IFieldSymbol { IsReadOnly: true }) mods.Add("readonly");
        if (s is IFieldSymbol { IsConst: true }) mods.Add("const");
        row.Modifiers = mods.Where(m => !string.IsNullOrEmpty(m)).ToList();
        row.IsGenerated = row.Symbol.Locations.Count > 0 && row.Symbol.Locations.All(l => l.Generated == true) ? true : null;
        var ov = OverriddenChain(s).FirstOrDefault();
        if (ov != null) row.Overridden = Ref(ov, sol);
        row.Implements = InterfaceMembersImplemented(s).Select(m => Ref(m, sol)).ToList();
        if (s is INamedTypeSymbol nt) row.Implements = nt.Interfaces.Select(i => Ref(i.OriginalDefinition, sol, false)).ToList();
        if (s is IMethodSymbol or IPropertySymbol or IEventSymbol)
        {
            // protocol 3: the whole overridden chain, and every source member a call can bind to and
            // still dispatch here (what callers follows), so the engine needs no walk of its own
            var chain = OverriddenChain(s);
            if (chain.Count > 0) row.OverriddenChain = chain.Select(o => Ref(o, sol, withLocations: false)).ToList();
            var disp = (await Dispatchers(s, sol, ct)).Where(d => d.via != null).Select(d => { var r = Ref(d.s, sol, withLocations: false); r.Via = d.via; return r; }).ToList();
            row.Dispatchers = disp;
        }
        return row;
    }

    internal static string? Summary(string xml)
    {
        if (string.IsNullOrWhiteSpace(xml)) return null;
        try
        {
            var x = XElement.Parse(xml.Trim().StartsWith("<member") || xml.Trim().StartsWith("<doc") ? xml : "<r>" + xml + "</r>");
            var sum = x.Descendants("summary").FirstOrDefault();
            if (sum == null) return null;
            var sb = new StringBuilder();
            foreach (var n in sum.DescendantNodes())
            {
                if (n is XText t) sb.Append(t.Value);
                else if (n is XElement e && !e.Nodes().Any())
                {
                    var cref = (string?)e.Attribute("cref") ?? (string?)e.Attribute("langword") ?? (string?)e.Attribute("name");
                    if (cref != null) sb.Append(cref.Length > 2 && cref[1] == ':' ? cref[2..] : cref);
                }
            }
            return string.Join(' ', sb.ToString().Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries));
        }
        catch { return null; }
    }
}
