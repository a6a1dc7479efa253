//! Loading hostile or unusual files through the binary (issue 12 items 8, 9 and 13 to 16):
//! large constructs load in linear time, memory stays within the documented budget, and
//! what the loaders cannot use is reported instead of silently dropped.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_toolscope");

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p
}

/// Runs the binary with a hang guard: generous for a debug build on a busy machine (release
/// timings are in docs/reliability.md; 100k edges took 60 s of wall time in a debug build
/// beside a clippy run, 4.3 s of CPU per 10k); the quadratic versions took minutes
/// and are killed at the limit.
fn run(args: &[&str]) -> Output {
    let limit = Duration::from_secs(180);
    let start = Instant::now();
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut buf);
            }
            buf
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let status = loop {
        if let Some(status) = child.try_wait().expect("waits") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} took over {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = Output {
        status,
        stdout: stdout.join().expect("stdout"),
        stderr: stderr.join().expect("stderr"),
    };
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(!text.contains("panicked"), "{text}");
    out
}

fn lint_json(paths: &[&Path]) -> Vec<Value> {
    let mut args = vec!["lint", "--format", "json"];
    args.extend(paths.iter().map(|p| p.to_str().expect("utf-8 path")));
    let out = run(&args);
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    v["diagnostics"].as_array().cloned().unwrap_or_default()
}

fn with_code<'a>(diags: &'a [Value], code: &str) -> Vec<&'a Value> {
    diags.iter().filter(|d| d["code"] == code).collect()
}

const N: usize = 100_000;

#[test]
fn a_mapping_with_100k_keys_loads_in_linear_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut y = String::from("actions:\n  - name: a\n    next: [b]\n  - name: b\n");
    for i in 0..N {
        y += &format!("k{i}: {i}\n");
    }
    y += "k7: again\n";
    let p = write(dir.path(), "keys.yaml", &y);
    let diags = lint_json(&[&p]);
    let dups = with_code(&diags, "TS022");
    assert_eq!(dups.len(), 1, "{dups:?}");
    assert_eq!(dups[0]["line"], N + 5);
    assert!(dups[0]["message"].as_str().unwrap().contains("`k7`"));
}

#[test]
fn a_chain_of_100k_anchors_loads_in_linear_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut y = String::from("x0: &a0 {desc: deep}\n");
    for i in 1..N {
        y += &format!("x{i}: &a{i} {{<<: *a{}}}\n", i - 1);
    }
    y += &format!("actions:\n  - name: a\n    <<: *a{}\n", N - 1);
    let p = write(dir.path(), "chain.yaml", &y);
    let diags = lint_json(&[&p]);
    assert_eq!(with_code(&diags, "TS051").len(), 1, "{diags:?}");
    let out = run(&["export", "--to", "json", p.to_str().unwrap()]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["actions"].as_array().map(Vec::len), Some(1));
}

#[test]
fn one_action_with_100k_edges_loads_in_linear_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut y = String::from("actions:\n  - name: hub\n    next:\n");
    for i in 0..N {
        y += &format!("      - a{i}\n");
    }
    y += "      - a0\n    tools:\n";
    for i in 0..N {
        y += &format!("      - t{i}\n");
    }
    for i in 0..N {
        y += &format!("  - name: a{i}\n");
    }
    let p = write(dir.path(), "hub.yaml", &y);
    let diags = lint_json(&[&p]);
    assert_eq!(with_code(&diags, "TS023").len(), 1, "the repeated a0");
    assert_eq!(with_code(&diags, "TS031").len(), N, "every undeclared tool");
    let reached = with_code(&diags, "TS051");
    assert_eq!(reached.len(), 1, "only the hub is unreached: {reached:?}");
}

#[test]
fn a_large_mapping_aliased_100k_times_loads_in_linear_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut y = String::from("big: &big\n  name: x\n  name: y\n");
    for i in 0..N / 10 {
        y += &format!("  k{i}: {i}\n");
    }
    y += "actions:\n";
    for _ in 0..N {
        y += "  - *big\n";
    }
    let p = write(dir.path(), "aliased.yaml", &y);
    let diags = lint_json(&[&p]);
    assert_eq!(with_code(&diags, "TS022").len(), 1, "checked once");
    assert_eq!(with_code(&diags, "TS020").len(), N - 1, "y declared again");
}

#[test]
fn a_file_that_would_exceed_the_memory_budget_fails_with_ts002() {
    // Two bytes a node: the tree would be ~14 times the file. With the real budget (12
    // times + 100 MB) that needs a 50 MB file, minutes in a debug build; the same check runs
    // here in the library with the cap lowered to 24 MB. The binary under a real memory
    // ceiling is tested in tests/suite/memory_budget.rs.
    let mut y = String::from("actions:\n  - name: a\nitems: [");
    y += &"a,".repeat(1_000_000);
    y += "a]\n";
    let limits = toolscope_core::source::Limits {
        max_memory: 24 << 20,
        ..toolscope_core::source::Limits::default()
    };
    let err = toolscope_core::load::load_text(Path::new("dense.yaml"), y, None, &limits)
        .err()
        .expect("over the budget");
    let diag = err.to_diagnostic();
    assert_eq!(diag.code.as_str(), "TS002", "{diag:?}");
    assert!(diag.message.contains("memory budget"), "{}", diag.message);
    assert!(
        diag.line >= 3,
        "the position where the budget ran out: {diag:?}"
    );
}

#[test]
fn operators_of_one_name_in_two_files_are_both_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    write(
        dir.path(),
        "one.yaml",
        "actions:\n  - name: a\n    next: [c]\n  - name: c\noperators:\n  - name: Query Expert/1\n    actions: [a]\n",
    );
    write(
        &dir.path().join("sub"),
        "two.yaml",
        "actions:\n  - name: b\n    next: [d]\n  - name: d\noperators:\n  - name: Query Expert/1\n    actions: [b]\n    threshold: 0.2\n",
    );
    let diags = lint_json(&[dir.path()]);
    let clash = with_code(&diags, "TS075");
    assert_eq!(clash.len(), 2, "{diags:?}");
    assert_eq!(clash[0]["severity"], "warning");
    assert!(
        with_code(&diags, "TS051").is_empty(),
        "a and b both start an operator: {diags:?}"
    );
    let d = dir.path().to_str().unwrap();
    let out = run(&["recommend", d, "--operator", "Query Expert/1"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Query Expert/1 @ one.yaml")
            && stderr.contains("Query Expert/1 @ sub/two.yaml"),
        "{stderr}"
    );
    let out = run(&[
        "recommend",
        d,
        "--operator",
        "Query Expert/1 @ sub/two.yaml",
    ]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("threshold 0.2, hops 0, seeds: b"),
        "{stdout}"
    );
}

#[test]
fn a_text_field_given_as_a_list_or_mapping_is_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(
        dir.path(),
        "shape.yaml",
        "lines: &lines [one, two]\ntools:\n  - name: t\n    desc: {text: x}\nactions:\n  - name: a\n    desc: *lines\n    tools: [t]\n    next: [b]\n  - name: b\n    desc: [x]\n",
    );
    let diags = lint_json(&[&p]);
    let shape = with_code(&diags, "TS010");
    let lines: Vec<u64> = shape.iter().filter_map(|d| d["line"].as_u64()).collect();
    assert_eq!(lines, vec![4, 7, 11], "{diags:?}");
    assert!(shape[1]["message"].as_str().unwrap().contains("`desc`"));
}

#[test]
fn documents_after_the_first_are_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(
        dir.path(),
        "multi.yaml",
        "actions:\n  - name: a\n---\nactions:\n  - name: b\n---\nx: 1\n",
    );
    let diags = lint_json(&[&p]);
    let extra = with_code(&diags, "TS076");
    assert_eq!(extra.len(), 1, "{diags:?}");
    assert_eq!(extra[0]["line"], 3);
    assert!(
        extra[0]["message"]
            .as_str()
            .unwrap()
            .contains("2 more documents")
    );
}

#[test]
fn next_may_name_an_action_of_another_opened_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let one = write(
        dir.path(),
        "one.yaml",
        "actions:\n  - name: a\n    next: [b]\n",
    );
    let two = write(
        dir.path(),
        "two.yaml",
        "actions:\n  - name: b\n    next: [a]\n",
    );
    let diags = lint_json(&[&one, &two]);
    assert!(with_code(&diags, "TS030").is_empty(), "{diags:?}");
    let out = run(&[
        "recommend",
        one.to_str().unwrap(),
        two.to_str().unwrap(),
        "--seeds",
        "a",
        "--hops",
        "1",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("actions (2/2)"), "{stdout}");
    // Alone, the file's reference is still an error.
    let diags = lint_json(&[&one]);
    assert_eq!(with_code(&diags, "TS030").len(), 1, "{diags:?}");
}
