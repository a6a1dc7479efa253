//! The one set of figures every surface reports for runs at a setting (`eval --steps`,
//! `fit`, the TUI's evidence panel `V` and the replay's tune list `t`), so the same runs
//! and setting give the same numbers everywhere (issue 44: `t` pooled the first calls
//! with the steps and said recall 0.77 where `eval --steps` said 0.740).
//!
//! The main figure is next-call recall over the **steps**, the calls after each record's
//! first (SPEC 8), with the offer's tokens per step; the second is the records' **first
//! calls**, offered from the operator's own seeds, with their tokens per first call. Both
//! come from one tally, [`StepCounter`]: [`Figures::of`] reads them off a step group and
//! [`figures`] runs the tally.

use std::sync::atomic::{AtomicBool, Ordering};

use super::{StepCounter, StepGroup, StepOptions, StepStats};
use crate::evidence::{Record, TokenCost};
use crate::model::Toolkit;

/// One figure: how many calls, how many were offered, and the offer's mean tokens.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Figure {
    pub calls: u64,
    pub hits: u64,
    /// Mean tokens of the offer per call (0 without calls).
    pub tokens: f64,
}

impl Figure {
    /// Share of the calls that were offered (`None` without calls).
    pub fn recall(&self) -> Option<f64> {
        (self.calls > 0).then(|| self.hits as f64 / self.calls as f64)
    }

    fn of(s: &StepStats) -> Figure {
        Figure {
            calls: s.steps,
            hits: s.hits,
            tokens: s.tokens.unwrap_or(0.0),
        }
    }
}

/// The main figure (the steps) and the second (the first calls).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Figures {
    /// The calls after each record's first (SPEC 8's steps).
    pub steps: Figure,
    /// Each record's first call, offered from its operator's seeds.
    pub first: Figure,
}

/// Which figure a comparison goes by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Basis {
    /// The steps (the main figure).
    #[default]
    Steps,
    /// The first calls (the second figure): a first call's miss is fixed there.
    FirstCalls,
}

impl Basis {
    /// The figure's name as every surface prints it: `step recall`, `first calls`.
    pub fn name(self) -> &'static str {
        match self {
            Basis::Steps => "step recall",
            Basis::FirstCalls => "first calls",
        }
    }
}

impl Figures {
    /// The figures of a step group as the step evaluation tallied them.
    pub fn of(g: &StepGroup) -> Figures {
        Figures {
            steps: Figure::of(&g.stats),
            first: Figure::of(&g.first),
        }
    }

    /// The figure `basis` names.
    pub fn by(&self, basis: Basis) -> &Figure {
        match basis {
            Basis::Steps => &self.steps,
            Basis::FirstCalls => &self.first,
        }
    }

    /// In words, as the CLI prints them: `step recall 0.740 (120 steps), ~995 tokens per
    /// step; first calls 0.620 (50), ~1185 tokens`.
    pub fn text(&self) -> String {
        format!(
            "step recall {} ({} steps), ~{:.0} tokens per step; first calls {} ({}), ~{:.0} tokens",
            fmt3(self.steps.recall()),
            self.steps.calls,
            self.steps.tokens,
            fmt3(self.first.recall()),
            self.first.calls,
            self.first.tokens
        )
    }
}

/// A share with three decimals, `-` when there is none.
pub fn fmt3(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), |v| format!("{v:.3}"))
}

/// The figures of `records` on `tk`, every record pooled (`overall`), each at its own
/// parameters (the record's, else its operator's) unless `opts` fixes them.
pub fn figures(
    tk: &Toolkit,
    records: &[Record],
    opts: StepOptions,
    cost: &dyn TokenCost,
) -> Figures {
    figures_within(tk, records, opts, cost, &AtomicBool::new(false)).unwrap_or_default()
}

/// [`figures`] for a job off the UI thread: `None` once `stop` is set (checked between
/// records and inside the walk, see [`StepCounter::finish_within`]).
pub fn figures_within(
    tk: &Toolkit,
    records: &[Record],
    opts: StepOptions,
    cost: &dyn TokenCost,
    stop: &AtomicBool,
) -> Option<Figures> {
    let mut c = StepCounter::new(tk, opts);
    for r in records.iter().filter(|r| r.calls.is_some()) {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        c.add(r);
    }
    Some(Figures::of(&c.finish_within(cost, stop)?.overall))
}
