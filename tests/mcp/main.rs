//! `toolscope mcp discover` against real MCP servers, and the sidecar cache as every command
//! sees it.
//!
//! This test binary is also the test MCP server (`server.rs`): run with
//! `TOOLSCOPE_TEST_MCP_SERVER` set (the toolkit files below set it through their `env:`
//! block, which also tests that `env:` reaches the server), it serves instead of testing.
//! A plain `main` (harness = false) makes that possible; `runner` runs the tests, one
//! argument filters them by name.

mod npx;
mod server;
mod tests;

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if std::env::var_os(server::ENV).is_some() {
        server::main(&args);
        return;
    }
    let filter = args.iter().find(|a| !a.starts_with('-')).cloned();
    let all: Vec<(&str, fn())> = tests::ALL.iter().chain(npx::ALL).copied().collect();
    let chosen: Vec<_> = all
        .into_iter()
        .filter(|(name, _)| filter.as_ref().is_none_or(|f| name.contains(f.as_str())))
        .collect();
    println!("running {} tests", chosen.len());
    let mut failed = Vec::new();
    for (name, test) in chosen {
        let started = Instant::now();
        let ok = std::panic::catch_unwind(test).is_ok();
        println!(
            "test {name} ... {} ({:.1} s)",
            if ok { "ok" } else { "FAILED" },
            started.elapsed().as_secs_f64()
        );
        if !ok {
            failed.push(name);
        }
    }
    if !failed.is_empty() {
        println!("failed: {}", failed.join(", "));
        std::process::exit(1);
    }
    println!("test result: ok");
}
