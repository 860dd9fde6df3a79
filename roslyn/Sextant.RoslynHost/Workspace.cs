// The ONE live Roslyn workspace: projects built from the engine's descriptions (no MSBuild),
// documents loaded lazily from disk, grown and shrunk in place, LRU eviction under a memory cap.
using System.Collections.Immutable;
using System.Diagnostics;
using System.Text;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Host.Mef;
using Microsoft.CodeAnalysis.Text;

namespace Sextant.RoslynHost;

/// The one live workspace (never replaced; its solution snapshots are forked in place).
public sealed class HostWorkspace : Workspace
{
    public HostWorkspace() : base(MefHostServices.DefaultHost, "Sextant") { }
    public void Set(Solution s) { if (!ReferenceEquals(s, CurrentSolution)) SetCurrentSolution(s); }
    /// Solution.AddProject forks the compilation trackers of every project (adding 3,000 one by one
    /// took 20-70 s); a snapshot built from one SolutionInfo takes well under a second.
    public void Rebuild(IEnumerable<ProjectInfo> all) { ClearSolution(); OnSolutionAdded(SolutionInfo.Create(SolutionId.CreateNewId(), VersionStamp.Create(), projects: all)); }
}

public sealed class KnownProject
{
    public required ProjectDescription Desc;
    public required ProjectId Id;
    public Resolution Res = new();
    public EnsureResult Result = new();
    public long LastUsed;
    /// A query has touched it (its compilation may be built and held).
    public bool Touched;
    public HashSet<string> GeneratedPaths = new(StringComparer.Ordinal);
    public ProjectInfo? Info;
    /// The source generators it runs (Generators.cs) and their assembly names.
    public List<Microsoft.CodeAnalysis.Diagnostics.AnalyzerReference> GeneratorRefs = new();
    public HashSet<string> GeneratorNames = new(StringComparer.OrdinalIgnoreCase);
}

public sealed class HostState
{
    public readonly HostWorkspace Workspace = new();
    public readonly Dictionary<string, KnownProject> Known = new(StringComparer.Ordinal);
    readonly Dictionary<string, ProjectId> ids = new(StringComparer.Ordinal);
    readonly Dictionary<ProjectId, string> keyOf = new();
    /// absolute path → keys of projects listing it
    readonly Dictionary<string, List<string>> docsByPath = new(StringComparer.Ordinal);
    readonly Dictionary<string, PortableExecutableReference> metadataCache = new(StringComparer.Ordinal);
    public readonly SemaphoreSlim Gate = new(1, 1);
    /// absolute path → an editor's unsaved text (documents/changed with `text`), used instead of the disk
    public readonly Dictionary<string, string> Buffers = new(StringComparer.Ordinal);
    public string Root = "/";
    public int MemoryCapMb = 4096;
    public Resolver? Resolver;
    public readonly GeneratorCatalog Generators = new();
    Decompiled? decompiled;
    /// Metadata types decompiled for definitions and documents/source (Decompiled.cs).
    public Decompiled Decompiled => decompiled ??= new Decompiled(this);
    public long Tick;
    public int Evictions;
    public int Queries;
    public readonly Stopwatch Uptime = Stopwatch.StartNew();
    List<string>? topo;

    public static void Log(string msg) => Console.Error.WriteLine($"[roslyn-host {DateTime.UtcNow:HH:mm:ss.fff}] {msg}");

    public string Abs(string p)
    {
        if (string.IsNullOrEmpty(p)) return p;
        if (GeneratedPaths.TryParse(p, out _, out var tree)) return tree;
        var full = Path.IsPathRooted(p) ? p : Path.Combine(Root, p);
        return Path.GetFullPath(full).Replace('\\', '/');
    }

    public (string path, bool external) Rel(string abs)
    {
        var a = abs.Replace('\\', '/');
        if (GeneratedPaths.ToVirtual(a) is string virt) return (virt, false);
        var r = Root.TrimEnd('/') + "/";
        return a.StartsWith(r, StringComparison.Ordinal) ? (a[r.Length..], false) : (a, true);
    }

    public ProjectId IdFor(string key)
    {
        if (!ids.TryGetValue(key, out var id))
        {
            id = ProjectId.CreateNewId(key);
            ids[key] = id;
            keyOf[id] = key;
        }
        return id;
    }

    public string? KeyOf(ProjectId id) => keyOf.TryGetValue(id, out var k) ? k : null;

    public IReadOnlyList<string> KeysForPath(string absPath) => docsByPath.TryGetValue(absPath, out var l) ? l : Array.Empty<string>();

    public static long WorkingSetMb() => Environment.WorkingSet / (1024 * 1024);
    public static long GcHeapMb() => GC.GetTotalMemory(false) / (1024 * 1024);

    PortableExecutableReference Metadata(string path)
    {
        if (metadataCache.TryGetValue(path, out var m)) return m;
        var xml = Path.ChangeExtension(path, ".xml");
        DocumentationProvider? docs = File.Exists(xml) ? XmlDocumentationProvider.CreateFromFile(xml) : null;
        m = MetadataReference.CreateFromFile(path, MetadataReferenceProperties.Assembly, docs);
        metadataCache[path] = m;
        return m;
    }

    static LanguageVersion Lang(string? v)
    {
        if (string.IsNullOrWhiteSpace(v)) return LanguageVersion.Latest;
        return LanguageVersionFacts.TryParse(v.Trim(), out var lv) ? lv : LanguageVersion.Latest;
    }

    static NullableContextOptions Nullable(string? v) => (v ?? "").ToLowerInvariant() switch
    {
        "enable" => NullableContextOptions.Enable,
        "warnings" => NullableContextOptions.Warnings,
        "annotations" => NullableContextOptions.Annotations,
        _ => NullableContextOptions.Disable,
    };

    public static bool LooksGenerated(string absPath) =>
        GeneratedPaths.IsSentinel(absPath) || GeneratedPaths.IsVirtual(absPath) || absPath.Contains("/obj/", StringComparison.Ordinal) || absPath.EndsWith(".g.cs", StringComparison.OrdinalIgnoreCase) || absPath.EndsWith(".g.i.cs", StringComparison.OrdinalIgnoreCase);

    public bool IsGenerated(string absPath, ProjectId? pid)
    {
        if (LooksGenerated(absPath)) return true;
        if (pid != null && KeyOf(pid) is string k && Known.TryGetValue(k, out var kp)) return kp.GeneratedPaths.Contains(absPath);
        return false;
    }

    // shared option instances: projects with equal settings share one object
    readonly Dictionary<string, CSharpParseOptions> parseMemo = new(StringComparer.Ordinal);
    readonly Dictionary<(OutputKind, NullableContextOptions, bool, bool), CSharpCompilationOptions> compMemo = new();

    ProjectInfo InfoOf(KnownProject kp) => kp.Info ??= BuildInfo(kp);

    ProjectInfo BuildInfo(KnownProject kp)
    {
        var d = kp.Desc;
        var pid = kp.Id;
        var projectAbs = Abs(d.ProjectPath);
        var projectDir = Path.GetDirectoryName(projectAbs) ?? Root;
        var defines = d.Defines.Where(s => !string.IsNullOrWhiteSpace(s)).Select(s => s.Trim()).Distinct().ToList();
        var pkey = Lang(d.LangVersion) + "|" + string.Join(";", defines);
        if (!parseMemo.TryGetValue(pkey, out var parse))
            parseMemo[pkey] = parse = new CSharpParseOptions(Lang(d.LangVersion), DocumentationMode.Parse, SourceCodeKind.Regular, defines);
        var kind = (d.OutputKind ?? "library").ToLowerInvariant() switch
        {
            "exe" => OutputKind.ConsoleApplication,
            "winexe" => OutputKind.WindowsApplication,
            _ => OutputKind.DynamicallyLinkedLibrary,
        };
        var ckey = (kind, Nullable(d.Nullable), d.AllowUnsafe ?? false, d.CheckForOverflow ?? false);
        if (!compMemo.TryGetValue(ckey, out var comp))
            compMemo[ckey] = comp = new CSharpCompilationOptions(kind, nullableContextOptions: ckey.Item2, allowUnsafe: ckey.Item3, checkOverflow: ckey.Item4);
        var docs = new List<DocumentInfo>();
        kp.GeneratedPaths.Clear();
        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (var doc in d.Documents)
        {
            var abs = Abs(doc.Path);
            if (!seen.Add(abs)) continue;
            var buffered = Buffers.TryGetValue(abs, out var bufferText);
            if (!buffered && !File.Exists(abs)) continue; // a listed file that no longer exists is not a document
            var gen = doc.Generated == true || LooksGenerated(abs);
            // a build's output of a generator the host runs itself would declare everything twice
            if (gen && kp.GeneratorNames.Count > 0 && kp.GeneratorNames.Any(n => abs.Contains("/generated/" + n + "/", StringComparison.OrdinalIgnoreCase))) continue;
            if (gen) kp.GeneratedPaths.Add(abs);
            var logical = doc.LinkPath ?? Path.GetRelativePath(projectDir, abs);
            var folders = logical.Replace('\\', '/').Split('/').SkipLast(1).Where(f => f != ".." && f != ".").ToList();
            docs.Add(DocumentInfo.Create(DocumentId.CreateNewId(pid, abs), Path.GetFileName(abs), folders, SourceCodeKind.Regular,
                buffered ? TextLoader.From(TextAndVersion.Create(SourceText.From(bufferText!, Encoding.UTF8), VersionStamp.Create(), abs)) : new FileTextLoader(abs, new UTF8Encoding(false)),
                abs, gen));
        }
        if (d.GlobalUsings.Count > 0)
        {
            var sb = new StringBuilder("// <auto-generated/> global usings of the project (Sextant host, in memory only)\n");
            foreach (var u in d.GlobalUsings)
            {
                if (string.IsNullOrWhiteSpace(u.Name)) continue;
                var name = u.Name.StartsWith("global::") ? u.Name : "global::" + u.Name;
                if (!string.IsNullOrEmpty(u.Alias)) sb.Append($"global using {u.Alias} = {name};\n");
                else if (u.Static == true) sb.Append($"global using static {name};\n");
                else sb.Append($"global using {name};\n");
            }
            var virt = Path.Combine(projectDir, "obj", $"{d.Name}.SextantGlobalUsings.g.cs").Replace('\\', '/');
            kp.GeneratedPaths.Add(virt);
            docs.Add(DocumentInfo.Create(DocumentId.CreateNewId(pid, virt), Path.GetFileName(virt), Array.Empty<string>(), SourceCodeKind.Regular,
                TextLoader.From(TextAndVersion.Create(SourceText.From(sb.ToString(), Encoding.UTF8), VersionStamp.Create(), virt)), virt, true));
        }
        // The SDK's generated AssemblyInfo grants InternalsVisibleTo from the project's items (protocol
        // 7): without it every use of an internal type from a friend project is inaccessible, bound to
        // nothing, and missing from answers.
        if (d.InternalsVisibleTo is { Count: > 0 } friends)
        {
            var sb = new StringBuilder("// <auto-generated/> InternalsVisibleTo of the project (Sextant host, in memory only)\n");
            foreach (var f in friends)
                if (!string.IsNullOrWhiteSpace(f)) sb.Append($"[assembly: global::System.Runtime.CompilerServices.InternalsVisibleTo(\"{f.Replace("\\", "\\\\").Replace("\"", "\\\"")}\")]\n");
            var virt = Path.Combine(projectDir, "obj", $"{d.Name}.SextantAssemblyInfo.g.cs").Replace('\\', '/');
            kp.GeneratedPaths.Add(virt);
            docs.Add(DocumentInfo.Create(DocumentId.CreateNewId(pid, virt), Path.GetFileName(virt), Array.Empty<string>(), SourceCodeKind.Regular,
                TextLoader.From(TextAndVersion.Create(SourceText.From(sb.ToString(), Encoding.UTF8), VersionStamp.Create(), virt)), virt, true));
        }
        // MSBuild passes the transitive closure of project references to the compiler (SDK default,
        // DisableTransitiveProjectReferences=false): code may use a type of a project it reaches only
        // through another one, and signatures of direct references mention types of theirs.
        var refKeys = Closure(d.ProjectReferences);
        refKeys.UnionWith(d.ProjectReferences);
        refKeys.Remove(d.Key);
        var projRefs = refKeys.OrderBy(k => k, StringComparer.Ordinal).Select(k => new ProjectReference(IdFor(k)));
        var metas = kp.Res.Paths.Select(Metadata).ToList();
        var info = ProjectInfo.Create(pid, VersionStamp.Create(), d.Name, string.IsNullOrEmpty(d.AssemblyName) ? d.Name : d.AssemblyName!, LanguageNames.CSharp,
            filePath: projectAbs, compilationOptions: comp, parseOptions: parse, documents: docs, projectReferences: projRefs, metadataReferences: metas,
            analyzerReferences: kp.GeneratorRefs);
        // generated trees get paths under a folder that never exists, mapped to `generated:` paths
        return kp.GeneratorRefs.Count > 0 ? info.WithCompilationOutputInfo(new CompilationOutputInfo().WithGeneratedFilesOutputDirectory(GeneratedPaths.OutputDirectory(d.Key))) : info;
    }

    public List<EnsureResult> Ensure(List<ProjectDescription> descs, out int loadedCount)
    {
        var results = new List<EnsureResult>();
        var toAdd = new List<KnownProject>();
        var toReplace = new List<KnownProject>();
        var swr = Stopwatch.StartNew();
        foreach (var d in descs)
        {
            if (string.IsNullOrEmpty(d.Key)) { results.Add(new EnsureResult { Key = "", Status = "failed", Error = "Error [BAD_DESCRIPTION]: a project description has no key. Hint: give every description a key." }); continue; }
            if (Known.TryGetValue(d.Key, out var old) && old.Desc.Hash == d.Hash && !string.IsNullOrEmpty(d.Hash))
            {
                old.Result.Status = "unchanged";
                results.Add(old.Result);
                continue;
            }
            var kp = new KnownProject { Desc = d, Id = IdFor(d.Key) };
            topo = null;
            try
            {
                kp.Res = Resolver!.Resolve(d, Abs);
                foreach (var a in d.Analyzers)
                    if (!File.Exists(Abs(a)))
                        kp.Res.Unresolved.Add(new Unresolved { Kind = "analyzer", Name = Path.GetFileName(a), Reason = $"analyzer not built (file not found: {Abs(a)}); dropped" });
                var gens = Generators.For(kp.Res.PackDirs.Distinct().SelectMany(Generators.PackAnalyzers), kp.Res.Analyzers.Concat(d.Analyzers.Select(Abs)), d.GeneratorTriggers);
                kp.GeneratorRefs = gens.refs;
                kp.GeneratorNames = gens.names;
                kp.Res.Unresolved.AddRange(gens.problems);
                kp.Result = new EnsureResult { Key = d.Key, Status = old == null ? "loaded" : "updated", MetadataReferences = kp.Res.Paths.Count, Unresolved = kp.Res.Unresolved, Substitutions = kp.Res.Substitutions };
            }
            catch (Exception e)
            {
                results.Add(new EnsureResult { Key = d.Key, Status = "failed", Error = $"Error [RESOLVE_FAILED]: {e.Message}. Hint: check the description's paths." });
                continue;
            }
            if (old != null) { UnindexDocs(old); toReplace.Add(kp); } else toAdd.Add(kp);
            Known[d.Key] = kp;
            results.Add(kp.Result);
        }
        var resolveMs = swr.ElapsedMilliseconds;
        // unresolved project references (keys never ensured)
        foreach (var kp in toAdd.Concat(toReplace))
            foreach (var r in kp.Desc.ProjectReferences)
                if (!Known.ContainsKey(r))
                    kp.Res.Unresolved.Add(new Unresolved { Kind = "project", Name = r, Reason = "referenced project not ensured (its symbols are missing until it is)" });
        var sol = Workspace.CurrentSolution;
        var swb = Stopwatch.StartNew();
        foreach (var kp in toReplace) if (sol.ContainsProject(kp.Id)) sol = sol.RemoveProject(kp.Id);
        var infos = new List<ProjectInfo>();
        foreach (var kp in toAdd.Concat(toReplace))
        {
            var info = InfoOf(kp);
            kp.Result.Documents = info.Documents.Count;
            infos.Add(info);
            IndexDocs(kp);
        }
        var buildMs = swb.ElapsedMilliseconds;
        if (infos.Count > 0) AddInfos(sol, infos);
        Log($"ensure: resolve {resolveMs} ms, infos {buildMs} ms, add {swb.ElapsedMilliseconds - buildMs} ms");
        loadedCount = infos.Count;
        if (infos.Count > 0) topo = null;
        return results;
    }

    void IndexDocs(KnownProject kp)
    {
        foreach (var doc in kp.Desc.Documents)
        {
            var abs = Abs(doc.Path);
            if (!docsByPath.TryGetValue(abs, out var l)) docsByPath[abs] = l = new List<string>();
            if (!l.Contains(kp.Desc.Key)) l.Add(kp.Desc.Key);
        }
    }

    void UnindexDocs(KnownProject kp)
    {
        foreach (var doc in kp.Desc.Documents)
            if (docsByPath.TryGetValue(Abs(doc.Path), out var l)) l.Remove(kp.Desc.Key);
    }

    /// Drop loaded state (compilations, trees, texts) of projects; they stay known and reload by need.
    public int Reset(IEnumerable<string> keys, bool forget)
    {
        var sol = Workspace.CurrentSolution;
        var infos = new List<ProjectInfo>();
        var n = 0;
        var remove = keys.Distinct().Where(Known.ContainsKey).Select(k => Known[k].Id).Where(sol.ContainsProject).ToList();
        sol = BatchAdd.TryRemove(sol, remove) ?? remove.Aggregate(sol, (s, id) => s.RemoveProject(id));
        foreach (var k in keys.Distinct().ToList())
        {
            if (!Known.TryGetValue(k, out var kp)) continue;
            n++;
            if (forget) { UnindexDocs(kp); Known.Remove(k); topo = null; continue; }
            kp.Touched = false;
            // an editor buffer lives in the solution only: rebuild the info so the reload keeps it
            if (Buffers.Count > 0 && kp.Desc.Documents.Any(doc => Buffers.ContainsKey(Abs(doc.Path)))) kp.Info = null;
            infos.Add(InfoOf(kp));
        }
        AddInfos(sol, infos);
        return n;
    }

    /// Adds projects to the live solution: one by one while few, else a fresh snapshot of every
    /// known project (the projects a query already compiled then recompile on their next use).
    void AddInfos(Solution sol, List<ProjectInfo> infos)
    {
        // Growth keeps the compiled state of every loaded project: a batch add (one fork of the
        // solution for the whole batch) when Roslyn has it, else one by one while few, else (a
        // fallback with many projects) a rebuilt snapshot.
        if (infos.Count > 0 && BatchAdd.TryAdd(sol, TopoSorted(infos).ToList()) is Solution batched)
        {
            Workspace.Set(batched);
            return;
        }
        if (infos.Count <= RebuildThreshold)
        {
            foreach (var info in TopoSorted(infos)) sol = sol.AddProject(info);
            Workspace.Set(sol);
            return;
        }
        foreach (var kp in Known.Values) kp.Touched = false;
        Workspace.Rebuild(Known.Values.Select(InfoOf).ToList());
        Log($"solution rebuilt: {Workspace.CurrentSolution.ProjectIds.Count} projects, {Workspace.CurrentSolution.Projects.Sum(p => p.DocumentIds.Count)} documents");
    }

    /// Above this many projects in one change the solution is rebuilt from one SolutionInfo.
    const int RebuildThreshold = 48;

    IEnumerable<ProjectInfo> TopoSorted(List<ProjectInfo> infos)
    {
        var byId = infos.ToDictionary(i => i.Id);
        var order = TopoOrder();
        return order.Select(k => Known[k].Id).Where(byId.ContainsKey).Select(id => byId[id]).Concat(infos.Where(i => KeyOf(i.Id) is not string k || !Known.ContainsKey(k)));
    }

    public HashSet<string> Closure(IEnumerable<string> keys)
    {
        var set = new HashSet<string>(StringComparer.Ordinal);
        var stack = new Stack<string>(keys);
        while (stack.Count > 0)
        {
            var k = stack.Pop();
            if (!set.Add(k)) continue;
            if (Known.TryGetValue(k, out var kp)) foreach (var r in kp.Desc.ProjectReferences) if (!set.Contains(r)) stack.Push(r);
        }
        set.RemoveWhere(k => !Known.ContainsKey(k));
        return set;
    }

    /// Every known project, dependencies before dependents.
    public List<string> TopoOrder()
    {
        if (topo != null) return topo;
        var order = new List<string>();
        var state = new Dictionary<string, int>(StringComparer.Ordinal);
        foreach (var start in Known.Keys.OrderBy(k => k, StringComparer.Ordinal))
        {
            if (state.ContainsKey(start)) continue;
            var stack = new Stack<(string k, int i)>();
            stack.Push((start, 0)); state[start] = 1;
            while (stack.Count > 0)
            {
                var (k, i) = stack.Pop();
                var refs = Known[k].Desc.ProjectReferences;
                if (i < refs.Count)
                {
                    stack.Push((k, i + 1));
                    var r = refs[i];
                    if (Known.ContainsKey(r) && !state.ContainsKey(r)) { state[r] = 1; stack.Push((r, 0)); }
                }
                else { state[k] = 2; order.Add(k); }
            }
        }
        topo = order;
        return order;
    }

    /// Compiles projects of a solution snapshot off the request queue (a query cut at its deadline:
    /// the next one finds them compiled). One such job at a time; a new one replaces a queued one.
    public void CompileInBackground(Solution sol, List<string> keys)
    {
        var ids = keys.Where(Known.ContainsKey).Select(k => (k, Known[k].Id)).ToList();
        if (ids.Count == 0) return;
        lock (backgroundLock)
        {
            backgroundNext = (sol, ids);
            if (backgroundRunning) return;
            backgroundRunning = true;
        }
        _ = Task.Run(async () =>
        {
            while (true)
            {
                (Solution s, List<(string k, ProjectId id)> l) job;
                lock (backgroundLock)
                {
                    if (backgroundNext is not { } n) { backgroundRunning = false; return; }
                    job = n; backgroundNext = null;
                }
                var sw = Stopwatch.StartNew();
                var done = 0;
                foreach (var (k, id) in job.l)
                {
                    try { if (job.s.GetProject(id) is Project p && await p.GetCompilationAsync() != null) done++; }
                    catch (Exception e) { Log($"background compile of {k}: {e.Message}"); }
                }
                // its projects may now hold compilations: evictable like any touched one (under the gate: Known is not thread-safe)
                await Gate.WaitAsync();
                try { Touch(job.l.Select(x => x.k).Where(Known.ContainsKey)); } finally { Gate.Release(); }
                Log($"background compile after a deadline: {done} projects in {sw.ElapsedMilliseconds} ms");
            }
        });
    }

    readonly object backgroundLock = new();
    bool backgroundRunning;
    (Solution, List<(string, ProjectId)>)? backgroundNext;

    public void Touch(IEnumerable<string> keys)
    {
        var t = ++Tick;
        foreach (var k in keys) if (Known.TryGetValue(k, out var kp)) { kp.LastUsed = t; kp.Touched = true; }
    }

    /// Evict least-recently-used touched projects (never one a touched project references, never a pinned one) until the heap is under the cap.
    public int EvictIfNeeded(HashSet<string> pinned)
    {
        var capBytes = (long)MemoryCapMb * 1024 * 1024;
        if (GC.GetTotalMemory(false) <= capBytes) return 0;
        GC.Collect(2, GCCollectionMode.Forced, true, true);
        var heap = GC.GetTotalMemory(false);
        if (heap <= capBytes * 0.9) return 0;
        var evicted = 0;
        for (var round = 0; round < 12 && heap > capBytes * 0.75; round++)
        {
            var touched = Known.Values.Where(k => k.Touched).ToList();
            var referenced = new HashSet<string>(touched.SelectMany(k => k.Desc.ProjectReferences), StringComparer.Ordinal);
            var candidates = touched.Where(k => !pinned.Contains(k.Desc.Key) && !referenced.Contains(k.Desc.Key)).OrderBy(k => k.LastUsed).ToList();
            if (candidates.Count == 0) break;
            var take = Math.Max(1, touched.Count / 4);
            var batch = candidates.Take(take).Select(k => k.Desc.Key).ToList();
            Reset(batch, false);
            evicted += batch.Count;
            GC.Collect(2, GCCollectionMode.Forced, true, true);
            heap = GC.GetTotalMemory(false);
        }
        Evictions += evicted;
        if (evicted > 0) Log($"evicted {evicted} projects; heap {heap / 1048576} MB (cap {MemoryCapMb} MB)");
        return evicted;
    }

    public (int updated, int removed) DocumentsChanged(List<DocumentChange> changes)
    {
        var sol = Workspace.CurrentSolution;
        int updated = 0, removed = 0;
        foreach (var c in changes)
        {
            var abs = Abs(c.Path);
            var buffer = c.Kind != "deleted" && c.Text != null;
            if (buffer) Buffers[abs] = c.Text!; else Buffers.Remove(abs);
            TextLoader Loader() => buffer
                ? TextLoader.From(TextAndVersion.Create(SourceText.From(c.Text!, Encoding.UTF8), VersionStamp.Create(), abs))
                : new FileTextLoader(abs, new UTF8Encoding(false));
            foreach (var id in sol.GetDocumentIdsWithFilePath(abs))
            {
                if (c.Kind == "deleted" || (!buffer && !File.Exists(abs))) { sol = sol.RemoveDocument(id); removed++; }
                else if (buffer) { sol = sol.WithDocumentText(id, SourceText.From(c.Text!, Encoding.UTF8), PreservationMode.PreserveIdentity); updated++; }
                else { sol = sol.WithDocumentTextLoader(id, Loader(), PreservationMode.PreserveValue); updated++; }
            }
            if (c.Kind != "deleted" && (buffer || File.Exists(abs)) && sol.GetDocumentIdsWithFilePath(abs).IsEmpty)
            {
                foreach (var k in KeysForPath(abs))
                {
                    if (!Known.TryGetValue(k, out var kp) || !sol.ContainsProject(kp.Id)) continue;
                    var gen = kp.GeneratedPaths.Contains(abs) || LooksGenerated(abs);
                    sol = sol.AddDocument(DocumentInfo.Create(DocumentId.CreateNewId(kp.Id, abs), Path.GetFileName(abs), null, SourceCodeKind.Regular,
                        Loader(), abs, gen));
                    updated++;
                }
            }
        }
        Workspace.Set(sol);
        return (updated, removed);
    }
}

/// Roslyn's own batch add (`Solution.AddProjects`, internal in 5.x: it takes a pooled builder):
/// one solution fork for N projects instead of N forks, and the compilation trackers of the
/// projects already there are kept. Reached by reflection; when it is not there (another Roslyn
/// version) the caller falls back to the public per-project add.
static class BatchAdd
{
    static readonly Func<Solution, List<ProjectInfo>, Solution>? add = Make();

    static Func<Solution, List<ProjectInfo>, Solution>? Make()
    {
        try
        {
            var m = typeof(Solution).GetMethods(System.Reflection.BindingFlags.Instance | System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Public)
                .FirstOrDefault(x => x.Name == "AddProjects" && x.GetParameters().Length == 1 && x.GetParameters()[0].ParameterType.IsGenericType
                    && x.GetParameters()[0].ParameterType.GetGenericArguments()[0] == typeof(ProjectInfo));
            if (m == null) return null;
            var builderType = m.GetParameters()[0].ParameterType;
            var ctor = builderType.GetConstructor(System.Reflection.BindingFlags.Instance | System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.NonPublic, Type.EmptyTypes);
            var addItem = builderType.GetMethod("Add", new[] { typeof(ProjectInfo) });
            if (ctor == null || addItem == null) return null;
            return (sol, infos) =>
            {
                var b = ctor.Invoke(null);
                foreach (var i in infos) addItem.Invoke(b, new object[] { i });
                return (Solution)m.Invoke(sol, new[] { b })!;
            };
        }
        catch (Exception e) { HostState.Log($"batch add unavailable: {e.Message}"); return null; }
    }

    static readonly Func<Solution, List<ProjectId>, Solution>? remove = MakeRemove();

    static Func<Solution, List<ProjectId>, Solution>? MakeRemove()
    {
        try
        {
            var m = typeof(Solution).GetMethods(System.Reflection.BindingFlags.Instance | System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Public)
                .FirstOrDefault(x => x.Name == "RemoveProjects" && x.GetParameters().Length == 1 && x.GetParameters()[0].ParameterType.IsGenericType
                    && x.GetParameters()[0].ParameterType.GetGenericArguments()[0] == typeof(ProjectId));
            if (m == null) return null;
            var builderType = m.GetParameters()[0].ParameterType;
            var ctor = builderType.GetConstructor(System.Reflection.BindingFlags.Instance | System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.NonPublic, Type.EmptyTypes);
            var addItem = builderType.GetMethod("Add", new[] { typeof(ProjectId) });
            if (ctor == null || addItem == null) return null;
            return (sol, ids) =>
            {
                var b = ctor.Invoke(null);
                foreach (var i in ids) addItem.Invoke(b, new object[] { i });
                return (Solution)m.Invoke(sol, new[] { b })!;
            };
        }
        catch (Exception e) { HostState.Log($"batch remove unavailable: {e.Message}"); return null; }
    }

    public static Solution? TryRemove(Solution sol, List<ProjectId> ids)
    {
        if (ids.Count == 0) return sol;
        if (remove == null || ids.Count == 1) return null;
        try { return remove(sol, ids); }
        catch (Exception e) { HostState.Log($"batch remove failed, removing one by one: {e.InnerException?.Message ?? e.Message}"); return null; }
    }

    public static bool Available => add != null;

    public static Solution? TryAdd(Solution sol, List<ProjectInfo> infos)
    {
        if (add == null) return null;
        try { return add(sol, infos); }
        catch (Exception e) { HostState.Log($"batch add failed, adding one by one: {e.InnerException?.Message ?? e.Message}"); return null; }
    }
}
