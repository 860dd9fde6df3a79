// Metadata resolution for a ProjectDescription: framework reference packs from the installed SDK,
// packages from project.assets.json (else the packages folder), HintPath references. Nothing here
// writes anything or runs MSBuild; whatever is missing is reported, never thrown.
using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Text.Json;
using Microsoft.CodeAnalysis;

namespace Sextant.RoslynHost;

public sealed record PackInfo(string Name, string Version, string Path);

public sealed class Resolution
{
    public List<string> Paths { get; } = new();
    public List<Unresolved> Unresolved { get; } = new();
    public List<Substitution> Substitutions { get; } = new();
    /// Targeting packs used (their analyzers are the SDK's source generators) and package analyzer files.
    public List<string> PackDirs { get; } = new();
    public List<string> Analyzers { get; } = new();
}

/// A target framework moniker parsed into family and version ("net8.0" → (core, 8.0)).
public readonly record struct Tfm(string Family, Version Version, string Raw)
{
    public static Tfm Parse(string raw)
    {
        var s = raw.Trim().ToLowerInvariant();
        var dash = s.IndexOf('-');
        if (dash >= 0) s = s[..dash];
        static Version V(string t)
        {
            if (t.Contains('.')) return Version.TryParse(t, out var v) ? v : new Version(0, 0);
            // net48 → 4.8, net472 → 4.7.2
            var parts = t.Select(c => c - '0').Where(d => d >= 0 && d <= 9).ToArray();
            return parts.Length switch { 0 => new Version(0, 0), 1 => new Version(parts[0], 0), 2 => new Version(parts[0], parts[1]), _ => new Version(parts[0], parts[1], parts[2]) };
        }
        if (s.StartsWith("netstandard")) return new Tfm("standard", V(s["netstandard".Length..]), raw);
        if (s.StartsWith("netcoreapp")) return new Tfm("core", V(s["netcoreapp".Length..]), raw);
        if (s.StartsWith("net"))
        {
            var rest = s[3..];
            if (rest.Contains('.')) return new Tfm("core", V(rest), raw); // net5.0+
            var v = V(rest);
            return v.Major >= 5 ? new Tfm("core", v, raw) : new Tfm("framework", v, raw);
        }
        return new Tfm("unknown", new Version(0, 0), raw);
    }

    /// The long name NuGet uses as an assets-file target key.
    public string LongName => Family switch
    {
        "core" => $".NETCoreApp,Version=v{Version.Major}.{Version.Minor}",
        "standard" => $".NETStandard,Version=v{Version.Major}.{Version.Minor}",
        "framework" => $".NETFramework,Version=v{Version.ToString(Version.Build >= 0 ? 3 : 2)}",
        _ => Raw,
    };

    /// Rank of a package lib/ref folder for this target; null when incompatible, higher is better.
    public int? Compat(Tfm lib)
    {
        switch (Family)
        {
            case "core":
                if (lib.Family == "core" && lib.Version <= Version) return 3000 + lib.Version.Major * 10 + lib.Version.Minor;
                if (lib.Family == "standard" && lib.Version <= new Version(2, 1)) return 1000 + lib.Version.Major * 10 + lib.Version.Minor;
                return null;
            case "standard":
                if (lib.Family == "standard" && lib.Version <= Version) return 1000 + lib.Version.Major * 10 + lib.Version.Minor;
                return null;
            case "framework":
                if (lib.Family == "framework" && lib.Version <= Version) return 3000 + lib.Version.Major * 100 + lib.Version.Minor * 10 + Math.Max(lib.Version.Build, 0);
                if (lib.Family == "standard" && lib.Version <= new Version(2, 0)) return 1000 + lib.Version.Major * 10 + lib.Version.Minor;
                return null;
        }
        return null;
    }
}

public sealed class Resolver
{
    public string? DotnetRoot { get; }
    public List<string> SdkVersions { get; } = new();
    public List<PackInfo> Packs { get; } = new();
    public string PackagesFolder { get; }

    public Resolver(string? packagesFolder)
    {
        DotnetRoot = FindDotnetRoot();
        if (DotnetRoot != null)
        {
            var sdk = Path.Combine(DotnetRoot, "sdk");
            if (Directory.Exists(sdk))
                SdkVersions.AddRange(Directory.GetDirectories(sdk).Select(Path.GetFileName).Where(n => n != null && char.IsDigit(n[0]))!);
            var packs = Path.Combine(DotnetRoot, "packs");
            if (Directory.Exists(packs))
                foreach (var p in Directory.GetDirectories(packs).Where(d => d.EndsWith(".Ref")))
                    foreach (var v in Directory.GetDirectories(p))
                        Packs.Add(new PackInfo(Path.GetFileName(p)[..^4], Path.GetFileName(v), v));
        }
        PackagesFolder = packagesFolder
            ?? Environment.GetEnvironmentVariable("NUGET_PACKAGES")
            ?? Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile), ".nuget", "packages");
    }

    static string? FindDotnetRoot()
    {
        // 1. the runtime we run on: <root>/shared/Microsoft.NETCore.App/<ver>/
        try
        {
            var rt = RuntimeEnvironment.GetRuntimeDirectory().TrimEnd('/', '\\');
            var root = Path.GetDirectoryName(Path.GetDirectoryName(Path.GetDirectoryName(rt)));
            if (root != null && Directory.Exists(Path.Combine(root, "packs"))) return root;
        }
        catch { }
        // 2. DOTNET_ROOT
        var env = Environment.GetEnvironmentVariable("DOTNET_ROOT");
        if (!string.IsNullOrEmpty(env) && Directory.Exists(Path.Combine(env, "packs"))) return env;
        // 3. dotnet --list-sdks: "10.0.401 [/usr/share/dotnet/sdk]"
        try
        {
            var psi = new ProcessStartInfo("dotnet", "--list-sdks") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
            using var p = Process.Start(psi)!;
            var text = p.StandardOutput.ReadToEnd();
            p.WaitForExit(10_000);
            foreach (var line in text.Split('\n'))
            {
                var a = line.IndexOf('['); var b = line.LastIndexOf(']');
                if (a > 0 && b > a)
                {
                    var root = Path.GetDirectoryName(line[(a + 1)..b]);
                    if (root != null && Directory.Exists(Path.Combine(root, "packs"))) return root;
                }
            }
        }
        catch { }
        return null;
    }

    static Version Ver(string s)
    {
        var core = s.Split('-', '+')[0];
        return Version.TryParse(core, out var v) ? v : new Version(0, 0);
    }

    /// Reference assemblies of one targeting pack (Microsoft.NETCore.App, Microsoft.AspNetCore.App, …) for a TFM.
    readonly Dictionary<(string, string, bool), Resolution> packMemo = new();

    /// Same as AddPackUncached, memoised per (pack, TFM): thousands of projects share a handful of answers.
    void AddPack(string name, Tfm tfm, Resolution r, bool required)
    {
        var key = (name, tfm.Raw, required);
        if (!packMemo.TryGetValue(key, out var m))
        {
            m = new Resolution();
            AddPackUncached(name, tfm, m, required);
            packMemo[key] = m;
        }
        r.Paths.AddRange(m.Paths);
        r.PackDirs.AddRange(m.PackDirs);
        r.Unresolved.AddRange(m.Unresolved.Select(u => new Unresolved { Kind = u.Kind, Name = u.Name, Reason = u.Reason }));
        r.Substitutions.AddRange(m.Substitutions.Select(u => new Substitution { Kind = u.Kind, Name = u.Name, Wanted = u.Wanted, Used = u.Used, Reason = u.Reason }));
    }

    void AddPackUncached(string name, Tfm tfm, Resolution r, bool required)
    {
        var packs = Packs.Where(p => p.Name == name).OrderByDescending(p => Ver(p.Version)).ToList();
        if (packs.Count == 0)
        {
            if (required) r.Unresolved.Add(new Unresolved { Kind = "framework", Name = name, Reason = $"no {name}.Ref targeting pack under {(DotnetRoot ?? "<dotnet root not found>")}/packs" });
            return;
        }
        var wanted = tfm.Family == "core" ? tfm.Version : null;
        var exact = wanted == null ? null : packs.FirstOrDefault(p => Ver(p.Version).Major == wanted.Major && Ver(p.Version).Minor == wanted.Minor);
        // nearest installed: the lowest version above the wanted one, else the highest below
        var chosen = exact
            ?? (wanted == null ? packs[0] : packs.Where(p => Ver(p.Version) > wanted).OrderBy(p => Ver(p.Version)).FirstOrDefault() ?? packs[0]);
        var refRoot = Path.Combine(chosen.Path, "ref");
        string? dir = null;
        if (Directory.Exists(refRoot))
        {
            var dirs = Directory.GetDirectories(refRoot);
            dir = dirs.FirstOrDefault(d => Path.GetFileName(d) == $"net{tfm.Version.Major}.{tfm.Version.Minor}") ?? dirs.OrderByDescending(d => Tfm.Parse(Path.GetFileName(d)).Version).FirstOrDefault();
        }
        if (dir == null)
        {
            r.Unresolved.Add(new Unresolved { Kind = "framework", Name = name, Reason = $"pack {chosen.Path} has no ref folder" });
            return;
        }
        r.Paths.AddRange(Directory.GetFiles(dir, "*.dll"));
        r.PackDirs.Add(chosen.Path);
        if (exact == null)
            r.Substitutions.Add(new Substitution { Kind = "framework", Name = name, Wanted = tfm.Raw, Used = $"{chosen.Version} ({Path.GetFileName(dir)})", Reason = $"no {name} {tfm.Raw} targeting pack installed; the nearest installed one is used" });
    }

    /// A reference-assembly package in the packages folder (netstandard / .NET Framework TFMs).
    bool AddRefPackage(string id, string sub, Resolution r)
    {
        var dir = Path.Combine(PackagesFolder, id.ToLowerInvariant());
        if (!Directory.Exists(dir)) return false;
        foreach (var v in Directory.GetDirectories(dir).OrderByDescending(d => Ver(Path.GetFileName(d))))
        {
            var refDir = Path.Combine(v, sub);
            if (!Directory.Exists(refDir)) continue;
            r.Paths.AddRange(Directory.GetFiles(refDir, "*.dll"));
            var facades = Path.Combine(refDir, "Facades");
            if (Directory.Exists(facades)) r.Paths.AddRange(Directory.GetFiles(facades, "*.dll"));
            return true;
        }
        return false;
    }

    public Resolution Resolve(ProjectDescription d, Func<string, string> abs)
    {
        var r = new Resolution();
        var tfm = Tfm.Parse(d.TargetFramework);
        // 1. the framework itself
        switch (tfm.Family)
        {
            case "core":
                AddPack("Microsoft.NETCore.App", tfm, r, true);
                break;
            case "standard":
                var std = (tfm.Version >= new Version(2, 1) && AddRefPackage("NETStandard.Library.Ref", "ref/netstandard2.1", r))
                    || AddRefPackage("NETStandard.Library", "build/netstandard2.0/ref", r);
                if (!std)
                {
                    AddPack("Microsoft.NETCore.App", new Tfm("core", new Version(99, 0), "latest"), r, true);
                    r.Substitutions.RemoveAll(s => s.Name == "Microsoft.NETCore.App");
                    r.Substitutions.Add(new Substitution { Kind = "framework", Name = "NETStandard.Library", Wanted = d.TargetFramework, Used = "Microsoft.NETCore.App (installed pack)", Reason = "NETStandard.Library reference assemblies are not in the packages folder; the installed .NET pack is used (a superset of the netstandard API)" });
                }
                break;
            case "framework":
                var fwId = $"Microsoft.NETFramework.ReferenceAssemblies.net{tfm.Version.Major}{tfm.Version.Minor}{(tfm.Version.Build > 0 ? tfm.Version.Build : "")}";
                var sub = $"build/.NETFramework/v{tfm.Version.ToString(tfm.Version.Build > 0 ? 3 : 2)}";
                if (!AddRefPackage(fwId, sub, r))
                {
                    AddPack("Microsoft.NETCore.App", new Tfm("core", new Version(99, 0), "latest"), r, true);
                    r.Substitutions.RemoveAll(s => s.Name == "Microsoft.NETCore.App");
                    r.Substitutions.Add(new Substitution { Kind = "framework", Name = ".NETFramework", Wanted = d.TargetFramework, Used = "Microsoft.NETCore.App (installed pack)", Reason = $"{fwId} is not in the packages folder; the installed .NET pack is used (APIs only in .NET Framework stay unresolved)" });
                }
                break;
            default:
                AddPack("Microsoft.NETCore.App", new Tfm("core", new Version(99, 0), "latest"), r, true);
                r.Substitutions.RemoveAll(s => s.Name == "Microsoft.NETCore.App");
                r.Substitutions.Add(new Substitution { Kind = "framework", Name = d.TargetFramework, Wanted = d.TargetFramework, Used = "Microsoft.NETCore.App (installed pack)", Reason = "target framework not recognised" });
                break;
        }
        // 2. packages (+ the framework references they bring)
        var frameworkRefs = new HashSet<string>(d.FrameworkReferences, StringComparer.OrdinalIgnoreCase);
        var assetsOk = false;
        if (!string.IsNullOrEmpty(d.AssetsFile))
        {
            var path = abs(d.AssetsFile);
            if (File.Exists(path))
            {
                try { assetsOk = ResolveAssets(path, tfm, d, r, frameworkRefs); }
                catch (Exception e) { r.Unresolved.Add(new Unresolved { Kind = "package", Name = "project.assets.json", Reason = $"unreadable: {e.Message}" }); }
            }
        }
        if (!assetsOk)
            foreach (var p in d.PackageReferences) ResolvePackageFromFolder(p, tfm, r);
        // 3. framework references
        foreach (var fr in frameworkRefs)
        {
            if (fr.Equals("Microsoft.NETCore.App", StringComparison.OrdinalIgnoreCase)) continue;
            if (tfm.Family != "core") { r.Unresolved.Add(new Unresolved { Kind = "framework", Name = fr, Reason = $"FrameworkReference on {d.TargetFramework}" }); continue; }
            AddPack(fr, tfm, r, true);
        }
        // 4. HintPath references
        foreach (var hp in d.References)
        {
            var p = abs(hp);
            if (File.Exists(p)) r.Paths.Add(p);
            else r.Unresolved.Add(new Unresolved { Kind = "reference", Name = Path.GetFileName(p), Reason = $"file not found: {p}" });
        }
        // de-duplicate by file name: the first (framework, then packages) wins, as the compiler would conflict otherwise
        var seen = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        var kept = r.Paths.Where(p => seen.Add(Path.GetFileName(p))).ToList();
        r.Paths.Clear(); r.Paths.AddRange(kept);
        return r;
    }

    bool ResolveAssets(string path, Tfm tfm, ProjectDescription d, Resolution r, HashSet<string> frameworkRefs)
    {
        using var doc = JsonDocument.Parse(File.ReadAllBytes(path));
        var root = doc.RootElement;
        if (!root.TryGetProperty("targets", out var targets)) return false;
        JsonElement? target = null;
        foreach (var t in targets.EnumerateObject())
        {
            var key = t.Name.Split('/')[0];
            if (key.Equals(tfm.Raw, StringComparison.OrdinalIgnoreCase) || key.Equals(tfm.LongName, StringComparison.OrdinalIgnoreCase)) { target = t.Value; break; }
        }
        if (target == null)
            foreach (var t in targets.EnumerateObject())
            {
                var key = t.Name.Split('/')[0];
                if (key.StartsWith(tfm.Raw, StringComparison.OrdinalIgnoreCase) || key.StartsWith(tfm.LongName, StringComparison.OrdinalIgnoreCase)) { target = t.Value; break; }
            }
        if (target == null) return false;
        var folders = new List<string>();
        if (root.TryGetProperty("packageFolders", out var pf)) folders.AddRange(pf.EnumerateObject().Select(p => p.Name));
        if (!folders.Contains(PackagesFolder)) folders.Add(PackagesFolder);
        var libs = root.TryGetProperty("libraries", out var l) ? l : default;
        var present = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        foreach (var lib in target.Value.EnumerateObject())
        {
            var type = lib.Value.TryGetProperty("type", out var ty) ? ty.GetString() : "package";
            var id = lib.Name.Split('/')[0];
            present.Add(id);
            if (type != "package") continue;
            if (lib.Value.TryGetProperty("frameworkReferences", out var fr))
                foreach (var f in fr.EnumerateArray()) if (f.GetString() is string s) frameworkRefs.Add(s);
            string? libPath = null;
            JsonElement le = default;
            if (libs.ValueKind == JsonValueKind.Object && libs.TryGetProperty(lib.Name, out le) && le.TryGetProperty("path", out var lp)) libPath = lp.GetString();
            libPath ??= lib.Name.ToLowerInvariant();
            // its analyzers (source generators among them): listed in the library's files
            if (le.ValueKind == JsonValueKind.Object && le.TryGetProperty("files", out var lf) && lf.ValueKind == JsonValueKind.Array)
                foreach (var a in GeneratorCatalog.PackageAnalyzerFiles(lf.EnumerateArray().Select(x => x.GetString() ?? "")))
                    if (folders.Select(f => Path.Combine(f, libPath, a)).FirstOrDefault(File.Exists) is string ap) r.Analyzers.Add(ap);
            if (!lib.Value.TryGetProperty("compile", out var compile)) continue;
            foreach (var asset in compile.EnumerateObject())
            {
                if (asset.Name.EndsWith("/_._") || asset.Name == "_._" || !asset.Name.EndsWith(".dll", StringComparison.OrdinalIgnoreCase)) continue;
                var found = folders.Select(f => Path.Combine(f, libPath, asset.Name)).FirstOrDefault(File.Exists);
                if (found != null) r.Paths.Add(found);
                else r.Unresolved.Add(new Unresolved { Kind = "package", Name = lib.Name, Reason = $"compile asset {asset.Name} not in the packages folder" });
            }
        }
        foreach (var p in d.PackageReferences)
            if (!present.Contains(p.Id))
                r.Unresolved.Add(new Unresolved { Kind = "package", Name = p.Id + (p.Version != null ? "/" + p.Version : ""), Reason = "not restored (absent from project.assets.json)" });
        return true;
    }

    void ResolvePackageFromFolder(PackageDesc p, Tfm tfm, Resolution r)
    {
        var dir = Path.Combine(PackagesFolder, p.Id.ToLowerInvariant());
        var name = p.Id + (p.Version != null ? "/" + p.Version : "");
        if (!Directory.Exists(dir)) { r.Unresolved.Add(new Unresolved { Kind = "package", Name = name, Reason = "not restored and not in the packages folder" }); return; }
        var versions = Directory.GetDirectories(dir).Select(Path.GetFileName).Where(v => v != null).Select(v => v!).ToList();
        var wantedRaw = (p.Version ?? "").Trim('[', ']', '(', ')').Split(',')[0].Trim();
        var wanted = Ver(wantedRaw);
        var chosen = versions.FirstOrDefault(v => v.Equals(wantedRaw, StringComparison.OrdinalIgnoreCase))
            ?? versions.Where(v => Ver(v) >= wanted).OrderBy(Ver).FirstOrDefault()
            ?? versions.OrderByDescending(Ver).FirstOrDefault();
        if (chosen == null) { r.Unresolved.Add(new Unresolved { Kind = "package", Name = name, Reason = "no version in the packages folder" }); return; }
        string? best = null; int bestRank = -1;
        foreach (var kind in new[] { "ref", "lib" })
        {
            var kd = Path.Combine(dir, chosen, kind);
            if (!Directory.Exists(kd)) continue;
            foreach (var fd in Directory.GetDirectories(kd))
            {
                var rank = tfm.Compat(Tfm.Parse(Path.GetFileName(fd)));
                if (rank is int rk && rk > bestRank && Directory.GetFiles(fd, "*.dll").Length > 0) { best = fd; bestRank = rk; }
            }
            if (best != null) break;
        }
        if (best == null) { r.Unresolved.Add(new Unresolved { Kind = "package", Name = name, Reason = $"{p.Id} {chosen} has no assemblies for {tfm.Raw}" }); return; }
        r.Paths.AddRange(Directory.GetFiles(best, "*.dll"));
        var analyzers = Path.Combine(dir, chosen, "analyzers");
        if (Directory.Exists(analyzers))
            r.Analyzers.AddRange(GeneratorCatalog.PackageAnalyzerFiles(Directory.GetFiles(analyzers, "*.dll", SearchOption.AllDirectories).Select(f => Path.GetRelativePath(Path.Combine(dir, chosen), f))).Select(f => Path.Combine(dir, chosen, f)));
        r.Substitutions.Add(new Substitution { Kind = "package", Name = p.Id, Wanted = p.Version ?? "*", Used = $"{chosen} ({Path.GetFileName(best)})", Reason = "no project.assets.json: taken from the packages folder (direct package only, its dependencies are not followed)" });
    }
}
