//! Carrying the user's context (seeds, the active operator, the selection, the
//! neighbourhood's centre) across a swap of the toolkit (a reload, or a graph rebuilt by an
//! edit). Nodes are matched by kind and name; what the new graph lacks is kept by name in
//! [`Kept`] and restored by a later swap in which the names exist again (an editor writing a
//! file in two steps, a branch switch), unless the user chose something else meanwhile.
//!
//! Pure: it knows toolkits and indices, not the app; the app's `replace` applies the result.

use petgraph::stable_graph::NodeIndex;

use toolscope_core::model::{NodeKind, Toolkit};

type Name = (NodeKind, String);

/// The user's context by name, held while a swap leaves part of it out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Kept {
    operator: Option<String>,
    seeds: Vec<Name>,
    selected: Option<Name>,
}

/// Where the user is, as indices into one toolkit.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Context {
    pub seeds: Vec<NodeIndex>,
    /// Index into the toolkit's operators.
    pub operator: Option<usize>,
    pub selected: Option<NodeIndex>,
    /// Centre of the neighbourhood view, if one is open.
    pub centre: Option<NodeIndex>,
}

/// A context moved onto a new toolkit.
#[derive(Debug, Clone, PartialEq)]
pub struct Carried {
    pub context: Context,
    /// Seeds left out because their action no longer exists.
    pub dropped: usize,
}

fn name(tk: &Toolkit, ix: NodeIndex) -> Name {
    (tk.kind(ix), tk.name(ix).to_string())
}

fn find(tk: &Toolkit, (kind, name): &Name) -> Option<NodeIndex> {
    tk.find(*kind, name)
}

impl Kept {
    /// Whether part of the context is waiting for its names to come back.
    pub fn waiting(&self) -> bool {
        *self != Kept::default()
    }

    /// Moves `now` (indices into `old`) onto `new`. What was kept from an earlier swap is
    /// wanted first; what `new` lacks is kept for the next swap.
    pub fn carry(&mut self, old: &Toolkit, new: &Toolkit, now: &Context) -> Carried {
        let kept = std::mem::take(self);
        let wanted_seeds: Vec<Name> = if kept.seeds.is_empty() {
            now.seeds.iter().map(|&s| name(old, s)).collect()
        } else {
            kept.seeds
        };
        let seeds: Vec<NodeIndex> = wanted_seeds.iter().filter_map(|k| find(new, k)).collect();
        let dropped = wanted_seeds.len() - seeds.len();
        if dropped > 0 {
            self.seeds = wanted_seeds;
        }

        let wanted_op = kept.operator.or_else(|| {
            now.operator
                .and_then(|i| old.operators.get(i))
                .map(|o| o.name.clone())
        });
        let operator = wanted_op
            .as_ref()
            .and_then(|n| new.operators.iter().position(|o| &o.name == n));
        if operator.is_none() {
            self.operator = wanted_op;
        }

        let wanted_sel = kept.selected.or_else(|| now.selected.map(|s| name(old, s)));
        let selected = wanted_sel.as_ref().and_then(|k| find(new, k));
        if selected.is_none() {
            self.selected = wanted_sel;
        }

        let centre = now.centre.and_then(|c| find(new, &name(old, c)));
        Carried {
            context: Context {
                seeds,
                operator,
                selected,
                centre,
            },
            dropped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolscope_core::load::load_text;
    use toolscope_core::source::Limits;

    const FULL: &str = "\
actions:
  - name: a
    next: [{name: b, score: 0.9}]
  - name: b
tools:
  - {name: t}
operators:
  - {name: op, actions: [a, b]}
";
    /// The first half of an editor's two-step write: `b` and the operator are gone.
    const HALF: &str = "\
actions:
  - name: a
tools:
  - {name: t}
";

    fn tk(text: &str) -> Toolkit {
        let path = std::path::Path::new("kit.yml");
        load_text(path, text.to_string(), None, &Limits::default())
            .expect("fixture parses")
            .toolkit
    }

    fn at(tk: &Toolkit, kind: NodeKind, n: &str) -> NodeIndex {
        tk.find(kind, n).expect("fixture names it")
    }

    #[test]
    fn context_left_out_comes_back_with_its_names() {
        let (full, half) = (tk(FULL), tk(HALF));
        let now = Context {
            seeds: vec![
                at(&full, NodeKind::Action, "a"),
                at(&full, NodeKind::Action, "b"),
            ],
            operator: Some(0),
            selected: Some(at(&full, NodeKind::Action, "b")),
            centre: Some(at(&full, NodeKind::Action, "a")),
        };
        let mut kept = Kept::default();
        let gone = kept.carry(&full, &half, &now);
        assert_eq!(gone.dropped, 1);
        assert_eq!(gone.context.seeds, vec![at(&half, NodeKind::Action, "a")]);
        assert_eq!(gone.context.operator, None);
        assert_eq!(gone.context.selected, None);
        assert_eq!(gone.context.centre, Some(at(&half, NodeKind::Action, "a")));
        assert!(kept.waiting());

        let back = kept.carry(&half, &full, &gone.context);
        assert_eq!(back.dropped, 0);
        assert_eq!(back.context.seeds, now.seeds);
        assert_eq!(back.context.operator, Some(0));
        assert_eq!(back.context.selected, now.selected);
        assert!(!kept.waiting(), "everything came back: nothing is waiting");
    }

    #[test]
    fn a_swap_that_keeps_every_name_keeps_nothing() {
        let full = tk(FULL);
        let now = Context {
            seeds: vec![at(&full, NodeKind::Action, "a")],
            operator: Some(0),
            selected: Some(at(&full, NodeKind::Tool, "t")),
            centre: None,
        };
        let mut kept = Kept::default();
        let same = kept.carry(&full, &tk(FULL), &now);
        assert_eq!(same.context, now);
        assert!(!kept.waiting());
    }
}
