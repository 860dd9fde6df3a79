// Shared helpers of the searches: the scope in dependency order, batch sizes, the deadline, narrowed solutions, the text pre-filter (does a file name the symbol).
using Microsoft.CodeAnalysis;

namespace Sextant.RoslynHost;

public sealed partial class Queries
{
    List<string> ScopeKeys(QueryParams q, QueryResult res)
    {
        var scope = q.Scope ?? h.Known.Keys.ToList();
        var ok = new HashSet<string>(StringComparer.Ordinal);
        foreach (var k in scope)
        {
            if (h.Known.ContainsKey(k)) ok.Add(k);
            else res.NotSearched.Add(new NotSearched { Key = k, Reason = "unknownProject", Detail = "never ensured" });
        }
        // dependencies first, so a batch's references are compiled before (and kept beside) their dependents
        return h.TopoOrder().Where(ok.Contains).ToList();
    }

    int BatchSizeOf(QueryParams q) =>
        q.Options?.BatchProjects is int b && b > 0 ? b : q.Options?.DeadlineMs is int dl && dl > 0 ? DeadlineBatchProjects : BatchProjects;

    /// Awaits `work` but no longer than the deadline: true when it completed (its exceptions, the
    /// deadline's cancellation included, come out here); false when the deadline came first — Roslyn
    /// does not observe cancellation everywhere (a metadata-only emit of a dependency, a compilation
    /// being built), so the answer goes out at the deadline and the abandoned work is left to stop.
    /// `work` is started with Task.Run by the callers: Roslyn may run a long way synchronously
    /// before its first await, and the deadline must already be watched then.
    static async Task<bool> ByDeadline(Task work, CancellationToken deadline, CancellationToken ct)
    {
        if (!deadline.CanBeCanceled || work.IsCompleted) { await work; return true; }
        var first = await Task.WhenAny(work, Task.Delay(Timeout.Infinite, deadline).ContinueWith(_ => { }, TaskScheduler.Default));
        if (first == work) { await work; return true; }
        _ = work.ContinueWith(t => _ = t.Exception, TaskScheduler.Default); // observed: never an unobserved fault
        ct.ThrowIfCancellationRequested();
        return false;
    }

    /// The solution with only the projects of `keys` and their reference closure (compiled state
    /// of the kept projects carried over: none of them references a dropped one).
    Solution Narrow(Solution sol, IEnumerable<string> keys)
    {
        var keep = new HashSet<ProjectId>(h.Closure(keys).Select(k => h.Known[k].Id));
        var drop = sol.ProjectIds.Where(id => !keep.Contains(id)).ToList();
        if (drop.Count == 0) return sol;
        return BatchAdd.TryRemove(sol, drop) ?? drop.Aggregate(sol, (x, id) => x.RemoveProject(id));
    }

    /// (path, name) -> (file length, mtime, mentions): a widening asked again reads no file twice.
    static readonly Dictionary<(string, string), (long len, DateTime mtime, bool hit)> mentionCache = new();

    bool Mentions(string absPath, string name)
    {
        try
        {
            if (h.Buffers.TryGetValue(absPath, out var buf)) return MentionsIn(buf, name);
            var fi = new FileInfo(absPath);
            if (!fi.Exists) return false;
            if (mentionCache.TryGetValue((absPath, name), out var c) && c.len == fi.Length && c.mtime == fi.LastWriteTimeUtc) return c.hit;
            var hit = MentionsIn(File.ReadAllText(absPath), name);
            if (mentionCache.Count > 200_000) mentionCache.Clear();
            mentionCache[(absPath, name)] = (fi.Length, fi.LastWriteTimeUtc, hit);
            return hit;
        }
        catch { return false; }
    }

    /// Whether the file names any of `names` (read once for all of them; cached like Mentions).
    bool MentionsAny(string absPath, IReadOnlyCollection<string> names)
    {
        try
        {
            if (h.Buffers.TryGetValue(absPath, out var buf)) return names.Any(n => MentionsIn(buf, n));
            var fi = new FileInfo(absPath);
            if (!fi.Exists) return false;
            var missing = false;
            foreach (var n in names)
            {
                if (!mentionCache.TryGetValue((absPath, n), out var c) || c.len != fi.Length || c.mtime != fi.LastWriteTimeUtc) { missing = true; continue; }
                if (c.hit) return true;
            }
            if (!missing) return false;
            var text = File.ReadAllText(absPath);
            if (mentionCache.Count > 200_000) mentionCache.Clear();
            var any = false;
            foreach (var n in names)
            {
                var hit = MentionsIn(text, n);
                mentionCache[(absPath, n)] = (fi.Length, fi.LastWriteTimeUtc, hit);
                any |= hit;
            }
            return any;
        }
        catch { return false; }
    }

    static bool MentionsIn(string text, string name)
    {
        for (var i = text.IndexOf(name, StringComparison.Ordinal); i >= 0; i = text.IndexOf(name, i + 1, StringComparison.Ordinal))
        {
            var before = i > 0 ? text[i - 1] : ' ';
            var after = i + name.Length < text.Length ? text[i + name.Length] : ' ';
            if (!(char.IsLetterOrDigit(before) || before == '_') && !(char.IsLetterOrDigit(after) || after == '_')) return true;
        }
        return false;
    }

    static string LocKey(Loc l) => $"{l.Path}:{l.Line}:{l.Column}:{l.EndLine}:{l.EndColumn}";
}
