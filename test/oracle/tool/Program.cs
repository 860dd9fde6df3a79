// Sextant's Roslyn oracle: ground truth for the semantic tools, from Roslyn's own MSBuildWorkspace
// and SymbolFinder over the same projects the engine answers for. A test tool only.
//
//   sextant-oracle --root DIR (--solution FILE | --project FILE ...) [--all-projects] --questions FILE [--out FILE]
//   sextant-oracle --root DIR --solution FILE --sample N [--seed S] [--ops definition,references,...] [--out FILE]
//
// Questions are JSON: [{"id", "op", "path", "line", "column"}] with workspace-relative POSIX paths,
// 1-based lines and 1-based columns in UTF-16 units (the engine's convention). op is one of
// definition | references | implementations | callers | type_hierarchy. The answer is JSON on stdout (or --out):
// per question the symbol and the locations (the identifier of each declaration or reference).
//
// Ground truth, per op (what Sextant's tools promise):
// - definition: every source declaration of the symbol at the position (all partial parts, both
//   parts of a partial method; generated files included and flagged); a framework or package
//   symbol: one metadata row {meta: documentation id, name, assembly, version}. A namespace has none: it is
//   not declared in one place (every `namespace N` line in every project is an equal part of it),
//   so its definition is no rows, and the engine's answer is expected to say so, not to list them.
// - references: the symbol's own references (Roslyn's groups whose definition is the symbol; the
//   cascade to interface/base/sibling members is left out), declarations not included, implicit
//   references (foreach, deconstruction) not included.
// - implementations: for an interface or class, every implementing and derived type
//   (transitively); for a member, every implementing member and override (transitively). Each at
//   its hand-written parts: a generator's part of a partial type is not an implementation of its
//   own (listed only for a type a generator writes whole; definition lists every part).
// - callers: the methods whose bodies call the symbol directly, through a member it implements
//   or overrides (an interface or base member declared in source; a framework interface such as
//   IEnumerable<T> is not followed; `base.M()` does not dispatch), or call one of its
//   implementations or overrides in source (via implementation / override: issue 23's "callers
//   through implementations") — the caller's declaration plus the call sites.
//
// --all-projects also loads every *.csproj under the root that the solution or --project list
// leaves out: the engine searches every project of the tree.
// - type_hierarchy: direct supertypes (base class, declared interfaces; a framework or package type
//   as {meta: documentation id, name}) and direct subtypes in source, each with its relation.
//
// --generated N adds N definition questions at uses of symbols a source generator wrote a part of.
// --framework adds questions at use sites of framework and package symbols (HttpClient.SendAsync,
// LoggerExtensions.LogWarning, IHostedService, JsonSerializer.Deserialize, Task.WhenAll): the
// first use of each in path order, asked for references / callers / implementations.
// --shapes adds issue 23's other framework-and-package shapes (ids x…; Sampler.Shapes): definition
// at uses of metadata symbols (truth: {meta, name, assembly, version}), callers of a framework
// method, implementations of IDisposable, type_hierarchy of an Object-only class and of a class
// implementing a package interface. --framework / --generated / --shapes also follow --questions.
//
// A file compiled by several projects or frameworks (linked files, multi-targeting) is asked in
// every compilation that has it, and the answers are united.
//
// Run it only on a throw-away COPY of a workspace: MSBuildWorkspace's design-time builds may write
// obj/ there.
using System.Diagnostics;
using System.Text.Json;
using System.Text.Json.Nodes;
using Microsoft.Build.Locator;

namespace Sextant.Oracle;

public static class Program
{
    public static async Task<int> Main(string[] args)
    {
        Options opts;
        try
        {
            opts = Options.Parse(args);
        }
        catch (ArgumentException e)
        {
            Console.Error.WriteLine($"Error [BAD_ARGS]: {e.Message}. Hint: see the usage at the top of test/oracle/tool/Program.cs.");
            return 2;
        }
        // The SDK's MSBuild must be registered before any MSBuild type is loaded (Oracle.Run).
        var instance = MSBuildLocator.QueryVisualStudioInstances().OrderByDescending(i => i.Version).FirstOrDefault();
        if (instance is null)
        {
            Console.Error.WriteLine("Error [NO_MSBUILD]: no .NET SDK found. Hint: install the .NET SDK (dotnet --list-sdks).");
            return 3;
        }
        MSBuildLocator.RegisterInstance(instance);
        return await Oracle.Run(opts, instance.MSBuildPath);
    }
}

public sealed class Options
{
    public string Root = "";
    public string? Solution;
    public List<string> Projects = new();
    public string? Questions;
    public string? Out;
    public int Sample;
    public int Seed = 1;
    public HashSet<string> Ops = new() { "definition", "references", "implementations", "callers" };
    public bool Quiet;
    /// <summary>Also ask at use sites of framework / package symbols (Sampler.FrameworkTargets).</summary>
    public bool Framework;
    /// <summary>Also load every project file under the root that the solution / --project list left out (the engine searches them).</summary>
    public bool AllProjects;
    /// <summary>Also this many definition questions at uses of symbols with a generator-written part (Sampler.Generated).</summary>
    public int Generated;
    /// <summary>Also the framework-and-package shapes (Sampler.Shapes, ids x…).</summary>
    public bool Shapes;

    public static Options Parse(string[] args)
    {
        var o = new Options();
        for (int i = 0; i < args.Length; i++)
        {
            string Next() => i + 1 < args.Length ? args[++i] : throw new ArgumentException($"missing value for {args[i]}");
            switch (args[i])
            {
                case "--root": o.Root = Path.GetFullPath(Next()); break;
                case "--solution": o.Solution = Next(); break;
                case "--project": o.Projects.Add(Next()); break;
                case "--questions": o.Questions = Next(); break;
                case "--out": o.Out = Next(); break;
                case "--sample": o.Sample = int.Parse(Next()); break;
                case "--seed": o.Seed = int.Parse(Next()); break;
                case "--ops": o.Ops = Next().Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).ToHashSet(); break;
                case "--quiet": o.Quiet = true; break;
                case "--framework": o.Framework = true; break;
                case "--all-projects": o.AllProjects = true; break;
                case "--generated": o.Generated = int.Parse(Next()); break;
                case "--shapes": o.Shapes = true; break;
                default: throw new ArgumentException($"unknown argument {args[i]}");
            }
        }
        if (o.Root == "") throw new ArgumentException("--root is required");
        if (o.Solution is null && o.Projects.Count == 0) throw new ArgumentException("give --solution or --project");
        if (o.Questions is null && o.Sample <= 0) throw new ArgumentException("give --questions FILE or --sample N");
        foreach (var op in o.Ops)
            if (op is not ("definition" or "references" or "implementations" or "callers" or "type_hierarchy")) throw new ArgumentException($"unknown op {op}");
        return o;
    }
}

public sealed record Question(string Id, string Op, string Path, int Line, int Column, string? Note = null);

public static partial class Oracle
{
    public static readonly JsonSerializerOptions Json = new() { WriteIndented = false, PropertyNamingPolicy = JsonNamingPolicy.CamelCase };

    public static async Task<int> Run(Options o, string msbuildPath)
    {
        var sw = Stopwatch.StartNew();
        var loaded = await Loader.Load(o);
        var loadMs = sw.ElapsedMilliseconds;
        if (!o.Quiet) Console.Error.WriteLine($"oracle: {loaded.Solution.Projects.Count()} projects loaded in {loadMs} ms ({loaded.Diagnostics.Count} workspace diagnostics)");

        List<Question> questions;
        if (o.Questions is not null)
            questions = JsonSerializer.Deserialize<List<Question>>(File.ReadAllText(o.Questions), Json) ?? new();
        else
        {
            questions = await Sampler.Sample(loaded, o.Sample, o.Seed, o.Ops);
            if (!o.Quiet) Console.Error.WriteLine($"oracle: {questions.Count} questions sampled at {sw.ElapsedMilliseconds} ms");
        }
        // sampled at once after the given or sampled questions (a truth's --refresh adds them by id)
        if (o.Framework) questions.AddRange(await Sampler.Framework(loaded));
        if (o.Generated > 0) questions.AddRange(await Sampler.Generated(loaded, o.Generated));
        if (o.Shapes) questions.AddRange(await Sampler.Shapes(loaded));
        if (!o.Quiet) Console.Error.WriteLine($"oracle: {questions.Count} questions with the framework ones at {sw.ElapsedMilliseconds} ms");

        var answers = new JsonArray();
        var askSw = Stopwatch.StartNew();
        foreach (var q in questions)
        {
            var one = Stopwatch.StartNew();
            JsonObject a;
            try
            {
                a = await Answers.Answer(loaded, q);
            }
            catch (Exception e)
            {
                a = new JsonObject { ["error"] = $"{e.GetType().Name}: {e.Message}" };
            }
            a["id"] = q.Id;
            a["op"] = q.Op;
            a["ms"] = one.ElapsedMilliseconds;
            if (!o.Quiet) Console.Error.WriteLine($"  {q.Id} {q.Op} {q.Path}:{q.Line}:{q.Column} → {(a["items"] as JsonArray)?.Count.ToString() ?? a["error"]?.ToString()} in {one.ElapsedMilliseconds} ms");
            answers.Add(a);
        }
        var result = new JsonObject
        {
            ["tool"] = "sextant-oracle",
            ["roslyn"] = typeof(Microsoft.CodeAnalysis.FindSymbols.SymbolFinder).Assembly.GetName().Version?.ToString(),
            ["msbuild"] = msbuildPath,
            ["root"] = o.Root,
            ["projects"] = loaded.Solution.Projects.Count(),
            ["loadMs"] = loadMs,
            ["answerMs"] = askSw.ElapsedMilliseconds,
            // Every document the oracle compiled (workspace-relative): the scope its truth covers.
            ["documents"] = new JsonArray(loaded.ByPath.Keys.OrderBy(k => k, StringComparer.Ordinal).Select(k => (JsonNode)JsonValue.Create(k)!).ToArray()),
            ["workspaceDiagnostics"] = new JsonArray(loaded.Diagnostics.Take(50).Select(d => (JsonNode)JsonValue.Create(d)!).ToArray()),
            ["questions"] = JsonSerializer.SerializeToNode(questions, Json),
            ["answers"] = answers,
        };
        var text = result.ToJsonString(new JsonSerializerOptions { WriteIndented = true });
        if (o.Out is not null) File.WriteAllText(o.Out, text + "\n");
        else Console.WriteLine(text);
        return 0;
    }
}
