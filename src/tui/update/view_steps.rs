//! The view's threshold, hops and seeds as steps of the session's undo history (see
//! `toolscope_core::session::view_history`): what a step records, and what an undo or redo
//! of one shows again. A file of the shell, as the parameters' keys (`params`) and undo
//! (`editing`) both use it.

use toolscope_core::session::ViewParams;

use crate::tui::app::App;

/// The view's threshold, hops and seeds as a step of undo records them.
pub fn view_params(app: &App) -> ViewParams {
    ViewParams {
        params: app.session.params,
        seeds: app
            .seeds
            .iter()
            .map(|&s| app.tk.name(s).to_string())
            .collect(),
    }
}

/// Runs `f` and records what it changed of the threshold, hops and seeds as a step of
/// undo made by `key` (repeats of one key within a second are one step).
pub fn recorded(app: &mut App, key: &'static str, f: impl FnOnce(&mut App)) {
    let before = view_params(app);
    f(app);
    let after = view_params(app);
    app.session
        .record_view(before, after, key, std::time::Instant::now());
}

/// Shows the parameters and seeds an undo or redo of a view step restores (seeds gone
/// from the graph since are left out).
pub fn restore(app: &mut App, v: ViewParams) {
    app.session.params = v.params;
    app.seeds = v.seeds.iter().filter_map(|n| app.tk.action(n)).collect();
    // Back to the operator's own seeds: no longer "seeds edited".
    let own = app
        .active_operator()
        .map(|o| toolscope_core::recommend::resolve_seeds(&app.tk, &o.actions).0);
    app.seeds_edited = own.as_ref() != Some(&app.seeds);
    app.mark_stale();
}
