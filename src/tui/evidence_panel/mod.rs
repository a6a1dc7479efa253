//! Evidence in the TUI (SPEC 8): the loaded trace records, their evaluation for the active
//! operator (or hand-edited seeds) at the current parameters, times offered and called
//! per tool, and the token estimate of the offer.
//!
//! Everything is recomputed with the recommendation (once per message that made it stale), i.e. on
//! parameter, seed and graph changes, never per frame. The tokenizer is built on first
//! use only: when traces are loaded or the panel is opened, so startup stays fast.

pub(crate) mod commands;
pub mod draw;
pub mod fit_job;
#[cfg(test)]
mod tests;

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc::Sender;

use petgraph::stable_graph::NodeIndex;
use petgraph::visit::NodeIndexable;

use toolscope_core::evidence::eval::{
    EvalOptions, GroupReport, Resolved, evaluate, group_of, resolve,
};
use toolscope_core::evidence::otlp::OperatorNaming;
use toolscope_core::evidence::steps::{StepCounter, StepGroup, StepOptions};
use toolscope_core::evidence::{Record, TokenCost, load_traces};
use toolscope_core::model::Toolkit;
use toolscope_core::recommend::{Params, ToolFilters, filter_tools, recommend};
use toolscope_core::tokens::{Encoding, Tokenizer, tool_entry};
use toolscope_core::watch::{WatchEvent, Watcher};

use crate::tui::msg::Msg;

/// The evidence pane's state: the loaded traces, their evaluation and whether the panel
/// shows it. Only this folder changes it; the rest of the TUI reads it.
#[derive(Default)]
pub struct EvidencePane {
    /// The trace files, in the order given.
    paths: Vec<PathBuf>,
    /// How OTLP runs are named (`--operator-attr`, `--default-operator`; `:traces` takes
    /// them too and keeps them for later reloads).
    naming: OperatorNaming,
    /// Shared with the replay's jobs off the UI thread (a reload replaces it whole).
    records: std::sync::Arc<Vec<Record>>,
    /// The records resolved against the current graph at their own parameters; cleared
    /// on graph changes and loads, so parameter keys do not resolve names again.
    resolved: Option<Vec<Resolved>>,
    /// Built on first use (traces loaded or panel opened).
    tokenizer: Option<Tokenizer>,
    /// Tokens per tool of the current graph, by node index; cleared on graph changes.
    tool_tokens: RefCell<Vec<Option<u64>>>,
    /// The evaluation of the active group at the current parameters (sweep on), while the
    /// panel is open.
    report: Option<GroupReport>,
    /// The step evaluation of the active group's records with their calls in order, at
    /// the current parameters (sweep over the threshold at the current hops), while the
    /// panel is open.
    steps: Option<StepGroup>,
    /// Per tool, over the records of the other groups (at their own parameters): times
    /// offered and called. Kept until the graph, the records, the active group or the
    /// filters change, so a parameter key recounts only the active group.
    base: Option<Base>,
    /// The same over the active group's records at the current parameters.
    active: (Counts, Counts),
    /// Tokens of the current offer, once the tokenizer is on.
    offer_tokens: Option<u64>,
    /// The evidence panel replaces the inspector.
    panel: bool,
    /// Where the trace watcher reports changes (the loop's channel), once connected.
    tx: Option<Sender<Msg>>,
    /// Watches the loaded trace files, like the toolkit files.
    watcher: Option<Watcher>,
    /// A trace file changed since the last batch.
    stale: bool,
    /// The `:fit` running on its thread, if any.
    fit: Option<fit_job::Running>,
    /// Fits started so far (each job's id).
    fits: u64,
}

/// What the evaluation is for: the app's current choice.
pub struct Active<'a> {
    pub tk: &'a Toolkit,
    /// The active operator's name, unless its seeds were edited by hand.
    pub operator: Option<&'a str>,
    pub seeds: &'a [NodeIndex],
    pub params: Params,
    /// What the model is offered: the recommendation, or its filters stage when on.
    pub offer: &'a [NodeIndex],
    /// The filters stage, when on (the evaluation applies it too, as `eval --offered`).
    pub filters: Option<ToolFilters>,
}

impl EvidencePane {
    /// The loaded records, in file order.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// The loaded records, for a job on another thread.
    pub fn shared_records(&self) -> &std::sync::Arc<Vec<Record>> {
        &self.records
    }

    /// Whether the panel shows (instead of the inspector).
    pub fn panel_open(&self) -> bool {
        self.panel
    }

    /// Another panel takes the right-hand pane.
    pub fn close_panel(&mut self) {
        self.panel = false;
    }

    /// The evaluation of the active group, while the panel is open.
    pub fn report(&self) -> Option<&GroupReport> {
        self.report.as_ref()
    }

    /// The step evaluation of the active group's ordered runs, while the panel is open.
    pub fn steps(&self) -> Option<&StepGroup> {
        self.steps.as_ref()
    }

    /// Tokens of the current offer, once counted.
    pub fn offer_tokens(&self) -> Option<u64> {
        self.offer_tokens
    }

    /// How OTLP runs are named from now on (the next load reads with it).
    pub fn set_naming(&mut self, naming: OperatorNaming) {
        self.naming = naming;
    }

    /// How OTLP runs are named.
    pub fn naming(&self) -> &OperatorNaming {
        &self.naming
    }

    /// Connects the evidence to the loop's channel, so loaded trace files are watched.
    pub fn connect(&mut self, tx: Sender<Msg>) {
        self.tx = Some(tx);
    }

    /// A loaded trace file changed on disk: read again at the end of the batch.
    pub fn changed_on_disk(&mut self) {
        self.stale = true;
    }

    pub fn loaded(&self) -> bool {
        !self.paths.is_empty()
    }

    /// The trace files loaded, in the order given.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// Reads `paths` (format detected per file, as the CLI does), replacing the records.
    /// Returns the number of records and of bad lines.
    pub fn load(&mut self, paths: Vec<PathBuf>) -> Result<(usize, usize), String> {
        let (records, diags) = load_traces(&paths, None, &self.naming)?;
        if self.paths != paths {
            self.watcher = None;
        }
        self.paths = paths;
        self.records = std::sync::Arc::new(records);
        self.resolved = None;
        self.base = None;
        self.tokens_on();
        Ok((self.records.len(), diags.len()))
    }

    /// Watches the loaded files (when connected and not watching yet); why not, if it fails.
    pub fn watch(&mut self) -> Result<(), String> {
        let Some(tx) = self.tx.clone() else {
            return Ok(());
        };
        if self.watcher.is_some() || self.paths.is_empty() {
            return Ok(());
        }
        let w = Watcher::new(&self.paths, move |ev| {
            if matches!(ev, WatchEvent::Changed(_) | WatchEvent::Rescan) {
                let _ = tx.send(Msg::TracesChanged);
            }
        })
        .map_err(|e| format!("not watching {}: {}", e.path.display(), e.message))?;
        self.watcher = Some(w);
        Ok(())
    }

    /// Turns the token estimates on (builds the tokenizer on its first count).
    pub fn tokens_on(&mut self) {
        if self.tokenizer.is_none() {
            self.tokenizer = Some(Tokenizer::new(Encoding::default()));
        }
    }

    /// Forgets the token counts of the previous graph.
    pub fn graph_changed(&mut self) {
        self.tool_tokens.borrow_mut().clear();
        self.resolved = None;
        self.base = None;
    }

    /// Recomputes everything for `a`.
    pub fn refresh(&mut self, a: &Active) {
        self.offer_tokens = None;
        self.report = None;
        self.steps = None;
        self.active = Default::default();
        let Some(tokenizer) = &self.tokenizer else {
            return;
        };
        {
            let mut cache = self.tool_tokens.borrow_mut();
            cache.resize(a.tk.graph.node_bound(), None);
        }
        let cost = Cached {
            tk: a.tk,
            tokenizer,
            cache: &self.tool_tokens,
        };
        self.offer_tokens = Some(a.offer.iter().map(|&ix| cost.tool_tokens(ix)).sum());
        if self.records.is_empty() {
            return;
        }
        let resolved = self
            .resolved
            .get_or_insert_with(|| resolve(a.tk, &self.records, &EvalOptions::default()).0);
        let key = BaseKey::of(a);
        if self.base.as_ref().is_none_or(|b| b.key != key) {
            let others = resolved.iter().filter(|r| !is_active(a, r));
            let (offered, called) = count(a.tk, others, a);
            self.base = Some(Base {
                key,
                offered,
                called,
            });
        }
        let (group, mine) = active_records(a, resolved);
        self.active = count(a.tk, mine.iter(), a);
        // The report is only shown in the panel: a parameter key with the panel closed
        // costs the counts alone.
        if mine.is_empty() || !self.panel {
            return;
        }
        let opts = EvalOptions {
            threshold: Some(a.params.threshold),
            hops: Some(a.params.hops),
            sweep: true,
            filters: a.filters.clone(),
            ..EvalOptions::default()
        };
        let report = evaluate(a.tk, &mine, &opts, &cost);
        self.report = report.operators.into_iter().next().map(|mut g| {
            g.operator = group.clone();
            g
        });
        self.steps = steps(a, &self.records, &cost).map(|mut g| {
            g.operator = group;
            g
        });
    }

    /// Records whose offer held `ix`: the active group's at the current parameters, the
    /// others at their own.
    pub fn times_offered(&self, ix: NodeIndex) -> usize {
        let base = self.base.as_ref().map_or(0, |b| get(&b.offered, ix));
        base + get(&self.active.0, ix)
    }

    /// Records that called `ix`.
    pub fn times_called(&self, ix: NodeIndex) -> usize {
        let base = self.base.as_ref().map_or(0, |b| get(&b.called, ix));
        base + get(&self.active.1, ix)
    }

    /// Whether `ix` was never called in the loaded records.
    pub fn never_called(&self, ix: NodeIndex) -> bool {
        self.loaded() && self.times_called(ix) == 0
    }
}

type Counts = HashMap<NodeIndex, usize>;

fn get(c: &Counts, ix: NodeIndex) -> usize {
    c.get(&ix).copied().unwrap_or(0)
}

/// What the counts of the other groups depend on besides the graph and the records.
#[derive(PartialEq)]
struct BaseKey {
    operator: Option<String>,
    /// The seeds, when no operator is active (sorted).
    seeds: Vec<NodeIndex>,
    filters: Option<Vec<String>>,
}

impl BaseKey {
    fn of(a: &Active) -> BaseKey {
        let mut seeds = if a.operator.is_none() {
            a.seeds.to_vec()
        } else {
            Vec::new()
        };
        seeds.sort();
        BaseKey {
            operator: a.operator.map(str::to_string),
            seeds,
            filters: a.filters.as_ref().map(|f| f.chosen.clone()),
        }
    }
}

struct Base {
    key: BaseKey,
    offered: Counts,
    called: Counts,
}

/// Times offered and called per tool over `records`, through the filters stage when it is
/// on. Offers are computed once per distinct (seeds, parameters), so many records of one
/// operator cost one recommendation.
fn count<'r>(
    tk: &Toolkit,
    records: impl Iterator<Item = &'r Resolved>,
    a: &Active,
) -> (Counts, Counts) {
    let (mut offered, mut called) = (Counts::new(), Counts::new());
    // Records per distinct offer first, so each offer's tools are added once.
    let mut per_offer: HashMap<(Vec<NodeIndex>, u64, u32), (Params, usize)> = HashMap::new();
    for r in records {
        let key = (r.seeds.clone(), r.params.threshold.to_bits(), r.params.hops);
        per_offer.entry(key).or_insert((r.params, 0)).1 += 1;
        for &ix in &r.called {
            *called.entry(ix).or_default() += 1;
        }
    }
    for ((seeds, _, _), (params, n)) in per_offer {
        let tools = recommend(tk, &seeds, params).tools;
        let tools = match &a.filters {
            Some(f) => filter_tools(tk, &tools, f),
            None => tools,
        };
        for ix in tools {
            *offered.entry(ix).or_default() += n;
        }
    }
    (offered, called)
}

fn is_active(a: &Active, r: &Resolved) -> bool {
    match a.operator {
        Some(op) => r.group == op,
        None => same_set(&r.seeds, a.seeds),
    }
}

fn same_set(x: &[NodeIndex], y: &[NodeIndex]) -> bool {
    let (mut x, mut y) = (x.to_vec(), y.to_vec());
    x.sort();
    y.sort();
    x.dedup();
    y.dedup();
    x == y
}

/// The active group's name and its records, moved to the current seeds and parameters
/// (what the user is trying). Without an operator: records whose seeds are the current ones.
fn active_records(a: &Active, all: &[Resolved]) -> (String, Vec<Resolved>) {
    let group = match a.operator {
        Some(op) => op.to_string(),
        None => "seeds".to_string(),
    };
    let mine = all
        .iter()
        .filter(|r| is_active(a, r))
        .map(|r| Resolved {
            group: group.clone(),
            seeds: a.seeds.to_vec(),
            params: a.params,
            called: r.called.clone(),
            unknown: r.unknown,
            ordered: r.ordered.clone(),
            available: r.available.clone(),
        })
        .collect();
    (group, mine)
}

/// The steps of the active group's records with their calls in order, at the current
/// threshold and hops, swept over the threshold at the current hops. `None` when no such
/// record has a step.
fn steps(a: &Active, records: &[Record], cost: &dyn TokenCost) -> Option<StepGroup> {
    let group = match a.operator {
        Some(op) => a.tk.operator(op)?.name.clone(),
        None => {
            let mut names: Vec<&str> = a.seeds.iter().map(|&s| a.tk.name(s)).collect();
            names.sort();
            format!("seeds:{}", names.join(","))
        }
    };
    let opts = StepOptions {
        threshold: Some(a.params.threshold),
        hops: Some(a.params.hops),
        sweep: true,
        ..StepOptions::default()
    };
    let mut counter = StepCounter::new(a.tk, opts);
    for r in records.iter().filter(|r| r.calls.is_some()) {
        if group_of(a.tk, r).is_some_and(|g| g == group) {
            counter.add(r);
        }
    }
    let mut overall = counter.finish(cost).overall;
    if overall.stats.steps == 0 {
        return None;
    }
    // The panel draws the current hop count's curve only.
    if let Some(points) = &mut overall.sweep {
        points.retain(|p| p.hops == a.params.hops);
    }
    Some(overall)
}

/// Token costs of the current graph, counted once per tool.
struct Cached<'a> {
    tk: &'a Toolkit,
    tokenizer: &'a Tokenizer,
    cache: &'a RefCell<Vec<Option<u64>>>,
}

impl TokenCost for Cached<'_> {
    fn tool_tokens(&self, ix: NodeIndex) -> u64 {
        if let Some(Some(n)) = self.cache.borrow().get(ix.index()) {
            return *n;
        }
        let n = self.tokenizer.count(&tool_entry(self.tk, ix));
        if let Some(slot) = self.cache.borrow_mut().get_mut(ix.index()) {
            *slot = Some(n);
        }
        n
    }
}
