//! The watcher under stress with the TUI open (issue: hardening): a file rewritten 300 times
//! at up to 100 a second, in rename-over, truncate-and-write and two-halves styles. The
//! app must end showing the final content, keep the last good graph when it catches a
//! half-written file, and never lose pending edits.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use super::live_tests::{desc_of, start};
use crate::tui::update::editing::tests::{TINY, fixture, keys};

/// How many rewrites a storm makes. A count, not a duration: on a loaded machine the writer
/// thread gets fewer turns, and the test is about what the app shows, not how fast we write.
const STORM_WRITES: u32 = 300;

/// One rewrite of `path` with the description of `act` set to `desc`, in a style chosen by
/// `i`: rename-over, truncate-and-write, or two halves with a pause between them.
fn rewrite(path: &Path, i: u32, desc: &str) {
    let text = TINY.replace("desc: Acts on the plan.", &format!("desc: {desc}"));
    match i % 3 {
        0 => {
            let tmp = path.with_extension("swp");
            if std::fs::write(&tmp, &text).is_ok() {
                let _ = std::fs::rename(&tmp, path);
            }
        }
        1 => {
            let _ = std::fs::write(path, &text);
        }
        _ => {
            if let Ok(mut f) = std::fs::File::create(path) {
                let (a, b) = text.split_at(text.len() / 2);
                let _ = f.write_all(a.as_bytes());
                let _ = f.flush();
                std::thread::sleep(Duration::from_millis(3));
                let _ = f.write_all(b.as_bytes());
            }
        }
    }
}

/// Rewrites the file [`STORM_WRITES`] times, 10 ms apart, on another thread, ending with
/// `final_desc`; returns how long the storm lasted.
fn storm(path: &Path, final_desc: &'static str) -> std::thread::JoinHandle<Duration> {
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let start = Instant::now();
        for i in 0..STORM_WRITES {
            rewrite(&path, i, &format!("Version {i}."));
            std::thread::sleep(Duration::from_millis(10));
        }
        rewrite(&path, 0, final_desc);
        start.elapsed()
    })
}

#[test]
fn a_rewrite_storm_ends_on_the_final_content() {
    let f = fixture(TINY);
    let mut live = start(std::slice::from_ref(&f.path));
    let writer = storm(&f.path, "The final version.");
    // Keep the app's loop running through the storm: every state it shows is a whole
    // toolkit (a half-written file that does not parse leaves the last good graph).
    while !writer.is_finished() {
        live.pump();
        assert!(
            live.app.tk.action("plan").is_some(),
            "a whole graph is shown"
        );
    }
    // The storm outlasts the debounce many times over (300 writes, 10 ms apart).
    let lasted = writer.join().unwrap_or_default();
    assert!(
        lasted >= Duration::from_secs(3),
        "the storm lasted {lasted:?}"
    );
    live.until("the final content", |a| {
        desc_of(a, "act").as_deref() == Some("The final version.")
    });
    // The debouncer coalesces a continuous storm, so few reloads happen; at least one must.
    assert!(live.app.session.live.reloads >= 1);
}

#[test]
fn a_rewrite_storm_never_loses_pending_edits() {
    let f = fixture(TINY);
    let mut live = start(std::slice::from_ref(&f.path));
    let plan = live.app.tk.action("plan").expect("plan");
    live.app.select(plan);
    keys(&mut live.app, "E!<C-s>");
    assert!(live.app.is_modified());
    let writer = storm(&f.path, "The final version.");
    while !writer.is_finished() {
        live.pump();
    }
    let _ = writer.join();
    live.until("the conflict question", |a| {
        matches!(
            a.dialog(),
            Some(crate::tui::update::editing::dialog::Dialog::Conflict { .. })
        )
    });
    // The pending edit is still there, on screen and in the workspace.
    assert!(live.app.is_modified());
    assert!(desc_of(&live.app, "plan").is_some_and(|d| d.contains('!')));
    // Reapplying puts it onto the final content.
    keys(&mut live.app, "a");
    assert_eq!(
        desc_of(&live.app, "act").as_deref(),
        Some("The final version.")
    );
    assert!(desc_of(&live.app, "plan").is_some_and(|d| d.contains('!')));
}
