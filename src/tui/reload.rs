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
    /// action no longer exists.
    pub fn replace(&mut self, loaded: Loaded) -> usize {
        let old = std::mem::replace(&mut self.tk, loaded.toolkit);
        self.files = loaded.files;
        let find = |tk: &Toolkit, (kind, name): (NodeKind, String)| tk.find(kind, &name);
        let seeds: Vec<NodeIndex> = self
            .seeds
            .iter()
            .filter_map(|&s| find(&self.tk, key(&old, s)))
            .collect();
        let dropped = self.seeds.len() - seeds.len();
        self.seeds = seeds;
        let op_name = self
            .operator
            .and_then(|i| old.operators.get(i))
            .map(|o| o.name.clone());
        self.operator = op_name.and_then(|n| self.tk.operators.iter().position(|o| o.name == n));
        self.selected = self.selected.and_then(|s| find(&self.tk, key(&old, s)));
        let centre = self
            .neighbourhood
            .as_ref()
            .and_then(|n| find(&self.tk, key(&old, n.centre)));
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
