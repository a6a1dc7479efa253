//! Issue 35, items 2 and 3, in a Chat2Graph config: `fit`'s scores go to the one top-level
//! `scores:` list, every new one at its end. Before the batch held them back, two new
//! entries met at one place, the batch declined and the edits went one by one, a parse of
//! the growing file each: quadratic in the kit.

use std::path::Path;

use toolscope_core::edit::{Edit, Transaction};
use toolscope_core::model::{EdgeKind, NodeKind, Toolkit};
use toolscope_core::workspace::Workspace;

/// A Chat2Graph config of `actions` actions shaped as Chat2Graph's own: anchored tools, an
/// MCP server listing two tools per fifty tools (every twentieth action calls one), actions
/// calling one to three tools by alias, chains of ten, an operator per chain, and a
/// `scores:` list scoring a tenth of the Next edges.
fn config(actions: usize) -> String {
    let tools = actions / 4;
    let servers = (tools / 50).max(1);
    let mut out = String::from("# issue 35 fixture\napp:\n  name: \"scale\"\n\ntools:\n");
    for t in 0..tools {
        out.push_str(&format!(
            "  - &t{t}\n    name: \"T{t}\"\n    module_path: \"app.scale\"\n"
        ));
    }
    for s in 0..servers {
        out.push_str(&format!(
            "  - &s{s}\n    name: \"S{s}\"\n    type: MCP\n    mcp_transport_config:\n      transport_type: \"SSE\"\n      url: \"http://localhost:{}/sse\"\n    tools:\n      - name: \"s{s}_read\"\n      - name: \"s{s}_write\"\n",
            8000 + s
        ));
    }
    out.push_str("\nactions:\n");
    for a in 0..actions {
        let mut refs: Vec<String> = (0..1 + a % 3)
            .map(|i| format!("*t{}", (a * 7 + i * 13) % tools))
            .collect();
        refs.dedup();
        if a % 20 == 0 {
            refs.push(format!("*s{}", (a / 20) % servers));
        }
        out.push_str(&format!(
            "  - &a{a}\n    name: \"a{a}\"\n    desc: \"Action {a}.\"\n    tools: [{}]\n",
            refs.join(", ")
        ));
    }
    out.push_str("\ntoolkit:\n");
    for s in (0..actions).step_by(10) {
        let chain: Vec<String> = (s..(s + 10).min(actions))
            .map(|a| format!("*a{a}"))
            .collect();
        out.push_str(&format!("  - [{}]\n", chain.join(", ")));
    }
    out.push_str("\noperators:\n");
    for (i, s) in (0..actions).step_by(10).enumerate() {
        out.push_str(&format!(
            "  - &op{i}\n    instruction: |\n      Operator {i}.\n    output_schema: |\n      {{}}\n    actions: [*a{s}]\n"
        ));
    }
    out.push_str("\nexperts:\n  - profile:\n      name: \"Expert 0\"\n    workflow:\n");
    for i in 0..actions.div_ceil(10) {
        out.push_str(&format!("      - [*op{i}]\n"));
    }
    out.push_str("\nscores:\n");
    for a in (0..actions - 1).step_by(10) {
        out.push_str(&format!("  - {{from: a{a}, to: a{}, score: 0.5}}\n", a + 1));
    }
    out
}

/// What `fit` writes: a new score on every Call and Next edge (a server's tools each).
fn fit_scores(tk: &Toolkit) -> Vec<Edit> {
    let mut edits = Vec::new();
    for a in tk.nodes_of(NodeKind::Action) {
        for (e, to) in tk.out_edges(a) {
            if tk.graph[e].kind == EdgeKind::Has {
                continue;
            }
            edits.push(Edit::SetScore {
                from: tk.name(a).to_string(),
                to: tk.name(to).to_string(),
                to_kind: tk.kind(to),
                score: if tk.graph[e].score == 0.55 { 0.6 } else { 0.55 },
            });
        }
    }
    edits
}

/// The bytes of YAML parsed to apply fit's scores, per byte of the file; how many edits
/// the batch made, of how many.
fn parses_per_byte(actions: usize) -> (f64, usize, usize) {
    let text = config(actions);
    let len = text.len();
    let mut ws = Workspace::from_text(Path::new("c2g.yml"), text, None).expect("the config loads");
    assert_eq!(
        ws.files()[0].source.format,
        toolscope_core::source::Format::Chat2Graph
    );
    let edits = fit_scores(&ws.toolkit);
    assert!(
        edits
            .iter()
            .any(|e| matches!(e, Edit::SetScore { to, .. } if to.ends_with("_read"))),
        "a server's tool is scored"
    );
    let n = edits.len();
    let before = toolscope_core::source::yaml::parsed_bytes();
    let applied = ws
        .apply(Transaction::from(edits))
        .expect("fit's scores apply");
    let parsed = toolscope_core::source::yaml::parsed_bytes() - before;
    assert!(applied.text_changed);
    assert!(ws.loads_back(0).is_ok());
    (parsed as f64 / len as f64, ws.batched_edits(), n)
}

/// Every score of the fit goes in the batch, and the bytes parsed stay a small multiple
/// of the file whatever its size: they may not grow by more than a fifth from 200 to 800
/// actions (four times the edits). One by one, each new entry was a parse of the file.
#[test]
fn fit_scores_in_a_chat2graph_config_cost_one_parse_of_the_file() {
    let mut seen = Vec::new();
    for actions in [200, 400, 800] {
        let (per_byte, batched, edits) = parses_per_byte(actions);
        assert_eq!(batched, edits, "{actions} actions: every edit in the batch");
        seen.push((actions, edits, per_byte));
    }
    let (first, last) = (seen[0].2, seen[seen.len() - 1].2);
    assert!(
        last < first * 1.2 && last < 30.0,
        "bytes parsed per byte of the file (actions, edits, per byte): {seen:?}"
    );
}

/// `gen --format chat2graph --runs` gives runs of the Chat2Graph config (its tools are
/// `T<n>`, the native kit's `t<n>`), so `fit` can be measured on one at scale.
#[test]
fn generated_runs_follow_the_format_asked() {
    let bin = env!("CARGO_BIN_EXE_toolscope");
    let gen_runs = |format: &str| {
        let out = std::process::Command::new(bin)
            .args(["gen", "--actions", "40", "--runs", "30", "--format", format])
            .output()
            .expect("runs");
        assert!(out.status.success());
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let c2g = gen_runs("chat2graph");
    assert!(c2g.lines().count() > 1, "{c2g}");
    assert!(c2g.contains("\"T") && !c2g.contains("\"t"), "{c2g}");
    assert!(gen_runs("native").contains("\"t"));
}
