// documents/source: the text of a virtual document — a source generator's output
// (`generated:<key>/…`) or a decompiled metadata type (`decompiled:<assembly>@<version>/<type>.cs`),
// so the engine's source_context and outline read them like files.
using Microsoft.CodeAnalysis;

namespace Sextant.RoslynHost;

public sealed class SourceParams
{
    public string Path { get; set; } = "";
    public int? DeadlineMs { get; set; }
}

public sealed class SourceResult
{
    public string Path { get; set; } = "";
    /// null when the document cannot be produced (`reason` says why)
    public string? Text { get; set; }
    /// "generated" | "decompiled"
    public string? Kind { get; set; }
    public string? ProjectKey { get; set; }
    /// the generator type (generated documents)
    public string? Generator { get; set; }
    /// the assembly and its package (decompiled documents)
    public MetadataOrigin? Origin { get; set; }
    public string? Reason { get; set; }
}

public static class Sources
{
    public static async Task<SourceResult> Read(HostState h, SourceParams p, CancellationToken ct)
    {
        var res = new SourceResult { Path = p.Path };
        if (Decompiled.IsVirtual(p.Path))
        {
            res.Kind = "decompiled";
            var view = h.Decompiled.Read(p.Path);
            if (view == null) { res.Reason = "no referenced assembly of the known projects has that name and version, or it could not be decompiled"; return res; }
            res.Text = view.Text;
            res.Origin = view.Origin;
            return res;
        }
        if (!GeneratedPaths.TryParse(p.Path, out var key, out var tree))
            throw new HostError(-32602, $"Error [BAD_PARAMS]: {p.Path} is not a virtual document path (generated:… or decompiled:…). Hint: read workspace files from disk.");
        res.Kind = "generated";
        res.ProjectKey = key;
        res.Generator = GeneratedPaths.GeneratorOf(p.Path);
        if (!h.Known.TryGetValue(key, out var kp)) { res.Reason = $"project {key} is not known to the host (ensure it first)"; return res; }
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(ct);
        if (p.DeadlineMs is int ms && ms > 0) deadline.CancelAfter(ms);
        var project = h.Workspace.CurrentSolution.GetProject(kp.Id);
        if (project == null) { res.Reason = $"project {key} is not loaded"; return res; }
        h.Touch(h.Closure(new[] { key }));
        try
        {
            foreach (var d in await project.GetSourceGeneratedDocumentsAsync(deadline.Token))
                if (d.FilePath == tree) { res.Text = (await d.GetTextAsync(deadline.Token)).ToString(); return res; }
            res.Reason = $"the generators of {key} do not produce this document now (the code that made them generate it may have changed)";
        }
        catch (OperationCanceledException) when (!ct.IsCancellationRequested) { res.Reason = "deadline: the project's generators had not run by the deadline; ask again"; }
        return res;
    }
}
