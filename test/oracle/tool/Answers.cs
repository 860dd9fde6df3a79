using System.Text.Json.Nodes;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.FindSymbols;

namespace Sextant.Oracle;

/// <summary>A location as the engine writes it: workspace-relative path, 1-based line and UTF-16 column of the identifier.</summary>
public sealed record Loc(string Path, int Line, int Column, bool Generated, string? Hint = null)
{
    public string Key => $"{Path}:{Line}:{Column}";
}

public static class Answers
{
    public static async Task<JsonObject> Answer(Loaded w, Question q)
    {
        if (!w.ByPath.TryGetValue(q.Path, out var docs) || docs.Count == 0)
            return new JsonObject { ["error"] = $"no project compiles {q.Path}" };
        var items = new Dictionary<string, JsonObject>();
        string? display = null, kind = null;
        int compilations = 0;
        foreach (var doc in docs)
        {
            var symbol = await SymbolAt(doc, q.Line, q.Column);
            if (symbol is null) continue;
            compilations++;
            display ??= symbol.ToDisplayString();
            kind ??= symbol.Kind.ToString();
            var solution = doc.Project.Solution;
            switch (q.Op)
            {
                case "definition":
                    foreach (var l in Definitions(w, symbol)) Add(items, l);
                    // a framework or package symbol: no source declaration; the engine answers its
                    // metadata declaration (assembly, package, decompiled source view)
                    if (symbol is not INamespaceSymbol && !symbol.Locations.Any(l => l.IsInSource)) AddMeta(items, symbol);
                    break;
                case "references":
                    foreach (var l in await References(w, symbol, solution)) Add(items, l);
                    break;
                case "implementations":
                    foreach (var l in await Implementations(w, symbol, solution)) Add(items, l);
                    break;
                case "type_hierarchy":
                    if (symbol is not INamedTypeSymbol type) return new JsonObject { ["error"] = $"not a type: {symbol.ToDisplayString()}" };
                    foreach (var (l, relation, meta) in await Hierarchy(w, type, solution))
                    {
                        var row = l is not null ? Add(items, l) : AddMeta(items, meta!);
                        row["relation"] = relation;
                    }
                    break;
                case "callers":
                    foreach (var (caller, sites, via) in await Callers(w, symbol, solution))
                    {
                        var row = Add(items, caller);
                        var s = (JsonArray)(row["sites"] ??= new JsonArray());
                        foreach (var site in sites)
                            if (!s.Any(x => x!["line"]!.GetValue<int>() == site.Line && x["column"]!.GetValue<int>() == site.Column))
                                s.Add(new JsonObject { ["line"] = site.Line, ["column"] = site.Column });
                        if (via is not null) row["via"] = via;
                    }
                    break;
                default:
                    return new JsonObject { ["error"] = $"unknown op {q.Op}" };
            }
        }
        if (compilations == 0) return new JsonObject { ["error"] = $"no symbol at {q.Path}:{q.Line}:{q.Column}" };
        var arr = new JsonArray();
        foreach (var kv in items.OrderBy(k => k.Key, StringComparer.Ordinal)) arr.Add(kv.Value);
        return new JsonObject { ["symbol"] = display, ["kind"] = kind, ["compilations"] = compilations, ["items"] = arr };
    }

    static JsonObject Add(Dictionary<string, JsonObject> items, Loc l)
    {
        if (items.TryGetValue(l.Key, out var row)) return row;
        row = new JsonObject { ["path"] = l.Path, ["line"] = l.Line, ["column"] = l.Column };
        if (l.Generated) row["generated"] = true;
        if (l.Hint is not null) row["hint"] = l.Hint;
        items[l.Key] = row;
        return row;
    }

    /// <summary>A metadata type (framework or package): no source location, named by its simple name and documentation id.</summary>
    static JsonObject AddMeta(Dictionary<string, JsonObject> items, ISymbol t)
    {
        var id = t.OriginalDefinition.GetDocumentationCommentId() ?? t.ToDisplayString();
        var key = "meta:" + id;
        if (items.TryGetValue(key, out var row)) return row;
        row = new JsonObject { ["path"] = "", ["line"] = 0, ["column"] = 0, ["meta"] = id, ["name"] = t.Name, ["assembly"] = t.ContainingAssembly?.Name, ["version"] = t.ContainingAssembly?.Identity.Version.ToString() };
        items[key] = row;
        return row;
    }

    /// <summary>
    /// Direct supertypes (the base class unless it is System.Object's implicit one — it is listed
    /// too, as Roslyn's type hierarchy does — and the interfaces the declaration names), then direct
    /// subtypes in source (derived classes; for an interface the types and interfaces naming it).
    /// </summary>
    public static async Task<List<(Loc? loc, string relation, INamedTypeSymbol? meta)>> Hierarchy(Loaded w, INamedTypeSymbol t, Solution solution)
    {
        var rows = new List<(Loc?, string, INamedTypeSymbol?)>();
        void Super(INamedTypeSymbol s)
        {
            var src = SourceParts(s.OriginalDefinition.Locations.Select(l => LocOf(w, l)).OfType<Loc>()).OrderBy(l => l.Key, StringComparer.Ordinal).FirstOrDefault();
            rows.Add(src is not null ? (src, "supertype", null) : (null, "supertype", s.OriginalDefinition));
        }
        if (t.BaseType is { } b && t.TypeKind == TypeKind.Class) Super(b);
        foreach (var i in t.Interfaces) Super(i);
        IEnumerable<INamedTypeSymbol> subs = t.TypeKind switch
        {
            TypeKind.Interface => (await SymbolFinder.FindImplementationsAsync(t, solution, transitive: false)).Concat(await SymbolFinder.FindDerivedInterfacesAsync(t, solution, transitive: false)),
            TypeKind.Class => await SymbolFinder.FindDerivedClassesAsync(t, solution, transitive: false),
            _ => Array.Empty<INamedTypeSymbol>(),
        };
        foreach (var s in subs)
            foreach (var l in SourceParts(s.OriginalDefinition.Locations.Select(l => LocOf(w, l)).OfType<Loc>()).OrderBy(l => l.Key, StringComparer.Ordinal).Take(1))
                rows.Add((l, "subtype", null));
        return rows;
    }

    public static async Task<ISymbol?> SymbolAt(Document doc, int line, int column)
    {
        var text = await doc.GetTextAsync();
        if (line < 1 || line > text.Lines.Count) return null;
        var l = text.Lines[line - 1];
        var pos = l.Start + column - 1;
        if (pos < l.Start || pos > l.End) return null;
        var symbol = await SymbolFinder.FindSymbolAtPositionAsync(doc, pos);
        return symbol is null ? null : Normalize(symbol);
    }

    public static ISymbol Normalize(ISymbol s)
    {
        if (s is IMethodSymbol { ReducedFrom: { } from }) s = from;
        if (s is IAliasSymbol alias) s = alias.Target;
        return s.OriginalDefinition;
    }

    public static Loc? LocOf(Loaded w, Location location)
    {
        if (!location.IsInSource || location.SourceTree is null) return null;
        var path = w.Rel(location.SourceTree.FilePath);
        if (path is null) return null;
        var p = location.GetLineSpan().StartLinePosition;
        // A source generator's document (run in the compilation, not a file on disk): flagged, with
        // its hint name (the file name the generator chose), which is what an engine's virtual
        // path for it can be matched by.
        var sourceGenerated = w.IsSourceGenerated(location.SourceTree);
        var generated = sourceGenerated || path.Contains("/obj/") || path.StartsWith("obj/") || path.EndsWith(".g.cs") || path.EndsWith(".g.i.cs");
        return new Loc(path, p.Line + 1, p.Character + 1, generated, sourceGenerated ? System.IO.Path.GetFileName(path) : null);
    }

    /// <summary>The symbol and its other partial part (methods, properties), if any.</summary>
    static IEnumerable<ISymbol> Parts(ISymbol s)
    {
        yield return s;
        switch (s)
        {
            case IMethodSymbol m:
                if (m.PartialImplementationPart is { } mi) yield return mi;
                if (m.PartialDefinitionPart is { } md) yield return md;
                break;
            case IPropertySymbol p:
                if (p.PartialImplementationPart is { } pi) yield return pi;
                if (p.PartialDefinitionPart is { } pd) yield return pd;
                break;
            case IEventSymbol e:
                if (e.PartialImplementationPart is { } ei) yield return ei;
                if (e.PartialDefinitionPart is { } ed) yield return ed;
                break;
        }
    }

    public static IEnumerable<Loc> Declarations(Loaded w, ISymbol s) =>
        Parts(s).SelectMany(p => p.Locations).Select(l => LocOf(w, l)).OfType<Loc>();

    public static IEnumerable<Loc> Definitions(Loaded w, ISymbol s) => s is INamespaceSymbol ? Array.Empty<Loc>() : Declarations(w, s);

    public static async Task<List<Loc>> References(Loaded w, ISymbol s, Solution solution)
    {
        var own = new HashSet<ISymbol>(Parts(s), SymbolEqualityComparer.Default);
        var declared = Declarations(w, s).Select(l => l.Key).ToHashSet();
        var result = new List<Loc>();
        foreach (var group in await SymbolFinder.FindReferencesAsync(s, solution))
        {
            if (!Own(own, s, group.Definition.OriginalDefinition)) continue;
            foreach (var r in group.Locations)
            {
                if (r.IsImplicit || r.IsCandidateLocation) continue;
                var l = LocOf(w, r.Location);
                if (l is null || declared.Contains(l.Key)) continue;
                result.Add(l);
            }
        }
        return result;
    }

    /// <summary>
    /// A reference group is the symbol's own when its definition is the symbol (or its other partial
    /// part), one of a type's constructors (`new T()` names the type), or one of a property's or
    /// event's accessors. Groups of interface, base or sibling members (Roslyn's cascade) are not.
    /// </summary>
    static bool Own(HashSet<ISymbol> own, ISymbol s, ISymbol def)
    {
        if (own.Contains(def)) return true;
        if (def is IMethodSymbol m)
        {
            if (m.MethodKind is MethodKind.Constructor && s is INamedTypeSymbol && SymbolEqualityComparer.Default.Equals(m.ContainingType.OriginalDefinition, s)) return true;
            if (m.AssociatedSymbol is { } assoc && own.Contains(assoc.OriginalDefinition)) return true;
        }
        return false;
    }

    public static async Task<List<Loc>> Implementations(Loaded w, ISymbol s, Solution solution) =>
        (await Implementing(s, solution)).SelectMany(f => SourceParts(Declarations(w, f))).ToList();

    /// <summary>
    /// An implementation is one type (or member), listed at the parts a person wrote: a generator's
    /// part of a partial class (LoggerMessage, Regex) implements nothing and is listed only when the
    /// implementation has no other part (a type a generator writes whole). See truth/README.md.
    /// </summary>
    public static IEnumerable<Loc> SourceParts(IEnumerable<Loc> parts)
    {
        var all = parts.ToList();
        return all.Any(l => !l.Generated) ? all.Where(l => !l.Generated) : all;
    }

    /// <summary>
    /// For a type: its implementing and derived types (transitively). For a member: the members that
    /// implement or override it, and their overrides (transitively).
    /// </summary>
    public static async Task<HashSet<ISymbol>> Implementing(ISymbol s, Solution solution)
    {
        var found = new HashSet<ISymbol>(SymbolEqualityComparer.Default);
        var queue = new Queue<ISymbol>();
        void Push(IEnumerable<ISymbol> xs)
        {
            foreach (var x in xs)
            {
                var n = x.OriginalDefinition;
                if (SymbolEqualityComparer.Default.Equals(n, s)) continue;
                if (found.Add(n)) queue.Enqueue(n);
            }
        }
        if (s is INamedTypeSymbol t)
        {
            if (t.TypeKind == TypeKind.Interface)
                Push((await SymbolFinder.FindImplementationsAsync(t, solution, transitive: true)).Where(x => x.TypeKind != TypeKind.Interface));
            else if (t.TypeKind == TypeKind.Class)
                Push(await SymbolFinder.FindDerivedClassesAsync(t, solution, transitive: true));
        }
        else if (s is IMethodSymbol or IPropertySymbol or IEventSymbol)
        {
            if (s.ContainingType?.TypeKind == TypeKind.Interface) Push(await SymbolFinder.FindImplementationsAsync(s, solution));
            if (s.IsVirtual || s.IsAbstract || s.IsOverride) Push(await SymbolFinder.FindOverridesAsync(s, solution));
            // Overrides of the implementations, and implementations of those (transitively).
            while (queue.Count > 0)
            {
                var n = queue.Dequeue();
                if (n.IsVirtual || n.IsAbstract || n.IsOverride) Push(await SymbolFinder.FindOverridesAsync(n, solution));
            }
        }
        return found;
    }

    static bool InSource(ISymbol s) => s.Locations.Any(l => l.IsInSource);

    /// <summary>The members a call to which may dispatch to <paramref name="s"/>: itself, what it overrides, and the interface members it implements (transitively).</summary>
    public static async Task<List<ISymbol>> Dispatchers(ISymbol s, Solution solution)
    {
        var all = new List<ISymbol>();
        var seen = new HashSet<ISymbol>(SymbolEqualityComparer.Default);
        var queue = new Queue<ISymbol>();
        queue.Enqueue(s);
        while (queue.Count > 0)
        {
            var n = queue.Dequeue().OriginalDefinition;
            if (!seen.Add(n)) continue;
            all.Add(n);
            // Only members declared in source dispatch here: a call through a framework interface
            // (IEnumerable<T>.GetEnumerator in every foreach) is not a caller of this method.
            var over = n switch { IMethodSymbol m => (ISymbol?)m.OverriddenMethod, IPropertySymbol p => p.OverriddenProperty, IEventSymbol e => e.OverriddenEvent, _ => null };
            if (over is not null && InSource(over)) queue.Enqueue(over);
            foreach (var i in await SymbolFinder.FindImplementedInterfaceMembersAsync(n, solution))
                if (InSource(i)) queue.Enqueue(i);
        }
        return all;
    }

    static bool IsBaseCall(Location l)
    {
        var root = l.SourceTree?.GetRoot();
        if (root is null) return false;
        var node = root.FindNode(l.SourceSpan, getInnermostNodeForTie: true);
        return node.Parent is MemberAccessExpressionSyntax { Expression: BaseExpressionSyntax } m && m.Name.Span.Contains(l.SourceSpan);
    }

    /// <summary>
    /// The callers of <paramref name="s"/>: calls bound to it; calls bound to a source member it
    /// overrides or implements (they may dispatch to it; `base.M()` does not); and calls bound to its
    /// implementations and overrides in source (issue 23: "callers through implementations" — a
    /// change of an interface or virtual member's contract reaches them). `via` names the member the
    /// calls bind to when it is not <paramref name="s"/>.
    /// </summary>
    public static async Task<List<(Loc caller, List<Loc> sites, string? via)>> Callers(Loaded w, ISymbol s, Solution solution)
    {
        var rows = new Dictionary<string, (Loc caller, List<Loc> sites, string? via)>();
        var up = await Dispatchers(s, solution);
        var down = s is IMethodSymbol or IPropertySymbol or IEventSymbol ? (await Implementing(s, solution)).Where(InSource).ToList() : new List<ISymbol>();
        var downward = new HashSet<ISymbol>(down, SymbolEqualityComparer.Default);
        foreach (var target in up.Concat(down.Where(d => !up.Contains(d, SymbolEqualityComparer.Default))))
        {
            var via = SymbolEqualityComparer.Default.Equals(target, s) ? null : target.ToDisplayString();
            // a base call (`base.M()`) to an override below s runs that override: only upward ones are dropped
            var upward = via is not null && !downward.Contains(target);
            foreach (var info in await SymbolFinder.FindCallersAsync(target, solution))
            {
                if (!info.IsDirect) continue;
                var caller = info.CallingSymbol;
                // A lambda is not a caller of its own; its enclosing member is.
                while (caller is IMethodSymbol { MethodKind: MethodKind.AnonymousFunction } && caller.ContainingSymbol is not null) caller = caller.ContainingSymbol;
                var decl = caller.Locations.Select(l => LocOf(w, l)).OfType<Loc>().OrderBy(l => l.Key, StringComparer.Ordinal).FirstOrDefault();
                if (decl is null) continue;
                // `base.M()` does not dispatch: through a base member it calls only that member.
                var sites = info.Locations.Where(l => !upward || !IsBaseCall(l)).Select(l => LocOf(w, l)).OfType<Loc>().ToList();
                if (sites.Count == 0) continue;
                if (!rows.TryGetValue(decl.Key, out var row)) rows[decl.Key] = row = (decl, new List<Loc>(), via);
                row.sites.AddRange(sites);
                if (via is null && row.via is not null) rows[decl.Key] = (row.caller, row.sites, null);
            }
        }
        return rows.Values.ToList();
    }
}
