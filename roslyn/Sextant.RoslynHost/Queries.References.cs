// references and callers: the scope searched in batches (likely documents first under a deadline); the references rows of one batch.
using System.Collections.Immutable;
using System.Diagnostics;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.FindSymbols;

namespace Sextant.RoslynHost;

public sealed partial class Queries
{
    /// Rows one search unit found, merged into the answer only when the unit completed.
    sealed class UnitRows
    {
        public readonly List<Loc> Refs = new();
        public readonly HashSet<string> Seen = new();
        public readonly Dictionary<string, CallRow> Calls = new();
    }

    void Merge(UnitRows u, QueryResult res, HashSet<string> seen, Dictionary<string, CallRow> callerRows)
    {
        foreach (var l in u.Refs) if (seen.Add(LocKey(l) + "|" + l.Definition + "|" + l.Confidence)) res.Items.Add(l);
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
        // a framework or package symbol: only projects compiling against its assembly can use it
        // (protocol 5); the others of the scope count as searched — but not those compiling without
        // something unresolved (a package not restored may be what brings the assembly): they are
        // searched for the mentions that do not bind (protocol 6)
        if (MetadataSymbols.AssemblyOf(sym) is string metaAsm)
        {
            var referencing = scope.Where(k => MetadataSymbols.References(h.Known[k], metaAsm) || h.Known[k].Res.Unresolved.Any(CanHideAssemblies)).ToList();
            res.MetadataScope = new MetadataScope { Assembly = metaAsm, Referencing = referencing.Count, Known = scope.Count };
            res.Searched.AddRange(scope.Except(referencing));
            scope = referencing;
        }
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
        // where implementations and overrides of the target can be (callers): the projects searched
        var implScope = new HashSet<string>(scope, StringComparer.Ordinal);
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
            else await CallersBatch(s2, narrow, docs, unitKeys, implScope, u, deadline);
            // what Roslyn could not bind (a package not restored): named, never hidden (protocol 5)
            if (!localOnly && MayBeUnbound(s2, unitKeys)) await UnboundMentions(s2, narrow, docs, q.Op == "callers", u, deadline);
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
}
