//! Terminal safety in a real terminal (tmux): escape sequences in names and descriptions
//! never reach the terminal raw, and a panic inside the TUI leaves a usable shell.
//! Without tmux the tests fail when `CI` is set and print a skip notice otherwise.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(15);

/// A tmux server on its own socket, killed on drop.
struct Session {
    socket: String,
}

impl Session {
    /// Starts `shell_command` in a 120x40 window, or `None` when tmux is missing.
    fn start(name: &str, shell_command: &str) -> Option<Session> {
        let available = Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success());
        if !available {
            assert!(std::env::var_os("CI").is_none(), "CI must have tmux");
            eprintln!("skipping: tmux is not installed");
            return None;
        }
        let s = Session {
            socket: format!("toolscope-{name}-{}", std::process::id()),
        };
        let out = s.tmux(&[
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            "120",
            "-y",
            "40",
            shell_command,
        ]);
        assert!(out.status.success(), "tmux new-session: {out:?}");
        Some(s)
    }

    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("tmux runs")
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "t"]).stdout).into_owned()
    }

    fn format(&self, f: &str) -> String {
        let out = self.tmux(&["display-message", "-p", "-t", "t", f]);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if pred(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "timed out waiting for {what}:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(40));
        }
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        assert!(self.tmux(&args).status.success());
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

const HOSTILE: &str = "actions:\n  - name: \"evil\\e]0;PWNED\\a\\e[2J\\e[31mred\"\n    desc: \"clip \\e]52;c;SGVsbG8=\\a move \\e[10;10H bidi \\u202Eevil\\u202C bell \\a del \\x7f\"\n    next: [plain_next]\n  - name: plain_next\n    desc: \"\\e[?1049l\\e[?25l leaves the screen\"\noperators:\n  - {name: o, actions: [\"evil\\e]0;PWNED\\a\\e[2J\\e[31mred\"]}\n";

#[test]
fn escape_sequences_in_yaml_never_reach_the_terminal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("hostile.yaml");
    std::fs::write(&file, HOSTILE).expect("write");
    let cmd = format!("{} {}", env!("CARGO_BIN_EXE_toolscope"), file.display());
    let Some(s) = Session::start("safety", &cmd) else {
        return;
    };
    let screen = s.wait_for("the TUI with the hostile names", |sc| {
        sc.contains("plain_next")
    });
    // The names are drawn in escaped form, and the screen was not cleared by them.
    assert!(screen.contains("evil^[]0;PWNED^G"), "{screen}");
    assert!(screen.contains("Navigator"), "{screen}");
    // Select the hostile action so its description is drawn in the inspector too.
    s.keys(&[":", "goto evil", "Enter"]);
    let screen = s.wait_for("the description", |sc| sc.contains("clip ^[]52"));
    assert!(
        screen.contains("\\u{202e}evil"),
        "bidi override made visible: {screen}"
    );
    // No title change, no clipboard write, still on the alternate screen with our cursor.
    assert_ne!(s.format("#{pane_title}"), "PWNED");
    let buffers = s.tmux(&["list-buffers"]);
    assert!(
        !String::from_utf8_lossy(&buffers.stdout).contains("Hello"),
        "OSC 52 reached the clipboard"
    );
    assert_eq!(s.format("#{alternate_on}"), "1");
    s.keys(&["q"]);
}

#[test]
fn a_panic_restores_the_terminal() {
    let cmd = format!(
        "RUST_BACKTRACE=0 RUST_LIB_BACKTRACE=0 TOOLSCOPE_DEBUG_PANIC=1 {}; echo EXITED-$?; exec bash --norc --noprofile",
        env!("CARGO_BIN_EXE_toolscope")
    );
    let Some(s) = Session::start("panic", &format!("bash --norc --noprofile -c '{cmd}'")) else {
        return;
    };
    let screen = s.wait_for("the panic report and the shell", |sc| {
        sc.contains("EXITED-")
    });
    assert!(screen.contains("debug panic requested"), "{screen}");
    assert_eq!(s.format("#{alternate_on}"), "0", "alternate screen left");
    assert_eq!(s.format("#{mouse_any_flag}"), "0", "mouse capture off");
    assert_eq!(s.format("#{cursor_flag}"), "1", "cursor visible");
    // The line discipline is back to cooked mode with echo: the shell works.
    s.keys(&[
        "stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo | tr '\\n' +; echo",
        "Enter",
    ]);
    s.wait_for("cooked mode", |sc| sc.contains("icanon+echo+"));
}
