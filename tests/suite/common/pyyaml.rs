//! A Python with PyYAML (the YAML 1.1 reader Chat2Graph loads its config with), to check
//! that what toolscope writes reads back the same there.
//!
//! Found as: `$TOOLSCOPE_PYYAML_PYTHON`, else the virtual environment `.ci/chat2graph-tests`
//! makes (`target/c2g-venv/bin/python`; `.ci/run` makes it before `cargo test`), else
//! `python3` on PATH; the first that imports `yaml` is used. When none does (a plain clone
//! on a machine without PyYAML), the test skips with one line saying how to provide one;
//! `TOOLSCOPE_REQUIRE_SHARED=1` (which `.ci/run` sets) makes that a failure, so CI never
//! skips it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The Python to check with, or `None` (with one line on stderr) to skip.
pub fn python() -> Option<PathBuf> {
    static FOUND: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    FOUND.get_or_init(find).clone()
}

fn find() -> Option<PathBuf> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/c2g-venv/bin/python");
    let candidates: Vec<PathBuf> = std::env::var_os("TOOLSCOPE_PYYAML_PYTHON")
        .map(PathBuf::from)
        .into_iter()
        .chain([venv, PathBuf::from("python3")])
        .collect();
    for p in &candidates {
        let ok = Command::new(p)
            .args(["-c", "import yaml"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(p.clone());
        }
    }
    let missing = format!(
        "no Python with PyYAML among {candidates:?} (set TOOLSCOPE_PYYAML_PYTHON to one, run \
         `.ci/chat2graph-tests --venv-only` to make target/c2g-venv, or `pip install PyYAML`)"
    );
    assert!(
        std::env::var_os("TOOLSCOPE_REQUIRE_SHARED").is_none(),
        "{missing}; TOOLSCOPE_REQUIRE_SHARED is set, so it is required"
    );
    eprintln!("skipping the PyYAML check: {missing}");
    None
}

/// The checker: reads a JSON list of `{file, list, name, key, expect}` (find the item of the
/// top-level list `list` whose `name` is `name`, read `key`) or `{file, list, key, expect}`
/// (some item of `list` has `key` equal to `expect`), loads each file with
/// `yaml.safe_load`, and prints what differed, one JSON object a line (ASCII: every other
/// character escaped, so U+2028 and its kind show).
const CHECKER: &str = r#"
import json, sys, yaml
failures = []
for case in json.load(open(sys.argv[1], encoding="utf-8")):
    try:
        with open(case["file"], encoding="utf-8") as f:
            doc = yaml.safe_load(f)
        items = doc[case["list"]]
        if "name" in case:
            found = [i.get(case["key"]) for i in items if i.get("name") == case["name"]]
            ok = found == [case["expect"]]
        else:
            found = [i.get(case["key"]) for i in items]
            ok = case["expect"] in found
        if not ok:
            failures.append({"case": case, "found": found})
    except Exception as e:
        failures.append({"case": case, "error": repr(e)})
for f in failures:
    print(json.dumps(f))
"#;

/// One value to check in a written file.
pub struct Case {
    pub file: PathBuf,
    pub list: &'static str,
    /// The item's `name`, or `None` to look for `expect` in any item.
    pub name: Option<String>,
    pub key: &'static str,
    pub expect: String,
}

/// Checks every case with PyYAML in one run; returns the failures (as JSON text each).
pub fn check(python: &Path, cases: &[Case], scratch: &Path) -> Vec<String> {
    let manifest: Vec<serde_json::Value> = cases
        .iter()
        .map(|c| {
            let mut v = serde_json::json!({
                "file": c.file.display().to_string(),
                "list": c.list,
                "key": c.key,
                "expect": c.expect,
            });
            if let Some(n) = &c.name {
                v["name"] = serde_json::Value::String(n.clone());
            }
            v
        })
        .collect();
    let path = scratch.join("manifest.json");
    std::fs::write(&path, serde_json::to_string(&manifest).expect("json")).expect("write");
    let out = Command::new(python)
        .args(["-c", CHECKER])
        .arg(&path)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "the checker failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}
