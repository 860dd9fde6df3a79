// Binding gaps (protocol 6): the mentions of a name Roslyn could not bind — a receiver, argument or
// signature type from a reference that was not resolved (a package not restored) — reported as rows
// with confidence "unbound" and the type in the way, so an answer without them is complete.
using System.Collections.Immutable;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.FindSymbols;

namespace Sextant.RoslynHost;

public sealed partial class Queries
{
    /// Most unbound mentions one search unit reports (a common name in a tree whose packages are missing).
    const int UnboundMaxPerUnit = 2000;

    /// Whether a search of `keys` for `sym` can miss mentions Roslyn did not bind: the symbol's own
    /// signature names an unresolved type, or a searched project compiles without a reference.
    bool MayBeUnbound(ISymbol sym, IEnumerable<string> keys) =>
        SignatureErrorType(sym) != null || keys.Any(k => h.Known.TryGetValue(k, out var kp) && kp.Res.Unresolved.Any(CanHideAssemblies));

    /// An unresolved package / reference / project / framework may be what brings an assembly; an
    /// analyzer or generator that could not be loaded binds nothing away.
    static bool CanHideAssemblies(Unresolved x) => x.Kind is not ("analyzer" or "generator");

    /// The first unresolved (error) type in a member's signature or a type's base list.
    static ITypeSymbol? SignatureErrorType(ISymbol s)
    {
        switch (s)
        {
            case IMethodSymbol m:
                foreach (var p in m.Parameters) if (ErrorIn(p.Type) is ITypeSymbol e) return e;
                return ErrorIn(m.ReturnType);
            case IPropertySymbol p:
                foreach (var x in p.Parameters) if (ErrorIn(x.Type) is ITypeSymbol e) return e;
                return ErrorIn(p.Type);
            case IEventSymbol ev: return ErrorIn(ev.Type);
            case IFieldSymbol f: return ErrorIn(f.Type);
            case INamedTypeSymbol t:
                if (ErrorIn(t.BaseType) is ITypeSymbol b) return b;
                foreach (var i in t.Interfaces) if (ErrorIn(i) is ITypeSymbol e) return e;
                return null;
            default: return null;
        }
    }

    static ITypeSymbol? ErrorIn(ITypeSymbol? t, int depth = 0)
    {
        if (t == null || depth > 8) return null;
        if (t is IErrorTypeSymbol || t.TypeKind == TypeKind.Error) return t;
        if (t is IArrayTypeSymbol a) return ErrorIn(a.ElementType, depth + 1);
        if (t is IPointerTypeSymbol p) return ErrorIn(p.PointedAtType, depth + 1);
        if (t is INamedTypeSymbol n) foreach (var x in n.TypeArguments) if (ErrorIn(x, depth + 1) is ITypeSymbol e) return e;
        return null;
    }

    /// The mentions of `sym`'s name in `docs` that bind to nothing (or only to candidates among
    /// which `sym` is), with an unresolved type in the way: references rows, or (callers) rows of
    /// the member they are in. A mention bound to any symbol is not one (the search found it, or it
    /// is another symbol of that name); nor is a declaration.
    async Task UnboundMentions(ISymbol sym, Solution sol, IImmutableSet<Document> docs, bool callers, UnitRows u, CancellationToken ct)
    {
        var name = sym is IMethodSymbol { MethodKind: MethodKind.Constructor } ? sym.ContainingType.Name : sym.Name;
        if (string.IsNullOrEmpty(name) || !SyntaxFacts.IsValidIdentifier(name)) return;
        var id = DocId(sym);
        var E = SymbolEqualityComparer.Default;
        bool Ours(ISymbol c)
        {
            var n = Normalize(c);
            return n != null && (E.Equals(n, sym.OriginalDefinition) || (id != null && DocId(n) == id));
        }
        var bound = new HashSet<string>(u.Refs.Select(LocKey));
        // a method with other overloads in its type: a call with an unresolved argument type may mean any of them
        var overloaded = sym is IMethodSymbol { Parameters.Length: > 0 } om && (om.ReducedFrom ?? om).ContainingType is INamedTypeSymbol oc && oc.GetMembers(om.Name).OfType<IMethodSymbol>().Count() > 1;
        var boundRefs = new Dictionary<string, Loc>();
        foreach (var r in u.Refs) if (r.Confidence == null && r.Related != true) boundRefs.TryAdd(LocKey(r), r);
        foreach (var row in u.Calls.Values) foreach (var s in row.Sites) bound.Add(LocKey(s));
        // callers: the direct calls bound to this overload, by site (a site may turn unbound below)
        var boundCalls = new Dictionary<string, (string key, CallRow row)>();
        if (callers)
            foreach (var (k, row) in u.Calls)
                if (row.Via == null && row.Confidence == null && row.Kind == null)
                    foreach (var s in row.Sites) boundCalls.TryAdd(LocKey(s), (k, row));
        var signatureBlock = SignatureErrorType(sym);
        var found = 0;
        foreach (var doc in docs)
        {
            if (doc.FilePath == null || found >= UnboundMaxPerUnit) continue;
            if (!h.Buffers.ContainsKey(doc.FilePath) && File.Exists(doc.FilePath) && !Mentions(doc.FilePath, name)) continue;
            var root = await doc.GetSyntaxRootAsync(ct);
            if (root == null) continue;
            SemanticModel? model = null;
            foreach (var tok in root.DescendantTokens())
            {
                if (!tok.IsKind(SyntaxKind.IdentifierToken) || tok.ValueText != name || tok.Parent is not SimpleNameSyntax sn) continue;
                if (sn.Ancestors().Any(a => a is UsingDirectiveSyntax) || sn.Ancestors().OfType<BaseNamespaceDeclarationSyntax>().Any(ns => ns.Name.Span.Contains(sn.Span))) continue;
                var (site, invocation) = MentionShape(sn);
                // a method's mention that is not call-shaped (a type or namespace name of the same spelling) is not one of it
                if (sym is IMethodSymbol && invocation == null && !IsExpressionContext(site)) continue;
                var loc = ToLoc(sn.Identifier.GetLocation(), sol);
                if (bound.Contains(LocKey(loc)))
                {
                    // bound to this overload while an argument's type is unresolved (protocol 9):
                    // overload resolution over an error type may have picked it wrongly
                    var lk = LocKey(loc);
                    var asRef = boundRefs.TryGetValue(lk, out var row);
                    var asCall = boundCalls.TryGetValue(lk, out var call);
                    if (invocation == null || !overloaded || !(asRef || asCall)) continue;
                    model ??= await doc.GetSemanticModelAsync(ct);
                    if (model == null) break;
                    if (BlockingType(model, site, invocation, ct) is not ITypeSymbol rb) continue;
                    found++;
                    if (asRef) { row!.Confidence = "unbound"; row.BlockedBy = rb.ToDisplayString(); continue; }
                    // the caller's site moves from its bound row to an unbound one
                    call.row.Sites.RemoveAll(x => LocKey(x) == lk);
                    if (call.row.Sites.Count == 0) u.Calls.Remove(call.key);
                    boundCalls.Remove(lk);
                    AddUnbound(doc, sn, loc, rb.ToDisplayString(), null);
                    continue;
                }
                model ??= await doc.GetSemanticModelAsync(ct);
                if (model == null) break;
                var info = model.GetSymbolInfo((SyntaxNode?)invocation ?? site, ct);
                if (info.Symbol != null)
                {
                    // bound to another overload of the same member while an argument's type is
                    // unresolved (protocol 9): Roslyn's choice rests on an error type, so the call
                    // may mean this overload as well — not trusted as bound
                    if (invocation == null || !OtherOverload(info.Symbol, sym) || !ArityFits((IMethodSymbol)sym, invocation.ArgumentList.Arguments.Count) || BlockingType(model, site, invocation, ct) is not ITypeSymbol ob) continue;
                    found++;
                    AddUnbound(doc, sn, loc, ob.ToDisplayString(), null);
                    continue;
                }
                if (invocation != null && info.CandidateSymbols.IsEmpty) info = model.GetSymbolInfo(site, ct);
                if (info.Symbol != null) continue;
                if (CannotReach(sym, model, site, sn, ct)) continue;
                // a type's own name that is an unresolved type (its package is missing in this project)
                var self = sym is INamedTypeSymbol && invocation == null && model.GetTypeInfo(site, ct).Type is IErrorTypeSymbol et && et.Name == name ? et : null;
                var candidate = self != null || info.CandidateSymbols.Any(Ours);
                if (!info.CandidateSymbols.IsEmpty && !candidate) continue; // a candidate of another symbol
                var blocked = (ITypeSymbol?)self ?? BlockingType(model, site, invocation, ct) ?? (candidate ? signatureBlock : null);
                if (blocked == null && !candidate) continue; // nothing unresolved in the way: broken code, not a binding gap
                found++;
                AddUnbound(doc, sn, loc, blocked?.ToDisplayString(), info.CandidateReason != CandidateReason.None ? info.CandidateReason.ToString() : null, invocation == null);
            }
            void AddUnbound(Document doc, SimpleNameSyntax sn, Loc loc, string? blockedBy, string? reason, bool notInvoked = false)
            {
                var key = h.KeyOf(doc.Project.Id);
                bound.Add(LocKey(loc));
                if (!callers)
                {
                    loc.Definition = id; loc.ProjectKey = key; loc.Confidence = "unbound"; loc.BlockedBy = blockedBy; loc.CandidateReason = reason;
                    u.Refs.Add(loc);
                    return;
                }
                var from = model!.GetEnclosingSymbol(sn.SpanStart, ct);
                while (from is IMethodSymbol { MethodKind: MethodKind.AnonymousFunction or MethodKind.LocalFunction } && from.ContainingSymbol != null) from = from.ContainingSymbol;
                if (from == null) return;
                var fromRef = Ref(from, sol);
                var kind = sym is IMethodSymbol && notInvoked ? "reference" : null;
                var rk = (fromRef.DocId ?? fromRef.Display + "@" + string.Join(",", fromRef.Locations.Select(LocKey))) + "|unbound" + (kind != null ? "|" + kind : "");
                if (!u.Calls.TryGetValue(rk, out var crow)) u.Calls[rk] = crow = new CallRow { From = fromRef, Confidence = "unbound", BlockedBy = blockedBy, Kind = kind };
                crow.BlockedBy ??= blockedBy;
                crow.Sites.Add(loc);
            }
        }
        if (found > 0) HostState.Log($"{(callers ? "callers" : "references")} {name}: {found} unbound mention(s) in {docs.Count} documents");
    }

    /// Whether `bound` is another overload of `sym`'s member: same name and kind, same containing
    /// type (an extension method: its reduced-from definition's), not `sym` itself.
    static bool OtherOverload(ISymbol bound, ISymbol sym)
    {
        if (bound is not IMethodSymbol bm || sym is not IMethodSymbol sm || bm.Name != sm.Name) return false;
        var b = (bm.ReducedFrom ?? bm).OriginalDefinition;
        var s = (sm.ReducedFrom ?? sm).OriginalDefinition;
        // by documentation id: a metadata symbol of another compilation (the target's project may
        // compile against another framework's assembly) is another symbol object
        if (b.ContainingType is not INamedTypeSymbol bt || s.ContainingType is not INamedTypeSymbol st) return false;
        var E = SymbolEqualityComparer.Default;
        var sameType = E.Equals(bt.OriginalDefinition, st.OriginalDefinition) || (DocId(bt.OriginalDefinition) is string bid && bid == DocId(st.OriginalDefinition));
        return sameType && !E.Equals(b, s) && DocId(b) != DocId(s);
    }

    /// Most unbound subtypes one implementations / typeHierarchy answer reports.
    const int UnboundSubtypesMax = 500;
    /// Rounds of "a type deriving from an unbound subtype found" followed.
    const int UnboundSubtypeRounds = 4;

    /// The source types of the searched projects compiling without something unresolved whose base
    /// list holds an unresolved (error) type named like `root` or like a type known to derive from it
    /// (`knownNames`: the subtypes found, the metadata types deriving from a metadata root), or a
    /// type found so (followed in rounds): they may be subtypes the search could not see, rows with
    /// `confidence: "unbound"` on their locations (protocol 9). `foundIds`: the types already found.
    /// Cut by `ct` (the deadline): the projects not scanned are returned.
    async Task<(List<SymbolRef> rows, List<string> notScanned)> UnboundSubtypes(INamedTypeSymbol root, IEnumerable<string> knownNames, IEnumerable<string> keys, Solution sol, IReadOnlySet<string> foundIds, bool interfaceRoot, CancellationToken ct)
    {
        var rows = new List<SymbolRef>();
        var unresolvedKeys = keys.Where(k => h.Known.TryGetValue(k, out var kp) && kp.Res.Unresolved.Any(CanHideAssemblies)).Distinct().ToList();
        var blockedOf = new Dictionary<string, string?>(StringComparer.Ordinal);
        var wanted = new HashSet<string>(knownNames.Where(n => !string.IsNullOrEmpty(n)), StringComparer.Ordinal) { root.Name };
        var done = new HashSet<string>(StringComparer.Ordinal);
        var scannedKeys = new HashSet<string>(StringComparer.Ordinal);
        try
        {
            for (var round = 0; round < UnboundSubtypeRounds && wanted.Count > 0 && rows.Count < UnboundSubtypesMax; round++)
            {
                var names = wanted.ToList();
                done.UnionWith(names);
                wanted = new HashSet<string>(StringComparer.Ordinal);
                foreach (var k in unresolvedKeys)
                {
                    if (sol.GetProject(h.Known[k].Id) is not Project p) continue;
                    foreach (var doc in p.Documents)
                    {
                        if (doc.FilePath == null || (!h.Buffers.ContainsKey(doc.FilePath) && !MentionsAny(doc.FilePath, names))) continue;
                        if (await doc.GetSyntaxRootAsync(ct) is not SyntaxNode tree) continue;
                        SemanticModel? model = null;
                        foreach (var td in tree.DescendantNodes(n => n is CompilationUnitSyntax or BaseNamespaceDeclarationSyntax or TypeDeclarationSyntax).OfType<TypeDeclarationSyntax>())
                        {
                            if (td.BaseList == null) continue;
                            foreach (var bt in td.BaseList.Types)
                            {
                                if (BaseName(bt.Type) is not string bn || !names.Contains(bn)) continue;
                                model ??= await doc.GetSemanticModelAsync(ct);
                                if (model == null) break;
                                var baseType = model.GetTypeInfo(bt.Type, ct).Type;
                                string? blockedBy;
                                string? reason = null;
                                if (baseType is IErrorTypeSymbol err) { blockedBy = err.ToDisplayString(); reason = err.CandidateReason != CandidateReason.None ? err.CandidateReason.ToString() : null; }
                                else if (baseType?.TypeKind == TypeKind.Error) blockedBy = baseType.ToDisplayString();
                                else if (baseType is INamedTypeSymbol nb && DocId(nb.OriginalDefinition) is string bid && blockedOf.TryGetValue(bid, out var inherited)) blockedBy = inherited;
                                else continue;
                                if (model.GetDeclaredSymbol(td, ct) is not INamedTypeSymbol declared || DocId(declared) is not string id || foundIds.Contains(id) || blockedOf.ContainsKey(id)) continue;
                                blockedOf[id] = blockedBy;
                                var r = Ref(declared, sol);
                                r.Relation = declared.TypeKind == TypeKind.Interface ? "derivedInterface" : interfaceRoot ? "implementation" : "derivedClass";
                                r.Depth = bn == root.Name && baseType?.TypeKind == TypeKind.Error ? 1 : 2;
                                foreach (var l in r.Locations) { l.Confidence = "unbound"; l.BlockedBy = blockedBy; l.CandidateReason = reason; }
                                rows.Add(r);
                                if (!done.Contains(declared.Name)) wanted.Add(declared.Name);
                                break;
                            }
                            if (rows.Count >= UnboundSubtypesMax) break;
                        }
                    }
                    if (round == 0) scannedKeys.Add(k);
                }
            }
        }
        catch (OperationCanceledException) when (ct.IsCancellationRequested) { }
        if (rows.Count > 0) HostState.Log($"subtypes of {root.Name}: {rows.Count} unbound candidate(s) in {unresolvedKeys.Count} project(s) compiling without something");
        return (rows, unresolvedKeys.Where(k => !scannedKeys.Contains(k)).ToList());
    }

    /// The simple name a base-list type is written with (`Ns.Base<T>` → `Base`).
    static string? BaseName(TypeSyntax t) => t switch
    {
        QualifiedNameSyntax q => q.Right.Identifier.ValueText,
        AliasQualifiedNameSyntax a => a.Name.Identifier.ValueText,
        SimpleNameSyntax s => s.Identifier.ValueText,
        _ => null,
    };

    /// An unbound mention that cannot be of `sym` whatever the missing package holds: `base.M()` in
    /// a type whose base chain cannot reach `sym`'s type (its bases are resolved and none is it, or
    /// an unresolved base is a package type while `sym`'s type is the workspace's: a package cannot
    /// derive from it); an instance member of a workspace type reached through static members of an
    /// unresolved name (`NHibernateUtil.String.NullSafeSet(…)`: a package's members are never
    /// typed as a workspace type).
    static bool CannotReach(ISymbol sym, SemanticModel model, ExpressionSyntax site, SimpleNameSyntax sn, CancellationToken ct)
    {
        if (sym.ContainingType is not INamedTypeSymbol target || site is not MemberAccessExpressionSyntax ma) return false;
        var inSource = InSource(target);
        if (ma.Expression is BaseExpressionSyntax)
        {
            if (model.GetEnclosingSymbol(sn.SpanStart, ct) is not ISymbol from) return false;
            var enclosing = from as INamedTypeSymbol ?? from.ContainingType;
            for (var b = enclosing?.BaseType; b != null; b = b.BaseType)
            {
                if (SymbolEqualityComparer.Default.Equals(b.OriginalDefinition, target.OriginalDefinition) || DocId(b.OriginalDefinition) == DocId(target.OriginalDefinition)) return false;
                if (b.TypeKind == TypeKind.Error) return inSource && b.Name != target.Name;
            }
            return enclosing != null;
        }
        if (sym.IsStatic || sym is IMethodSymbol { IsExtensionMethod: true } || !inSource) return false;
        // the receiver: member accesses only (no call, no generic name), down to a name that binds to nothing
        var e = ma.Expression;
        while (e is MemberAccessExpressionSyntax inner && inner.Name is IdentifierNameSyntax) e = inner.Expression;
        if (e is not IdentifierNameSyntax root) return false;
        var ri = model.GetSymbolInfo(root, ct);
        return ri.Symbol == null && ri.CandidateSymbols.IsEmpty;
    }

    /// Whether a call with `args` arguments can mean `m` (an extension method: with or without its receiver).
    static bool ArityFits(IMethodSymbol m, int args)
    {
        var def = m.ReducedFrom ?? m;
        var ps = def.Parameters;
        var required = ps.Count(p => !p.IsOptional && !p.IsParams);
        var max = ps.Length > 0 && ps[^1].IsParams ? int.MaxValue : ps.Length;
        bool Fits(int n) => n >= required && n <= max;
        return Fits(args) || (def.IsExtensionMethod && Fits(args + 1));
    }

    /// The expression a simple name stands in (`a.b.Name` → the member access) and the invocation
    /// that calls it, if any.
    static (ExpressionSyntax site, InvocationExpressionSyntax? invocation) MentionShape(SimpleNameSyntax sn)
    {
        ExpressionSyntax site = sn;
        while (site.Parent is MemberAccessExpressionSyntax ma && ma.Name == site) site = ma;
        if (site.Parent is MemberBindingExpressionSyntax mb && mb.Name == site) site = mb;
        return (site, site.Parent is InvocationExpressionSyntax inv && inv.Expression == site ? inv : null);
    }

    static bool IsExpressionContext(ExpressionSyntax e) =>
        e.Parent is ArgumentSyntax or AssignmentExpressionSyntax or EqualsValueClauseSyntax or ArrowExpressionClauseSyntax or ReturnStatementSyntax or CastExpressionSyntax
        || e is MemberAccessExpressionSyntax or MemberBindingExpressionSyntax;

    /// The unresolved type that keeps a mention from binding: its receiver's type (or the receiver
    /// itself when it binds to nothing), else the first argument whose type is unresolved.
    static ITypeSymbol? BlockingType(SemanticModel model, ExpressionSyntax site, InvocationExpressionSyntax? invocation, CancellationToken ct)
    {
        var receiver = site switch
        {
            MemberAccessExpressionSyntax ma => ma.Expression,
            MemberBindingExpressionSyntax mb => (mb.Parent?.Parent as ConditionalAccessExpressionSyntax)?.Expression
                ?? mb.Ancestors().OfType<ConditionalAccessExpressionSyntax>().FirstOrDefault()?.Expression,
            _ => null,
        };
        if (receiver != null)
        {
            var rt = model.GetTypeInfo(receiver, ct).Type;
            if (ErrorIn(rt) is ITypeSymbol e) return string.IsNullOrEmpty(e.Name) ? Inside(receiver, self: true) ?? e : e;
            // a static call on a type that does not bind: the receiver is that type
            if (model.GetSymbolInfo(receiver, ct).Symbol is null && model.GetTypeInfo(receiver, ct).Type is IErrorTypeSymbol et) return et;
        }
        if (invocation == null) return null;
        foreach (var a in invocation.ArgumentList.Arguments)
            if (ErrorIn(model.GetTypeInfo(a.Expression, ct).Type) is ITypeSymbol e) return string.IsNullOrEmpty(e.Name) ? Inside(a.Expression) ?? e : e;
        // an argument whose own type is resolved but whose inside is not (a lambda over an
        // unresolved type, `xs.Select(x => x.StartAsync(t))`, whose error recovery picked a
        // candidate): overload resolution saw a guess
        foreach (var a in invocation.ArgumentList.Arguments)
            if (Inside(a.Expression) is ITypeSymbol e) return e;
        return null;

        // the first named unresolved type inside an expression (`sessions.Select(s => s.Flush())` → DbSession)
        ITypeSymbol? Inside(ExpressionSyntax arg, bool self = false, int depth = 0)
        {
            foreach (var x in (self ? arg.DescendantNodesAndSelf() : arg.DescendantNodes()).OfType<ExpressionSyntax>().Take(BlockingScanMaxNodes))
                if (ErrorIn(model.GetTypeInfo(x, ct).Type) is ITypeSymbol n && !string.IsNullOrEmpty(n.Name)) return n;
            // a local of a nameless error type (`var text = session.Snapshot();`): what its initializer is made of
            if (depth < 2 && arg is IdentifierNameSyntax && model.GetSymbolInfo(arg, ct).Symbol is ILocalSymbol local
                && local.DeclaringSyntaxReferences.FirstOrDefault()?.GetSyntax(ct) is VariableDeclaratorSyntax { Initializer.Value: ExpressionSyntax init }
                && init.SyntaxTree == arg.SyntaxTree)
                return Inside(init, self: true, depth + 1);
            return null;
        }
    }

    /// Most expressions inside one argument looked at for an unresolved type.
    const int BlockingScanMaxNodes = 256;

    /// What keeps the name at a position from binding, or null when it binds.
    public sealed class UnboundMention
    {
        public string Name = "";
        public ITypeSymbol? Blocked;
        public CandidateReason CandidateReason;
        public ImmutableArray<ISymbol> Candidates = ImmutableArray<ISymbol>.Empty;
        public bool Invoked;
        public string Why() => Blocked != null ? $"{Blocked.ToDisplayString()} is unresolved" : CandidateReason != CandidateReason.None ? $"Roslyn's candidates failed: {CandidateReason}" : "nothing of that name is in reach";
    }

    async Task<UnboundMention?> UnboundAt(Document doc, SyntaxToken tok, CancellationToken ct)
    {
        if (tok.Parent is not SimpleNameSyntax sn) return null;
        var model = await doc.GetSemanticModelAsync(ct);
        if (model == null) return null;
        var (site, invocation) = MentionShape(sn);
        var info = model.GetSymbolInfo((SyntaxNode?)invocation ?? site, ct);
        if (info.Symbol != null) return null;
        if (invocation != null && info.CandidateSymbols.IsEmpty) info = model.GetSymbolInfo(site, ct);
        if (info.Symbol != null) return null;
        // the name is itself an unresolved type (`DbSession x`), or something in its way is
        var blocked = BlockingType(model, site, invocation, ct) ?? (model.GetTypeInfo(site, ct).Type is IErrorTypeSymbol self && invocation == null && site is SimpleNameSyntax ? self : null);
        if (blocked == null && info.CandidateSymbols.IsEmpty) return null; // nothing unresolved in the way
        return new UnboundMention { Name = tok.ValueText, Blocked = blocked, CandidateReason = info.CandidateReason, Candidates = info.CandidateSymbols, Invoked = invocation != null };
    }

    /// Most declarations an unbound definition lists.
    const int UnboundDeclarationsMax = 20;
    /// Longest an unbound definition looks for declarations (cold projects compile): the rest of its
    /// projects are `notSearched`, so the engine's wait is not spent on one lookup.
    const int UnboundDeclarationsMaxMs = 3000;

    /// The source declarations an unbound mention can mean (definition, protocol 6): Roslyn's
    /// candidates when it had some; else the members of that name in the asking project's reference
    /// closure — those on the unresolved receiver type (by name) or extending it, when any are.
    async Task<List<ISymbol>> UnboundDeclarations(UnboundMention m, string projectKey, QueryResult res, CancellationToken deadline, CancellationToken ct)
    {
        var outList = new List<ISymbol>();
        var seen = new HashSet<string>(StringComparer.Ordinal);
        void Add(ISymbol s) { s = Normalize(s)!; if (s.Locations.Any(l => l.IsInSource) && seen.Add(DocId(s) ?? s.ToDisplayString()) && outList.Count < UnboundDeclarationsMax) outList.Add(s); }
        foreach (var c in m.Candidates) Add(c);
        if (outList.Count > 0) return outList;
        var sol = h.Workspace.CurrentSolution;
        var all = new List<ISymbol>();
        // only projects with a document naming it can declare it (the text pre-filter first), the
        // asking project first; what the deadline leaves is not looked at and said
        using var budget = CancellationTokenSource.CreateLinkedTokenSource(deadline);
        budget.CancelAfter(UnboundDeclarationsMaxMs);
        var keys = h.Closure(new[] { projectKey }).OrderBy(k => k == projectKey ? 0 : 1)
            .Where(k => h.Known[k].Desc.Documents.Any(d => Mentions(h.Abs(d.Path), m.Name))).ToList();
        for (var i = 0; i < keys.Count; i++)
        {
            if (sol.GetProject(h.Known[keys[i]].Id) is not Project p) continue;
            try
            {
                foreach (var s in await SymbolFinder.FindSourceDeclarationsAsync(p, m.Name, ignoreCase: false, SymbolFilter.Member, budget.Token))
                    if (!m.Invoked || s is IMethodSymbol) all.Add(s);
            }
            catch (OperationCanceledException) when (!ct.IsCancellationRequested)
            {
                foreach (var k in keys.Skip(i)) res.NotSearched.Add(new NotSearched { Key = k, Reason = "deadline", Detail = $"not looked at for declarations named {m.Name}" });
                break;
            }
        }
        var receiver = (m.Blocked as INamedTypeSymbol)?.Name ?? m.Blocked?.Name;
        bool OnReceiver(ISymbol s) => receiver != null && (s.ContainingType?.Name == receiver || s is IMethodSymbol { IsExtensionMethod: true } em && em.Parameters.FirstOrDefault()?.Type is ITypeSymbol pt && (pt as INamedTypeSymbol ?? pt).Name == receiver);
        var fitting = all.Where(OnReceiver).ToList();
        foreach (var s in fitting.Count > 0 ? fitting : all) Add(s);
        return outList;
    }
}
