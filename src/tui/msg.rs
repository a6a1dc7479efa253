//! Everything that can change the app arrives as one [`Msg`] on one channel: terminal
//! input, resizes, and (added by later features) file-change signals and finished jobs.

use crossterm::event::{Event, KeyEvent, KeyEventKind, MouseEvent, MouseEventKind};

#[derive(Debug, Clone)]
pub enum Msg {
    Key(KeyEvent),
    /// Text pasted into the terminal (bracketed paste): one message, never keys.
    Paste(String),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// The file watcher saw a change (handled after the queued messages, see `live`).
    Watch(toolscope_core::watch::WatchEvent),
    /// A loaded trace file changed (read again once per batch, see `evidence_cmds`).
    TracesChanged,
    /// A `:mcp discover` run on a background thread finished.
    McpDone(crate::tui::mcp_discovery::state::Report),
    /// A `:fit` run on a background thread finished.
    FitDone(crate::tui::evidence_panel::fit_job::Done),
    /// An `:export` run on a background thread finished: its line, or why it failed.
    ExportDone(Result<String, String>),
    /// The whole-graph layout started with this generation finished on its thread.
    LayoutReady(u64),
    /// The marks of a reload with this generation have expired.
    MarksExpired(u64),
    /// A replay playing at its pace takes its next step (stale generations are ignored).
    ReplayTick(u64),
    /// The hits of a replayed record's steps, walked on a thread, came back.
    ReplayHits(crate::tui::replay::jobs::HitsDone),
    /// `R`'s summaries, walked on a thread.
    ReplaySummaries(crate::tui::replay::jobs::SummariesDone),
    /// A replay job walked on a thread (the next miss, `t`'s measures, the run's standing).
    ReplayJob(crate::tui::replay::jobs::JobDone),
    /// The input source ended or failed; the loop stops (unsaved edits go to a recovery
    /// file).
    InputClosed(String),
    /// SIGTERM or SIGHUP: the loop stops without asking (unsaved edits go to a recovery
    /// file).
    Terminate,
}

impl Msg {
    /// The message for a terminal event, if it matters (key releases and bare mouse moves
    /// are dropped, so moving the mouse never causes a redraw).
    pub fn from_event(ev: Event) -> Option<Msg> {
        match ev {
            Event::Key(k) if k.kind != KeyEventKind::Release => Some(Msg::Key(k)),
            Event::Mouse(m) if m.kind != MouseEventKind::Moved => Some(Msg::Mouse(m)),
            Event::Resize(w, h) => Some(Msg::Resize(w, h)),
            Event::Paste(s) => Some(Msg::Paste(s)),
            _ => None,
        }
    }
}
