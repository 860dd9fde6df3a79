// Framework and package symbols as source: a metadata type decompiled to C# with
// ICSharpCode.Decompiler (MIT), XML docs from the assembly's .xml beside it, under a virtual path
// `decompiled:<assembly>@<version>/<top-level type>.cs` that the engine reads back like a file
// (documents/source). Deterministic (same assembly, same text), so lines are stable across runs.
// Reference assemblies have no bodies: their members read `throw null`, which the header says.
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using ICSharpCode.Decompiler;
using ICSharpCode.Decompiler.CSharp;
using ICSharpCode.Decompiler.CSharp.OutputVisitor;
using ICSharpCode.Decompiler.CSharp.Syntax;
using ICSharpCode.Decompiler.Documentation;
using ICSharpCode.Decompiler.Metadata;
using ICSharpCode.Decompiler.TypeSystem;
using Microsoft.CodeAnalysis;
using ISymbol = Microsoft.CodeAnalysis.ISymbol;
using INamedTypeSymbol = Microsoft.CodeAnalysis.INamedTypeSymbol;
using IMethodSymbol = Microsoft.CodeAnalysis.IMethodSymbol;

namespace Sextant.RoslynHost;

/// Where a metadata assembly came from: the file, and the package (or targeting pack) holding it.
public sealed class MetadataOrigin
{
    public string Assembly { get; set; } = "";
    public string AssemblyVersion { get; set; } = "";
    public string? Package { get; set; }
    public string? PackageVersion { get; set; }
    /// "package" | "framework" (a targeting pack of the SDK) | "reference" (any other file)
    public string Kind { get; set; } = "reference";
    public string File { get; set; } = "";
}

/// One decompiled type: its text and where each member's declaration is in it (by documentation id).
public sealed class DecompiledView
{
    public required string Path;
    public required string Text;
    public required MetadataOrigin Origin;
    public readonly Dictionary<string, (Span name, Span full)> Members = new(StringComparer.Ordinal);
    /// The same declarations by their id without a return-type suffix (Decompiled.LooseId).
    public readonly Dictionary<string, (Span name, Span full)> ByLooseId = new(StringComparer.Ordinal);
}

public sealed class Decompiled
{
    public const string Scheme = "decompiled:";
    /// Decompiled types kept (LRU): a definition and the source_context that follows read the same one.
    const int KeptViews = 32;

    readonly HostState h;
    readonly LinkedList<DecompiledView> kept = new();
    /// assembly name@version → the reference file it was read from (to decompile a path asked for later)
    readonly Dictionary<string, string> files = new(StringComparer.OrdinalIgnoreCase);

    public Decompiled(HostState state) { h = state; }

    public static bool IsVirtual(string path) => path.StartsWith(Scheme, StringComparison.Ordinal);

    static string PathOf(string assembly, string version, string typeName) => $"{Scheme}{assembly}@{version}/{typeName}.cs";

    /// The top-level type holding a symbol (itself when it is one), in metadata notation (`Ns.List`1`).
    static INamedTypeSymbol? TopLevel(ISymbol s)
    {
        var t = s as INamedTypeSymbol ?? s.ContainingType;
        while (t?.ContainingType != null) t = t.ContainingType;
        return t;
    }

    /// A documentation id without its `~ReturnType` suffix, except a conversion operator's (overloaded by return type).
    public static string LooseId(string id)
    {
        var tilde = id.IndexOf('~');
        return tilde < 0 || id.Contains(".op_Implicit", StringComparison.Ordinal) || id.Contains(".op_Explicit", StringComparison.Ordinal) ? id : id[..tilde];
    }

    static string MetadataName(INamedTypeSymbol t) => t.ContainingNamespace is { IsGlobalNamespace: false } ns ? ns.ToDisplayString() + "." + t.MetadataName : t.MetadataName;

    /// Where a metadata symbol's declaration is in its decompiled type (the name, and the whole declaration).
    public (string path, Span name, Span full, MetadataOrigin origin)? Locate(ISymbol s, Compilation comp)
    {
        if (s.Locations.Any(l => l.IsInSource) || TopLevel(s) is not INamedTypeSymbol top) return null;
        if (comp.GetMetadataReference(s.ContainingAssembly) is not PortableExecutableReference { FilePath: string file })
        {
            HostState.Log($"decompile: no metadata file for {s.ContainingAssembly?.Identity} in {comp.AssemblyName}");
            return null;
        }
        var view = View(file, MetadataName(top));
        if (view == null) return null;
        var id = Queries.DocId(s is IMethodSymbol { ReducedFrom: { } r } ? r : s.OriginalDefinition);
        if (id != null && view.Members.TryGetValue(id, out var at)) return (view.Path, at.name, at.full, view.Origin);
        // Roslyn's id can carry the return type (`…WhenAll(…)~System.Threading.Tasks.Task`) where the
        // decompiler's has none: compare without it (a conversion operator keeps its own)
        if (id != null && view.ByLooseId.TryGetValue(LooseId(id), out var loose)) return (view.Path, loose.name, loose.full, view.Origin);
        if (id != null && s is not INamedTypeSymbol) HostState.Log($"decompile: {id} not among the {view.Members.Count} declarations of {view.Path}: answered at its type");
        var tid = Queries.DocId(s as INamedTypeSymbol ?? (ISymbol?)s.ContainingType ?? top);
        if (tid != null && view.Members.TryGetValue(tid, out var tat)) return (view.Path, tat.name, tat.full, view.Origin);
        if (view.Members.TryGetValue(Queries.DocId(top) ?? "", out var top0)) return (view.Path, top0.name, top0.full, view.Origin);
        HostState.Log($"decompile: {id ?? tid} not among the {view.Members.Count} declarations of {view.Path}");
        return null;
    }

    /// The text of a decompiled virtual path (null: not one this host can read back).
    public DecompiledView? Read(string virtualPath)
    {
        foreach (var v in kept) if (v.Path == virtualPath) return Keep(v);
        if (!IsVirtual(virtualPath)) return null;
        var body = virtualPath[Scheme.Length..];
        var slash = body.IndexOf('/');
        if (slash <= 0 || !body.EndsWith(".cs", StringComparison.Ordinal)) return null;
        var asm = body[..slash];
        var typeName = body[(slash + 1)..^3];
        if (!files.TryGetValue(asm, out var file))
        {
            // asked before any definition in this process (a path from an earlier answer): look the
            // assembly up in what the known projects reference
            var at = asm.LastIndexOf('@');
            if (at <= 0) return null;
            var name = asm[..at];
            foreach (var kp in h.Known.Values)
                foreach (var p in kp.Res.Paths)
                    if (System.IO.Path.GetFileNameWithoutExtension(p).Equals(name, StringComparison.OrdinalIgnoreCase) && Identity(p) is { } id && $"{id.name}@{id.version}".Equals(asm, StringComparison.OrdinalIgnoreCase)) { file = p; break; }
            if (file == null) return null;
        }
        return View(file, typeName);
    }

    static (string name, string version)? Identity(string file)
    {
        try
        {
            var an = System.Reflection.AssemblyName.GetAssemblyName(file);
            return (an.Name ?? System.IO.Path.GetFileNameWithoutExtension(file), an.Version?.ToString() ?? "0.0.0.0");
        }
        catch { return null; }
    }

    DecompiledView Keep(DecompiledView v)
    {
        kept.Remove(v);
        kept.AddFirst(v);
        while (kept.Count > KeptViews) kept.RemoveLast();
        return v;
    }

    DecompiledView? View(string file, string typeName)
    {
        var ident = Identity(file);
        if (ident == null) { HostState.Log($"decompile: {file} has no assembly identity"); return null; }
        var path = PathOf(ident.Value.name, ident.Value.version, typeName);
        foreach (var v in kept) if (v.Path == path) return Keep(v);
        files[$"{ident.Value.name}@{ident.Value.version}"] = file;
        try
        {
            var settings = new DecompilerSettings(LanguageVersion.Latest) { ThrowOnAssemblyResolveErrors = false, ShowXmlDocumentation = true };
            using var pe = new PEFile(file, new FileStream(file, FileMode.Open, FileAccess.Read, FileShare.ReadWrite), PEStreamOptions.PrefetchEntireImage);
            var resolver = new UniversalAssemblyResolver(file, false, pe.DetectTargetFrameworkId());
            // the project's other references (a package's dependencies live in other folders)
            foreach (var dir in h.Known.Values.Where(k => k.Res.Paths.Contains(file)).Take(1).SelectMany(k => k.Res.Paths).Select(System.IO.Path.GetDirectoryName).Distinct())
                if (dir != null) resolver.AddSearchDirectory(dir);
            var dec = new CSharpDecompiler(pe, resolver, settings) { DocumentationProvider = XmlDocLoader.LoadDocumentation(pe) };
            var tree = dec.DecompileType(new FullTypeName(typeName));
            var sw = new StringWriter();
            tree.AcceptVisitor(new CSharpOutputVisitor(TokenWriter.CreateWriterThatSetsLocationsInAST(sw, "    "), settings.CSharpFormattingOptions));
            var origin = Origin(file, ident.Value.name, ident.Value.version);
            var header = $"// {origin.Assembly} {origin.AssemblyVersion}{(origin.Package != null ? $" from {origin.Package} {origin.PackageVersion}" : "")}: decompiled from metadata{(IsReferenceAssembly(pe) ? " (a reference assembly: member bodies are not in it)" : "")}\n";
            var view = new DecompiledView { Path = path, Text = header + sw, Origin = origin };
            foreach (var e in tree.Descendants.OfType<EntityDeclaration>())
            {
                if (e.GetSymbol() is not IEntity ent) continue;
                var id = IdStringProvider.GetIdString(ent);
                Identifier? tok = null;
                try { tok = e.NameToken; } catch (NullReferenceException) { }
                var named = tok != null && !tok.StartLocation.IsEmpty;
                var name = named ? tok!.StartLocation : e.StartLocation;
                var nameEnd = named ? tok!.EndLocation : e.StartLocation;
                // +1 line: the header
                var spans = (new Span { Line = name.Line + 1, Column = name.Column, EndLine = nameEnd.Line + 1, EndColumn = nameEnd.Column },
                    new Span { Line = e.StartLocation.Line + 1, Column = e.StartLocation.Column, EndLine = e.EndLocation.Line + 1, EndColumn = e.EndLocation.Column });
                view.Members.TryAdd(id, spans);
                view.ByLooseId.TryAdd(LooseId(id), spans);
            }
            return Keep(view);
        }
        catch (Exception e)
        {
            HostState.Log($"decompile {typeName} from {file}: {e}");
            return null;
        }
    }

    static bool IsReferenceAssembly(PEFile pe)
    {
        var md = pe.Metadata;
        foreach (var h in md.GetAssemblyDefinition().GetCustomAttributes())
        {
            var a = md.GetCustomAttribute(h);
            if (a.Constructor.Kind == HandleKind.MemberReference && md.GetMemberReference((MemberReferenceHandle)a.Constructor).Parent is { Kind: HandleKind.TypeReference } parent
                && md.GetString(md.GetTypeReference((TypeReferenceHandle)parent).Name) == "ReferenceAssemblyAttribute") return true;
        }
        return false;
    }

    /// The package or targeting pack a reference file is in (from its folder: `<packages>/<id>/<version>/…`,
    /// `<dotnet>/packs/<pack>/<version>/…`).
    public MetadataOrigin Origin(string file, string assembly, string version)
    {
        var o = new MetadataOrigin { Assembly = assembly, AssemblyVersion = version, File = file };
        var f = file.Replace('\\', '/');
        var packs = h.Resolver?.DotnetRoot is string root ? root.Replace('\\', '/').TrimEnd('/') + "/packs/" : null;
        if (packs != null && f.StartsWith(packs, StringComparison.Ordinal))
        {
            var parts = f[packs.Length..].Split('/');
            if (parts.Length > 2) { o.Package = parts[0]; o.PackageVersion = parts[1]; o.Kind = "framework"; }
            return o;
        }
        // a package folder: the nuspec two or more levels up names the id as published
        var dir = System.IO.Path.GetDirectoryName(f);
        for (var i = 0; i < 5 && dir != null; i++, dir = System.IO.Path.GetDirectoryName(dir))
        {
            var nuspec = Directory.Exists(dir) ? Directory.GetFiles(dir, "*.nuspec").FirstOrDefault() : null;
            if (nuspec == null) continue;
            try
            {
                var x = System.Xml.Linq.XDocument.Load(nuspec);
                var md = x.Root?.Elements().FirstOrDefault(e => e.Name.LocalName == "metadata");
                o.Package = md?.Elements().FirstOrDefault(e => e.Name.LocalName == "id")?.Value ?? System.IO.Path.GetFileName(System.IO.Path.GetDirectoryName(dir));
                o.PackageVersion = md?.Elements().FirstOrDefault(e => e.Name.LocalName == "version")?.Value ?? System.IO.Path.GetFileName(dir);
                o.Kind = "package";
            }
            catch { }
            break;
        }
        return o;
    }
}
