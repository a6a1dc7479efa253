//! `toolscope set` under attack (issue 12): concurrent writers, removals that must leave a
//! loadable file, the structural edits from the CLI, and `--dry-run` as a real patch.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use toolscope_core::model::NodeKind;
use toolscope_core::source::Format;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolscope"))
}

fn spawn_set(path: &Path, args: &[&str]) -> Child {
    bin()
        .arg("set")
        .arg(path)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs")
}

fn set(path: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = bin()
        .arg("set")
        .arg(path)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin.as_bytes()).expect("write stdin");
    drop(input);
    child.wait_with_output().expect("waits")
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `n` actions `a0..`, each with one scored `next` edge to `sink`.
fn fan_in(dir: &Path, n: usize) -> PathBuf {
    let mut text = String::from("actions:\n");
    for i in 0..n {
        text.push_str(&format!(
            "  - name: a{i}\n    next:\n      - {{name: sink, score: 0.5}}\n"
        ));
    }
    text.push_str("  - name: sink\n");
    let p = dir.join("fan.yaml");
    fs::write(&p, text).expect("write");
    p
}

fn score(path: &Path, from: &str, to: &str) -> Option<f64> {
    let loaded =
        toolscope_core::load::load_paths(&[path.to_path_buf()], Some(Format::Native)).ok()?;
    let tk = loaded.toolkit;
    let a = tk.action(from)?;
    let b = tk.find(NodeKind::Action, to)?;
    tk.edge(a, b).map(|e| tk.graph[e].score)
}

fn value(i: usize) -> String {
    format!("0.{:02}", i + 1)
}

#[test]
fn fifty_concurrent_sets_all_land() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = fan_in(dir.path(), 50);
    let children: Vec<(usize, Child)> = (0..50)
        .map(|i| {
            let from = format!("a{i}");
            (i, spawn_set(&p, &["score", &from, "sink", &value(i)]))
        })
        .collect();
    let mut successes = 0;
    for (i, child) in children {
        let out = child.wait_with_output().expect("waits");
        if out.status.success() {
            successes += 1;
            let got = score(&p, &format!("a{i}"), "sink");
            assert_eq!(
                got,
                Some(value(i).parse().expect("number")),
                "a{i}: reported success but the file says {got:?}"
            );
        }
    }
    // The lock makes writers wait rather than fail.
    assert_eq!(successes, 50);
    let leftovers: Vec<String> = fs::read_dir(dir.path())
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// A writer that replaces the file by renaming a new one over it (as editors do), taking
/// toolscope's write lock like any later toolscope writer: neither it nor `set` loses the
/// other's changes.
#[test]
fn a_renaming_writer_and_sets_keep_each_others_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = fan_in(dir.path(), 20);
    let writer_path = p.clone();
    let writer = std::thread::spawn(move || {
        for tick in 0..60 {
            let _lock = toolscope_core::source::save::lock_for_write(&writer_path).expect("lock");
            let mut text = fs::read_to_string(&writer_path).expect("read");
            text.push_str(&format!("# tick {tick}\n"));
            let tmp = writer_path.with_extension("new");
            fs::write(&tmp, text).expect("write");
            fs::rename(&tmp, &writer_path).expect("rename");
            drop(_lock);
            std::thread::sleep(std::time::Duration::from_millis(3));
        }
    });
    let children: Vec<(usize, Child)> = (0..20)
        .map(|i| {
            let from = format!("a{i}");
            (i, spawn_set(&p, &["score", &from, "sink", &value(i)]))
        })
        .collect();
    let mut reported = Vec::new();
    for (i, child) in children {
        let out = child.wait_with_output().expect("waits");
        if out.status.success() {
            reported.push(i);
        }
    }
    writer.join().expect("writer");
    for i in &reported {
        assert_eq!(
            score(&p, &format!("a{i}"), "sink"),
            Some(value(*i).parse().expect("number")),
            "a{i}"
        );
    }
    assert_eq!(reported.len(), 20);
    let text = fs::read_to_string(&p).expect("read");
    for tick in 0..60 {
        assert!(
            text.contains(&format!("# tick {tick}\n")),
            "tick {tick} lost"
        );
    }
}

fn lint(path: &Path) -> Output {
    bin().arg("lint").arg(path).output().expect("binary runs")
}

const C2G: &str = "tools:
  - &t1
    name: T1
  - &t2
    name: T2
actions:
  - &a
    name: a
    tools:  # what a calls
      - *t1
  - &b
    name: b
    tools:
      - *t1
      - *t2
toolkit:
  - [*a, *b]
experts:
  - profile: {name: E}
    workflow:
      - - instruction: go
          actions: [*a]
";

#[test]
fn removing_the_last_call_edge_writes_an_empty_list_chat2graph_can_load() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("c2g.yml");
    fs::write(&p, C2G).expect("write");
    ok(&set(&p, &["unlink", "a", "T1"], ""));
    let text = fs::read_to_string(&p).expect("read");
    assert!(text.contains("    tools: []  # what a calls\n"), "{text}");
    let out = lint(&p);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}");
    assert!(!report.contains("TS070"), "{report}");
}

#[test]
fn lint_reports_a_null_list_chat2graph_fails_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("c2g.yml");
    fs::write(
        &p,
        C2G.replace("    tools:  # what a calls\n      - *t1\n", "    tools:\n"),
    )
    .expect("write");
    let out = lint(&p);
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert!(report.contains("error TS070"), "{report}");
}

#[test]
fn lint_reports_a_bare_tool_name_chat2graph_drops() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("c2g.yml");
    fs::write(&p, C2G.replace("      - *t2\n", "      - T2\n")).expect("write");
    let report = String::from_utf8_lossy(&lint(&p).stdout).into_owned();
    assert!(report.contains("warning TS072"), "{report}");
    assert!(report.contains("`T2` as a bare name"), "{report}");
}

const NATIVE: &str = "actions:
  - name: plan
    desc: Plan.
    tools:
      - search
    next: [act]
  - name: act
    desc: Act.
tools:
  - name: search
    desc: Search.
";

#[test]
fn every_tui_edit_is_offered_by_set() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("t.yaml");
    fs::write(&p, NATIVE).expect("write");
    ok(&set(
        &p,
        &["add-action", "review", "--desc", "Review it."],
        "",
    ));
    ok(&set(&p, &["link", "act", "review", "0.5"], ""));
    ok(&set(
        &p,
        &[
            "add-tool", "fetch", "--caller", "act", "--caller", "review", "--score", "0.25",
        ],
        "",
    ));
    ok(&set(&p, &["enabled", "search", "false"], ""));
    ok(&set(&p, &["unlink", "plan", "search"], ""));
    let loaded = toolscope_core::load::load_paths(std::slice::from_ref(&p), None).expect("loads");
    let tk = &loaded.toolkit;
    let edge = |a: &str, k: NodeKind, b: &str| {
        let (a, b) = (tk.action(a)?, tk.find(k, b)?);
        tk.edge(a, b).map(|e| tk.graph[e].score)
    };
    assert_eq!(edge("act", NodeKind::Action, "review"), Some(0.5));
    assert_eq!(edge("review", NodeKind::Tool, "fetch"), Some(0.25));
    assert_eq!(edge("plan", NodeKind::Tool, "search"), None);
    let text = fs::read_to_string(&p).expect("read");
    assert!(text.contains("    tools: []\n"), "{text}");
    assert!(text.contains("enabled: false"), "{text}");
    // A removal prints its cascade.
    let out = set(&p, &["remove", "plan", "--kind", "action"], "");
    ok(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("removed: action plan"), "{stderr}");
    let out = set(&p, &["enabled", "act", "true"], "");
    assert!(!out.status.success());
}

#[test]
fn dry_run_prints_a_real_patch_when_piped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("crlf.yaml");
    fs::write(&p, NATIVE.replace('\n', "\r\n")).expect("write");
    let out = set(&p, &["link", "act", "plan", "0.5", "--dry-run"], "");
    ok(&out);
    let patch = String::from_utf8(out.stdout).expect("utf-8");
    assert!(patch.contains("+    next:\r\n"), "{patch:?}");
    assert!(!patch.contains("^M"), "{patch:?}");
    assert_eq!(
        fs::read_to_string(&p).expect("read"),
        NATIVE.replace('\n', "\r\n")
    );
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn an_anchored_description_used_elsewhere_is_never_changed_silently() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("c2g.yml");
    let text = C2G
        .replace(
            "    name: a\n",
            "    name: a\n    desc: &shared Reads things.\n",
        )
        .replace("    name: b\n", "    name: b\n    desc: *shared\n")
        .replace("profile: {name: E}", "profile: {name: E, desc: *shared}");
    fs::write(&p, &text).expect("write");
    // The anchored use: refused, nothing written.
    let out = set(&p, &["desc", "a"], "Writes things.\n");
    assert!(!out.status.success());
    assert!(stderr(&out).contains("&shared"), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(&p).expect("read"), text);
    // A use through an alias gets its own value, and the note says so.
    let out = set(&p, &["desc", "b"], "Checks things.\n");
    ok(&out);
    assert!(stderr(&out).contains("own value"), "{}", stderr(&out));
    let after = fs::read_to_string(&p).expect("read");
    assert!(
        after.contains("    desc: &shared Reads things.\n"),
        "{after}"
    );
    assert!(after.contains("    desc: Checks things.\n"), "{after}");
    assert!(
        after.contains("profile: {name: E, desc: *shared}"),
        "{after}"
    );
}

#[test]
fn an_anchored_score_used_elsewhere_is_never_changed_silently() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("t.yaml");
    let text = "actions:
  - name: a
    next: [{name: b, score: &s 0.5}]
  - name: b
    next: [{name: c, score: *s}]
  - name: c
meta:
  default: *s
";
    fs::write(&p, text).expect("write");
    let out = set(&p, &["score", "a", "b", "0.75"], "");
    assert!(!out.status.success());
    assert!(stderr(&out).contains("&s"), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(&p).expect("read"), text);
    let out = set(&p, &["score", "b", "c", "0.25"], "");
    ok(&out);
    assert!(stderr(&out).contains("own value"), "{}", stderr(&out));
    let after = fs::read_to_string(&p).expect("read");
    assert!(after.contains("{name: c, score: 0.25}"), "{after}");
    assert!(after.contains("score: &s 0.5}"), "{after}");
}

#[test]
fn insertions_after_keep_block_scalars_keep_their_value() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("t.yaml");
    let text = "actions:
  - name: a
    desc: |+
      Kept trailing lines.


  - name: b
    desc: >+
      Folded, kept.

";
    fs::write(&p, text).expect("write");
    ok(&set(&p, &["link", "a", "b", "0.5"], ""));
    ok(&set(&p, &["link", "b", "a"], ""));
    let loaded = toolscope_core::load::load_paths(std::slice::from_ref(&p), None).expect("loads");
    let tk = &loaded.toolkit;
    let desc = |n: &str| tk.node(tk.action(n).expect("action")).desc.clone();
    assert_eq!(desc("a"), "Kept trailing lines.\n\n\n");
    assert_eq!(desc("b"), "Folded, kept.\n\n");
}

#[test]
fn appending_scores_after_a_final_block_scalar_keeps_its_value() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = [
        ("|+", "\n\n"),
        ("|+", "\n"),
        ("|+", ""),
        ("|", ""),
        ("|", "\n"),
        (">+", "\n"),
    ];
    for (n, (header, tail)) in cases.into_iter().enumerate() {
        let name = format!("case{n}.yml");
        let p = dir.path().join(&name);
        let text = format!("{C2G}leader:\n  instruction: {header}\n    Lead.{tail}");
        fs::write(&p, &text).expect("write");
        let before = toolscope_core::source::yaml::parse(&text, &Default::default())
            .map(|d| {
                let root = d.root.expect("root");
                let leader = d.get(root, "leader").expect("leader");
                let i = d.get(leader, "instruction").expect("instruction");
                d.str(i).expect("text").to_string()
            })
            .expect("parses");
        ok(&set(&p, &["score", "a", "T1", "0.5"], ""));
        let after_text = fs::read_to_string(&p).expect("read");
        assert!(after_text.contains("scores:"), "{after_text}");
        let doc =
            toolscope_core::source::yaml::parse(&after_text, &Default::default()).expect("parses");
        let root = doc.root.expect("root");
        let leader = doc.get(root, "leader").expect("leader");
        let i = doc.get(leader, "instruction").expect("instruction");
        assert_eq!(doc.str(i), Some(before.as_str()), "{name}:\n{after_text}");
    }
}

#[test]
fn export_and_convert_never_overwrite_an_opened_toolkit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("t.yaml");
    fs::write(&p, NATIVE).expect("write");
    let link = dir.path().join("link.yaml");
    std::os::unix::fs::symlink(&p, &link).expect("symlink");
    let hard = dir.path().join("hard.yaml");
    fs::hard_link(&p, &hard).expect("hard link");
    for target in [&p, &link, &hard] {
        for args in [
            vec!["export", "--to", "dot"],
            vec!["convert", "--to", "native"],
        ] {
            for force in [false, true] {
                let mut cmd = bin();
                cmd.args(&args).arg(&p).arg("-o").arg(target);
                if force {
                    cmd.arg("--force");
                }
                let out = cmd.output().expect("runs");
                assert!(!out.status.success(), "{args:?} -o {}", target.display());
                assert!(stderr(&out).contains("opened toolkit"), "{}", stderr(&out));
                assert_eq!(fs::read_to_string(&p).expect("read"), NATIVE);
            }
        }
    }
    // Another existing file needs --force.
    let other = dir.path().join("notes.txt");
    fs::write(&other, "mine\n").expect("write");
    let out = bin()
        .args(["export", "--to", "dot"])
        .arg(&p)
        .arg("-o")
        .arg(&other)
        .output()
        .expect("runs");
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(&other).expect("read"), "mine\n");
    let out = bin()
        .args(["convert", "--to", "native", "--force"])
        .arg(&p)
        .arg("-o")
        .arg(&other)
        .output()
        .expect("runs");
    ok(&out);
    assert!(fs::read_to_string(&other).expect("read").contains("plan"));
}

#[test]
fn a_multi_line_desc_replaces_a_commented_one_line_desc() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("t.yaml");
    fs::write(&p, NATIVE.replace("desc: Plan.", "desc: Plan.  # old text")).expect("write");
    ok(&set(&p, &["desc", "plan"], "Line one.\nLine two.\n"));
    let after = fs::read_to_string(&p).expect("read");
    assert!(
        after.contains("    desc: |  # old text\n      Line one.\n      Line two.\n    tools:"),
        "{after}"
    );
    // A block with a header comment keeps it when replaced again.
    ok(&set(&p, &["desc", "plan"], "Three.\nFour.\n"));
    let after = fs::read_to_string(&p).expect("read");
    assert!(
        after.contains("    desc: |  # old text\n      Three.\n      Four.\n"),
        "{after}"
    );
}

fn c2g_score(path: &Path, from: &str, to: &str) -> Option<f64> {
    let loaded =
        toolscope_core::load::load_paths(&[path.to_path_buf()], Some(Format::Chat2Graph)).ok()?;
    let tk = loaded.toolkit;
    let a = tk.action(from)?;
    let b = tk.find(NodeKind::Tool, to)?;
    tk.edge(a, b).map(|e| tk.graph[e].score)
}

#[test]
fn scores_go_into_flow_indented_and_terminated_chat2graph_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let flow = "{tools: [{name: T1}], actions: [{name: a, tools: [{name: T1}]}, {name: b, tools: [{name: T1}]}], toolkit: [[{name: a}, {name: b}]]}\n";
    let indented: String = C2G.lines().map(|l| format!("  {l}\n")).collect();
    let terminated = format!("---\n{C2G}...\n# trailing note\n");
    for (name, text) in [
        ("flow.yml", flow.to_string()),
        ("indented.yml", indented),
        ("terminated.yml", terminated),
    ] {
        let p = dir.path().join(name);
        fs::write(&p, &text).expect("write");
        let out = set(&p, &["score", "a", "T1", "0.5"], "");
        ok(&out);
        assert_eq!(c2g_score(&p, "a", "T1"), Some(0.5), "{name}");
        // A second edge goes into the list the first one created.
        ok(&set(&p, &["score", "b", "T1", "0.25"], ""));
        assert_eq!(c2g_score(&p, "b", "T1"), Some(0.25), "{name}");
        assert_eq!(c2g_score(&p, "a", "T1"), Some(0.5), "{name}");
        let after = fs::read_to_string(&p).expect("read");
        assert_eq!(after.matches("scores").count(), 1, "{after}");
        if name == "terminated.yml" {
            assert!(after.ends_with("...\n# trailing note\n"), "{after}");
        }
    }
}

#[test]
fn chat2graph_tuning_is_flagged_where_the_user_tunes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("c2g.yml");
    fs::write(&p, C2G).expect("write");
    let report = String::from_utf8_lossy(&lint(&p).stdout).into_owned();
    assert!(!report.contains("TS071"), "{report}");
    let out = set(&p, &["score", "a", "T1", "0.5"], "");
    ok(&out);
    assert!(
        stderr(&out).contains("toolscope_chat2graph.install()"),
        "{}",
        stderr(&out)
    );
    let out = set(&p, &["threshold", "E/1", "0.7"], "");
    ok(&out);
    let report = String::from_utf8_lossy(&lint(&p).stdout).into_owned();
    assert!(report.contains("info TS071"), "{report}");
    assert!(report.contains("1 operator(s)"), "{report}");
    assert!(report.contains("`scores:` list"), "{report}");
}

#[test]
fn set_keeps_mode_owner_and_hard_links() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("t.yaml");
    fs::write(&p, NATIVE).expect("write");
    fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).expect("chmod");
    let owned = std::os::unix::fs::chown(&p, Some(4321), Some(4322)).is_ok();
    let other = dir.path().join("other.yaml");
    fs::hard_link(&p, &other).expect("hard link");
    ok(&set(&p, &["link", "act", "plan", "0.5"], ""));
    let text = fs::read_to_string(&other).expect("read");
    assert!(text.contains("{name: plan, score: 0.5}"), "{text}");
    let m = fs::metadata(&p).expect("metadata");
    assert_eq!(m.permissions().mode() & 0o777, 0o640);
    assert_eq!(m.nlink(), 2);
    if owned {
        assert_eq!((m.uid(), m.gid()), (4321, 4322));
    }
    // A single-link file is replaced by rename and still keeps all three.
    fs::remove_file(&other).expect("unlink");
    ok(&set(&p, &["unlink", "act", "plan"], ""));
    let m = fs::metadata(&p).expect("metadata");
    assert_eq!(m.permissions().mode() & 0o777, 0o640);
    if owned {
        assert_eq!((m.uid(), m.gid()), (4321, 4322));
    }
}

#[test]
fn a_shared_anchored_list_is_not_edited_for_one_user() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("t.yaml");
    let text = NATIVE
        .replace(
            "    tools:\n      - search\n",
            "    tools: &common [search]\n",
        )
        .replace("    desc: Act.\n", "    desc: Act.\n    tools: *common\n");
    fs::write(&p, &text).expect("write");
    let out = set(&p, &["unlink", "plan", "search"], "");
    assert!(!out.status.success());
    assert!(stderr(&out).contains("&common"), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(&p).expect("read"), text);
}

/// Issue 27, item 13: `set desc` read standard input without a bound (300 MB peaked at
/// 1.2 GB before the refusal; an endless input grew until allocation failed). It stops
/// past the description limit and says so, under a 300 MB ceiling, with an endless input.
#[test]
fn set_desc_stops_reading_past_the_limit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("t.yaml");
    fs::write(&p, NATIVE).expect("write");
    let script = format!(
        "ulimit -v 300000 && exec timeout -s KILL 60 '{}' set \"$1\" desc plan < /dev/zero",
        env!("CARGO_BIN_EXE_toolscope")
    );
    let out = Command::new("sh")
        .args(["-c", &script, "sh"])
        .arg(&p)
        .output()
        .expect("runs");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{:?} {err}", out.status);
    assert!(err.contains("limit"), "{err}");
    assert_eq!(fs::read_to_string(&p).expect("read"), NATIVE);
}
