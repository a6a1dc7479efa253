//! The replay's walks over every loaded run, off the UI thread: the next or previous miss
//! (`)`/`(`), `t`'s candidates measured over every run, and the run's standing (the
//! overall step recall at the view's setting, and this run's) on the panel.
//!
//! The walks are the core's ([`toolscope_core::evidence::steps::search`]: pure, with a
//! stop flag checked before every step and a budget of steps walked); this file only
//! starts them and takes their results. Each job has an id: a result whose id is not the
//! current job's of its kind is stale and dropped. Esc stops the search or the measures
//! (their flag is set, and the walk ends within one step). Without the loop's channel
//! (tests) a job runs at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;

use toolscope_core::evidence::Record;
use toolscope_core::evidence::steps::figures::Figures;
use toolscope_core::evidence::steps::search::{
    Found, MOST_STEPS, WalkBudget, at_setting, measure_within, next_miss, standing,
};
use toolscope_core::evidence::steps::tune::{basis_of, candidates};
use toolscope_core::model::Toolkit;
use toolscope_core::recommend::Params;
use toolscope_core::tokens::{Encoding, Tokenizer, ToolTokens};

use super::jobs::JobDone;
use super::{Mode, ReplayPane, Tune, view};
use crate::tui::action::Action;
use crate::tui::ctx::Ctx;
use crate::tui::msg::Msg;

/// A job running.
struct Running {
    id: u64,
    stop: Arc<AtomicBool>,
    /// What it does, in words (`searching 12 runs for the next miss`).
    what: String,
}

impl Running {
    fn stop(self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// What a standing is of: the graph, the loaded runs, the run and the view's setting.
struct StandingOf {
    tk: Arc<Toolkit>,
    records: Arc<Vec<Record>>,
    record: usize,
    view: Option<(String, Params)>,
}

impl StandingOf {
    fn same(&self, o: &StandingOf) -> bool {
        Arc::ptr_eq(&self.tk, &o.tk)
            && Arc::ptr_eq(&self.records, &o.records)
            && self.record == o.record
            && self.view == o.view
    }
}

/// The jobs of the replay's walks over every run.
#[derive(Default)]
pub(crate) struct Jobs {
    ids: u64,
    miss: Option<Running>,
    tune: Option<Running>,
    standing: Option<Running>,
    standing_of: Option<StandingOf>,
    /// The numbers over every run and over this one (`None` in one: past the budget).
    standing_now: Option<(Option<Figures>, Option<Figures>)>,
}

impl Jobs {
    fn start(&mut self, what: String) -> Running {
        self.ids += 1;
        Running {
            id: self.ids,
            stop: Arc::new(AtomicBool::new(false)),
            what,
        }
    }

    /// Esc: stops the search for a miss and the measures running; what they were doing,
    /// `None` when neither was.
    pub fn cancel(&mut self) -> Option<String> {
        let jobs: Vec<Running> = [self.miss.take(), self.tune.take()]
            .into_iter()
            .flatten()
            .collect();
        if jobs.is_empty() {
            return None;
        }
        let what: Vec<String> = jobs.iter().map(|j| j.what.clone()).collect();
        jobs.into_iter().for_each(Running::stop);
        Some(what.join(", "))
    }

    pub fn stop_tune(&mut self) {
        if let Some(j) = self.tune.take() {
            j.stop();
        }
    }

    /// Every job stops (the replay ended).
    pub fn stop_all(&mut self) {
        self.cancel();
        if let Some(j) = self.standing.take() {
            j.stop();
        }
        self.standing_of = None;
        self.standing_now = None;
    }

    /// What the search for a miss running is doing, if one is.
    pub fn searching(&self) -> Option<&str> {
        self.miss.as_ref().map(|j| j.what.as_str())
    }

    /// The run's standing: over every run and over this one; `None` while walked.
    pub fn standing(&self) -> Option<(Option<Figures>, Option<Figures>)> {
        self.standing_now
    }
}

/// Runs `work` on a thread that sends its result to the loop, or at once without the
/// loop's channel (then its result is returned).
fn run_job(
    tx: Option<&Sender<Msg>>,
    stop: &Arc<AtomicBool>,
    work: impl FnOnce(&AtomicBool) -> Option<JobDone> + Send + 'static,
) -> Option<JobDone> {
    let stop = Arc::clone(stop);
    match tx {
        Some(tx) => {
            let tx = tx.clone();
            std::thread::spawn(move || {
                if let Some(done) = work(&stop) {
                    let _ = tx.send(Msg::ReplayJob(done));
                }
            });
            None
        }
        None => work(&stop),
    }
}

fn owned_view(ctx: &Ctx) -> Option<(String, Params)> {
    view(ctx).map(|(o, p)| (o.to_string(), p))
}

impl ReplayPane {
    /// `)` (`forward`) or `(`: the search for the next or previous miss starts.
    pub(super) fn find_miss(&mut self, ctx: &Ctx, forward: bool) -> Vec<Action> {
        let Some(run) = self.run() else {
            return Vec::new();
        };
        let from = (run.record, run.step);
        if let Some(j) = self.search.miss.take() {
            j.stop();
        }
        let runs = if forward {
            ctx.records.len().saturating_sub(from.0)
        } else {
            from.0 + 1
        };
        let which = if forward { "next" } else { "previous" };
        let job = self
            .search
            .start(format!("searching {runs} run(s) for the {which} miss"));
        let (id, what) = (job.id, job.what.clone());
        let (tk, records, view) = (Arc::clone(ctx.tk), Arc::clone(ctx.records), owned_view(ctx));
        let done = run_job(self.tx.as_ref(), &job.stop, move |stop| {
            let view = view.as_ref().map(|(o, p)| (o.as_str(), *p));
            let mut budget = WalkBudget::default();
            let found = next_miss(&tk, &records, view, from, forward, stop, &mut budget)?;
            Some(JobDone::Miss { id, forward, found })
        });
        self.search.miss = Some(job);
        match done {
            Some(done) => self.job_done(ctx, done),
            None => vec![Action::info(format!("{what} … (Esc cancels)"))],
        }
    }

    /// `t`: the changes that would have offered the missed call; their measures over every
    /// loaded run are walked on a thread (the list says `measuring …` until they come).
    pub(super) fn start_tune(&mut self, ctx: &Ctx) -> Vec<Action> {
        self.search.stop_tune();
        let Mode::Run(run) = &mut self.mode else {
            return Vec::new();
        };
        let Some(step) = run.current() else {
            run.tune = Some(Tune::empty("no step"));
            return Vec::new();
        };
        let early = if step.hit {
            Some(format!(
                "a hit: {} was offered at this threshold and hops, so nothing needs to change",
                toolscope_core::text::sanitize(&step.next)
            ))
        } else if step.target.is_none() {
            Some("the call is no tool of the toolkit: add it first".to_string())
        } else if !step.was_available(run.played.available.as_deref()) {
            Some("the run did not have this tool: no change offers it".to_string())
        } else {
            None
        };
        if let Some(why) = early {
            run.tune = Some(Tune::empty(&why));
            return Vec::new();
        }
        let params = run.params;
        let operator = run.played.operator.clone();
        let available = run.played.available.as_deref();
        let list = candidates(ctx.tk, step, params, operator.as_deref(), available);
        // Ranked by the figure the miss counts in: the first calls at a record's first call.
        let basis = basis_of(step);
        if list.is_empty() {
            run.tune = Some(Tune::empty(
                "no change of scores, threshold or hops offers it",
            ));
            return Vec::new();
        }
        let what = format!(
            "measuring {} change(s) over {} run(s)",
            list.len(),
            ctx.records.len()
        );
        run.tune = Some(Tune::empty(&format!("{what} … (Esc cancels)")));
        let job = self.search.start(what);
        let id = job.id;
        // "Before" is the graph as the view has it: the operator at the run's parameters.
        let (tk, records) = (Arc::clone(ctx.tk), Arc::clone(ctx.records));
        let done = run_job(self.tx.as_ref(), &job.stop, move |stop| {
            let base = at_setting(&tk, operator.as_deref(), params);
            let tokenizer = Tokenizer::new(Encoding::default());
            let cost = ToolTokens::new(&base, &tokenizer);
            let mut budget = WalkBudget::default();
            let (list, unmeasured) =
                measure_within(&base, &records, list, &cost, basis, stop, &mut budget)?;
            Some(JobDone::Tune {
                id,
                list,
                unmeasured,
            })
        });
        self.search.tune = Some(job);
        match done {
            Some(done) => self.job_done(ctx, done),
            None => Vec::new(),
        }
    }

    /// The run's standing is walked again when the graph, the loaded runs, the run or the
    /// view's setting changed (nothing while it is the same).
    pub(super) fn stand(&mut self, ctx: &Ctx) {
        let Mode::Run(run) = &self.mode else {
            if let Some(j) = self.search.standing.take() {
                j.stop();
            }
            self.search.standing_of = None;
            return;
        };
        let of = StandingOf {
            tk: Arc::clone(ctx.tk),
            records: Arc::clone(ctx.records),
            record: run.record,
            view: owned_view(ctx),
        };
        if self
            .search
            .standing_of
            .as_ref()
            .is_some_and(|o| o.same(&of))
        {
            return;
        }
        if let Some(j) = self.search.standing.take() {
            j.stop();
        }
        self.search.standing_now = None;
        let job = self.search.start("the run's standing".into());
        let id = job.id;
        let (tk, records, view, record) = (
            Arc::clone(&of.tk),
            Arc::clone(&of.records),
            of.view.clone(),
            of.record,
        );
        self.search.standing_of = Some(of);
        let done = run_job(self.tx.as_ref(), &job.stop, move |stop| {
            let view = view.as_ref().map(|(o, p)| (o.as_str(), *p));
            let mut budget = WalkBudget::default();
            let (all, this) = standing(&tk, &records, record, view, stop, &mut budget)?;
            Some(JobDone::Standing { id, all, this })
        });
        self.search.standing = Some(job);
        if let Some(done) = done {
            self.job_done(ctx, done);
        }
    }

    /// A job finished: its result, when it is the current job of its kind.
    pub fn job_done(&mut self, ctx: &Ctx, done: JobDone) -> Vec<Action> {
        let current = |j: &Option<Running>, id: u64| j.as_ref().is_some_and(|j| j.id == id);
        match done {
            JobDone::Miss { id, forward, found } => {
                if !current(&self.search.miss, id) {
                    return Vec::new();
                }
                self.search.miss = None;
                self.miss_found(ctx, forward, found)
            }
            JobDone::Tune {
                id,
                list,
                unmeasured,
            } => {
                if !current(&self.search.tune, id) {
                    return Vec::new();
                }
                self.search.tune = None;
                if let Mode::Run(run) = &mut self.mode
                    && let Some(t) = &mut run.tune
                {
                    t.note = match (list.is_empty(), unmeasured) {
                        (_, 0) if list.is_empty() => {
                            Some("no change of scores, threshold or hops offers it".into())
                        }
                        (_, 0) => None,
                        (true, n) => Some(format!(
                            "{n} change(s) not measured: the walk budget ({MOST_STEPS} steps) is less than one measure over every run"
                        )),
                        (false, n) => Some(format!(
                            "{n} more change(s) not measured: the walk budget ({MOST_STEPS} steps) ran out"
                        )),
                    };
                    t.list = list;
                    t.cursor = 0;
                }
                Vec::new()
            }
            JobDone::Standing { id, all, this } => {
                if current(&self.search.standing, id) {
                    self.search.standing = None;
                    self.search.standing_now = Some((all, this));
                }
                Vec::new()
            }
        }
    }

    fn miss_found(&mut self, ctx: &Ctx, forward: bool, found: Found) -> Vec<Action> {
        let which = if forward { "later" } else { "earlier" };
        match found {
            // Said, so the status line no longer says the search is running.
            Found::Miss { record, step } => match self.start(ctx, record, Some(step), false) {
                Ok(mut out) => {
                    out.push(Action::info(format!(
                        "the {which} miss: run {} step {step}",
                        record + 1
                    )));
                    out
                }
                Err(e) => vec![Action::error(e)],
            },
            Found::Nothing { runs } => vec![Action::info(format!(
                "no {which} miss in the loaded runs ({runs} searched)"
            ))],
            Found::OverBudget { record, runs } => vec![Action::info(format!(
                "no {which} miss in {runs} run(s): the walk budget ({MOST_STEPS} steps) ran out in run {}",
                record + 1
            ))],
        }
    }
}

/// The panel's line of the run's standing: `overall recall 0.74 · this run 0.60` (each the
/// core tally's step recall at the view's setting), shorter where `width` is too narrow
/// (down to `all 0.74 · run 0.60`), `…` while walked.
pub(crate) fn standing_line(jobs: &Jobs, width: usize) -> String {
    let figure = |n: Option<Figures>| match n {
        Some(n) => n
            .steps
            .recall()
            .map_or_else(|| "-".to_string(), |r| format!("{r:.2}")),
        None => "over budget".to_string(),
    };
    let Some((all, this)) = jobs.standing() else {
        return "overall recall …".to_string();
    };
    let (all, this) = (figure(all), figure(this));
    let forms = [
        format!("overall recall {all} · this run {this}"),
        format!("recall all {all} · run {this}"),
    ];
    let fits = forms.into_iter().find(|f| f.chars().count() <= width);
    fits.unwrap_or_else(|| format!("all {all} · run {this}"))
}

/// The graph border's part of the standing: `overall 0.74` (`all 0.74` where short);
/// nothing while walked or past the budget.
pub(crate) fn overall_part(jobs: &Jobs) -> Vec<String> {
    match jobs.standing() {
        Some((Some(all), _)) => match all.steps.recall() {
            Some(r) => vec![format!("overall {r:.2}"), format!("all {r:.2}")],
            None => Vec::new(),
        },
        _ => Vec::new(),
    }
}
