// Debugging aid: SEXTANT_ROSLYN_GENERATOR_TIMES=1 logs, after each request, how long each source
// generator ran in it (Roslyn's own "SingleGeneratorRunTime" events of the Microsoft-CodeAnalysis-General
// event source, listened to in process), so a slow cold start can be put on the generator that costs it.
using System.Collections.Concurrent;
using System.Diagnostics.Tracing;

namespace Sextant.RoslynHost;

public sealed class GeneratorTimes : EventListener
{
    public static readonly GeneratorTimes? Instance = Environment.GetEnvironmentVariable("SEXTANT_ROSLYN_GENERATOR_TIMES") == "1" ? new GeneratorTimes() : null;

    readonly ConcurrentDictionary<string, (long ticks, int runs)> times = new(StringComparer.Ordinal);

    protected override void OnEventSourceCreated(EventSource source)
    {
        // Roslyn's CodeAnalysisEventSource; keyword 1 = Performance
        if (source.Name == "Microsoft-CodeAnalysis-General") EnableEvents(source, EventLevel.Informational, (EventKeywords)1);
    }

    protected override void OnEventWritten(EventWrittenEventArgs e)
    {
        // the stop event of the SingleGeneratorRunTime task (its method: StopSingleGeneratorRunTime) carries the time
        if (e.EventName?.Contains("SingleGeneratorRunTime", StringComparison.Ordinal) != true || e.PayloadNames == null || e.Payload == null) return;
        var name = e.PayloadNames.IndexOf("generatorName") is var ni and >= 0 ? e.Payload[ni] as string : null;
        var ticks = e.PayloadNames.IndexOf("elapsedTicks") is var ti and >= 0 && e.Payload[ti] is long t ? t : 0;
        if (name == null) return;
        times.AddOrUpdate(name, (ticks, 1), (_, v) => (v.ticks + ticks, v.runs + 1));
    }

    /// Logs and clears what was measured since the last call (nothing when nothing ran).
    public void Flush(string what)
    {
        if (times.IsEmpty) return;
        var all = times.ToArray();
        times.Clear();
        var parts = all.OrderByDescending(kv => kv.Value.ticks).Select(kv => $"{kv.Key} {TimeSpan.FromTicks(kv.Value.ticks).TotalMilliseconds:N0} ms/{kv.Value.runs} run(s)");
        HostState.Log($"generator times ({what}): {string.Join("; ", parts)}");
    }
}
