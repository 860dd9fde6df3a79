// Symbols and locations as the protocol writes them; resolving a question's target, and the same symbol in a later solution.
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.FindSymbols;

namespace Sextant.RoslynHost;

public sealed partial class Queries
{
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
        // a partial member's implementing part (often a generator's) is a declaration too
        var srcLocs = MetadataSymbols.Declarations(s);
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
        /// The name at the position did not bind (protocol 6): why, and what Roslyn offered.
        public UnboundMention? Unbound;
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
            // the name the position is on (or ends at): only a position past a name's end looks back,
            // never one on a name that did not bind (that would answer for its receiver)
            var root = await doc.GetSyntaxRootAsync(ct);
            var tok = root?.FindToken(offset) ?? default;
            var onName = tok.IsKind(SyntaxKind.IdentifierToken) && tok.Span.Contains(offset);
            if (!onName && offset > tl.Start && root?.FindToken(offset - 1) is { } before && before.IsKind(SyntaxKind.IdentifierToken) && before.Span.End == offset) { tok = before; onName = true; }
            if (sym == null && offset > tl.Start && !(tok.IsKind(SyntaxKind.IdentifierToken) && tok.Span.Contains(offset))) sym = await SymbolFinder.FindSymbolAtPositionAsync(doc, offset - 1, ct);
            var unbound = onName ? await UnboundAt(doc, tok, ct) : null;
            var reason = sym != null ? null : unbound != null ? $"no symbol at position: `{unbound.Name}` could not be bound ({unbound.Why()})" : "no symbol at position";
            return new Target { Symbol = Normalize(sym), ProjectKey = key, Document = doc, Reason = reason, Unbound = unbound };
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
        // a framework or package symbol: bound again in a project of `to` that references its
        // assembly (SymbolFinder follows a metadata symbol only from a project of the solution searched)
        if (loc?.SourceTree == null)
            return MetadataSymbols.AssemblyOf(s) is string asm
                ? Normalize(await MetadataSymbols.InSolution(s, to, to.ProjectIds.Where(p => h.KeyOf(p) is string k && h.Known.TryGetValue(k, out var kp) && MetadataSymbols.References(kp, asm)).Take(4), ct))
                : s;
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
}
