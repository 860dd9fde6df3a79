// Framework and package symbols (metadata) as first-class targets: where they are declared (a
// decompiled view, Decompiled.cs), which known projects can use them (those referencing their
// assembly), and the same symbol bound inside the solution a search runs in (SymbolFinder follows a
// metadata symbol only from a project of that solution). Also the declarations of partial members,
// whose other part a source generator usually writes.
using Microsoft.CodeAnalysis;

namespace Sextant.RoslynHost;

public static class MetadataSymbols
{
    public static bool InSource(ISymbol s) => s.Locations.Any(l => l.IsInSource);

    /// Every source declaration of a symbol: a partial method, property or event has two (the
    /// declaring part and the implementing one, often generated), which its Locations do not both list.
    public static List<Location> Declarations(ISymbol s)
    {
        var list = s.Locations.Where(l => l.IsInSource).ToList();
        ISymbol? other = s switch
        {
            IMethodSymbol m => (ISymbol?)m.PartialImplementationPart ?? m.PartialDefinitionPart,
            IPropertySymbol p => (ISymbol?)p.PartialImplementationPart ?? p.PartialDefinitionPart,
            IEventSymbol e => (ISymbol?)e.PartialImplementationPart ?? e.PartialDefinitionPart,
            _ => null,
        };
        if (other != null)
            foreach (var l in other.Locations.Where(l => l.IsInSource))
                if (!list.Any(x => x.SourceTree == l.SourceTree && x.SourceSpan == l.SourceSpan)) list.Add(l);
        return list;
    }

    /// The assembly a metadata symbol is declared in (null: in source, or no assembly).
    public static string? AssemblyOf(ISymbol s) => InSource(s) ? null : (s as IAssemblySymbol ?? s.ContainingAssembly)?.Identity.Name;

    /// Whether a known project compiles against an assembly of that name (its resolved reference files).
    public static bool References(KnownProject kp, string assembly) =>
        kp.Res.Paths.Any(p => Path.GetFileNameWithoutExtension(p).Equals(assembly, StringComparison.OrdinalIgnoreCase));

    /// The definition row of a metadata symbol: its declaration in the decompiled type, with its
    /// assembly, package, signature and doc summary (null when it cannot be decompiled).
    public static Loc? DefinitionRow(HostState h, ISymbol s, Compilation comp, string signature, string? summary)
    {
        var at = h.Decompiled.Locate(s, comp);
        if (at is not { } a) return null;
        return new Loc
        {
            Path = a.path,
            External = true,
            Line = a.name.Line,
            Column = a.name.Column,
            EndLine = a.name.EndLine,
            EndColumn = a.name.EndColumn,
            FullSpan = a.full,
            Metadata = Facts(a.origin, signature, summary),
        };
    }

    public static MetadataFacts Facts(MetadataOrigin o, string? signature, string? summary) => new()
    {
        Assembly = $"{o.Assembly} {o.AssemblyVersion}",
        Package = o.Package != null ? $"{o.Package} {o.PackageVersion}" : null,
        Signature = signature,
        Summary = summary,
    };

    /// The simple names of the metadata types a compilation references that derive from or implement
    /// a metadata type, transitively (`BackgroundService` for `IHostedService`): a workspace class
    /// deriving from one of them implements the type without naming it, so the engine's text
    /// pre-filter looks for these names too (protocol 8). Only public, inheritable types (a workspace
    /// type cannot derive from the others); only assemblies that reference the type's assembly, or
    /// one holding a type found, are read. At most `max` names.
    public static List<string> DerivedInMetadata(INamedTypeSymbol target, Compilation comp, int max, CancellationToken ct)
    {
        var E = SymbolEqualityComparer.Default;
        var root = target.OriginalDefinition;
        var names = new SortedSet<string>(StringComparer.Ordinal);
        if (InSource(root) || root.IsSealed || root.IsStatic || root.TypeKind is not (TypeKind.Interface or TypeKind.Class)) return names.ToList();
        var assemblies = comp.References.Select(r => comp.GetAssemblyOrModuleSymbol(r) as IAssemblySymbol).Where(a => a != null).Select(a => a!).Distinct<IAssemblySymbol>(E).ToList();
        var wanted = new HashSet<string>(StringComparer.OrdinalIgnoreCase) { root.ContainingAssembly.Identity.Name };
        var read = new HashSet<IAssemblySymbol>(E);
        bool Derives(INamedTypeSymbol t) => root.TypeKind == TypeKind.Interface
            ? t.AllInterfaces.Any(i => E.Equals(i.OriginalDefinition, root))
            : BaseChain(t).Any(b => E.Equals(b.OriginalDefinition, root));
        for (var grew = true; grew && names.Count < max;)
        {
            grew = false;
            foreach (var a in assemblies)
            {
                if (read.Contains(a) || !(wanted.Contains(a.Identity.Name) || a.Modules.Any(m => m.ReferencedAssemblies.Any(id => wanted.Contains(id.Name))))) continue;
                read.Add(a);
                var stack = new Stack<INamespaceOrTypeSymbol>();
                stack.Push(a.GlobalNamespace);
                while (stack.Count > 0 && names.Count < max)
                {
                    ct.ThrowIfCancellationRequested();
                    var cur = stack.Pop();
                    foreach (var m in cur.GetMembers())
                    {
                        if (m is INamespaceSymbol ns) { stack.Push(ns); continue; }
                        if (m is not INamedTypeSymbol t || t.DeclaredAccessibility is not (Accessibility.Public or Accessibility.Protected or Accessibility.ProtectedOrInternal)) continue;
                        stack.Push(t);
                        if (t.IsSealed || t.IsStatic || t.TypeKind is not (TypeKind.Class or TypeKind.Interface) || E.Equals(t.OriginalDefinition, root) || !Derives(t)) continue;
                        if (names.Add(t.Name) && wanted.Add(a.Identity.Name)) grew = true;
                        if (names.Count >= max) break;
                    }
                }
            }
        }
        return names.ToList();
    }

    static IEnumerable<INamedTypeSymbol> BaseChain(INamedTypeSymbol t)
    {
        for (var b = t.BaseType; b != null; b = b.BaseType) yield return b;
    }

    /// A metadata symbol bound in one of `projects` of `sol` (by its documentation id), so a search in
    /// `sol` starts from a symbol of its own; the symbol itself when it is in source or cannot be bound.
    public static async Task<ISymbol> InSolution(ISymbol s, Solution sol, IEnumerable<ProjectId> projects, CancellationToken ct)
    {
        if (InSource(s) || Queries.DocId(s) is not string id) return s;
        foreach (var pid in projects)
        {
            if (sol.GetProject(pid) is not Project p) continue;
            var comp = await p.GetCompilationAsync(ct);
            if (comp != null && Queries.ByDocId(id, comp) is ISymbol bound) return bound.OriginalDefinition;
        }
        return s;
    }
}
