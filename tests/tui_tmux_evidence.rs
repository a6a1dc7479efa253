//! Evidence in a real terminal (tmux): `toolscope FILE --traces T` loads the records, `V`
//! shows the panel, `:fit` changes two Call scores as one edit and `u` undoes both. Polls
//! the screen (no fixed sleeps); skipped without tmux unless `CI` is set.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

struct Session(String);

impl Session {
    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.0])
            .args(args)
            .output()
            .expect("tmux runs")
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "i"];
        args.extend_from_slice(keys);
        assert!(self.tmux(&args).status.success());
    }

    fn screen(&self, styled: bool) -> String {
        let args: &[&str] = if styled {
            &["capture-pane", "-p", "-e", "-t", "i"]
        } else {
            &["capture-pane", "-p", "-t", "i"]
        };
        String::from_utf8_lossy(&self.tmux(args).stdout).into_owned()
    }

    fn wait(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen(false);
            if pred(&s) {
                return s;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "timed out waiting for {what}:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(30));
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

const TK: &str = "\
name: ev
tools:
  - name: Search
    desc: Finds things.
  - name: Fetch
    desc: Gets a page.
  - name: Mail
    desc: Sends a mail.
actions:
  - name: plan
    desc: Plans the work.
    tools: [Search]
    next:
      - {name: act, score: 0.8}
  - name: act
    desc: Acts on the plan.
    tools:
      - {name: Fetch, score: 0.6}
      - {name: Mail, score: 0.7}
operators:
  - name: op
    actions: [plan]
    threshold: 0.5
    hops: 1
";

const TRACES: &str = r#"{"operator": "op", "called": ["Search"]}
{"operator": "op", "called": ["Search", "Fetch"]}
{"operator": "op", "called": ["Search"]}
{"operator": "op", "called": ["Search"]}
"#;

#[test]
fn evidence_in_tmux() {
    if !Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        assert!(
            std::env::var_os("CI").is_none(),
            "tmux is required when CI is set"
        );
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let tk = dir.path().join("tk.yaml");
    let traces = dir.path().join("runs.jsonl");
    std::fs::write(&tk, TK).expect("write toolkit");
    std::fs::write(&traces, TRACES).expect("write traces");
    let s = Session(format!("toolscope-evidence-{}", std::process::id()));
    let bin = env!("CARGO_BIN_EXE_toolscope");
    let (tk_s, traces_s) = (tk.display().to_string(), traces.display().to_string());
    let args = [
        "new-session",
        "-d",
        "-x",
        "160",
        "-y",
        "48",
        "-s",
        "i",
        bin,
        &tk_s,
        "--traces",
        &traces_s,
    ];
    let out = s.tmux(&args);
    assert!(out.status.success(), "{out:?}");
    let screen = s.wait("the records", |x| x.contains("4 record(s) from 1 file(s)"));
    assert!(screen.contains("tokens ~"), "{screen}");
    assert!(screen.contains("Mail (0 calls)"), "{screen}");
    s.keys(&["V"]);
    s.wait("the panel", |x| {
        x.contains("evidence: op") && x.contains("never called: Mail")
    });
    s.keys(&[":fit", "Enter"]);
    s.wait("the fit", |x| x.contains("2 Call score(s) changed"));
    s.keys(&["u"]);
    s.wait("the undo", |x| !x.contains("[+]"));
    assert_eq!(std::fs::read_to_string(&tk).expect("read"), TK);
    s.keys(&["q"]);
}
