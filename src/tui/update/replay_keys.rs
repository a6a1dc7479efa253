//! The replay's keys as the keymap binds them (contexts `Replay`, `Tune`, `Pick`): which
//! context is in front, and a bound key (or a row run by name) sent to the replay's own
//! key handling. A file of the shell, between the keymap (`commands`) and the replay, so
//! neither folder names the other.

use crossterm::event::KeyEvent;

use crate::tui::app::App;
use crate::tui::update::commands::keymap::{self, Context};
use crate::tui::update::replay::send;

/// The keymap's context of the replay's keys now: the runs list while open, the tune list
/// while open, the replay while a step is shown; `None`: the panes'.
pub fn keys_context(app: &App) -> Option<Context> {
    if app.replay.is_off() {
        return None;
    }
    if app.replay.picking().is_some() {
        return Some(Context::Pick);
    }
    if !app.replay.shown(&app.seeds) {
        return None;
    }
    match app.replay.run() {
        Some(r) if r.tune.is_some() => Some(Context::Tune),
        _ => Some(Context::Replay),
    }
}

/// A key with no overlay open: the replay's while it is shown, when the keymap binds it
/// there (so every key the replay takes is in the help); `false`: the panes' keymap's.
/// The runs list takes every key while open (an unbound one does nothing).
pub fn key(app: &mut App, k: &KeyEvent) -> bool {
    let Some(context) = keys_context(app) else {
        return false;
    };
    let bound = match context {
        Context::Tune => keymap::lookup_only(k, Context::Tune)
            .or_else(|| keymap::lookup_only(k, Context::Replay)),
        _ => keymap::lookup_only(k, context),
    };
    if bound.is_none() && context != Context::Pick {
        return false;
    }
    send(app, k)
}

/// A replay key row run by name (`:replay-next`): its key, sent as pressed.
pub fn press(app: &mut App, command: &str) -> Result<(), String> {
    if keys_context(app).is_none() {
        return Err("no replay is shown (:replay or R starts one)".into());
    }
    let k = keymap::first_event(command).ok_or("the key is not bound")?;
    send(app, &k);
    Ok(())
}

/// The first key the keymap binds to a replay row (`runs-order`: `o`), for the replay's
/// own hints; empty when unbound.
pub fn key_of(command: &str) -> String {
    keymap::first_key(command).unwrap_or_default()
}
