//! Runs on the graph (SPEC 8): the step after a chosen tool, a loaded record replayed step
//! by step, and tuning from a miss.
//!
//! The pane owns its state ([`ReplayPane`]); nothing else changes it. Its handlers take that
//! state and the [`Ctx`] (the toolkit, the loaded records, the parameters, ...) and return
//! [`Action`]s that the shell applies (`update::replay`, `update::apply`): show a step's seeds on the graph, apply
//! an edit, schedule the next play tick. The steps themselves come from the core
//! ([`toolscope_core::evidence::steps::replay`]), computed as `eval --steps` computes
//! them; the graph shows a step as the recommendation from its seeds, cut to what the run
//! had (the app's recompute asks [`ReplayPane::refresh`] for the cut).
//!
//! Only the step shown is walked, on the UI thread (one walk of the graph: a key of a
//! 10k-action kit stays within its 16 ms). The recall so far needs every earlier step's
//! hit: those are walked on a thread of their own (`ReplayPane::walk_hits`) for a record longer than
//! [`INLINE_STEPS`], stopped when the run is left (Esc), replaced or walked again (a
//! reload, new parameters), and the panel says `recall so far …` until they come
//! (`Msg::ReplayHits`). A 5,000-call record at threshold 0 and 20 hops on a 10k-action kit
//! kept the screen from answering any key for 10 s before (issue 46).

pub(crate) mod commands;
pub(crate) mod draw;
#[cfg(test)]
mod figures_tests;
pub(crate) mod jobs;
#[cfg(test)]
mod kept_tests;
pub(crate) mod list;
pub(crate) mod search_job;
#[cfg(test)]
mod search_job_tests;
#[cfg(test)]
mod step_tests;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use petgraph::stable_graph::NodeIndex;

use crate::tui::action::{Action, ReplayAction};
use crate::tui::ctx::Ctx;
use jobs::{HitsDone, SummariesDone};
use toolscope_core::evidence::Record;
use toolscope_core::evidence::steps::replay::{
    Offer, ReplayStep, Replayed, Walk, is_step_kit, offer_after, opening_tool, record_index, replay,
};
use toolscope_core::evidence::steps::search::{WalkBudget, view_params};
use toolscope_core::evidence::steps::tune::{Candidate, Change};
use toolscope_core::model::{EdgeKind, NodeKind, Toolkit};
use toolscope_core::recommend::{Params, Recommendation};

/// The time between two steps while playing.
pub const PACE: std::time::Duration = std::time::Duration::from_millis(900);

/// A record of at most this many steps has its hits walked at once, on the UI thread (a
/// few milliseconds at 10k actions); a longer one on a thread of its own.
pub const INLINE_STEPS: usize = 64;

/// How many offered tools the focus view holds whole at a terminal size: half the nodes it
/// fits (each offered tool comes with its action in a kit `init` made): 10 at 80x24, 15 at
/// 100x30, 30 at 160x48 (docs/tui.md).
pub fn room(size: (u16, u16)) -> usize {
    match size {
        (w, h) if w >= 160 && h >= 48 => 30,
        (w, h) if w >= 100 && h >= 30 => 15,
        _ => 10,
    }
}

/// The pane's state.
#[derive(Default)]
pub struct ReplayPane {
    mode: Mode,
    /// The tick generation: a tick of an older one is stale.
    generation: u64,
    /// The loop's channel, for the hits walked on a thread (`None`: walked at once).
    tx: Option<Sender<crate::tui::msg::Msg>>,
    /// The last hits job started: its id and its stop switch.
    hits_job: Option<(u64, Arc<AtomicBool>)>,
    jobs: u64,
    /// The play speed: an index into [`PACES`] (`None`: [`PACE`]).
    speed: Option<usize>,
    /// Each record's hits and steps at its own parameters, for `R`'s list (`None`: no
    /// calls in order, or not walked: past the walk budget, `search::MOST_STEPS`).
    pub(crate) summaries: Vec<Option<(usize, usize)>>,
    /// The summaries job running for `R`'s list: its id and its stop switch.
    summaries_job: Option<(u64, Arc<AtomicBool>)>,
    /// The runs the summaries counted before the walk budget ran out.
    pub(crate) summaries_walked: usize,
    /// `R`'s order and filter (kept while the app runs).
    pub(crate) list: list::RunsList,
    /// The walks over every loaded run on threads: the next miss, `t`'s measures, the
    /// run's standing ([`search_job`]).
    pub(crate) search: search_job::Jobs,
}

/// The play paces `;` (faster) and `,` (slower) choose from.
pub const PACES: [u64; 5] = [225, 450, 900, 1800, 3600];

#[derive(Default)]
enum Mode {
    #[default]
    Off,
    /// The step after a tool, without a record.
    After(After),
    /// Choosing a loaded record.
    Pick {
        cursor: usize,
    },
    Run(Box<Run>),
}

/// The step after a tool.
pub(crate) struct After {
    pub tool: NodeIndex,
    pub offer: Offer,
    /// The first screen of a step kit.
    pub opening: bool,
    tk: Arc<Toolkit>,
    params: Params,
}

/// A record being replayed.
pub(crate) struct Run {
    /// Its index among the loaded records (shown from 1).
    pub record: usize,
    pub step: usize,
    pub playing: bool,
    /// Following the newest record as the trace file grows.
    pub follow: bool,
    /// The record as walked (to see it changed on a reload).
    source: Record,
    pub played: Replayed,
    /// The step shown, walked when it became the current one.
    shown: Option<ReplayStep>,
    tk: Arc<Toolkit>,
    params: Params,
    pub tune: Option<Tune>,
}

/// The changes that would have offered a missed call, ranked.
pub(crate) struct Tune {
    pub list: Vec<Candidate>,
    pub cursor: usize,
    /// Why the list is empty, or that it is being measured.
    pub note: Option<String>,
}

impl Run {
    pub fn current(&self) -> Option<&ReplayStep> {
        self.shown.as_ref().filter(|s| s.step == self.step)
    }

    /// Walks the current step (the only walk a step key makes).
    fn walk_current(&mut self) {
        self.shown = self.played.step(&self.tk, self.step);
    }
}

impl ReplayPane {
    /// Connects the pane to the loop's channel: long records' hits are walked on a thread.
    pub fn connect(&mut self, tx: Sender<crate::tui::msg::Msg>) {
        self.tx = Some(tx);
    }

    /// Stops the hits job running, if any.
    fn stop_hits(&mut self) {
        if let Some((_, stop)) = self.hits_job.take() {
            stop.store(true, Ordering::SeqCst);
        }
    }

    /// Walks the hits of the run's steps: at once for a short record, else on a thread
    /// (the one before is stopped).
    fn walk_hits(&mut self) {
        self.stop_hits();
        let Mode::Run(run) = &mut self.mode else {
            return;
        };
        let n = run.played.len();
        if n == 0 {
            return;
        }
        let walk: Arc<Walk> = run.played.walk();
        let tk = Arc::clone(&run.tk);
        match &self.tx {
            Some(tx) if n > INLINE_STEPS => {
                self.jobs += 1;
                let id = self.jobs;
                let stop = Arc::new(AtomicBool::new(false));
                self.hits_job = Some((id, Arc::clone(&stop)));
                let tx = tx.clone();
                std::thread::spawn(move || {
                    if let Some(hits) = walk.hits(&tk, n - 1, &stop) {
                        let _ = tx.send(crate::tui::msg::Msg::ReplayHits(HitsDone { id, hits }));
                    }
                });
            }
            _ => {
                let never = AtomicBool::new(false);
                if let Some(hits) = walk.hits(&tk, n - 1, &never) {
                    run.played.set_hits(&hits);
                }
            }
        }
    }

    /// A hits job finished: its hits, when it is the current one's.
    pub fn hits_done(&mut self, done: HitsDone) {
        if self.hits_job.as_ref().is_none_or(|(id, _)| *id != done.id) {
            return;
        }
        self.hits_job = None;
        if let Mode::Run(run) = &mut self.mode {
            run.played.set_hits(&done.hits);
        }
    }

    /// Whether the hits of the run shown are being walked on a thread.
    pub fn walking_hits(&self) -> bool {
        self.hits_job.is_some()
    }

    pub fn is_off(&self) -> bool {
        matches!(self.mode, Mode::Off)
    }

    pub(crate) fn run(&self) -> Option<&Run> {
        match &self.mode {
            Mode::Run(r) => Some(&**r),
            _ => None,
        }
    }

    pub(crate) fn after(&self) -> Option<&After> {
        match &self.mode {
            Mode::After(a) => Some(a),
            _ => None,
        }
    }

    /// The cursor of the record list, while it is open.
    pub(crate) fn picking(&self) -> Option<usize> {
        match self.mode {
            Mode::Pick { cursor } => Some(cursor),
            _ => None,
        }
    }

    /// The seeds of the step shown.
    fn step_seeds(&self) -> Option<&[NodeIndex]> {
        match &self.mode {
            Mode::After(a) => Some(a.offer.seeds.as_slice()),
            Mode::Run(r) => r.current().map(|s| s.offer.seeds.as_slice()),
            _ => None,
        }
    }

    /// Whether the graph shows the replay's step (the seeds are the step's: choosing an
    /// operator or seeds leaves the replay behind, and its keys go back to the keymap).
    /// The replayed step on screen, for a picture (`:export svg`): its called tool, hit or
    /// miss, and the step in words.
    pub fn called(&self, seeds: &[NodeIndex]) -> Option<toolscope_core::export::Called> {
        let run = self.run().filter(|_| self.shown(seeds))?;
        let s = run.current()?;
        Some(toolscope_core::export::Called {
            node: s.target,
            hit: s.hit,
            caption: toolscope_core::evidence::steps::replay::caption(run.record, &run.played, s),
        })
    }

    /// The time between two steps while playing (`;` faster, `,` slower).
    pub fn pace(&self) -> std::time::Duration {
        self.speed
            .and_then(|i| PACES.get(i))
            .map_or(PACE, |&ms| std::time::Duration::from_millis(ms))
    }

    /// The replayed step's called tool, when the graph shows the step.
    pub fn called_node(&self, seeds: &[NodeIndex]) -> Option<NodeIndex> {
        let run = self.run().filter(|_| self.shown(seeds))?;
        run.current()?.target
    }

    pub fn shown(&self, seeds: &[NodeIndex]) -> bool {
        self.step_seeds().is_some_and(|s| same(s, seeds))
    }

    /// After the recommendation was recomputed: walks the record again when the graph or
    /// the parameters changed, and cuts the recommendation to what the run had.
    pub fn refresh(&mut self, ctx: &Ctx, seeds: &[NodeIndex], rec: &mut Recommendation) {
        self.refresh_walk(ctx, seeds, rec);
        // The run's standing follows the graph, the setting and the loaded runs.
        self.stand(ctx);
    }

    fn refresh_walk(&mut self, ctx: &Ctx, seeds: &[NodeIndex], rec: &mut Recommendation) {
        match &mut self.mode {
            Mode::Run(run) => {
                let params = params_for(ctx, &run.played);
                let stale = !Arc::ptr_eq(&run.tk, ctx.tk)
                    || run.params != params
                    || ctx.records.get(run.record) != Some(&run.source);
                if stale {
                    let Some(r) = ctx.records.get(run.record) else {
                        self.stop_hits();
                        self.mode = Mode::Off;
                        return;
                    };
                    match replay(ctx.tk, r, Some(params), 1) {
                        Ok(played) => {
                            run.step = run.step.min(played.len().saturating_sub(1));
                            run.played = played;
                            run.source = r.clone();
                            run.tk = Arc::clone(ctx.tk);
                            run.params = params;
                            run.tune = None;
                            run.walk_current();
                        }
                        Err(_) => {
                            self.stop_hits();
                            self.mode = Mode::Off;
                            return;
                        }
                    }
                    self.walk_hits();
                    let Mode::Run(run) = &mut self.mode else {
                        return;
                    };
                    return cut(ctx, run, seeds, rec);
                }
                cut(ctx, run, seeds, rec);
            }
            Mode::After(a) if !Arc::ptr_eq(&a.tk, ctx.tk) || a.params != ctx.params => {
                a.offer = offer_after(ctx.tk, &[a.tool], ctx.params, None);
                a.tk = Arc::clone(ctx.tk);
                a.params = ctx.params;
            }
            _ => {}
        }
    }

    /// The step after the selected tool (an action: after the tools it calls).
    pub fn step_after_selected(&mut self, ctx: &Ctx) -> Vec<Action> {
        let Some(ix) = ctx.selected.filter(|&ix| ctx.tk.graph.contains_node(ix)) else {
            return vec![Action::error("select a tool first".into())];
        };
        let tk = ctx.tk;
        let tool = match tk.kind(ix) {
            NodeKind::Tool | NodeKind::Group => ix,
            NodeKind::Action => {
                let called = tk
                    .out_edges(ix)
                    .find(|&(e, _)| tk.graph[e].kind == EdgeKind::Call);
                match called {
                    Some((_, x)) => x,
                    None => {
                        return vec![Action::error(format!(
                            "{} calls no tool: select a tool",
                            tk.name(ix)
                        ))];
                    }
                }
            }
        };
        self.show_after(ctx, tool, false)
    }

    fn show_after(&mut self, ctx: &Ctx, tool: NodeIndex, opening: bool) -> Vec<Action> {
        let offer = offer_after(ctx.tk, &[tool], ctx.params, None);
        if offer.seeds.is_empty() {
            return vec![Action::error(format!(
                "no action calls {}: no step follows it",
                ctx.tk.name(tool)
            ))];
        }
        let seeds = offer.seeds.clone();
        self.stop();
        self.mode = Mode::After(After {
            tool,
            offer,
            opening,
            tk: Arc::clone(ctx.tk),
            params: ctx.params,
        });
        vec![Action::Replay(ReplayAction::Show {
            operator: None,
            seeds,
            select: Some(tool),
        })]
    }

    /// The first screen of a kit `init` made: the step after the tool most runs call
    /// first (see [`opening_tool`]); nothing for other kits.
    pub fn opening(&mut self, ctx: &Ctx) -> Vec<Action> {
        if !is_step_kit(ctx.tk) {
            return Vec::new();
        }
        let Some(op) = ctx.operator_name().and_then(|n| ctx.tk.operator(n)) else {
            return Vec::new();
        };
        match opening_tool(ctx.tk, op, ctx.records, ctx.params, room(ctx.size)) {
            Some(tool) => self.show_after(ctx, tool, true),
            None => Vec::new(),
        }
    }

    /// `R`: the list of loaded records.
    pub fn pick(&mut self, ctx: &Ctx) -> Vec<Action> {
        if ctx.records.is_empty() {
            return vec![Action::error(
                "no traces loaded: :traces FILE (or --traces FILE)".into(),
            )];
        }
        self.stop();
        let cursor = self.run().map_or(0, |r| r.record);
        self.summarise(ctx);
        self.mode = Mode::Pick {
            cursor: cursor.min(ctx.records.len() - 1),
        };
        Vec::new()
    }

    /// How each run went, for `R`'s list: walked on a thread of its own (the list shows
    /// `…` until it comes; Esc stops it) within the walk budget, at once without the
    /// loop's channel (tests). Nothing is walked here (issue 46: `R` walked every record
    /// whole on the UI thread).
    fn summarise(&mut self, ctx: &Ctx) {
        use toolscope_core::evidence::steps::search::summaries;
        self.stop_summaries();
        let (tk, records) = (Arc::clone(ctx.tk), Arc::clone(ctx.records));
        let Some(tx) = self.tx.clone() else {
            let never = AtomicBool::new(false);
            let done = summaries(&tk, &records, &never, &mut WalkBudget::default());
            (self.summaries, self.summaries_walked) = done.unwrap_or_default();
            return;
        };
        self.summaries.clear();
        self.jobs += 1;
        let id = self.jobs;
        let stop = Arc::new(AtomicBool::new(false));
        self.summaries_job = Some((id, Arc::clone(&stop)));
        std::thread::spawn(move || {
            if let Some((summaries, walked)) =
                summaries(&tk, &records, &stop, &mut WalkBudget::default())
            {
                let done = SummariesDone {
                    id,
                    summaries,
                    walked,
                };
                let _ = tx.send(crate::tui::msg::Msg::ReplaySummaries(done));
            }
        });
    }

    /// Stops the summaries job running, if any.
    fn stop_summaries(&mut self) {
        if let Some((_, stop)) = self.summaries_job.take() {
            stop.store(true, Ordering::SeqCst);
        }
    }

    /// A summaries job finished: its summaries, when it is the current one's.
    pub fn summaries_done(&mut self, done: SummariesDone) {
        if self
            .summaries_job
            .as_ref()
            .is_some_and(|(id, _)| *id == done.id)
        {
            self.summaries_job = None;
            self.summaries = done.summaries;
            self.summaries_walked = done.walked;
        }
    }

    /// Whether `R`'s summaries are being walked on a thread.
    pub fn summarising(&self) -> bool {
        self.summaries_job.is_some()
    }

    /// `:replay RECORD STEP` (RECORD from 1 in load order, or a record's `id`; STEP from
    /// 0); `:replay` alone follows the newest record.
    pub fn command(&mut self, ctx: &Ctx, arg: &str) -> Result<Vec<Action>, String> {
        let mut words = arg.split_whitespace();
        let (Some(record), step) = (words.next(), words.next()) else {
            return self.follow(ctx);
        };
        if words.next().is_some() {
            return Err("usage: :replay [RECORD [STEP]]".into());
        }
        let index = record_index(ctx.records, record)?;
        let step = match step {
            Some(s) => s
                .parse::<usize>()
                .map_err(|_| format!("`{s}` is no step number (steps count from 0)"))?,
            None => 0,
        };
        self.start(ctx, index, Some(step), false)
    }

    /// Follows the newest record from its last step.
    fn follow(&mut self, ctx: &Ctx) -> Result<Vec<Action>, String> {
        let Some(last) = ctx.records.len().checked_sub(1) else {
            return Err("no traces loaded: :traces FILE (or --traces FILE)".into());
        };
        self.start(ctx, last, None, true)
    }

    /// Starts replaying record `index` at `step` (`None`: its last).
    fn start(
        &mut self,
        ctx: &Ctx,
        index: usize,
        step: Option<usize>,
        follow: bool,
    ) -> Result<Vec<Action>, String> {
        let r = ctx
            .records
            .get(index)
            .ok_or_else(|| format!("no record {}", index + 1))?;
        let probe = replay(ctx.tk, r, None, 1)?;
        let params = params_for(ctx, &probe);
        let played = if params == probe.params {
            probe
        } else {
            replay(ctx.tk, r, Some(params), 1)?
        };
        let n = played.len();
        if n == 0 && !follow {
            return Err(format!(
                "record {} has no calls in order (`calls`): nothing to replay",
                index + 1
            ));
        }
        let step = step.unwrap_or(n.saturating_sub(1));
        if n > 0 && step >= n {
            return Err(format!(
                "record {} has steps 0 to {}",
                index + 1,
                n.saturating_sub(1)
            ));
        }
        self.stop();
        let mut run = Run {
            record: index,
            step,
            playing: false,
            follow,
            source: r.clone(),
            played,
            shown: None,
            tk: Arc::clone(ctx.tk),
            params,
            tune: None,
        };
        run.walk_current();
        self.mode = Mode::Run(Box::new(run));
        self.walk_hits();
        // Another run or step chosen: a search or measures still running are for the old.
        self.search.cancel();
        self.stand(ctx);
        // The step's hit or miss, and what keeps a miss out, are in the panel.
        let mut out = vec![Action::Replay(ReplayAction::ShowPanel)];
        out.extend(self.show_step());
        Ok(out)
    }

    /// The effect that shows the current step.
    fn show_step(&self) -> Vec<Action> {
        let Some(run) = self.run() else {
            return Vec::new();
        };
        let Some(s) = run.current() else {
            return vec![Action::info(format!(
                "record {}: no calls yet; waiting for the trace file to grow",
                run.record + 1
            ))];
        };
        vec![Action::Replay(ReplayAction::Show {
            operator: run.played.operator.clone(),
            seeds: s.offer.seeds.clone(),
            select: s.target,
        })]
    }

    /// A new generation of ticks: the ones sent before are stale.
    fn stop(&mut self) {
        self.generation += 1;
        if let Mode::Run(r) = &mut self.mode {
            r.playing = false;
        }
    }

    /// A play tick: the next step while playing.
    pub fn tick(&mut self, generation: u64) -> Vec<Action> {
        if generation != self.generation {
            return Vec::new();
        }
        let Mode::Run(run) = &mut self.mode else {
            return Vec::new();
        };
        if !run.playing {
            return Vec::new();
        }
        if run.step + 1 >= run.played.len() {
            // At the end; a followed file may still grow.
            run.playing = run.follow;
            return if run.follow {
                vec![Action::Replay(ReplayAction::Tick(generation))]
            } else {
                vec![Action::info("replay: the last step".into())]
            };
        }
        run.step += 1;
        run.tune = None;
        run.walk_current();
        let mut out = self.show_step();
        out.push(Action::Replay(ReplayAction::Tick(generation)));
        out
    }

    /// The trace files were read again: a followed run moves to the newest record's last
    /// step.
    pub fn traces_loaded(&mut self, ctx: &Ctx) -> Vec<Action> {
        let Some(run) = self.run() else {
            return Vec::new();
        };
        if !run.follow {
            return Vec::new();
        }
        let Some(last) = ctx.records.len().checked_sub(1) else {
            return Vec::new();
        };
        // Shown already: the newest record, at its last step (a record that grew in place
        // was walked again by `refresh`, at the step it was on).
        let at_end = run.step + 1 >= run.played.len();
        if last == run.record && ctx.records.get(last) == Some(&run.source) && at_end {
            return Vec::new();
        }
        let playing = run.playing;
        match self.start(ctx, last, None, true) {
            Ok(mut out) => {
                if playing && let Mode::Run(r) = &mut self.mode {
                    r.playing = true;
                    out.push(Action::Replay(ReplayAction::Tick(self.generation)));
                }
                out
            }
            Err(e) => vec![Action::error(e)],
        }
    }

    /// A key while the replay is shown (or its record list is open); `None`: not the
    /// replay's, the keymap has it.
    pub fn key(&mut self, ctx: &Ctx, k: &KeyEvent) -> Option<Vec<Action>> {
        if k.modifiers.contains(KeyModifiers::CONTROL) {
            return None;
        }
        match &mut self.mode {
            Mode::Off => None,
            Mode::Pick { cursor } => {
                let rows = self.list.rows(&self.summaries, ctx.records.len());
                if let Some(said) = self.list.key(k) {
                    // The cursor stays on its run where the new order still lists it.
                    let rows = self.list.rows(&self.summaries, ctx.records.len());
                    if !rows.contains(cursor) {
                        *cursor = rows.first().copied().unwrap_or(0);
                    }
                    return Some(vec![Action::info(said)]);
                }
                if pick_key(cursor, &rows, k).is_some() {
                    return Some(Vec::new());
                }
                let c = rows
                    .contains(cursor)
                    .then_some(*cursor)
                    .or(rows.first().copied());
                if k.code == KeyCode::Esc {
                    self.stop_summaries();
                    self.stop_hits();
                    self.mode = Mode::Off;
                    return Some(Vec::new());
                }
                let Some(c) = c else {
                    return Some(vec![Action::info(
                        "no run listed: f shows every run again".into(),
                    )]);
                };
                self.stop_summaries();
                Some(
                    self.start(ctx, c, Some(0), false)
                        .unwrap_or_else(|e| vec![Action::error(e)]),
                )
            }
            Mode::After(_) => match k.code {
                KeyCode::Esc => {
                    self.mode = Mode::Off;
                    Some(vec![Action::Replay(ReplayAction::Leave)])
                }
                _ => None,
            },
            Mode::Run(_) => self.run_key(ctx, k),
        }
    }

    fn run_key(&mut self, ctx: &Ctx, k: &KeyEvent) -> Option<Vec<Action>> {
        let ReplayPane {
            mode,
            generation,
            search,
            ..
        } = &mut *self;
        let Mode::Run(run) = mode else {
            return None;
        };
        if let Some(tune) = &mut run.tune {
            match k.code {
                KeyCode::Esc | KeyCode::Char('t') => {
                    run.tune = None;
                    // Its measures, if still walking, are stopped.
                    search.stop_tune();
                    return Some(Vec::new());
                }
                KeyCode::Down | KeyCode::Char('j') => {
                    tune.cursor = (tune.cursor + 1).min(tune.list.len().saturating_sub(1));
                    return Some(Vec::new());
                }
                KeyCode::Up | KeyCode::Char('k') => {
                    tune.cursor = tune.cursor.saturating_sub(1);
                    return Some(Vec::new());
                }
                KeyCode::Enter => return Some(apply(ctx, tune)),
                _ => {}
            }
        }
        let n = run.played.len();
        let to = match k.code {
            KeyCode::Right | KeyCode::Char('l') => run.step + 1,
            KeyCode::Left | KeyCode::Char('h') => run.step.saturating_sub(1),
            KeyCode::Home | KeyCode::Char('g') => 0,
            KeyCode::End | KeyCode::Char('G') => n.saturating_sub(1),
            KeyCode::Char(' ') => {
                run.playing = !run.playing;
                // Ticks sent before a pause are stale: one pace, never two.
                *generation += 1;
                return Some(if run.playing {
                    vec![Action::Replay(ReplayAction::Tick(*generation))]
                } else {
                    Vec::new()
                });
            }
            KeyCode::Char('t') => {
                let mut out = vec![Action::Replay(ReplayAction::ShowPanel)];
                out.extend(self.start_tune(ctx));
                return Some(out);
            }
            KeyCode::Char(';') | KeyCode::Char(',') => {
                let at = self.speed.unwrap_or(2);
                let to = if k.code == KeyCode::Char(';') {
                    at.saturating_sub(1)
                } else {
                    (at + 1).min(PACES.len() - 1)
                };
                self.speed = Some(to);
                return Some(vec![Action::info(format!(
                    "playing a step every {:.2} s (; faster, , slower)",
                    PACES[to] as f64 / 1000.0
                ))]);
            }
            KeyCode::Char(')') | KeyCode::Char('(') => {
                return Some(self.find_miss(ctx, k.code == KeyCode::Char(')')));
            }
            KeyCode::PageDown | KeyCode::PageUp => {
                let last = ctx.records.len().saturating_sub(1);
                let record = if k.code == KeyCode::PageDown {
                    (run.record + 1).min(last)
                } else {
                    run.record.saturating_sub(1)
                };
                return Some(
                    self.start(ctx, record, Some(0), false)
                        .unwrap_or_else(|e| vec![Action::error(e)]),
                );
            }
            KeyCode::Esc => {
                // Esc cancels a search running first; the next Esc leaves.
                if let Some(what) = self.search.cancel() {
                    return Some(vec![Action::info(format!("cancelled: {what}"))]);
                }
                self.stop();
                self.stop_hits();
                self.search.stop_all();
                self.mode = Mode::Off;
                return Some(vec![Action::Replay(ReplayAction::Leave)]);
            }
            _ => return None,
        };
        if to >= n || to == run.step {
            return Some(Vec::new());
        }
        run.step = to;
        run.tune = None;
        run.follow = false;
        run.walk_current();
        self.search.cancel();
        self.generation += 1;
        if let Mode::Run(r) = &mut self.mode {
            r.playing = false;
        }
        Some(self.show_step())
    }
}

/// Cuts the recommendation to what the run had, when the graph shows the run's step.
fn cut(ctx: &Ctx, run: &Run, seeds: &[NodeIndex], rec: &mut Recommendation) {
    let shown = run.current().is_some_and(|s| same(&s.offer.seeds, seeds));
    if let (true, Some(set)) = (shown, &run.played.available) {
        rec.retain_tools(ctx.tk, |x| set.binary_search(&x).is_ok());
    }
}

/// j/k move in the record list (`cursor` a record, moved among the `rows` listed); `None`:
/// Enter or Esc (the caller decides).
fn pick_key(cursor: &mut usize, rows: &[usize], k: &KeyEvent) -> Option<()> {
    let last = rows.len().saturating_sub(1);
    let at = rows.iter().position(|r| r == cursor).unwrap_or(0);
    let to = match k.code {
        KeyCode::Down | KeyCode::Char('j') => (at + 1).min(last),
        KeyCode::Up | KeyCode::Char('k') => at.saturating_sub(1),
        KeyCode::PageDown => (at + 10).min(last),
        KeyCode::PageUp => at.saturating_sub(10),
        KeyCode::Home | KeyCode::Char('g') => 0,
        KeyCode::End | KeyCode::Char('G') => last,
        KeyCode::Enter | KeyCode::Esc => return None,
        _ => at,
    };
    if let Some(&r) = rows.get(to) {
        *cursor = r;
    }
    Some(())
}

/// The parameters a record is walked at: the view's when its operator is the active one
/// (what the user is trying, as the evidence panel does), else the record's own.
fn params_for(ctx: &Ctx, played: &Replayed) -> Params {
    view_params(played, view(ctx))
}

/// The view's operator and parameters, as the core's walks take them.
fn view<'a>(ctx: &Ctx<'a>) -> Option<(&'a str, Params)> {
    ctx.operator_name().map(|o| (o, ctx.params))
}

impl Tune {
    fn empty(why: &str) -> Tune {
        Tune {
            list: Vec::new(),
            cursor: 0,
            note: Some(why.to_string()),
        }
    }
}

/// Enter in the tune list: the chosen candidate as one undoable edit.
fn apply(ctx: &Ctx, tune: &Tune) -> Vec<Action> {
    let Some(c) = tune.list.get(tune.cursor) else {
        return Vec::new();
    };
    let mut threshold = None;
    let mut hops = None;
    for ch in &c.changes {
        match ch {
            Change::Threshold { to, .. } => threshold = Some(*to),
            Change::Hops { to, .. } => hops = Some(*to),
            _ => {}
        }
    }
    vec![Action::Replay(ReplayAction::Apply {
        edits: c.edits(ctx.tk),
        threshold,
        hops,
        what: c.describe(ctx.tk),
    })]
}

fn same(a: &[NodeIndex], b: &[NodeIndex]) -> bool {
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    a.sort_unstable();
    a.dedup();
    b.sort_unstable();
    b.dedup();
    a == b
}
