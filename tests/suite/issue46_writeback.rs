//! Issue 46, items 1 to 3: the edges of write-back, through the real binary.
//! - A filled value drops what made it empty: `scores: !!null` (`!!str`, `!!binary`,
//!   `&s !!null`) filled by `set score`, `fit --write` and `set link` loses its tag (and an
//!   anchor no alias names), keeps a comment, and PyYAML reads the list written; an
//!   anchor an alias names is refused with the reason.
//! - No output replaces an input: trace files, sidecars, links to them, with `--force`.
//! - `score: !!str 0.4` is a string to toolscope as to PyYAML: TS040.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::pyyaml;

const C2G: &str = include_str!("../fixtures/chat2graph-flat.yml");

fn toolscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .args(args)
        .env(
            "TOOLSCOPE_STATE_DIR",
            std::env::temp_dir().join("ts-issue46-state"),
        )
        .output()
        .expect("toolscope runs")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// `set FILE score content_understanding deep_recognition 0.5`: the edit every Chat2Graph
/// case below makes into its `scores:` list.
fn set_score(f: &Path) -> Output {
    toolscope(&[
        "set",
        s(f),
        "score",
        "content_understanding",
        "deep_recognition",
        "0.5",
    ])
}

/// The fixture with its `scores:` section replaced by `tail`.
fn c2g_ending(tail: &str) -> String {
    let cut = C2G.find("\nscores:").expect("the fixture has scores") + 1;
    format!("{}{tail}", &C2G[..cut])
}

/// `key` of the file's top level as PyYAML reads it, as JSON; `Err` with PyYAML's error.
fn pyyaml_top(python: &Path, file: &Path, key: &str) -> Result<serde_json::Value, String> {
    let out = Command::new(python)
        .args([
            "-c",
            "import json, sys, yaml\nd = yaml.safe_load(open(sys.argv[1], encoding='utf-8'))\nprint(json.dumps(d.get(sys.argv[2]), default=repr))",
        ])
        .arg(file)
        .arg(key)
        .output()
        .expect("python runs");
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())
}

const TAGS: &[&str] = &[
    "!!null",
    "!!str",
    "!!binary",
    "&s !!null",
    "!!null &s",
    "&s",
    "!<tag:yaml.org,2002:null>",
    "!!null   # kept comment",
    "\n  !!null",
];

#[test]
fn a_filled_scores_list_drops_its_tag_and_pyyaml_reads_it() {
    let Some(python) = pyyaml::python() else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let mut written = Vec::new();
    for (i, tag) in TAGS.iter().enumerate() {
        let f = dir.path().join(format!("c2g-{i}.yml"));
        std::fs::write(&f, c2g_ending(&format!("scores: {tag}\n"))).expect("write");
        let out = set_score(&f);
        assert!(
            out.status.success(),
            "{tag}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&f).expect("read");
        let tail = &text[text.find("\nscores:").expect("scores") + 1..];
        assert!(!tail.contains('!') && !tail.contains("&s"), "{tag}: {tail}");
        if tag.contains('#') {
            let first = tail.lines().next().unwrap_or_default();
            assert_eq!(
                first.split_whitespace().collect::<Vec<_>>(),
                ["scores:", "#", "kept", "comment"],
                "{tag}: {tail}"
            );
        }
        written.push(f);
    }
    // toolscope reads what it wrote without an error, and PyYAML reads the one entry (one
    // Python run for every file).
    for f in &written {
        let out = toolscope(&["lint", s(f)]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains("error"), "{f:?}: {text}");
    }
    let out = Command::new(&python)
        .args([
            "-c",
            "import json, sys, yaml\nfor f in sys.argv[1:]:\n    print(json.dumps(yaml.safe_load(open(f, encoding='utf-8'))['scores']))",
        ])
        .args(&written)
        .output()
        .expect("python runs");
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(
        lines.len(),
        TAGS.len(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (tag, scores) in TAGS.iter().zip(lines) {
        assert_eq!(
            scores,
            serde_json::json!([{"from": "content_understanding", "to": "deep_recognition", "score": 0.5}]),
            "{tag}"
        );
    }
}

#[test]
fn fit_write_fills_a_tagged_scores_list_pyyaml_reads() {
    let Some(python) = pyyaml::python() else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let f = dir.path().join("c2g.yml");
    std::fs::write(&f, c2g_ending("scores: &s !!null\n")).expect("write");
    let runs = dir.path().join("runs.jsonl");
    let mut lines = String::new();
    for _ in 0..6 {
        lines.push_str("{\"operator\": \"analysis_operator\", \"calls\": [\"DocumentReader\", \"VertexLabelAdder\"]}\n");
    }
    std::fs::write(&runs, lines).expect("write runs");
    let out = toolscope(&["fit", s(&f), "--traces", s(&runs), "--write"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&f).expect("read");
    let tail = &text[text.find("\nscores:").expect("scores") + 1..];
    assert!(tail.starts_with("scores:\n  - {"), "{tail}");
    let scores = pyyaml_top(&python, &f, "scores").expect("PyYAML reads the file");
    assert!(scores.as_array().is_some_and(|a| !a.is_empty()), "{scores}");
}

#[test]
fn an_aliased_empty_value_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().expect("temp dir");
    let f = dir.path().join("c2g.yml");
    let text = c2g_ending("scores: &s !!null\nextra: *s\n");
    std::fs::write(&f, &text).expect("write");
    let out = set_score(&f);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("&s") && err.contains("aliases"), "{err}");
    assert_eq!(std::fs::read_to_string(&f).expect("read"), text);
}

/// The same rule in a native file: `next: !!null` and `tools: &t !!str` filled by `set link`.
#[test]
fn native_empty_lists_filled_by_set_link_drop_their_tags() {
    let Some(python) = pyyaml::python() else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let f = dir.path().join("kit.yaml");
    std::fs::write(
        &f,
        "tools:\n  - name: T\n    desc: a tool\nactions:\n  - name: a\n    desc: first\n    next: !!null # none yet\n    tools: &t !!str\n  - name: b\n    desc: second\n",
    )
    .expect("write");
    for args in [["link", "a", "b"], ["link", "a", "T"]] {
        let mut all = vec!["set", s(&f)];
        all.extend(args);
        let out = toolscope(&all);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = std::fs::read_to_string(&f).expect("read");
    assert!(!text.contains('!') && !text.contains("&t"), "{text}");
    assert!(text.contains("# none yet"), "{text}");
    let actions = pyyaml_top(&python, &f, "actions").expect("PyYAML reads it");
    assert_eq!(actions[0]["next"], serde_json::json!(["b"]), "{actions}");
    assert_eq!(actions[0]["tools"], serde_json::json!(["T"]), "{actions}");
}

/// A score written over `!!str 0.4` is the number 0.5 (the tag goes with the old value).
#[test]
fn a_score_set_over_a_str_tag_is_a_number() {
    let Some(python) = pyyaml::python() else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let f = dir.path().join("c2g.yml");
    std::fs::write(
        &f,
        c2g_ending(
            "scores:\n  - {from: content_understanding, to: deep_recognition, score: !!str 0.4}\n",
        ),
    )
    .expect("write");
    let out = set_score(&f);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let scores = pyyaml_top(&python, &f, "scores").expect("PyYAML reads it");
    assert_eq!(scores[0]["score"], serde_json::json!(0.5), "{scores}");
}

/// Item 3: `!!str 0.4` is TS040 like `"0.4"`; `!!float 0.4` and a plain 0.4 are numbers.
#[test]
fn a_str_tagged_score_is_ts040() {
    let dir = tempfile::tempdir().expect("temp dir");
    let lint_of = |tail: &str| {
        let f = dir.path().join("c2g.yml");
        std::fs::write(&f, c2g_ending(tail)).expect("write");
        String::from_utf8_lossy(&toolscope(&["lint", s(&f)]).stdout).into_owned()
    };
    let entry = |score: &str| {
        format!(
            "scores:\n  - {{from: content_understanding, to: deep_recognition, score: {score}}}\n"
        )
    };
    let quoted = lint_of(&entry("\"0.4\""));
    assert!(quoted.contains("TS040"), "{quoted}");
    for tagged in [
        "!!str 0.4",
        "!<tag:yaml.org,2002:str> 0.4",
        "! 0.4",
        "!!binary 0.4",
    ] {
        let out = lint_of(&entry(tagged));
        assert!(out.contains("TS040"), "{tagged}: {out}");
    }
    for number in ["!!float 0.4", "0.4"] {
        let out = lint_of(&entry(number));
        assert!(!out.contains("TS040"), "{number}: {out}");
    }
}

/// Item 2: an export never replaces a trace file, through a symlink or a hard link either,
/// with `--force` too; nor a toolkit's MCP sidecar.
#[test]
fn outputs_never_replace_inputs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let kit = dir.path().join("fs.yaml");
    let runs = dir.path().join("runs.jsonl");
    std::fs::write(&kit, include_str!("../fixtures/replay/fs-kit.yaml")).expect("write");
    let runs_text = include_str!("../fixtures/replay/fs-runs.jsonl");
    std::fs::write(&runs, runs_text).expect("write");
    let sym = dir.path().join("sym.jsonl");
    let hard = dir.path().join("hard.jsonl");
    std::os::unix::fs::symlink(&runs, &sym).expect("symlink");
    std::fs::hard_link(&runs, &hard).expect("hard link");
    let sidecar = dir.path().join("fs.yaml.mcp.json");
    std::fs::write(&sidecar, "{}").expect("write sidecar");
    let targets: [&PathBuf; 4] = [&runs, &sym, &hard, &sidecar];
    for out_path in targets {
        for record in ["1", "2"] {
            let mut args = vec!["export", s(&kit), "--to", "svg", "--traces", s(&runs)];
            args.extend(["--replay", record, "1", "-o", s(out_path), "--force"]);
            let out = toolscope(&args);
            assert!(!out.status.success(), "{out_path:?} {record}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("inputs"), "{err}");
        }
    }
    assert_eq!(std::fs::read_to_string(&runs).expect("read"), runs_text);
    assert_eq!(std::fs::read_to_string(&sidecar).expect("read"), "{}");
    // init: not over a trace file it reads, nor a hard link to a definitions file.
    let defs = dir.path().join("defs.json");
    std::fs::write(
        &defs,
        r#"[{"name": "ls", "description": "list", "parameters": {"type": "object"}}]"#,
    )
    .expect("write defs");
    let defs_link = dir.path().join("defs-link.json");
    std::fs::hard_link(&defs, &defs_link).expect("hard link");
    for target in [&runs, &defs_link] {
        let out = toolscope(&[
            "init",
            s(&defs),
            "--traces",
            s(&runs),
            "-o",
            s(target),
            "--force",
        ]);
        assert!(!out.status.success(), "{target:?}");
    }
    assert_eq!(std::fs::read_to_string(&runs).expect("read"), runs_text);
}

/// Item 2 in the TUI: `:export!` during a replay never replaces the followed trace file.
/// Item 10: a tool named with U+200B and U+2029 (and its action with U+2028 and U+FEFF)
/// shows the same visible escapes in the replay's panes and status line, and no raw
/// invisible character reaches the terminal.
#[test]
fn tui_export_spares_the_followed_traces_and_names_show_escaped() {
    use crate::common::tmux::{self, Tmux};
    if !tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let kit = dir.path().join("fs.yaml");
    let runs = dir.path().join("runs.jsonl");
    let hostile = |t: &str| {
        t.replace("call cd", "call c\u{2028}d\u{feff}")
            .replace("cd", "c\u{200b}d\u{2029}")
    };
    let kit_text = hostile(include_str!("../fixtures/replay/fs-kit.yaml"));
    let runs_text = hostile(include_str!("../fixtures/replay/fs-runs.jsonl"));
    std::fs::write(&kit, &kit_text).expect("write");
    std::fs::write(&runs, &runs_text).expect("write");
    let t = Tmux::new("issue46");
    let bin = env!("CARGO_BIN_EXE_toolscope");
    t.start((100, 30), None, &[bin, s(&kit), "--traces", s(&runs)]);
    t.wait("the first screen", |x| x.contains("Navigator"));
    t.type_line(":replay 1 1");
    let screen = t.wait("step 1 of run 1", |x| {
        x.contains("step 1 of 3") && x.contains("next c")
    });
    for raw in ['\u{200b}', '\u{2028}', '\u{2029}', '\u{feff}'] {
        assert!(
            !screen.contains(raw),
            "raw {:x} on screen:\n{screen}",
            raw as u32
        );
    }
    assert!(screen.contains("c\\u{200b}d\\u{2029}"), "{screen}");
    // At 80x24 as at 100x30: nothing raw, every line the terminal's width (a name measured
    // otherwise than it is drawn makes a longer or shorter line), and a step forward and
    // back gives the same screen again (no stale cells: `next cd ✗ miss   p`).
    for (w, h) in [(100usize, 30u16), (80, 24)] {
        t.run(&[
            "resize-window",
            "-t",
            "t",
            "-x",
            &w.to_string(),
            "-y",
            &h.to_string(),
        ]);
        let before = t.wait("the resized step", |x| {
            x.lines().next().is_some_and(|l| l.chars().count() == w)
                && x.lines().count() == usize::from(h)
                && x.contains("step 1 of 3")
        });
        std::thread::sleep(std::time::Duration::from_millis(300));
        let before = if t.capture() == before {
            before
        } else {
            t.capture()
        };
        t.send(&["Right"]);
        t.wait("the next step", |x| {
            x.contains("step 2 of 3") && !x.contains("step 1 of 3")
        });
        t.send(&["Left"]);
        // The same screen again, cell for cell, once the frame is written (a capture may
        // catch it half drawn; a stale cell would never go).
        let again = t.wait("the step again, as before", |x| x == before);
        for raw in ['\u{200b}', '\u{2028}', '\u{2029}', '\u{feff}'] {
            assert!(
                !again.contains(raw),
                "raw {:x} at {w}x{h}:\n{again}",
                raw as u32
            );
        }
        // Pane lines end in a border, so each is the whole width (capture-pane trims the
        // status lines' trailing blanks).
        let widths: Vec<usize> = again.lines().map(|l| l.chars().count()).collect();
        let framed = again.lines().filter(|l| l.starts_with(['┌', '│', '└']));
        assert!(
            framed.clone().count() > 10 && framed.clone().all(|l| l.chars().count() == w),
            "line widths at {w}x{h}: {widths:?}\n{again}"
        );
        assert!(widths.iter().all(|&n| n <= w), "{widths:?}\n{again}");
    }
    t.type_line(&format!(":export! svg {}", s(&runs)));
    t.wait("the refusal", |x| x.contains("export failed"));
    assert_eq!(std::fs::read_to_string(&runs).expect("read"), runs_text);
    t.send(&["Escape"]);
    t.type_line(":q!");
}

/// Item 4: `init` copies a schema's integers beyond 64 bits digit for digit (OpenAI,
/// wrapped, MCP and JSON-lines definitions), and PyYAML reads the same integers back.
#[test]
fn init_keeps_the_digits_of_wide_schema_integers() {
    let Some(python) = pyyaml::python() else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let schema = r#"{"type": "object", "properties": {"n": {"type": "integer", "maximum": 18446744073709551616, "minimum": -99999999999999999999, "multipleOf": 1.5, "default": 7}}}"#;
    let files = [
        (
            "bare.json",
            format!(r#"[{{"name": "big", "description": "d", "parameters": {schema}}}]"#),
        ),
        (
            "wrapped.json",
            format!(
                r#"[{{"type": "function", "function": {{"name": "big", "parameters": {schema}}}}}]"#
            ),
        ),
        (
            "mcp.json",
            format!(r#"{{"tools": [{{"name": "big", "inputSchema": {schema}}}]}}"#),
        ),
        (
            "lines.jsonl",
            format!(
                "{{\"name\": \"big\", \"parameters\": {schema}}}\n{{\"name\": \"small\", \"parameters\": {{\"type\": \"object\"}}}}\n"
            ),
        ),
    ];
    for (name, text) in files {
        let defs = dir.path().join(name);
        std::fs::write(&defs, text).expect("write defs");
        let out_file = dir.path().join(format!("{name}.yaml"));
        let out = toolscope(&["init", s(&defs), "-o", s(&out_file)]);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let written = std::fs::read_to_string(&out_file).expect("read");
        assert!(
            written.contains("18446744073709551616") && written.contains("-99999999999999999999"),
            "{name}: {written}"
        );
        let check = Command::new(&python)
            .args([
                "-c",
                "import sys, yaml\nd = yaml.safe_load(open(sys.argv[1]))\nt = [t for t in d['tools'] if t['name'] == 'big'][0]\nn = t['input_schema']['properties']['n']\nprint(n['maximum'], n['minimum'], n['multipleOf'], n['default'])",
            ])
            .arg(&out_file)
            .output()
            .expect("python runs");
        assert_eq!(
            String::from_utf8_lossy(&check.stdout).trim(),
            "18446744073709551616 -99999999999999999999 1.5 7",
            "{name}: {}",
            String::from_utf8_lossy(&check.stderr)
        );
    }
}
