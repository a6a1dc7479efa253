//! Step evaluation (`eval --steps`): is the tool called next among the tools offered?
//!
//! A record with its calls in order (`calls`) has one **step** per call after the first:
//! its context is the previous call (or the last `context` calls), its target the tool
//! called. Per step, seeds = the actions with a `Call` edge to a context tool; the offer is
//! the recommendation's tools at the record's threshold and hops, cut to what the run had
//! (`available`: tools, and a group for itself and its members; every tool of the toolkit
//! when the record does not say). A step is a hit when its target is offered. The
//! baseline offers everything available. The first call of a record is reported apart,
//! offered from the operator's seeds.
//!
//! Memory: records are folded in one at a time ([`StepCounter::add`]) into counts per
//! distinct step context (group, parameters, context tools, available set) and target;
//! [`StepCounter::finish`] walks the graph once per distinct set of context tools, for
//! every hop count at once ([`reach`]), and sums the offers into [`tally`] buckets.
//!
//! Offered counts and tokens go by the functions the model is sent: for a Chat2Graph
//! config a tool once per recommended caller and per place of that caller in the
//! `toolkit:` chains ([`Toolkit::copies_sent`]), summed per `Call` edge by the value at
//! which it sends ([`crate::recommend::sent`]); once for other toolkits. A hit is the
//! target among the distinct tools offered.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use petgraph::stable_graph::NodeIndex;
use petgraph::visit::NodeIndexable;

use super::resolve::{EvalOptions, Unresolved, available_tools, members, target_of, tool_named};
use super::{Record, TokenCost};
use crate::diag::Diagnostic;
use crate::model::{EdgeKind, NodeKind, Toolkit};
use crate::recommend::{Adjacency, Params, recommend};

pub mod figures;
pub mod per_step;
mod reach;
pub mod replay;
pub mod report;
pub mod search;
mod tally;
pub mod tune;

use tally::{Sums, SweepTally, ratio};
pub use tally::{SweepPoint, best_within, suggest};

type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// What the command line decides.
#[derive(Debug, Clone)]
pub struct StepOptions {
    pub threshold: Option<f64>,
    pub hops: Option<u32>,
    /// How many previous calls seed a step (1: the previous call).
    pub context: usize,
    /// Sweep every threshold for hops 0 to the largest hops + 2.
    pub sweep: bool,
    /// The recall the suggestion must reach.
    pub target_recall: f64,
    /// The token budget (a share of the baseline's tokens) of the best point.
    pub budget: f64,
}

impl Default for StepOptions {
    fn default() -> Self {
        StepOptions {
            threshold: None,
            hops: None,
            context: 1,
            sweep: false,
            target_recall: 0.9,
            budget: 0.3,
        }
    }
}

/// The numbers of a set of steps at their records' parameters (means per step).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StepStats {
    pub steps: u64,
    pub hits: u64,
    /// Share of steps whose target was offered (`None` without steps).
    pub recall: Option<f64>,
    pub offered_tools: Option<f64>,
    pub tokens: Option<f64>,
    /// `tokens` over the baseline's tokens: a ratio of the means.
    pub token_ratio: Option<f64>,
    /// Offering everything available.
    pub baseline: Baseline,
    /// Steps whose target is no tool of the toolkit (always misses).
    pub unknown_targets: u64,
}

/// The baseline: every available tool offered (means per step).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Baseline {
    pub recall: Option<f64>,
    pub offered_tools: Option<f64>,
    pub tokens: Option<f64>,
}

/// One operator (or seeds group), or all of them pooled.
#[derive(Debug, Clone, PartialEq)]
pub struct StepGroup {
    pub operator: String,
    pub threshold: Option<f64>,
    pub hops: Option<u32>,
    pub records: u64,
    /// Records without order (no `calls`): they give no steps.
    pub unordered: u64,
    pub stats: StepStats,
    /// The first calls of the records, offered from the operator's seeds.
    pub first: StepStats,
    pub sweep: Option<Vec<SweepPoint>>,
    pub suggested: Option<SweepPoint>,
    pub best: Option<SweepPoint>,
}

/// The whole step evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct StepReport {
    pub context: usize,
    pub target_recall: f64,
    pub budget: f64,
    pub operators: Vec<StepGroup>,
    pub overall: StepGroup,
}

/// A record's group as far as steps go.
#[derive(Default)]
struct Group {
    name: String,
    seeds: Vec<NodeIndex>,
    records: u64,
    unordered: u64,
    /// The parameters its records used: `Some(None)` once they differ.
    params: Option<Option<(u64, u32)>>,
}

/// The distinct context of some steps: which group at which parameters, from which tools,
/// with what available. The tool set and the available set are interned ids.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Context {
    group: u32,
    threshold: u64,
    hops: u32,
    tools: u32,
    available: u32,
}

/// Targets of a context and how many steps went to each (`UNKNOWN`: no toolkit tool).
type Targets = FastMap<u32, u64>;
const UNKNOWN: u32 = u32::MAX;
/// The available-set id of "every tool".
const ALL: u32 = u32::MAX;
/// The context-tools id of a record's first call (the operator's seeds).
const FIRST: u32 = u32::MAX;

/// Interns slices of node indices as ids.
#[derive(Default)]
struct Sets {
    ids: FastMap<Vec<NodeIndex>, u32>,
    sets: Vec<Vec<NodeIndex>>,
}

impl Sets {
    /// The id of `set`, and the bytes a new set costs (0 for one seen before).
    fn id(&mut self, set: &[NodeIndex]) -> (u32, usize) {
        if let Some(&id) = self.ids.get(set) {
            return (id, 0);
        }
        let id = self.sets.len() as u32;
        self.ids.insert(set.to_vec(), id);
        self.sets.push(set.to_vec());
        (id, set_bytes(set.len()))
    }
}

/// What a new interned set of `n` nodes costs: held twice (key and list), with the hash
/// table's slot and spare room counted generously (tables grow by doubling).
fn set_bytes(n: usize) -> usize {
    2 * (std::mem::size_of::<Vec<NodeIndex>>() + n * std::mem::size_of::<NodeIndex>())
        + 2 * (std::mem::size_of::<(Vec<NodeIndex>, u32)>() + 1)
}

/// What a new step context costs (its key, its target table), and a new target in one.
const CONTEXT_BYTES: usize = 2 * (std::mem::size_of::<(Context, Targets)>() + 1)
    + 4 * (std::mem::size_of::<(u32, u64)>() + 1);
const TARGET_BYTES: usize = 2 * (std::mem::size_of::<(u32, u64)>() + 1);

/// Folds records into step counts; [`StepCounter::finish`] evaluates them.
pub struct StepCounter<'a> {
    tk: &'a Toolkit,
    opts: StepOptions,
    eval_opts: EvalOptions,
    groups: Vec<Group>,
    group_ids: FastMap<String, u32>,
    /// Operator records without their own parameters, by the name they use.
    by_operator: FastMap<String, (u32, Params)>,
    tool_sets: Sets,
    available_sets: Sets,
    contexts: FastMap<Context, Targets>,
    unresolved: Unresolved,
    buf: Vec<NodeIndex>,
}

impl<'a> StepCounter<'a> {
    pub fn new(tk: &'a Toolkit, opts: StepOptions) -> StepCounter<'a> {
        let eval_opts = EvalOptions {
            threshold: opts.threshold,
            hops: opts.hops,
            ..EvalOptions::default()
        };
        StepCounter {
            tk,
            opts,
            eval_opts,
            groups: Vec::new(),
            group_ids: FastMap::default(),
            by_operator: FastMap::default(),
            tool_sets: Sets::default(),
            available_sets: Sets::default(),
            contexts: FastMap::default(),
            unresolved: Unresolved::default(),
            buf: Vec::new(),
        }
    }

    /// Records that name no operator (or seeds naming no action), as TS082 warnings: one
    /// per file and message, with the number of records.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        self.unresolved.diagnostics()
    }

    /// Folds in one record; returns the bytes this kept (new step contexts, new interned
    /// sets, new targets, a diagnostic), so a caller can bound the step evaluation's
    /// memory (`eval --steps --context 100` keeps a context per distinct run of calls:
    /// about 120 times the trace file, uncounted before).
    pub fn add(&mut self, r: &Record) -> usize {
        let tk = self.tk;
        let (g, params) = match self.target(r) {
            Ok(t) => t,
            Err(bytes) => return bytes,
        };
        self.count_group(g, params);
        let Some(calls) = &r.calls else {
            self.groups[g as usize].unordered += 1;
            return 0;
        };
        let targets: Vec<u32> = calls
            .iter()
            .map(|c| tool_named(tk, c).map_or(UNKNOWN, |ix| ix.index() as u32))
            .collect();
        let (available, mut bytes) = self.available(r.available.as_deref());
        let mut ctx = Context {
            group: g,
            threshold: params.threshold.to_bits(),
            hops: params.hops,
            tools: FIRST,
            available,
        };
        if let Some(&first) = targets.first() {
            bytes += self.count_step(ctx, first);
        }
        let k = self.opts.context.max(1);
        for i in 1..targets.len() {
            self.buf.clear();
            let from = i.saturating_sub(k);
            self.buf.extend(
                targets[from..i]
                    .iter()
                    .filter(|&&t| t != UNKNOWN)
                    .map(|&t| NodeIndex::new(t as usize)),
            );
            self.buf.sort_unstable();
            self.buf.dedup();
            let (tools, new) = self.tool_sets.id(&self.buf);
            ctx.tools = tools;
            bytes += new + self.count_step(ctx, targets[i]);
        }
        bytes
    }

    /// Counts one step of `ctx` to `target`; returns the bytes this newly kept.
    fn count_step(&mut self, ctx: Context, target: u32) -> usize {
        let mut bytes = 0;
        let targets = self.contexts.entry(ctx).or_insert_with(|| {
            bytes += CONTEXT_BYTES;
            Targets::default()
        });
        *targets.entry(target).or_insert_with(|| {
            bytes += TARGET_BYTES;
            0
        }) += 1;
        bytes
    }

    /// The record's group and parameters; when it names no operator, a TS082 warning
    /// counted and the bytes that newly kept. Operator records are looked up once per operator name (a million-step
    /// file names a handful of operators).
    fn target(&mut self, r: &Record) -> Result<(u32, Params), usize> {
        let known = match (&r.target, r.threshold, r.hops) {
            (super::Target::Operator(name), None, None) => self.by_operator.get(name.as_str()),
            _ => None,
        };
        if let Some(&(g, params)) = known {
            return Ok((g, params));
        }
        let (group, seeds, params) = match target_of(self.tk, r, &self.eval_opts) {
            Ok(t) => t,
            Err(msg) => return Err(self.unresolved.push(r, msg)),
        };
        let g = self.group(group, seeds);
        if let (super::Target::Operator(name), None, None) = (&r.target, r.threshold, r.hops) {
            self.by_operator.insert(name.clone(), (g, params));
        }
        Ok((g, params))
    }

    fn group(&mut self, name: String, seeds: Vec<NodeIndex>) -> u32 {
        match self.group_ids.get(&name) {
            Some(&id) => id,
            None => {
                let id = self.groups.len() as u32;
                self.group_ids.insert(name.clone(), id);
                self.groups.push(Group {
                    name,
                    seeds,
                    ..Group::default()
                });
                id
            }
        }
    }

    /// Counts a record of group `id` at `params`.
    fn count_group(&mut self, id: u32, params: Params) {
        let g = &mut self.groups[id as usize];
        g.records += 1;
        let p = (params.threshold.to_bits(), params.hops);
        g.params = match g.params {
            None => Some(Some(p)),
            Some(Some(q)) if q == p => Some(Some(p)),
            _ => Some(None),
        };
    }

    /// The id of a record's available set: its tools, and each group with its members
    /// (`[]` is nothing available, SPEC 8; absent is every tool), a name listed n times
    /// held n times (it was sent n times: the baseline counts each, as the Chat2Graph
    /// recorder lists a tool Chat2Graph sends twice); and the bytes a new set costs.
    fn available(&mut self, names: Option<&[String]>) -> (u32, usize) {
        let Some(names) = names else {
            return (ALL, 0);
        };
        available_tools(self.tk, names, &mut self.buf);
        if self.buf.len() < names.len() {
            let mut listed: Vec<NodeIndex> = names
                .iter()
                .filter_map(|n| tool_named(self.tk, n))
                .collect();
            listed.sort_unstable();
            // Each name's listings after its first, kept sorted with the rest so that
            // membership stays a binary search.
            for (i, &x) in listed.iter().enumerate() {
                if i > 0 && listed[i - 1] == x {
                    self.buf.push(x);
                }
            }
            self.buf.sort_unstable();
        }
        self.available_sets.id(&self.buf)
    }

    /// Evaluates the steps folded in.
    pub fn finish(self, cost: &dyn TokenCost) -> StepReport {
        let never = AtomicBool::new(false);
        Finisher::new(&self, cost)
            .run(&self, &never)
            .unwrap_or_else(|| unreachable!("a walk never stopped stops"))
    }

    /// [`StepCounter::finish`] for a job off the UI thread: `None` once `stop` is set
    /// (checked before each set of context tools is walked, so a huge record's many
    /// contexts do not hold a cancelled job).
    pub fn finish_within(self, cost: &dyn TokenCost, stop: &AtomicBool) -> Option<StepReport> {
        Finisher::new(&self, cost).run(&self, stop)
    }
}

/// Every tool of the toolkit: the tools, and the groups standing in for unknown members.
fn every_tool(tk: &Toolkit) -> Vec<NodeIndex> {
    let mut out: Vec<NodeIndex> = tk.nodes_of(NodeKind::Tool).collect();
    out.extend(
        tk.nodes_of(NodeKind::Group)
            .filter(|&g| members(tk, g).next().is_none()),
    );
    out.sort_unstable();
    out
}

/// An offer by critical value, highest first: (value, tools, their tokens).
type Histogram = Vec<(f64, u64, u64)>;

/// A group's sums while finishing.
#[derive(Default)]
struct GroupSums {
    at: Sums,
    first: Sums,
    base: Sums,
    first_base: Sums,
    unknown: u64,
    first_unknown: u64,
    sweep: Vec<SweepTally>,
    /// The first calls over every threshold, by hop count (the second figure of a point).
    first_sweep: Vec<SweepTally>,
}

/// The evaluation of the counted contexts.
struct Finisher<'c> {
    tk: &'c Toolkit,
    cost: &'c dyn TokenCost,
    /// Token cost by node index, looked up once.
    tokens: Vec<Option<u64>>,
    /// Membership of each available set (and its token sum), by set id.
    available: Vec<(Vec<NodeIndex>, u64)>,
    every: (Vec<NodeIndex>, u64),
    sweep_hops: Option<u32>,
    sums: Vec<GroupSums>,
    overall: GroupSums,
    /// Critical values of the current seed set at each hop count, by node index.
    value: Vec<Vec<f64>>,
    /// For a Chat2Graph config, its actions' places in the chains by node index
    /// (`Toolkit::places_by_index`): the offer's counts are then the functions sent.
    places: Option<Vec<u32>>,
}

impl<'c> Finisher<'c> {
    fn new(c: &StepCounter<'c>, cost: &'c dyn TokenCost) -> Finisher<'c> {
        let tk = c.tk;
        let bound = tk.graph.node_bound();
        let mut f = Finisher {
            tk,
            cost,
            tokens: vec![None; bound],
            available: Vec::new(),
            every: (Vec::new(), 0),
            sweep_hops: None,
            sums: Vec::new(),
            overall: GroupSums::default(),
            value: Vec::new(),
            places: tk.places_by_index(),
        };
        let every = every_tool(tk);
        let every_tokens = f.total(&every);
        f.every = (every, every_tokens);
        f.available = c
            .available_sets
            .sets
            .iter()
            .map(|s| (s.clone(), f.total(s)))
            .collect();
        if c.opts.sweep {
            let top = c
                .opts
                .hops
                .unwrap_or_else(|| c.contexts.keys().map(|k| k.hops).max().unwrap_or(0));
            f.sweep_hops = Some(top.saturating_add(2));
        }
        let tallies = || match f.sweep_hops {
            Some(h) => (0..=h).map(|_| SweepTally::default()).collect(),
            None => Vec::new(),
        };
        f.sums = c
            .groups
            .iter()
            .map(|_| GroupSums {
                sweep: tallies(),
                first_sweep: tallies(),
                ..GroupSums::default()
            })
            .collect();
        f.overall.sweep = tallies();
        f.overall.first_sweep = tallies();
        f
    }

    fn tool_tokens(&mut self, ix: NodeIndex) -> u64 {
        if let Some(Some(n)) = self.tokens.get(ix.index()) {
            return *n;
        }
        let n = self.cost.tool_tokens(ix);
        if let Some(slot) = self.tokens.get_mut(ix.index()) {
            *slot = Some(n);
        }
        n
    }

    fn total(&mut self, set: &[NodeIndex]) -> u64 {
        set.iter().map(|&ix| self.tool_tokens(ix)).sum()
    }

    fn run(mut self, c: &StepCounter<'c>, stop: &AtomicBool) -> Option<StepReport> {
        let tk = self.tk;
        // Contexts by their tool set, so each seed set is walked once.
        let mut by_tools: Vec<(&Context, &Targets)> = c.contexts.iter().collect();
        by_tools.sort_by_key(|(k, _)| (k.tools, k.available, k.group, k.hops, k.threshold));
        let adj = Adjacency::new(tk);
        let mut reach = reach::Reach::new(tk.graph.node_bound());
        let callers = callers(tk);
        for block in by_tools.chunk_by(|a, b| a.0.tools == b.0.tools) {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let tools = block[0].0.tools;
            if tools == FIRST {
                for &(k, t) in block {
                    self.first_calls(c, k, t);
                }
                self.sweep_first_calls(c, &adj, &mut reach, block);
                continue;
            }
            let seeds = seeds_of(&c.tool_sets.sets[tools as usize], |t| {
                callers.get(t.index()).into_iter().flatten().copied()
            });
            let top = block.iter().map(|(k, _)| k.hops).max().unwrap_or(0);
            let top = top.max(self.sweep_hops.unwrap_or(0));
            let (snaps, sent) = match &self.places {
                Some(places) => reach.snapshots_sent(tk, &adj, &seeds, top, places),
                None => (reach.snapshots(tk, &adj, &seeds, top), Vec::new()),
            };
            self.fill(&snaps);
            // The offers of this seed set cut to each available set, once for all its
            // contexts (groups and parameters).
            for same in block.chunk_by(|a, b| a.0.available == b.0.available) {
                let hists = self.hists(&snaps, &sent, same[0].0.available);
                for &(k, t) in same {
                    self.steps(k, t, &hists);
                }
            }
            self.clear(&snaps);
        }
        Some(self.report(c))
    }

    /// The first calls over every threshold and hop count, as the steps are swept: each
    /// group's operator seeds walked once (with the sweep on), their offers tallied into
    /// `first_sweep`.
    fn sweep_first_calls(
        &mut self,
        c: &StepCounter<'c>,
        adj: &Adjacency,
        reach: &mut reach::Reach,
        block: &[(&Context, &Targets)],
    ) {
        let Some(top) = self.sweep_hops else {
            return;
        };
        let tk = self.tk;
        let mut block = block.to_vec();
        block.sort_by_key(|(k, _)| (k.group, k.available));
        for group in block.chunk_by(|a, b| a.0.group == b.0.group) {
            let seeds = &c.groups[group[0].0.group as usize].seeds;
            let (snaps, sent) = match &self.places {
                Some(places) => reach.snapshots_sent(tk, adj, seeds, top, places),
                None => (reach.snapshots(tk, adj, seeds, top), Vec::new()),
            };
            self.fill(&snaps);
            for same in group.chunk_by(|a, b| a.0.available == b.0.available) {
                let hists = self.hists(&snaps, &sent, same[0].0.available);
                for &(k, t) in same {
                    let n: u64 = t.values().sum();
                    for hop in 0..=top {
                        self.sweep_into(k, t, n, hop, &hists[hop as usize], true);
                    }
                }
            }
            self.clear(&snaps);
        }
    }

    /// Each hop count's offer cut to the available set `id` (see [`Finisher::histogram`]).
    fn hists(
        &mut self,
        snaps: &[Vec<reach::Valued>],
        sent: &[Vec<crate::recommend::sent::Sent>],
        id: u32,
    ) -> Vec<Histogram> {
        // A Chat2Graph config counts each function sent; otherwise a tool once.
        if self.places.is_some() {
            sent.iter()
                .map(|s| self.histogram(s.iter().copied(), id))
                .collect()
        } else {
            snaps
                .iter()
                .map(|snap| self.histogram(snap.iter().map(|&(x, v)| (v, x, 1)), id))
                .collect()
        }
    }

    /// One hop count's offer cut to the available set `id`: per distinct critical value,
    /// highest first, how many copies of tools have it and their tokens. `offer` lists
    /// (value, tool, copies): 1 copy a tool, or the functions a Chat2Graph config sends.
    fn histogram(
        &mut self,
        offer: impl Iterator<Item = crate::recommend::sent::Sent>,
        id: u32,
    ) -> Histogram {
        let mut by_value: FastMap<u64, (u64, u64)> = FastMap::default();
        for (v, x, n) in offer {
            if self.is_available(id, x) {
                let tokens = self.tool_tokens(x);
                let e = by_value.entry(v.to_bits()).or_default();
                e.0 += u64::from(n);
                e.1 += u64::from(n) * tokens;
            }
        }
        let mut out: Histogram = by_value
            .into_iter()
            .map(|(v, (n, t))| (f64::from_bits(v), n, t))
            .collect();
        out.sort_by(|a, b| b.0.total_cmp(&a.0));
        out
    }

    /// The dense values of each hop's snapshot (read by [`Finisher::steps`]).
    fn fill(&mut self, snaps: &[Vec<reach::Valued>]) {
        let bound = self.tk.graph.node_bound();
        while self.value.len() < snaps.len() {
            self.value.push(vec![f64::NEG_INFINITY; bound]);
        }
        for (h, snap) in snaps.iter().enumerate() {
            for &(x, v) in snap {
                self.value[h][x.index()] = v;
            }
        }
    }

    fn clear(&mut self, snaps: &[Vec<reach::Valued>]) {
        for (h, snap) in snaps.iter().enumerate() {
            for &(x, _) in snap {
                self.value[h][x.index()] = f64::NEG_INFINITY;
            }
        }
    }

    /// Whether `x` is in the available set `id`.
    fn is_available(&self, id: u32, x: NodeIndex) -> bool {
        id == ALL || self.available[id as usize].0.binary_search(&x).is_ok()
    }

    fn base_tokens(&self, id: u32) -> (u64, u64) {
        let (set, tokens) = if id == ALL {
            &self.every
        } else {
            &self.available[id as usize]
        };
        (set.len() as u64, *tokens)
    }

    /// One context's steps tallied: at the offer (`offered` tools and `tokens` per step; a
    /// target hits when `offers` says so) and at the baseline of everything available,
    /// with how many targets were unknown.
    fn tally(
        &self,
        available: u32,
        targets: &Targets,
        (offered, tokens): (u64, u64),
        (base_n, base_tokens): (u64, u64),
        offers: impl Fn(NodeIndex) -> bool,
    ) -> (Sums, Sums, u64) {
        let n: u64 = targets.values().sum();
        let mut at = Sums {
            steps: n,
            offered: n * offered,
            tokens: n * tokens,
            ..Sums::default()
        };
        let mut base = Sums {
            steps: n,
            offered: n * base_n,
            tokens: n * base_tokens,
            ..Sums::default()
        };
        let mut unknown = 0;
        for (&target, &m) in targets {
            if target == UNKNOWN {
                unknown += m;
                continue;
            }
            let x = NodeIndex::new(target as usize);
            if self.is_available(available, x) {
                base.hits += m;
                if offers(x) {
                    at.hits += m;
                }
            }
        }
        (at, base, unknown)
    }

    /// The steps of one context, with the critical values of its seeds filled in and its
    /// offer per hop count (`hists`).
    fn steps(&mut self, k: &Context, targets: &Targets, hists: &[Histogram]) {
        let n: u64 = targets.values().sum();
        let t = f64::from_bits(k.threshold);
        let (base_n, base_tokens) = self.base_tokens(k.available);
        let h = k.hops as usize;
        let (offered, tokens) = hists[h]
            .iter()
            .take_while(|e| e.0 >= t)
            .fold((0, 0), |acc, e| (acc.0 + e.1, acc.1 + e.2));
        let value = &self.value[h];
        let (at, base, unknown) = self.tally(
            k.available,
            targets,
            (offered, tokens),
            (base_n, base_tokens),
            |x| value[x.index()] >= t,
        );
        let g = &mut self.sums[k.group as usize];
        g.at.add(&at);
        g.base.add(&base);
        g.unknown += unknown;
        if let Some(top) = self.sweep_hops {
            for hop in 0..=top {
                self.sweep_into(k, targets, n, hop, &hists[hop as usize], false);
            }
        }
    }

    /// Adds one context's offers at every threshold, at `hop` hops, to its group's and the
    /// overall tallies: the steps', or with `first` the first calls'.
    fn sweep_into(
        &mut self,
        k: &Context,
        targets: &Targets,
        n: u64,
        hop: u32,
        hist: &Histogram,
        first: bool,
    ) {
        let h = hop as usize;
        for &(v, tools, tokens) in hist {
            for t in self.tallies(k.group, h, first) {
                t.offer(v, n * tools, n * tokens);
            }
        }
        for (&target, &m) in targets {
            if target == UNKNOWN {
                continue;
            }
            let x = NodeIndex::new(target as usize);
            let v = self.value[h][x.index()];
            if v > f64::NEG_INFINITY && self.is_available(k.available, x) {
                for t in self.tallies(k.group, h, first) {
                    t.hit(v, m);
                }
            }
        }
    }

    /// A group's tally at `h` hops and the overall one: the steps', or the first calls'.
    fn tallies(&mut self, group: u32, h: usize, first: bool) -> [&mut SweepTally; 2] {
        let (g, o) = (&mut self.sums[group as usize], &mut self.overall);
        match first {
            true => [&mut g.first_sweep[h], &mut o.first_sweep[h]],
            false => [&mut g.sweep[h], &mut o.sweep[h]],
        }
    }

    /// The first calls of a context's records, offered from the operator's seeds.
    fn first_calls(&mut self, c: &StepCounter<'c>, k: &Context, targets: &Targets) {
        let seeds = &c.groups[k.group as usize].seeds;
        let params = Params {
            threshold: f64::from_bits(k.threshold),
            hops: k.hops,
        };
        let rec = recommend(self.tk, seeds, params);
        let offer: Vec<NodeIndex> = rec
            .tools
            .iter()
            .copied()
            .filter(|&x| self.is_available(k.available, x))
            .collect();
        let (base_n, base_tokens) = self.base_tokens(k.available);
        let (mut sent, mut offer_tokens) = (0, 0);
        for &x in &offer {
            let n = u64::from(self.tk.copies_sent(x, &rec.actions, params.threshold));
            sent += n;
            offer_tokens += n * self.tool_tokens(x);
        }
        let (at, base, unknown) = self.tally(
            k.available,
            targets,
            (sent, offer_tokens),
            (base_n, base_tokens),
            |x| offer.contains(&x),
        );
        let g = &mut self.sums[k.group as usize];
        g.first.add(&at);
        g.first_base.add(&base);
        g.first_unknown += unknown;
    }

    fn report(mut self, c: &StepCounter<'c>) -> StepReport {
        let opts = &c.opts;
        let mut order: Vec<usize> = (0..c.groups.len()).collect();
        order.sort_by(|&a, &b| c.groups[a].name.cmp(&c.groups[b].name));
        let mut overall = Group {
            name: "overall".into(),
            ..Group::default()
        };
        let mut operators = Vec::with_capacity(order.len());
        for i in order {
            let g = &c.groups[i];
            let sums = std::mem::take(&mut self.sums[i]);
            add_group(&mut self.overall, &sums);
            overall.records += g.records;
            overall.unordered += g.unordered;
            overall.params = match (overall.params, g.params) {
                (None, p) => p,
                (Some(Some(a)), Some(Some(b))) if a == b => Some(Some(a)),
                _ => Some(None),
            };
            operators.push(group_report(g, sums, opts));
        }
        let overall_sums = std::mem::take(&mut self.overall);
        StepReport {
            context: opts.context.max(1),
            target_recall: opts.target_recall,
            budget: opts.budget,
            operators,
            overall: group_report(&overall, overall_sums, opts),
        }
    }
}

/// Adds a group's sums (not its sweep, which the overall tallies already hold).
fn add_group(to: &mut GroupSums, g: &GroupSums) {
    to.at.add(&g.at);
    to.first.add(&g.first);
    to.base.add(&g.base);
    to.first_base.add(&g.first_base);
    to.unknown += g.unknown;
    to.first_unknown += g.first_unknown;
}

fn group_report(g: &Group, sums: GroupSums, opts: &StepOptions) -> StepGroup {
    let common = g.params.flatten();
    let sweep = (!sums.sweep.is_empty()).then(|| {
        sums.sweep
            .iter()
            .zip(&sums.first_sweep)
            .enumerate()
            .flat_map(|(h, (t, first))| {
                let mut points = t.points(h as u32, sums.at.steps, sums.base.tokens);
                first.fill_first(&mut points, sums.first.steps);
                points
            })
            .collect::<Vec<_>>()
    });
    let suggested = sweep
        .as_deref()
        .and_then(|p| suggest(p, opts.target_recall));
    let best = sweep.as_deref().and_then(|p| best_within(p, opts.budget));
    StepGroup {
        operator: g.name.clone(),
        threshold: common.map(|p| f64::from_bits(p.0)),
        hops: common.map(|p| p.1),
        records: g.records,
        unordered: g.unordered,
        stats: stats(&sums.at, &sums.base, sums.unknown),
        first: stats(&sums.first, &sums.first_base, sums.first_unknown),
        sweep,
        suggested,
        best,
    }
}

fn stats(at: &Sums, base: &Sums, unknown: u64) -> StepStats {
    let mean = |x: u64| (at.steps > 0).then(|| x as f64 / at.steps as f64);
    StepStats {
        steps: at.steps,
        hits: at.hits,
        recall: mean(at.hits),
        offered_tools: mean(at.offered),
        tokens: mean(at.tokens),
        token_ratio: if at.steps > 0 {
            ratio(at.tokens, base.tokens)
        } else {
            None
        },
        baseline: Baseline {
            recall: mean(base.hits),
            offered_tools: mean(base.offered),
            tokens: mean(base.tokens),
        },
        unknown_targets: unknown,
    }
}

/// The actions calling each tool-like node, by node index.
fn callers(tk: &Toolkit) -> Vec<Vec<NodeIndex>> {
    let mut out = vec![Vec::new(); tk.graph.node_bound()];
    for x in tk.graph.node_indices() {
        out[x.index()].extend(calling(tk, x));
    }
    out
}

/// The actions with a `Call` edge to `x`.
fn calling(tk: &Toolkit, x: NodeIndex) -> impl Iterator<Item = NodeIndex> + '_ {
    tk.in_edges(x)
        .filter(move |&(e, a)| tk.graph[e].kind == EdgeKind::Call && tk.kind(a) == NodeKind::Action)
        .map(|(_, a)| a)
}

/// The seeds of a step: the actions calling any of its context tools (`callers` gives a
/// tool's: a table for a whole evaluation, the tool's in-edges for one step).
fn seeds_of<I: IntoIterator<Item = NodeIndex>>(
    tools: &[NodeIndex],
    callers: impl Fn(NodeIndex) -> I,
) -> Vec<NodeIndex> {
    let mut seeds: Vec<NodeIndex> = tools.iter().flat_map(|&t| callers(t)).collect();
    seeds.sort_unstable();
    seeds.dedup();
    seeds
}

#[cfg(test)]
mod replay_tests;
#[cfg(test)]
mod search_tests;
#[cfg(test)]
mod tests;
