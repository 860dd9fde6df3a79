// Wire types of roslyn/PROTOCOL.md (camelCase JSON; null fields are omitted on output).
namespace Sextant.RoslynHost;

public sealed class InitializeParams
{
    public string WorkspaceRoot { get; set; } = "";
    public int? MemoryCapMb { get; set; }
    public int? ParentPid { get; set; }
    public string? NugetPackagesFolder { get; set; }
}

public sealed class UsingDesc
{
    public string Name { get; set; } = "";
    public string? Alias { get; set; }
    public bool? Static { get; set; }
}

public sealed class DocumentDesc
{
    public string Path { get; set; } = "";
    public string? LinkPath { get; set; }
    public bool? Generated { get; set; }
}

public sealed class PackageDesc
{
    public string Id { get; set; } = "";
    public string? Version { get; set; }
}

public sealed class ProjectDescription
{
    public string Key { get; set; } = "";
    public string ProjectPath { get; set; } = "";
    public string Name { get; set; } = "";
    public string? AssemblyName { get; set; }
    public string TargetFramework { get; set; } = "";
    public string? OutputKind { get; set; }
    public string? LangVersion { get; set; }
    public string? Nullable { get; set; }
    public bool? AllowUnsafe { get; set; }
    public bool? CheckForOverflow { get; set; }
    public List<string> Defines { get; set; } = new();
    public List<UsingDesc> GlobalUsings { get; set; } = new();
    /// protocol 7: assembly names the project's internals are visible to (the SDK's AssemblyInfo InternalsVisibleTo attributes)
    public List<string>? InternalsVisibleTo { get; set; }
    public List<DocumentDesc> Documents { get; set; } = new();
    public List<string> ProjectReferences { get; set; } = new();
    public List<PackageDesc> PackageReferences { get; set; } = new();
    public List<string> FrameworkReferences { get; set; } = new();
    public List<string> References { get; set; } = new();
    public List<string> Analyzers { get; set; } = new();
    public string? AssetsFile { get; set; }
    /// protocol 5: the generator trigger names (initialize's generatorTriggers) the project's files mention
    public List<string>? GeneratorTriggers { get; set; }
    public string Hash { get; set; } = "";
}

public sealed class EnsureParams { public List<ProjectDescription> Projects { get; set; } = new(); }
public sealed class EvictParams { public List<string>? Keys { get; set; } public bool? Forget { get; set; } }

public sealed class DocumentChange
{
    public string Path { get; set; } = "";
    public string Kind { get; set; } = "changed";
    /// an editor's unsaved buffer: the document's text until a change without text (back to disk)
    public string? Text { get; set; }
}
public sealed class DocumentsChangedParams { public List<DocumentChange> Changes { get; set; } = new(); }

public sealed class PositionParam
{
    public string Path { get; set; } = "";
    public int Line { get; set; }
    public int Column { get; set; }
    public string? ProjectKey { get; set; }
}

public sealed class SymbolParam { public string DocId { get; set; } = ""; public string ProjectKey { get; set; } = ""; }

public sealed class QueryOptions
{
    public bool? IncludeDeclaration { get; set; }
    public bool? IncludeRelated { get; set; }
    public string? Direction { get; set; }
    public bool? Transitive { get; set; }
    public int? DeadlineMs { get; set; }
    public int? MaxItems { get; set; }
    public bool? WidenDispatch { get; set; }
    public int? BatchProjects { get; set; }
    public List<string>? Documents { get; set; }
}

public sealed class QueryParams
{
    public string Op { get; set; } = "";
    public PositionParam? Position { get; set; }
    public SymbolParam? Symbol { get; set; }
    public List<string>? Scope { get; set; }
    public QueryOptions? Options { get; set; }
}

public sealed class Unresolved
{
    public string Kind { get; set; } = "";
    public string Name { get; set; } = "";
    public string Reason { get; set; } = "";
}

public sealed class Substitution
{
    public string Kind { get; set; } = "";
    public string Name { get; set; } = "";
    public string Wanted { get; set; } = "";
    public string Used { get; set; } = "";
    public string Reason { get; set; } = "";
}

public sealed class EnsureResult
{
    public string Key { get; set; } = "";
    public string Status { get; set; } = "";
    public int Documents { get; set; }
    public int MetadataReferences { get; set; }
    public List<Unresolved> Unresolved { get; set; } = new();
    public List<Substitution> Substitutions { get; set; } = new();
    public string? Error { get; set; }
}

public sealed class Stats
{
    public long LoadMs { get; set; }
    public long SearchMs { get; set; }
    public int ProjectsLoaded { get; set; }
    public int ProjectsEvicted { get; set; }
    public long WorkingSetMb { get; set; }
    public long GcHeapMb { get; set; }
    /// CPU time of the whole host process during the request (all threads; warm-up excepted when done)
    public long? CpuMs { get; set; }
}

public sealed class Span
{
    public int Line { get; set; }
    public int Column { get; set; }
    public int EndLine { get; set; }
    public int EndColumn { get; set; }
}

public sealed class Loc
{
    public string Path { get; set; } = "";
    public int Line { get; set; }
    public int Column { get; set; }
    public int EndLine { get; set; }
    public int EndColumn { get; set; }
    public bool? External { get; set; }
    public Span? FullSpan { get; set; }
    public bool? Generated { get; set; }
    // op-specific extras (definition / references / diagnostics rows)
    public string? ProjectKey { get; set; }
    public bool? PartialPart { get; set; }
    public string? Definition { get; set; }
    public bool? Related { get; set; }
    public string? Relation { get; set; }
    public bool? IsDeclaration { get; set; }
    public bool? IsImplicit { get; set; }
    public bool? IsCandidate { get; set; }
    public string? Id { get; set; }
    public string? Severity { get; set; }
    public string? Message { get; set; }
    /// a metadata declaration (a decompiled: path): assembly, package, signature, doc summary (protocol 5)
    public MetadataFacts? Metadata { get; set; }
    /// references (protocol 6): "unbound" — a mention of the name Roslyn could not bind; `BlockedBy`
    /// names the unresolved type in the way, `CandidateReason` Roslyn's reason when it had candidates
    public string? Confidence { get; set; }
    public string? BlockedBy { get; set; }
    public string? CandidateReason { get; set; }
}

public sealed class MetadataFacts
{
    public string Assembly { get; set; } = "";
    public string? Package { get; set; }
    public string? Signature { get; set; }
    public string? Summary { get; set; }
}

/// references / callers of a metadata symbol (protocol 5): the known projects referencing its
/// assembly; the others in the scope cannot use it and count as searched
public sealed class MetadataScope
{
    public string Assembly { get; set; } = "";
    public int Referencing { get; set; }
    public int Known { get; set; }
}

public class SymbolRef
{
    public string Name { get; set; } = "";
    public string Kind { get; set; } = "unknown";
    public string Display { get; set; } = "";
    public string? DocId { get; set; }
    public string? ContainerName { get; set; }
    public string? ProjectKey { get; set; }
    public string? Assembly { get; set; }
    public List<Loc> Locations { get; set; } = new();
    // implementations / typeHierarchy rows
    public string? Relation { get; set; }
    public string? Direction { get; set; }
    public int? Depth { get; set; }
    // symbolInfo dispatchers (protocol 3): "interface" | "base"
    public string? Via { get; set; }
}

public sealed class NotSearched { public string Key { get; set; } = ""; public string Reason { get; set; } = ""; public string? Detail { get; set; } }
public sealed class UnresolvedCounts { public int Projects { get; set; } public int References { get; set; } }

public sealed class CallRow
{
    public SymbolRef? From { get; set; }
    public SymbolRef? To { get; set; }
    public List<Loc> Sites { get; set; } = new();
    public string? Via { get; set; }
    public string? ViaSymbol { get; set; }
    public string? CallKind { get; set; }
    public bool? Virtual { get; set; }
    /// callers (protocol 6): "reference" when the caller names the method without calling it (a method group)
    public string? Kind { get; set; }
    /// protocol 6: "unbound" — a mention of the name Roslyn could not bind (see `BlockedBy`)
    public string? Confidence { get; set; }
    public string? BlockedBy { get; set; }
}

public sealed class SymbolInfoRow
{
    public SymbolRef Symbol { get; set; } = new();
    public SymbolRef? Type { get; set; }
    public List<string> Modifiers { get; set; } = new();
    public bool IsFromSource { get; set; }
    public bool? IsGenerated { get; set; }
    public string Signature { get; set; } = "";
    public SymbolRef? Overridden { get; set; }
    public List<SymbolRef> Implements { get; set; } = new();
    public List<SymbolRef>? OverriddenChain { get; set; }
    public List<SymbolRef>? Dispatchers { get; set; }
    /// protocol 8: a metadata class or interface: the metadata types of the compilation's references
    /// that derive from or implement it (simple names), whose workspace subclasses implement it unnamed
    public List<string>? MetadataDerived { get; set; }
    /// protocol 8: MetadataDerived stopped at its cap (more metadata types derive from it)
    public bool? MetadataDerivedCut { get; set; }
}

public sealed class DocumentationRow { public string Xml { get; set; } = ""; public string? Summary { get; set; } }

public sealed class QueryResult
{
    public SymbolRef? Symbol { get; set; }
    public string? Reason { get; set; }
    public List<object> Items { get; set; } = new();
    public bool? Truncated { get; set; }
    public List<string> Searched { get; set; } = new();
    public List<NotSearched> NotSearched { get; set; } = new();
    public UnresolvedCounts UnresolvedInScope { get; set; } = new();
    public Stats Stats { get; set; } = new();
    /// callers: the interface / base members calls were followed through (no locations)
    public List<SymbolRef>? Dispatchers { get; set; }
    /// callers: known projects the host added to the scope for calls through them
    public List<string>? DispatchScope { get; set; }
    /// diagnostics of one document cut by the deadline: only its syntax diagnostics (protocol 4)
    public bool? SyntaxOnly { get; set; }
    /// definition (protocol 6): a declaration Roslyn expects is missing (a partial member's implementing part)
    public string? Incomplete { get; set; }
    /// references / callers / implementations of a metadata symbol (protocol 5)
    public MetadataScope? MetadataScope { get; set; }
    /// source generators of the searched projects that threw (protocol 5): their output is missing
    public List<GeneratorFailure>? GeneratorFailures { get; set; }
    /// a position query whose name did not bind (protocol 6): the symbol, when there is one, is Roslyn's candidate
    public UnboundInfo? Unbound { get; set; }
}

public sealed class GeneratorFailure
{
    public string ProjectKey { get; set; } = "";
    public string Generator { get; set; } = "";
    public string Error { get; set; } = "";
}

public sealed class UnboundInfo { public string Name { get; set; } = ""; public string? BlockedBy { get; set; } public string? CandidateReason { get; set; } }
