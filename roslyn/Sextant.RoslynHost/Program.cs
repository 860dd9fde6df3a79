// Sextant's Roslyn host: JSON-RPC over stdio (roslyn/PROTOCOL.md). stdout carries only protocol
// frames; everything else goes to stderr.
using System.Diagnostics;
using System.Reflection;
using System.Text.Json;
using System.Text.Json.Serialization;
using Microsoft.CodeAnalysis;
using StreamJsonRpc;

namespace Sextant.RoslynHost;

public sealed class RpcTarget
{
    readonly HostState h = new();
    readonly Queries queries;
    bool initialized;
    public Action? OnExit;
    public int? ParentPid;

    public RpcTarget() { queries = new Queries(h); }

    public HostState State => h;

    static HostError Internal(Exception e) =>
        new(-32603, $"Error [INTERNAL]: {e.GetType().Name}: {e.Message}. Hint: the host is still running; retry, or report the request.", new { exception = e.ToString() });

    async Task<T> Guard<T>(Func<Task<T>> f, CancellationToken ct, bool needInit = true, bool gate = true)
    {
        if (needInit && !initialized) throw Rpc(new HostError(-32002, "Error [NOT_INITIALIZED]: request before initialize. Hint: send initialize first."));
        if (gate) await h.Gate.WaitAsync(ct);
        try { return await f(); }
        catch (HostError e) { throw Rpc(e); }
        catch (OperationCanceledException) when (ct.IsCancellationRequested) { throw; }
        catch (LocalRpcException) { throw; }
        catch (Exception e) { HostState.Log($"internal error: {e}"); throw Rpc(Internal(e)); }
        finally { if (gate) h.Gate.Release(); GeneratorTimes.Instance?.Flush(typeof(T).Name); }
    }

    /// Debugging aid: SEXTANT_ROSLYN_TRACE=<file outside the workspace> appends every request
    /// (method, arrival time, params) as one JSON line, so a session can be replayed on a fresh host.
    static readonly string? TraceFile = Environment.GetEnvironmentVariable("SEXTANT_ROSLYN_TRACE");
    static readonly object traceLock = new();
    static void Trace(string method, object? p)
    {
        if (string.IsNullOrEmpty(TraceFile)) return;
        try
        {
            var line = JsonSerializer.Serialize(new { method, at = DateTime.UtcNow.ToString("HH:mm:ss.fff"), @params = p }, Program.JsonOptions());
            lock (traceLock) File.AppendAllText(TraceFile, line + "\n");
        }
        catch (Exception e) { HostState.Log($"trace: {e.Message}"); }
    }

    static LocalRpcException Rpc(HostError e) => new(e.Message) { ErrorCode = e.Code, ErrorData = e.Data2 };

    [JsonRpcMethod("initialize", UseSingleObjectParameterDeserialization = true)]
    public Task<object> Initialize(InitializeParams p, CancellationToken ct) { Trace("initialize", p); return Guard<object>(() =>
    {
        if (string.IsNullOrEmpty(p.WorkspaceRoot) || !Path.IsPathRooted(p.WorkspaceRoot))
            throw new HostError(-32602, "Error [BAD_PARAMS]: initialize.workspaceRoot must be an absolute path. Hint: pass the workspace folder.");
        h.Root = Path.GetFullPath(p.WorkspaceRoot).Replace('\\', '/').TrimEnd('/');
        if (h.Root == "") h.Root = "/";
        if (p.MemoryCapMb is int cap && cap > 0) h.MemoryCapMb = cap;
        h.Resolver = new Resolver(p.NugetPackagesFolder);
        if (p.ParentPid is int pp && pp > 0) ParentPid = pp;
        initialized = true;
        if (Environment.GetEnvironmentVariable("SEXTANT_ROSLYN_NO_WARMUP") != "1") Warmup.Start(h.Resolver);
        HostState.Log($"initialized: root {h.Root}, cap {h.MemoryCapMb} MB, dotnet {h.Resolver.DotnetRoot}, packs {string.Join(", ", h.Resolver.Packs.Select(x => x.Name + " " + x.Version))}");
        return Task.FromResult<object>(new
        {
            protocolVersion = 9,
            hostVersion = typeof(RpcTarget).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? "0",
            roslynVersion = typeof(Workspace).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion?.Split('+')[0],
            runtimeVersion = Environment.Version.ToString(),
            dotnetRoot = h.Resolver.DotnetRoot,
            sdkVersions = h.Resolver.SdkVersions,
            referencePacks = h.Resolver.Packs,
            memoryCapMb = h.MemoryCapMb,
            generatorTriggers = GeneratorCatalog.AllTriggers,
        });
    }, ct, needInit: false); }

    [JsonRpcMethod("projects/ensure", UseSingleObjectParameterDeserialization = true)]
    public Task<object> Ensure(EnsureParams p, CancellationToken ct) { Trace("projects/ensure", p); return Guard<object>(() =>
    {
        var sw = Stopwatch.StartNew();
        var results = h.Ensure(p.Projects ?? new(), out var loaded);
        var evicted = h.EvictIfNeeded(new HashSet<string>());
        HostState.Log($"ensure: {p.Projects?.Count ?? 0} descriptions, {loaded} added/replaced in {sw.ElapsedMilliseconds} ms");
        return Task.FromResult<object>(new { results, evicted = Array.Empty<string>(), stats = new Stats { LoadMs = sw.ElapsedMilliseconds, ProjectsLoaded = loaded, ProjectsEvicted = evicted, WorkingSetMb = HostState.WorkingSetMb(), GcHeapMb = HostState.GcHeapMb() } });
    }, ct); }

    [JsonRpcMethod("projects/evict", UseSingleObjectParameterDeserialization = true)]
    public Task<object> Evict(EvictParams p, CancellationToken ct) => Guard<object>(() =>
    {
        var keys = p.Keys ?? h.Known.Keys.ToList();
        var present = keys.Where(h.Known.ContainsKey).ToList();
        h.Reset(present, p.Forget ?? false);
        GC.Collect(2, GCCollectionMode.Forced, true, true);
        return Task.FromResult<object>(new { evicted = present });
    }, ct);

    [JsonRpcMethod("documents/changed", UseSingleObjectParameterDeserialization = true)]
    public Task<object> DocumentsChanged(DocumentsChangedParams p, CancellationToken ct) { Trace("documents/changed", p); return Guard<object>(() =>
    {
        var (u, r) = h.DocumentsChanged(p.Changes ?? new());
        return Task.FromResult<object>(new { updated = u, removed = r });
    }, ct); }

    /// A virtual document's text: a generator's output or a decompiled metadata type (Sources.cs).
    [JsonRpcMethod("documents/source", UseSingleObjectParameterDeserialization = true)]
    public Task<SourceResult> Source(SourceParams p, CancellationToken ct) { Trace("documents/source", p); return Guard(() => Sources.Read(h, p, ct), ct); }

    [JsonRpcMethod("query", UseSingleObjectParameterDeserialization = true)]
    public Task<QueryResult> Query(QueryParams p, CancellationToken ct) { Trace("query", p); Warmup.Stop(); return Guard(() => queries.Run(p, ct), ct); }

    [JsonRpcMethod("status", UseSingleObjectParameterDeserialization = true)]
    public Task<object> Status(JsonElement? p, CancellationToken ct) => Guard<object>(() =>
    {
        var sol = h.Workspace.CurrentSolution;
        return Task.FromResult<object>(new
        {
            knownProjects = h.Known.Count,
            loadedProjects = h.Known.Values.Count(k => k.Touched),
            documents = sol.Projects.Sum(pr => pr.DocumentIds.Count),
            workingSetMb = HostState.WorkingSetMb(),
            gcHeapMb = HostState.GcHeapMb(),
            memoryCapMb = h.MemoryCapMb,
            evictions = h.Evictions,
            uptimeMs = h.Uptime.ElapsedMilliseconds,
            queries = h.Queries,
        });
    }, ct, needInit: false, gate: false);

    [JsonRpcMethod("shutdown", UseSingleObjectParameterDeserialization = true)]
    public Task<object> Shutdown(JsonElement? p, CancellationToken ct) => Task.FromResult<object>(new { });

    [JsonRpcMethod("exit")]
    public void Exit() => OnExit?.Invoke();
}

public static class Program
{
    public static JsonSerializerOptions JsonOptions(JsonSerializerOptions? o = null)
    {
        o ??= new JsonSerializerOptions();
        o.PropertyNamingPolicy = JsonNamingPolicy.CamelCase;
        o.PropertyNameCaseInsensitive = true;
        o.DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull;
        return o;
    }

    public static async Task<int> Main(string[] args)
    {
        int? parentPid = null;
        string? selftest = null;
        for (var i = 0; i < args.Length; i++)
        {
            if (args[i] == "--parent-pid" && i + 1 < args.Length && int.TryParse(args[i + 1], out var pp)) { parentPid = pp; i++; }
            else if (args[i] == "--selftest" && i + 1 < args.Length) { selftest = args[++i]; }
            else if (args[i] == "--version") { Console.WriteLine("Sextant.RoslynHost protocol 5"); return 0; }
        }
        if (selftest != null) return await SelfTest.Run(selftest);

        var stdout = Console.OpenStandardOutput();
        var stdin = Console.OpenStandardInput();
        Console.SetOut(Console.Error); // nothing but protocol frames on stdout
        var target = new RpcTarget { ParentPid = parentPid };
        var formatter = new SystemTextJsonFormatter();
        JsonOptions(formatter.JsonSerializerOptions);
        var handler = new HeaderDelimitedMessageHandler(stdout, stdin, formatter);
        var rpc = new JsonRpc(handler);
        rpc.AddLocalRpcTarget(target, new JsonRpcTargetOptions { DisposeOnDisconnect = false });
        rpc.AddLocalRpcTarget(new OccurrencesTarget(target), new JsonRpcTargetOptions { DisposeOnDisconnect = false }); // Occurrences.cs
        var exit = new TaskCompletionSource();
        target.OnExit = () => exit.TrySetResult();
        rpc.StartListening();
        HostState.Log($"started (pid {Environment.ProcessId}, parent {parentPid?.ToString() ?? "-"})");
        _ = Task.Run(async () =>
        {
            while (true)
            {
                await Task.Delay(1000);
                var pid = target.ParentPid;
                if (pid is int p && !Alive(p)) { HostState.Log($"parent {p} is gone; exiting"); exit.TrySetResult(); return; }
            }
        });
        await Task.WhenAny(rpc.Completion, exit.Task);
        HostState.Log("exiting");
        return 0;
    }

    static bool Alive(int pid)
    {
        try
        {
            if (OperatingSystem.IsLinux())
            {
                var stat = $"/proc/{pid}/stat";
                if (!File.Exists(stat)) return false;
                var s = File.ReadAllText(stat);
                var close = s.LastIndexOf(')');
                return !(close > 0 && close + 2 < s.Length && s[close + 2] == 'Z');
            }
            using var p = Process.GetProcessById(pid);
            return !p.HasExited;
        }
        catch { return false; }
    }
}
