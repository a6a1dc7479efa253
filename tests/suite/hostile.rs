//! Hostile and broken files through the real binary: each gives a clear error or lint
//! diagnostic, never a panic or a hang (SPEC 6). Release timings are in docs/reliability.md.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

struct Dir(tempfile::TempDir);

impl Dir {
    fn new() -> Dir {
        Dir(tempfile::tempdir().expect("tempdir"))
    }

    fn file(&self, name: &str, content: &[u8]) -> PathBuf {
        let p = self.0.path().join(name);
        std::fs::write(&p, content).expect("write");
        p
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }
}

/// Runs `lint --format json` on `path`, checks it finished in time without a panic, and
/// returns the diagnostics.
fn lint(path: &Path) -> Vec<Value> {
    let start = Instant::now();
    let out: Output = Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .args(["lint", "--format", "json"])
        .arg(path)
        .output()
        .expect("runs");
    let took = start.elapsed();
    // A hang guard, not a benchmark: generous for a debug build on a loaded machine
    // (release figures are in docs/reliability.md).
    assert!(
        took < Duration::from_secs(10),
        "{} took {took:?}",
        path.display()
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json on stdout");
    v["diagnostics"].as_array().cloned().unwrap_or_default()
}

fn codes(diags: &[Value]) -> Vec<String> {
    diags
        .iter()
        .filter_map(|d| d["code"].as_str().map(str::to_string))
        .collect()
}

fn assert_error(path: &Path, code: &str) {
    let diags = lint(path);
    assert!(
        codes(&diags).iter().any(|c| c == code),
        "{}: want {code}, got {diags:?}",
        path.display()
    );
    let d = diags.iter().find(|d| d["code"] == code).expect("present");
    assert_eq!(d["severity"], "error");
    assert!(!d["message"].as_str().unwrap_or("").is_empty());
}

#[test]
fn alias_bomb_under_ignored_keys_loads_without_expanding() {
    let dir = Dir::new();
    let mut text = String::from("junk:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..16 {
        text += &format!(
            "  a{i}: &a{i} [{}]\n",
            vec![format!("*a{}", i - 1); 10].join(", ")
        );
    }
    text += "actions:\n  - name: a\n";
    let diags = lint(&dir.file("bomb.yaml", text.as_bytes()));
    assert!(codes(&diags).iter().all(|c| c != "TS001"), "{diags:?}");
}

#[test]
fn deep_nesting_of_each_kind() {
    let dir = Dir::new();
    let block: String = (0..100_000).map(|_| "- ").collect();
    for (name, text) in [
        ("flow_seq.yaml", "[".repeat(100_000)),
        ("flow_map.yaml", "{a: ".repeat(100_000)),
        ("block_seq.yaml", block),
    ] {
        assert_error(&dir.file(name, text.as_bytes()), "TS002");
    }
}

#[test]
fn huge_scalar_and_huge_file() {
    let dir = Dir::new();
    // Four times the 1 MB scalar limit: past it by far, and small enough that a debug
    // build on a loaded machine scans it well inside the hang guard (50 MB took 10.4 s).
    let scalar = format!("name: \"{}\"\n", "x".repeat(4 * 1024 * 1024));
    assert_error(&dir.file("scalar.yaml", scalar.as_bytes()), "TS002");
    let big = dir.path("big.yaml");
    let f = std::fs::File::create(&big).expect("create");
    f.set_len(200 * 1024 * 1024).expect("sparse 200 MB");
    assert_error(&big, "TS002");
}

#[test]
fn invalid_utf8_nul_and_bom() {
    let dir = Dir::new();
    let diags = lint(&dir.file("bad.yaml", b"actions:\n  - name: \xff\xfe\n"));
    assert_eq!(codes(&diags), vec!["TS001"]);
    assert_eq!(diags[0]["line"], 2);
    let diags = lint(&dir.file("nul.yaml", b"actions:\n  - name: a\0b\n"));
    assert!(!diags.is_empty(), "a NUL byte is reported");
    let diags = lint(&dir.file(
        "bom.yaml",
        "\u{feff}actions:\n  - name: a\noperators:\n  - {name: o, actions: [a]}\n".as_bytes(),
    ));
    assert!(diags.is_empty(), "{diags:?}");
}

#[test]
fn bad_values_are_diagnostics() {
    let dir = Dir::new();
    let text = "actions:\n  - name: a\n    name: again\n    next:\n      - {name: b, score: high}\n      - {name: c, score: .nan}\n      - {name: d, score: .inf}\n      - {name: e, score: -0.5}\n      - {name: f, score: 7}\n  - name: b\n  - name: c\n  - name: d\n  - name: e\n  - name: f\noperators:\n  - {name: o1, actions: [a], hops: -3}\n  - {name: o2, actions: [a], hops: 99999999999}\n  - {name: o3, actions: [a], threshold: lots}\n";
    let c = codes(&lint(&dir.file("vals.yaml", text.as_bytes())));
    assert!(c.contains(&"TS022".to_string()), "duplicate key: {c:?}");
    assert_eq!(c.iter().filter(|c| *c == "TS040").count(), 1, "{c:?}");
    assert_eq!(c.iter().filter(|c| *c == "TS041").count(), 4, "{c:?}");
    assert_eq!(c.iter().filter(|c| *c == "TS043").count(), 2, "{c:?}");
    assert!(c.contains(&"TS042".to_string()), "{c:?}");
}

#[test]
fn not_a_regular_readable_file() {
    let dir = Dir::new();
    // A directory with no YAML in it: no toolkit (TS004), said with what one needs.
    std::fs::create_dir(dir.path("empty")).expect("mkdir");
    assert_error(&dir.path("empty"), "TS004");
    // A FIFO: refused without opening it (opening would block).
    let fifo = dir.path("pipe.yaml");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .map(|s| s.success());
    if made.unwrap_or(false) {
        assert_error(&fifo, "TS003");
    }
    // A symlink loop.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.path("loop_b.yaml"), dir.path("loop_a.yaml")).expect("link");
        std::os::unix::fs::symlink(dir.path("loop_a.yaml"), dir.path("loop_b.yaml")).expect("link");
        assert_error(&dir.path("loop_a.yaml"), "TS003");
    }
    // No read permission: an error, unless we run as root (root reads it anyway).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let p = dir.file("secret.yaml", b"actions:\n  - name: a\n");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).expect("chmod");
        let diags = lint(&p);
        let readable = std::fs::read(&p).is_ok();
        if readable {
            assert!(codes(&diags).iter().all(|c| c != "TS003"), "{diags:?}");
        } else {
            assert_eq!(codes(&diags), vec!["TS003"]);
        }
    }
}
