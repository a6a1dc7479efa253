//! The core boundary (SPEC and ARCHITECTURE): the core modules never use the terminal
//! crates or the front ends, so the CLI and the TUI stay thin layers over it. Checked by
//! reading the sources, since the core shares a crate with the front ends (other work moves
//! these files concurrently; a workspace member crate would make the compiler check it).

use std::path::{Path, PathBuf};

/// The core: modules and single files under `src/`.
const CORE: &[&str] = &[
    "model",
    "recommend",
    "source",
    "edit",
    "lint.rs",
    "export",
    "layout",
    "diff.rs",
    "diff",
    "watch.rs",
    "text.rs",
    "diag.rs",
    "synth.rs",
];

/// What the core must not name (outside comments).
const FORBIDDEN: &[&str] = &[
    "ratatui",
    "crossterm",
    "crate::tui",
    "crate::cli",
    "super::tui",
];

fn rust_files(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(p)
            .expect("read_dir")
            .map(|e| e.expect("entry").path())
            .collect();
        entries.sort();
        for e in entries {
            rust_files(&e, out);
        }
    } else if p.extension().is_some_and(|e| e == "rs") {
        out.push(p.to_path_buf());
    }
}

/// The code of a line, without a `//` comment (a `//` inside a string is rare in `use`
/// and path lines; being conservative only makes the check stricter).
fn code(line: &str) -> &str {
    line.split("//").next().unwrap_or("")
}

#[test]
fn core_modules_never_use_the_terminal_or_the_front_ends() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for m in CORE {
        let p = src.join(m);
        assert!(p.exists(), "core module {m} moved: update this list");
        rust_files(&p, &mut files);
    }
    assert!(files.len() > 20, "found only {} files", files.len());
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read");
        for (i, line) in text.lines().enumerate() {
            let c = code(line);
            for bad in FORBIDDEN {
                if c.contains(bad) {
                    found.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "the core reaches the front ends:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_a_violation() {
    // The scan itself: a line naming a terminal crate is caught, a comment is not.
    assert!(code("use ratatui::Frame;").contains("ratatui"));
    assert!(!code("// drawn by ratatui later").contains("ratatui"));
}

/// Whether a TUI module's code (comments left out) names module `other` of `tui`.
fn tui_uses(module: &str, other: &str) -> bool {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/tui")
        .join(format!("{module}.rs"));
    let text = std::fs::read_to_string(&path).expect("read");
    let names = [format!("super::{other}"), format!("tui::{other}")];
    text.lines()
        .map(code)
        .any(|c| names.iter().any(|n| c.contains(n.as_str())))
}

/// The circles issue 13 cut stay cut: the session owns the watcher state, which never
/// calls back; the app carries its context across a reload with the pure `reload`; the
/// editing commands (`edit`) sit on top of the app and the session.
#[test]
fn tui_modules_depend_one_way() {
    let pairs = [
        ("session", "live"),
        ("app", "reload"),
        ("app", "geometry"),
        ("edit", "session"),
        ("edit", "app"),
        ("edit", "live"),
    ];
    for (user, used) in pairs {
        assert!(
            tui_uses(user, used),
            "{user} no longer uses {used}: update this list"
        );
        assert!(
            !tui_uses(used, user),
            "{used} uses {user}: a circle between them"
        );
    }
}

/// The session, the watcher state and the context carry never see the view state, so
/// they can be driven and tested without a screen.
#[test]
fn the_session_never_sees_the_app() {
    for module in ["session", "live", "reload", "geometry"] {
        assert!(!tui_uses(module, "app"), "{module} uses the app");
    }
}
