//! Box shapes: the corners tell the kind (action square, tool round, group double), the
//! line weight tells the state (heavy recommended, thin normal, dashed left out), so both
//! read without colour, in Unicode and in ASCII. One-line boxes (compact views) keep the
//! kind in their end caps and the state in the marker.

use toolscope_core::model::NodeKind;

/// How a box relates to the recommendation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Part of the recommendation.
    Member,
    /// Neither recommended nor in the focus view's frontier.
    Normal,
    /// Left out: on the focus view's frontier, or left since the last fit.
    Out,
}

/// Corners and sides: tl, tr, bl, br, horizontal, vertical.
pub type BoxSet = [&'static str; 6];

/// The box for a kind in a state.
pub fn box_set(ascii: bool, kind: NodeKind, state: State) -> BoxSet {
    let corners: [&str; 4] = match (ascii, kind) {
        (false, NodeKind::Action) => match state {
            State::Member => ["┏", "┓", "┗", "┛"],
            _ => ["┌", "┐", "└", "┘"],
        },
        (false, NodeKind::Tool) => ["╭", "╮", "╰", "╯"],
        (false, NodeKind::Group) => match state {
            State::Member => ["╔", "╗", "╚", "╝"],
            _ => ["╒", "╕", "╘", "╛"],
        },
        (true, NodeKind::Action) => match state {
            State::Member => ["#", "#", "#", "#"],
            _ => ["+", "+", "+", "+"],
        },
        (true, NodeKind::Tool) => ["(", ")", "(", ")"],
        (true, NodeKind::Group) => ["@", "@", "@", "@"],
    };
    let (h, v) = match (ascii, kind, state) {
        (false, NodeKind::Group, State::Member) => ("═", "║"),
        (false, NodeKind::Group, State::Normal) => ("═", "│"),
        (false, _, State::Member) => ("━", "┃"),
        (false, _, State::Normal) => ("─", "│"),
        (false, _, State::Out) => ("╌", "╎"),
        (true, _, State::Member) => ("=", "#"),
        (true, _, State::Normal) => ("-", "|"),
        (true, _, State::Out) => (".", ":"),
    };
    [corners[0], corners[1], corners[2], corners[3], h, v]
}

/// End caps of a one-line box.
pub fn caps(ascii: bool, kind: NodeKind, state: State) -> (&'static str, &'static str) {
    match (kind, ascii, state) {
        (NodeKind::Tool, _, _) => ("(", ")"),
        (NodeKind::Group, _, _) => ("[", "]"),
        (NodeKind::Action, false, State::Member) => ("┃", "┃"),
        (NodeKind::Action, false, State::Normal) => ("│", "│"),
        (NodeKind::Action, false, State::Out) => ("╎", "╎"),
        (NodeKind::Action, true, State::Member) => ("#", "#"),
        (NodeKind::Action, true, State::Normal) => ("|", "|"),
        (NodeKind::Action, true, State::Out) => (":", ":"),
    }
}

/// The marker before a name: `*` seed, `+` recommended, `-` left out, space otherwise
/// (the live-reload `~` is decided by the caller).
pub fn marker(seed: bool, state: State) -> char {
    match (seed, state) {
        (true, _) => '*',
        (false, State::Member) => '+',
        (false, State::Out) => '-',
        (false, State::Normal) => ' ',
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KINDS: [NodeKind; 3] = [NodeKind::Action, NodeKind::Tool, NodeKind::Group];
    const STATES: [State; 3] = [State::Member, State::Normal, State::Out];

    /// Every (kind, state) pair draws a different box, and the kind alone is told by the
    /// top-left corner, in Unicode and in ASCII.
    #[test]
    fn kinds_and_states_read_without_colour() {
        for ascii in [false, true] {
            let mut seen = std::collections::HashSet::new();
            for k in KINDS {
                for s in STATES {
                    assert!(seen.insert(box_set(ascii, k, s)), "{k:?} {s:?} {ascii}");
                }
            }
            for s in STATES {
                for t in STATES {
                    for (i, a) in KINDS.iter().enumerate() {
                        for b in &KINDS[i + 1..] {
                            assert_ne!(box_set(ascii, *a, s)[0], box_set(ascii, *b, t)[0]);
                            assert_ne!(caps(ascii, *a, s), caps(ascii, *b, t));
                        }
                    }
                }
            }
        }
    }
}
