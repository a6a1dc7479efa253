//! Issue 33, "nothing silent": a YAML file that holds no toolkit, named on the command line,
//! is a TS004 error for `lint` and `recommend` (exit 1, never a quiet success); in a folder
//! it is skipped with a note; a folder with no toolkit at all (empty, or only `x: 1`) is
//! the error, and the TUI opens on that message instead of a blank screen, then loads the
//! toolkit that appears.

use std::process::{Command, Output};

use crate::common::tmux;
use tmux::Tmux;

const BIN: &str = env!("CARGO_BIN_EXE_toolscope");

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("toolscope runs")
}

fn both(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

const KIT: &str = "actions:\n  - {name: plan_the_query, tools: [SchemaReader]}\noperators:\n  - {name: op, actions: [plan_the_query]}\n";

#[test]
fn a_named_yaml_without_a_toolkit_is_an_error_with_its_code() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.yaml");
    let empty = dir.path().join("empty.yaml");
    std::fs::write(&x, "x: 1\n").unwrap();
    std::fs::write(&empty, "").unwrap();
    for f in [&x, &empty] {
        let f = f.to_str().unwrap();
        for args in [vec!["lint", f], vec!["recommend", f, "--operator", "op"]] {
            let o = run(&args);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {}", both(&o));
            let out = both(&o);
            assert!(out.contains("TS004"), "{args:?}: {out}");
            assert!(out.contains("holds no toolkit"), "{args:?}: {out}");
            assert!(
                out.contains("`actions:`"),
                "says what a toolkit needs: {out}"
            );
        }
    }
}

#[test]
fn in_a_folder_a_yaml_without_a_toolkit_is_skipped_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("compose.yaml"), "services: {}\n").unwrap();
    std::fs::write(dir.path().join("kit.yaml"), KIT).unwrap();
    let d = dir.path().to_str().unwrap();
    let o = run(&["lint", d]);
    assert!(o.status.success(), "{}", both(&o));
    let out = both(&o);
    assert!(
        out.contains("compose.yaml") && out.contains("skipped"),
        "{out}"
    );
    let o = run(&["recommend", d, "--operator", "op"]);
    assert!(o.status.success(), "{}", both(&o));
    assert!(both(&o).contains("SchemaReader"), "{}", both(&o));
}

#[test]
fn a_folder_without_a_toolkit_says_so_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let none = dir.path().join("none");
    let other = dir.path().join("other");
    std::fs::create_dir(&none).unwrap();
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("a.yaml"), "x: 1\n").unwrap();
    for (d, says) in [
        (&none, "no .yml or .yaml files found"),
        (&other, "1 YAML file here"),
    ] {
        let d = d.to_str().unwrap();
        for args in [vec!["lint", d], vec!["recommend", d, "--operator", "op"]] {
            let o = run(&args);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {}", both(&o));
            let out = both(&o);
            assert!(out.contains(says), "{args:?}: {out}");
            assert!(out.contains("`actions:`"), "{args:?}: {out}");
        }
    }
}

#[test]
fn the_tui_on_a_folder_without_a_toolkit_says_so_then_loads_one() {
    if !tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap().to_string();
    let t = Tmux::new("notoolkit");
    t.start((160, 30), None, &[BIN, &d]);
    let first = t.wait("the message", |s| {
        s.contains("no .yml or .yaml files found")
    });
    assert!(first.contains("waiting for a toolkit"), "{first}");
    std::fs::write(dir.path().join("x.yaml"), "x: 1\n").unwrap();
    std::fs::write(dir.path().join("kit.yaml"), KIT).unwrap();
    let loaded = t.wait("the toolkit that appeared", |s| {
        s.contains("plan_the_query")
    });
    assert!(loaded.contains("┌ Graph"), "{loaded}");
    t.send(&["q"]);
}
