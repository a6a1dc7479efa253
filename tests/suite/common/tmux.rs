//! A tmux server on a private socket for the real-terminal tests: start a session (a shell
//! or the binary itself), send keys, capture the screen, poll it until a condition holds.
//! Killed on drop. Every session gets a private recovery folder (`TOOLSCOPE_STATE_DIR`), so
//! a recovery file left by another run never opens its dialog over the screen under test.
//!
//! Shared by several test files (`crate::common::tmux`), each using part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// How long a test waits for a screen before failing with the screen it saw last.
const DEADLINE: Duration = Duration::from_secs(15);

/// The prompt of the shell sessions ([`Tmux::shell`]), so a test can wait for it.
pub const PROMPT: &str = "READY$";

pub struct Tmux {
    pub socket: String,
    /// The private recovery folder handed to the TUI (removed with the session).
    state: Option<tempfile::TempDir>,
}

/// Whether tmux is installed. Without it a test skips with a notice, except under `CI`,
/// where the missing tool is a failure (CI installs it).
pub fn available() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "tmux is required when CI is set"
        );
        eprintln!("skipping the tmux test: tmux is not installed");
    }
    ok
}

impl Tmux {
    /// A server on a socket private to this test and process; no session yet.
    pub fn new(tag: &str) -> Tmux {
        let state = tempfile::tempdir().ok();
        // toolscope uses only a private state folder (a temporary one may be 0755).
        if let Some(d) = &state {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o700));
        }
        Tmux {
            socket: format!("toolscope-{tag}-{}", std::process::id()),
            state,
        }
    }

    /// The recovery folder the sessions of this server use.
    pub fn state_dir(&self) -> PathBuf {
        self.state
            .as_ref()
            .map_or_else(std::env::temp_dir, |d| d.path().to_path_buf())
    }

    /// Starts session `t` of `width` x `height` running `command` (a program and its
    /// arguments, run directly) in `dir`, with the private recovery folder.
    pub fn start(&self, (width, height): (u16, u16), dir: Option<&Path>, command: &[&str]) {
        let (w, h) = (width.to_string(), height.to_string());
        let state = format!("TOOLSCOPE_STATE_DIR={}", self.state_dir().display());
        let mut args = vec!["new-session", "-d", "-x", &w, "-y", &h, "-s", "t"];
        let dir_s = dir.map(|d| d.display().to_string());
        if let Some(d) = &dir_s {
            args.extend(["-c", d.as_str()]);
        }
        args.extend(["env", state.as_str()]);
        args.extend_from_slice(command);
        let out = self.run(&args);
        assert!(out.status.success(), "tmux new-session failed: {out:?}");
    }

    /// A session `t` of 120x40 running a shell with the [`PROMPT`], once it is shown.
    pub fn shell(tag: &str) -> Tmux {
        let tmux = Tmux::new(tag);
        tmux.start((120, 40), None, &[&format!("PS1={PROMPT} "), "sh"]);
        tmux.wait("the shell prompt", |s| s.contains(PROMPT));
        tmux
    }

    pub fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs")
    }

    /// `send-keys` to the session `t`.
    pub fn send(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        assert!(self.run(&args).status.success(), "send-keys failed");
    }

    /// Types `line` literally and presses Enter.
    pub fn type_line(&self, line: &str) {
        self.send(&["-l", line]);
        self.send(&["Enter"]);
    }

    pub fn capture(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "t"]).stdout).into_owned()
    }

    /// The screen with attributes as SGR escape sequences.
    pub fn capture_styled(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-e", "-t", "t"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A tmux format variable of the pane, e.g. `alternate_on`.
    pub fn flag(&self, name: &str) -> String {
        let f = format!("#{{{name}}}");
        let out = self.run(&["display-message", "-p", "-t", "t", &f]);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Waits for the TUI's first whole frame: a frame is written top to bottom, so a capture
    /// can catch its upper half; the key hints on the last row mean the rest is there.
    pub fn first_screen(&self) -> String {
        self.wait("the first whole screen", |s| {
            s.contains("┌ Graph") && s.contains("q quit")
        })
    }

    /// Polls the screen until `pred` holds; panics with the last screen at the deadline.
    pub fn wait(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.capture();
            if pred(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "timed out waiting for {what}; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(30));
        }
    }
}

/// Polls a file until `pred` holds on its text.
pub fn wait_file(path: &Path, what: &str, pred: impl Fn(&str) -> bool) -> String {
    let start = Instant::now();
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if pred(&text) {
            return text;
        }
        assert!(
            start.elapsed() < DEADLINE,
            "timed out waiting for {what}:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(30));
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}
