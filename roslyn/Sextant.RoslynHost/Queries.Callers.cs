// callers (with calls through the interface / base members a member implements or overrides, and calls to its implementations and overrides) and callees.
using System.Collections.Immutable;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.FindSymbols;
using Microsoft.CodeAnalysis.Operations;

namespace Sextant.RoslynHost;

public sealed partial class Queries
{
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

    /// Callers of `sym` in `docs`: calls bound to it, to the source members it dispatches through
    /// (`via` interface / base), and — for an interface, abstract or virtual member — calls bound to
    /// its implementations and overrides (`via` implementation / override, protocol 6), looked for in
    /// the `implScope` projects of the unit's reference closure. A use that does not call (a method
    /// group: `items.Select(Parse)`, `handler += OnChanged`; nameof) is a row of kind "reference".
    async Task CallersBatch(ISymbol sym, Solution sol, IImmutableSet<Document> docs, IEnumerable<string> unitKeys, IReadOnlySet<string> implScope, UnitRows u, CancellationToken ct)
    {
        var rows = u.Calls;
        if (docs.Count == 0) return;
        var closures = new Dictionary<ProjectId, HashSet<string>>();
        HashSet<string> ClosureOf(ProjectId id) =>
            closures.TryGetValue(id, out var c) ? c : closures[id] = h.KeyOf(id) is string k ? h.Closure(new[] { k }) : new HashSet<string>();
        var targets = await Dispatchers(sym, sol, ct);
        var implProjects = h.Closure(unitKeys).Where(implScope.Contains).Select(k => sol.GetProject(h.Known[k].Id)).Where(p => p != null).Select(p => p!).ToImmutableHashSet();
        foreach (var (m, rel) in await Implementors(sym, sol, implProjects, ct)) targets.Add((m, rel));
        foreach (var (target, via) in targets)
        {
            // only documents whose project sees the target's declaring project can call it
            var declKey = target.Locations.FirstOrDefault(l => l.IsInSource)?.SourceTree is SyntaxTree tt && sol.GetDocumentId(tt) is DocumentId tdid ? h.KeyOf(tdid.ProjectId) : null;
            var seeing = declKey == null ? docs : docs.Where(d => ClosureOf(d.Project.Id).Contains(declKey)).ToImmutableHashSet();
            if (seeing.Count == 0) continue;
            var callers = await SymbolFinder.FindCallersAsync(target, sol, seeing, ct);
            var upward = via is "interface" or "base";
            foreach (var c in callers)
            {
                // FindCallers cascades (IsDirect false for calls bound to a related member); the
                // interface / base members are asked for explicitly, so keep direct calls only
                if (!c.IsDirect) continue;
                var sites = c.Locations.Where(l => l.IsInSource).ToList();
                // base.M() is a non-virtual call: it never reaches an override
                if (upward) sites = sites.Where(l => !IsBaseCall(l)).ToList();
                if (sites.Count == 0) continue;
                var from = c.CallingSymbol;
                // a lambda is not a caller of its own: its enclosing member is
                while (from is IMethodSymbol { MethodKind: MethodKind.AnonymousFunction } && from.ContainingSymbol != null) from = from.ContainingSymbol;
                var fromRef = Ref(from, sol);
                foreach (var l in sites)
                {
                    var kind = target is IMethodSymbol && !IsInvocationSite(l) ? "reference" : null;
                    var key = (fromRef.DocId ?? fromRef.Display + "@" + string.Join(",", fromRef.Locations.Select(LocKey))) + "|" + via + (upward || via == null ? "" : "|" + DocId(target)) + (kind != null ? "|" + kind : "");
                    if (!rows.TryGetValue(key, out var row))
                    {
                        row = new CallRow { From = fromRef, Via = via, ViaSymbol = via != null ? DocId(target) : null, Kind = kind };
                        rows[key] = row;
                    }
                    var loc = ToLoc(l, sol);
                    if (!row.Sites.Any(x => LocKey(x) == LocKey(loc))) row.Sites.Add(loc);
                }
            }
        }
    }

    /// Most implementing / overriding members one callers unit follows down from the target.
    const int ImplementorsMax = 256;

    /// The source members below an interface, abstract or virtual member that a call can bind to
    /// and still run in its place: implementations and overrides, transitively (an abstract
    /// implementation's overrides too); `relation` to `sym`: "override" when its overridden chain
    /// reaches `sym`, else "implementation".
    static async Task<List<(ISymbol s, string? via)>> Implementors(ISymbol sym, Solution sol, IImmutableSet<Project> projects, CancellationToken ct)
    {
        var outList = new List<(ISymbol, string?)>();
        if (sym is not (IMethodSymbol or IPropertySymbol or IEventSymbol) || projects.Count == 0) return outList;
        static bool Open(ISymbol s) => s.ContainingType?.TypeKind == TypeKind.Interface || s.IsAbstract || s.IsVirtual || (s.IsOverride && !s.IsSealed && s.ContainingType?.IsSealed != true);
        if (!Open(sym)) return outList;
        var E = SymbolEqualityComparer.Default;
        var target = sym.OriginalDefinition;
        var seen = new HashSet<ISymbol>(E) { target };
        var queue = new Queue<ISymbol>();
        queue.Enqueue(target);
        while (queue.Count > 0 && outList.Count < ImplementorsMax)
        {
            var n = queue.Dequeue();
            IEnumerable<ISymbol> found;
            try
            {
                found = n.ContainingType?.TypeKind == TypeKind.Interface
                    ? await SymbolFinder.FindImplementationsAsync(n, sol, projects, ct)
                    : await SymbolFinder.FindOverridesAsync(n, sol, projects, ct);
            }
            catch (Exception e) when (e is not OperationCanceledException) { HostState.Log($"implementors of {n.Name}: {e.Message}"); continue; }
            foreach (var f in found)
            {
                var o = f.OriginalDefinition;
                if (!InSource(o) || !seen.Add(o)) continue;
                outList.Add((o, OverriddenChain(o).Any(x => E.Equals(x.OriginalDefinition, target)) ? "override" : "implementation"));
                if (Open(o)) queue.Enqueue(o);
            }
        }
        return outList;
    }

    /// Whether a reference to a method at `l` calls it (an invocation, an object creation, a
    /// constructor initializer) rather than naming it (a method group, nameof, a cref).
    static bool IsInvocationSite(Location l)
    {
        var root = l.SourceTree?.GetRoot();
        var node = root?.FindNode(l.SourceSpan, getInnermostNodeForTie: true);
        if (node == null) return true;
        if (node is not SimpleNameSyntax) return true; // `new T()`, `: base(...)`, an attribute: constructor calls
        SyntaxNode expr = node;
        while (expr.Parent is MemberAccessExpressionSyntax ma && ma.Name == expr || expr.Parent is MemberBindingExpressionSyntax mb && mb.Name == expr
               || expr.Parent is QualifiedNameSyntax qn && qn.Right == expr || expr.Parent is AliasQualifiedNameSyntax aq && aq.Name == expr)
            expr = expr.Parent!;
        if (expr.Parent is InvocationExpressionSyntax inv && inv.Expression == expr)
            return !(inv.Expression is IdentifierNameSyntax { Identifier.ValueText: "nameof" });
        if (expr.Parent is ObjectCreationExpressionSyntax or AttributeSyntax) return true;
        return false;
    }

    static bool IsBaseCall(Location l)
    {
        var root = l.SourceTree?.GetRoot();
        var node = root?.FindNode(l.SourceSpan, getInnermostNodeForTie: true);
        return node?.Parent is MemberAccessExpressionSyntax { Expression: BaseExpressionSyntax };
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
}
