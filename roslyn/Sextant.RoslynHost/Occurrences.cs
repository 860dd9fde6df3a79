// `occurrences` (roslyn/PROTOCOL.md): every symbol occurrence of a project's documents, as SCIP
// (Sourcegraph's code intelligence protocol) describes them — symbol, range, role, the enclosing
// range of a definition — plus the symbols each document defines with their relationships
// (base types, interfaces, overridden and implemented members) and the other documents its uses
// bind to (the engine keys the facts on them). The engine writes these as SCIP documents: the
// persisted layer and `sextant scip export`.
using System.Security.Cryptography;
using System.Text;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Text;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using StreamJsonRpc;

namespace Sextant.RoslynHost;

public sealed class OccurrencesParams
{
    public string ProjectKey { get; set; } = "";
    /// workspace-relative or absolute paths; default: every document of the project (generated ones under obj/ included)
    public List<string>? Documents { get; set; }
    public int? DeadlineMs { get; set; }
}

public sealed class OccurrenceRelation { public int Symbol { get; set; } public string Kind { get; set; } = ""; }

public sealed class OccurrenceSymbolInfo
{
    public int Symbol { get; set; }
    public string Kind { get; set; } = "";
    public string Display { get; set; } = "";
    public List<OccurrenceRelation> Relations { get; set; } = new();
}

public sealed class DocumentOccurrences
{
    public string Path { get; set; } = "";
    /// sha1 (hex) of the bytes the host compiled (the engine keys the facts on its own hash of the file and compares)
    public string Sha1 { get; set; } = "";
    public List<string> Symbols { get; set; } = new();
    /// 10 numbers per occurrence, 0-based, end-exclusive, UTF-16: startLine, startChar, endLine, endChar,
    /// symbol index, roles (SCIP SymbolRole bits; 1<<20 = implicit), enclosing startLine, startChar, endLine, endChar (-1 when none)
    public List<int> Occ { get; set; } = new();
    public List<OccurrenceSymbolInfo> Infos { get; set; } = new();
    /// workspace-relative paths of other documents declaring what the uses bind to
    public List<string> Deps { get; set; } = new();
    /// a source generator's document (path `generated:…`; sha1 of its text)
    public bool? Generated { get; set; }
    /// the file on disk is not the text compiled here (a change not pushed to the host yet): no sha1
    public bool? Stale { get; set; }
}

public sealed class OccurrencesResult
{
    public List<DocumentOccurrences> Documents { get; set; } = new();
    public List<string> NotDone { get; set; } = new();
    public string? Reason { get; set; }
    public Stats Stats { get; set; } = new();
}

/// A second JSON-RPC target beside RpcTarget (Program.cs adds it): the `occurrences` method.
public sealed class OccurrencesTarget
{
    readonly RpcTarget host;
    public OccurrencesTarget(RpcTarget host) { this.host = host; }
    HostState h => host.State;

    [JsonRpcMethod("occurrences", UseSingleObjectParameterDeserialization = true)]
    public async Task<OccurrencesResult> Run(OccurrencesParams p, CancellationToken ct)
    {
        await h.Gate.WaitAsync(ct);
        try { return await Collect(p, ct); }
        catch (HostError e) { throw new LocalRpcException(e.Message) { ErrorCode = e.Code, ErrorData = e.Data2 }; }
        finally { h.Gate.Release(); }
    }

    async Task<OccurrencesResult> Collect(OccurrencesParams p, CancellationToken ct)
    {
        var sw = System.Diagnostics.Stopwatch.StartNew();
        var res = new OccurrencesResult();
        if (!h.Known.TryGetValue(p.ProjectKey, out var kp))
            throw new HostError(-32012, $"Error [UNKNOWN_PROJECT]: {p.ProjectKey} was never ensured. Hint: ensure it (projects/ensure) first.", new { key = p.ProjectKey });
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(ct);
        if (p.DeadlineMs is int ms && ms > 0) deadline.CancelAfter(ms);
        h.Touch(h.Closure(new[] { p.ProjectKey }));
        var sol = h.Workspace.CurrentSolution;
        var project = sol.GetProject(kp.Id);
        if (project == null) { res.Reason = "project not in the workspace"; return res; }
        var compilation = await project.GetCompilationAsync(deadline.Token);
        if (compilation == null) { res.Reason = "no compilation"; return res; }
        var wanted = p.Documents?.Select(h.Abs).ToHashSet(StringComparer.Ordinal);
        var docs = project.Documents.Where(d => d.FilePath != null && (wanted?.Contains(d.FilePath) ?? true)).Cast<Document>().ToList();
        // The generators' documents (protocol 5), under their virtual paths as answers name them;
        // their sha1 is of the text the generator wrote (nothing on disk).
        foreach (var g in await project.GetSourceGeneratedDocumentsAsync(deadline.Token))
            if (g.FilePath != null && (wanted == null || wanted.Contains(g.FilePath) || wanted.Contains(h.Rel(g.FilePath).path))) docs.Add(g);
        foreach (var d in docs)
        {
            if (deadline.IsCancellationRequested) { res.NotDone.Add(h.Rel(d.FilePath!).path); continue; }
            var tree = await d.GetSyntaxTreeAsync(deadline.Token);
            if (tree == null) continue;
            var model = compilation.GetSemanticModel(tree);
            res.Documents.Add(await OneDocument(d, tree, model, sol, deadline.Token));
        }
        res.Stats.SearchMs = sw.ElapsedMilliseconds;
        res.Stats.WorkingSetMb = HostState.WorkingSetMb();
        res.Stats.GcHeapMb = HostState.GcHeapMb();
        h.EvictIfNeeded(h.Closure(new[] { p.ProjectKey }));
        return res;
    }

    async Task<DocumentOccurrences> OneDocument(Document d, SyntaxTree tree, SemanticModel model, Solution sol, CancellationToken ct)
    {
        var path = d.FilePath!;
        var outDoc = new DocumentOccurrences { Path = h.Rel(path).path };
        if (d is SourceGeneratedDocument)
        {
            var text = await d.GetTextAsync(ct);
            outDoc.Sha1 = Convert.ToHexString(SHA1.HashData(Encoding.UTF8.GetBytes(text.ToString()))).ToLowerInvariant();
            outDoc.Generated = true;
        }
        else
        {
            // The sha1 of the file only when its bytes are the text compiled here (a change not pushed
            // to the host yet: stale, no sha1 — the engine records no facts for it); unreadable: ''.
            try
            {
                var bytes = File.ReadAllBytes(path);
                var disk = new UTF8Encoding(false).GetString(bytes);
                if (disk.Length > 0 && disk[0] == '\uFEFF') disk = disk[1..];
                if (disk == (await d.GetTextAsync(ct)).ToString()) outDoc.Sha1 = Convert.ToHexString(SHA1.HashData(bytes)).ToLowerInvariant();
                else outDoc.Stale = true;
            }
            catch (IOException) { }
            catch (UnauthorizedAccessException) { }
        }
        var index = new Dictionary<string, int>(StringComparer.Ordinal);
        var locals = new Dictionary<ISymbol, string>(SymbolEqualityComparer.Default);
        var deps = new HashSet<string>(StringComparer.Ordinal);
        var defined = new Dictionary<int, ISymbol>();
        int Sym(ISymbol s)
        {
            var str = ScipSymbols.Of(s, locals);
            if (!index.TryGetValue(str, out var i)) { i = outDoc.Symbols.Count; index[str] = i; outDoc.Symbols.Add(str); }
            return i;
        }
        void Dep(ISymbol s)
        {
            foreach (var x in new[] { s, s.ContainingType as ISymbol })
            {
                if (x == null) continue;
                foreach (var r in x.DeclaringSyntaxReferences)
                    if (r.SyntaxTree.FilePath is string fp && fp != path) deps.Add(h.Rel(fp).path);
            }
        }
        void Emit(SyntaxToken tok, int sym, int roles, TextSpan? enclosing)
        {
            var ls = tree.GetLineSpan(tok.Span);
            outDoc.Occ.AddRange(new[] { ls.StartLinePosition.Line, ls.StartLinePosition.Character, ls.EndLinePosition.Line, ls.EndLinePosition.Character, sym, roles });
            if (enclosing is TextSpan e)
            {
                var es = tree.GetLineSpan(e);
                outDoc.Occ.AddRange(new[] { es.StartLinePosition.Line, es.StartLinePosition.Character, es.EndLinePosition.Line, es.EndLinePosition.Character });
            }
            else outDoc.Occ.AddRange(new[] { -1, -1, -1, -1 });
        }
        var root = await tree.GetRootAsync(ct);
        var n = 0;
        // Into structured trivia too: a documentation comment's `<see cref="T"/>` is a reference
        // (FindReferences reports it); directives' names bind to nothing and are left out below.
        foreach (var tok in root.DescendantTokens(descendIntoTrivia: true))
        {
            // `: base(...)` / `: this(...)`: a use of the constructor called, at the keyword (as FindReferences reports it)
            if ((tok.IsKind(SyntaxKind.BaseKeyword) || tok.IsKind(SyntaxKind.ThisKeyword)) && tok.Parent is ConstructorInitializerSyntax ci)
            {
                if (model.GetSymbolInfo(ci, ct).Symbol is IMethodSymbol called) { var c = Norm(called); Emit(tok, Sym(c), 0, null); Dep(c); }
                continue;
            }
            if (!tok.IsKind(SyntaxKind.IdentifierToken)) continue;
            if ((++n & 255) == 0) ct.ThrowIfCancellationRequested();
            var parent = tok.Parent;
            if (parent == null) continue;
            // a declaration's own name
            var declared = DeclaredBy(tok, parent, model, ct);
            if (declared != null)
            {
                var s = Norm(declared);
                var i = Sym(s);
                var decl = s.DeclaringSyntaxReferences.FirstOrDefault(r => r.SyntaxTree == tree && r.Span.Contains(tok.Span));
                Emit(tok, i, 1, decl?.Span);
                if (ScipSymbols.IsGlobal(s)) defined[i] = s;
                continue;
            }
            if (parent is IdentifierNameSyntax { IsVar: true } v && model.GetSymbolInfo(v, ct).Symbol is ITypeSymbol) continue;
            if (parent is not SimpleNameSyntax name) continue;
            var info = model.GetSymbolInfo(name, ct);
            var targets = info.Symbol != null ? new[] { info.Symbol } : info.CandidateSymbols.ToArray();
            foreach (var t0 in targets)
            {
                var t = Norm(t0);
                Emit(tok, Sym(t), 0, null);
                Dep(t);
            }
            // `new T(...)`: the type name is also a use of the constructor (FindReferences reports both)
            if (name.Parent is ObjectCreationExpressionSyntax oc && oc.Type == name || name.Parent is QualifiedNameSyntax { Parent: ObjectCreationExpressionSyntax oq } qn && oq.Type == qn && qn.Right == name)
            {
                var creation = (ExpressionSyntax)(name.Parent is ObjectCreationExpressionSyntax ? name.Parent : name.Parent!.Parent!);
                if (model.GetSymbolInfo(creation, ct).Symbol is IMethodSymbol ctor && !targets.Any(x => SymbolEqualityComparer.Default.Equals(x, ctor))) Emit(tok, Sym(Norm(ctor)), 0, null);
            }
        }
        foreach (var (i, s) in defined) outDoc.Infos.Add(Info(i, s, Sym));
        outDoc.Deps = deps.OrderBy(x => x, StringComparer.Ordinal).ToList();
        return outDoc;
    }

    static OccurrenceSymbolInfo Info(int i, ISymbol s, Func<ISymbol, int> sym)
    {
        var info = new OccurrenceSymbolInfo { Symbol = i, Kind = Queries.KindName(s), Display = s.ToDisplayString() };
        void Rel(ISymbol? t, string kind) { if (t != null) info.Relations.Add(new OccurrenceRelation { Symbol = sym(Norm(t)), Kind = kind }); }
        if (s is INamedTypeSymbol nt)
        {
            if (nt.BaseType is INamedTypeSymbol b && b.SpecialType != SpecialType.System_Object && nt.TypeKind == TypeKind.Class) Rel(b, "implementation");
            foreach (var iface in nt.Interfaces) Rel(iface, "implementation");
        }
        else
        {
            foreach (var o in Queries.OverriddenChain(s).Take(1)) Rel(o, "implementation");
            foreach (var m in Queries.InterfaceMembersImplemented(s)) Rel(m, "implementation");
        }
        return info;
    }

    static ISymbol? DeclaredBy(SyntaxToken tok, SyntaxNode parent, SemanticModel model, CancellationToken ct)
    {
        SyntaxToken? id = parent switch
        {
            BaseTypeDeclarationSyntax t => t.Identifier,
            DelegateDeclarationSyntax x => x.Identifier,
            MethodDeclarationSyntax x => x.Identifier,
            ConstructorDeclarationSyntax x => x.Identifier,
            DestructorDeclarationSyntax x => x.Identifier,
            PropertyDeclarationSyntax x => x.Identifier,
            EventDeclarationSyntax x => x.Identifier,
            VariableDeclaratorSyntax x => x.Identifier,
            EnumMemberDeclarationSyntax x => x.Identifier,
            ParameterSyntax x => x.Identifier,
            TypeParameterSyntax x => x.Identifier,
            LocalFunctionStatementSyntax x => x.Identifier,
            SingleVariableDesignationSyntax x => x.Identifier,
            ForEachStatementSyntax x => x.Identifier,
            CatchDeclarationSyntax x => x.Identifier,
            _ => null,
        };
        if (id is not SyntaxToken i || i != tok) return null;
        return parent is ForEachStatementSyntax fe ? model.GetDeclaredSymbol(fe, ct) : model.GetDeclaredSymbol(parent, ct);
    }

    static ISymbol Norm(ISymbol s)
    {
        if (s is IMethodSymbol { ReducedFrom: { } r }) s = r;
        if (s is IAliasSymbol a) s = a.Target;
        return s.OriginalDefinition ?? s;
    }
}

/// SCIP symbols of C# symbols: `sextant-cs . <assembly> . <descriptors>`, descriptors from the
/// containing namespaces and types; a method's disambiguator is a hash of its documentation id
/// (overloads differ, every shard spells it the same). Locals, parameters, lambdas and local
/// functions are `local <n>` per document.
public static class ScipSymbols
{
    public static bool IsGlobal(ISymbol s) => Queries.DocId(s) != null;

    public static string Of(ISymbol s, Dictionary<ISymbol, string> locals)
    {
        var docId = Queries.DocId(s);
        if (docId == null || s is ITypeParameterSymbol)
        {
            if (!locals.TryGetValue(s, out var l)) { l = $"local {locals.Count}"; locals[s] = l; }
            return l;
        }
        var sb = new StringBuilder();
        sb.Append("sextant-cs . ").Append(Pkg(s.ContainingAssembly?.Identity.Name ?? (s as IAssemblySymbol)?.Identity.Name ?? "")).Append(" . ");
        Descriptors(s, sb, docId);
        return sb.ToString();
    }

    static string Pkg(string s) => s == "" ? "." : s.Replace(" ", "  ");

    static void Namespaces(INamespaceSymbol? ns, StringBuilder sb)
    {
        if (ns == null || ns.IsGlobalNamespace) return;
        Namespaces(ns.ContainingNamespace, sb);
        sb.Append(Esc(ns.Name)).Append('/');
    }

    static void Descriptors(ISymbol s, StringBuilder sb, string docId)
    {
        if (s is INamespaceSymbol ns) { Namespaces(ns, sb); return; }
        if (s.ContainingType != null) Descriptors(s.ContainingType, sb, Queries.DocId(s.ContainingType) ?? "");
        else Namespaces(s.ContainingNamespace, sb);
        switch (s)
        {
            case INamedTypeSymbol t:
                sb.Append(Esc(t.MetadataName)).Append('#');
                break;
            case IMethodSymbol m:
                var open = docId.IndexOf('(');
                var sig = open >= 0 ? docId[open..] : "";
                var tick = docId.IndexOf("``", StringComparison.Ordinal);
                if (tick >= 0 && (open < 0 || tick < open)) sig = docId[tick..];
                sb.Append(Esc(m.MetadataName)).Append('(').Append(sig == "" ? "" : Hash(sig)).Append(").");
                break;
            case IPropertySymbol { IsIndexer: true } p:
                var po = docId.IndexOf('(');
                sb.Append(Esc(p.MetadataName)).Append('(').Append(po >= 0 ? Hash(docId[po..]) : "").Append(").");
                break;
            default:
                sb.Append(Esc(s.MetadataName)).Append('.');
                break;
        }
    }

    static string Hash(string s) => Convert.ToHexString(SHA1.HashData(Encoding.UTF8.GetBytes(s)))[..10].ToLowerInvariant();

    static string Esc(string name)
    {
        if (name.Length > 0 && name.All(c => char.IsAsciiLetterOrDigit(c) || c is '_' or '+' or '-' or '$')) return name;
        return "`" + name.Replace("`", "``") + "`";
    }
}
