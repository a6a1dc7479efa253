//! Every step of every record, one entry each (`eval --steps --per-step`, SPEC 8): what
//! seeded it, what was offered (cut to the record's `available`) and whether the call
//! made next was among it. Step 0 is a record's first call, offered from its operator's
//! seeds; step N is its call N, seeded by the actions calling the `context` calls before.
//!
//! A tool Chat2Graph sends several times ([`Toolkit::copies_sent`]) is listed that many
//! times in `offered`, as a run's `available` lists it.
//!
//! Each offer is the recommendation itself ([`recommend`]), looked up once per distinct
//! seed set and parameters; the entries and the offers remembered are counted in bytes
//! ([`PerStepCounter::add`] returns them) so the trace memory limit bounds them. They are
//! counted as they are built, entry by entry: a record stops adding entries as soon as
//! what it kept passes the room left under the limit (one record of a few thousand calls
//! on a kit offering thousands of tools per step would otherwise build gigabytes before
//! its count was seen). The output is written entry by entry ([`entry_json`]), never as
//! one tree.

use std::collections::HashMap;

use petgraph::stable_graph::NodeIndex;

use super::super::Record;
use super::super::resolve::{EvalOptions, target_of, tool_named};
use super::{callers, members, seeds_of};
use crate::model::{NodeKind, Toolkit};
use crate::recommend::recommend;

/// One step of one record.
#[derive(Debug, Clone, PartialEq)]
pub struct PerStep {
    /// The record's number from 1 over all records loaded (before any operator filter).
    pub record: u64,
    pub id: Option<String>,
    /// The record's call this step is about, counting from 0.
    pub step: usize,
    /// The previous calls that seeded it, oldest first (`[]` for step 0).
    pub after: Vec<String>,
    pub next: String,
    /// The tools offered, cut to what the record had available, by name (in node order),
    /// each once per function sent.
    pub offered: Vec<String>,
    pub hit: bool,
    /// What the record says the run had available (its names as written), `None` when
    /// it does not say.
    pub available: Option<Vec<String>>,
}

/// Offers remembered, by seed set and parameters: each tool with the functions sent.
type Offers = HashMap<(Vec<NodeIndex>, u64, u32), Vec<(NodeIndex, u32)>>;

/// Builds the per-step entries record by record.
pub struct PerStepCounter<'a> {
    tk: &'a Toolkit,
    opts: EvalOptions,
    context: usize,
    callers: Vec<Vec<NodeIndex>>,
    offers: Offers,
    entries: Vec<PerStep>,
}

impl<'a> PerStepCounter<'a> {
    /// `threshold` and `hops` win over the record's and the operator's, as in `eval`.
    pub fn new(
        tk: &'a Toolkit,
        threshold: Option<f64>,
        hops: Option<u32>,
        context: usize,
    ) -> PerStepCounter<'a> {
        PerStepCounter {
            tk,
            opts: EvalOptions {
                threshold,
                hops,
                ..EvalOptions::default()
            },
            context: context.max(1),
            callers: callers(tk),
            offers: Offers::default(),
            entries: Vec::new(),
        }
    }

    /// Adds the steps of record number `number`; returns the bytes this kept. A record
    /// naming no operator, or without its calls in order, has no steps. Once what it kept
    /// passes `room` (what the trace memory limit has left), it stops adding entries and
    /// returns what it kept, more than `room`, so the reader stops with its error.
    pub fn add(&mut self, number: u64, r: &Record, room: usize) -> usize {
        let tk = self.tk;
        let Ok((_, op_seeds, params)) = target_of(tk, r, &self.opts) else {
            return 0;
        };
        let Some(calls) = &r.calls else { return 0 };
        let available = r.available.as_deref().map(|names| available_set(tk, names));
        let mut bytes = 0;
        for (i, next) in calls.iter().enumerate() {
            if bytes > room {
                break;
            }
            let from = i.saturating_sub(self.context);
            let after = &calls[from..i];
            let seeds = if i == 0 {
                let mut s = op_seeds.clone();
                s.sort_unstable();
                s.dedup();
                s
            } else {
                let mut tools: Vec<NodeIndex> =
                    after.iter().filter_map(|c| tool_named(tk, c)).collect();
                tools.sort_unstable();
                tools.dedup();
                seeds_of(&tools, |t| {
                    self.callers.get(t.index()).into_iter().flatten().copied()
                })
            };
            let key = (seeds, params.threshold.to_bits(), params.hops);
            if !self.offers.contains_key(&key) {
                let rec = recommend(tk, &key.0, params);
                let tools: Vec<(NodeIndex, u32)> = rec
                    .tools
                    .iter()
                    .map(|&x| (x, tk.copies_sent(x, &rec.actions, params.threshold)))
                    .collect();
                bytes += 2 * key.0.len() * std::mem::size_of::<NodeIndex>()
                    + 2 * tools.len() * std::mem::size_of::<(NodeIndex, u32)>()
                    + 128;
                self.offers.insert(key.clone(), tools);
            }
            let offer: Vec<(NodeIndex, u32)> = self.offers[&key]
                .iter()
                .copied()
                .filter(|(x, _)| {
                    available
                        .as_ref()
                        .is_none_or(|a| a.binary_search(x).is_ok())
                })
                .collect();
            let hit = tool_named(tk, next).is_some_and(|x| offer.iter().any(|o| o.0 == x));
            // Sized before it is built: an entry past the room is not built at all.
            let copies: usize = offer.iter().map(|&(_, n)| n as usize).sum();
            let names: usize = offer
                .iter()
                .map(|&(x, n)| n as usize * heap(tk.name(x).len()))
                .sum();
            let size = 2 * std::mem::size_of::<PerStep>()
                + r.id.as_ref().map_or(0, |s| heap(s.len()))
                + heap(std::mem::size_of_val(after))
                + after.iter().map(|a| heap(a.len())).sum::<usize>()
                + heap(next.len())
                + heap(copies * std::mem::size_of::<String>())
                + names
                + r.available.as_ref().map_or(0, |a| {
                    heap(std::mem::size_of_val(a.as_slice()))
                        + a.iter().map(|n| heap(n.len())).sum::<usize>()
                });
            bytes += size;
            if bytes > room {
                break;
            }
            let mut offered = Vec::with_capacity(copies);
            for &(x, n) in &offer {
                offered.extend(std::iter::repeat_n(tk.name(x).to_string(), n as usize));
            }
            let entry = PerStep {
                record: number,
                id: r.id.clone(),
                step: i,
                after: after.to_vec(),
                next: next.clone(),
                offered,
                hit,
                available: r.available.clone(),
            };
            debug_assert_eq!(size, entry_bytes(&entry));
            self.entries.push(entry);
        }
        bytes
    }

    /// The entries, in record order and step order.
    pub fn finish(self) -> Vec<PerStep> {
        self.entries
    }
}

/// A record's available names as a sorted set of nodes: tools, and a group with its
/// members (names of nothing in the toolkit are left out).
fn available_set(tk: &Toolkit, names: &[String]) -> Vec<NodeIndex> {
    let mut out = Vec::new();
    for n in names {
        if let Some(ix) = tool_named(tk, n) {
            out.push(ix);
            if tk.kind(ix) == NodeKind::Group {
                out.extend(members(tk, ix));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// What a heap block of `len` bytes takes from the allocator: a header and rounding to 16
/// bytes, at least 32 (glibc's malloc); nothing for an empty one. Counted so, 2,000 short
/// tool names per step cost what they take (56 bytes each, not the 34 of their text).
fn heap(len: usize) -> usize {
    if len == 0 {
        0
    } else {
        (len + 8).next_multiple_of(16).max(32)
    }
}

/// What an entry holds: its strings with their allocation, and its slot in the list twice
/// over (the list grows by doubling).
fn entry_bytes(e: &PerStep) -> usize {
    let text = |s: &String| heap(s.len());
    2 * std::mem::size_of::<PerStep>()
        + e.id.as_ref().map_or(0, |s| heap(s.len()))
        + heap(e.after.len() * std::mem::size_of::<String>())
        + e.after.iter().map(text).sum::<usize>()
        + heap(e.next.len())
        + heap(e.offered.len() * std::mem::size_of::<String>())
        + e.offered.iter().map(text).sum::<usize>()
        + e.available.as_ref().map_or(0, |a| {
            heap(a.len() * std::mem::size_of::<String>()) + a.iter().map(text).sum::<usize>()
        })
}

/// The entries as SPEC 8's `per_step` list.
pub fn to_json(entries: &[PerStep]) -> serde_json::Value {
    serde_json::Value::Array(entries.iter().map(entry_json).collect())
}

/// One entry of SPEC 8's `per_step` list (the output writes them one at a time).
pub fn entry_json(e: &PerStep) -> serde_json::Value {
    serde_json::json!({
        "record": e.record,
        "id": e.id,
        "step": e.step,
        "after": e.after,
        "next": e.next,
        "offered": e.offered,
        "hit": e.hit,
        "available": e.available,
    })
}
