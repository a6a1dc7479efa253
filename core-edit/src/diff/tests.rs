use super::*;
use crate::model::{Node, NodeKind, Operator, Toolkit};
use crate::recommend::{recommend, resolve_seeds};

fn small() -> Toolkit {
    let mut tk = Toolkit::new();
    for a in ["a1", "a2", "a3"] {
        tk.add_action(
            Node::new(NodeKind::Action, a).with_desc(format!("does {a}")),
            &[],
            &[],
        );
    }
    tk.add_action(
        Node::new(NodeKind::Action, "a1"),
        &[("a2", 0.8), ("a3", 0.4)],
        &[],
    );
    tk.add_tool(Node::new(NodeKind::Tool, "t1"), &[("a1", 0.9)]);
    tk.add_tool(Node::new(NodeKind::Tool, "t2"), &[("a2", 0.6)]);
    tk.add_tool(Node::new(NodeKind::Tool, "t3"), &[("a3", 1.0)]);
    tk.operators.push(Operator::new("op", vec!["a1".into()]));
    tk
}

fn names(keys: &[NodeKey]) -> Vec<String> {
    keys.iter()
        .map(|k| format!("{}:{}", k.kind.as_str(), k.name))
        .collect()
}

#[test]
fn identical_toolkits_have_no_diff() {
    assert!(structural_diff(&small(), &small()).is_empty());
    assert!(structural_diff(&small(), &small()).lines().is_empty());
}

#[test]
fn every_kind_of_change_is_found() {
    let old = small();
    let mut new = small();
    let (a1, a2, a3) = (
        new.action("a1").unwrap(),
        new.action("a2").unwrap(),
        new.action("a3").unwrap(),
    );
    new.set_score(a1, a2, 0.5);
    new.node_mut(a2).desc = "changed".into();
    let t2 = new.find(NodeKind::Tool, "t2").unwrap();
    new.node_mut(t2).meta.as_mut().unwrap().enabled = false;
    new.remove(a3);
    new.add_action(Node::new(NodeKind::Action, "a4"), &[], &[("a2", 0.7)]);
    new.operators[0].threshold = 0.7;
    new.operators.push(Operator::new("op2", vec!["a4".into()]));
    let d = structural_diff(&old, &new);
    assert_eq!(names(&d.nodes_added), vec!["action:a4"]);
    assert_eq!(
        names(&d.nodes_removed),
        vec!["action:a3", "tool:t3"],
        "cascade removed t3"
    );
    assert_eq!(d.edges_added.len(), 1);
    assert_eq!(d.edges_added[0].edge.to.name, "a4");
    assert_eq!(d.edges_added[0].score, 0.7);
    assert_eq!(d.edges_removed.len(), 2, "a1 -> a3 and a3 -> t3");
    assert_eq!(d.scores_changed.len(), 1);
    assert_eq!(
        (d.scores_changed[0].old, d.scores_changed[0].new),
        (0.8, 0.5)
    );
    assert_eq!(d.descriptions_changed.len(), 1);
    assert_eq!(d.descriptions_changed[0].new, "changed");
    assert_eq!(d.properties_changed.len(), 1);
    assert_eq!(d.properties_changed[0].fields, vec!["enabled"]);
    let ops: Vec<(bool, bool)> = d
        .operators
        .iter()
        .map(|c| (c.old.is_some(), c.new.is_some()))
        .collect();
    assert_eq!(ops, vec![(true, true), (false, true)]);
    let json = d.to_json();
    assert_eq!(json["edges"]["changed"][0]["old"], 0.8);
    assert_eq!(json["operators"]["added"][0]["name"], "op2");
    assert_eq!(json["operators"]["changed"][0]["new"]["threshold"], 0.7);
    // The reverse diff mirrors it.
    let r = structural_diff(&new, &old);
    assert_eq!(r.nodes_added, d.nodes_removed);
    assert_eq!(r.edges_removed.len(), d.edges_added.len());
}

#[test]
fn baseline_reports_what_entered_and_left() {
    let tk = small();
    let seeds = resolve_seeds(&tk, &["a1"]).0;
    let p0 = Params {
        threshold: 0.5,
        hops: 1,
    };
    let p1 = Params {
        threshold: 0.3,
        hops: 0,
    };
    let base = Baseline::pin(&tk, &recommend(&tk, &seeds, p0), p0);
    let d = base.compare(&tk, &recommend(&tk, &seeds, p1), p1);
    assert_eq!(names(&d.entered), Vec::<String>::new());
    assert_eq!(names(&d.left), vec!["action:a2", "tool:t2"]);
    assert_eq!(d.edges_left.len(), 2);
    assert_eq!(d.before.1, (2, 2));
    assert_eq!(d.after.1, (1, 1));
    let back = Baseline::pin(&tk, &recommend(&tk, &seeds, p1), p1).compare(
        &tk,
        &recommend(&tk, &seeds, p0),
        p0,
    );
    assert_eq!(back.entered, d.left);
    assert_eq!(back.edges_entered, d.edges_left);
    assert_eq!(d.left_in(&tk).len(), 2);
}

#[test]
fn recommendation_diff_across_toolkits_matches_by_name() {
    let old = small();
    let mut new = small();
    let (a1, a3) = (new.action("a1").unwrap(), new.action("a3").unwrap());
    new.set_score(a1, a3, 0.9);
    let p = Params {
        threshold: 0.5,
        hops: 1,
    };
    let r_old = recommend(&old, &resolve_seeds(&old, &["a1"]).0, p);
    let r_new = recommend(&new, &resolve_seeds(&new, &["a1"]).0, p);
    let d = recommendation_diff((&old, &r_old, p), (&new, &r_new, p));
    assert_eq!(names(&d.entered), vec!["action:a3", "tool:t3"]);
    assert!(d.left.is_empty());
    let entered: Vec<String> = d
        .edges_entered
        .iter()
        .map(|e| format!("{}>{}", e.from.name, e.to.name))
        .collect();
    assert_eq!(entered, vec!["a1>a3", "a3>t3"]);
    assert_eq!(d.entered_in(&new).len(), 2);
    assert_eq!(d.to_json()["after"]["actions"], 3);
}
