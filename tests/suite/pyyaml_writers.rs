//! Every writer of text checked with PyYAML, the YAML 1.1 reader Chat2Graph loads its
//! config with (issue 27, item 3): what toolscope writes must read back there with the same
//! value, or be refused. YAML 1.1 takes U+0085 (NEL), U+2028 and U+2029 for line breaks
//! inside block and quoted scalars, where YAML 1.2 (toolscope's own reader) does not, so
//! the writers' own read-back check cannot see the difference.
//!
//! Random texts over an alphabet of the risky pieces go through each writer: `set desc`
//! over every scalar style a description can have (native and Chat2Graph), the names and
//! descriptions of `add-action` and `add-tool`, `export`'s native writer and `convert`.
//! The library runs hundreds of cases; the real binary a few dozen per writer. One Python
//! run checks them all (see `common/pyyaml.rs` for how that Python is found).

use crate::common::pyyaml;
use crate::common::rng;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use pyyaml::Case;
use rng::Rng;
use toolscope_core::edit::Edit;
use toolscope_core::model::{Node, NodeKind, Toolkit};
use toolscope_core::workspace::Workspace;

const PIECES: &[&str] = &[
    "a",
    "b",
    "Zq",
    " ",
    "  ",
    "\n",
    "\u{2028}",
    "\u{2029}",
    "\u{85}",
    ":",
    ": ",
    "#",
    " #",
    "'",
    "\"",
    "\\",
    "-",
    "- ",
    "é",
    "\t",
    "yes",
    "1.5",
    "{",
    "[",
    "&x",
    "*x",
    "|",
    ">",
    "%",
    "\u{2028}\n",
    "\n\u{2029}",
    "x\u{85}y",
    // Outside YAML's printable set: a file holding them raw does not parse at all.
    "\u{ffff}",
    "\u{7f}",
    "\u{9f}",
];

fn text(rng: &mut Rng) -> String {
    let n = 1 + rng.below(9);
    (0..n).map(|_| PIECES[rng.below(PIECES.len())]).collect()
}

const NATIVE: &str = "\
tools:
  - name: T
    desc: plain text
actions:
  - name: p
    desc: plain one
  - name: s
    desc: 'single quoted'
  - name: d
    desc: \"double quoted\"
  - name: l
    desc: |
      literal
      block
  - name: f
    desc: >
      folded
  - name: n
    tools: [T]
operators:
  - {name: op, actions: [p]}
";

const C2G: &str = "\
tools:
  - &t
    name: T
    type: LOCAL_TOOL
    desc: plain text
    module_path: m.t
actions:
  - &p
    name: p
    desc: plain one
    tools: [*t]
  - &s
    name: s
    desc: 'single quoted'
  - &l
    name: l
    desc: |
      literal
toolkit:
  - [*p, *s, *l]
";

/// `(list, name, kind)` of each description `set desc` replaces in a fixture.
const NATIVE_DESCS: &[(&str, &str, NodeKind)] = &[
    ("tools", "T", NodeKind::Tool),
    ("actions", "p", NodeKind::Action),
    ("actions", "s", NodeKind::Action),
    ("actions", "d", NodeKind::Action),
    ("actions", "l", NodeKind::Action),
    ("actions", "f", NodeKind::Action),
    ("actions", "n", NodeKind::Action),
];
const C2G_DESCS: &[(&str, &str, NodeKind)] = &[
    ("tools", "T", NodeKind::Tool),
    ("actions", "p", NodeKind::Action),
    ("actions", "s", NodeKind::Action),
    ("actions", "l", NodeKind::Action),
];

struct Run {
    dir: tempfile::TempDir,
    cases: Vec<Case>,
    files: usize,
    refused: usize,
}

impl Run {
    fn new() -> Run {
        Run {
            dir: tempfile::tempdir().expect("tempdir"),
            cases: Vec::new(),
            files: 0,
            refused: 0,
        }
    }

    fn file(&mut self, text: &str) -> PathBuf {
        self.files += 1;
        let p = self.dir.path().join(format!("f{}.yaml", self.files));
        std::fs::write(&p, text).expect("write");
        p
    }

    fn expect(
        &mut self,
        file: &Path,
        list: &'static str,
        name: Option<&str>,
        key: &'static str,
        v: &str,
    ) {
        self.cases.push(Case {
            file: file.to_path_buf(),
            list,
            name: name.map(str::to_string),
            key,
            expect: v.to_string(),
        });
    }

    /// Applies `edit` to `fixture`; when it is accepted, the written text goes to a file.
    fn edited(&mut self, fixture: &str, edit: Edit) -> Option<PathBuf> {
        let mut ws =
            Workspace::from_text(Path::new("kit.yaml"), fixture.to_string(), None).expect("loads");
        match ws.apply(edit) {
            Ok(_) => Some(self.file(&ws.files()[0].source.text.clone())),
            Err(_) => {
                self.refused += 1;
                None
            }
        }
    }

    fn check(&self) {
        let Some(python) = pyyaml::python() else {
            return;
        };
        let failures = pyyaml::check(&python, &self.cases, self.dir.path());
        assert!(
            failures.is_empty(),
            "{} of {} values read differently by PyYAML, e.g.:\n{}",
            failures.len(),
            self.cases.len(),
            failures
                .iter()
                .take(5)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

#[test]
fn set_desc_add_action_and_add_tool_read_back_in_pyyaml() {
    let mut run = Run::new();
    let mut rng = Rng(0x2028_2029_0085);
    for _ in 0..60 {
        for (fixture, descs) in [(NATIVE, NATIVE_DESCS), (C2G, C2G_DESCS)] {
            for &(list, name, kind) in descs {
                let t = text(&mut rng);
                let edit = Edit::SetDesc {
                    kind,
                    name: name.into(),
                    text: t.clone(),
                };
                if let Some(f) = run.edited(fixture, edit) {
                    run.expect(&f, list, Some(name), "desc", &t);
                }
            }
        }
        let (name, desc) = (text(&mut rng), text(&mut rng));
        let edit = Edit::AddAction {
            name: name.clone(),
            desc: desc.clone(),
        };
        if let Some(f) = run.edited(NATIVE, edit) {
            run.expect(&f, "actions", Some(&name), "desc", &desc);
        }
        for fixture in [NATIVE, C2G] {
            let (name, desc) = (text(&mut rng), text(&mut rng));
            // A Chat2Graph tool needs the module its class is imported from.
            let module_path = match fixture == C2G {
                true => "app.plugin.tools".to_string(),
                false => String::new(),
            };
            let edit = Edit::AddTool {
                name: name.clone(),
                desc: desc.clone(),
                callers: vec![("p".into(), 0.5)],
                module_path,
            };
            if let Some(f) = run.edited(fixture, edit) {
                run.expect(&f, "tools", Some(&name), "desc", &desc);
            }
        }
    }
    assert!(
        run.cases.len() > 400,
        "most edits are accepted: {}",
        run.cases.len()
    );
    run.check();
}

#[test]
fn the_native_writer_reads_back_in_pyyaml() {
    let mut run = Run::new();
    let mut rng = Rng(0x85);
    for _ in 0..40 {
        let mut tk = Toolkit::new();
        let mut named = Vec::new();
        for kind in [NodeKind::Tool, NodeKind::Group, NodeKind::Action] {
            let mut node = Node::new(kind, format!("{}{}", text(&mut rng), named.len()));
            node.desc = text(&mut rng);
            named.push((kind, node.name.clone(), node.desc.clone()));
            tk.add_node(node);
        }
        let f = run.file(&toolscope_core::export::native::to_native(&tk));
        for (kind, name, desc) in named {
            let list = match kind {
                NodeKind::Tool => "tools",
                NodeKind::Group => "groups",
                NodeKind::Action => "actions",
            };
            run.expect(&f, list, Some(&name), "desc", &desc);
        }
    }
    run.check();
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolscope"))
}

/// What `set desc` makes of its standard input (one line: without its line breaks at the
/// end; CRLF as LF).
fn as_set_reads(t: &str) -> String {
    let t = t.replace("\r\n", "\n");
    match t.trim_end_matches('\n').lines().count() <= 1 {
        true => t.trim_end_matches('\n').to_string(),
        false => t,
    }
}

#[test]
fn the_binary_writes_what_pyyaml_reads_back() {
    let mut run = Run::new();
    let mut rng = Rng(0x2029);
    for i in 0..12 {
        for (fixture, descs) in [(NATIVE, NATIVE_DESCS), (C2G, C2G_DESCS)] {
            let (list, name, _) = descs[i % descs.len()];
            let t = text(&mut rng);
            let f = run.file(fixture);
            let mut child = bin()
                .args(["set", &f.display().to_string(), "desc", name])
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("runs");
            {
                use std::io::Write;
                let mut stdin = child.stdin.take().expect("stdin");
                stdin.write_all(t.as_bytes()).expect("write");
            }
            match child.wait().expect("waits").success() {
                true => run.expect(&f, list, Some(name), "desc", &as_set_reads(&t)),
                false => assert_eq!(std::fs::read_to_string(&f).expect("read"), fixture),
            }
        }
        let (name, desc) = (text(&mut rng), text(&mut rng));
        let f = run.file(NATIVE);
        let out = bin()
            .args([
                "set",
                &f.display().to_string(),
                "add-action",
                &name,
                "--desc",
                &desc,
            ])
            .output()
            .expect("runs");
        if out.status.success() {
            run.expect(&f, "actions", Some(&name), "desc", &desc);
        }
        // convert: a native source whose texts are written escaped, converted again.
        let src = run.file(&format!(
            "actions:\n  - name: {}\n    desc: {}\n",
            toolscope_core::source::emit::double_quoted(&name),
            toolscope_core::source::emit::double_quoted(&desc)
        ));
        let out = bin()
            .args(["convert", &src.display().to_string()])
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let f = run.file(&String::from_utf8(out.stdout).expect("utf-8"));
        run.expect(&f, "actions", Some(&name), "desc", &desc);
    }
    run.check();
}
