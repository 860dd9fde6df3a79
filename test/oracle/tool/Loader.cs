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
    /// <summary>Every C# project file under the root, path order, outside obj/, bin/, .git and node_modules.</summary>
    public static IEnumerable<string> ProjectFiles(string root)
    {
        var skip = new HashSet<string>(StringComparer.Ordinal) { "obj", "bin", ".git", "node_modules" };
        var stack = new Stack<string>();
        stack.Push(root);
        var found = new List<string>();
        while (stack.Count > 0)
        {
            var dir = stack.Pop();
            foreach (var f in Directory.EnumerateFiles(dir, "*.csproj")) found.Add(Path.GetFullPath(f));
            foreach (var d in Directory.EnumerateDirectories(dir))
                if (!skip.Contains(Path.GetFileName(d)) && !new DirectoryInfo(d).Attributes.HasFlag(FileAttributes.ReparsePoint)) stack.Push(d);
        }
        return found.OrderBy(f => f, StringComparer.Ordinal);
    }

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
        // The engine answers for every project in the tree, not only the solution's: a project the
        // solution leaves out (MassTransit's tests/MassTransit.Benchmark) is still searched, so the
        // truth must cover it too (--all-projects).
        if (o.AllProjects)
        {
            var loadedPaths = solution.Projects.Select(p => p.FilePath).OfType<string>().ToHashSet(StringComparer.Ordinal);
            foreach (var file in ProjectFiles(o.Root))
            {
                if (loadedPaths.Contains(file)) continue;
                try
                {
                    await ws.OpenProjectAsync(file);
                    diags.Add($"Added: {Path.GetRelativePath(o.Root, file)} (not in the solution)");
                }
                catch (Exception e) when (e is InvalidOperationException or ArgumentException or IOException)
                {
                    diags.Add($"Failure: could not open {file}: {e.Message}");
                }
                loadedPaths = ws.CurrentSolution.Projects.Select(p => p.FilePath).OfType<string>().ToHashSet(StringComparer.Ordinal);
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
