// Source generators the host runs: the SDK's (the analyzers its targeting packs list), the restored
// packages' (`analyzers/` of each package the project compiles against) and the workspace's own
// analyzer projects once their DLL exists. Roslyn's workspace runs them while it compiles a project
// (incrementally, in process); their documents live only in memory under a virtual path. Nothing
// is written: analyzer assemblies load in place, each folder in its own load context.
using System.Collections.Immutable;
using System.Reflection;
using System.Runtime.Loader;
using System.Xml.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Diagnostics;

namespace Sextant.RoslynHost;

/// The virtual paths of generated documents: `generated:<project key>/<generator assembly>/<generator
/// type>/<hint name>` — never a workspace file (a scheme, not a path), stable across host runs (made
/// of the project key and what the generator names), and never equal to an `obj/…/generated/` file
/// a build left on disk (those keep their real paths; the host drops them when it runs their generator).
public static class GeneratedPaths
{
    public const string Scheme = "generated:";
    /// The folder Roslyn is told to put a project's generated trees under (CompilationOutputInfo):
    /// it never exists and nothing reads it; a tree path under it maps to the virtual path.
    const string SentinelRoot = "/sextant-generated-virtual/";

    public static string OutputDirectory(string key) => SentinelRoot + Uri.EscapeDataString(key);

    public static bool IsSentinel(string path) => path.StartsWith(SentinelRoot, StringComparison.Ordinal);

    public static bool IsVirtual(string path) => path.StartsWith(Scheme, StringComparison.Ordinal);

    /// A generated tree's path (under the sentinel folder) → its virtual path; null for any other path.
    public static string? ToVirtual(string treePath)
    {
        if (!IsSentinel(treePath)) return null;
        var rest = treePath[SentinelRoot.Length..];
        var slash = rest.IndexOf('/');
        if (slash <= 0) return null;
        return Scheme + Uri.UnescapeDataString(rest[..slash]) + rest[slash..];
    }

    /// A virtual path → the project key, and the tree path Roslyn gave the document.
    public static bool TryParse(string virtualPath, out string key, out string treePath)
    {
        key = treePath = "";
        if (!IsVirtual(virtualPath)) return false;
        var body = virtualPath[Scheme.Length..];
        var bar = body.IndexOf('|');
        var slash = bar < 0 ? -1 : body.IndexOf('/', bar);
        if (slash <= 0) return false;
        key = body[..slash];
        treePath = OutputDirectory(key) + body[slash..];
        return true;
    }

    /// The generator type a virtual path names (`<assembly>/<type>/<hint>` after the key).
    public static string? GeneratorOf(string virtualPath)
    {
        if (!TryParse(virtualPath, out var key, out _)) return null;
        var parts = virtualPath[(Scheme.Length + key.Length + 1)..].Split('/');
        return parts.Length >= 3 ? parts[1] : null;
    }
}

/// One analyzer assembly as the host knows it: its generators (none: not worth running), or why it could not be loaded.
public sealed class GeneratorAssembly
{
    public required string Path;
    public required string Name;
    public Version Version = new(0, 0);
    public AnalyzerReference? Reference;
    public int Generators;
    public string? Failure;
}

/// The analyzer assemblies of every project: loaded once per file (path + size + time), generators only.
public sealed class GeneratorCatalog
{
    /// SEXTANT_ROSLYN_NO_GENERATORS=1: no generator runs (the host as before, for comparisons).
    public static readonly bool Disabled = Environment.GetEnvironmentVariable("SEXTANT_ROSLYN_NO_GENERATORS") == "1";

    /// Generators the SDK — and the packages shipping them (Microsoft.Extensions.Configuration.Binder's
    /// build targets) — remove unless a project property asks for them (their MSBuild property in
    /// brackets); the host has no property values, so they stay off, as in a default build.
    static readonly HashSet<string> OptIn = new(StringComparer.OrdinalIgnoreCase)
    {
        "Microsoft.AspNetCore.Http.RequestDelegateGenerator", // EnableRequestDelegateGenerator
        "Microsoft.Extensions.Configuration.Binder.SourceGeneration", // EnableConfigurationBindingGenerator
    };

    /// The SDK's generators and the names a file must mention for them to generate anything (their
    /// trigger attributes): every net5+ project gets them from its targeting pack, and on a workspace
    /// where no file uses them they only cost (measured on 3,000 generated projects: ensure 2.3x,
    /// warm references CPU 2x). A project whose description lists none of a generator's names
    /// (`generatorTriggers`: the engine's text index says which its files mention) does not get it;
    /// a description without the list gets every generator. Other package and workspace generators
    /// always run (a project that references them uses them).
    public static readonly Dictionary<string, string[]> SdkTriggers = new(StringComparer.OrdinalIgnoreCase)
    {
        ["System.Text.RegularExpressions.Generator"] = new[] { "GeneratedRegex", "GeneratedRegexAttribute" },
        ["Microsoft.Extensions.Logging.Generators"] = new[] { "LoggerMessage", "LoggerMessageAttribute" },
        ["System.Text.Json.SourceGeneration"] = new[] { "JsonSerializable", "JsonSerializableAttribute" },
        ["Microsoft.Interop.LibraryImportGenerator"] = new[] { "LibraryImport", "LibraryImportAttribute" },
        ["Microsoft.Interop.ComInterfaceGenerator"] = new[] { "GeneratedComInterface", "GeneratedComInterfaceAttribute", "GeneratedComClass", "GeneratedComClassAttribute" },
        ["Microsoft.Interop.JavaScript.JSImportGenerator"] = new[] { "JSImport", "JSImportAttribute", "JSExport", "JSExportAttribute" },
        ["Microsoft.Extensions.Options.SourceGeneration"] = new[] { "OptionsValidator", "OptionsValidatorAttribute" },
        ["Microsoft.Extensions.Validation.ValidationsGenerator"] = new[] { "AddValidation", "ValidatableType", "ValidatableTypeAttribute" },
    };

    /// Every trigger name (initialize's `generatorTriggers`: the names the engine reports per project).
    public static IEnumerable<string> AllTriggers => SdkTriggers.Values.SelectMany(x => x).Distinct(StringComparer.Ordinal).OrderBy(x => x, StringComparer.Ordinal);

    readonly Dictionary<string, (long len, DateTime mtime, GeneratorAssembly a)> byPath = new(StringComparer.Ordinal);
    readonly Dictionary<string, List<string>> packMemo = new(StringComparer.Ordinal);
    readonly Dictionary<string, AnalyzerLoadContext> contexts = new(StringComparer.Ordinal);

    /// The C# analyzers a targeting pack lists (data/FrameworkList.xml, Type="Analyzer").
    public List<string> PackAnalyzers(string packDir)
    {
        if (packMemo.TryGetValue(packDir, out var memo)) return memo;
        var list = new List<string>();
        try
        {
            var xml = Path.Combine(packDir, "data", "FrameworkList.xml");
            if (File.Exists(xml))
                foreach (var f in XDocument.Load(xml).Descendants("File"))
                {
                    if ((string?)f.Attribute("Type") != "Analyzer") continue;
                    var lang = (string?)f.Attribute("Language");
                    if (lang != null && !lang.Equals("cs", StringComparison.OrdinalIgnoreCase)) continue;
                    var rel = (string?)f.Attribute("Path");
                    if (rel == null || OptIn.Contains(System.IO.Path.GetFileNameWithoutExtension(rel))) continue;
                    var abs = System.IO.Path.Combine(packDir, rel);
                    if (File.Exists(abs) && !list.Contains(abs)) list.Add(abs);
                }
        }
        catch (Exception e) { HostState.Log($"generators: {packDir}/data/FrameworkList.xml unreadable: {e.Message}"); }
        packMemo[packDir] = list;
        return list;
    }

    /// The Roslyn version analyzers are chosen for (a package's `analyzers/dotnet/roslyn<X.Y>/cs/`).
    static readonly Version Compiler = CompilerVersion();
    static Version CompilerVersion()
    {
        var v = typeof(Compilation).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion?.Split('+', '-')[0];
        return v != null && Version.TryParse(v, out var parsed) ? parsed : new Version(4, 0);
    }

    /// A package's C# analyzer files (package-relative), as NuGet picks them: the highest
    /// `analyzers/dotnet/roslyn<X.Y>/cs/` not above this compiler, else `analyzers/dotnet/cs/`, else
    /// `analyzers/dotnet/`; satellite resources left out.
    public static List<string> PackageAnalyzerFiles(IEnumerable<string> files)
    {
        var dlls = files.Select(f => f.Replace('\\', '/')).Where(f => f.StartsWith("analyzers/dotnet/", StringComparison.OrdinalIgnoreCase) && f.EndsWith(".dll", StringComparison.OrdinalIgnoreCase) && !f.EndsWith(".resources.dll", StringComparison.OrdinalIgnoreCase)).ToList();
        if (dlls.Count == 0) return dlls;
        Version? best = null;
        foreach (var f in dlls)
        {
            var parts = f.Split('/');
            if (parts.Length == 5 && parts[2].StartsWith("roslyn", StringComparison.OrdinalIgnoreCase) && parts[3].Equals("cs", StringComparison.OrdinalIgnoreCase)
                && Version.TryParse(parts[2]["roslyn".Length..], out var v) && v <= Compiler && (best == null || v > best)) best = v;
        }
        if (best != null) return dlls.Where(f => f.Split('/') is { Length: 5 } p && p[2].Equals("roslyn" + best.ToString(2), StringComparison.OrdinalIgnoreCase) && p[3].Equals("cs", StringComparison.OrdinalIgnoreCase)).ToList();
        var cs = dlls.Where(f => f.Split('/') is { Length: 4 } p && p[2].Equals("cs", StringComparison.OrdinalIgnoreCase)).ToList();
        if (cs.Count > 0) return cs;
        return dlls.Where(f => f.Split('/').Length == 3).ToList();
    }

    /// The generator references of a project: the analyzers its resolution found (SDK packs,
    /// packages) and its own (description), one per assembly name (the highest version wins, as the
    /// SDK's conflict resolution does), those with no generator left out. Problems are reported.
    public (List<AnalyzerReference> refs, HashSet<string> names, List<Unresolved> problems) For(IEnumerable<string> sdkPaths, IEnumerable<string> otherPaths, List<string>? triggers)
    {
        var mentioned = triggers == null ? null : new HashSet<string>(triggers, StringComparer.Ordinal);
        // The same rules hold for a package's copy of an SDK generator (Microsoft.Extensions.Logging.Abstractions
        // ships the LoggerMessage generator, Microsoft.Extensions.Configuration.Binder the binding one):
        // its package's build targets remove an opt-in generator unless the property asks for it, and a
        // trigger-bound one generates nothing in a project whose files never name its attributes.
        bool Runs(string p)
        {
            var n = System.IO.Path.GetFileNameWithoutExtension(p);
            if (OptIn.Contains(n)) return false;
            return mentioned == null || !SdkTriggers.TryGetValue(n, out var t) || t.Any(mentioned.Contains);
        }
        var candidatePaths = sdkPaths.Concat(otherPaths).Where(Runs);
        var refs = new List<AnalyzerReference>();
        var names = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        var problems = new List<Unresolved>();
        if (Disabled) return (refs, names, problems);
        var chosen = new Dictionary<string, GeneratorAssembly>(StringComparer.OrdinalIgnoreCase);
        foreach (var p in candidatePaths.Distinct(StringComparer.Ordinal))
        {
            var a = Load(p);
            if (a == null) continue;
            if (a.Failure != null) { problems.Add(new Unresolved { Kind = "generator", Name = a.Name, Reason = a.Failure }); continue; }
            if (a.Generators == 0) continue;
            if (!chosen.TryGetValue(a.Name, out var have) || a.Version > have.Version) chosen[a.Name] = a;
        }
        foreach (var a in chosen.Values.OrderBy(x => x.Name, StringComparer.Ordinal)) { refs.Add(a.Reference!); names.Add(a.Name); }
        return (refs, names, problems);
    }

    /// One analyzer file, loaded once per version of it (null: the file does not exist).
    GeneratorAssembly? Load(string path)
    {
        FileInfo fi;
        try { fi = new FileInfo(path); } catch { return null; }
        if (!fi.Exists) return null;
        if (byPath.TryGetValue(path, out var c) && c.len == fi.Length && c.mtime == fi.LastWriteTimeUtc) return c.a;
        var a = new GeneratorAssembly { Path = path, Name = System.IO.Path.GetFileNameWithoutExtension(path) };
        try
        {
            var an = AssemblyName.GetAssemblyName(path);
            a.Name = an.Name ?? a.Name;
            a.Version = an.Version ?? a.Version;
            // a rebuilt analyzer project's DLL gets a fresh context (the old assembly stays loaded)
            var dir = System.IO.Path.GetDirectoryName(path)!;
            var ctxKey = $"{dir}|{fi.Length}|{fi.LastWriteTimeUtc.Ticks}";
            if (!contexts.TryGetValue(ctxKey, out var ctx)) contexts[ctxKey] = ctx = new AnalyzerLoadContext(dir);
            var reference = new AnalyzerFileReference(path, ctx);
            string? failure = null;
            reference.AnalyzerLoadFailed += (_, e) => failure ??= $"{e.ErrorCode}: {e.Message}";
            var gens = reference.GetGenerators(LanguageNames.CSharp);
            a.Generators = gens.Length;
            a.Reference = reference;
            if (failure != null && gens.Length == 0) a.Failure = $"could not be loaded ({failure}); its generated code is missing";
        }
        catch (Exception e) { a.Failure = $"could not be loaded ({e.GetType().Name}: {e.Message}); its generated code is missing"; }
        if (a.Failure != null) HostState.Log($"generators: {path}: {a.Failure}");
        else if (a.Generators > 0) HostState.Log($"generators: {a.Name} {a.Version}: {a.Generators} generator(s)");
        byPath[path] = (fi.Length, fi.LastWriteTimeUtc, a);
        return a;
    }

    /// Exceptions generators threw while compiling a project (Roslyn keeps them in the run result of
    /// the compilation, internal in 5.x: reached by reflection; nothing when it is not there).
    public static async Task<List<(string generator, string error)>> Failures(Project p, CancellationToken ct)
    {
        var list = new List<(string, string)>();
        if (runResult == null) return list;
        try
        {
            var vt = runResult.Invoke(p, new object[] { ct })!;
            var task = (Task)vt.GetType().GetMethod("AsTask")!.Invoke(vt, null)!;
            await task;
            if (task.GetType().GetProperty("Result")?.GetValue(task) is not GeneratorDriverRunResult r) return list;
            foreach (var g in r.Results)
                if (g.Exception is Exception e) list.Add((g.Generator.GetGeneratorType().FullName ?? "?", $"{e.GetType().Name}: {e.Message}"));
        }
        catch (Exception e) when (e is not OperationCanceledException) { HostState.Log($"generators: run result of {p.Name}: {e.Message}"); }
        return list;
    }

    static readonly MethodInfo? runResult = typeof(Project).GetMethod("GetSourceGeneratorRunResultAsync", BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.Public, new[] { typeof(CancellationToken) });
}

/// Loads an analyzer and the assemblies beside it from its own folder; Roslyn itself (and what the
/// host already has) comes from the host, so the generator's types are the compiler's.
sealed class AnalyzerLoadContext : AssemblyLoadContext, IAnalyzerAssemblyLoader
{
    readonly string dir;
    public AnalyzerLoadContext(string dir) : base($"analyzers {dir}") { this.dir = dir; }

    public void AddDependencyLocation(string fullPath) { }

    public Assembly LoadFromPath(string fullPath) => LoadFromAssemblyPath(fullPath);

    protected override Assembly? Load(AssemblyName name)
    {
        if (name.Name == null || name.Name.StartsWith("Microsoft.CodeAnalysis", StringComparison.Ordinal)) return null;
        if (Default.Assemblies.Any(a => a.GetName().Name == name.Name)) return null;
        var beside = System.IO.Path.Combine(dir, name.Name + ".dll");
        return File.Exists(beside) ? LoadFromAssemblyPath(beside) : null;
    }
}
