//! `toolscope eval`: the offer scored against traces of real runs, over whole records
//! (`records`) or per step (`steps`, with `--steps`), with optional gates. The arguments and
//! the trace reading they share (also with `fit` and `init`) are in `args`, which imports
//! neither, so the two runs never import each other.

mod args;
mod records;
mod steps;

use std::process::ExitCode;

pub use args::{Args, NamingArgs, TraceArgs, TraceFormatArg, print_diags};

pub fn run(args: &Args) -> ExitCode {
    let loaded = match args.inputs.load() {
        Ok(l) => l,
        Err(code) => return code,
    };
    let tk = &loaded.toolkit;
    if args.steps {
        steps::run(tk, args)
    } else {
        records::run(tk, args)
    }
}
