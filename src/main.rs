//! The `toolscope` binary: the CLI and TUI front ends live in the library.

fn main() -> std::process::ExitCode {
    toolscope::cli::main()
}
