//! `eval`: the offer scored against trace records (SPEC 8).
//!
//! Parameters of a record: the options win, then the record's own fields, then its
//! operator's values (for seeds records, the operator defaults). Per record, R = the tools
//! offered (the recommendation's tools, after the filters stage when filters are given),
//! C = the distinct called names that are tools of the toolkit (a Tool, or a Group
//! standing in for unknown members); the other distinct called names are unknown.
//!
//! Counts and tokens go by the functions the model is sent: for a Chat2Graph config, a
//! tool of R once per recommended caller and per place of that caller in the `toolkit:`
//! chains ([`Toolkit::copies_sent`]), which depends on the threshold; for other toolkits
//! once. Recall, completeness and precision go by the distinct tools of R.
//!
//! The sweep is exact: the offer only changes at the critical values of the tools
//! ([`Critical`]), so evaluating at each of them, highest first, covers every threshold.

use std::collections::{BTreeSet, HashMap};

use petgraph::stable_graph::NodeIndex;

use super::criterion::{Criterion, Point, choose};
pub use super::resolve::{EvalOptions, group_of, tool_named};
use super::resolve::{Unresolved, available_tools, target_of};
use super::{Record, TokenCost};
use crate::diag::Diagnostic;
use crate::model::{NodeKind, Toolkit};
use crate::recommend::sent::{Sent, sent_from};
use crate::recommend::{Critical, Params, ToolFilters, filter_tools, recommend};

/// A record resolved against the toolkit.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The group: the operator's name, or `seeds:A,B` with the names sorted.
    pub group: String,
    pub seeds: Vec<NodeIndex>,
    pub params: Params,
    /// Distinct called tools, sorted by index.
    pub called: Vec<NodeIndex>,
    /// Distinct called names that are no tool.
    pub unknown: usize,
    /// The calls in order as tools (`None` for a name that is no tool), when the record
    /// gives the order: what `fit` learns `Next` scores from.
    pub ordered: Option<Vec<Option<NodeIndex>>>,
    /// The tools the run had (sorted; a group stands for itself and its members), when
    /// the record says: `fit`'s cross-validation ranks only these.
    pub available: Option<Vec<NodeIndex>>,
}

/// The numbers of one group of records (or of all records pooled).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stats {
    pub records: usize,
    pub with_calls: usize,
    pub recall: Option<f64>,
    pub complete: Option<f64>,
    pub precision: Option<f64>,
    pub offered_tools: Option<f64>,
    pub tokens: Option<f64>,
    pub unknown_calls: usize,
    pub never_called: Vec<String>,
    pub called_not_offered: Vec<String>,
}

/// The numbers at one threshold step of the sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct StepStats {
    pub threshold: f64,
    pub recall: Option<f64>,
    pub complete: Option<f64>,
    pub offered_tools: f64,
    pub tokens: f64,
}

/// The suggested parameters: the cheapest that meet the criterion
/// ([`criterion`](super::criterion)), with the completeness and tokens per record there.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggested {
    pub threshold: f64,
    pub hops: u32,
    pub complete: f64,
    pub tokens: f64,
    /// What it optimises.
    pub criterion: Criterion,
    /// With the step criterion: next-call recall and tokens per step there.
    pub step_recall: Option<f64>,
    pub step_tokens: Option<f64>,
}

/// One operator (or seeds group) in the report.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupReport {
    pub operator: String,
    /// The threshold and hops its records used; `None` when they differ.
    pub threshold: Option<f64>,
    pub hops: Option<u32>,
    pub stats: Stats,
    pub steps: Option<Vec<StepStats>>,
    pub suggested: Option<Suggested>,
}

/// The whole evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub operators: Vec<GroupReport>,
    pub overall: Stats,
    /// Records that could not be resolved (unknown operator or seeds).
    pub diagnostics: Vec<Diagnostic>,
    /// What the suggestions optimise.
    pub criterion: Criterion,
}

/// Resolves records; the ones naming no operator (or seeds naming no action) become
/// TS082 warnings (one per file and message, with a count) and are left out.
pub fn resolve(
    tk: &Toolkit,
    records: &[Record],
    opts: &EvalOptions,
) -> (Vec<Resolved>, Vec<Diagnostic>) {
    let mut out = Vec::with_capacity(records.len());
    let mut unresolved = Unresolved::default();
    for r in records {
        let (group, seeds, params) = match target_of(tk, r, opts) {
            Ok(t) => t,
            Err(msg) => {
                unresolved.push(r, msg);
                continue;
            }
        };
        let (called, unknown) = called_tools(tk, &r.called);
        let ordered = r
            .calls
            .as_ref()
            .map(|c| c.iter().map(|n| tool_named(tk, n)).collect());
        out.push(Resolved {
            group,
            seeds,
            params,
            called,
            unknown,
            ordered,
            available: r.available.as_deref().map(|names| {
                let mut buf = Vec::new();
                available_tools(tk, names, &mut buf);
                buf
            }),
        });
    }
    (out, unresolved.diagnostics())
}

/// Distinct called tools (sorted by index) and the number of distinct unknown names.
fn called_tools(tk: &Toolkit, names: &[String]) -> (Vec<NodeIndex>, usize) {
    let mut tools = Vec::new();
    let mut unknown = BTreeSet::new();
    for n in names {
        match tool_named(tk, n) {
            Some(ix) => tools.push(ix),
            None => {
                unknown.insert(n.as_str());
            }
        }
    }
    tools.sort();
    tools.dedup();
    (tools, unknown.len())
}

/// Evaluates resolved records; operators sorted by name.
pub fn evaluate(
    tk: &Toolkit,
    records: &[Resolved],
    opts: &EvalOptions,
    cost: &dyn TokenCost,
) -> Report {
    let mut offers = Offers::default();
    let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
    let mut group_ix: HashMap<&str, usize> = HashMap::new();
    let mut overall = Acc::default();
    for (i, r) in records.iter().enumerate() {
        let g = *group_ix.entry(&r.group).or_insert_with(|| {
            groups.push((&r.group, Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push(i);
    }
    groups.sort_by(|a, b| a.0.cmp(b.0));
    let mut operators = Vec::with_capacity(groups.len());
    for (name, members) in &groups {
        let mut acc = Acc::default();
        for &i in members {
            let r = &records[i];
            let offer = offers.get(tk, r, opts.filters.as_ref(), cost);
            acc.add(r, offer);
            overall.add(r, offer);
        }
        let rs: Vec<&Resolved> = members.iter().map(|&i| &records[i]).collect();
        let (steps, suggested) = if opts.sweep {
            let own = sweep_group(tk, &rs, None, opts.filters.as_ref(), cost);
            let top = opts
                .hops
                .unwrap_or_else(|| rs.iter().map(|r| r.params.hops).max().unwrap_or(0));
            let min = opts.min_complete.unwrap_or(1.0);
            (
                Some(own),
                suggest(tk, &rs, top, min, opts.filters.as_ref(), cost),
            )
        } else {
            (None, None)
        };
        operators.push(GroupReport {
            operator: name.to_string(),
            threshold: common(rs.iter().map(|r| r.params.threshold)),
            hops: common(rs.iter().map(|r| r.params.hops)),
            stats: acc.finish(tk),
            steps,
            suggested,
        });
    }
    Report {
        operators,
        overall: overall.finish(tk),
        diagnostics: Vec::new(),
        criterion: Criterion::Complete(opts.min_complete.unwrap_or(1.0)),
    }
}

/// The one value every item has, or `None`.
fn common<T: PartialEq + Copy>(mut it: impl Iterator<Item = T>) -> Option<T> {
    let first = it.next()?;
    it.all(|x| x == first).then_some(first)
}

/// Offers cached by seeds and parameters: records of one operator share them.
#[derive(Default)]
struct Offers {
    cache: HashMap<OfferKey, Offer>,
}

/// What one record is offered.
struct Offer {
    /// The tools, sorted by index.
    tools: Vec<NodeIndex>,
    /// The functions sent for them (more than `tools` where Chat2Graph sends a tool
    /// several times).
    sent: usize,
    /// The tokens of the functions sent.
    tokens: u64,
}

/// Seeds, threshold bits and hops.
type OfferKey = (Vec<NodeIndex>, u64, u32);

impl Offers {
    fn get(
        &mut self,
        tk: &Toolkit,
        r: &Resolved,
        filters: Option<&ToolFilters>,
        cost: &dyn TokenCost,
    ) -> &Offer {
        let key = (r.seeds.clone(), r.params.threshold.to_bits(), r.params.hops);
        self.cache.entry(key).or_insert_with(|| {
            let rec = recommend(tk, &r.seeds, r.params);
            let mut tools = match filters {
                Some(f) => filter_tools(tk, &rec.tools, f),
                None => rec.tools.clone(),
            };
            tools.sort();
            let (mut sent, mut tokens) = (0, 0);
            for &t in &tools {
                let n = tk.copies_sent(t, &rec.actions, r.params.threshold);
                sent += n as usize;
                tokens += u64::from(n) * cost.tool_tokens(t);
            }
            Offer {
                tools,
                sent,
                tokens,
            }
        })
    }
}

/// Running sums for [`Stats`].
#[derive(Default)]
struct Acc {
    records: usize,
    with_calls: usize,
    recall: f64,
    complete: usize,
    precision: f64,
    offered: usize,
    tokens: u64,
    unknown: usize,
    offered_any: BTreeSet<NodeIndex>,
    called_any: BTreeSet<NodeIndex>,
    missed: BTreeSet<NodeIndex>,
}

impl Acc {
    fn add(&mut self, r: &Resolved, o: &Offer) {
        let offer = &o.tools[..];
        self.records += 1;
        self.offered += o.sent;
        self.tokens += o.tokens;
        self.unknown += r.unknown;
        self.offered_any.extend(offer.iter().copied());
        self.called_any.extend(r.called.iter().copied());
        if r.called.is_empty() {
            return;
        }
        let hits = r
            .called
            .iter()
            .filter(|c| offer.binary_search(c).is_ok())
            .count();
        self.missed.extend(
            r.called
                .iter()
                .filter(|c| offer.binary_search(c).is_err())
                .copied(),
        );
        self.with_calls += 1;
        self.recall += hits as f64 / r.called.len() as f64;
        if hits == r.called.len() {
            self.complete += 1;
        }
        if !offer.is_empty() {
            self.precision += hits as f64 / offer.len() as f64;
        }
    }

    fn finish(self, tk: &Toolkit) -> Stats {
        let per_call = |x: f64| (self.with_calls > 0).then(|| x / self.with_calls as f64);
        let per_record = |x: f64| (self.records > 0).then(|| x / self.records as f64);
        let names = |set: &mut dyn Iterator<Item = &NodeIndex>| {
            let mut v: Vec<String> = set.map(|&ix| tk.name(ix).to_string()).collect();
            v.sort();
            v
        };
        Stats {
            records: self.records,
            with_calls: self.with_calls,
            recall: per_call(self.recall),
            complete: per_call(self.complete as f64),
            precision: per_call(self.precision),
            offered_tools: per_record(self.offered as f64),
            tokens: per_record(self.tokens as f64),
            unknown_calls: self.unknown,
            never_called: names(&mut self.offered_any.difference(&self.called_any)),
            called_not_offered: names(&mut self.missed.iter()),
        }
    }
}

/// Records of one group with identical seeds, hops and calls merged, with their count.
struct Config {
    /// (called tools, how many records).
    calls: Vec<(Vec<NodeIndex>, usize)>,
    /// Tools some threshold brings in, by critical value, highest first.
    by_value: Vec<(f64, NodeIndex)>,
    /// For a Chat2Graph config, the functions sent ([`sent_from`]), by value, highest
    /// first; empty for other toolkits (one function per tool).
    sent: Vec<Sent>,
    crit: Critical,
}

fn configs(tk: &Toolkit, rs: &[&Resolved], hops: Option<u32>) -> Vec<Config> {
    let places = tk.places_by_index();
    let mut out: Vec<Config> = Vec::new();
    let mut ix: HashMap<(&[NodeIndex], u32), usize> = HashMap::new();
    let mut call_ix: HashMap<(usize, &[NodeIndex]), usize> = HashMap::new();
    for r in rs {
        let h = hops.unwrap_or(r.params.hops);
        let c = *ix.entry((&r.seeds, h)).or_insert_with(|| {
            let crit = Critical::compute(tk, &r.seeds, h);
            let mut by_value: Vec<(f64, NodeIndex)> = crit
                .reached()
                .iter()
                .filter(|&&n| tk.kind(n) != NodeKind::Action)
                .map(|&n| (crit.raw(n), n))
                .collect();
            by_value.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let mut sent = Vec::new();
            if let Some(places) = &places {
                let actions = crit
                    .reached()
                    .iter()
                    .filter(|&&n| tk.kind(n) == NodeKind::Action)
                    .map(|&a| (a, crit.raw(a)));
                sent_from(tk, actions, places, &mut sent);
                sent.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            }
            out.push(Config {
                calls: Vec::new(),
                by_value,
                sent,
                crit,
            });
            out.len() - 1
        });
        let k = *call_ix.entry((c, &r.called)).or_insert_with(|| {
            out[c].calls.push((r.called.clone(), 0));
            out[c].calls.len() - 1
        });
        out[c].calls[k].1 += 1;
    }
    out
}

/// The sweep of one group: a step per threshold at which some record's offer changes,
/// highest first, each record at `hops` (or its own).
fn sweep_group(
    tk: &Toolkit,
    rs: &[&Resolved],
    hops: Option<u32>,
    filters: Option<&ToolFilters>,
    cost: &dyn TokenCost,
) -> Vec<StepStats> {
    let cfgs = configs(tk, rs, hops);
    // A Chat2Graph config's count can change where no tool comes in (a second caller of
    // an offered tool does): the values of its functions sent are steps too.
    let mut thresholds: Vec<f64> = cfgs
        .iter()
        .flat_map(|c| {
            c.by_value
                .iter()
                .map(|v| v.0)
                .chain(c.sent.iter().map(|v| v.0))
        })
        .collect();
    thresholds.sort_by(|a, b| b.total_cmp(a));
    thresholds.dedup();
    let mut state: Vec<SweepState> = cfgs.iter().map(|_| SweepState::default()).collect();
    let mut steps = Vec::new();
    for t in thresholds {
        let mut changed = false;
        for (c, s) in cfgs.iter().zip(state.iter_mut()) {
            changed |= s.advance(tk, c, t, filters, cost);
        }
        if !changed {
            continue;
        }
        let mut sums = StepSums::default();
        for (c, s) in cfgs.iter().zip(state.iter()) {
            for (called, n) in &c.calls {
                let hits = called.iter().filter(|&&x| s.contains(c, x)).count();
                sums.add(called.len(), hits, *n, s);
            }
        }
        steps.push(sums.finish(t));
    }
    steps
}

/// The offer of one config while the threshold descends.
#[derive(Default)]
struct SweepState {
    /// How many of `by_value` are recommended.
    prefix: usize,
    /// How many of `sent` are sent (before the filters).
    sent_prefix: usize,
    /// With filters: the offer sorted by index.
    offer: Vec<NodeIndex>,
    /// The functions sent.
    len: usize,
    tokens: u64,
    /// The threshold reached, for membership without filters.
    t: f64,
    filtered: bool,
}

impl SweepState {
    /// Moves to threshold `t`; whether the offer changed.
    fn advance(
        &mut self,
        tk: &Toolkit,
        c: &Config,
        t: f64,
        filters: Option<&ToolFilters>,
        cost: &dyn TokenCost,
    ) -> bool {
        self.t = t;
        let start = self.prefix;
        while self.prefix < c.by_value.len() && c.by_value[self.prefix].0 >= t {
            self.prefix += 1;
        }
        let sent_start = self.sent_prefix;
        while self.sent_prefix < c.sent.len() && c.sent[self.sent_prefix].0 >= t {
            self.sent_prefix += 1;
        }
        if self.prefix == start && self.sent_prefix == sent_start {
            return false;
        }
        // With `sent` (a Chat2Graph config) the counts are the functions sent; a tool's
        // critical value is the highest of its entries', so it comes in with one of them.
        let copies = !c.sent.is_empty();
        match filters {
            None => {
                if copies {
                    for &(_, x, n) in &c.sent[sent_start..self.sent_prefix] {
                        self.len += n as usize;
                        self.tokens += u64::from(n) * cost.tool_tokens(x);
                    }
                } else {
                    for &(_, n) in &c.by_value[start..self.prefix] {
                        self.tokens += cost.tool_tokens(n);
                    }
                    self.len = self.prefix;
                }
                true
            }
            Some(f) => {
                self.filtered = true;
                let mut offer_changed = false;
                if self.prefix != start {
                    let rec: Vec<NodeIndex> =
                        c.by_value[..self.prefix].iter().map(|v| v.1).collect();
                    let mut offer = filter_tools(tk, &rec, f);
                    offer.sort();
                    offer_changed = offer != self.offer;
                    self.offer = offer;
                }
                let (len, tokens) = if copies {
                    c.sent[..self.sent_prefix]
                        .iter()
                        .filter(|e| self.offer.binary_search(&e.1).is_ok())
                        .fold((0, 0), |(l, k), &(_, x, n)| {
                            (l + n as usize, k + u64::from(n) * cost.tool_tokens(x))
                        })
                } else {
                    let tokens = self.offer.iter().map(|&n| cost.tool_tokens(n)).sum();
                    (self.offer.len(), tokens)
                };
                let changed = offer_changed || (len, tokens) != (self.len, self.tokens);
                self.len = len;
                self.tokens = tokens;
                changed
            }
        }
    }

    fn contains(&self, c: &Config, n: NodeIndex) -> bool {
        if self.filtered {
            self.offer.binary_search(&n).is_ok()
        } else {
            c.crit.raw(n) >= self.t
        }
    }
}

#[derive(Default)]
struct StepSums {
    records: usize,
    with_calls: usize,
    recall: f64,
    complete: usize,
    offered: usize,
    tokens: u64,
}

impl StepSums {
    /// `n` records with `called` calls of which `hits` are offered, at offer `s`.
    fn add(&mut self, called: usize, hits: usize, n: usize, s: &SweepState) {
        self.records += n;
        self.offered += n * s.len;
        self.tokens += n as u64 * s.tokens;
        if called > 0 {
            self.with_calls += n;
            self.recall += n as f64 * (hits as f64 / called as f64);
            if hits == called {
                self.complete += n;
            }
        }
    }

    fn finish(self, t: f64) -> StepStats {
        let per_call = |x: f64| (self.with_calls > 0).then(|| x / self.with_calls as f64);
        let per_record = |x: f64| x / self.records.max(1) as f64;
        StepStats {
            threshold: t,
            recall: per_call(self.recall),
            complete: per_call(self.complete as f64),
            offered_tools: per_record(self.offered as f64),
            tokens: per_record(self.tokens as f64),
        }
    }
}

/// The cheapest step over hops 0 to `top + 2` that keeps `complete >= min` (and above 0):
/// [`choose`] with [`Criterion::Complete`].
fn suggest(
    tk: &Toolkit,
    rs: &[&Resolved],
    top: u32,
    min: f64,
    filters: Option<&ToolFilters>,
    cost: &dyn TokenCost,
) -> Option<Suggested> {
    let criterion = Criterion::Complete(min);
    let mut points = Vec::new();
    for h in 0..=top.saturating_add(2) {
        for s in sweep_group(tk, rs, Some(h), filters, cost) {
            if let Some(c) = s.complete {
                points.push(Point {
                    threshold: s.threshold,
                    hops: h,
                    value: c,
                    tokens: s.tokens,
                    offered_tools: s.offered_tools,
                });
            }
        }
    }
    choose(&criterion, points).map(|p| Suggested {
        threshold: p.threshold,
        hops: p.hops,
        complete: p.value,
        tokens: p.tokens,
        criterion,
        step_recall: None,
        step_tokens: None,
    })
}

/// Each operator's suggestion replaced by its step suggestion (criterion
/// [`Criterion::StepRecall`] at `steps.target_recall`): the setting `steps` suggests for
/// that operator (the step sweep of the same records), with the completeness and tokens
/// per record of its records measured there. An operator the steps suggest nothing for
/// has no suggestion. How `eval --sweep` agrees with `eval --steps --sweep` on ordered
/// records.
pub fn suggest_by_steps(
    tk: &Toolkit,
    report: &mut Report,
    records: &[Resolved],
    steps: &super::steps::StepReport,
    cost: &dyn TokenCost,
) {
    let criterion = Criterion::StepRecall(steps.target_recall);
    report.criterion = criterion;
    for g in &mut report.operators {
        if g.steps.is_none() {
            continue;
        }
        let point = steps
            .operators
            .iter()
            .find(|s| s.operator == g.operator)
            .and_then(|s| s.suggested.clone());
        g.suggested = point.map(|p| {
            let mine: Vec<Resolved> = records
                .iter()
                .filter(|r| r.group == g.operator)
                .cloned()
                .map(|mut r| {
                    r.params = Params {
                        threshold: p.threshold,
                        hops: p.hops,
                    };
                    r
                })
                .collect();
            let at = evaluate(tk, &mine, &EvalOptions::default(), cost).overall;
            Suggested {
                threshold: p.threshold,
                hops: p.hops,
                complete: at.complete.unwrap_or(0.0),
                tokens: at.tokens.unwrap_or(0.0),
                criterion,
                step_recall: Some(p.recall),
                step_tokens: Some(p.tokens),
            }
        });
    }
}
