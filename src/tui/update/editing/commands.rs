//! The editing commands: each edit by key and by `:` line, saving, undo and redo.

use std::path::Path;

use crate::tui::update::row::{Command, cmd};

use super::*;

/// Runs an edit when the app has an editing session.
macro_rules! editing {
    ($f:expr) => {
        |a, arg| {
            needs_session(a)?;
            $f(a, arg)
        }
    };
}

#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    cmd!("edit-score", [], None, "", Edit, "edit the score of the inspector's edge", editing!(|a, _| open_score(a))),
    cmd!("edit-desc", [], None, "", Edit, "edit the selected node's description (C-s applies)", editing!(|a, _| open_desc(a))),
    cmd!("add-edge", [], None, "", Edit, "add an edge: a on the source, a on the target (or :link TARGET [SCORE])", editing!(|a, _| pick_link(a))),
    cmd!("add-node", [], None, "", Edit, "add an action or tool (:add-action / :add-tool NAME)", editing!(|a, _| prompt(a, "add-action "))),
    cmd!("remove-edge", [], None, "", Edit, "remove the inspector's edge", editing!(|a, _| remove_edge(a))),
    cmd!("remove-node", [], None, "", Edit, "remove the selected node (shows the cascade, asks)", editing!(|a, _| ask_remove(a))),
    cmd!("undo", [], None, "", Edit, "undo the last edit", editing!(undo)),
    cmd!("redo", [], None, "", Edit, "redo", editing!(redo)),
    cmd!("w", ["write", "save"], File, "[FILE]", Edit hint "save", "save every changed file (with the operator's threshold/hops); with FILE, write the open file there", editing!(|a, arg: &str| {
        if arg.is_empty() { save(a) } else { save_as(a, Path::new(arg), false) }
    })),
    cmd!("w!", [], File, "FILE", Edit, "write the open file to FILE, overwriting it", editing!(|a, arg: &str| save_as(a, Path::new(arg), true))),
    cmd!("wq", ["x"], None, "", Edit, "save, then quit", |a, _| {
        save(a).map(|()| {
            if !a.is_modified() && a.dialog().is_none() {
                a.quit = true;
            }
        })
    }),
    cmd!("reload", [], None, "", Edit, "read the files again (asks when there are unsaved edits)", reload),
];
