//! The terminal UI: one message channel, one loop, `update` on the state, a redraw after
//! each batch of messages (never on a timer).
//!
//! - [`msg::Msg`]: everything that can happen (keys, mouse, resize, file changes, timers,
//!   SIGTERM/SIGHUP), sent on one channel (others send through [`Runner::sender`]).
//! - [`app::App`]: the view state, owning its data so reloads can swap it.
//! - [`update::update`]: the only place state changes.
//! - [`view::draw`]: the screen as a function of the state.
//! - `keymap`: named commands and their keys; `commands`: the `:` commands; help,
//!   hints, completion and dialog legends are generated from these tables.
//! - the editing session ([`toolscope_core::session::Session`]: workspace, watcher and
//!   conflict state, recovery file) lives in the core; its operations return an
//!   `Outcome` and never see the app. Watcher events come back as `Msg::Watch` and are
//!   handled once per batch.
//! - `dialog`: dialogs, kept in the overlay that shows them, with their key legends.
//! - [`editing`]: the one module that sees both: keys, dialogs and `:` lines become session
//!   operations, outcomes come back to the view (`App.tk` is the workspace's copy).
//! - [`graph_pane::whole`]: the whole-graph layout, computed on its own thread in the terminal so the
//!   first screen (the focus view) never waits for it.
//! - `complete`: Tab completion on the `:` line; `marks`: what a reload changed, marked
//!   for a moment.
//!
//! Only what the binary and the benches use is public (`app`, `edit`, `focus`, `msg`, `theme`,
//! `update`, `view`, `whole`); the rest is private to the crate.

pub(crate) mod action;
pub mod app;
mod chrome;
pub(crate) mod ctx;
pub(crate) mod evidence_panel;
pub(crate) mod field;
pub mod graph_pane;
pub(crate) mod insight;
pub(crate) mod inspector;
pub(crate) mod mcp_discovery;
pub mod msg;
pub(crate) mod navigator;
mod panes;
mod params;
mod reload;
pub(crate) mod replay;
mod status;
pub mod theme;
pub mod update;
pub mod view;

#[cfg(test)]
mod live_tests;
#[cfg(test)]
mod stress_tests;
#[cfg(test)]
mod tests;

use std::io::{self, Stdout};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread;

use color_eyre::eyre::{Result, WrapErr, eyre};
use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::{Backend, CrosstermBackend};

use toolscope_core::source::{self, Format, Loaded};

pub use app::App;
pub use msg::Msg;
pub use theme::Theme;
pub use update::editing;

/// What the CLI passes to the TUI.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Files or directories; empty opens the bundled example.
    pub paths: Vec<PathBuf>,
    pub input_format: Option<Format>,
    pub no_color: bool,
    pub ascii: bool,
    /// Trace files for the evidence (`--traces`).
    pub traces: Vec<PathBuf>,
    /// How OTLP runs are named (`--operator-attr`, `--default-operator`).
    pub naming: toolscope_core::evidence::otlp::OperatorNaming,
}

/// Loads what `opts` names: the files, or the bundled example.
pub fn load(opts: &Options) -> Result<(Loaded, String)> {
    if opts.paths.is_empty() {
        return Ok((
            toolscope_core::load::load_example(),
            source::EXAMPLE_NAME.to_string(),
        ));
    }
    let loaded = toolscope_core::load::load_paths(&opts.paths, opts.input_format)
        .map_err(|e| eyre!("{e}"))?;
    let label = opts
        .paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    Ok((loaded, label))
}

/// Opens what `opts` names as an editing session: the files, or the bundled example.
/// When existing files do not load (one does not parse), the session starts empty with
/// the error, and the watcher loads them once they are fixed, as a reload does; a path
/// that does not exist is still refused (most likely a typo).
pub fn open_workspace(
    opts: &Options,
) -> Result<(toolscope_core::workspace::Workspace, String, Option<String>)> {
    use toolscope_core::workspace::Workspace;
    if opts.paths.is_empty() {
        let ws = Workspace::example().map_err(|e| eyre!("{e}"))?;
        return Ok((ws, source::EXAMPLE_NAME.to_string(), None));
    }
    let label = opts
        .paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    match Workspace::open(&opts.paths, opts.input_format) {
        Ok(ws) => Ok((ws, label, None)),
        // A folder with no toolkit (TS004) opens on the message that says what was found
        // and what a toolkit needs, never a silent empty screen.
        Err(e) if opts.paths.iter().all(|p| p.exists()) => {
            let wait = if e.code == toolscope_core::diag::Code::NoToolkit {
                "waiting for a toolkit to appear"
            } else {
                "waiting for the file to be fixed"
            };
            Ok((
                Workspace::empty(opts.input_format),
                label,
                Some(format!("{e} ({wait})")),
            ))
        }
        Err(e) => Err(eyre!("{e}")),
    }
}

/// Runs the TUI until the user quits. The terminal is restored on return, on error and on
/// panic.
pub fn run(opts: Options) -> Result<()> {
    install_hooks()?;
    let start = std::time::Instant::now();
    let (ws, label, broken) = open_workspace(&opts)?;
    let loaded_at = start.elapsed();
    let theme = Theme::from_env(opts.no_color, opts.ascii);
    let mut terminal = enter().wrap_err("cannot set up the terminal")?;
    let size = terminal.size()?;
    let runner = Runner::start();
    // The whole-graph layout runs on its own thread: the first screen never waits for it.
    let layout =
        graph_pane::whole::WholeLayout::background(runner.sender()).with_delay(debug_delay());
    let mut app = App::with_workspace_in(ws, label, theme, (size.width, size.height), layout);
    let app_at = start.elapsed();
    editing::watch(&mut app, runner.sender(), &opts.paths, opts.input_format);
    match broken {
        Some(e) => {
            app.session.stale = Some(e.clone());
            app.set_status(app::Level::Error, e);
        }
        None => editing::offer_recovery(&mut app),
    }
    app.evidence.connect(runner.sender());
    app.evidence.set_naming(opts.naming.clone());
    app.replay.connect(runner.sender());
    if !opts.traces.is_empty() {
        let paths = opts.traces.clone();
        update::evidence::hook(&mut app, |p, _| evidence_panel::commands::load(p, paths));
    }
    update::replay::opening(&mut app);
    let result = runner.run(&mut terminal, &mut app);
    leave()?;
    if let Some(m) = app.farewell.take() {
        eprintln!("{m}");
    }
    // Hidden switch for measuring the open: load, then the app up to its first frame.
    if std::env::var_os("TOOLSCOPE_DEBUG_OPEN_TIMINGS").is_some() {
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        eprintln!(
            "open: load {:.0} ms, ready for the first frame {:.0} ms after start",
            ms(loaded_at),
            ms(app_at)
        );
    }
    result
}

/// Hidden switch for the real-terminal test of the layout progress: the whole-graph layout
/// starts this many milliseconds late (`TOOLSCOPE_DEBUG_LAYOUT_DELAY_MS`).
fn debug_delay() -> std::time::Duration {
    let ms = std::env::var("TOOLSCOPE_DEBUG_LAYOUT_DELAY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    std::time::Duration::from_millis(ms)
}

/// The message loop and its channel.
pub struct Runner {
    tx: Sender<Msg>,
    rx: Receiver<Msg>,
}

impl Runner {
    /// Starts the input thread.
    pub fn start() -> Runner {
        let (tx, rx) = mpsc::channel();
        let input = tx.clone();
        thread::spawn(move || input_thread(input));
        signal_thread(tx.clone());
        Runner { tx, rx }
    }

    /// A sender for other sources of messages (file watcher, jobs).
    pub fn sender(&self) -> Sender<Msg> {
        self.tx.clone()
    }

    /// Draws, then for each message (and any already queued behind it) updates and redraws.
    pub fn run<B: Backend>(&self, terminal: &mut Terminal<B>, app: &mut App) -> Result<()>
    where
        B::Error: Send + Sync + 'static,
    {
        // What opening the session changed (a recovery, traces, a first replay step) is
        // computed once, by `prepare_draw` before the first frame; after it, each message
        // leaves it fresh.
        app.prepare_draw();
        terminal.draw(|f| view::draw(f, app))?;
        // Hidden switch for the terminal-restore test: panic with the TUI fully set up.
        if std::env::var_os("TOOLSCOPE_DEBUG_PANIC").is_some() {
            panic!("debug panic requested by TOOLSCOPE_DEBUG_PANIC");
        }
        while let Ok(msg) = self.rx.recv() {
            update::update(app, msg);
            while let Ok(more) = self.rx.try_recv() {
                update::update(app, more);
                if app.quit {
                    break;
                }
            }
            if app.quit {
                break;
            }
            update::flush(app);
            app.prepare_draw();
            terminal.draw(|f| view::draw(f, app))?;
        }
        mcp_discovery::stop_before_exit(&app.mcp, &self.rx);
        Ok(())
    }
}

fn input_thread(tx: Sender<Msg>) {
    loop {
        match crossterm::event::read() {
            Ok(ev) => {
                if let Some(msg) = Msg::from_event(ev)
                    && tx.send(msg).is_err()
                {
                    return;
                }
            }
            Err(e) => {
                let _ = tx.send(Msg::InputClosed(e.to_string()));
                return;
            }
        }
    }
}

/// SIGTERM and SIGHUP (the terminal went away) arrive as [`Msg::Terminate`]: the loop
/// writes unsaved edits to a recovery file before it ends, since it cannot ask.
#[cfg(unix)]
fn signal_thread(tx: Sender<Msg>) {
    use signal_hook::consts::{SIGHUP, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP]) else {
        return;
    };
    thread::spawn(move || {
        if signals.forever().next().is_some() {
            let _ = tx.send(Msg::Terminate);
        }
    });
}

#[cfg(not(unix))]
fn signal_thread(_tx: Sender<Msg>) {}

fn enter() -> io::Result<Terminal<CrosstermBackend<Stdout>>> {
    enable_raw_mode()?;
    let mut out = io::stdout();
    execute!(
        out,
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste
    )?;
    let mut t = Terminal::new(CrosstermBackend::new(out))?;
    t.clear()?;
    Ok(t)
}

/// Restores the terminal; safe to call more than once.
pub fn leave() -> io::Result<()> {
    let mut out = io::stdout();
    let r1 = execute!(
        out,
        DisableBracketedPaste,
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let r2 = disable_raw_mode();
    r1.and(r2)
}

/// color-eyre's report and panic hooks, with the terminal restored before a panic prints.
fn install_hooks() -> Result<()> {
    let (panic_hook, eyre_hook) = color_eyre::config::HookBuilder::default().into_hooks();
    // A second install (run called twice in one process) keeps the first hooks.
    let _ = eyre_hook.install();
    let panic_hook = panic_hook.into_panic_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = leave();
        panic_hook(info);
    }));
    Ok(())
}
