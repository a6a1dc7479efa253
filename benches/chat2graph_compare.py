#!/usr/bin/env python3
"""Compare toolscope's recommend with a straightforward networkx implementation of
Chat2Graph's ToolkitService.recommend_subgraph, on the same random toolkit.

It checks that both return the same vertices and edges for many random queries, then times
both on one query and prints the ratio.

    python3 benches/chat2graph_compare.py --actions 100000 [--binary target/release/toolscope]

Needs only public packages: networkx and pyyaml (pip install networkx pyyaml).
"""

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time

import networkx as nx
import yaml


def ref(item):
    """A reference item: bare name or {name, score}."""
    if isinstance(item, dict):
        return str(item["name"]), float(item.get("score", 1.0))
    return str(item), 1.0


def build(doc):
    """The graph toolscope's native loader builds, as a networkx DiGraph with a `kind`
    attribute on nodes and a `score` attribute on edges (names are unique across kinds in
    generated toolkits)."""
    g = nx.DiGraph()
    tools = set()
    for t in doc.get("tools") or []:
        g.add_node(t["name"], kind="tool")
        tools.add(t["name"])
    groups = {}
    for grp in doc.get("groups") or []:
        members = [ref(m)[0] for m in grp.get("tools") or []]
        groups[grp["name"]] = members
        g.add_node(grp["name"], kind="group")
        for m in members:
            if m not in g:
                g.add_node(m, kind="tool")
            g.add_edge(grp["name"], m, score=1.0)
    actions = doc.get("actions") or []
    for a in actions:
        g.add_node(a["name"], kind="action")
    for a in actions:
        for item in a.get("tools") or []:
            name, score = ref(item)
            if name in groups and name not in tools:
                targets = groups[name] or [name]
            else:
                targets = [name]
                if name not in g:
                    g.add_node(name, kind="tool")
            for t in targets:
                if not g.has_edge(a["name"], t):
                    g.add_edge(a["name"], t, score=score)
        for item in a.get("next") or []:
            name, score = ref(item)
            if name in g and g.nodes[name]["kind"] == "action" and not g.has_edge(a["name"], name):
                g.add_edge(a["name"], name, score=score)
    return g


def recommend_subgraph(g, seeds, threshold, hops):
    """Chat2Graph's algorithm: frontier sets, early stop, tools by Call, induced subgraph
    minus edges below the threshold."""
    is_action = lambda n: g.nodes[n]["kind"] == "action"
    is_tool = lambda n: g.nodes[n]["kind"] in ("tool", "group")
    score = lambda u, v: g.edges[u, v].get("score", 1.0)
    keep = {s for s in seeds if s in g and is_action(s)}
    current = set(keep)
    for _ in range(hops):
        nxt = set()
        for v in current:
            for w in g.successors(v):
                if is_action(v) and is_action(w) and score(v, w) >= threshold:
                    nxt.add(w)
                    keep.add(w)
        current = nxt
        if not current:
            break
    for a in list(keep):
        for t in g.successors(a):
            if is_action(a) and is_tool(t) and score(a, t) >= threshold:
                keep.add(t)
    sub = g.subgraph(keep).copy()
    for u, v in list(sub.edges()):
        if score(u, v) < threshold:
            sub.remove_edge(u, v)
    return sub


def toolscope(binary, path, seeds, threshold, hops, repeat=1):
    args = [binary, "recommend", path, "--threshold", str(threshold), "--hops", str(hops),
            "--format", "json", "--timings", "--repeat", str(repeat)]
    for s in seeds:
        args += ["--seed", s]
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    ms = None
    for line in out.stderr.splitlines():
        if line.startswith("recommend_ms:"):
            ms = float(line.split(":")[1])
    return json.loads(out.stdout), ms


def same(g, sub, got):
    want_nodes = sorted(sub.nodes())
    got_nodes = sorted(got["actions"] + got["tools"])
    want_edges = sorted((u, v) for u, v in sub.edges())
    got_edges = sorted((e["from"], e["to"]) for e in got["edges"])
    return want_nodes == got_nodes and want_edges == got_edges


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--actions", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--checks", type=int, default=30, help="random queries to compare")
    ap.add_argument("--repeat", type=int, default=20, help="timed runs of each side")
    ap.add_argument("--binary", default="target/release/toolscope")
    opts = ap.parse_args()

    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        text = subprocess.run([opts.binary, "gen", "--actions", str(opts.actions), "--seed",
                               str(opts.seed)], capture_output=True, text=True, check=True).stdout
        f.write(text)
        path = f.name
    doc = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    g = build(doc)
    actions = [a["name"] for a in doc["actions"]]
    rng = random.Random(opts.seed)

    mismatches = 0
    for i in range(opts.checks):
        seeds = rng.sample(actions, k=min(len(actions), rng.randint(1, 10)))
        t = rng.choice([0.0, 0.05, 0.3, 0.5, 0.55, 0.7, 0.95, 1.0])
        h = rng.randint(0, 4)
        got, _ = toolscope(opts.binary, path, seeds, t, h)
        if not same(g, recommend_subgraph(g, seeds, t, h), got):
            mismatches += 1
            print(f"MISMATCH seeds={seeds} t={t} h={h}", file=sys.stderr)
    print(f"checked {opts.checks} random queries on {opts.actions} actions: {mismatches} mismatches")

    seeds = [op for op in doc["operators"]][0]["actions"]
    times = []
    for _ in range(opts.repeat):
        t0 = time.perf_counter()
        recommend_subgraph(g, seeds, 0.5, 3)
        times.append((time.perf_counter() - t0) * 1000)
    py_ms = statistics.median(times)
    _, rs_ms = toolscope(opts.binary, path, seeds, 0.5, 3, repeat=opts.repeat)
    print(f"networkx recommend_subgraph: {py_ms:.3f} ms (median of {opts.repeat})")
    print(f"toolscope recommend:         {rs_ms:.3f} ms (median of {opts.repeat})")
    print(f"ratio: {py_ms / rs_ms:.0f}x")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
