// implementations and typeHierarchy: one pass over the scope, or batch by batch for a big one.
using System.Collections.Immutable;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.FindSymbols;

namespace Sextant.RoslynHost;

public sealed partial class Queries
{
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
        // a metadata supertype (System.Object, a package interface) is shown at its decompiled
        // declaration (protocol 5), a few of them: each is one type decompiled
        var decompileLeft = MetadataSupertypesDecompiled;
        var ownComp = t.ProjectKey != null && sol.GetProject(h.Known[t.ProjectKey].Id) is Project op ? await op.GetCompilationAsync(ct) : null;
        void Add(ISymbol s, string relation, string? direction, int? depth)
        {
            var r = Ref(s, sol);
            r.Relation = relation; r.Direction = direction; r.Depth = depth;
            if (direction == "supertype" && r.Locations.Count == 0 && ownComp != null && decompileLeft-- > 0 && MetadataSymbols.DefinitionRow(h, s, ownComp, r.Display, null) is Loc ml) r.Locations.Add(ml);
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
            await AddUnboundSubtypes(q, sym, res, sol, ownComp, deadline);
        }
        else foreach (var k in scope) res.NotSearched.Add(new NotSearched { Key = k, Reason = "deadline" });
        h.Touch(h.Closure(scope));
        res.Stats.ProjectsEvicted += h.EvictIfNeeded(res.Symbol?.ProjectKey != null ? h.Closure(new[] { res.Symbol.ProjectKey }) : new HashSet<string>());
    }

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
        if (!deadline.IsCancellationRequested && isType)
        {
            var sol = h.Workspace.CurrentSolution;
            var comp = t.ProjectKey != null && sol.GetProject(h.Known[t.ProjectKey].Id) is Project op ? await op.GetCompilationAsync(ct) : null;
            await AddUnboundSubtypes(q, await Rebind(root, symSol, sol, ct) ?? root, res, sol, comp, deadline);
        }
    }

    /// The types of searched projects compiling without something unresolved whose unresolved base
    /// may be the target (protocol 9, `UnboundSubtypes`): rows with unbound locations after the
    /// bound ones; the projects the deadline left unscanned are not searched.
    async Task AddUnboundSubtypes(QueryParams q, ISymbol sym, QueryResult res, Solution sol, Compilation? comp, CancellationToken deadline)
    {
        if (sym is not INamedTypeSymbol { TypeKind: TypeKind.Interface or TypeKind.Class } root0) return;
        if (q.Op == "typeHierarchy" && (q.Options?.Direction ?? "both") == "supertypes") return;
        if (!res.Searched.Any(k => h.Known.TryGetValue(k, out var kp) && kp.Res.Unresolved.Any(CanHideAssemblies))) return;
        var root = root0.OriginalDefinition;
        var transitive = q.Options?.Transitive ?? true;
        var found = res.Items.OfType<SymbolRef>().Where(r => q.Op == "implementations" || r.Direction == "subtype").ToList();
        var names = new List<string>();
        if (transitive)
        {
            names.AddRange(found.Select(r => r.Name));
            if (!MetadataSymbols.InSource(root) && comp != null)
                try { names.AddRange(MetadataSymbols.DerivedInMetadata(root, comp, MetadataDerivedNames, deadline)); }
                catch (OperationCanceledException) when (deadline.IsCancellationRequested) { }
        }
        var ids = new HashSet<string>(found.Select(r => r.DocId).OfType<string>(), StringComparer.Ordinal);
        var (rows, notScanned) = await UnboundSubtypes(root, names, res.Searched.ToList(), sol, ids, root.TypeKind == TypeKind.Interface, deadline);
        foreach (var r in rows)
        {
            if (q.Op == "typeHierarchy") r.Direction = "subtype";
            else r.Depth = null;
            res.Items.Add(r);
        }
        foreach (var k in notScanned)
        {
            res.Searched.Remove(k);
            res.NotSearched.Add(new NotSearched { Key = k, Reason = "deadline", Detail = "not scanned for types whose unresolved base may be the target" });
        }
    }

    /// Metadata supertypes of one typeHierarchy answer given a decompiled location (the rest keep only their assembly).
    const int MetadataSupertypesDecompiled = 8;

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
}
