//! What the subcommands share: loading paths, seed and parameter arguments, output formats.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use petgraph::stable_graph::NodeIndex;

use crate::model::Toolkit;
use crate::recommend::{Params, resolve_seeds};
use crate::source::{self, Format, Loaded};

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
    pub fn load(&self) -> Result<Loaded, ExitCode> {
        source::load_paths(&self.paths, self.input_format.map(Format::from)).map_err(|e| {
            eprintln!("error: {e}");
            ExitCode::from(1)
        })
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
    #[arg(long, value_name = "H", value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub hops: Option<u32>,
}

/// Parses a threshold: a finite number in [0, 1].
pub fn parse_threshold(s: &str) -> Result<f64, String> {
    let t: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if (0.0..=1.0).contains(&t) {
        Ok(t)
    } else {
        Err(format!("{s} is outside [0, 1]"))
    }
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
            let Some(op) = tk.operator(op_name) else {
                let known: Vec<String> = tk.operators.iter().map(|o| o.name.clone()).collect();
                eprintln!(
                    "error: no operator named `{op_name}`; operators: {}",
                    if known.is_empty() {
                        "(none)".into()
                    } else {
                        known.join(", ")
                    }
                );
                return Err(ExitCode::from(1));
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
            eprintln!("warning: seed `{u}` names no action; ignored");
        }
        Ok(Query {
            seeds,
            seed_names: names,
            params,
        })
    }
}

/// Prints JSON to stdout.
pub fn print_json(value: &serde_json::Value) {
    match serde_json::to_string_pretty(value) {
        Ok(s) => println!("{s}"),
        Err(e) => eprintln!("error: {e}"),
    }
}

/// `--kind`: which kind of node a name means, when several kinds use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    Action,
    Tool,
    Group,
}

impl From<Kind> for crate::model::NodeKind {
    fn from(k: Kind) -> crate::model::NodeKind {
        match k {
            Kind::Action => crate::model::NodeKind::Action,
            Kind::Tool => crate::model::NodeKind::Tool,
            Kind::Group => crate::model::NodeKind::Group,
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
        eprintln!("error: give seeds with --seeds a,b, --seed NAME or --operator NAME");
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

impl From<EncodingArg> for crate::tokens::Encoding {
    fn from(e: EncodingArg) -> crate::tokens::Encoding {
        match e {
            EncodingArg::O200kBase => crate::tokens::Encoding::O200kBase,
            EncodingArg::Cl100kBase => crate::tokens::Encoding::Cl100kBase,
        }
    }
}
