// The query operations of roslyn/PROTOCOL.md over the live workspace.
using System.Collections.Immutable;
using System.Diagnostics;
using System.Text;
using System.Xml.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.FindSymbols;
using Microsoft.CodeAnalysis.Operations;

namespace Sextant.RoslynHost;

public sealed class HostError : Exception
{
    public int Code { get; }
    public object? Data2 { get; }
    public HostError(int code, string message, object? data = null) : base(message) { Code = code; Data2 = data; }
}

public sealed class Queries
{
    readonly HostState h;
    /// Projects searched per streaming batch (a batch is loaded, searched, then may be evicted);
    /// smaller under a deadline, so a partial answer has searched something.
    const int BatchProjects = 64;
    const int DeadlineBatchProjects = 16;

    public Queries(HostState state) { h = state; }

    static readonly SymbolDisplayFormat Fmt = SymbolDisplayFormat.CSharpErrorMessageFormat
        .WithMemberOptions(SymbolDisplayMemberOptions.IncludeContainingType | SymbolDisplayMemberOptions.IncludeParameters | SymbolDisplayMemberOptions.IncludeType | SymbolDisplayMemberOptions.IncludeRef | SymbolDisplayMemberOptions.IncludeExplicitInterface)
        .WithParameterOptions(SymbolDisplayParameterOptions.IncludeType | SymbolDisplayParameterOptions.IncludeName | SymbolDisplayParameterOptions.IncludeParamsRefOut | SymbolDisplayParameterOptions.IncludeDefaultValue);

    public static string KindName(ISymbol s) => s switch
    {
        INamedTypeSymbol t => t.TypeKind switch { TypeKind.Interface => "interface", TypeKind.Struct => "struct", TypeKind.Enum => "enum", _ => "class" },
        IMethodSymbol m => m.MethodKind switch
        {
            MethodKind.Constructor or MethodKind.StaticConstructor => "constructor",
            MethodKind.LocalFunction => "function",
            MethodKind.UserDefinedOperator or MethodKind.Conversion or MethodKind.BuiltinOperator => "operator",
            _ => "method",
        },
        IPropertySymbol => "property",
        IFieldSymbol f => f.ContainingType?.TypeKind == TypeKind.Enum ? "enumMember" : f.IsConst ? "constant" : "field",
        IEventSymbol => "event",
        INamespaceSymbol => "namespace",
        ITypeParameterSymbol => "typeParameter",
        ILocalSymbol l => l.IsConst ? "constant" : "variable",
        IParameterSymbol => "variable",
        _ => "unknown",
    };

    public Loc ToLoc(Location loc, Solution sol)
    {
        var span = loc.GetLineSpan();
        var path = span.Path ?? loc.SourceTree?.FilePath ?? "";
        var (rel, ext) = h.Rel(path);
        var docId = loc.SourceTree != null ? sol.GetDocumentId(loc.SourceTree) : null;
        return new Loc
        {
            Path = rel,
            External = ext ? true : null,
            Line = span.StartLinePosition.Line + 1,
            Column = span.StartLinePosition.Character + 1,
            EndLine = span.EndLinePosition.Line + 1,
            EndColumn = span.EndLinePosition.Character + 1,
            Generated = h.IsGenerated(path, docId?.ProjectId) ? true : null,
        };
    }

    static Span ToSpan(FileLinePositionSpan s) => new() { Line = s.StartLinePosition.Line + 1, Column = s.StartLinePosition.Character + 1, EndLine = s.EndLinePosition.Line + 1, EndColumn = s.EndLinePosition.Character + 1 };

    public SymbolRef Ref(ISymbol s, Solution sol, bool withLocations = true)
    {
        var r = new SymbolRef
        {
            Name = s.Name,
            Kind = KindName(s),
            Display = s.ToDisplayString(Fmt),
            DocId = DocId(s),
            ContainerName = s.ContainingType?.ToDisplayString() ?? (s.ContainingNamespace is { IsGlobalNamespace: false } ns ? ns.ToDisplayString() : null),
        };
        if (s.Locations.Any(l => l.IsInSource))
        {
            var tree = s.Locations.First(l => l.IsInSource).SourceTree;
            var did = tree != null ? sol.GetDocumentId(tree) : null;
            r.ProjectKey = did != null ? h.KeyOf(did.ProjectId) : null;
        }
        else r.Assembly = s.ContainingAssembly?.Identity.Name;
        if (withLocations) r.Locations = DeclLocs(s, sol);
        return r;
    }

    public static string? DocId(ISymbol s)
    {
        if (s is ILocalSymbol or IParameterSymbol or IRangeVariableSymbol or ILabelSymbol or IDiscardSymbol) return null;
        if (s is IMethodSymbol { MethodKind: MethodKind.LocalFunction or MethodKind.AnonymousFunction }) return null;
        try { return DocumentationCommentId.CreateDeclarationId(s); } catch { return null; }
    }

    List<Loc> DeclLocs(ISymbol s, Solution sol)
    {
        var list = new List<Loc>();
        var srcLocs = s.Locations.Where(l => l.IsInSource).ToList();
        foreach (var l in srcLocs)
        {
            var loc = ToLoc(l, sol);
            var decl = s.DeclaringSyntaxReferences.FirstOrDefault(r => r.SyntaxTree == l.SourceTree && r.Span.Contains(l.SourceSpan));
            if (decl != null) loc.FullSpan = ToSpan(decl.SyntaxTree.GetLineSpan(decl.Span));
            list.Add(loc);
        }
        return list;
    }

    // ---------- target resolution ----------

    sealed class Target
    {
        public ISymbol? Symbol;
        public string? Reason;
        public string? ProjectKey;     // the project the question was asked in
        public Document? Document;
    }

    async Task<Target> ResolveTarget(QueryParams q, CancellationToken ct)
    {
        var sol = h.Workspace.CurrentSolution;
        if (q.Position != null)
        {
            var abs = h.Abs(q.Position.Path);
            var keys = h.KeysForPath(abs);
            if (keys.Count == 0 && h.IsGenerated(abs, null))
                keys = sol.GetDocumentIdsWithFilePath(abs).Select(i => h.KeyOf(i.ProjectId)).Where(k => k != null).Select(k => k!).ToList();
            if (keys.Count == 0)
                throw new HostError(-32010, $"Error [DOCUMENT_NOT_IN_WORKSPACE]: {q.Position.Path} is in no project the host was given. Hint: ensure the project that compiles it (projects/ensure) first.", new { path = q.Position.Path });
            string key;
            if (q.Position.ProjectKey != null)
            {
                if (!keys.Contains(q.Position.ProjectKey))
                    throw new HostError(-32012, $"Error [UNKNOWN_PROJECT]: {q.Position.ProjectKey} does not compile {q.Position.Path}. Hint: pass one of {string.Join(", ", keys)} or omit projectKey.", new { key = q.Position.ProjectKey });
                key = q.Position.ProjectKey;
            }
            else key = keys.OrderByDescending(k => h.Known[k].Touched).First();
            if (!File.Exists(abs) && !h.Buffers.ContainsKey(abs))
                throw new HostError(-32011, $"Error [DOCUMENT_MISSING]: {q.Position.Path} no longer exists on disk. Hint: send documents/changed and re-ensure its project.", new { path = q.Position.Path });
            var kp = h.Known[key];
            var doc = sol.GetProject(kp.Id)?.Documents.FirstOrDefault(d => d.FilePath == abs);
            if (doc == null)
                throw new HostError(-32011, $"Error [DOCUMENT_MISSING]: {q.Position.Path} is not a document of {key} in the workspace. Hint: re-ensure the project.", new { path = q.Position.Path });
            var text = await doc.GetTextAsync(ct);
            var line = Math.Clamp(q.Position.Line - 1, 0, Math.Max(0, text.Lines.Count - 1));
            var tl = text.Lines[line];
            var offset = Math.Clamp(tl.Start + Math.Max(0, q.Position.Column - 1), tl.Start, tl.End);
            var sym = await SymbolFinder.FindSymbolAtPositionAsync(doc, offset, ct);
            if (sym == null && offset > tl.Start) sym = await SymbolFinder.FindSymbolAtPositionAsync(doc, offset - 1, ct);
            return new Target { Symbol = Normalize(sym), ProjectKey = key, Document = doc, Reason = sym == null ? "no symbol at position" : null };
        }
        if (q.Symbol != null)
        {
            if (!h.Known.TryGetValue(q.Symbol.ProjectKey, out var kp))
                throw new HostError(-32012, $"Error [UNKNOWN_PROJECT]: {q.Symbol.ProjectKey} was never ensured. Hint: ensure it (projects/ensure) first.", new { key = q.Symbol.ProjectKey });
            var comp = await sol.GetProject(kp.Id)!.GetCompilationAsync(ct);
            var sym = comp == null ? null : ByDocId(q.Symbol.DocId, comp);
            if (sym == null)
                throw new HostError(-32013, $"Error [SYMBOL_NOT_FOUND]: {q.Symbol.DocId} does not resolve in {q.Symbol.ProjectKey}. Hint: the code may have changed; ask by position.", new { docId = q.Symbol.DocId });
            return new Target { Symbol = Normalize(sym), ProjectKey = q.Symbol.ProjectKey };
        }
        return new Target { Reason = "no position or symbol given" };
    }

    /// The symbol of a documentation-comment id. Roslyn's parser cannot read back an id whose
    /// signature names a type the compilation could not resolve (an error type: a package not
    /// restored), though the id came from that very compilation: then the members of that name in
    /// the containing type are compared by their own id.
    public static ISymbol? ByDocId(string docId, Compilation comp)
    {
        if (DocumentationCommentId.GetFirstSymbolForDeclarationId(docId, comp) is ISymbol s) return s;
        if (docId.Length < 3 || docId[1] != ':' || docId[0] is not ('M' or 'P' or 'E' or 'F')) return null;
        var head = docId.IndexOf('(') is var open && open > 0 ? docId[2..open] : docId[2..];
        var tick = head.IndexOf("``", StringComparison.Ordinal);
        if (tick > 0) head = head[..tick];
        var dot = head.LastIndexOf('.');
        if (dot <= 0) return null;
        if (DocumentationCommentId.GetFirstSymbolForDeclarationId("T:" + head[..dot], comp) is not INamedTypeSymbol type) return null;
        // the containing type's members compared by their own id (explicit implementations included)
        foreach (var m in type.GetMembers()) if (DocId(m) == docId) return m;
        return null;
    }

    static ISymbol? Normalize(ISymbol? s)
    {
        if (s is IMethodSymbol { ReducedFrom: { } r }) s = r;
        if (s is IAliasSymbol a) s = a.Target;
        return s == null ? null : (s.OriginalDefinition ?? s);
    }

    /// The same symbol in the current solution (the solution changes when batches are evicted).
    async Task<ISymbol?> Rebind(ISymbol s, Solution from, Solution to, CancellationToken ct)
    {
        if (ReferenceEquals(from, to)) return s;
        var id = DocId(s);
        var loc = s.Locations.FirstOrDefault(l => l.IsInSource);
        if (loc?.SourceTree == null) return s;
        var did = from.GetDocumentId(loc.SourceTree);
        if (did == null) return s;
        var proj = to.GetProject(did.ProjectId);
        if (proj == null) return null;
        if (id != null)
        {
            var comp = await proj.GetCompilationAsync(ct);
            if (comp != null && ByDocId(id, comp) is ISymbol r) return Normalize(r);
        }
        var doc = to.GetDocument(did);
        return doc == null ? null : Normalize(await SymbolFinder.FindSymbolAtPositionAsync(doc, loc.SourceSpan.Start, ct));
    }

    // ---------- dispatcher ----------

    public async Task<QueryResult> Run(QueryParams q, CancellationToken ct)
    {
        var sw = Stopwatch.StartNew();
        var cpu0 = Process.GetCurrentProcess().TotalProcessorTime;
        var res = new QueryResult();
        res.Stats.CpuMs = -(long)cpu0.TotalMilliseconds;
        var touchedBefore = h.Known.Values.Count(k => k.Touched);
        var maxItems = q.Options?.MaxItems ?? 5000;
        h.Queries++;
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(ct);
        if (q.Options?.DeadlineMs is int ms && ms > 0) deadline.CancelAfter(ms);

        if (q.Op == "diagnostics") { await Diagnostics(q, res, maxItems, deadline.Token, ct); Finish(res, sw, 0); return res; }

        // A search under a deadline answers by it even when the symbol's own project is not compiled
        // yet (a cold framework variant of a big dependency): every scope project not searched, and
        // that compilation goes on off the request queue (the abandoned resolution keeps building it).
        // Any op with deadlineMs (protocol 4): a definition / symbolInfo / documentation / callees
        // whose project is still compiling answers by the deadline too, so the request queue is free
        // for the next question while that compilation goes on.
        var timed = q.Options?.DeadlineMs is > 0;
        var resolving = timed ? Task.Run(() => ResolveTarget(q, ct)) : ResolveTarget(q, ct);
        if (timed && !await ByDeadline(resolving, deadline.Token, ct))
        {
            res.Reason = "deadline: the symbol's project was not compiled by the deadline";
            var left = q.Op is "references" or "callers" or "implementations" or "typeHierarchy" ? ScopeKeys(q, res)
                : q.Position?.ProjectKey is string pk ? new List<string> { pk } : q.Symbol != null ? new List<string> { q.Symbol.ProjectKey } : q.Position != null ? h.KeysForPath(h.Abs(q.Position.Path)).Take(1).ToList() : new List<string>();
            foreach (var k in left) res.NotSearched.Add(new NotSearched { Key = k, Reason = "deadline", Detail = "the symbol was not resolved by the deadline" });
            HostState.Log($"{q.Op}: symbol not resolved within {q.Options?.DeadlineMs} ms; answered with nothing searched");
            Finish(res, sw, sw.ElapsedMilliseconds);
            return res;
        }
        var t = await resolving;
        var loadMs = sw.ElapsedMilliseconds;
        if (t.Symbol == null) { res.Reason = t.Reason; Finish(res, sw, loadMs); return res; }
        var sol = h.Workspace.CurrentSolution;
        res.Symbol = Ref(t.Symbol, sol);
        if (t.ProjectKey != null) h.Touch(h.Closure(new[] { t.ProjectKey }));

        switch (q.Op)
        {
            case "definition":
                var locs = DeclLocs(t.Symbol, sol);
                foreach (var l in locs) { l.PartialPart = locs.Count > 1 ? true : null; l.ProjectKey = ProjectKeyOfPath(l, sol); res.Items.Add(l); }
                if (t.ProjectKey != null) res.Searched.Add(t.ProjectKey);
                break;
            case "symbolInfo":
                res.Items.Add(await SymbolInfo(t.Symbol, sol, ct));
                if (t.ProjectKey != null) res.Searched.Add(t.ProjectKey);
                break;
            case "documentation":
                var xml = t.Symbol.GetDocumentationCommentXml(expandIncludes: true, cancellationToken: ct) ?? "";
                res.Items.Add(new DocumentationRow { Xml = xml, Summary = Summary(xml) });
                if (t.ProjectKey != null) res.Searched.Add(t.ProjectKey);
                break;
            case "callees":
                foreach (var row in await Callees(t.Symbol, sol, ct)) res.Items.Add(row);
                if (t.ProjectKey != null) res.Searched.Add(t.ProjectKey);
                break;
            case "references":
            case "callers":
                await Streamed(q, t, res, deadline.Token, ct);
                break;
            case "implementations":
            case "typeHierarchy":
                await Hierarchy(q, t, res, deadline.Token, ct);
                break;
            default:
                throw new HostError(-32602, $"Error [UNKNOWN_OP]: query op '{q.Op}' is not one of definition, references, implementations, callers, callees, typeHierarchy, symbolInfo, documentation, diagnostics. Hint: see roslyn/PROTOCOL.md.");
        }
        if (res.Items.Count > maxItems) { res.Items = res.Items.Take(maxItems).ToList(); res.Truncated = true; }
        res.Stats.ProjectsLoaded = Math.Max(0, h.Known.Values.Count(k => k.Touched) - touchedBefore + res.Stats.ProjectsEvicted);
        Finish(res, sw, loadMs);
        return res;
    }

    void Finish(QueryResult res, Stopwatch sw, long loadMs)
    {
        res.Stats.LoadMs = Math.Max(res.Stats.LoadMs, loadMs);
        res.Stats.SearchMs = sw.ElapsedMilliseconds - res.Stats.LoadMs;
        res.Stats.WorkingSetMb = HostState.WorkingSetMb();
        res.Stats.GcHeapMb = HostState.GcHeapMb();
        if (res.Stats.CpuMs is long c0 && c0 <= 0) res.Stats.CpuMs = (long)Process.GetCurrentProcess().TotalProcessorTime.TotalMilliseconds + c0;
        foreach (var k in res.Searched)
            if (h.Known.TryGetValue(k, out var kp) && kp.Res.Unresolved.Count > 0) { res.UnresolvedInScope.Projects++; res.UnresolvedInScope.References += kp.Res.Unresolved.Count; }
    }

    string? ProjectKeyOfPath(Loc l, Solution sol)
    {
        var abs = l.External == true ? l.Path : h.Abs(l.Path);
        var ids = sol.GetDocumentIdsWithFilePath(abs);
        return ids.IsEmpty ? null : h.KeyOf(ids[0].ProjectId);
    }

    List<string> ScopeKeys(QueryParams q, QueryResult res)
    {
        var scope = q.Scope ?? h.Known.Keys.ToList();
        var ok = new HashSet<string>(StringComparer.Ordinal);
        foreach (var k in scope)
        {
            if (h.Known.ContainsKey(k)) ok.Add(k);
            else res.NotSearched.Add(new NotSearched { Key = k, Reason = "unknownProject", Detail = "never ensured" });
        }
        // dependencies first, so a batch's references are compiled before (and kept beside) their dependents
        return h.TopoOrder().Where(ok.Contains).ToList();
    }

    // ---------- references / callers, streamed in batches ----------

    /// Awaits `work` but no longer than the deadline: true when it completed (its exceptions, the
    /// deadline's cancellation included, come out here); false when the deadline came first — Roslyn
    /// does not observe cancellation everywhere (a metadata-only emit of a dependency, a compilation
    /// being built), so the answer goes out at the deadline and the abandoned work is left to stop.
    /// `work` is started with Task.Run by the callers: Roslyn may run a long way synchronously
    /// before its first await, and the deadline must already be watched then.
    static async Task<bool> ByDeadline(Task work, CancellationToken deadline, CancellationToken ct)
    {
        if (!deadline.CanBeCanceled || work.IsCompleted) { await work; return true; }
        var first = await Task.WhenAny(work, Task.Delay(Timeout.Infinite, deadline).ContinueWith(_ => { }, TaskScheduler.Default));
        if (first == work) { await work; return true; }
        _ = work.ContinueWith(t => _ = t.Exception, TaskScheduler.Default); // observed: never an unobserved fault
        ct.ThrowIfCancellationRequested();
        return false;
    }

    /// Rows one search unit found, merged into the answer only when the unit completed.
    sealed class UnitRows
    {
        public readonly List<Loc> Refs = new();
        public readonly HashSet<string> Seen = new();
        public readonly Dictionary<string, CallRow> Calls = new();
    }

    void Merge(UnitRows u, QueryResult res, HashSet<string> seen, Dictionary<string, CallRow> callerRows)
    {
        foreach (var l in u.Refs) if (seen.Add(LocKey(l) + "|" + l.Definition)) res.Items.Add(l);
        foreach (var (k, row) in u.Calls)
        {
            if (!callerRows.TryGetValue(k, out var have)) { callerRows[k] = row; continue; }
            foreach (var site in row.Sites) if (!have.Sites.Any(x => LocKey(x) == LocKey(site))) have.Sites.Add(site);
        }
    }

    /// Most documents whose text is read to pick the likely ones of a members search under a deadline.
    const int LikelyScanMaxDocuments = 4000;

    async Task Streamed(QueryParams q, Target t, QueryResult res, CancellationToken deadline, CancellationToken ct)
    {
        var includeRelated = q.Options?.IncludeRelated ?? true;
        var includeDecl = q.Options?.IncludeDeclaration ?? false;
        var scope = ScopeKeys(q, res);
        var sym = t.Symbol!;
        var symSol = h.Workspace.CurrentSolution;
        var defKey = res.Symbol?.ProjectKey;
        var pinnedBase = defKey != null ? h.Closure(new[] { defKey }) : new HashSet<string>();
        // a local / parameter / local function: only its own document can reference it
        var localOnly = DocId(sym) == null && t.Document != null;
        var dispatchers = new List<(ISymbol s, string? via)>();
        if (localOnly) scope = scope.Where(k => k == t.ProjectKey).ToList();
        else if (q.Op == "callers" && (q.Options?.WidenDispatch ?? true))
        {
            dispatchers = await Dispatchers(sym, symSol, ct);
            res.Dispatchers = dispatchers.Where(d => d.via != null).Select(d => Ref(d.s, symSol, withLocations: false)).ToList();
            var wsw = Stopwatch.StartNew();
            var added = WidenForDispatch(dispatchers.Where(d => d.via != null).Select(d => d.s).ToList(), symSol, sym.Name, scope, res, deadline);
            HostState.Log($"callers {sym.Name}: {dispatchers.Count(d => d.via != null)} dispatchers, scope {scope.Count} + {added.Count} for dispatch in {wsw.ElapsedMilliseconds} ms");
            if (added.Count > 0)
            {
                res.DispatchScope = added;
                var set = new HashSet<string>(scope.Concat(added), StringComparer.Ordinal);
                scope = h.TopoOrder().Where(set.Contains).ToList();
            }
        }
        // the engine's candidate documents (its text index: the files that mention the name); the
        // others cannot reference the symbol and are not read. Generated documents always stay in.
        var onlyDocs = q.Options?.Documents is { } dl0 ? new HashSet<string>(dl0.Select(h.Abs), StringComparer.Ordinal) : null;
        if (onlyDocs != null) foreach (var k in scope) onlyDocs.UnionWith(h.Known[k].GeneratedPaths);
        if (onlyDocs != null && res.DispatchScope != null) foreach (var k in res.DispatchScope) onlyDocs.UnionWith(h.Known[k].Desc.Documents.Select(d => h.Abs(d.Path)));
        var seen = new HashSet<string>();
        var callerRows = new Dictionary<string, CallRow>();
        var batchSize = BatchSizeOf(q);
        bool Candidate(Document d) => onlyDocs == null || (d.FilePath != null && onlyDocs.Contains(d.FilePath));
        // Each unit searches a solution narrowed to its projects' reference closure (plus the
        // symbol's own project): Roslyn's cascade (the interface members, overrides and sibling
        // implementations of the symbol, looked for in every project depending on their declaring
        // one) then reads only projects those documents can see, with the same rows.
        async Task Search(ISymbol s, Solution sol, IEnumerable<string> unitKeys, IEnumerable<Document> docs0, UnitRows u)
        {
            var keys = unitKeys.ToList();
            if (defKey != null) keys.Add(defKey);
            var narrow = Narrow(sol, keys);
            var s2 = await Rebind(s, sol, narrow, ct) ?? s;
            var docs = docs0.Select(d => narrow.GetDocument(d.Id)).Where(d => d != null).Select(d => d!).ToImmutableHashSet();
            if (q.Op == "references") await ReferencesBatch(s2, narrow, docs, includeRelated, includeDecl, u, deadline);
            else await CallersBatch(s2, narrow, docs, u, deadline);
        }

        // Under a deadline, a member's likely documents go first: those whose text also names its
        // type or a type it dispatches through (a call `factory.Send(…)` has the receiver's type in
        // sight far more often than not). Each project's likely ones are one unit, so the rows found
        // before the deadline are in the answer; the projects still count as searched only once all
        // their candidate documents were (the batches below, which skip the documents done here).
        var done = new HashSet<DocumentId>();
        if (deadline.CanBeCanceled && !localOnly && sym is not INamedTypeSymbol && scope.Count > 1 && sym.ContainingType != null)
        {
            var names = new HashSet<string>(StringComparer.Ordinal) { sym.ContainingType.Name };
            foreach (var (d, via) in dispatchers) if (via != null && d.ContainingType != null) names.Add(d.ContainingType.Name);
            if (q.Op == "references") foreach (var r in InterfaceMembersImplemented(sym).Concat(OverriddenChain(sym))) if (r.ContainingType != null) names.Add(r.ContainingType.Name);
            names.RemoveWhere(string.IsNullOrEmpty);
            var lsw = Stopwatch.StartNew();
            var scanned = 0;
            var units = 0;
            foreach (var k in scope)
            {
                if (deadline.IsCancellationRequested || scanned >= LikelyScanMaxDocuments) break;
                var sol = h.Workspace.CurrentSolution;
                if (sol.GetProject(h.Known[k].Id) is not Project proj) continue;
                var likely = new List<Document>();
                foreach (var d in proj.Documents)
                {
                    if (!Candidate(d) || d.FilePath == null || h.Known[k].GeneratedPaths.Contains(d.FilePath)) continue;
                    if (scanned++ >= LikelyScanMaxDocuments || ((scanned & 31) == 0 && deadline.IsCancellationRequested)) break;
                    if (MentionsAny(d.FilePath, names)) likely.Add(d);
                }
                if (deadline.IsCancellationRequested) break;
                if (likely.Count == 0) continue;
                var cur = await Rebind(sym, symSol, sol, ct);
                if (cur == null) break;
                sym = cur; symSol = sol;
                var u = new UnitRows();
                var usw = Stopwatch.StartNew();
                try
                {
                    if (!await ByDeadline(Task.Run(() => Search(sym, sol, new[] { k }, likely, u)), deadline, ct)) { HostState.Log($"  likely unit {k} ({likely.Count} documents) cut at {usw.ElapsedMilliseconds} ms"); break; }
                }
                catch (OperationCanceledException) when (!ct.IsCancellationRequested) { HostState.Log($"  likely unit {k} ({likely.Count} documents) cancelled at {usw.ElapsedMilliseconds} ms"); break; }
                Merge(u, res, seen, callerRows);
                foreach (var d in likely) done.Add(d.Id);
                units++;
            }
            HostState.Log($"{q.Op} {sym.Name}: likely documents first ({string.Join(", ", names)}): {done.Count} in {units} projects, {scanned} read, {lsw.ElapsedMilliseconds} ms");
        }

        for (var i = 0; i < scope.Count; i += batchSize)
        {
            var batch = scope.Skip(i).Take(batchSize).ToList();
            if (deadline.IsCancellationRequested && !ct.IsCancellationRequested)
            {
                foreach (var k in scope.Skip(i)) res.NotSearched.Add(new NotSearched { Key = k, Reason = "deadline" });
                h.CompileInBackground(h.Workspace.CurrentSolution, scope.Skip(i).Take(batchSize).ToList());
                break;
            }
            var sol = h.Workspace.CurrentSolution;
            var cur = await Rebind(sym, symSol, sol, ct);
            if (cur == null) { foreach (var k in scope.Skip(i)) res.NotSearched.Add(new NotSearched { Key = k, Reason = "error", Detail = "symbol no longer resolves" }); break; }
            sym = cur; symSol = sol;
            var docs = localOnly
                ? ImmutableHashSet.Create(sol.GetDocument(t.Document!.Id)!)
                : batch.Select(k => sol.GetProject(h.Known[k].Id)).Where(p => p != null).SelectMany(p => p!.Documents)
                    .Where(d => Candidate(d) && !done.Contains(d.Id)).ToImmutableHashSet();
            var bsw = Stopwatch.StartNew();
            var u = new UnitRows();
            var completed = false;
            try
            {
                completed = await ByDeadline(Task.Run(() => Search(sym, sol, localOnly ? new[] { t.ProjectKey! } : batch, docs, u)), deadline, ct);
            }
            catch (OperationCanceledException) when (!ct.IsCancellationRequested) { }
            if (!completed)
            {
                foreach (var k in scope.Skip(i)) res.NotSearched.Add(new NotSearched { Key = k, Reason = "deadline" });
                // the partial answer goes out now; the compilations it was building are finished
                // in the background, so the question asked again (or the next one near it) is warm
                h.CompileInBackground(sol, scope.Skip(i).Take(batchSize).ToList());
                break;
            }
            Merge(u, res, seen, callerRows);
            res.Searched.AddRange(batch);
            HostState.Log($"{q.Op} {sym.Name}: batch {i / batchSize + 1} of {(scope.Count + batchSize - 1) / batchSize} ({batch.Count} projects, {docs.Count} documents) in {bsw.ElapsedMilliseconds} ms");
            h.Touch(h.Closure(batch));
            var pinned = new HashSet<string>(pinnedBase);
            var next = scope.Skip(i + batchSize).Take(batchSize).ToList();
            pinned.UnionWith(h.Closure(next));
            res.Stats.ProjectsEvicted += h.EvictIfNeeded(pinned);
        }
        if (q.Op == "callers") foreach (var r in callerRows.Values) res.Items.Add(r);
    }

    /// The solution with only the projects of `keys` and their reference closure (compiled state
    /// of the kept projects carried over: none of them references a dropped one).
    Solution Narrow(Solution sol, IEnumerable<string> keys)
    {
        var keep = new HashSet<ProjectId>(h.Closure(keys).Select(k => h.Known[k].Id));
        var drop = sol.ProjectIds.Where(id => !keep.Contains(id)).ToList();
        if (drop.Count == 0) return sol;
        return BatchAdd.TryRemove(sol, drop) ?? drop.Aggregate(sol, (x, id) => x.RemoveProject(id));
    }

    /// Most projects a callers question adds to its scope for calls through interface / base members.
    const int DispatchWidenMaxProjects = 512;

    /// Known projects outside the scope that can call `sym` through one of its dispatchers: they are
    /// (or reference) a dispatcher's declaring project and one of their documents mentions the name.
    List<string> WidenForDispatch(List<ISymbol> dispatchers, Solution sol, string name, List<string> scope, QueryResult res, CancellationToken deadline)
    {
        var added = new List<string>();
        if (dispatchers.Count == 0 || string.IsNullOrEmpty(name)) return added;
        var declaring = new HashSet<string>(StringComparer.Ordinal);
        foreach (var d in dispatchers)
            foreach (var l in d.Locations.Where(l => l.IsInSource && l.SourceTree != null))
                if (sol.GetDocumentId(l.SourceTree!) is DocumentId did && h.KeyOf(did.ProjectId) is string k) declaring.Add(k);
        if (declaring.Count == 0) return added;
        var inScope = new HashSet<string>(scope, StringComparer.Ordinal);
        // the declaring projects and everything that references them (reverse edges, one walk)
        var dependents = new Dictionary<string, List<string>>(StringComparer.Ordinal);
        foreach (var kp in h.Known.Values)
            foreach (var r in kp.Desc.ProjectReferences)
                (dependents.TryGetValue(r, out var l) ? l : dependents[r] = new List<string>()).Add(kp.Desc.Key);
        var reach = new HashSet<string>(declaring, StringComparer.Ordinal);
        var stack = new Stack<string>(declaring);
        while (stack.Count > 0)
            if (dependents.TryGetValue(stack.Pop(), out var ds))
                foreach (var d in ds) if (reach.Add(d)) stack.Push(d);
        var filesRead = 0;
        var order = h.TopoOrder();
        for (var oi = 0; oi < order.Count; oi++)
        {
            var k = order[oi];
            if (inScope.Contains(k) || !reach.Contains(k)) continue;
            var hit = false;
            var cut = deadline.IsCancellationRequested;
            foreach (var doc in h.Known[k].Desc.Documents)
            {
                if (cut) break;
                if (filesRead++ >= DispatchWidenMaxFiles) { HostState.Log($"callers: dispatch widening stopped after {DispatchWidenMaxFiles} files"); return added; }
                if (Mentions(h.Abs(doc.Path), name)) { hit = true; break; }
                if ((filesRead & 63) == 0) cut = deadline.IsCancellationRequested;
            }
            if (cut)
            {
                // not read by the deadline: whether they call through a dispatcher is not known
                foreach (var r in order.Skip(oi).Where(x => !inScope.Contains(x) && reach.Contains(x)))
                    res.NotSearched.Add(new NotSearched { Key = r, Reason = "deadline", Detail = "not checked for calls through an interface or base member" });
                return added;
            }
            if (!hit) continue;
            added.Add(k);
            if (added.Count >= DispatchWidenMaxProjects) break;
        }
        return added;
    }

    /// Most files one callers question reads to find the projects outside its scope that mention the name.
    const int DispatchWidenMaxFiles = 8000;

    /// (path, name) -> (file length, mtime, mentions): a widening asked again reads no file twice.
    static readonly Dictionary<(string, string), (long len, DateTime mtime, bool hit)> mentionCache = new();

    bool Mentions(string absPath, string name)
    {
        try
        {
            if (h.Buffers.TryGetValue(absPath, out var buf)) return MentionsIn(buf, name);
            var fi = new FileInfo(absPath);
            if (!fi.Exists) return false;
            if (mentionCache.TryGetValue((absPath, name), out var c) && c.len == fi.Length && c.mtime == fi.LastWriteTimeUtc) return c.hit;
            var hit = MentionsIn(File.ReadAllText(absPath), name);
            if (mentionCache.Count > 200_000) mentionCache.Clear();
            mentionCache[(absPath, name)] = (fi.Length, fi.LastWriteTimeUtc, hit);
            return hit;
        }
        catch { return false; }
    }

    /// Whether the file names any of `names` (read once for all of them; cached like Mentions).
    bool MentionsAny(string absPath, IReadOnlyCollection<string> names)
    {
        try
        {
            if (h.Buffers.TryGetValue(absPath, out var buf)) return names.Any(n => MentionsIn(buf, n));
            var fi = new FileInfo(absPath);
            if (!fi.Exists) return false;
            var missing = false;
            foreach (var n in names)
            {
                if (!mentionCache.TryGetValue((absPath, n), out var c) || c.len != fi.Length || c.mtime != fi.LastWriteTimeUtc) { missing = true; continue; }
                if (c.hit) return true;
            }
            if (!missing) return false;
            var text = File.ReadAllText(absPath);
            if (mentionCache.Count > 200_000) mentionCache.Clear();
            var any = false;
            foreach (var n in names)
            {
                var hit = MentionsIn(text, n);
                mentionCache[(absPath, n)] = (fi.Length, fi.LastWriteTimeUtc, hit);
                any |= hit;
            }
            return any;
        }
        catch { return false; }
    }

    static bool MentionsIn(string text, string name)
    {
        for (var i = text.IndexOf(name, StringComparison.Ordinal); i >= 0; i = text.IndexOf(name, i + 1, StringComparison.Ordinal))
        {
            var before = i > 0 ? text[i - 1] : ' ';
            var after = i + name.Length < text.Length ? text[i + name.Length] : ' ';
            if (!(char.IsLetterOrDigit(before) || before == '_') && !(char.IsLetterOrDigit(after) || after == '_')) return true;
        }
        return false;
    }

    static string LocKey(Loc l) => $"{l.Path}:{l.Line}:{l.Column}:{l.EndLine}:{l.EndColumn}";

    async Task ReferencesBatch(ISymbol sym, Solution sol, IImmutableSet<Document> docs, bool includeRelated, bool includeDecl, UnitRows u, CancellationToken ct)
    {
        var seen = u.Seen;
        if (docs.Count == 0) return;
        var found = await SymbolFinder.FindReferencesAsync(sym, sol, docs, ct);
        var implemented = InterfaceMembersImplemented(sym);
        var overridden = OverriddenChain(sym);
        foreach (var rs in found)
        {
            var def = rs.Definition;
            var own = SymbolEqualityComparer.Default.Equals(def.OriginalDefinition, sym.OriginalDefinition);
            if (!own && !includeRelated) continue;
            var relation = own ? null : Relation(sym, def, implemented, overridden);
            var defId = DocId(def);
            foreach (var rl in rs.Locations)
            {
                var loc = ToLoc(rl.Location, sol);
                loc.Definition = defId;
                loc.Related = own ? null : true;
                loc.Relation = relation;
                loc.IsImplicit = rl.IsImplicit ? true : null;
                loc.IsCandidate = rl.IsCandidateLocation ? true : null;
                loc.ProjectKey = h.KeyOf(rl.Document.Project.Id);
                if (seen.Add(LocKey(loc) + "|" + defId)) u.Refs.Add(loc);
            }
            if (includeDecl)
                foreach (var dl in def.Locations.Where(l => l.IsInSource && l.SourceTree != null))
                {
                    var did = sol.GetDocumentId(dl.SourceTree!);
                    if (did == null || !docs.Any(d => d.Id == did)) continue;
                    var loc = ToLoc(dl, sol);
                    loc.Definition = defId; loc.IsDeclaration = true; loc.Related = own ? null : true; loc.Relation = relation; loc.ProjectKey = h.KeyOf(did.ProjectId);
                    if (seen.Add(LocKey(loc) + "|" + defId)) u.Refs.Add(loc);
                }
        }
    }

    static string Relation(ISymbol sym, ISymbol def, List<ISymbol> implemented, List<ISymbol> overridden)
    {
        var E = SymbolEqualityComparer.Default;
        if (OverriddenChain(def).Any(o => E.Equals(o.OriginalDefinition, sym.OriginalDefinition))) return "override";
        if (overridden.Any(o => E.Equals(o.OriginalDefinition, def.OriginalDefinition))) return "overridden";
        if (InterfaceMembersImplemented(def).Any(o => E.Equals(o.OriginalDefinition, sym.OriginalDefinition))) return "implementation";
        if (implemented.Any(o => E.Equals(o.OriginalDefinition, def.OriginalDefinition))) return "implemented";
        // cascades through a derived type (class D : Base, I where Base.M implements I.M for D)
        var defInIface = def.ContainingType?.TypeKind == TypeKind.Interface;
        var symInIface = sym.ContainingType?.TypeKind == TypeKind.Interface;
        if (def.Name == sym.Name && def.Kind == sym.Kind && defInIface != symInIface) return defInIface ? "implemented" : "implementation";
        return "other";
    }

    public static List<ISymbol> OverriddenChain(ISymbol s)
    {
        var list = new List<ISymbol>();
        var cur = s;
        for (var i = 0; i < 64; i++)
        {
            ISymbol? o = cur switch { IMethodSymbol m => m.OverriddenMethod, IPropertySymbol p => p.OverriddenProperty, IEventSymbol e => e.OverriddenEvent, _ => null };
            if (o == null) break;
            list.Add(o.OriginalDefinition);
            cur = o;
        }
        return list;
    }

    /// The interface members a member implements (implicitly or explicitly), also through its overridden members.
    public static List<ISymbol> InterfaceMembersImplemented(ISymbol s)
    {
        var list = new List<ISymbol>();
        if (s.ContainingType is not INamedTypeSymbol type || s is INamedTypeSymbol) return list;
        if (s is not (IMethodSymbol or IPropertySymbol or IEventSymbol)) return list;
        var E = SymbolEqualityComparer.Default;
        foreach (var iface in type.AllInterfaces)
            foreach (var m in iface.GetMembers())
            {
                if (m is not (IMethodSymbol or IPropertySymbol or IEventSymbol)) continue;
                var impl = type.FindImplementationForInterfaceMember(m);
                if (impl != null && (E.Equals(impl.OriginalDefinition, s.OriginalDefinition) || E.Equals(impl, s))) list.Add(m.OriginalDefinition);
            }
        return list;
    }

    static bool InSource(ISymbol s) => s.Locations.Any(l => l.IsInSource);

    /// The members a call can bind to and still dispatch to `sym`: itself, the members it overrides
    /// and the interface members it implements, transitively (an override of a base member that
    /// implements an interface member is reached through both), declared in source only (a call
    /// through IDisposable.Dispose or object.ToString is not a caller of one implementation).
    public static async Task<List<(ISymbol s, string? via)>> Dispatchers(ISymbol sym, Solution sol, CancellationToken ct)
    {
        var E = SymbolEqualityComparer.Default;
        var outList = new List<(ISymbol, string?)>();
        var seen = new HashSet<ISymbol>(E);
        var queue = new Queue<ISymbol>();
        queue.Enqueue(sym.OriginalDefinition);
        while (queue.Count > 0 && outList.Count < 64)
        {
            var n = queue.Dequeue().OriginalDefinition;
            if (!seen.Add(n)) continue;
            var via = E.Equals(n, sym.OriginalDefinition) ? null : n.ContainingType?.TypeKind == TypeKind.Interface ? "interface" : "base";
            outList.Add((n, via));
            if (n is not (IMethodSymbol or IPropertySymbol or IEventSymbol)) continue;
            ISymbol? over = n switch { IMethodSymbol m => m.OverriddenMethod, IPropertySymbol p => p.OverriddenProperty, IEventSymbol e => e.OverriddenEvent, _ => null };
            if (over != null && InSource(over)) queue.Enqueue(over);
            foreach (var i in InterfaceMembersImplemented(n)) if (InSource(i)) queue.Enqueue(i);
            try
            {
                foreach (var i in await SymbolFinder.FindImplementedInterfaceMembersAsync(n, sol, cancellationToken: ct))
                    if (InSource(i)) queue.Enqueue(i);
            }
            catch (Exception e) when (e is not OperationCanceledException) { HostState.Log($"implemented members of {n.Name}: {e.Message}"); }
        }
        return outList;
    }

    async Task CallersBatch(ISymbol sym, Solution sol, IImmutableSet<Document> docs, UnitRows u, CancellationToken ct)
    {
        var rows = u.Calls;
        if (docs.Count == 0) return;
        var closures = new Dictionary<ProjectId, HashSet<string>>();
        HashSet<string> ClosureOf(ProjectId id) =>
            closures.TryGetValue(id, out var c) ? c : closures[id] = h.KeyOf(id) is string k ? h.Closure(new[] { k }) : new HashSet<string>();
        foreach (var (target, via) in await Dispatchers(sym, sol, ct))
        {
            // only documents whose project sees the target's declaring project can call it
            var declKey = target.Locations.FirstOrDefault(l => l.IsInSource)?.SourceTree is SyntaxTree tt && sol.GetDocumentId(tt) is DocumentId tdid ? h.KeyOf(tdid.ProjectId) : null;
            var seeing = declKey == null ? docs : docs.Where(d => ClosureOf(d.Project.Id).Contains(declKey)).ToImmutableHashSet();
            if (seeing.Count == 0) continue;
            var callers = await SymbolFinder.FindCallersAsync(target, sol, seeing, ct);
            foreach (var c in callers)
            {
                // FindCallers cascades (IsDirect false for calls bound to a related member); the
                // interface / base members are asked for explicitly, so keep direct calls only
                if (!c.IsDirect) continue;
                var sites = c.Locations.Where(l => l.IsInSource).ToList();
                // base.M() is a non-virtual call: it never reaches an override
                if (via != null) sites = sites.Where(l => !IsBaseCall(l)).ToList();
                if (sites.Count == 0) continue;
                var from = c.CallingSymbol;
                // a lambda is not a caller of its own: its enclosing member is
                while (from is IMethodSymbol { MethodKind: MethodKind.AnonymousFunction } && from.ContainingSymbol != null) from = from.ContainingSymbol;
                var fromRef = Ref(from, sol);
                var key = (fromRef.DocId ?? fromRef.Display + "@" + string.Join(",", fromRef.Locations.Select(LocKey))) + "|" + via;
                if (!rows.TryGetValue(key, out var row))
                {
                    row = new CallRow { From = fromRef, Via = via, ViaSymbol = via != null ? DocId(target) : null };
                    rows[key] = row;
                }
                foreach (var l in sites)
                {
                    var loc = ToLoc(l, sol);
                    if (!row.Sites.Any(x => LocKey(x) == LocKey(loc))) row.Sites.Add(loc);
                }
            }
        }
    }

    static bool IsBaseCall(Location l)
    {
        var root = l.SourceTree?.GetRoot();
        var node = root?.FindNode(l.SourceSpan, getInnermostNodeForTie: true);
        return node?.Parent is MemberAccessExpressionSyntax { Expression: BaseExpressionSyntax };
    }

    // ---------- implementations / type hierarchy (one pass over the scope) ----------

    async Task Hierarchy(QueryParams q, Target t, QueryResult res, CancellationToken deadline, CancellationToken ct)
    {
        var scope = ScopeKeys(q, res);
        var batchSize = BatchSizeOf(q);
        var hsym = t.Symbol!;
        var streamable = q.Op == "implementations" || (q.Options?.Direction ?? "both") == "subtypes";
        if (streamable && scope.Count > batchSize && (hsym is INamedTypeSymbol { TypeKind: TypeKind.Interface or TypeKind.Class } || hsym.ContainingType is INamedTypeSymbol { TypeKind: TypeKind.Interface or TypeKind.Class }))
        {
            await StreamedHierarchy(q, t, res, scope, batchSize, deadline, ct);
            return;
        }
        var sol = h.Workspace.CurrentSolution;
        var projects = scope.Select(k => sol.GetProject(h.Known[k].Id)).Where(p => p != null).Select(p => p!).ToImmutableHashSet();
        var transitive = q.Options?.Transitive ?? true;
        var sym = t.Symbol!;
        var seen = new HashSet<string>();
        var items = new List<object>();
        void Add(ISymbol s, string relation, string? direction, int? depth)
        {
            var r = Ref(s, sol);
            r.Relation = relation; r.Direction = direction; r.Depth = depth;
            if (seen.Add((r.DocId ?? r.Display) + "|" + string.Join(",", r.Locations.Select(LocKey)) + "|" + direction)) items.Add(r);
        }
        // rows and the symbol are kept apart until the search completed (an abandoned one writes nowhere)
        SymbolRef? typeSymbol = null;
        string? reason = null;
        async Task Body()
        {
            if (q.Op == "implementations")
            {
                if (sym is INamedTypeSymbol type)
                {
                    if (type.TypeKind == TypeKind.Interface)
                    {
                        foreach (var s in await SymbolFinder.FindImplementationsAsync(type, sol, transitive, projects, deadline)) Add(s, "implementation", null, null);
                        foreach (var s in await SymbolFinder.FindDerivedInterfacesAsync(type, sol, transitive, projects, deadline)) Add(s, "derivedInterface", null, null);
                    }
                    else if (type.TypeKind == TypeKind.Class)
                        foreach (var s in await SymbolFinder.FindDerivedClassesAsync(type, sol, transitive, projects, deadline)) Add(s, "derivedClass", null, null);
                }
                else
                {
                    foreach (var s in await SymbolFinder.FindImplementationsAsync(sym, sol, projects, deadline))
                        Add(s, OverriddenChain(s).Any(o => SymbolEqualityComparer.Default.Equals(o, sym.OriginalDefinition)) ? "override" : "implementation", null, null);
                    if (sym.IsVirtual || sym.IsAbstract || sym.IsOverride)
                        foreach (var s in await SymbolFinder.FindOverridesAsync(sym, sol, projects, deadline)) Add(s, "override", null, null);
                }
            }
            else
            {
                var type = sym as INamedTypeSymbol ?? sym.ContainingType;
                if (type == null) { reason = "not a type or a member of one"; return; }
                if (!ReferenceEquals(type, sym)) typeSymbol = Ref(type, sol);
                var dir = q.Options?.Direction ?? "both";
                if (dir is "supertypes" or "both")
                {
                    var queue = new Queue<(INamedTypeSymbol t, int d)>(); queue.Enqueue((type, 0));
                    var visited = new HashSet<INamedTypeSymbol>(SymbolEqualityComparer.Default);
                    while (queue.Count > 0)
                    {
                        var (cur, d) = queue.Dequeue();
                        if (d > 0 && !transitive && d > 1) continue;
                        if (cur.BaseType is INamedTypeSymbol b && visited.Add(b.OriginalDefinition)) { Add(b.OriginalDefinition, "base", "supertype", d + 1); if (transitive) queue.Enqueue((b.OriginalDefinition, d + 1)); }
                        foreach (var i in cur.Interfaces) if (visited.Add(i.OriginalDefinition)) { Add(i.OriginalDefinition, "interface", "supertype", d + 1); if (transitive) queue.Enqueue((i.OriginalDefinition, d + 1)); }
                    }
                }
                if (dir is "subtypes" or "both")
                {
                    var queue = new Queue<(INamedTypeSymbol t, int d)>(); queue.Enqueue((type, 0));
                    var visited = new HashSet<INamedTypeSymbol>(SymbolEqualityComparer.Default) { type };
                    while (queue.Count > 0)
                    {
                        var (cur, d) = queue.Dequeue();
                        if (d >= 1 && !transitive) continue;
                        if (d >= 32) continue;
                        var next = new List<(INamedTypeSymbol, string)>();
                        if (cur.TypeKind == TypeKind.Interface)
                        {
                            foreach (var s in await SymbolFinder.FindDerivedInterfacesAsync(cur, sol, false, projects, deadline)) next.Add((s, "derivedInterface"));
                            foreach (var s in await SymbolFinder.FindImplementationsAsync(cur, sol, false, projects, deadline)) next.Add((s, "implementation"));
                        }
                        else if (cur.TypeKind == TypeKind.Class)
                            foreach (var s in await SymbolFinder.FindDerivedClassesAsync(cur, sol, false, projects, deadline)) next.Add((s, "derivedClass"));
                        foreach (var (s, rel) in next)
                            if (visited.Add(s.OriginalDefinition)) { Add(s.OriginalDefinition, rel, "subtype", d + 1); queue.Enqueue((s.OriginalDefinition, d + 1)); }
                    }
                }
            }
        }
        var completed = false;
        try { completed = await ByDeadline(Task.Run(Body), deadline, ct); }
        catch (OperationCanceledException) when (!ct.IsCancellationRequested) { }
        if (completed)
        {
            res.Items.AddRange(items);
            if (typeSymbol != null) res.Symbol = typeSymbol;
            if (reason != null) { res.Reason = reason; return; }
            res.Searched.AddRange(scope);
        }
        else foreach (var k in scope) res.NotSearched.Add(new NotSearched { Key = k, Reason = "deadline" });
        h.Touch(h.Closure(scope));
        res.Stats.ProjectsEvicted += h.EvictIfNeeded(res.Symbol?.ProjectKey != null ? h.Closure(new[] { res.Symbol.ProjectKey }) : new HashSet<string>());
    }

    int BatchSizeOf(QueryParams q) =>
        q.Options?.BatchProjects is int b && b > 0 ? b : q.Options?.DeadlineMs is int dl && dl > 0 ? DeadlineBatchProjects : BatchProjects;

    /// Implementations / subtypes over a scope bigger than one batch: the scope is searched batch by
    /// batch in dependency order (load, search, evict under the cap). A type found in an earlier
    /// batch seeds the search of the later ones, so a class two levels down, behind an intermediate
    /// type in another batch, is still found (transitive answers stay complete).
    async Task StreamedHierarchy(QueryParams q, Target t, QueryResult res, List<string> scope, int batchSize, CancellationToken deadline, CancellationToken ct)
    {
        var E = SymbolEqualityComparer.Default;
        var sym = t.Symbol!;
        var symSol = h.Workspace.CurrentSolution;
        var transitive = q.Options?.Transitive ?? true;
        var isType = sym is INamedTypeSymbol;
        var root = (sym as INamedTypeSymbol ?? sym.ContainingType)!.OriginalDefinition;
        var typeHierarchy = q.Op == "typeHierarchy";
        if (typeHierarchy && !isType) res.Symbol = Ref(root, symSol);
        var rootKey = res.Symbol?.ProjectKey;
        var pinnedBase = rootKey != null ? h.Closure(new[] { rootKey }) : new HashSet<string>();
        // found types: docId -> (declaring project key, relation to the root, depth)
        var found = new Dictionary<string, (string? key, string relation, int depth)>(StringComparer.Ordinal);
        var seen = new HashSet<string>(StringComparer.Ordinal);
        var rootId = DocId(root);
        for (var i = 0; i < scope.Count; i += batchSize)
        {
            var batch = scope.Skip(i).Take(batchSize).ToList();
            if (deadline.IsCancellationRequested && !ct.IsCancellationRequested)
            {
                foreach (var k in scope.Skip(i)) res.NotSearched.Add(new NotSearched { Key = k, Reason = "deadline" });
                break;
            }
            var sol = h.Workspace.CurrentSolution;
            var curRoot = await Rebind(root, symSol, sol, ct) as INamedTypeSymbol;
            ISymbol? curSym = isType ? curRoot : await Rebind(sym, symSol, sol, ct);
            if (curRoot == null || curSym == null) { foreach (var k in scope.Skip(i)) res.NotSearched.Add(new NotSearched { Key = k, Reason = "error", Detail = "symbol no longer resolves" }); break; }
            root = curRoot; sym = curSym; symSol = sol;
            var projects = batch.Select(k => sol.GetProject(h.Known[k].Id)).Where(p => p != null).Select(p => p!).ToImmutableHashSet();
            var reach = h.Closure(batch);
            try
            {
                // seeds: the root, and (transitive) every type found so far that this batch can see
                var seeds = new List<(INamedTypeSymbol s, int depth)> { (root, 0) };
                if (transitive)
                    foreach (var (id, f) in found)
                        if (f.key != null && reach.Contains(f.key) && sol.GetProject(h.Known[f.key].Id) is Project fp
                            && await fp.GetCompilationAsync(deadline) is Compilation fc && ByDocId(id, fc) is INamedTypeSymbol ft)
                            seeds.Add((ft, f.depth));
                var batchTypes = new List<(INamedTypeSymbol s, string rel, int depth)>();
                foreach (var (seed, depth) in seeds)
                {
                    var next = new List<(INamedTypeSymbol, string)>();
                    if (seed.TypeKind == TypeKind.Interface)
                    {
                        foreach (var x in await SymbolFinder.FindImplementationsAsync(seed, sol, transitive, projects, deadline)) next.Add((x, "implementation"));
                        foreach (var x in await SymbolFinder.FindDerivedInterfacesAsync(seed, sol, transitive, projects, deadline)) next.Add((x, "derivedInterface"));
                    }
                    else if (seed.TypeKind == TypeKind.Class)
                        foreach (var x in await SymbolFinder.FindDerivedClassesAsync(seed, sol, transitive, projects, deadline)) next.Add((x, "derivedClass"));
                    foreach (var (x, rel0) in next)
                    {
                        var o = x.OriginalDefinition;
                        var id = DocId(o);
                        if (id == null || id == rootId || found.ContainsKey(id)) continue;
                        // relation to the root: a class below an interface implements it
                        var rel = root.TypeKind == TypeKind.Interface && o.TypeKind != TypeKind.Interface ? "implementation" : rel0;
                        var key = o.Locations.FirstOrDefault(l => l.IsInSource)?.SourceTree is SyntaxTree tr && sol.GetDocumentId(tr) is DocumentId did ? h.KeyOf(did.ProjectId) : null;
                        var d = transitive ? DepthBelow(o, root) : 1;
                        found[id] = (key, rel, d);
                        batchTypes.Add((o, rel, d));
                    }
                }
                foreach (var (o, rel, d) in batchTypes)
                {
                    if (typeHierarchy || isType)
                    {
                        var r = Ref(o, sol);
                        r.Relation = rel;
                        if (typeHierarchy) { r.Direction = "subtype"; r.Depth = d; }
                        if (seen.Add(r.DocId + "|" + r.Direction)) res.Items.Add(r);
                        continue;
                    }
                    foreach (var (m, rel2) in MembersFor(sym, root, o))
                    {
                        var r = Ref(m, sol);
                        r.Relation = rel2;
                        if (seen.Add((r.DocId ?? r.Display) + "|" + string.Join(",", r.Locations.Select(LocKey)))) res.Items.Add(r);
                    }
                }
                res.Searched.AddRange(batch);
            }
            catch (OperationCanceledException) when (!ct.IsCancellationRequested)
            {
                foreach (var k in scope.Skip(i)) res.NotSearched.Add(new NotSearched { Key = k, Reason = "deadline" });
                break;
            }
            h.Touch(reach);
            var pinned = new HashSet<string>(pinnedBase);
            pinned.UnionWith(h.Closure(scope.Skip(i + batchSize).Take(batchSize)));
            res.Stats.ProjectsEvicted += h.EvictIfNeeded(pinned);
        }
    }

    /// Levels between a type and one of its base types or interfaces (1 = direct).
    static int DepthBelow(INamedTypeSymbol t, INamedTypeSymbol root)
    {
        var E = SymbolEqualityComparer.Default;
        var level = new List<INamedTypeSymbol> { t };
        var visited = new HashSet<INamedTypeSymbol>(E);
        for (var d = 1; d <= 64 && level.Count > 0; d++)
        {
            var next = new List<INamedTypeSymbol>();
            foreach (var x in level)
            {
                var ups = new List<INamedTypeSymbol>();
                if (x.BaseType != null) ups.Add(x.BaseType.OriginalDefinition);
                ups.AddRange(x.Interfaces.Select(i => i.OriginalDefinition));
                foreach (var u in ups)
                {
                    if (E.Equals(u, root)) return d;
                    if (visited.Add(u)) next.Add(u);
                }
            }
            level = next;
        }
        return 1;
    }

    /// The members of `type` (below the member's containing type) that implement or override `member`.
    static IEnumerable<(ISymbol m, string relation)> MembersFor(ISymbol member, INamedTypeSymbol containing, INamedTypeSymbol type)
    {
        var E = SymbolEqualityComparer.Default;
        var target = member.OriginalDefinition;
        if (containing.TypeKind == TypeKind.Interface)
        {
            foreach (var iface in type.AllInterfaces.Where(i => E.Equals(i.OriginalDefinition, containing)))
                foreach (var im in iface.GetMembers().Where(x => E.Equals(x.OriginalDefinition, target)))
                    if (type.FindImplementationForInterfaceMember(im) is ISymbol impl && impl.Locations.Any(l => l.IsInSource))
                        yield return (impl.OriginalDefinition, "implementation");
        }
        foreach (var m in type.GetMembers(member.Name))
            if (m.IsOverride && OverriddenChain(m).Any(o => E.Equals(o.OriginalDefinition, target)))
                yield return (m.OriginalDefinition, "override");
    }

    // ---------- callees ----------

    async Task<List<CallRow>> Callees(ISymbol sym, Solution sol, CancellationToken ct)
    {
        var rows = new Dictionary<string, CallRow>();
        foreach (var sr in sym.DeclaringSyntaxReferences)
        {
            var node = await sr.GetSyntaxAsync(ct);
            var doc = sol.GetDocument(sr.SyntaxTree);
            if (doc == null) continue;
            var model = await doc.GetSemanticModelAsync(ct);
            if (model == null) continue;
            var bodies = new List<SyntaxNode>();
            switch (node)
            {
                case BaseMethodDeclarationSyntax or LocalFunctionStatementSyntax or AccessorDeclarationSyntax: bodies.Add(node); break;
                case BasePropertyDeclarationSyntax p:
                    if (p is PropertyDeclarationSyntax { ExpressionBody: { } eb }) bodies.Add(eb);
                    if (p is IndexerDeclarationSyntax { ExpressionBody: { } ib }) bodies.Add(ib);
                    if (p.AccessorList != null) bodies.AddRange(p.AccessorList.Accessors);
                    if (p is PropertyDeclarationSyntax { Initializer: { } init }) bodies.Add(init.Value);
                    break;
                case VariableDeclaratorSyntax { Initializer: { } vi }: bodies.Add(vi.Value); break;
                case TypeDeclarationSyntax td: // a type: its primary constructor base call and field initializers
                    if (td.BaseList != null) bodies.AddRange(td.BaseList.Types.OfType<PrimaryConstructorBaseTypeSyntax>());
                    break;
                default: bodies.Add(node); break;
            }
            foreach (var body in bodies)
            {
                var op = model.GetOperation(body, ct);
                if (op == null) continue;
                foreach (var o in op.DescendantsAndSelf())
                {
                    ISymbol? target = null; string kind = "call"; bool virt = false; SyntaxNode site = o.Syntax;
                    switch (o)
                    {
                        case IInvocationOperation inv:
                            target = inv.TargetMethod; virt = inv.IsVirtual || inv.TargetMethod.ContainingType?.TypeKind == TypeKind.Interface;
                            if (o.Syntax is InvocationExpressionSyntax ies) site = ies.Expression is MemberAccessExpressionSyntax ma ? ma.Name : ies.Expression;
                            break;
                        case IObjectCreationOperation oc when oc.Constructor != null:
                            target = oc.Constructor; kind = "construct";
                            if (o.Syntax is ObjectCreationExpressionSyntax oce) site = oce.Type;
                            break;
                        case IPropertyReferenceOperation pr: target = pr.Property; kind = "property"; virt = pr.Property.IsVirtual || pr.Property.IsAbstract || pr.Property.IsOverride; break;
                        case IEventReferenceOperation er: target = er.Event; kind = "event"; break;
                        case IMethodReferenceOperation mr: target = mr.Method; kind = "methodReference"; break;
                    }
                    if (target == null) continue;
                    target = Normalize(target)!;
                    var tref = Ref(target, sol);
                    var key = (tref.DocId ?? tref.Display) + "|" + kind;
                    if (!rows.TryGetValue(key, out var row)) rows[key] = row = new CallRow { To = tref, CallKind = kind };
                    if (virt) row.Virtual = true;
                    var loc = ToLoc(site.GetLocation(), sol);
                    if (!row.Sites.Any(x => LocKey(x) == LocKey(loc))) row.Sites.Add(loc);
                }
            }
        }
        return rows.Values.ToList();
    }

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

    static string? Summary(string xml)
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

    // ---------- diagnostics ----------

    /// Compiler diagnostics of one document (`position`) or of whole projects (`scope`, dependencies
    /// first). `deadline` (options.deadlineMs) cuts it: the projects compiled by then answer, the rest
    /// are `notSearched` (reason "deadline") and are compiled off the request queue for the next ask;
    /// a document cut before its semantic diagnostics still gets its syntax diagnostics (`syntaxOnly`).
    async Task Diagnostics(QueryParams q, QueryResult res, int maxItems, CancellationToken deadline, CancellationToken ct)
    {
        var sol = h.Workspace.CurrentSolution;
        var outList = new List<(Diagnostic d, string? key)>();
        if (q.Position != null)
        {
            var abs = h.Abs(q.Position.Path);
            var keys = h.KeysForPath(abs);
            if (keys.Count == 0) throw new HostError(-32010, $"Error [DOCUMENT_NOT_IN_WORKSPACE]: {q.Position.Path} is in no project the host was given. Hint: ensure its project first.", new { path = q.Position.Path });
            var key = q.Position.ProjectKey ?? keys[0];
            var doc = sol.GetProject(h.Known[key].Id)?.Documents.FirstOrDefault(d => d.FilePath == abs);
            if (doc == null || (!File.Exists(abs) && !h.Buffers.ContainsKey(abs))) throw new HostError(-32011, $"Error [DOCUMENT_MISSING]: {q.Position.Path} is not on disk. Hint: send documents/changed.", new { path = q.Position.Path });
            h.Touch(h.Closure(new[] { key }));
            try
            {
                var model = await doc.GetSemanticModelAsync(deadline);
                outList.AddRange(model!.GetDiagnostics(cancellationToken: deadline).Select(d => (d, (string?)key)));
                res.Searched.Add(key);
            }
            catch (OperationCanceledException) when (!ct.IsCancellationRequested)
            {
                // the parse is cheap and already there: its errors are still facts
                var tree = await doc.GetSyntaxTreeAsync(ct);
                if (tree != null) outList.AddRange(tree.GetDiagnostics(ct).Select(d => (d, (string?)key)));
                res.SyntaxOnly = true;
                res.NotSearched.Add(new NotSearched { Key = key, Reason = "deadline", Detail = "semantic diagnostics not computed by the deadline; syntax diagnostics only" });
                h.CompileInBackground(sol, new List<string> { key });
            }
        }
        else
        {
            var keys = ScopeKeys(q, res);
            for (var i = 0; i < keys.Count; i++)
            {
                var key = keys[i];
                try
                {
                    var comp = await sol.GetProject(h.Known[key].Id)!.GetCompilationAsync(deadline);
                    if (comp == null) { res.NotSearched.Add(new NotSearched { Key = key, Reason = "error", Detail = "no compilation" }); continue; }
                    outList.AddRange(comp.GetDiagnostics(deadline).Select(d => (d, (string?)key)));
                    res.Searched.Add(key);
                    h.Touch(h.Closure(new[] { key }));
                }
                catch (OperationCanceledException) when (!ct.IsCancellationRequested)
                {
                    var left = keys.Skip(i).ToList();
                    foreach (var k in left) res.NotSearched.Add(new NotSearched { Key = k, Reason = "deadline" });
                    h.CompileInBackground(sol, left);
                    break;
                }
                if (outList.Count > maxItems) break;
            }
        }
        foreach (var (d, key) in outList.Where(x => x.d.Severity != DiagnosticSeverity.Hidden))
        {
            if (res.Items.Count >= maxItems) { res.Truncated = true; break; }
            var loc = d.Location.IsInSource ? ToLoc(d.Location, sol) : new Loc { Path = "", Line = 0, Column = 0, EndLine = 0, EndColumn = 0 };
            loc.Id = d.Id;
            loc.Severity = d.Severity switch { DiagnosticSeverity.Error => "error", DiagnosticSeverity.Warning => "warning", DiagnosticSeverity.Info => "info", _ => "hidden" };
            loc.Message = d.GetMessage();
            loc.ProjectKey = key;
            res.Items.Add(loc);
        }
        res.Stats.ProjectsEvicted += h.EvictIfNeeded(new HashSet<string>());
    }
}
