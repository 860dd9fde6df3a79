// The query operations of roslyn/PROTOCOL.md over the live workspace.
using System.Diagnostics;
using Microsoft.CodeAnalysis;

namespace Sextant.RoslynHost;

public sealed class HostError : Exception
{
    public int Code { get; }
    public object? Data2 { get; }
    public HostError(int code, string message, object? data = null) : base(message) { Code = code; Data2 = data; }
}

public sealed partial class Queries
{
    readonly HostState h;
    /// Projects searched per streaming batch (a batch is loaded, searched, then may be evicted);
    /// smaller under a deadline, so a partial answer has searched something.
    const int BatchProjects = 64;
    const int DeadlineBatchProjects = 16;
    /// Metadata types deriving from a metadata type named in one symbolInfo (the engine's text pre-filter looks each up).
    const int MetadataDerivedNames = 64;

    public Queries(HostState state) { h = state; }

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
        if (t.Unbound is { } ub)
            res.Unbound = new UnboundInfo { Name = ub.Name, BlockedBy = ub.Blocked?.ToDisplayString(), CandidateReason = ub.CandidateReason != CandidateReason.None ? ub.CandidateReason.ToString() : null };
        if (t.Symbol == null && t.Unbound != null && q.Op == "definition" && t.ProjectKey != null)
        {
            // the declarations the unbound name can mean, each labelled (protocol 6)
            var usol = h.Workspace.CurrentSolution;
            foreach (var s in await UnboundDeclarations(t.Unbound, t.ProjectKey, res, deadline.Token, ct))
                foreach (var l in DeclLocs(s, usol)) { l.ProjectKey = ProjectKeyOfPath(l, usol); l.Definition = DocId(s); l.Confidence = "unbound"; l.BlockedBy = res.Unbound!.BlockedBy; res.Items.Add(l); }
            res.Searched.Add(t.ProjectKey);
        }
        if (t.Symbol == null) { res.Reason = t.Reason; Finish(res, sw, loadMs); return res; }
        var sol = h.Workspace.CurrentSolution;
        res.Symbol = Ref(t.Symbol, sol);
        if (t.ProjectKey != null) h.Touch(h.Closure(new[] { t.ProjectKey }));

        switch (q.Op)
        {
            case "definition":
                // a namespace has no declaration of its own: every `namespace N` of every project is
                // an equal part of it (hundreds of rows that answer nothing) — protocol 9: no rows
                if (t.Symbol is INamespaceSymbol) { if (t.ProjectKey != null) res.Searched.Add(t.ProjectKey); break; }
                var locs = DeclLocs(t.Symbol, sol);
                foreach (var l in locs) { l.PartialPart = locs.Count > 1 ? true : null; l.ProjectKey = ProjectKeyOfPath(l, sol); res.Items.Add(l); }
                // a partial member without its implementing part: the part a generator writes is missing (protocol 5)
                if (t.Symbol is IMethodSymbol { IsPartialDefinition: true, PartialImplementationPart: null } or IPropertySymbol { IsPartialDefinition: true, PartialImplementationPart: null })
                    res.Incomplete = $"{res.Symbol.Display} is a partial declaration whose implementing part is not in this compilation: the source generator that writes it did not run here, or could not bind its attribute (see what the project compiles without)";
                // a framework or package symbol: its declaration in the decompiled type (protocol 5)
                if (locs.Count == 0 && t.ProjectKey != null && sol.GetProject(h.Known[t.ProjectKey].Id) is Project dp && await dp.GetCompilationAsync(ct) is Compilation dc)
                {
                    var xmlDoc = t.Symbol.GetDocumentationCommentXml(expandIncludes: true, cancellationToken: ct) ?? "";
                    if (MetadataSymbols.DefinitionRow(h, t.Symbol, dc, res.Symbol.Display, Summary(xmlDoc)) is Loc ml) res.Items.Add(ml);
                }
                if (t.ProjectKey != null) res.Searched.Add(t.ProjectKey);
                break;
            case "symbolInfo":
                var info = await SymbolInfo(t.Symbol, sol, ct);
                if (t.Symbol is INamedTypeSymbol mt && !MetadataSymbols.InSource(mt) && t.ProjectKey != null && sol.GetProject(h.Known[t.ProjectKey].Id) is Project ip && await ip.GetCompilationAsync(deadline.Token) is Compilation ic)
                {
                    info.MetadataDerived = MetadataSymbols.DerivedInMetadata(mt, ic, MetadataDerivedNames, deadline.Token);
                    if (info.MetadataDerived.Count >= MetadataDerivedNames) info.MetadataDerivedCut = true;
                }
                res.Items.Add(info);
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
        await ReportGeneratorFailures(t.ProjectKey, res, ct);
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

    /// Generators of the question's project that threw while it compiled (their output is missing).
    async Task ReportGeneratorFailures(string? key, QueryResult res, CancellationToken ct)
    {
        if (key == null || !h.Known.TryGetValue(key, out var kp) || kp.GeneratorRefs.Count == 0) return;
        if (h.Workspace.CurrentSolution.GetProject(kp.Id) is not Project p) return;
        foreach (var (gen, error) in await GeneratorCatalog.Failures(p, ct))
            (res.GeneratorFailures ??= new()).Add(new GeneratorFailure { ProjectKey = key, Generator = gen, Error = error });
    }

    string? ProjectKeyOfPath(Loc l, Solution sol)
    {
        if (GeneratedPaths.TryParse(l.Path, out var gk, out _)) return gk;
        var abs = l.External == true ? l.Path : h.Abs(l.Path);
        var ids = sol.GetDocumentIdsWithFilePath(abs);
        return ids.IsEmpty ? null : h.KeyOf(ids[0].ProjectId);
    }
}
