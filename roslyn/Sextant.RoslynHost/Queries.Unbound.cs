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
        foreach (var row in u.Calls.Values) foreach (var s in row.Sites) bound.Add(LocKey(s));
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
                if (bound.Contains(LocKey(loc))) continue;
                model ??= await doc.GetSemanticModelAsync(ct);
                if (model == null) break;
                var info = model.GetSymbolInfo((SyntaxNode?)invocation ?? site, ct);
                if (info.Symbol != null) continue;
                if (invocation != null && info.CandidateSymbols.IsEmpty) info = model.GetSymbolInfo(site, ct);
                if (info.Symbol != null) continue;
                // a type's own name that is an unresolved type (its package is missing in this project)
                var self = sym is INamedTypeSymbol && invocation == null && model.GetTypeInfo(site, ct).Type is IErrorTypeSymbol et && et.Name == name ? et : null;
                var candidate = self != null || info.CandidateSymbols.Any(Ours);
                if (!info.CandidateSymbols.IsEmpty && !candidate) continue; // a candidate of another symbol
                var blocked = (ITypeSymbol?)self ?? BlockingType(model, site, invocation, ct) ?? (candidate ? signatureBlock : null);
                if (blocked == null && !candidate) continue; // nothing unresolved in the way: broken code, not a binding gap
                found++;
                var blockedBy = blocked?.ToDisplayString();
                var reason = info.CandidateReason != CandidateReason.None ? info.CandidateReason.ToString() : null;
                var key = h.KeyOf(doc.Project.Id);
                if (!callers)
                {
                    loc.Definition = id; loc.ProjectKey = key; loc.Confidence = "unbound"; loc.BlockedBy = blockedBy; loc.CandidateReason = reason;
                    bound.Add(LocKey(loc));
                    u.Refs.Add(loc);
                    continue;
                }
                var from = model.GetEnclosingSymbol(sn.SpanStart, ct);
                while (from is IMethodSymbol { MethodKind: MethodKind.AnonymousFunction or MethodKind.LocalFunction } && from.ContainingSymbol != null) from = from.ContainingSymbol;
                if (from == null) continue;
                var fromRef = Ref(from, sol);
                var kind = sym is IMethodSymbol && invocation == null ? "reference" : null;
                var rk = (fromRef.DocId ?? fromRef.Display + "@" + string.Join(",", fromRef.Locations.Select(LocKey))) + "|unbound" + (kind != null ? "|" + kind : "");
                if (!u.Calls.TryGetValue(rk, out var crow)) u.Calls[rk] = crow = new CallRow { From = fromRef, Confidence = "unbound", BlockedBy = blockedBy, Kind = kind };
                crow.BlockedBy ??= blockedBy;
                bound.Add(LocKey(loc));
                crow.Sites.Add(loc);
            }
        }
        if (found > 0) HostState.Log($"{(callers ? "callers" : "references")} {name}: {found} unbound mention(s) in {docs.Count} documents");
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
            if (ErrorIn(rt) is ITypeSymbol e) return e;
            // a static call on a type that does not bind: the receiver is that type
            if (model.GetSymbolInfo(receiver, ct).Symbol is null && model.GetTypeInfo(receiver, ct).Type is IErrorTypeSymbol et) return et;
        }
        if (invocation != null)
            foreach (var a in invocation.ArgumentList.Arguments)
                if (ErrorIn(model.GetTypeInfo(a.Expression, ct).Type) is ITypeSymbol e) return e;
        return null;
    }

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
