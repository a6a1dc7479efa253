//! The memory budget (docs/reliability.md): a load stays under 12 times the input size plus
//! 100 MB, and a file that would need more fails with TS002 rather than being killed.
//! Both run the real binary under `ulimit -v`, which counts address space: the ceiling is
//! the budget plus what the process maps before it reads anything (binary, libraries,
//! thread stacks, allocator arenas), allowed 64 MB here. A tree over the budget (a dense
//! `[a,a,...]` file) is tested in `hostile_load.rs`.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_toolscope");

/// Runs `toolscope ARGS` under a virtual-memory ceiling (`ulimit -v`, in KB).
fn run_capped(limit_kb: usize, args: &[&str]) -> Output {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let script = format!("ulimit -v {limit_kb} && exec '{BIN}' {}", quoted.join(" "));
    let start = Instant::now();
    let out = Command::new("sh")
        .args(["-c", &script])
        .output()
        .expect("runs sh");
    assert!(start.elapsed() < Duration::from_secs(600), "{args:?} hung");
    out
}

/// The budget of an input of `bytes` plus the process's own mappings, in KB.
fn ceiling_kb(bytes: usize) -> usize {
    let budget = (bytes * 12 + (100 << 20)).min(2 << 30);
    (budget + (64 << 20)) / 1024
}

fn limit_diags(out: &Output) -> Vec<Value> {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{:?} {stderr}", out.status);
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let diags = v["diagnostics"].as_array().cloned().unwrap_or_default();
    diags.into_iter().filter(|d| d["code"] == "TS002").collect()
}

#[test]
fn a_generated_100k_action_file_loads_within_its_budget() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("g100k.yaml");
    let out = Command::new(BIN)
        .args(["gen", "--actions", "100000"])
        .output()
        .expect("gen runs");
    assert!(out.status.success());
    std::fs::write(&path, &out.stdout).expect("write");
    let p = path.to_str().unwrap();
    let out = run_capped(
        ceiling_kb(out.stdout.len()),
        &["recommend", p, "--operator", "op0", "--no-tokens"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?} {stderr}", out.status);
    assert!(String::from_utf8_lossy(&out.stdout).contains("actions ("));
}

/// A small file whose toolkit is huge: one 100 KB description aliased by 3,000 actions
/// costs 300 MB once each action holds its text, against a budget of about 100 MB. The
/// tree stays small (aliases are not expanded); the toolkit count must stop it.
#[test]
fn a_toolkit_over_the_budget_fails_with_ts002_not_an_abort() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut y = format!(
        "tools:\n  - name: t\n    desc: &d {}\nactions:\n",
        "x".repeat(100_000)
    );
    for i in 0..3_000 {
        y += &format!("  - {{name: a{i}, desc: *d}}\n");
    }
    let p = dir.path().join("amplified.yaml");
    std::fs::write(&p, &y).expect("write");
    let out = run_capped(
        ceiling_kb(y.len()),
        &["lint", "--format", "json", p.to_str().unwrap()],
    );
    let limit = limit_diags(&out);
    assert_eq!(limit.len(), 1, "{limit:?}");
    let message = limit[0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("memory budget"), "{message}");
    assert!(
        limit[0]["line"].as_u64().is_some_and(|l| l > 3),
        "{limit:?}"
    );
}
