// --selftest <file.json>: a standalone smoke run without the stdio protocol.
// file: { workspaceRoot, memoryCapMb?, projects: ProjectDescription[], queries: QueryParams[] }
using System.Diagnostics;
using System.Text.Json;

namespace Sextant.RoslynHost;

public static class SelfTest
{
    sealed class Input
    {
        public string WorkspaceRoot { get; set; } = "";
        public int? MemoryCapMb { get; set; }
        public List<ProjectDescription> Projects { get; set; } = new();
        public List<QueryParams> Queries { get; set; } = new();
        public bool? PrintItems { get; set; }
        public int? PauseBeforeQueriesMs { get; set; }
    }

    public static async Task<int> Run(string file)
    {
        var o = Program.JsonOptions();
        var input = JsonSerializer.Deserialize<Input>(File.ReadAllText(file), o)!;
        var t = new RpcTarget();
        var ct = CancellationToken.None;
        var sw = Stopwatch.StartNew();
        var init = await t.Initialize(new InitializeParams { WorkspaceRoot = input.WorkspaceRoot, MemoryCapMb = input.MemoryCapMb }, ct);
        Console.WriteLine(JsonSerializer.Serialize(new { step = "initialize", ms = sw.ElapsedMilliseconds, result = init }, o));
        sw.Restart();
        var ens = await t.Ensure(new EnsureParams { Projects = input.Projects }, ct);
        var unresolved = t.State.Known.Values.Sum(k => k.Res.Unresolved.Count);
        var unresolvedByKind = t.State.Known.Values.SelectMany(k => k.Res.Unresolved).GroupBy(u => u.Kind).ToDictionary(g => g.Key, g => g.Count());
        var substitutions = t.State.Known.Values.SelectMany(k => k.Res.Substitutions).GroupBy(u => $"{u.Kind} {u.Name} {u.Wanted} -> {u.Used}").ToDictionary(g => g.Key, g => g.Count());
        var examples = t.State.Known.Values.SelectMany(k => k.Res.Unresolved.Select(u => $"{k.Desc.Name}: {u.Kind} {u.Name}: {u.Reason}")).Take(5).ToList();
        Console.WriteLine(JsonSerializer.Serialize(new { step = "ensure", ms = sw.ElapsedMilliseconds, projects = input.Projects.Count, unresolved, unresolvedByKind, substitutions, examples, workingSetMb = HostState.WorkingSetMb() }, o));
        if (input.PauseBeforeQueriesMs is int pause) await Task.Delay(pause);
        var failures = 0;
        foreach (var q in input.Queries)
        {
            sw.Restart();
            try
            {
                var r = await t.Query(q, ct);
                Console.WriteLine(JsonSerializer.Serialize(new
                {
                    step = "query", op = q.Op, ms = sw.ElapsedMilliseconds, symbol = r.Symbol?.Display, reason = r.Reason, items = r.Items.Count,
                    searched = r.Searched.Count, notSearched = r.NotSearched.Count, r.Stats, sample = input.PrintItems == true ? r.Items : r.Items.Take(3).ToList(),
                }, o));
            }
            catch (Exception e)
            {
                failures++;
                Console.WriteLine(JsonSerializer.Serialize(new { step = "query", op = q.Op, ms = sw.ElapsedMilliseconds, error = e.Message }, o));
            }
        }
        Console.WriteLine(JsonSerializer.Serialize(new { step = "done", peakWorkingSetMb = Process.GetCurrentProcess().PeakWorkingSet64 / 1048576, failures }, o));
        return failures == 0 ? 0 : 1;
    }
}
