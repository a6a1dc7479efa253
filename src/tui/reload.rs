//! Swapping in a new toolkit (a reload, or a toolkit rebuilt by an edit) while keeping the
//! user's context: seeds, the active operator, parameters, the selection and the viewport
//! carry over wherever their nodes (matched by kind and name) still exist.

use petgraph::stable_graph::NodeIndex;

use crate::model::{NodeKind, Toolkit};
use crate::source::Loaded;

use super::app::App;

fn key(tk: &Toolkit, ix: NodeIndex) -> (NodeKind, String) {
    (tk.kind(ix), tk.name(ix).to_string())
}

impl App {
    /// Replaces the toolkit and files; returns how many seeds were dropped because their
    /// action no longer exists. What is dropped is remembered by name and restored by a
    /// later replace in which the names exist again, unless the user chose another
    /// operator or selection meanwhile.
    pub fn replace(&mut self, loaded: Loaded) -> usize {
        let old = std::mem::replace(&mut self.tk, loaded.toolkit);
        self.evidence.graph_changed();
        self.files = loaded.files;
        let kept = std::mem::take(&mut self.kept);
        let find = |tk: &Toolkit, (kind, name): &(NodeKind, String)| tk.find(*kind, name);
        // What the user had: the names kept from an earlier replace, else the current ones.
        let wanted_seeds: Vec<(NodeKind, String)> = if kept.seeds.is_empty() {
            self.seeds.iter().map(|&s| key(&old, s)).collect()
        } else {
            kept.seeds
        };
        let seeds: Vec<NodeIndex> = wanted_seeds
            .iter()
            .filter_map(|k| find(&self.tk, k))
            .collect();
        let dropped = wanted_seeds.len() - seeds.len();
        self.seeds = seeds;
        if dropped > 0 {
            self.kept.seeds = wanted_seeds;
        }
        let op_name = kept.operator.or_else(|| {
            self.operator
                .and_then(|i| old.operators.get(i))
                .map(|o| o.name.clone())
        });
        self.operator = op_name
            .as_ref()
            .and_then(|n| self.tk.operators.iter().position(|o| &o.name == n));
        if self.operator.is_none() {
            self.kept.operator = op_name;
        }
        let wanted_sel = kept
            .selected
            .or_else(|| self.selected.map(|s| key(&old, s)));
        self.selected = wanted_sel.as_ref().and_then(|k| find(&self.tk, k));
        if self.selected.is_none() {
            self.kept.selected = wanted_sel;
        }
        let centre = self
            .neighbourhood
            .as_ref()
            .and_then(|n| find(&self.tk, &key(&old, n.centre)));
        match centre {
            Some(c) => {
                if let Some(n) = self.neighbourhood.as_mut() {
                    n.centre = c;
                }
            }
            None => self.neighbourhood = None,
        }
        self.nav.rebuild(&self.tk);
        if let Some(ix) = self.selected {
            self.nav.point_at(ix);
        }
        self.refresh_layout();
        self.recompute();
        dropped
    }
}

#[cfg(test)]
mod tests {
    use crate::model::NodeKind;
    use crate::source::{EXAMPLE_NAME, load_example};
    use crate::tui::app::App;
    use crate::tui::theme::Theme;

    #[test]
    fn replace_keeps_context_by_name() {
        let mut app = App::new(
            load_example(),
            EXAMPLE_NAME.into(),
            Theme::default(),
            (160, 48),
        );
        let qd = app.tk.action("query_design").expect("action");
        app.select(qd);
        app.params.threshold = 0.3;
        let view = app.view;
        let mut next = load_example();
        // Remove a seed's action and rebuild: indices shift, names stay.
        let gone = next
            .toolkit
            .action("content_understanding")
            .expect("action");
        next.toolkit.remove_node(gone);
        let dropped = app.replace(next);
        assert_eq!(dropped, 1);
        assert!(app.seeds.is_empty());
        assert_eq!(app.params.threshold, 0.3);
        assert_eq!(app.view, view);
        let sel = app.selected.expect("selection kept");
        assert_eq!(
            (app.tk.kind(sel), app.tk.name(sel)),
            (NodeKind::Action, "query_design")
        );
        assert_eq!(
            app.tk.operators[app.operator.expect("operator kept")].name,
            "modelling"
        );
    }
}
