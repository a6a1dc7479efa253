//! The whole-graph layout, kept off the key path: at 100k nodes it takes most of a second,
//! and the first screen (the focus view) does not need it. In background mode the layout
//! runs on its own thread and the app keeps drawing; the result comes back on a channel
//! with the generation it was started for, and a result for an older generation (the graph
//! changed meanwhile) is dropped. Without a waker (tests, benches) it is computed at once.
//!
//! The thread owns a copy of the toolkit: the layout is pure core code and needs nothing
//! else.

use std::sync::mpsc::{self, Receiver, Sender};
use std::thread;

use toolscope_core::layout::{Layout, structure_key};
use toolscope_core::model::Toolkit;

use crate::tui::msg::Msg;

/// A layout being computed on another thread.
struct Running {
    generation: u64,
    key: u64,
    nodes: usize,
    rx: Receiver<(u64, Layout)>,
}

/// The whole-graph layout and the job computing the next one.
#[derive(Default)]
pub struct WholeLayout {
    layout: Option<Layout>,
    running: Option<Running>,
    /// Bumped for every job started, so a late result of an older one is recognised.
    generation: u64,
    /// Where to say a result is ready; `None` computes on the caller's thread.
    waker: Option<Sender<Msg>>,
    /// Extra time each job waits before it starts (a test hook: makes "pending" last).
    delay: std::time::Duration,
}

impl WholeLayout {
    /// Background mode: jobs run on a thread and send [`Msg::LayoutReady`] when done.
    pub fn background(waker: Sender<Msg>) -> WholeLayout {
        WholeLayout {
            waker: Some(waker),
            ..Default::default()
        }
    }

    /// Jobs wait `delay` before they start (for the real-terminal test of the progress).
    pub fn with_delay(mut self, delay: std::time::Duration) -> WholeLayout {
        self.delay = delay;
        self
    }

    /// The finished layout, if it is for the structure last asked for.
    pub fn current(&self) -> Option<&Layout> {
        self.layout.as_ref()
    }

    /// Node count of the layout being computed, while one is.
    pub fn pending(&self) -> Option<usize> {
        self.running.as_ref().map(|r| r.nodes)
    }

    /// Makes the layout follow `tk`: nothing when it (or the running job) is for the same
    /// structure; else the old layout is dropped and a new one computed (on a thread in
    /// background mode, where any running job becomes stale).
    pub fn refresh(&mut self, tk: &std::sync::Arc<Toolkit>) {
        let key = structure_key(tk);
        if self.layout.as_ref().is_some_and(|l| l.key == key)
            || self.running.as_ref().is_some_and(|r| r.key == key)
        {
            return;
        }
        self.layout = None;
        self.generation += 1;
        let Some(waker) = self.waker.clone() else {
            self.running = None;
            self.layout = Some(Layout::compute(tk));
            return;
        };
        let (tx, rx) = mpsc::channel();
        let generation = self.generation;
        // Shared, not copied: the thread reads the same graph the view shows.
        let owned = std::sync::Arc::clone(tk);
        let delay = self.delay;
        self.running = Some(Running {
            generation,
            key,
            nodes: tk.graph.node_count(),
            rx,
        });
        thread::spawn(move || {
            thread::sleep(delay);
            let layout = Layout::compute(&owned);
            // The app may be gone (quit) or have moved on: both are fine to ignore.
            if tx.send((generation, layout)).is_ok() {
                let _ = waker.send(Msg::LayoutReady(generation));
            }
        });
    }

    /// Takes a finished result of the current job; returns whether a layout arrived.
    /// Results of older generations are dropped.
    pub fn poll(&mut self) -> bool {
        let Some(r) = &self.running else {
            return false;
        };
        match r.rx.try_recv() {
            Ok((generation, layout)) => self.accept(generation, layout),
            Err(mpsc::TryRecvError::Empty) => false,
            // The thread died (a panic in the layout): stop waiting, show no whole graph.
            Err(mpsc::TryRecvError::Disconnected) => {
                self.running = None;
                false
            }
        }
    }

    /// Installs `layout` if it is the running job's; a stale one is dropped.
    fn accept(&mut self, generation: u64, layout: Layout) -> bool {
        match &self.running {
            Some(r) if r.generation == generation && r.key == layout.key => {
                self.running = None;
                self.layout = Some(layout);
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolscope_core::load::load_example;

    #[test]
    fn foreground_computes_at_once_and_only_on_structure_change() {
        let tk = std::sync::Arc::new(load_example().toolkit);
        let mut w = WholeLayout::default();
        w.refresh(&tk);
        assert_eq!(w.pending(), None);
        let key = w.current().expect("computed at once").key;
        assert_eq!(key, structure_key(&tk));
        w.refresh(&tk);
        assert_eq!(w.current().map(|l| l.key), Some(key));
    }

    #[test]
    fn background_result_arrives_with_a_wake_up() {
        let tk = std::sync::Arc::new(load_example().toolkit);
        let (tx, rx) = mpsc::channel();
        let mut w = WholeLayout::background(tx);
        w.refresh(&tk);
        assert_eq!(w.pending(), Some(tk.graph.node_count()));
        assert!(w.current().is_none(), "nothing shown before the job ends");
        let msg = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("wake-up");
        assert!(matches!(msg, Msg::LayoutReady(1)), "{msg:?}");
        assert!(w.poll());
        assert_eq!(w.pending(), None);
        assert_eq!(w.current(), Some(&Layout::compute(&tk)));
    }

    #[test]
    fn a_stale_result_is_dropped() {
        let mut tk = std::sync::Arc::new(load_example().toolkit);
        let (tx, rx) = mpsc::channel();
        let mut w = WholeLayout::background(tx);
        w.refresh(&tk);
        // The graph changes before the first job ends: a second job replaces it.
        let gone = tk.action("content_understanding").expect("action");
        std::sync::Arc::make_mut(&mut tk).remove_node(gone);
        w.refresh(&tk);
        assert_eq!(w.generation, 2);
        // A result of the first generation is not installed, whenever it comes.
        let old = Layout::compute(&load_example().toolkit);
        assert!(!w.accept(1, old));
        assert!(w.current().is_none());
        // The first job's wake-up comes only if it ended before it was replaced; wait
        // for the second's.
        loop {
            let msg = rx
                .recv_timeout(std::time::Duration::from_secs(20))
                .expect("wake-up");
            if matches!(msg, Msg::LayoutReady(2)) {
                break;
            }
        }
        assert!(w.poll());
        assert_eq!(w.current().map(|l| l.key), Some(structure_key(&tk)));
    }
}
