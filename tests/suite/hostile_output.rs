//! What the binary writes when the reader goes away or the file is hostile: a closed pipe
//! ends every command quietly (issue 12 item 10), and no text from a file, a file name or an
//! argument reaches stdout or stderr with a raw control character, a bidi override or a
//! line break that forges a line (items 11 and 12).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_toolscope");

/// A toolkit whose every output is far larger than a pipe buffer: many tools no action
/// calls (one lint warning each) and a hub action with a `Next` edge to every action.
fn big_toolkit(dir: &Path) -> PathBuf {
    let n = 3000;
    let mut y = String::from("tools:\n");
    for i in 0..n {
        y += &format!("  - name: tool-{i}\n    desc: A tool with a long enough description {i}.\n");
    }
    y += "actions:\n  - name: hub\n    next:\n";
    for i in 0..n {
        y += &format!("      - action-{i}\n");
    }
    for i in 0..n {
        y += &format!("  - name: action-{i}\n    desc: Action {i}.\n");
    }
    let p = dir.join("big.yaml");
    std::fs::write(&p, y).expect("write");
    p
}

/// Runs the binary, reads one byte of its stdout and closes the pipe; the command must end
/// quietly (no message) with status 0 or 141 (or killed by SIGPIPE), never a panic (101).
fn closed_pipe(args: &[&str]) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut one = [0u8; 1];
    stdout.read_exact(&mut one).expect("some output");
    drop(stdout);
    let out = child.wait_with_output().expect("waits");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "{args:?} printed: {stderr}");
    let quiet = match out.status.code() {
        Some(code) => code == 0 || code == 141,
        None => {
            use std::os::unix::process::ExitStatusExt;
            out.status.signal() == Some(13)
        }
    };
    assert!(quiet, "{args:?} ended with {:?}", out.status);
}

#[test]
fn closed_pipe_ends_gen_quietly() {
    closed_pipe(&["gen", "--actions", "200000"]);
}

#[test]
fn closed_pipe_ends_lint_quietly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = big_toolkit(dir.path());
    closed_pipe(&["lint", p.to_str().unwrap()]);
    closed_pipe(&["lint", "--format", "json", p.to_str().unwrap()]);
}

#[test]
fn closed_pipe_ends_export_quietly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = big_toolkit(dir.path());
    for to in ["dot", "mermaid", "json", "svg"] {
        closed_pipe(&["export", "--to", to, p.to_str().unwrap()]);
    }
}

#[test]
fn closed_pipe_ends_describe_quietly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = big_toolkit(dir.path());
    closed_pipe(&["describe", p.to_str().unwrap()]);
}

#[test]
fn closed_pipe_ends_diff_quietly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = big_toolkit(dir.path());
    let small = dir.path().join("small.yaml");
    std::fs::write(&small, "actions:\n  - name: hub\n").expect("write");
    closed_pipe(&["diff", small.to_str().unwrap(), p.to_str().unwrap()]);
}

#[test]
fn closed_pipe_ends_recommend_quietly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = big_toolkit(dir.path());
    let p = p.to_str().unwrap();
    closed_pipe(&["recommend", p, "--seeds", "hub", "--hops", "1"]);
    closed_pipe(&["recommend", p, "--seeds", "hub", "--format", "json"]);
    closed_pipe(&["convert", p]);
}

/// Characters that must never reach a terminal raw: C0 controls other than line feed and
/// tab, DEL, C1 controls and the bidi controls that reorder text.
fn raw_control(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{200e}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Hostile text: ESC with a CSI colour and clear screen, OSC 0 (title) and OSC 52
/// (clipboard), C1 CSI, a bidi override, a carriage return and a line break that tries to
/// forge an error line.
const HOSTILE: &str = "x\u{1b}[31m\u{1b}[2J\u{1b}]0;pwned\u{7}\u{1b}]52;c;aGk=\u{7}\u{9b}1A\u{202e}gnp.exe\r\nerror: FORGED";

/// A YAML double-quoted scalar; every character that is not printable ASCII is escaped
/// (YAML forbids raw C1 controls in a file).
fn yaml_quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            c => out += &format!("\\u{:04X}", c as u32),
        }
    }
    out + "\""
}

/// A folder with a hostile toolkit (hostile names, descriptions and seeds) in a file whose
/// own name holds ESC and a line break, next to a well-formed one.
struct Fixture {
    dir: tempfile::TempDir,
    hostile: PathBuf,
    plain: PathBuf,
    broken: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let h = yaml_quoted(HOSTILE);
    let name = |s: &str| yaml_quoted(&format!("{s}{HOSTILE}"));
    let yaml = format!(
        "name: {h}\ntools:\n  - name: {t}\n    desc: {h}\n    when_to_use: {h}\n    inputs:\n      - {{name: {h}, type: {h}, desc: {h}}}\n    returns: {{type: {h}, desc: {h}}}\n  - name: {u}\n    desc: {h}\nactions:\n  - name: {a}\n    desc: {h}\n    tools: [{{name: {t}, score: 0.5}}, {{name: {missing}}}]\n    next: [{{name: {b}, score: 5e-324}}, {nowhere}]\n  - name: {b}\n    desc: {h}\noperators:\n  - name: {o}\n    actions: [{a}, {nowhere}]\n    threshold: 0.3\n",
        t = name("tool"),
        u = name("unused"),
        a = name("a"),
        b = name("b"),
        o = name("op"),
        missing = name("missing"),
        nowhere = name("nowhere"),
    );
    let hostile = dir
        .path()
        .join("evil\u{1b}]0;title\u{7}\nerror: FORGED.yaml");
    std::fs::write(&hostile, yaml).expect("write");
    let plain = dir.path().join("plain.yaml");
    std::fs::write(
        &plain,
        "actions:\n  - name: a\n    next: [b]\n  - name: b\n",
    )
    .expect("write");
    let broken = dir
        .path()
        .join("broken\u{1b}[2J\u{202e}\nerror: FORGED.yaml");
    std::fs::write(&broken, "actions: [\n").expect("write");
    Fixture {
        dir,
        hostile,
        plain,
        broken,
    }
}

/// Runs the binary and checks that neither stream holds a raw control character and that no
/// line starts with the forged text.
fn clean(args: &[&std::ffi::OsStr], stdin: Option<&str>) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("runs");
    if let Some(text) = stdin {
        use std::io::Write;
        let _ = child
            .stdin
            .take()
            .expect("stdin")
            .write_all(text.as_bytes());
    } else {
        drop(child.stdin.take());
    }
    let out = child.wait_with_output().expect("waits");
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        if let Some(c) = text.chars().find(|c| raw_control(*c)) {
            panic!("{args:?}: raw {c:?} on {stream}:\n{text}");
        }
        // Descriptions are multi-line text by design; `describe` prints them as written.
        let prose = stream == "stdout" && args.first() == Some(&os("describe"));
        assert!(
            prose || !text.lines().any(|l| l.starts_with("error: FORGED")),
            "{args:?}: a forged line on {stream}:\n{text}"
        );
        assert!(!text.contains("panicked"), "{args:?}: {text}");
    }
    out
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

#[test]
fn every_command_escapes_hostile_text() {
    let f = fixture();
    let (h, p, b) = (
        f.hostile.as_os_str(),
        f.plain.as_os_str(),
        f.broken.as_os_str(),
    );
    let d = f.dir.path().as_os_str();
    let seed = format!("a{HOSTILE}");
    let tool = format!("tool{HOSTILE}");
    let op = format!("op{HOSTILE}");
    let ghost = format!("ghost{HOSTILE}");
    let seeds = ["--seed", seed.as_str(), "--seed", ghost.as_str()].map(os);
    let runs: Vec<Vec<&std::ffi::OsStr>> = vec![
        vec![os("lint"), h],
        vec![os("lint"), os("--format"), os("json"), h],
        vec![os("lint"), b],
        vec![os("lint"), d],
        vec![os("recommend"), h, seeds[0], seeds[1], seeds[2], seeds[3]],
        vec![
            os("recommend"),
            h,
            os("--operator"),
            os(&op),
            os("--format"),
            os("markdown"),
        ],
        vec![
            os("recommend"),
            h,
            seeds[0],
            seeds[1],
            os("--format"),
            os("json"),
            os("--offered"),
        ],
        vec![os("recommend"), h, os("--operator"), os(&ghost)],
        vec![os("explain"), h, seeds[0], seeds[1], os(&tool)],
        vec![os("explain"), h, seeds[0], seeds[1], os(&ghost)],
        vec![
            os("explain"),
            h,
            seeds[0],
            seeds[1],
            os("--format"),
            os("json"),
            os(&tool),
        ],
        vec![os("sweep"), h, seeds[0], seeds[1], seeds[2], seeds[3]],
        vec![os("diff"), p, h],
        vec![os("diff"), h, p, seeds[0], seeds[1], seeds[2], seeds[3]],
        vec![os("diff"), p, h, os("--format"), os("json")],
        vec![os("describe"), h],
        vec![os("describe"), h, os("--style"), os("short")],
        vec![os("describe"), h, os("--style"), os("json")],
        vec![os("export"), h, os("--to"), os("dot"), seeds[0], seeds[1]],
        vec![
            os("export"),
            h,
            os("--to"),
            os("mermaid"),
            seeds[0],
            seeds[1],
        ],
        vec![os("export"), h, os("--to"), os("json")],
        vec![os("export"), h, os("--to"), os("svg"), seeds[0], seeds[1]],
        vec![os("convert"), h],
        vec![
            os("set"),
            h,
            os("score"),
            os(&seed),
            os(&ghost),
            os("0.5"),
            os("--dry-run"),
        ],
        vec![
            os("set"),
            h,
            os("threshold"),
            os(&ghost),
            os("0.5"),
            os("--dry-run"),
        ],
        vec![os("set"), h, os("desc"), os(&ghost), os("--dry-run")],
        vec![os("lint"), b, p],
        vec![os("recommend"), b, os("--seeds"), os("a")],
        vec![os("export"), b, os("--to"), os("dot")],
        vec![os("describe"), b],
        vec![os("diff"), b, p],
        vec![os("convert"), b],
        vec![os("set"), b, os("hops"), os("x"), os("1")],
        vec![os("sweep"), b, os("--seeds"), os("a")],
        vec![os("explain"), b, os("--seeds"), os("a"), os("a")],
        // The TUI refuses a folder holding a file that does not load, before it starts.
        vec![d],
    ];
    for args in &runs {
        clean(args, Some("new\ndesc"));
    }
    // The hostile file loads: its problems are diagnostics, not a parse error.
    let out = clean(&[os("lint"), h], None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("TS030") && stdout.contains("TS050"),
        "{stdout}"
    );
    let out = clean(&[os("export"), h, os("--to"), os("json")], None);
    assert!(out.status.success());
}

#[test]
fn a_name_with_a_line_break_cannot_forge_a_lint_line() {
    let f = fixture();
    let out = clean(&[os("lint"), f.hostile.as_os_str()], None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    // Every line of text output is one diagnostic with its position.
    for line in stdout.lines() {
        assert!(line.contains(".yaml:"), "not a diagnostic line: {line}");
    }
    assert!(
        stdout.contains("^[]0;title^G^Jerror: FORGED.yaml:"),
        "{stdout}"
    );
}

#[test]
fn export_marks_bidi_overrides_in_its_own_syntax() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("bidi.yaml");
    std::fs::write(
        &p,
        "actions:\n  - name: \"invoice\\u202Egnp.exe\"\n    desc: \"rtl\\u2067x\"\n",
    )
    .expect("write");
    for to in ["dot", "mermaid", "svg", "json"] {
        let out = clean(&[os("export"), p.as_os_str(), os("--to"), os(to)], None);
        let text = String::from_utf8_lossy(&out.stdout);
        let marked = match to {
            "dot" => "invoice\\\\u{202e}gnp.exe",
            "json" => "invoice\\u202egnp.exe",
            _ => "invoice\\u{202e}gnp.exe",
        };
        assert!(text.contains(marked), "{to}: {text}");
    }
    let out = clean(&[os("convert"), p.as_os_str()], None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\"invoice\\u202egnp.exe\""), "{text}");
}

#[test]
fn tiny_and_huge_scores_are_written_as_yaml_1_1_floats() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("floats.yaml");
    std::fs::write(
        &p,
        "actions:\n  - name: a\n    next: [{name: b, score: 5e-324}, {name: c, score: 0.00001}]\n  - name: b\n  - name: c\n",
    )
    .expect("write");
    let out = clean(&[os("convert"), p.as_os_str()], None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("score: 5.0e-324"), "{text}");
    assert!(text.contains("score: 1.0e-05"), "{text}");
    let out = clean(
        &[
            os("set"),
            p.as_os_str(),
            os("score"),
            os("a"),
            os("c"),
            os("1e-7"),
            os("--dry-run"),
        ],
        None,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("score: 1.0e-07"), "{text}");
}
