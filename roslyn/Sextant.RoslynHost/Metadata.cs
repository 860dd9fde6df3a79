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
