//! What the recommendation offers from one seed set at every hop count at once: the tools'
//! critical values (the highest threshold at which each is offered) after 0, 1, ... `h`
//! rounds of the widest-path programme [`Critical`](crate::recommend::Critical) runs.
//!
//! A step evaluation computes this for thousands of seed sets, so the buffers are kept
//! between runs and reset through the lists of what was touched (never a whole-graph fill),
//! and a value after round `k` is the value for `k` hops: one run gives every hop count.

use petgraph::stable_graph::NodeIndex;

use crate::model::Toolkit;
use crate::recommend::critical::seed_actions;
use crate::recommend::sent::{Sent, sent_from};
use crate::recommend::{Adjacency, OutEdges};

/// A tool and its critical value.
pub(crate) type Valued = (NodeIndex, f64);

/// Reusable buffers of the widest-path programme.
pub(crate) struct Reach {
    action: Vec<f64>,
    tool: Vec<f64>,
    actions_seen: Vec<NodeIndex>,
    tools_seen: Vec<NodeIndex>,
    frontier: Vec<(NodeIndex, f64)>,
    changed: Vec<NodeIndex>,
    queued: Vec<bool>,
}

impl Reach {
    pub(crate) fn new(bound: usize) -> Reach {
        Reach {
            action: vec![f64::NEG_INFINITY; bound],
            tool: vec![f64::NEG_INFINITY; bound],
            actions_seen: Vec::new(),
            tools_seen: Vec::new(),
            frontier: Vec::new(),
            changed: Vec::new(),
            queued: vec![false; bound],
        }
    }

    /// `out[h]`: the tools offered at some threshold with `h` hops and their critical
    /// values, for `h` in `0..=hops`.
    pub(crate) fn snapshots(
        &mut self,
        tk: &Toolkit,
        adj: &Adjacency,
        seeds: &[NodeIndex],
        hops: u32,
    ) -> Vec<Vec<Valued>> {
        self.walk(tk, adj, seeds, hops, None)
    }

    /// [`Reach::snapshots`], and for a Chat2Graph config (`places` by action, as
    /// `Toolkit::places_by_index` gives them) the functions sent at each hop count: the
    /// [`Sent`] entries of the `Call` edges of every action reached.
    pub(crate) fn snapshots_sent(
        &mut self,
        tk: &Toolkit,
        adj: &Adjacency,
        seeds: &[NodeIndex],
        hops: u32,
        places: &[u32],
    ) -> (Vec<Vec<Valued>>, Vec<Vec<Sent>>) {
        let mut sent = Vec::with_capacity(hops as usize + 1);
        let tools = self.walk(tk, adj, seeds, hops, Some((places, &mut sent)));
        (tools, sent)
    }

    fn walk(
        &mut self,
        tk: &Toolkit,
        adj: &Adjacency,
        seeds: &[NodeIndex],
        hops: u32,
        mut sent: Option<(&[u32], &mut Vec<Vec<Sent>>)>,
    ) -> Vec<Vec<Valued>> {
        for s in seed_actions(tk, seeds) {
            self.action[s.index()] = f64::INFINITY;
            self.actions_seen.push(s);
            self.frontier.push((s, f64::INFINITY));
        }
        // Round 0's risers are the seeds themselves.
        let mut risers: Vec<NodeIndex> = self.frontier.iter().map(|f| f.0).collect();
        let mut out = Vec::with_capacity(hops as usize + 1);
        for h in 0..=hops {
            if h > 0 {
                risers = self.round(adj);
            }
            for &a in &risers {
                self.relax_calls(adj, a);
            }
            out.push(
                self.tools_seen
                    .iter()
                    .map(|&t| (t, self.tool[t.index()]))
                    .collect(),
            );
            if let Some((places, sent)) = sent.as_mut() {
                let mut now = Vec::new();
                let actions = self
                    .actions_seen
                    .iter()
                    .map(|&a| (a, self.action[a.index()]));
                sent_from(adj, actions, places, &mut now);
                sent.push(now);
            }
        }
        self.reset();
        out
    }

    /// One round over `Next` edges from the frontier; the actions whose value rose.
    fn round(&mut self, adj: &Adjacency) -> Vec<NodeIndex> {
        let Reach {
            action,
            actions_seen,
            frontier,
            changed,
            queued,
            ..
        } = self;
        for &(u, width) in frontier.iter() {
            adj.for_next(u, |v, score, _| {
                let cand = width.min(score);
                if cand > action[v.index()] {
                    if action[v.index()] == f64::NEG_INFINITY {
                        actions_seen.push(v);
                    }
                    action[v.index()] = cand;
                    if !queued[v.index()] {
                        queued[v.index()] = true;
                        changed.push(v);
                    }
                }
            });
        }
        frontier.clear();
        let risers: Vec<NodeIndex> = std::mem::take(changed);
        for &v in &risers {
            queued[v.index()] = false;
            frontier.push((v, action[v.index()]));
        }
        risers
    }

    /// A tool's value is the best over its reached callers of `min(caller, Call score)`;
    /// only a caller whose value rose can raise it.
    fn relax_calls(&mut self, adj: &Adjacency, a: NodeIndex) {
        let width = self.action[a.index()];
        let (tool, seen) = (&mut self.tool, &mut self.tools_seen);
        adj.for_calls(a, |x, score, _| {
            let cand = width.min(score);
            if cand > tool[x.index()] {
                if tool[x.index()] == f64::NEG_INFINITY {
                    seen.push(x);
                }
                tool[x.index()] = cand;
            }
        });
    }

    fn reset(&mut self) {
        for a in self.actions_seen.drain(..) {
            self.action[a.index()] = f64::NEG_INFINITY;
        }
        for t in self.tools_seen.drain(..) {
            self.tool[t.index()] = f64::NEG_INFINITY;
        }
        self.frontier.clear();
    }
}
