//! Choosing how the focus view fits the terminal: which side panes stay, how tall the
//! boxes are, how much of each name shows and how many rows a column holds.
//!
//! The recommendation must be whole on screen; its frontier is extra. Candidates are tried
//! from the most readable down, in tiers: everything with names of at least [`GOOD`]
//! cells, then the recommendation alone (with as much of its frontier as fits in whole
//! columns beside it; the rest is not drawn, its edges counted under their sources) with
//! such names, then the same two with names cut further. Within a tier the side panes stay if
//! they can, then the inspector goes, then the navigator too (the title says so and `m`
//! brings them back). Each try only measures column widths, so the search is linear in the
//! shown nodes per candidate.

use petgraph::stable_graph::NodeIndex;

use toolscope_core::layout::labels::NARROW;
use toolscope_core::layout::pack::{self, Look};
use toolscope_core::model::Toolkit;

use crate::tui::panes::{Panes, Split};

/// Names at least this wide (or whole) read well enough to keep the side panes for.
const GOOD: usize = 20;

/// No cap: names drawn whole.
pub const WHOLE: usize = 4096;

/// Looks from the most readable to the most compact.
const LOOKS: [Look; 11] = [
    Look {
        box_h: 3,
        cap: WHOLE,
        gap: 6,
        margin: 0,
        row_gap: 1,
    },
    Look {
        box_h: 1,
        cap: WHOLE,
        gap: 6,
        margin: 0,
        row_gap: 1,
    },
    Look {
        box_h: 1,
        cap: WHOLE,
        gap: 4,
        margin: 0,
        row_gap: 1,
    },
    Look {
        box_h: 1,
        cap: 36,
        gap: 4,
        margin: 0,
        row_gap: 1,
    },
    Look {
        box_h: 1,
        cap: 30,
        gap: 4,
        margin: 0,
        row_gap: 1,
    },
    Look {
        box_h: 1,
        cap: 26,
        gap: 4,
        margin: 0,
        row_gap: 1,
    },
    Look {
        box_h: 1,
        cap: 22,
        gap: 4,
        margin: 0,
        row_gap: 1,
    },
    Look {
        box_h: 1,
        cap: GOOD,
        gap: 4,
        margin: 0,
        row_gap: 1,
    },
    Look {
        box_h: 1,
        cap: 16,
        gap: 3,
        margin: 0,
        row_gap: 1,
    },
    Look {
        box_h: 1,
        cap: 14,
        gap: 3,
        margin: 0,
        row_gap: 1,
    },
    Look {
        box_h: 1,
        cap: NARROW,
        gap: 3,
        margin: 0,
        row_gap: 1,
    },
];

/// The chosen fit.
#[derive(Debug, Clone)]
pub struct Choice {
    pub split: Split,
    pub look: Look,
    pub rows: usize,
    /// The nodes in reading order, as packed.
    pub seq: Vec<NodeIndex>,
    /// The whole recommendation is inside the pane.
    pub fits: bool,
}

/// What to fit: the kept nodes and which of them are members.
pub struct Want<'a> {
    pub tk: &'a Toolkit,
    pub keep: &'a [bool],
    pub is_member: &'a dyn Fn(NodeIndex) -> bool,
    pub members: usize,
    /// Where reading starts: the seeds, in the operator's order.
    pub roots: &'a [NodeIndex],
    /// Nodes outside the recommendation drawn even where the frontier is not: the
    /// selection (a replayed miss selects the call it missed, the node that screen is
    /// about) and, in a step drawn as its reasons, the path that would bring it in.
    pub pinned: &'a [NodeIndex],
}

/// The reading orders [`choose`] fits, measured: the same for every try of one layout (the
/// layering and its crossing sweeps are most of a step's layout), so made once.
pub struct Sequences {
    /// Every kept node in reading order.
    all: Vec<NodeIndex>,
    /// The recommendation (and the pinned node) first, the frontier after it.
    first: Vec<NodeIndex>,
    /// How many of `first` must be on screen.
    need_first: usize,
    all_m: pack::Measured,
    first_m: pack::Measured,
}

impl Sequences {
    pub fn of(want: &Want<'_>) -> Sequences {
        let all = pack::sequence(want.tk, want.keep, want.is_member, want.roots, false);
        // A stable sort keeps the reading order within each part.
        let pinned: std::collections::HashSet<NodeIndex> = want
            .pinned
            .iter()
            .copied()
            .filter(|p| want.keep.get(p.index()) == Some(&true) && !(want.is_member)(*p))
            .collect();
        let mut first = all.clone();
        first.sort_by_key(|&ix| !((want.is_member)(ix) || pinned.contains(&ix)));
        let need_first = want.members + pinned.len();
        let (all_m, first_m) = (pack::measure(want.tk, &all), pack::measure(want.tk, &first));
        Sequences {
            all,
            first,
            need_first,
            all_m,
            first_m,
        }
    }
}

/// The side-pane splits to try: the user's, if they chose with `m`, else from all panes
/// shown to none.
pub fn splits(user: Option<bool>) -> Vec<Split> {
    let both = Split {
        hide_nav: true,
        hide_inspector: true,
    };
    match user {
        Some(true) => vec![both],
        Some(false) => vec![Split::default()],
        None => vec![
            Split::default(),
            Split {
                hide_nav: false,
                hide_inspector: true,
            },
            both,
        ],
    }
}

/// The most readable fit of `want` in a terminal of `size` (see the module comment);
/// `roomy`: every look with more room for the edges (after a layout whose edges could not
/// all be routed apart).
pub fn choose(
    want: &Want<'_>,
    seqs: &Sequences,
    size: (u16, u16),
    splits: &[Split],
    roomy: bool,
) -> Choice {
    let looks: Vec<Look> = LOOKS
        .iter()
        .map(|&l| if roomy { l.roomier() } else { l })
        .collect();
    let Sequences {
        all,
        first,
        need_first,
        all_m,
        first_m,
    } = seqs;
    let (all, first, need_first) = (all, first, *need_first);
    let pane = |split: Split| {
        let r = Panes::new(size, split).graph_inner();
        (i32::from(r.width), i32::from(r.height))
    };
    // More members than the largest pane has slots for (one-line boxes at least 6 cells
    // wide and 3 apart): no look fits, so none is measured.
    let most = splits
        .iter()
        .map(|&s| {
            let (w, h) = pane(s);
            LOOKS[LOOKS.len() - 1].rows_in(h) * ((w + 3) / 9).max(1) as usize
        })
        .max()
        .unwrap_or(0);
    let mut tries: Vec<(bool, Split, Look)> = Vec::new();
    if want.members > most {
        return overflow(splits, &looks, pane, first.clone());
    }
    // Names of [`GOOD`] width or whole: keep the side panes if that is enough.
    for whole in [true, false] {
        for &split in splits {
            for &look in looks.iter().filter(|l| l.cap >= GOOD) {
                tries.push((whole, split, look));
            }
        }
    }
    // Names cut further: as little as any split allows.
    for whole in [true, false] {
        for &look in looks.iter().filter(|l| l.cap < GOOD) {
            for &split in splits {
                tries.push((whole, split, look));
            }
        }
    }
    for (whole, split, look) in tries {
        let (seq, measured, need) = if whole {
            (all, all_m, all.len())
        } else {
            (first, first_m, need_first)
        };
        if let Some(rows) = pack::fit_rows(measured, need, pane(split), look) {
            // The recommendation alone fits: of its frontier, only the whole columns that
            // fit beside it are drawn. The rest would lie beyond the pane behind a "more"
            // mark; their edges are counted under their sources (`+N edges`) instead.
            let shown = if whole {
                seq.len()
            } else {
                pack::fitting(measured, rows, pane(split), look).max(need)
            };
            return Choice {
                split,
                look,
                rows,
                seq: seq[..shown].to_vec(),
                fits: true,
            };
        }
    }
    overflow(splits, &looks, pane, first.clone())
}

/// Too much for the pane: the most compact look, the recommendation first; the view marks
/// what lies beyond its edges.
fn overflow(
    splits: &[Split],
    looks: &[Look],
    pane: impl Fn(Split) -> (i32, i32),
    seq: Vec<NodeIndex>,
) -> Choice {
    let split = splits.last().copied().unwrap_or_default();
    let look = looks[looks.len() - 1];
    let rows = look.rows_in(pane(split).1);
    Choice {
        split,
        look,
        rows,
        seq,
        fits: false,
    }
}
