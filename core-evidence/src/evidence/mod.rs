//! Evidence from real runs: trace records, their evaluation against the offer, and Call
//! scores fitted to them (SPEC 8).
//!
//! A trace record is one operator invocation: which operator ran (or which seeds) and which
//! tools the model called, by their toolkit names. [`traces`] reads the JSONL form,
//! [`otlp`] OpenTelemetry's OTLP JSON, [`eval`] scores the offer against the records and
//! [`fit`] suggests Call scores. Token costs come in through [`TokenCost`], so this module
//! knows no tokenizer (the CLI passes `crate::tokens`).

use petgraph::stable_graph::NodeIndex;

pub mod criterion;
pub mod defs;
pub mod eval;
pub mod fit;
pub mod floor;
pub mod init;
pub mod learn;
pub mod lines;
pub mod otlp;
mod otlp_runs;
mod otlp_shapes;
pub mod read;
pub mod report;
pub mod resolve;
pub mod steps;
pub mod stream;
pub mod traces;

#[cfg(test)]
pub(crate) mod eval_tests;

/// The estimated prompt tokens of one offered tool.
pub trait TokenCost {
    fn tool_tokens(&self, ix: NodeIndex) -> u64;
}

/// A cost given by a function, for tests and for callers with their own counts.
pub struct CostFn<F: Fn(NodeIndex) -> u64>(pub F);

impl<F: Fn(NodeIndex) -> u64> TokenCost for CostFn<F> {
    fn tool_tokens(&self, ix: NodeIndex) -> u64 {
        (self.0)(ix)
    }
}

/// What a record ran: a named operator, or seeds given by name.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Operator(String),
    Seeds(Vec<String>),
}

/// One operator invocation.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Where it came from: file name and 1-based line.
    pub file: String,
    pub line: u32,
    pub id: Option<String>,
    pub target: Target,
    pub threshold: Option<f64>,
    pub hops: Option<u32>,
    /// Called tool names as written (duplicates allowed).
    pub called: Vec<String>,
    pub ok: Option<bool>,
    /// The calls in the order they were made, repeats kept (JSONL `calls`; OTLP: tool
    /// spans by start time). `None` when the record gives no order: steps need it.
    pub calls: Option<Vec<String>>,
    /// What was available to the agent in this run (tool or group names), the baseline of
    /// the step evaluation; `None` when the record does not say.
    pub available: Option<Vec<String>>,
}

impl Record {
    /// A record for an operator with its calls (tests, recorders).
    pub fn operator(name: &str, called: &[&str]) -> Record {
        Record {
            file: String::new(),
            line: 0,
            id: None,
            target: Target::Operator(name.to_string()),
            threshold: None,
            hops: None,
            called: called.iter().map(|s| s.to_string()).collect(),
            ok: None,
            calls: None,
            available: None,
        }
    }

    /// A record for an operator with its calls in order (tests, recorders).
    pub fn ordered(name: &str, calls: &[&str]) -> Record {
        let mut r = Record::operator(name, calls);
        r.calls = Some(r.called.clone());
        r
    }
}

/// The format of a trace file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    Jsonl,
    Otlp,
}

/// Guesses the format from the first non-blank line: OTLP lines hold `resourceSpans`.
pub fn detect_format(text: &str) -> TraceFormat {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if first.contains("\"resourceSpans\"") {
        TraceFormat::Otlp
    } else {
        TraceFormat::Jsonl
    }
}

/// Reads trace files: records in file order and diagnostics for bad lines. `format`
/// `None` detects each file's format; `naming` says how OTLP runs are named.
/// A file that cannot be read is an error. Bounded by the default [`read::TraceLimits`]:
/// regular files only, streamed by line, with a size limit per file and per line and a
/// memory limit on what the records hold.
pub fn load_traces(
    paths: &[std::path::PathBuf],
    format: Option<TraceFormat>,
    naming: &otlp::OperatorNaming,
) -> Result<(Vec<Record>, Vec<crate::diag::Diagnostic>), String> {
    read::load(paths, format, naming, &read::TraceLimits::default())
}
