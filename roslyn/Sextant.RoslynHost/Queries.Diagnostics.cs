// diagnostics: compiler diagnostics of a document or of whole projects, cut by the deadline.
using Microsoft.CodeAnalysis;

namespace Sextant.RoslynHost;

public sealed partial class Queries
{
    // ---------- diagnostics ----------

    /// Compiler diagnostics of one document (`position`) or of whole projects (`scope`, dependencies
    /// first). `deadline` (options.deadlineMs) cuts it: the projects compiled by then answer, the rest
    /// are `notSearched` (reason "deadline") and are compiled off the request queue for the next ask;
    /// a document cut before its semantic diagnostics still gets its syntax diagnostics (`syntaxOnly`).
    async Task Diagnostics(QueryParams q, QueryResult res, int maxItems, CancellationToken deadline, CancellationToken ct)
    {
        var sol = h.Workspace.CurrentSolution;
        var outList = new List<(Diagnostic d, string? key)>();
        if (q.Position != null)
        {
            var abs = h.Abs(q.Position.Path);
            var keys = h.KeysForPath(abs);
            if (keys.Count == 0) throw new HostError(-32010, $"Error [DOCUMENT_NOT_IN_WORKSPACE]: {q.Position.Path} is in no project the host was given. Hint: ensure its project first.", new { path = q.Position.Path });
            var key = q.Position.ProjectKey ?? keys[0];
            var doc = sol.GetProject(h.Known[key].Id)?.Documents.FirstOrDefault(d => d.FilePath == abs);
            if (doc == null || (!File.Exists(abs) && !h.Buffers.ContainsKey(abs))) throw new HostError(-32011, $"Error [DOCUMENT_MISSING]: {q.Position.Path} is not on disk. Hint: send documents/changed.", new { path = q.Position.Path });
            h.Touch(h.Closure(new[] { key }));
            try
            {
                var model = await doc.GetSemanticModelAsync(deadline);
                outList.AddRange(model!.GetDiagnostics(cancellationToken: deadline).Select(d => (d, (string?)key)));
                res.Searched.Add(key);
            }
            catch (OperationCanceledException) when (!ct.IsCancellationRequested)
            {
                // the parse is cheap and already there: its errors are still facts
                var tree = await doc.GetSyntaxTreeAsync(ct);
                if (tree != null) outList.AddRange(tree.GetDiagnostics(ct).Select(d => (d, (string?)key)));
                res.SyntaxOnly = true;
                res.NotSearched.Add(new NotSearched { Key = key, Reason = "deadline", Detail = "semantic diagnostics not computed by the deadline; syntax diagnostics only" });
                h.CompileInBackground(sol, new List<string> { key });
            }
        }
        else
        {
            var keys = ScopeKeys(q, res);
            for (var i = 0; i < keys.Count; i++)
            {
                var key = keys[i];
                try
                {
                    var comp = await sol.GetProject(h.Known[key].Id)!.GetCompilationAsync(deadline);
                    if (comp == null) { res.NotSearched.Add(new NotSearched { Key = key, Reason = "error", Detail = "no compilation" }); continue; }
                    outList.AddRange(comp.GetDiagnostics(deadline).Select(d => (d, (string?)key)));
                    res.Searched.Add(key);
                    h.Touch(h.Closure(new[] { key }));
                }
                catch (OperationCanceledException) when (!ct.IsCancellationRequested)
                {
                    var left = keys.Skip(i).ToList();
                    foreach (var k in left) res.NotSearched.Add(new NotSearched { Key = k, Reason = "deadline" });
                    h.CompileInBackground(sol, left);
                    break;
                }
                if (outList.Count > maxItems) break;
            }
        }
        foreach (var (d, key) in outList.Where(x => x.d.Severity != DiagnosticSeverity.Hidden))
        {
            if (res.Items.Count >= maxItems) { res.Truncated = true; break; }
            var loc = d.Location.IsInSource ? ToLoc(d.Location, sol) : new Loc { Path = "", Line = 0, Column = 0, EndLine = 0, EndColumn = 0 };
            loc.Id = d.Id;
            loc.Severity = d.Severity switch { DiagnosticSeverity.Error => "error", DiagnosticSeverity.Warning => "warning", DiagnosticSeverity.Info => "info", _ => "hidden" };
            loc.Message = d.GetMessage();
            loc.ProjectKey = key;
            res.Items.Add(loc);
        }
        res.Stats.ProjectsEvicted += h.EvictIfNeeded(new HashSet<string>());
    }
}
