// Compiles and searches a tiny scratch solution in the background right after initialize, so the
// JIT has compiled Roslyn's hot paths (parse, bind, SymbolFinder) before the first real question
// (measured: a cold first definition cost ~3 s of CPU, most of it JIT). Uses its own AdhocWorkspace:
// it shares nothing with the live workspace and takes no lock.
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.FindSymbols;
using Microsoft.CodeAnalysis.Text;

namespace Sextant.RoslynHost;

public static class Warmup
{
    const string Source = """
        using System;
        using System.Collections.Generic;
        using System.Linq;
        using System.Threading.Tasks;
        namespace Warm
        {
            public interface IShape { double Area(); }
            public abstract class Shape : IShape { public abstract double Area(); public override string ToString() => $"{Area():F2}"; }
            public sealed class Circle(double r) : Shape { public override double Area() => Math.PI * r * r; }
            public static class Use
            {
                public static async Task<double> Total(IEnumerable<IShape> shapes) { await Task.Yield(); return shapes.Select(s => s.Area()).Sum(); }
                public static double One() => new Circle(1).Area() + ((IShape)new Circle(2)).Area();
            }
        }
        """;

    /// Cancelled by the first request that compiles (a question goes first: it JITs the same paths).
    static readonly CancellationTokenSource cts = new();

    public static void Stop() { if (!cts.IsCancellationRequested) cts.Cancel(); }

    public static void Start(Resolver resolver)
    {
        var ct = cts.Token;
        _ = Task.Run(async () =>
        {
            try
            {
                var sw = System.Diagnostics.Stopwatch.StartNew();
                var r = resolver.Resolve(new ProjectDescription { Key = "warm", Name = "Warm", TargetFramework = "net10.0" }, p => p);
                using var ws = new AdhocWorkspace();
                var pid = ProjectId.CreateNewId();
                var did = DocumentId.CreateNewId(pid);
                var sol = ws.CurrentSolution
                    .AddProject(ProjectInfo.Create(pid, VersionStamp.Create(), "Warm", "Warm", LanguageNames.CSharp,
                        compilationOptions: new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary),
                        parseOptions: new CSharpParseOptions(LanguageVersion.Latest, DocumentationMode.Parse),
                        metadataReferences: r.Paths.Select(p => MetadataReference.CreateFromFile(p))))
                    .AddDocument(did, "Warm.cs", SourceText.From(Source), filePath: "/warm/Warm.cs");
                var doc = sol.GetDocument(did)!;
                var text = await doc.GetTextAsync(ct);
                var pos = Source.IndexOf("double Area()", StringComparison.Ordinal) + 8;
                var sym = await SymbolFinder.FindSymbolAtPositionAsync(doc, pos, ct);
                if (sym != null)
                {
                    await SymbolFinder.FindReferencesAsync(sym, sol, ct);
                    await SymbolFinder.FindImplementationsAsync(sym, sol, cancellationToken: ct);
                    await SymbolFinder.FindCallersAsync(sym, sol, ct);
                }
                var comp = await doc.Project.GetCompilationAsync(ct);
                comp?.GetDiagnostics(ct);
                HostState.Log($"warm-up done in {sw.ElapsedMilliseconds} ms");
            }
            catch (OperationCanceledException) { HostState.Log("warm-up stopped: a query came first"); }
            catch (Exception e) { HostState.Log($"warm-up failed (harmless): {e.Message}"); }
        });
    }
}
