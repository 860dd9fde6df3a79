using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;

namespace Sextant.Oracle;

/// <summary>
/// A deterministic question list over the whole graph: each question picks a project at random
/// (so a session jumps across unrelated parts), then a symbol of the op's kind in it. references /
/// implementations / callers ask at a declaration; definition asks at a use.
/// </summary>
public static class Sampler
{
    sealed class Candidates
    {
        public List<(Loc at, ISymbol symbol)> Decls = new();
        public List<(Loc at, ISymbol symbol)> Uses = new();
    }

    public static async Task<List<Question>> Sample(Loaded w, int n, int seed, HashSet<string> ops)
    {
        var rng = new Random(seed);
        var order = new[] { "definition", "references", "implementations", "callers", "type_hierarchy" }.Where(ops.Contains).ToArray();
        // One compilation per project file (a multi-targeting project's frameworks share their sources).
        var projects = w.Solution.Projects
            .Where(p => p.Language == LanguageNames.CSharp && p.FilePath is not null)
            .GroupBy(p => p.FilePath!)
            .Select(g => g.OrderBy(p => p.Name, StringComparer.Ordinal).First())
            .OrderBy(p => p.FilePath, StringComparer.Ordinal)
            .ToList();
        var cache = new Dictionary<ProjectId, Candidates>();
        var questions = new List<Question>();
        var seen = new HashSet<string>();
        for (int i = 0; questions.Count < n && i < n * 20; i++)
        {
            var op = order[questions.Count % order.Length];
            var project = projects[rng.Next(projects.Count)];
            if (!cache.TryGetValue(project.Id, out var c)) cache[project.Id] = c = await Collect(w, project);
            var pool = op switch
            {
                "definition" => c.Uses,
                "references" => c.Decls,
                "implementations" => c.Decls.Where(d => Implementable(d.symbol)).ToList(),
                "type_hierarchy" => c.Decls.Where(d => d.symbol is INamedTypeSymbol { TypeKind: TypeKind.Class or TypeKind.Interface }).ToList(),
                _ => c.Decls.Where(d => d.symbol is IMethodSymbol { MethodKind: MethodKind.Ordinary }).ToList(),
            };
            if (pool.Count == 0) continue;
            var (at, symbol) = pool[rng.Next(pool.Count)];
            if (!seen.Add($"{op} {at.Key}")) continue;
            questions.Add(new Question($"{op[0]}{questions.Count + 1}", op, at.Path, at.Line, at.Column, symbol.ToDisplayString()));
        }
        return questions;
    }

    /// <summary>Framework / package symbols agents ask about every day: documentation-id prefix, ops asked at its first use.</summary>
    public static readonly (string prefix, string[] ops)[] FrameworkTargets =
    {
        ("M:System.Net.Http.HttpClient.SendAsync", new[] { "references", "callers" }),
        ("M:Microsoft.Extensions.Logging.LoggerExtensions.LogWarning", new[] { "references", "callers" }),
        ("T:Microsoft.Extensions.Hosting.IHostedService", new[] { "implementations", "references" }),
        ("M:System.Text.Json.JsonSerializer.Deserialize", new[] { "references", "callers" }),
        ("M:System.Threading.Tasks.Task.WhenAll", new[] { "references" }),
    };

    /// <summary>For each FrameworkTargets entry, its first use in the loaded documents (path order), asked for its ops.</summary>
    public static async Task<List<Question>> Framework(Loaded w)
    {
        var found = await FirstUses(w, FrameworkTargets.Select(t => t.prefix).ToArray());
        var questions = new List<Question>();
        foreach (var (prefix, ops) in FrameworkTargets)
        {
            if (!found.TryGetValue(prefix, out var f)) continue;
            foreach (var op in ops) questions.Add(new Question($"f{op[0]}{questions.Count + 1}", op, f.at.Path, f.at.Line, f.at.Column, f.symbol.ToDisplayString()));
        }
        return questions;
    }

    /// <summary>
    /// Issue 23's framework-and-package shapes beyond FrameworkTargets, ids `x…` (a counter of their
    /// own, so the older ids never move): definition at a use of a framework method, a package
    /// method and a package type (the engine answers assembly, package and a decompiled source view);
    /// callers of a framework method; implementations of a framework interface; type_hierarchy of a
    /// source class whose only supertype is System.Object and of one implementing a package interface.
    /// </summary>
    public static readonly (string prefix, string shape, string[] ops)[] ShapeTargets =
    {
        ("M:System.Threading.Tasks.Task.WhenAll", "whenall", new[] { "definition", "callers" }),
        ("M:Microsoft.Extensions.Logging.LoggerExtensions.Log", "log", new[] { "definition", "references", "callers" }),
        ("T:Microsoft.Extensions.Logging.ILogger", "ilogger", new[] { "definition" }),
        ("T:System.IDisposable", "idisposable", new[] { "implementations" }),
    };

    /// <summary>Ids name the shape (`xd-whenall`, `xt-package`): a shape found later (a sampler fix) never takes another's id.</summary>
    public static async Task<List<Question>> Shapes(Loaded w)
    {
        var questions = new List<Question>();
        void Ask(string op, string shape, Loc at, ISymbol s) => questions.Add(new Question($"x{op[0]}-{shape}", op, at.Path, at.Line, at.Column, s.ToDisplayString()));
        var uses = await FirstUses(w, ShapeTargets.Select(t => t.prefix).ToArray());
        foreach (var (prefix, shape, ops) in ShapeTargets)
            if (uses.TryGetValue(prefix, out var u))
                foreach (var op in ops) Ask(op, shape, u.at, u.symbol);
        (Loc at, INamedTypeSymbol t)? objectOnly = null, packageInterface = null;
        foreach (var (path, docs) in w.ByPath.OrderBy(k => k.Key, StringComparer.Ordinal))
        {
            if (objectOnly is not null && packageInterface is not null) break;
            if (path.Contains("/obj/") || path.StartsWith("obj/")) continue;
            var doc = docs[0];
            var root = await doc.GetSyntaxRootAsync();
            var model = await doc.GetSemanticModelAsync();
            if (root is null || model is null) continue;
            foreach (var decl in root.DescendantNodes().OfType<ClassDeclarationSyntax>())
            {
                if (model.GetDeclaredSymbol(decl) is not INamedTypeSymbol t || t.IsStatic || t.IsImplicitlyDeclared) continue;
                var at = Answers.LocOf(w, decl.Identifier.GetLocation());
                if (at is null || at.Generated) continue;
                if (objectOnly is null && t.BaseType?.SpecialType == SpecialType.System_Object && t.Interfaces.Length == 0 && decl.BaseList is null) objectOnly = (at, t);
                if (packageInterface is null && t.Interfaces.Any(i => FromPackage(model.Compilation, i))) packageInterface = (at, t);
            }
        }
        if (objectOnly is { } o) Ask("type_hierarchy", "object", o.at, o.t);
        if (packageInterface is { } pi) Ask("type_hierarchy", "package", pi.at, pi.t);
        return questions;
    }

    /// <summary>
    /// A metadata type from a NuGet package, not the framework: a targeting pack is under the SDK's
    /// packs/ or, for a framework the SDK does not ship (net8.0 under SDK 10), in the NuGet cache as
    /// microsoft.netcore.app.ref / microsoft.aspnetcore.app.ref / netstandard.library.
    /// </summary>
    static bool FromPackage(Compilation c, INamedTypeSymbol t)
    {
        if (t.Locations.Any(l => l.IsInSource) || t.ContainingAssembly is not { } a) return false;
        if (c.GetMetadataReference(a) is not PortableExecutableReference { FilePath: { } f }) return false;
        var p = f.Replace('\\', '/').ToLowerInvariant();
        return !(p.Contains("/packs/") || p.Contains(".app.ref/") || p.Contains("/netstandard.library/"));
    }

    /// <summary>The first use (path order) of a metadata symbol whose documentation id starts with each prefix.</summary>
    static async Task<Dictionary<string, (Loc at, ISymbol symbol)>> FirstUses(Loaded w, string[] prefixes)
    {
        var found = new Dictionary<string, (Loc at, ISymbol symbol)>();
        foreach (var (path, docs) in w.ByPath.OrderBy(k => k.Key, StringComparer.Ordinal))
        {
            if (found.Count == prefixes.Length) break;
            if (path.Contains("/obj/") || path.StartsWith("obj/")) continue;
            var doc = docs[0];
            var root = await doc.GetSyntaxRootAsync();
            var model = await doc.GetSemanticModelAsync();
            if (root is null || model is null) continue;
            foreach (var id in root.DescendantNodes().OfType<SimpleNameSyntax>())
            {
                var s = model.GetSymbolInfo(id).Symbol;
                if (s is null || s.Locations.Any(l => l.IsInSource)) continue;
                s = Answers.Normalize(s);
                var docId = s.GetDocumentationCommentId();
                if (docId is null) continue;
                foreach (var prefix in prefixes)
                {
                    if (found.ContainsKey(prefix) || !docId.StartsWith(prefix, StringComparison.Ordinal)) continue;
                    var at = Answers.LocOf(w, id.Identifier.GetLocation());
                    if (at is not null) found[prefix] = (at, s);
                }
            }
        }
        return found;
    }

    /// <summary>
    /// Definition questions at uses of symbols with a part a source generator wrote ([LoggerMessage] /
    /// [GeneratedRegex] partial methods, generated partial types): the first `n` in path order, one per symbol.
    /// </summary>
    public static async Task<List<Question>> Generated(Loaded w, int n)
    {
        var questions = new List<Question>();
        var seen = new HashSet<ISymbol>(SymbolEqualityComparer.Default);
        foreach (var (path, docs) in w.ByPath.OrderBy(k => k.Key, StringComparer.Ordinal))
        {
            if (questions.Count >= n) break;
            if (path.Contains("/obj/") || path.StartsWith("obj/")) continue;
            var doc = docs[0];
            var root = await doc.GetSyntaxRootAsync();
            var model = await doc.GetSemanticModelAsync();
            if (root is null || model is null) continue;
            foreach (var id in root.DescendantNodes().OfType<SimpleNameSyntax>())
            {
                if (questions.Count >= n) break;
                var s = model.GetSymbolInfo(id).Symbol;
                if (s is null) continue;
                s = Answers.Normalize(s);
                var parts = s is IMethodSymbol m ? new ISymbol?[] { m, m.PartialImplementationPart, m.PartialDefinitionPart } : new ISymbol?[] { s };
                var generated = parts.OfType<ISymbol>().SelectMany(p => p.Locations).Any(l => l.IsInSource && w.IsSourceGenerated(l.SourceTree));
                var inSource = parts.OfType<ISymbol>().SelectMany(p => p.Locations).Any(l => l.IsInSource && !w.IsSourceGenerated(l.SourceTree));
                if (!generated || !inSource || !seen.Add(s)) continue;
                var at = Answers.LocOf(w, id.Identifier.GetLocation());
                if (at is not null && !at.Generated) questions.Add(new Question($"g{questions.Count + 1}", "definition", at.Path, at.Line, at.Column, s.ToDisplayString()));
            }
        }
        return questions;
    }

    static bool Implementable(ISymbol s) => s switch
    {
        INamedTypeSymbol t => t.TypeKind == TypeKind.Interface || (t.TypeKind == TypeKind.Class && !t.IsSealed && !t.IsStatic),
        IMethodSymbol or IPropertySymbol or IEventSymbol => !s.IsStatic && (s.IsAbstract || s.IsVirtual || s.ContainingType?.TypeKind == TypeKind.Interface),
        _ => false,
    };

    static bool Wanted(ISymbol s) => s.Kind is SymbolKind.NamedType or SymbolKind.Method or SymbolKind.Property or SymbolKind.Field or SymbolKind.Event
        && !s.IsImplicitlyDeclared
        && s is not IMethodSymbol { MethodKind: MethodKind.PropertyGet or MethodKind.PropertySet or MethodKind.EventAdd or MethodKind.EventRemove or MethodKind.StaticConstructor or MethodKind.Destructor };

    static async Task<Candidates> Collect(Loaded w, Project project)
    {
        var c = new Candidates();
        foreach (var doc in project.Documents)
        {
            var rel = w.Rel(doc.FilePath);
            if (rel is null || rel.Contains("/obj/") || rel.StartsWith("obj/") || rel.Contains("/bin/")) continue;
            var root = await doc.GetSyntaxRootAsync();
            var model = await doc.GetSemanticModelAsync();
            if (root is null || model is null) continue;
            foreach (var node in root.DescendantNodes())
            {
                ISymbol? declared = node switch
                {
                    BaseTypeDeclarationSyntax or DelegateDeclarationSyntax or MethodDeclarationSyntax or PropertyDeclarationSyntax
                        or EventDeclarationSyntax or ConstructorDeclarationSyntax or VariableDeclaratorSyntax { Parent.Parent: BaseFieldDeclarationSyntax }
                        or EnumMemberDeclarationSyntax => model.GetDeclaredSymbol(node),
                    _ => null,
                };
                if (declared is not null && Wanted(declared))
                {
                    var at = declared.Locations.Where(l => l.SourceTree == model.SyntaxTree && node.Span.Contains(l.SourceSpan)).Select(l => Answers.LocOf(w, l)).OfType<Loc>().FirstOrDefault();
                    if (at is not null) c.Decls.Add((at, declared));
                }
                if (node is IdentifierNameSyntax id && c.Uses.Count < 2000 && !id.IsVar)
                {
                    var s = model.GetSymbolInfo(id).Symbol;
                    if (s is null) continue;
                    s = Answers.Normalize(s);
                    if (!Wanted(s) || !s.Locations.Any(l => l.IsInSource && w.Rel(l.SourceTree?.FilePath) is not null)) continue;
                    var at = Answers.LocOf(w, id.Identifier.GetLocation());
                    if (at is not null) c.Uses.Add((at, s));
                }
            }
        }
        return c;
    }
}
