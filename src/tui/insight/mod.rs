//! Tuning insight kept by the TUI: critical values and the sweep, the fewest hops, the
//! explanation of the selected node, the pinned baseline and its diff, and the tool filters
//! stage. Everything is computed when its inputs change (never per frame):
//!
//! - the flat adjacency, critical values and sweep when the graph, a score, the seeds or
//!   the hops change (not the threshold);
//! - the fewest-hops counts when the threshold changes too;
//! - the explanation, baseline diff and offered tools after any of that or a new selection.
//!
//! The last few critical values and sweeps are kept by what they were computed for, so
//! seeds put back (a replay stepping back) find theirs without walking the graph again.
//!
//! A fingerprint of the structure and every score decides "the graph changed", so edits and
//! reloads made elsewhere need not tell this module anything: the app's recompute suffices.

pub(crate) mod commands;
pub mod diff_panel;
pub(crate) mod preview;
pub mod sweep_chart;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::PathBuf;

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::NodeIndexable;

use toolscope_core::diff::{Baseline, RecDiff, StructuralDiff, structural_diff};
use toolscope_core::model::Toolkit;
use toolscope_core::recommend::{
    Adjacency, Critical, Explanation, HopCounts, Insight, Params, Recommendation, Sweep,
    ToolFilters, explain_with, offered_tools,
};

/// A baseline: a pinned result of this toolkit, or another toolkit file.
#[derive(Debug, Clone)]
pub struct Pinned {
    pub baseline: Baseline,
    /// Set when the baseline is another file: its path, and its structural diff to the
    /// current toolkit (recomputed when the current toolkit changes).
    pub file: Option<BaselineFile>,
}

/// Another toolkit pinned as the baseline (`:baseline FILE`).
#[derive(Debug, Clone)]
pub struct BaselineFile {
    pub path: PathBuf,
    pub toolkit: Toolkit,
    pub structural: StructuralDiff,
}

/// How a node or edge changed against the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Entered,
    Left,
}

/// The baseline diff by index of the current toolkit, for marking the graph.
#[derive(Debug, Clone, Default)]
pub struct DiffMarks {
    pub nodes: HashMap<NodeIndex, Change>,
    pub edges: HashMap<EdgeIndex, Change>,
}

impl DiffMarks {
    fn of(tk: &Toolkit, d: &RecDiff) -> DiffMarks {
        let mut m = DiffMarks::default();
        m.nodes
            .extend(d.entered_in(tk).into_iter().map(|ix| (ix, Change::Entered)));
        m.nodes
            .extend(d.left_in(tk).into_iter().map(|ix| (ix, Change::Left)));
        m.edges.extend(
            d.edges_entered_in(tk)
                .into_iter()
                .map(|e| (e, Change::Entered)),
        );
        m.edges
            .extend(d.edges_left_in(tk).into_iter().map(|e| (e, Change::Left)));
        m
    }

    pub fn node(&self, ix: NodeIndex) -> Option<Change> {
        self.nodes.get(&ix).copied()
    }

    pub fn edge(&self, e: EdgeIndex) -> Option<Change> {
        self.edges.get(&e).copied()
    }
}

/// What the TUI knows beyond the recommendation itself.
#[derive(Default)]
pub struct InsightState {
    adjacency: Option<Adjacency>,
    /// (graph fingerprint, seeds, hops) the critical values were computed for.
    key: Option<(u64, Vec<NodeIndex>, u32)>,
    pub insight: Option<Insight>,
    pub sweep: Option<Sweep>,
    /// The explanation of the selected node.
    pub explanation: Option<Explanation>,
    pub pinned: Option<Pinned>,
    /// The recommendation diff against [`InsightState::pinned`].
    pub diff: Option<RecDiff>,
    /// [`InsightState::diff`] by index, for the graph's marks.
    pub marks: DiffMarks,
    /// The filters stage is applied (counts, marks and the prompt preview).
    pub filters_on: bool,
    pub filters: ToolFilters,
    /// Recommended tools after the filters stage, sorted by name.
    pub offered: Vec<NodeIndex>,
    /// The prompt preview's lines, made when it opens (it is modal, so nothing changes
    /// under it).
    pub preview: Vec<String>,
    /// The preview's token estimate, counted as `toolscope recommend` counts it (the
    /// tools' function definitions, each copy Chat2Graph sends), made when it opens.
    pub preview_tokens: u64,
    /// Built on the first preview: its vocabulary takes a moment to load.
    pub tokenizer: Option<toolscope_core::tokens::Tokenizer>,
    /// Fingerprint the baseline file's structural diff was computed against.
    structural_key: u64,
    /// Insights computed before the current one (the newest first, at most [`KEPT`]): a
    /// replay stepping back to the step just left, or seeds put back, takes its insight
    /// from here instead of walking the graph again.
    earlier: Vec<Kept>,
}

/// Earlier insights kept (see [`InsightState::earlier`]).
const KEPT: usize = 3;

/// An insight with what it was computed for.
struct Kept {
    key: (u64, Vec<NodeIndex>, u32),
    insight: Insight,
    sweep: Option<Sweep>,
}

impl InsightState {
    /// Brings everything up to date with the toolkit, seeds, parameters, recommendation and
    /// selection. Cheap when only the threshold or the selection changed.
    pub fn refresh(
        &mut self,
        tk: &Toolkit,
        seeds: &[NodeIndex],
        params: Params,
        rec: &Recommendation,
        selected: Option<NodeIndex>,
    ) {
        let fp = fingerprint(tk);
        let key = (fp, seeds.to_vec(), params.hops);
        if self.key.as_ref().map(|k| k.0) != Some(fp) {
            self.adjacency = None;
            self.earlier.clear();
        }
        let stale = self.key.as_ref() != Some(&key);
        if stale {
            self.keep_earlier(&key);
        }
        let adj = self.adjacency.get_or_insert_with(|| Adjacency::new(tk));
        let hops_stale = self
            .insight
            .as_ref()
            .is_none_or(|i| i.hops_needed.threshold() != params.threshold);
        if self.insight.is_none() {
            let critical = Critical::compute_in(tk, adj, seeds, params.hops);
            self.sweep = Some(critical.sweep(tk));
            let hops_needed = HopCounts::compute_in(tk, adj, seeds, params.threshold);
            self.insight = Some(Insight {
                critical,
                hops_needed,
            });
            self.key = Some(key);
        } else if hops_stale && let Some(i) = self.insight.as_mut() {
            i.hops_needed = HopCounts::compute_in(tk, adj, seeds, params.threshold);
        }
        self.explanation = match (&self.insight, selected) {
            (Some(ins), Some(ix)) => explain_with(tk, adj, seeds, params, ins, ix),
            _ => None,
        };
        self.offered = offered_tools(tk, rec, &self.filters);
        self.refresh_diff(tk, rec, params, fp);
    }

    /// The seeds or hops changed to `key`: the current insight joins the earlier ones, and
    /// an earlier one computed for `key` becomes current (its fewest hops are brought up
    /// to the threshold by the caller, as after a threshold change).
    fn keep_earlier(&mut self, key: &(u64, Vec<NodeIndex>, u32)) {
        let found = self.earlier.iter().position(|k| &k.key == key);
        let found = found.map(|i| self.earlier.remove(i));
        if let (Some(k), Some(insight)) = (self.key.take(), self.insight.take()) {
            let sweep = self.sweep.take();
            self.earlier.insert(
                0,
                Kept {
                    key: k,
                    insight,
                    sweep,
                },
            );
            self.earlier.truncate(KEPT);
        }
        if let Some(k) = found {
            self.key = Some(k.key);
            self.insight = Some(k.insight);
            self.sweep = k.sweep;
        }
    }

    /// The kept explanation of `node`, when it was made for exactly these seeds and
    /// parameters (the replay's panel explains the called tool, which the step selects:
    /// computing it again would cost the key press a second walk of the graph).
    pub fn explained(
        &self,
        seeds: &[NodeIndex],
        params: Params,
        node: NodeIndex,
    ) -> Option<&Explanation> {
        let for_seeds = self.key.as_ref().is_some_and(|k| k.1 == seeds);
        self.explanation
            .as_ref()
            .filter(|e| for_seeds && e.node == node && e.params == params)
    }

    /// Only the explanation, for a new selection.
    pub fn reselect(
        &mut self,
        tk: &Toolkit,
        seeds: &[NodeIndex],
        params: Params,
        selected: Option<NodeIndex>,
    ) {
        let adj = self.adjacency.get_or_insert_with(|| Adjacency::new(tk));
        self.explanation = match (&self.insight, selected) {
            (Some(ins), Some(ix)) => explain_with(tk, adj, seeds, params, ins, ix),
            _ => None,
        };
    }

    fn refresh_diff(&mut self, tk: &Toolkit, rec: &Recommendation, params: Params, fp: u64) {
        let Some(p) = self.pinned.as_mut() else {
            self.diff = None;
            self.marks = DiffMarks::default();
            return;
        };
        if let Some(f) = p.file.as_mut()
            && self.structural_key != fp
        {
            f.structural = structural_diff(&f.toolkit, tk);
            self.structural_key = fp;
        }
        let d = p.baseline.compare(tk, rec, params);
        self.marks = DiffMarks::of(tk, &d);
        self.diff = Some(d);
    }

    /// Pins the current result as the baseline.
    pub fn pin(&mut self, tk: &Toolkit, rec: &Recommendation, params: Params) {
        self.pinned = Some(Pinned {
            baseline: Baseline::pin(tk, rec, params),
            file: None,
        });
        let d = self.pinned_compare(tk, rec, params);
        self.marks = DiffMarks::of(tk, &d);
        self.diff = Some(d);
    }

    /// Pins another toolkit: its recommendation for the same seed names and parameters.
    pub fn pin_file(
        &mut self,
        path: PathBuf,
        other: Toolkit,
        tk: &Toolkit,
        seeds: &[NodeIndex],
        params: Params,
    ) {
        let names: Vec<&str> = seeds.iter().map(|&s| tk.name(s)).collect();
        let (other_seeds, _) = toolscope_core::recommend::resolve_seeds(&other, &names);
        let other_rec = toolscope_core::recommend::recommend(&other, &other_seeds, params);
        let baseline = Baseline::pin(&other, &other_rec, params);
        let structural = structural_diff(&other, tk);
        self.structural_key = fingerprint(tk);
        self.pinned = Some(Pinned {
            baseline,
            file: Some(BaselineFile {
                path,
                toolkit: other,
                structural,
            }),
        });
    }

    fn pinned_compare(&self, tk: &Toolkit, rec: &Recommendation, params: Params) -> RecDiff {
        match &self.pinned {
            Some(p) => p.baseline.compare(tk, rec, params),
            None => Baseline::pin(tk, rec, params).compare(tk, rec, params),
        }
    }

    /// Clears the baseline.
    pub fn unpin(&mut self) {
        self.pinned = None;
        self.diff = None;
        self.marks = DiffMarks::default();
    }

    /// The tools the model is offered: after the filters stage when it is on.
    pub fn shown_tools<'a>(&'a self, rec: &'a Recommendation) -> &'a [NodeIndex] {
        if self.filters_on {
            &self.offered
        } else {
            &rec.tools
        }
    }

    /// Whether `name` is a forced tool choice.
    pub fn is_chosen(&self, name: &str) -> bool {
        self.filters.chosen.iter().any(|c| c == name)
    }

    /// Adds or removes a forced tool choice.
    pub fn toggle_chosen(&mut self, name: &str) {
        match self.filters.chosen.iter().position(|c| c == name) {
            Some(i) => {
                self.filters.chosen.remove(i);
            }
            None => self.filters.chosen.push(name.to_string()),
        }
    }
}

/// A hash of the graph's structure and every edge score: equal fingerprints mean the
/// critical values computed before are still right. One multiply-xor per word over the
/// edges (names are left out: they never change in place), so it costs far less than the
/// critical values themselves and can run on every recompute.
pub fn fingerprint(tk: &Toolkit) -> u64 {
    let g = &tk.graph;
    let mut h = Fold(0);
    h.add(g.node_bound() as u64);
    h.add(g.node_count() as u64);
    for e in g.edge_indices() {
        if let Some((u, v)) = g.edge_endpoints(e) {
            h.add((e.index() as u64) << 32 ^ u.index() as u64);
            h.add(v.index() as u64);
            h.add(g[e].score.to_bits());
        }
    }
    h.0
}

/// FxHash-style word folding: fast, good enough to detect a change (not adversarial).
struct Fold(u64);

impl Fold {
    fn add(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}
