//! The insight features in a real terminal (tmux): the explanation, the sweep chart with
//! the current threshold reversed, the baseline marks and the prompt preview. Polls the
//! screen (no fixed sleeps); skipped without tmux unless `CI` is set.

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

#[test]
fn insight_in_tmux() {
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
    let s = Session(format!("toolscope-insight-{}", std::process::id()));
    let bin = env!("CARGO_BIN_EXE_toolscope");
    let out = s.tmux(&["new-session", "-d", "-x", "160", "-y", "48", "-s", "i", bin]);
    assert!(out.status.success(), "{out:?}");
    s.wait("the TUI", |x| x.contains("threshold 0.60"));
    s.keys(&[":goto schema_understanding", "Enter"]);
    s.wait("the explanation", |x| {
        x.contains("blocked at threshold 0.6") && x.contains("critical threshold: up to 0.4")
    });
    let styled = s.screen(true);
    let bar = styled.lines().rev().nth(1).unwrap_or_default();
    assert!(bar.contains("sweep"), "{bar}");
    assert!(
        bar.contains("\u{1b}[7m") || bar.contains(";7m"),
        "current column reversed: {bar:?}"
    );
    s.keys(&["b", "-", "-", "-", "-", "-"]);
    let x = s.wait("entered marks", |x| x.contains("vs baseline ▲2"));
    assert!(x.contains("Diff vs baseline") && x.contains("▲ schema_understanding (action)"));
    s.keys(&["p"]);
    s.wait("the prompt preview", |x| {
        x.contains("Prompt preview") && x.contains("## DocumentReader")
    });
    s.keys(&["Escape", "q"]);
}
