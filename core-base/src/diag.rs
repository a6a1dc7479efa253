//! Diagnostics: a problem in a toolkit file with its position, severity and stable code.

use serde::Serialize;

/// How bad a diagnostic is. `Error` makes `toolscope lint` exit with 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// Stable diagnostic codes. The numbers never change meaning; new codes get new numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Code {
    /// The YAML could not be parsed.
    Parse,
    /// A resource limit was exceeded (size, depth, node count).
    Limit,
    /// The file could not be read.
    Io,
    /// A YAML file holds no toolkit (`x: 1`, an empty document): named, an error; found
    /// in a folder, skipped with a note.
    NoToolkit,
    /// A construct has the wrong shape (not a list, not a mapping, no name, ...).
    Shape,
    /// Two declarations of the same kind share a name.
    DuplicateName,
    /// One name used by two kinds (an action and a tool called `search`).
    NameTwoKinds,
    /// A mapping key written twice (the last one wins, as in PyYAML).
    DuplicateKey,
    /// The same edge listed twice.
    DuplicateEdge,
    /// A `next` reference (or chain item) naming no action.
    UnknownAction,
    /// A tool reference naming no declared tool or group.
    UnknownTool,
    /// An operator naming an action that is not in the toolkit.
    OperatorUnknownAction,
    /// A score that is not a number.
    ScoreNotNumber,
    /// A score that is NaN, infinite or outside [0, 1].
    ScoreOutOfRange,
    /// A threshold that is not a number in [0, 1].
    BadThreshold,
    /// Hops that are not a whole number from 0 to `recommend::MAX_HOPS`.
    BadHops,
    /// A tool that no action calls.
    ToolNeverCalled,
    /// An action no `Next` edge reaches and no operator starts from.
    ActionNeverReached,
    /// A Chat2Graph action declared but in no `toolkit:` chain (not a vertex).
    ActionNotInChain,
    /// A `scores:` entry naming an edge that does not exist.
    ScoreEntryNoEdge,
    /// A Chat2Graph `Next` edge that joins two chains (Chat2Graph flattens the chains).
    CrossChainEdge,
    /// A Chat2Graph tool entry whose `type` is neither LOCAL_TOOL nor MCP.
    UnsupportedToolType,
    /// A list key Chat2Graph iterates (`tools:`, `actions:`, `toolkit:`, ...) written with
    /// no value (null): Chat2Graph fails to load the file.
    NullList,
    /// Chat2Graph's loader ignores operator `threshold`/`hops` and the `scores:` list.
    TuningIgnored,
    /// A tool reference in a Chat2Graph action written as a bare name: dropped silently.
    BareToolRef,
    /// A tool whose own `describe --style json` entry costs more tokens than the limit.
    ToolEntryTokens,
    /// A trace line that is not a valid record (not JSON, wrong shape or field type).
    TraceLine,
    /// A trace record naming no operator of the toolkit, or seeds naming no action.
    TraceUnknownTarget,
    /// An OTLP line that is not an object of `resourceSpans`, or a malformed span.
    OtlpShape,
    /// OTLP runs naming no agent (left out without `--default-operator`), or tool calls
    /// under no agent run of their trace; one per condition and file, with a count.
    OtlpNoOperator,
    /// OTLP inference spans that asked for tools but hold no message content (the
    /// library recorded without content): their calls cannot be read.
    OtlpNoContent,
    /// OTLP spans holding tool calls in a form toolscope does not read.
    OtlpUnreadCalls,
    /// Opened files define operators with the same name (each kept as `NAME @ FILE`).
    SharedOperatorName,
    /// A file with more than one YAML document (only the first is read).
    MoreDocuments,
    /// An MCP sidecar cache that cannot be read or parsed (ignored).
    McpCacheUnreadable,
    /// An MCP sidecar cache made for another server than the file now declares (ignored).
    McpCacheStale,
    /// An MCP sidecar cache entry for a server the file no longer declares.
    McpCacheOrphan,
    /// An MCP server whose transport toolscope cannot use (WEBSOCKET, unknown, none).
    McpUnsupportedTransport,
    /// An MCP server listed a tool that is not a valid tool (skipped).
    McpMalformedTool,
    /// An MCP server could not be started, failed the handshake or `tools/list`.
    McpServerFailed,
    /// An MCP server did not finish discovery within the timeout.
    McpTimeout,
    /// A `scores:` entry naming an MCP server whose tools are known: it scores each of
    /// them the action calls that has no score of its own.
    ScoreOnServer,
    /// A `scores:` entry naming a tool that is no known tool of the MCP servers its action
    /// calls (the cache lists no such tool, or the servers' tools are unknown), or a bare
    /// tool name several servers share.
    McpMemberUnknown,
    /// Two MCP servers list a tool of one name: the model sees two functions named alike.
    McpSharedMember,
    /// An MCP cache older than `mcp::cache::MAX_AGE_DAYS` (lint, info).
    McpCacheOld,
    /// A chained action calls an MCP server whose cache lists no tools: Chat2Graph offers
    /// nothing from it, and neither does toolscope.
    McpServerNoTools,
}

impl Code {
    /// The stable code, for example `TS040`.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Parse => "TS001",
            Code::Limit => "TS002",
            Code::Io => "TS003",
            Code::NoToolkit => "TS004",
            Code::Shape => "TS010",
            Code::DuplicateName => "TS020",
            Code::NameTwoKinds => "TS021",
            Code::DuplicateKey => "TS022",
            Code::DuplicateEdge => "TS023",
            Code::UnknownAction => "TS030",
            Code::UnknownTool => "TS031",
            Code::OperatorUnknownAction => "TS032",
            Code::ScoreNotNumber => "TS040",
            Code::ScoreOutOfRange => "TS041",
            Code::BadThreshold => "TS042",
            Code::BadHops => "TS043",
            Code::ToolNeverCalled => "TS050",
            Code::ActionNeverReached => "TS051",
            Code::ActionNotInChain => "TS052",
            Code::ScoreEntryNoEdge => "TS060",
            Code::CrossChainEdge => "TS061",
            Code::UnsupportedToolType => "TS062",
            Code::NullList => "TS070",
            Code::TuningIgnored => "TS071",
            Code::BareToolRef => "TS072",
            Code::ToolEntryTokens => "TS080",
            Code::TraceLine => "TS081",
            Code::TraceUnknownTarget => "TS082",
            Code::OtlpShape => "TS083",
            Code::OtlpNoOperator => "TS084",
            Code::OtlpNoContent => "TS085",
            Code::OtlpUnreadCalls => "TS086",
            Code::SharedOperatorName => "TS075",
            Code::MoreDocuments => "TS076",
            Code::McpCacheUnreadable => "TS090",
            Code::McpCacheStale => "TS091",
            Code::McpCacheOrphan => "TS092",
            Code::McpUnsupportedTransport => "TS093",
            Code::McpMalformedTool => "TS094",
            Code::McpServerFailed => "TS095",
            Code::McpTimeout => "TS096",
            Code::ScoreOnServer => "TS063",
            Code::McpMemberUnknown => "TS064",
            Code::McpSharedMember => "TS065",
            Code::McpCacheOld => "TS097",
            Code::McpServerNoTools => "TS098",
        }
    }

    /// Every code, for documentation and tests.
    pub const ALL: [Code; 46] = [
        Code::Parse,
        Code::Limit,
        Code::Io,
        Code::NoToolkit,
        Code::Shape,
        Code::DuplicateName,
        Code::NameTwoKinds,
        Code::DuplicateKey,
        Code::DuplicateEdge,
        Code::UnknownAction,
        Code::UnknownTool,
        Code::OperatorUnknownAction,
        Code::ScoreNotNumber,
        Code::ScoreOutOfRange,
        Code::BadThreshold,
        Code::BadHops,
        Code::ToolNeverCalled,
        Code::ActionNeverReached,
        Code::ActionNotInChain,
        Code::ScoreEntryNoEdge,
        Code::CrossChainEdge,
        Code::UnsupportedToolType,
        Code::NullList,
        Code::TuningIgnored,
        Code::BareToolRef,
        Code::ToolEntryTokens,
        Code::TraceLine,
        Code::TraceUnknownTarget,
        Code::OtlpShape,
        Code::OtlpNoOperator,
        Code::OtlpNoContent,
        Code::OtlpUnreadCalls,
        Code::SharedOperatorName,
        Code::MoreDocuments,
        Code::McpCacheUnreadable,
        Code::McpCacheStale,
        Code::McpCacheOrphan,
        Code::McpUnsupportedTransport,
        Code::McpMalformedTool,
        Code::McpServerFailed,
        Code::McpTimeout,
        Code::ScoreOnServer,
        Code::McpMemberUnknown,
        Code::McpSharedMember,
        Code::McpCacheOld,
        Code::McpServerNoTools,
    ];
}

/// One diagnostic, shaped as `toolscope lint --format json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub severity: Severity,
    #[serde(serialize_with = "code_str")]
    pub code: Code,
    pub message: String,
}

fn code_str<S: serde::Serializer>(code: &Code, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(code.as_str())
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: {} {}: {}",
            self.file,
            self.line,
            self.column,
            self.severity.as_str(),
            self.code.as_str(),
            self.message
        )
    }
}
