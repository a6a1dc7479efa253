//! `toolscope set` through the real binary, on temporary copies of the examples.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn copy(dir: &Path, name: &str) -> PathBuf {
    let from = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    let to = dir.join(name);
    fs::copy(from, &to).unwrap();
    to
}

fn set(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .arg("set")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

fn changed_lines(before: &str, after: &str) -> Vec<String> {
    let diff = similar::TextDiff::from_lines(before, after);
    diff.iter_all_changes()
        .filter(|c| c.tag() != similar::ChangeTag::Equal)
        .map(|c| format!("{}{}", c.tag(), c.value()))
        .collect()
}

#[test]
fn score_on_a_chat2graph_file_lands_in_scores() {
    let dir = tempfile::tempdir().unwrap();
    let p = copy(dir.path(), "chat2graph-mini.yml");
    let before = fs::read_to_string(&p).unwrap();
    let out = set(
        &[
            p.to_str().unwrap(),
            "score",
            "query_execution",
            "SchemaGetter",
            "0.75",
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = fs::read_to_string(&p).unwrap();
    assert_eq!(
        changed_lines(&before, &after),
        vec![
            "-  - {from: query_execution, to: SchemaGetter, score: 0.4}\n",
            "+  - {from: query_execution, to: SchemaGetter, score: 0.75}\n"
        ]
    );
}

#[test]
fn dry_run_prints_the_diff_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let p = copy(dir.path(), "graph-db.yaml");
    let before = fs::read_to_string(&p).unwrap();
    let out = set(
        &[p.to_str().unwrap(), "threshold", "qa", "0.65", "--dry-run"],
        None,
    );
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("-    threshold: 0.5\n+    threshold: 0.65\n"),
        "{stdout}"
    );
    assert!(stdout.starts_with("--- a/"), "{stdout}");
    assert_eq!(fs::read_to_string(&p).unwrap(), before);
}

#[test]
fn hops_and_desc_from_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let p = copy(dir.path(), "graph-db.yaml");
    let before = fs::read_to_string(&p).unwrap();
    let path = p.to_str().unwrap();
    assert!(
        set(&[path, "hops", "modelling", "3"], None)
            .status
            .success()
    );
    let out = set(
        &[path, "desc", "answer_synthesis"],
        Some("One answer.\nWith sources.\n"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = set(
        &[path, "desc", "GraphDropper", "--kind", "tool"],
        Some("Drops a graph: careful\n"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = fs::read_to_string(&p).unwrap();
    assert_eq!(
        changed_lines(&before, &after),
        vec![
            "-    desc: Drops a whole graph. Irreversible.\n",
            "+    desc: \"Drops a graph: careful\"\n",
            "-      Combine the retrieved passages into one answer.\n",
            "-      Cite every source the answer relies on.\n",
            "+      One answer.\n",
            "+      With sources.\n",
            "-    hops: 2\n",
            "+    hops: 3\n",
        ]
    );
}

#[test]
fn exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let p = copy(dir.path(), "graph-db.yaml");
    let before = fs::read_to_string(&p).unwrap();
    let path = p.to_str().unwrap();
    // Usage errors: 2.
    assert_eq!(
        set(&[path, "score", "a", "b", "1.5"], None).status.code(),
        Some(2)
    );
    assert_eq!(
        set(&[path, "score", "a", "b", "x"], None).status.code(),
        Some(2)
    );
    assert_eq!(set(&[path, "hops", "qa"], None).status.code(), Some(2));
    assert_eq!(
        set(&[path, "colour", "qa", "1"], None).status.code(),
        Some(2)
    );
    // Failures: 1, with a message.
    let out = set(&[path, "score", "query_design", "nowhere", "0.5"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no edge query_design -> nowhere"));
    assert_eq!(
        set(&[path, "threshold", "nobody", "0.5"], None)
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        set(&["/nonexistent/x.yaml", "hops", "qa", "1"], None)
            .status
            .code(),
        Some(1)
    );
    assert_eq!(fs::read_to_string(&p).unwrap(), before);
}

/// A key with nothing after it (`scores:` or `next:`, then a blank line, another key or
/// the end of the file) is filled by the edit. The check that nothing else changed took
/// the empty value, a point at its key's end, for a node outside the edit and refused
/// every such edit ("the edit would change what the file says there").
#[test]
fn an_empty_key_is_filled_whatever_follows_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = copy(dir.path(), "chat2graph-mini.yml");
    let base = fs::read_to_string(&p).unwrap();
    let entry = "  - {from: query_execution, to: SchemaGetter, score: 0.75}";
    for tail in [
        "scores:\n",
        "scores:\n\nextra: 1\n",
        "scores:\nextra: 1\n",
        "scores:",
    ] {
        let before = format!("{}\n{tail}", base.trim_end());
        fs::write(&p, &before).unwrap();
        let out = set(
            &[
                p.to_str().unwrap(),
                "score",
                "query_execution",
                "SchemaGetter",
                "0.75",
            ],
            None,
        );
        assert!(
            out.status.success(),
            "{tail:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let after = fs::read_to_string(&p).unwrap();
        let lines = changed_lines(&before, &after);
        assert!(
            lines.iter().any(|l| l.contains(entry)),
            "{tail:?}: {lines:?}"
        );
        assert!(
            after.contains("extra: 1") == tail.contains("extra"),
            "{after}"
        );
    }
    let kit = dir.path().join("n.yaml");
    let native = "name: k\ntools:\n  - name: t1\nactions:\n  - name: a\n    tools: [t1]\n    next:\n\n  - name: b\n    tools: [t1]\noperators:\n  - name: op\n    actions: [a]\n";
    fs::write(&kit, native).unwrap();
    let out = set(&[kit.to_str().unwrap(), "link", "a", "b"], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = fs::read_to_string(&kit).unwrap();
    assert_eq!(after, native.replace("    next:\n", "    next: [b]\n"));
}

/// Issue 45: `set` says on stdout, in one line, what it changed and where; `--quiet`
/// says nothing; a change the file already holds says so on stderr only.
#[test]
fn set_says_what_it_changed_in_one_line_unless_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let p = copy(dir.path(), "graph-db.yaml");
    let out = set(&[p.to_str().unwrap(), "threshold", "qa", "0.65"], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        stdout,
        format!("set threshold of qa = 0.65 in {}\n", p.display())
    );
    let out = set(
        &[p.to_str().unwrap(), "threshold", "qa", "0.7", "--quiet"],
        None,
    );
    assert!(out.status.success());
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(fs::read_to_string(&p).unwrap().contains("0.7"));
}
