//! Property (issue 35): in a Chat2Graph config too, `fit`'s scores as one batch give the
//! bytes the same edits give one by one. Every new score is an entry at the end of the one
//! top-level `scores:` list, so the batch holds them back and appends them in one go; these
//! random configs (anchored tools and actions, MCP servers with and without listed tools,
//! `toolkit:` chains of aliases, operators and experts; a `scores:` list absent, `[]`,
//! flow or block, first, in the middle or last, with entries for edges and for
//! servers; a file ending in a block scalar or a `...` line; CRLF, a BOM, no final newline)
//! take random scores on Call and Next edges, and on servers (whose entries their tools'
//! take over), in fit's order or shuffled. The comparison is `prop_batch::compare`'s.

use proptest::prelude::*;
use toolscope_core::edit::Edit;
use toolscope_core::model::{EdgeKind, NodeKind, Toolkit};

use crate::common::rng::Rng;
use crate::prop_batch::{compare, dress, open};

const SCORES: [&str; 4] = ["0.25", "0.5", "0.8", "1.0"];

/// A random Chat2Graph config (`\n` line ends).
fn config_text(seed: u64) -> String {
    let mut r = Rng(seed | 1);
    let (n_tools, n_servers, n_actions) = (2 + r.below(4), r.below(3), 3 + r.below(7));
    let mut out = String::from("# c2g batch fixture\napp:\n  name: \"batch\"\n\ntools:\n");
    for t in 0..n_tools {
        out.push_str(&format!(
            "  - &t{t}\n    name: \"T{t}\"\n    module_path: \"app.mine\"\n"
        ));
    }
    // Server s lists two tools when `known`, none otherwise (its tools unknown).
    let mut known = Vec::new();
    for s in 0..n_servers {
        out.push_str(&format!(
            "  - &s{s}\n    name: \"S{s}\"\n    type: MCP\n    mcp_transport_config:\n      transport_type: \"SSE\"\n      url: \"http://localhost:89{s}/sse\"\n"
        ));
        if r.below(4) > 0 {
            known.push(s);
            match r.coin() {
                true => out.push_str(&format!(
                    "    tools:\n      - name: \"s{s}_read\"\n        desc: \"Read.\"\n      - name: \"s{s}_write\"\n"
                )),
                false => out.push_str(&format!(
                    "    tools: [{{name: s{s}_read}}, {{name: s{s}_write}}]\n"
                )),
            }
        }
    }
    // Who calls what: the edges the `scores:` entries may name.
    let mut calls: Vec<Vec<String>> = Vec::new();
    out.push_str("\nactions:\n");
    for a in 0..n_actions {
        let mut refs = Vec::new();
        let mut called = Vec::new();
        for t in 0..n_tools {
            if r.below(3) == 0 {
                refs.push(format!("*t{t}"));
                called.push(format!("T{t}"));
            }
        }
        for s in 0..n_servers {
            if r.below(2) == 0 {
                refs.push(format!("*s{s}"));
                called.push(format!("S{s}"));
                if known.contains(&s) {
                    called.push(format!("s{s}_read"));
                    called.push(format!("s{s}_write"));
                }
            }
        }
        calls.push(called);
        out.push_str(&format!("  - &a{a}\n    name: \"a{a}\"\n"));
        let desc = match r.below(3) {
            0 => format!("    desc: |\n      Action {a}.\n      Second line.\n"),
            _ => format!("    desc: \"Action {a}.\"\n"),
        };
        out.push_str(&desc);
        match (refs.is_empty(), r.coin()) {
            (true, _) => {}
            (false, true) => out.push_str(&format!("    tools: [{}]\n", refs.join(", "))),
            (false, false) => {
                out.push_str("    tools:\n");
                for x in &refs {
                    out.push_str(&format!("      - {x}\n"));
                }
            }
        }
    }
    // Chains: the actions in order cut in runs, and now and then one chained twice.
    out.push_str("\ntoolkit:\n");
    let mut chain = Vec::new();
    for a in 0..n_actions {
        chain.push(format!("*a{a}"));
        if r.below(3) == 0 || a + 1 == n_actions {
            if r.below(4) == 0 {
                chain.push(format!("*a{}", r.below(n_actions)));
            }
            match r.coin() {
                true => out.push_str(&format!("  - [{}]\n", chain.join(", "))),
                false => {
                    out.push_str("  -\n");
                    for c in &chain {
                        out.push_str(&format!("    - {c}\n"));
                    }
                }
            }
            chain.clear();
        }
    }
    let place = r.below(3);
    let scores = scores_text(&mut r, n_actions, &calls);
    if place == 0 {
        out.push_str(&scores);
    }
    out.push_str(
        "\noperators:\n  - &op0\n    instruction: |\n      Operator 0.\n    output_schema: |\n      {}\n    actions: [*a0]\n",
    );
    if place == 1 {
        out.push_str(&scores);
    }
    out.push_str("\nexperts:\n  - profile:\n      name: \"Expert 0\"\n");
    match r.below(3) {
        // The file ends in a block scalar: appending after it would change its value.
        0 if place != 2 => {
            out.push_str("    workflow:\n      - [*op0]\n    notes: |+\n      Kept lines.\n\n")
        }
        1 => out.push_str("    workflow:\n      - [*op0]\n...\n"),
        _ => out.push_str("    workflow:\n      - [*op0]\n"),
    }
    if place == 2 {
        // After a `...` line the list still belongs to the document before it.
        if out.ends_with("...\n") {
            out.truncate(out.len() - 4);
        }
        out.push_str(&scores);
    }
    out
}

/// A `scores:` list: absent, `[]`, `scores:` with nothing after it, or entries for some
/// of the edges (calls, the next action, a server whose tools are listed) in flow or
/// block style.
fn scores_text(r: &mut Rng, n_actions: usize, calls: &[Vec<String>]) -> String {
    let mut items = Vec::new();
    for (a, called) in calls.iter().enumerate() {
        for c in called {
            if r.below(4) == 0 {
                items.push(format!(
                    "{{from: a{a}, to: {c}, score: {}}}",
                    SCORES[r.below(4)]
                ));
            }
        }
        if a + 1 < n_actions && r.below(3) == 0 {
            items.push(format!(
                "{{from: a{a}, to: a{}, score: {}}}",
                a + 1,
                SCORES[r.below(4)]
            ));
        }
    }
    match r.below(7) {
        0 => String::new(),
        6 => "\nscores:   # to fit\n".into(),
        1 | 2 => "\nscores: []   # none yet\n".into(),
        3 => format!("\nscores: [{}]\n", items.join(", ")),
        _ if items.is_empty() => String::new(),
        _ => {
            let mut s = String::from("\nscores:\n");
            for (i, item) in items.iter().enumerate() {
                let comment = if i % 3 == 1 { "   # fitted" } else { "" };
                s.push_str(&format!("  - {item}{comment}\n"));
            }
            s
        }
    }
}

/// Scores on the Call and Next edges, and on servers whose tools the graph holds (the
/// server's score written for each tool), each edge once; fit's order or shuffled. `fit`
/// scores a server's tools, never the server: a server and its tools scored from one
/// action (each edit then finds what the other wrote, which the batch declines) only in
/// a quarter of the fixtures.
fn pick_edits(tk: &Toolkit, seed: u64, shuffle: bool) -> Vec<Edit> {
    let mut r = Rng(seed | 1);
    // (The high bits: the first draw's low bits follow the seed's.)
    let both = (r.next() >> 32).is_multiple_of(4);
    let new_score = |r: &mut Rng| [0.1, 0.25, 0.5, 0.8, 1.0][r.below(5)];
    let mut edits = Vec::new();
    for a in tk.nodes_of(NodeKind::Action) {
        let mut servers = Vec::new();
        let mut scored = Vec::new();
        for (e, to) in tk.out_edges(a) {
            if tk.graph[e].kind == EdgeKind::Has {
                continue;
            }
            if let Some((_, g)) = tk
                .in_edges(to)
                .find(|(h, _)| tk.graph[*h].kind == EdgeKind::Has)
                && !servers.contains(&g)
            {
                servers.push(g);
            }
            if r.below(5) == 0 {
                continue;
            }
            scored.push(to);
            edits.push(Edit::SetScore {
                from: tk.name(a).to_string(),
                to: tk.name(to).to_string(),
                to_kind: tk.kind(to),
                score: new_score(&mut r),
            });
        }
        for g in servers {
            let members_scored = tk
                .out_edges(g)
                .any(|(h, m)| tk.graph[h].kind == EdgeKind::Has && scored.contains(&m));
            if r.below(2) == 0 && (both || !members_scored) {
                edits.push(Edit::SetScore {
                    from: tk.name(a).to_string(),
                    to: tk.name(g).to_string(),
                    to_kind: tk.kind(g),
                    score: new_score(&mut r),
                });
            }
        }
    }
    if shuffle {
        for i in (1..edits.len()).rev() {
            edits.swap(i, r.below(i + 1));
        }
    }
    edits
}

fn check(seed: u64, crlf: bool, bom: bool, final_nl: bool, shuffle: bool) -> usize {
    let text = dress(&config_text(seed), crlf, bom, final_nl);
    let ws = open(&text, 2);
    assert_eq!(
        ws.files()[0].source.format,
        toolscope_core::source::Format::Chat2Graph,
        "{text}"
    );
    let edits = pick_edits(&ws.toolkit, seed.rotate_left(23), shuffle);
    compare(&text, &edits, seed)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256),
        ..ProptestConfig::default()
    })]
    #[test]
    fn a_chat2graph_batch_writes_the_bytes_of_the_edits_one_by_one(
        seed in any::<u64>(),
        crlf in any::<bool>(),
        bom in any::<bool>(),
        final_nl in any::<bool>(),
        shuffle in any::<bool>(),
    ) {
        check(seed, crlf, bom, final_nl, shuffle);
    }
}

/// The sweep the property samples, with a floor on how much of it the batch took (on the
/// code before the scores were held back, every config given two new entries declined):
/// most configs go as a batch, those with servers whose tools are listed among them.
#[test]
fn the_chat2graph_batch_carries_most_configs_and_matches_them_all() {
    let (mut fixtures, mut carried, mut served) = (0, 0, 0);
    for seed in 1..400u64 {
        let shape = seed % 16;
        let text = config_text(seed);
        let batched = check(
            seed,
            shape & 1 == 1,
            shape & 2 == 2,
            shape & 4 == 0,
            shape & 8 == 8,
        );
        fixtures += 1;
        if batched > 0 {
            carried += 1;
            if text.contains("_read") {
                served += 1;
            }
        }
    }
    assert!(
        carried * 10 >= fixtures * 8,
        "{carried} of {fixtures} batched"
    );
    assert!(
        served >= 40,
        "{served} configs with listed server tools batched"
    );
}
