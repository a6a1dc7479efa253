//! What the subcommands share: loading paths, seed and parameter arguments, output formats.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use petgraph::stable_graph::NodeIndex;

use toolscope_core::model::OperatorLookup;
use toolscope_core::model::Toolkit;
use toolscope_core::recommend::MAX_HOPS;
use toolscope_core::recommend::{Params, resolve_seeds};
use toolscope_core::source::{Format, Loaded};

/// `--input-format`: force a format instead of detecting it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    Native,
    Chat2graph,
}

impl From<InputFormat> for Format {
    fn from(f: InputFormat) -> Format {
        match f {
            InputFormat::Native => Format::Native,
            InputFormat::Chat2graph => Format::Chat2Graph,
        }
    }
}

/// Files or directories to load, with the format option.
#[derive(Debug, Clone, Args)]
pub struct Inputs {
    /// Toolkit files or directories (merged in order).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Force the input format instead of detecting it.
    #[arg(long, value_enum, global = true)]
    pub input_format: Option<InputFormat>,
}

impl Inputs {
    /// Loads the inputs, printing a clear error on failure.
    /// A file named here that holds no toolkit (TS004) is refused: a command on it would
    /// answer about nothing, and exit 0.
    pub fn load(&self) -> Result<Loaded, ExitCode> {
        let paths = distinct(&self.paths);
        let loaded = toolscope_core::load::load_paths(&paths, self.input_format.map(Format::from))
            .map_err(|e| {
                error(&e.to_string());
                ExitCode::from(1)
            })?;
        let empty = loaded.diagnostics.iter().find(|d| {
            d.code == toolscope_core::diag::Code::NoToolkit
                && d.severity == toolscope_core::diag::Severity::Error
        });
        if let Some(d) = empty {
            let code = d.code.as_str();
            error(&format!(
                "{}:{}:{}: {code}: {}",
                d.file, d.line, d.column, d.message
            ));
            return Err(ExitCode::from(1));
        }
        Ok(loaded)
    }
}

/// The paths naming distinct files, in order: a path naming a file given before (the
/// same path again, a symlink or a hard link to it) is dropped with a note. Loaded twice,
/// a file defines every name twice (and `fit` matched no record to its operators).
pub fn distinct(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut seen: Vec<(u64, u64, usize)> = Vec::new();
    let mut out = Vec::with_capacity(paths.len());
    for (i, p) in paths.iter().enumerate() {
        match file_id(p) {
            Some((dev, ino)) => match seen.iter().find(|s| (s.0, s.1) == (dev, ino)) {
                Some(&(_, _, first)) => note(&format!(
                    "{} is the same file as {}; read once",
                    p.display(),
                    paths[first].display()
                )),
                None => {
                    seen.push((dev, ino, i));
                    out.push(p.clone());
                }
            },
            None => out.push(p.clone()),
        }
    }
    out
}

/// A regular file's device and inode (`None` for anything else: a folder is expanded by
/// the loader, a missing file reported by it).
fn file_id(p: &std::path::Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(p).ok().filter(|m| m.is_file())?;
        Some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = p;
        None
    }
}

/// Seeds and parameters of a recommendation.
#[derive(Debug, Clone, Args, Default)]
pub struct SeedArgs {
    /// Seed actions, comma-separated (use --seed for names containing commas).
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    pub seeds: Vec<String>,
    /// One seed action; repeatable; the name may contain spaces and punctuation.
    #[arg(long = "seed", value_name = "NAME")]
    pub seed: Vec<String>,
    /// Use an operator's seeds, threshold and hops (overridden by --threshold/--hops).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["seeds", "seed"])]
    pub operator: Option<String>,
    /// Minimum score of an edge to follow (0 to 1).
    #[arg(long, short = 't', value_name = "T", value_parser = parse_threshold)]
    pub threshold: Option<f64>,
    /// How many Next hops to follow from the seeds.
    #[arg(long, value_name = "H", value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_HOPS)))]
    pub hops: Option<u32>,
}

/// Parses a threshold (or any share): a number in [0, 1], read by the registry's one
/// parser, as `set` and the TUI read one.
pub fn parse_threshold(s: &str) -> Result<f64, String> {
    toolscope_core::edit::ops::parse_score(s)
}

/// Resolved seeds and parameters.
#[derive(Debug, Clone)]
pub struct Query {
    pub seeds: Vec<NodeIndex>,
    pub seed_names: Vec<String>,
    pub params: Params,
}

impl SeedArgs {
    /// Whether any seed or operator was given.
    pub fn any(&self) -> bool {
        !self.seeds.is_empty() || !self.seed.is_empty() || self.operator.is_some()
    }

    /// Resolves seeds and parameters. Unknown seeds are reported on stderr and ignored, as
    /// Chat2Graph ignores them; an unknown operator is an error.
    pub fn resolve(&self, tk: &Toolkit) -> Result<Query, ExitCode> {
        let mut names: Vec<String> = self
            .seeds
            .iter()
            .chain(self.seed.iter())
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        let mut params = Params::default();
        if let Some(op_name) = &self.operator {
            let op = match tk.one_operator(op_name) {
                Ok(op) => op,
                Err(e) => {
                    error(&e.to_string());
                    let usage = matches!(e, OperatorLookup::Ambiguous { .. });
                    return Err(ExitCode::from(if usage { 2 } else { 1 }));
                }
            };
            names = op.actions.clone();
            params = Params {
                threshold: op.threshold,
                hops: op.hops,
            };
        }
        if let Some(t) = self.threshold {
            params.threshold = t;
        }
        if let Some(h) = self.hops {
            params.hops = h;
        }
        let (seeds, unknown) = resolve_seeds(tk, &names);
        for u in unknown {
            warning(&format!("seed `{u}` names no action; ignored"));
        }
        Ok(Query {
            seeds,
            seed_names: names,
            params,
        })
    }
}

/// Prints JSON to stdout. serde_json escapes C0 controls itself; DEL, C1 controls and bidi
/// overrides are escaped too, so the JSON is safe on a terminal and means the same.
pub fn print_json(value: &serde_json::Value) {
    match serde_json::to_string_pretty(value) {
        Ok(s) => out(&(toolscope_core::text::json_safe(&s).into_owned() + "\n")),
        Err(e) => error(&e.to_string()),
    }
}

/// Writes a result to stdout: every command's output leaves through here. When the reader
/// has gone (`toolscope gen | head -1`), the process ends at once and quietly with status
/// 141, as a Unix filter killed by SIGPIPE does; Rust ignores SIGPIPE, so without this the
/// write would fail and `print!` would panic.
pub fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(141);
        }
        error(&format!("cannot write to stdout: {e}"));
        std::process::exit(1);
    }
}

/// `error: MESSAGE` on stderr. Messages are one line: everything in them that came from a
/// file, a file name or an argument is escaped (line breaks too, so nothing can forge a
/// line), and a closed stderr is ignored rather than a panic.
pub fn error(message: &str) {
    say("error", message);
}

/// `warning: MESSAGE` on stderr, escaped as [`error`].
pub fn warning(message: &str) {
    say("warning", message);
}

/// `note: MESSAGE` on stderr, escaped as [`error`].
pub fn note(message: &str) {
    say("note", message);
}

/// A line on stderr without a level (summaries, timings), escaped as [`error`].
pub fn status(message: &str) {
    let _ = writeln!(
        std::io::stderr().lock(),
        "{}",
        toolscope_core::text::sanitize(message)
    );
}

fn say(level: &str, message: &str) {
    let _ = writeln!(
        std::io::stderr().lock(),
        "{level}: {}",
        toolscope_core::text::sanitize(message)
    );
}

/// `--kind`: which kind of node a name means, when several kinds use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    Action,
    Tool,
    Group,
}

impl From<Kind> for toolscope_core::model::NodeKind {
    fn from(k: Kind) -> toolscope_core::model::NodeKind {
        match k {
            Kind::Action => toolscope_core::model::NodeKind::Action,
            Kind::Tool => toolscope_core::model::NodeKind::Tool,
            Kind::Group => toolscope_core::model::NodeKind::Group,
        }
    }
}

/// Loads the inputs and resolves seeds and parameters; seeds are required. Returns the
/// load time in milliseconds too, for `--timings`.
pub fn load_query(inputs: &Inputs, seeds: &SeedArgs) -> Result<(Loaded, Query, f64), ExitCode> {
    let started = std::time::Instant::now();
    let loaded = inputs.load()?;
    let load_ms = started.elapsed().as_secs_f64() * 1000.0;
    if !seeds.any() {
        error("give seeds with --seeds a,b, --seed NAME or --operator NAME");
        return Err(ExitCode::from(2));
    }
    let query = seeds.resolve(&loaded.toolkit)?;
    Ok((loaded, query, load_ms))
}

/// Runs `f` `repeat` times (at least once); the last result and the median time in ms.
pub fn timed<T>(repeat: u32, mut f: impl FnMut() -> T) -> (T, f64) {
    let mut time = || {
        let t0 = std::time::Instant::now();
        let v = f();
        (v, t0.elapsed().as_secs_f64() * 1000.0)
    };
    let (mut last, first) = time();
    let mut times = vec![first];
    for _ in 1..repeat {
        let (v, ms) = time();
        last = v;
        times.push(ms);
    }
    times.sort_by(f64::total_cmp);
    (last, times[times.len() / 2])
}

/// `--encoding`: the tokenizer for token estimates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum EncodingArg {
    /// GPT-4o and later (the default).
    #[default]
    #[value(name = "o200k_base")]
    O200kBase,
    /// GPT-4 and GPT-3.5.
    #[value(name = "cl100k_base")]
    Cl100kBase,
}

impl From<EncodingArg> for toolscope_core::tokens::Encoding {
    fn from(e: EncodingArg) -> toolscope_core::tokens::Encoding {
        match e {
            EncodingArg::O200kBase => toolscope_core::tokens::Encoding::O200kBase,
            EncodingArg::Cl100kBase => toolscope_core::tokens::Encoding::Cl100kBase,
        }
    }
}
