//! `toolscope init`: a native toolkit from tool definitions (OpenAI function-calling JSON,
//! MCP `tools/list` results, toolscope's MCP sidecars) and, with traces, the `Next` prior
//! and operators learned from the runs. Writes to `-o FILE` by the output rules `export`
//! follows (never over an input; an existing file only with `--force`), or to stdout.

use std::path::PathBuf;
use std::process::ExitCode;

use super::common::{error, status, warning};
use super::eval::{TraceFormatArg, print_diags};
use super::export::write_out;
use toolscope_core::evidence::defs::{Source, fit_schemas, read_file};
use toolscope_core::evidence::init::{InitReport, build, duplicates};
use toolscope_core::evidence::{Record, TraceFormat, load_traces};
use toolscope_core::export::native::to_native;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Definitions files: OpenAI function-calling JSON (an array, one object, or JSONL), MCP
    /// `tools/list` results or toolscope MCP sidecars (FILE.mcp.json), told apart by content.
    /// Each file (each sidecar server) becomes one group.
    #[arg(required = true, value_name = "DEFS")]
    defs: Vec<PathBuf>,
    /// Write the toolkit to FILE instead of stdout (never over an input file).
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Replace FILE when it exists.
    #[arg(long, requires = "output")]
    force: bool,
    /// Trace files of real runs (repeatable; records with `calls` in order): the `Next`
    /// prior and one operator per operator name, seeded with the tools called first.
    #[arg(long, value_name = "FILE")]
    traces: Vec<PathBuf>,
    /// The trace format; detected per file when not given.
    #[arg(long, value_enum)]
    traces_format: Option<TraceFormatArg>,
    #[command(flatten)]
    naming: crate::cli::eval::NamingArgs,
    /// The toolkit's `name` (default: the output file's stem, else `toolkit`).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
}

pub fn run(args: &Args) -> ExitCode {
    match execute(args) {
        Ok(code) => code,
        Err(message) => {
            error(&message);
            ExitCode::from(1)
        }
    }
}

fn execute(args: &Args) -> Result<ExitCode, String> {
    let mut sources: Vec<Source> = Vec::new();
    for p in &args.defs {
        sources.extend(read_file(p)?);
    }
    for note in fit_schemas(&mut sources) {
        warning(&note);
    }
    let dups = duplicates(&sources);
    if !dups.is_empty() {
        for d in &dups {
            error(&format!(
                "`{}` is defined in {} and again in {}",
                d.name, d.first, d.second
            ));
        }
        return Err(format!(
            "{} name(s) defined twice; rename them in the definitions (init never merges them)",
            dups.len()
        ));
    }
    let records = read_records(args)?;
    let name = args.name.clone().unwrap_or_else(|| {
        args.output
            .as_ref()
            .and_then(|o| o.file_stem())
            .and_then(|s| s.to_str())
            .unwrap_or("toolkit")
            .to_string()
    });
    let (tk, report) = build(&name, &sources, &records);
    let text = format!(
        "# written by toolscope init from {} definitions file(s){}\n{}",
        args.defs.len(),
        if records.is_empty() {
            String::new()
        } else {
            format!(" and {} trace record(s)", records.len())
        },
        to_native(&tk)
    );
    loads_back(&text)?;
    // Definitions files may be MCP sidecars or toolkits with sidecars: all protected.
    let opened = super::export::opened(&[], &args.defs, &args.traces);
    let code = write_out(args.output.as_deref(), &text, &opened, args.force);
    if code == ExitCode::SUCCESS {
        summary(&report, records.len());
    }
    Ok(code)
}

/// Refuses a toolkit its own loader would refuse (over the memory budget, TS002, for
/// hundreds of thousands of definitions; any other error): init never writes a file
/// toolscope cannot read.
fn loads_back(text: &str) -> Result<(), String> {
    use toolscope_core::diag::Severity;
    use toolscope_core::load::load_text;
    use toolscope_core::mcp::cache;
    use toolscope_core::source::{Format, Limits};
    // The text alone: not an MCP cache that happens to lie beside a file of this name.
    let was = cache::enabled();
    cache::set_enabled(false);
    let name = std::path::Path::new("init.yaml");
    let loaded = load_text(
        name,
        text.to_string(),
        Some(Format::Native),
        &Limits::default(),
    );
    cache::set_enabled(was);
    let file = loaded.map_err(|e| {
        format!(
            "the toolkit init would write would not load back: {}: {e}; nothing written (use fewer definitions per toolkit)",
            e.code.as_str()
        )
    })?;
    match file
        .diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error)
    {
        Some(d) => Err(format!(
            "the toolkit init would write would not load back: {}: {}; nothing written (use fewer definitions per toolkit)",
            d.code.as_str(),
            d.message
        )),
        None => Ok(()),
    }
}

fn read_records(args: &Args) -> Result<Vec<Record>, String> {
    if args.traces.is_empty() {
        return Ok(Vec::new());
    }
    let format = args.traces_format.map(|f| match f {
        TraceFormatArg::Jsonl => TraceFormat::Jsonl,
        TraceFormatArg::Otlp => TraceFormat::Otlp,
    });
    let (records, diags) = load_traces(&args.traces, format, &args.naming.naming())?;
    print_diags(&diags);
    Ok(records)
}

fn summary(r: &InitReport, records: usize) {
    status(&format!(
        "init: {} tool(s) in {} group(s), one action each ({} Next edge(s))",
        r.tools, r.groups, r.next_edges
    ));
    if records == 0 {
        return;
    }
    for (op, n) in &r.operators {
        status(&format!("init: operator `{op}` from {n} record(s)"));
    }
    if r.skipped_records > 0 {
        status(&format!(
            "init: {} record(s) named no operator or called no defined tool first; not used for operators",
            r.skipped_records
        ));
    }
    if r.unknown_calls > 0 {
        status(&format!(
            "init: {} call(s) name no defined tool; left out",
            r.unknown_calls
        ));
    }
    status(
        "init: the Next scores are a prior from the runs; `toolscope fit --write` learns the transitions",
    );
}
