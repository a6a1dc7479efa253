//! Graph operations of Chat2Graph's `ToolkitService` and `Toolkit`: adding actions, tools and
//! groups with their edges, induced subgraphs, merging, and the one-way cascading delete.

use std::collections::BTreeSet;

use petgraph::stable_graph::NodeIndex;

use super::{EdgeKind, Node, NodeKind, Toolkit};

impl Toolkit {
    /// Adds an action with `Next` edges to `next` and from `prev` (Chat2Graph `add_action`).
    /// Neighbours that are not actions in the graph are skipped, as Chat2Graph skips them.
    pub fn add_action(
        &mut self,
        action: Node,
        next: &[(&str, f64)],
        prev: &[(&str, f64)],
    ) -> NodeIndex {
        debug_assert_eq!(action.kind, NodeKind::Action);
        let a = self.add_node(action);
        for (name, score) in next {
            if let Some(n) = self.action(name) {
                self.add_edge(a, n, *score, None);
                self.set_score(a, n, *score);
            }
        }
        for (name, score) in prev {
            if let Some(p) = self.action(name) {
                self.add_edge(p, a, *score, None);
                self.set_score(p, a, *score);
            }
        }
        a
    }

    /// Adds a tool called by `callers` (Chat2Graph `add_tool`). Returns `None`, leaving the
    /// graph unchanged, when no caller exists: Chat2Graph warns and drops such a tool.
    pub fn add_tool(&mut self, tool: Node, callers: &[(&str, f64)]) -> Option<NodeIndex> {
        let existing = self.find(tool.kind, &tool.name);
        let t = self.add_node(tool);
        let mut connected = false;
        for (name, score) in callers {
            if let Some(a) = self.action(name) {
                self.add_edge(a, t, *score, None);
                self.set_score(a, t, *score);
                connected = true;
            }
        }
        if !connected && existing.is_none() {
            self.remove_node(t);
            return None;
        }
        Some(t)
    }

    /// Adds a group with member tools: `Has` edges at 1.0, and `Call` edges from each caller
    /// to every member (Chat2Graph `add_tool_group`). A group without members is called
    /// directly, standing in for its unknown tools.
    pub fn add_tool_group(
        &mut self,
        group: Node,
        members: Vec<Node>,
        callers: &[(&str, f64)],
    ) -> NodeIndex {
        let g = self.add_node(group);
        if members.is_empty() {
            for (name, score) in callers {
                if let Some(a) = self.action(name) {
                    self.add_edge(a, g, *score, None);
                    self.set_score(a, g, *score);
                }
            }
        }
        for member in members {
            let t = self.add_node(member);
            self.add_edge(g, t, 1.0, None);
            for (name, score) in callers {
                if let Some(a) = self.action(name) {
                    self.add_edge(a, t, *score, None);
                    self.set_score(a, t, *score);
                }
            }
        }
        g
    }

    /// The subgraph induced on `nodes` (Chat2Graph `subgraph`). Operators and files are kept.
    pub fn subgraph(&self, nodes: &[NodeIndex]) -> Toolkit {
        let keep: BTreeSet<NodeIndex> = nodes.iter().copied().collect();
        let mut graph = self.graph.clone();
        graph.retain_nodes(|_, ix| keep.contains(&ix));
        let mut sub = Toolkit {
            name: self.name.clone(),
            graph,
            operators: self.operators.clone(),
            files: self.files.clone(),
            ..Toolkit::default()
        };
        sub.reindex();
        sub
    }

    /// Union of nodes and edges (Chat2Graph `update`). Existing nodes keep their data
    /// (except that a node only referred to so far takes the declaration), existing edges
    /// keep their score, existing operators win. Origins are re-based onto `self.files`.
    pub fn merge(&mut self, other: &Toolkit) {
        let base = self.files.len() as u32;
        self.files.extend(other.files.iter().cloned());
        for s in &other.mcp_cached {
            let mut s = s.clone();
            s.origin.file += base;
            self.mcp_cached.push(s);
        }
        if let Some(places) = &other.chain_places {
            let mine = self.chain_places.get_or_insert_with(Default::default);
            for (a, n) in places {
                mine.entry(a.clone()).or_insert(*n);
            }
        }
        let rebase = |o: Option<super::Origin>| {
            o.map(|mut o| {
                o.file += base;
                o
            })
        };
        let mut map = std::collections::HashMap::new();
        for ix in other.graph.node_indices() {
            let mut node = other.graph[ix].clone();
            node.origin = rebase(node.origin);
            let target = match self.find(node.kind, &node.name) {
                Some(existing) => {
                    if self.graph[existing].implicit && !node.implicit {
                        self.graph[existing] = node;
                    }
                    existing
                }
                None => self.add_node(node),
            };
            map.insert(ix, target);
        }
        for e in other.graph.edge_indices() {
            let Some((u, v)) = other.graph.edge_endpoints(e) else {
                continue;
            };
            let edge = &other.graph[e];
            if self.edge(map[&u], map[&v]).is_none() {
                self.add_edge(map[&u], map[&v], edge.score, rebase(edge.origin));
            }
        }
        // A set, not a scan per operator: merging many operators stays linear.
        let mut names: std::collections::HashSet<String> =
            self.operators.iter().map(|o| o.name.clone()).collect();
        for op in &other.operators {
            if names.insert(op.name.clone()) {
                let mut op = op.clone();
                op.origin = rebase(op.origin);
                self.operators.push(op);
            }
        }
        if self.name.is_none() {
            self.name.clone_from(&other.name);
        }
    }

    /// What [`Toolkit::remove`] would remove, without removing it: the node first, then the
    /// cascade, as indices.
    pub fn cascade(&self, ix: NodeIndex) -> Vec<NodeIndex> {
        let mut out = vec![ix];
        match self.kind(ix) {
            NodeKind::Action => {
                // Tools (and member-less groups standing in for tools) called only by it.
                let called: Vec<NodeIndex> = self
                    .out_edges(ix)
                    .filter(|(e, _)| self.graph[*e].kind == EdgeKind::Call)
                    .map(|(_, t)| t)
                    .collect();
                for t in called {
                    let only_caller = self
                        .in_edges(t)
                        .filter(|(e, _)| self.graph[*e].kind == EdgeKind::Call)
                        .all(|(_, a)| a == ix);
                    if only_caller && !out.contains(&t) {
                        out.push(t);
                        if self.kind(t) == NodeKind::Tool {
                            self.push_lonely_groups(t, &mut out);
                        }
                    }
                }
            }
            NodeKind::Group => {
                for (e, t) in self.out_edges(ix) {
                    if self.graph[e].kind == EdgeKind::Has && !out.contains(&t) {
                        out.push(t);
                    }
                }
            }
            NodeKind::Tool => self.push_lonely_groups(ix, &mut out),
        }
        out
    }

    /// Groups whose only member is `tool`.
    fn push_lonely_groups(&self, tool: NodeIndex, out: &mut Vec<NodeIndex>) {
        for (e, g) in self.in_edges(tool) {
            if self.graph[e].kind != EdgeKind::Has || out.contains(&g) {
                continue;
            }
            let members = self
                .out_edges(g)
                .filter(|(e, _)| self.graph[*e].kind == EdgeKind::Has)
                .count();
            if members == 1 {
                out.push(g);
            }
        }
    }

    /// Chat2Graph's one-way cascading delete. Returns the removed nodes, the named one first.
    pub fn remove(&mut self, ix: NodeIndex) -> Vec<Node> {
        self.cascade(ix)
            .into_iter()
            .filter_map(|n| self.remove_node(n))
            .collect()
    }

    /// Compares two toolkits by names, kinds, properties, edges with scores and operators;
    /// positions are ignored. Returns the first difference found, for messages.
    pub fn difference(&self, other: &Toolkit) -> Option<String> {
        let nodes = |t: &Toolkit| {
            let mut v: Vec<(NodeKind, String)> = t
                .graph
                .node_indices()
                .map(|ix| (t.kind(ix), t.name(ix).to_string()))
                .collect();
            v.sort();
            v
        };
        let (a, b) = (nodes(self), nodes(other));
        if a != b {
            let missing = a.iter().find(|n| !b.contains(n));
            let extra = b.iter().find(|n| !a.contains(n));
            return Some(match (missing, extra) {
                (Some((k, n)), _) => format!("{} `{n}` is missing", k.as_str()),
                (_, Some((k, n))) => format!("unexpected {} `{n}`", k.as_str()),
                _ => "node lists differ".into(),
            });
        }
        for ix in self.graph.node_indices() {
            let n = &self.graph[ix];
            let Some(o) = other.find(n.kind, &n.name) else {
                continue;
            };
            let m = &other.graph[o];
            if n.desc != m.desc {
                return Some(format!("description of `{}` differs", n.name));
            }
            if n.meta != m.meta {
                return Some(format!("properties of tool `{}` differ", n.name));
            }
        }
        let edges = |t: &Toolkit| {
            let mut v: Vec<(String, NodeKind, String, NodeKind, EdgeKind, u64)> = t
                .graph
                .edge_indices()
                .filter_map(|e| {
                    let (u, w) = t.graph.edge_endpoints(e)?;
                    let edge = &t.graph[e];
                    Some((
                        t.name(u).to_string(),
                        t.kind(u),
                        t.name(w).to_string(),
                        t.kind(w),
                        edge.kind,
                        edge.score.to_bits(),
                    ))
                })
                .collect();
            v.sort();
            v
        };
        let (a, b) = (edges(self), edges(other));
        if a != b {
            let missing = a.iter().find(|e| !b.contains(e));
            let extra = b.iter().find(|e| !a.contains(e));
            return Some(match (missing, extra) {
                (Some(e), _) => format!(
                    "edge {} -> {} (score {}) is missing or differs",
                    e.0,
                    e.2,
                    f64::from_bits(e.5)
                ),
                (_, Some(e)) => format!(
                    "unexpected edge {} -> {} (score {})",
                    e.0,
                    e.2,
                    f64::from_bits(e.5)
                ),
                _ => "edge lists differ".into(),
            });
        }
        let ops = |t: &Toolkit| {
            let mut v: Vec<(String, Vec<String>, u64, u32)> = t
                .operators
                .iter()
                .map(|o| {
                    (
                        o.name.clone(),
                        o.actions.clone(),
                        o.threshold.to_bits(),
                        o.hops,
                    )
                })
                .collect();
            v.sort();
            v
        };
        if ops(self) != ops(other) {
            return Some("operators differ".into());
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn action(name: &str) -> Node {
        Node::new(NodeKind::Action, name)
    }

    fn tool(name: &str) -> Node {
        Node::new(NodeKind::Tool, name)
    }

    fn small() -> Toolkit {
        let mut tk = Toolkit::new();
        tk.add_action(action("a1"), &[], &[]);
        tk.add_action(action("a2"), &[], &[("a1", 0.8)]);
        tk.add_action(action("a3"), &[("a1", 0.3)], &[("a2", 0.7)]);
        tk.add_tool(tool("t1"), &[("a1", 0.9)]);
        tk.add_tool(tool("shared"), &[("a1", 0.5), ("a2", 0.6)]);
        tk
    }

    #[test]
    fn scores_default_to_one_and_can_be_set() {
        let mut tk = small();
        let (a1, a2, a3) = (
            tk.action("a1").unwrap(),
            tk.action("a2").unwrap(),
            tk.action("a3").unwrap(),
        );
        assert_eq!(tk.get_score(a1, a2), 0.8);
        assert_eq!(tk.get_score(a3, a1), 0.3);
        assert_eq!(tk.get_score(a2, a1), 1.0, "absent edge scores 1.0");
        assert!(tk.set_score(a1, a2, 0.25));
        assert_eq!(tk.get_score(a1, a2), 0.25);
        assert!(!tk.set_score(a2, a1, 0.5));
    }

    #[test]
    fn tool_without_callers_is_dropped() {
        let mut tk = small();
        assert!(tk.add_tool(tool("orphan"), &[("nobody", 1.0)]).is_none());
        assert!(tk.find(NodeKind::Tool, "orphan").is_none());
    }

    #[test]
    fn group_adds_has_and_call_edges_to_members() {
        let mut tk = small();
        let g = tk.add_tool_group(
            Node::new(NodeKind::Group, "browser"),
            vec![tool("nav"), tool("click")],
            &[("a3", 0.4)],
        );
        let a3 = tk.action("a3").unwrap();
        let nav = tk.find(NodeKind::Tool, "nav").unwrap();
        assert_eq!(tk.graph[tk.edge(g, nav).unwrap()].kind, EdgeKind::Has);
        assert_eq!(tk.get_score(g, nav), 1.0);
        assert_eq!(tk.get_score(a3, nav), 0.4);
        assert!(
            tk.edge(a3, g).is_none(),
            "members known: no call to the group"
        );
        let empty = tk.add_tool_group(Node::new(NodeKind::Group, "remote"), vec![], &[("a1", 0.7)]);
        assert_eq!(tk.get_score(tk.action("a1").unwrap(), empty), 0.7);
    }

    #[test]
    fn subgraph_is_induced() {
        let tk = small();
        let nodes = vec![tk.action("a1").unwrap(), tk.action("a3").unwrap()];
        let sub = tk.subgraph(&nodes);
        assert_eq!(sub.graph.node_count(), 2);
        assert_eq!(sub.graph.edge_count(), 1);
        let (a3, a1) = (sub.action("a3").unwrap(), sub.action("a1").unwrap());
        assert_eq!(sub.get_score(a3, a1), 0.3);
    }

    #[test]
    fn merge_keeps_existing_scores_and_adds_new_edges() {
        let mut a = small();
        let mut b = Toolkit::new();
        b.add_action(action("a1"), &[], &[]);
        b.add_action(action("a2"), &[], &[("a1", 0.1)]);
        b.add_action(action("a9"), &[], &[("a2", 0.9)]);
        a.merge(&b);
        let (a1, a2, a9) = (
            a.action("a1").unwrap(),
            a.action("a2").unwrap(),
            a.action("a9").unwrap(),
        );
        assert_eq!(a.get_score(a1, a2), 0.8, "existing edge keeps its score");
        assert_eq!(a.get_score(a2, a9), 0.9);
        assert!(a.edge(a2, a9).is_some());
    }

    #[test]
    fn removing_an_action_takes_tools_only_it_calls() {
        let mut tk = small();
        let removed: Vec<String> = tk
            .remove(tk.action("a1").unwrap())
            .into_iter()
            .map(|n| n.name)
            .collect();
        assert_eq!(removed, vec!["a1", "t1"]);
        assert!(
            tk.find(NodeKind::Tool, "shared").is_some(),
            "a2 still calls it"
        );
        assert!(tk.action("a1").is_none());
    }

    #[test]
    fn removing_a_group_takes_its_tools_and_a_lone_tool_takes_its_group() {
        let mut tk = small();
        tk.add_tool_group(
            Node::new(NodeKind::Group, "g"),
            vec![tool("x"), tool("y")],
            &[("a1", 1.0)],
        );
        tk.add_tool_group(
            Node::new(NodeKind::Group, "solo"),
            vec![tool("z")],
            &[("a2", 1.0)],
        );
        let g = tk.find(NodeKind::Group, "g").unwrap();
        let names: Vec<String> = tk.remove(g).into_iter().map(|n| n.name).collect();
        let got: BTreeSet<&str> = names.iter().map(String::as_str).collect();
        assert_eq!(got, BTreeSet::from(["g", "x", "y"]));
        assert_eq!(names[0], "g");
        assert!(tk.find(NodeKind::Tool, "x").is_none());
        let z = tk.find(NodeKind::Tool, "z").unwrap();
        let names: Vec<String> = tk.remove(z).into_iter().map(|n| n.name).collect();
        assert_eq!(names, vec!["z", "solo"]);
        // One way: removing a tool never removes the actions calling it.
        assert!(tk.action("a2").is_some());
    }

    #[test]
    fn difference_names_what_differs() {
        let a = small();
        let mut b = small();
        assert_eq!(a.difference(&b), None);
        let (a1, a2) = (b.action("a1").unwrap(), b.action("a2").unwrap());
        b.set_score(a1, a2, 0.5);
        assert!(a.difference(&b).unwrap().contains("a1 -> a2"));
    }
}

#[cfg(test)]
mod edge_lookup_tests {
    use super::*;

    /// `edge` walks both ends in lockstep: it must find an edge whichever end has the
    /// longer list, and report absence exactly.
    #[test]
    fn edge_is_found_from_either_end() {
        let mut tk = Toolkit::new();
        let hub = tk.add_node(Node::new(NodeKind::Action, "hub"));
        let sink = tk.add_node(Node::new(NodeKind::Tool, "sink"));
        let mut tools = Vec::new();
        for i in 0..50 {
            let t = tk.add_node(Node::new(NodeKind::Tool, format!("t{i}")));
            tk.add_edge(hub, t, 0.5, None);
            tools.push(t);
        }
        for i in 0..50 {
            let a = tk.add_node(Node::new(NodeKind::Action, format!("a{i}")));
            tk.add_edge(a, sink, 0.5, None);
        }
        for &t in &tools {
            let e = tk.edge(hub, t).expect("hub -> t");
            assert_eq!(tk.graph.edge_endpoints(e), Some((hub, t)));
        }
        let last = tk.action("a49").expect("a49");
        assert!(tk.edge(last, sink).is_some());
        assert!(tk.edge(hub, sink).is_none());
        assert!(tk.edge(tools[0], hub).is_none());
        tk.add_edge(hub, sink, 0.2, None);
        assert_eq!(tk.get_score(hub, sink), 0.2);
        assert_eq!(tk.graph.edge_count(), 101, "no duplicate from add_edge");
        tk.add_edge(hub, sink, 0.9, None);
        assert_eq!(tk.graph.edge_count(), 101);
    }

    /// Every pair's answer, against petgraph's own search.
    fn agrees(tk: &Toolkit, nodes: &[NodeIndex]) -> usize {
        let mut joined = 0;
        for &u in nodes {
            for &v in nodes {
                let want = tk.graph.find_edge(u, v);
                assert_eq!(tk.edge(u, v), want, "{} -> {}", tk.name(u), tk.name(v));
                joined += usize::from(want.is_some());
            }
        }
        joined
    }

    /// Between well-connected nodes `edge` answers from the pair index: it must stay exact
    /// after removals (whose edge indices petgraph hands out again, to other pairs), after
    /// additions, in a clone changed apart from its original, and after a reindex.
    #[test]
    fn edge_between_well_connected_nodes_stays_exact() {
        let mut tk = Toolkit::new();
        let n = 3 * super::super::pairs::WALK;
        let acts: Vec<NodeIndex> = (0..n)
            .map(|i| tk.add_node(Node::new(NodeKind::Action, format!("a{i}"))))
            .collect();
        // Every pair but those whose indices sum to a multiple of 7.
        for (i, &u) in acts.iter().enumerate() {
            for (j, &v) in acts.iter().enumerate() {
                if (i + j) % 7 != 0 {
                    tk.add_edge(u, v, 0.5, None);
                }
            }
        }
        let all = tk.graph.edge_count();
        assert_eq!(agrees(&tk, &acts), all);
        // Remove some edges, then add the missing pairs: the new edges take the freed
        // indices, which the index still has under the removed pairs.
        let removed: Vec<(NodeIndex, NodeIndex)> = acts
            .iter()
            .zip(acts.iter().skip(5))
            .map(|(&u, &v)| (u, v))
            .filter(|&(u, v)| tk.edge(u, v).is_some())
            .collect();
        for &(u, v) in &removed {
            let e = tk.edge(u, v).expect("joined");
            tk.graph.remove_edge(e);
        }
        assert_eq!(agrees(&tk, &acts), all - removed.len());
        let mut added = 0;
        for (i, &u) in acts.iter().enumerate() {
            for (j, &v) in acts.iter().enumerate() {
                if (i + j) % 7 == 0 && i % 2 == 0 {
                    tk.add_edge(u, v, 0.1, None);
                    added += 1;
                }
            }
        }
        assert_eq!(agrees(&tk, &acts), all - removed.len() + added);
        // A clone shares the index until it adds an edge; the original must not see it.
        let mut copy = tk.clone();
        let (u, v) = removed[0];
        copy.add_edge(u, v, 0.3, None);
        assert_eq!(copy.get_score(u, v), 0.3);
        assert!(tk.edge(u, v).is_none());
        assert_eq!(agrees(&copy, &acts), all - removed.len() + added + 1);
        tk.reindex();
        assert_eq!(agrees(&tk, &acts), all - removed.len() + added);
    }
}
