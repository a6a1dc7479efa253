//! The `toolscope` binary: parses the command line, then hands over to the TUI or to a
//! CLI command. The two front ends never call each other; this is where one is chosen.

use std::process::ExitCode;

use toolscope::cli::{self, Parsed, TuiArgs};
use toolscope::tui;

fn main() -> ExitCode {
    match cli::parse() {
        Parsed::Command(run) => run(),
        Parsed::Tui(args) => run_tui(args),
    }
}

fn run_tui(args: TuiArgs) -> ExitCode {
    let opts = tui::Options {
        paths: args.paths,
        input_format: args.input_format.map(toolscope_core::source::Format::from),
        no_color: args.no_color,
        ascii: args.ascii,
        traces: args.traces,
        naming: args.naming.naming(),
    };
    match tui::run(opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            cli::common::error(&e.to_string());
            ExitCode::from(1)
        }
    }
}
