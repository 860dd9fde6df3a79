using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.MSBuild;

namespace Sextant.Oracle;

public sealed class Loaded
{
    public required string Root;
    public required Solution Solution;
    public required List<string> Diagnostics;
    /// <summary>Documents by workspace-relative POSIX path (several for a linked or multi-targeted file).</summary>
    public required Dictionary<string, List<Document>> ByPath;

    /// <summary>A syntax tree a source generator produced (a document of the compilation, not a file on disk).</summary>
    public bool IsSourceGenerated(SyntaxTree? tree) => tree is not null && Solution.GetDocument(tree) is SourceGeneratedDocument;

    /// <summary>Workspace-relative POSIX path, or null for a file outside the root.</summary>
    public string? Rel(string? filePath)
    {
        if (string.IsNullOrEmpty(filePath)) return null;
        var rel = Path.GetRelativePath(Root, filePath);
        if (rel.StartsWith("..") || Path.IsPathRooted(rel)) return null;
        return rel.Replace('\\', '/');
    }
}

public static class Loader
{
    public static async Task<Loaded> Load(Options o)
    {
        var ws = MSBuildWorkspace.Create();
        var diags = new List<string>();
        ws.RegisterWorkspaceFailedHandler(e => diags.Add($"{e.Diagnostic.Kind}: {e.Diagnostic.Message}"));
        Solution solution;
        if (o.Solution is not null)
        {
            solution = await ws.OpenSolutionAsync(Path.GetFullPath(Path.Combine(o.Root, o.Solution)));
        }
        else
        {
            foreach (var p in o.Projects)
            {
                // A project an earlier one referenced is already loaded (opening it again throws).
                var full = Path.GetFullPath(Path.Combine(o.Root, p));
                if (ws.CurrentSolution.Projects.Any(x => string.Equals(x.FilePath, full, StringComparison.Ordinal))) continue;
                await ws.OpenProjectAsync(full);
            }
            solution = ws.CurrentSolution;
        }
        // An analyzer that is referenced but not built (ProjectReference OutputItemType="Analyzer"
        // before its first build) makes SymbolFinder throw: drop it, as the host does, and say so.
        foreach (var project in solution.Projects.ToList())
        {
            foreach (var a in project.AnalyzerReferences.ToList())
            {
                var missing = a is UnresolvedAnalyzerReference || (a is AnalyzerFileReference f && !File.Exists(f.FullPath));
                if (!missing) continue;
                solution = solution.RemoveAnalyzerReference(project.Id, a);
                diags.Add($"Dropped: unresolved analyzer {a.FullPath ?? a.Display} of {project.Name}");
            }
        }
        var loaded = new Loaded { Root = o.Root, Solution = solution, Diagnostics = diags, ByPath = new() };
        foreach (var project in solution.Projects)
        {
            foreach (var doc in project.Documents)
            {
                var rel = loaded.Rel(doc.FilePath);
                if (rel is null) continue;
                if (!loaded.ByPath.TryGetValue(rel, out var list)) loaded.ByPath[rel] = list = new();
                list.Add(doc);
            }
        }
        return loaded;
    }
}
