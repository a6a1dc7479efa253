//! `toolscope set` on a folder, through the binary (issue 12 items 13 and 16 in the editing
//! path): the edit goes to the file that declares what it names; operators two files define
//! are told apart as `NAME @ FILE`, and the plain name is a usage error listing them; a
//! `next` into another file is scored in the file that holds the `next:` entry.

use std::path::Path;
use std::process::{Command, Output};

/// The two files of a folder whose operators share a name (`tests/fixtures/query-experts`).
const A: &str = include_str!("../fixtures/query-experts/a.yml");

const B: &str = include_str!("../fixtures/query-experts/b.yml");

fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.yml"), A).expect("a");
    std::fs::write(dir.path().join("b.yml"), B).expect("b");
    dir
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .args(args)
        .output()
        .expect("runs")
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).expect("read")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn score_of_a_next_into_another_file_is_written_where_the_next_is() {
    let dir = folder();
    let d = dir.path().to_str().unwrap();
    let out = run(&["set", d, "score", "plan", "lookup", "0.4"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        read(dir.path(), "a.yml"),
        A.replace("score: 0.9", "score: 0.4")
    );
    assert_eq!(read(dir.path(), "b.yml"), B);
    // lint on the folder agrees: no unknown action, the edge has the new score.
    let out = run(&["lint", d, "--format", "json"]);
    let lint = String::from_utf8_lossy(&out.stdout);
    assert!(!lint.contains("TS030"), "{lint}");
    let out = run(&[
        "recommend",
        d,
        "--seeds",
        "plan",
        "--hops",
        "1",
        "--threshold",
        "0.5",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("lookup"),
        "0.4 is under the threshold: {text}"
    );
}

#[test]
fn an_operator_two_files_define_is_named_with_its_file() {
    let dir = folder();
    let d = dir.path().to_str().unwrap();
    let out = run(&["set", d, "threshold", "Query Expert/1", "0.3"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("Query Expert/1 @ a.yml") && err.contains("Query Expert/1 @ b.yml"),
        "{err}"
    );
    assert_eq!(read(dir.path(), "a.yml"), A);
    assert_eq!(read(dir.path(), "b.yml"), B);
    let out = run(&["set", d, "threshold", "Query Expert/1 @ b.yml", "0.3"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(read(dir.path(), "a.yml"), A);
    assert_eq!(
        read(dir.path(), "b.yml"),
        B.replace("threshold: 0.7", "threshold: 0.3")
    );
    let out = run(&["recommend", d, "--operator", "Query Expert/1 @ b.yml"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("threshold 0.3"), "{text}");
}
