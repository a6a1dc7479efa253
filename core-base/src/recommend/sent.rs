//! The functions the model is sent at every threshold at once, for Chat2Graph configs
//! (where a tool goes out once per recommended caller and per place of that caller in the
//! `toolkit:` chains, [`Toolkit::copies_sent`](crate::model::Toolkit::copies_sent)).
//!
//! A `Call` edge from action `a` to tool `x` sends `places(a)` functions at every threshold
//! `t` with `a` recommended and the edge's score `>= t`, that is up to the smaller of
//! `a`'s critical value and the score. So each edge is one [`Sent`] entry, and the
//! functions at `t` are the sum over entries whose value is `>= t`: the sweeps add
//! entries as the threshold descends, as they add tools by their critical values.

use petgraph::stable_graph::NodeIndex;

use super::adjacency::OutEdges;

/// One `Call` edge's functions: the highest threshold at which they are sent, the tool,
/// and how many.
pub type Sent = (f64, NodeIndex, u32);

/// The [`Sent`] entries of the `Call` edges out of `actions` (each with its critical
/// value), into `out`, with `places` as
/// [`Toolkit::places_by_index`](crate::model::Toolkit::places_by_index) gives them.
/// Entries no threshold reaches are left out.
pub fn sent_from(
    g: &impl OutEdges,
    actions: impl IntoIterator<Item = (NodeIndex, f64)>,
    places: &[u32],
    out: &mut Vec<Sent>,
) {
    for (a, va) in actions {
        if va == f64::NEG_INFINITY {
            continue;
        }
        let n = places.get(a.index()).copied().unwrap_or(1);
        g.for_calls(a, |x, score, _| {
            let v = va.min(score);
            if v > f64::NEG_INFINITY {
                out.push((v, x, n));
            }
        });
    }
}
