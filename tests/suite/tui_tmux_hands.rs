//! Issue 45 in a real terminal (tmux, private socket): the score field replaces its value
//! and Ctrl-U clears it; `+` then `u` restores the threshold; `q q` with an unsaved edit
//! keeps it; `?` during a replay lists the replay's keys first; the inspector of
//! Chat2Graph's `deep_recognition` at 100x30 shows its edges; an export leaves the keys
//! free. Without tmux the tests return at once.

use crate::common::{shared, tmux};
use tmux::Tmux;

const TK: &str = "\
name: hands
tools:
  - name: Search
    desc: Finds things.
actions:
  - name: plan
    desc: Plans the work.
    next:
      - {name: act, score: 0.8}
  - name: act
    desc: Acts on the plan.
    tools: [Search]
operators:
  - name: op
    actions: [plan]
    threshold: 0.5
    hops: 1
";

fn start(tag: &str, size: (u16, u16), args: &[&str]) -> Tmux {
    let s = Tmux::new(tag);
    let bin = env!("CARGO_BIN_EXE_toolscope");
    let mut command = vec![bin];
    command.extend_from_slice(args);
    s.start(size, None, &command);
    s
}

/// The pane the status line says has the keys.
fn keys_to(screen: &str) -> Option<&'static str> {
    ["graph", "navigator", "inspector"]
        .into_iter()
        .find(|p| screen.contains(&format!(" {p}: ")))
}

/// Tab until the status line says the inspector has the keys, one Tab at a time (each
/// waited for, so a slow screen never makes it overshoot).
fn to_inspector(s: &Tmux) {
    for _ in 0..3 {
        let now = keys_to(&s.wait("a pane named", |x| keys_to(x).is_some()));
        if now == Some("inspector") {
            return;
        }
        s.send(&["Tab"]);
        s.wait("the next pane", |x| {
            keys_to(x).is_some() && keys_to(x) != now
        });
    }
    s.wait("the inspector has the keys", |x| x.contains(" inspector: "));
}

#[test]
fn a_score_typed_replaces_the_value_and_undo_and_quit_keep_the_work() {
    if !tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let tk = dir.path().join("hands.yaml");
    std::fs::write(&tk, TK).expect("write");
    let tk_s = tk.display().to_string();
    let s = start("hands", (100, 30), &[&tk_s]);
    s.first_screen();
    s.type_line(":goto plan");
    to_inspector(&s);
    // Ctrl-U clears the field.
    s.send(&["e"]);
    s.wait("the score field", |x| x.contains("> 0.8"));
    s.send(&["C-u"]);
    s.wait("the field cleared", |x| {
        !x.contains("> 0.8") && x.contains("Edit score")
    });
    s.send(&["Escape"]);
    // The field closed before the next key: an `e` sent with the Escape in one read is
    // Alt-e to the terminal, not Escape then `e`.
    s.wait("the field closed", |x| !x.contains("Edit score"));
    // Typing replaces the value shown; the file gets it.
    s.send(&["e"]);
    s.wait("the score field", |x| x.contains("> 0.8"));
    s.send(&["-l", "0.55"]);
    s.send(&["Enter"]);
    s.wait("the edit", |x| x.contains("[+]"));
    s.send(&["w"]);
    s.wait("saved", |x| x.contains("saved"));
    let text = std::fs::read_to_string(&tk).expect("read");
    assert!(text.contains("{name: act, score: 0.55}"), "{text}");
    // `+` then `u`: the threshold is back.
    s.send(&["+"]);
    s.wait("threshold up", |x| x.contains("threshold 0.55"));
    s.send(&["u"]);
    s.wait("threshold back", |x| {
        x.contains("threshold 0.50") && x.contains("undid: threshold 0.50 now")
    });
    // `q q` with an unsaved edit: still running, the question still up.
    s.send(&["]"]);
    s.wait("one more hop", |x| x.contains("hops 2"));
    s.send(&["q"]);
    s.wait("the question", |x| x.contains("Unsaved edits"));
    s.send(&["q"]);
    // The second `q` is read before the next key; `Escape` after it closes the question,
    // so the question being there until then shows `q` did nothing.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let x = s.wait("the question still up", |x| x.contains("Unsaved edits"));
    assert!(x.contains("Unsaved edits") && x.contains("hops 2"), "{x}");
    assert!(x.contains("y quit, dropping the edits"), "{x}");
    s.send(&["Escape"]);
    s.wait("still there", |x| {
        !x.contains("Unsaved edits") && x.contains("[+]")
    });
    assert!(
        std::fs::read_to_string(&tk)
            .expect("read")
            .contains("hops: 1")
    );
}

#[test]
fn help_during_a_replay_lists_its_keys_first_and_an_export_leaves_the_keys_free() {
    if !tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let tk = dir.path().join("fs.yaml");
    let runs = dir.path().join("runs.jsonl");
    std::fs::write(&tk, include_str!("../fixtures/replay/fs-kit.yaml")).expect("write");
    std::fs::write(&runs, include_str!("../fixtures/replay/fs-runs.jsonl")).expect("write");
    let (tk_s, runs_s) = (tk.display().to_string(), runs.display().to_string());
    let s = start("hands-replay", (100, 30), &[&tk_s, "--traces", &runs_s]);
    s.wait("the opening step", |x| x.contains("step after ls"));
    s.type_line(":replay 1 0");
    s.wait("step 0 of run 1", |x| {
        x.contains("run 1 step 0 of 3") && x.contains(" replay: ")
    });
    s.send(&["?"]);
    // Every replay key on the help's first screen (waited for whole: tmux may show a
    // screen half drawn).
    let keys = [
        "Right/l",
        "Left/h",
        "Space",
        "PgDn",
        "PgUp",
        ":replay-tune",
        "G/End",
    ];
    s.wait("the help with the replay's keys", |x| {
        x.contains("Help (Esc closes)") && keys.iter().all(|k| x.contains(k))
    });
    s.send(&["Escape"]);
    // An export, then the next step at once: the step comes, and the export says done.
    let svg = dir.path().join("step.svg");
    s.type_line(&format!(":export! svg {}", svg.display()));
    s.send(&["Right"]);
    s.wait("step 1", |x| x.contains("step 1 of 3"));
    s.wait("the export's line", |_| svg.is_file());
    let text = std::fs::read_to_string(&svg).expect("svg");
    assert!(text.contains("<svg"), "{text}");
}

#[test]
fn the_inspector_of_deep_recognition_shows_its_edges_at_100x30() {
    if !tmux::available() {
        return;
    }
    let Some(file) = shared::chat2graph_yml() else {
        return;
    };
    let file_s = file.display().to_string();
    let s = start("hands-c2g", (100, 30), &[&file_s]);
    s.first_screen();
    // The operator, whose seed deep_recognition is (the TUI opens on the
    // navigator's first, `Analysis Expert/1`).
    s.type_line(":op Design Expert/1");
    s.wait("the operator", |x| x.contains("operator Design Expert/1"));
    s.type_line(":goto deep_recognition");
    to_inspector(&s);
    let x = s.wait("the edges", |x| {
        x.contains("* deep_recognition ") && x.contains("││Out ") && x.contains("││In ")
    });
    // The edge cursor's row is on screen, with an arrow and a score.
    assert!(x.contains("→ ") || x.contains("-> "), "{x}");
    assert!(
        !x.contains("variability of states"),
        "the prompt's middle is not what the inspector opens on:\n{x}"
    );
}
