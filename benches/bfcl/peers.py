#!/usr/bin/env python3
"""toolscope's graphs beside the tool retrievers people use instead, on BFCL's held-out steps.

  python peers.py --data out                  # the markdown table (README.md, "The peers")
  python peers.py --data out --format json    # every method's recall@1..15 and more
  python peers.py --data out --json FILE --check   # the table, FILE, exit 1 unless sane

Run it with the benchmark's own environment (`setup-peers.sh` makes it; the pinned
packages are in requirements-peers.txt): `bm25s` and `graph-tool-call` are imported,
never copied. Reads a convert.py output folder (its records carry `requests`, the user
turn of each call).

Every method ranks the tools for each held-out step (a call after a record's first:
its previous call, the calls before, and the user turn in which it happens); the
ranking is cut to the record's `available` tools, as toolscope's `eval --steps` cuts
its offers, and the offer of size k is the ranking's first k. recall@k = share of
steps whose called tool is in that offer. Where a ranking ties (equal scores across
the k-th place), the tied tools share the places left: a target among n tied tools
for s places counts s/n, the expected hit of a random tie-break. A tool a method does
not rank is never offered.

The methods, exactly as called (README.md says the same):

- toolscope's learned graph (previous call): model.py's reference graph (= `init` +
  `fit`, which run.sh checks edge for edge), tools ranked by the score of the Next edge
  from the previous call's action (one hop; the previous tool by its own loop edge like
  any other tool, not forced first as a threshold offer's seed is); after them the
  tools only two edges reach, by their weaker edge (none here: every action has an
  edge to every tool).
- plain transition counts (previous call): model.py's plain graph, ranked the same way
  (its rows are sparse, so the two-edge tools fill the larger offers, as plain.yaml's
  hops 2 does; a tool neither reaches is not ranked).
- BM25, bm25s (request): one document per tool, its name with `_` as spaces and its
  description; `bm25s.tokenize(texts, stopwords="en")`, `bm25s.BM25().index(...)`,
  `get_scores(query tokens)` with the request as the query; every tool scored.
- graph-tool-call retrieve() (request): `ToolGraph().add_tools(openai_defs)` (its
  default dependency detection on), `retrieve(request, top_k=<all tools>)` in its own
  order.
- graph-tool-call suggest_next() (previous call): the same ToolGraph,
  `suggest_next(previous, history=<calls before>, top_k=<all tools>)` in its order.
  In 0.47.0 it follows no relation added in the same process (it compares
  `str(relation)`, "RelationType.PRECEDES" for the enum add_relation stores, with
  "precedes"), so it offers only tools of the previous tool's inferred domain.
- graph-tool-call suggest_next(), graph saved and loaded: the same ToolGraph after
  `save(path)` and `ToolGraph.load(path)` (as its `cache=` path does), whose relations
  are strings that suggest_next does follow.
- graph-tool-call suggest_next() + training transitions: the same, after
  `add_relation(a, b, "precedes")` for every transition a -> b seen in the training
  records (most frequent first: suggest_next keeps insertion order among its equal
  weights), saved and loaded. The library has no call-trace learning of its own for
  suggest_next.

"At toolscope's offer size": per step, k = the size of the learned graph's offer at its
best point within 30% of the tokens (model.py's curve and rule), so each method offers
as many tools as toolscope does at that step. The learned graph's own entry there is
that offer itself (`eval --steps` at that threshold: the previous tool and the tools
whose edge from it reaches the threshold), the recall its README table reports.
"""

import argparse
import collections
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model as M  # noqa: E402

KS = (3, 5, 8)
CURVE = range(1, 16)
BUDGET = 0.30
KIT_HOPS = M.REFERENCE_HOPS


def held_out_steps(data):
    """[(record, calls before, target, request)] for every held-out step."""
    out = []
    for r in data.test:
        requests = r.get("requests")
        if requests is None or len(requests) != len(r["calls"]):
            sys.exit("%s has no `requests` beside its calls: convert the data again with "
                     "this checkout's convert.py" % r.get("id"))
        for i in range(1, len(r["calls"])):
            out.append((r, r["calls"][:i], r["calls"][i], requests[i]))
    return out


def tiers_from_scores(scores, available):
    """Tools of `available` grouped by equal score, best first: [[tool, ...], ...]."""
    by = collections.defaultdict(list)
    for tool, s in scores.items():
        if tool in available:
            by[s].append(tool)
    return [sorted(by[s]) for s in sorted(by, reverse=True)]


def tiers_from_order(tools, available):
    """A library's ordered answer, cut to `available`: one tool a place."""
    seen, out = set(), []
    for t in tools:
        if t in available and t not in seen:
            seen.add(t)
            out.append([t])
    return out


def hit(tiers, target, k):
    """Expected hit of the offer of the first k places (ties share what is left)."""
    placed = 0
    for tier in tiers:
        if placed >= k:
            return 0.0
        if target in tier:
            return min(1.0, (k - placed) / len(tier))
        placed += len(tier)
    return 0.0


# ---------------------------------------------------------------- the methods

def graph_ranker(graph):
    """Tools by the Next score of the edge from the previous call's action (the previous
    tool by its own loop edge, like any other): what the graph predicts. Then the tools
    only two edges reach, by their weaker edge (as a hops-2 offer adds them)."""
    def rank(step):
        r, before, _, _ = step
        avail = set(r["available"])
        direct = graph.get(before[-1], {})
        if avail <= set(direct):   # a dense row (the learned graph's): nothing to add
            return tiers_from_scores(direct, avail)
        two = {b: v for b, v in M.reach(graph, [before[-1]], 2).items()
               if b not in direct and b != before[-1]}
        return tiers_from_scores(direct, avail) + tiers_from_scores(two, avail)
    return rank


def bm25_ranker(data):
    import bm25s
    tools = data.tools
    corpus = ["%s %s" % (t.replace("_", " "), data.defs[t].get("description", "")) for t in tools]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False)
    cache = {}

    def rank(step):
        r, _, _, request = step
        if request not in cache:
            q = bm25s.tokenize([request], stopwords="en", return_ids=False, show_progress=False)[0]
            # get_scores fails on an empty query (a request of stop words only): no match
            s = retriever.get_scores(q) if q else [0.0] * len(tools)
            cache[request] = {t: float(s[i]) for i, t in enumerate(tools)}
        return tiers_from_scores(cache[request], set(r["available"]))
    return rank


def gtc_graph(data, transitions=None, reload=False):
    """A graph-tool-call ToolGraph of every tool; `transitions` {(a, b): count} added as
    `precedes` relations, most frequent first; `reload`: saved and loaded again."""
    from graph_tool_call import ToolGraph
    g = ToolGraph()
    g.add_tools([{"type": "function", "function": data.defs[t]} for t in data.tools])
    for (a, b), _ in sorted((transitions or {}).items(), key=lambda kv: (-kv[1], kv[0])):
        g.add_relation(a, b, "precedes")
    if reload:
        # 0.47.0's suggest_next compares str(relation) with "requires"/"precedes": an
        # edge added in this process holds the enum, whose str() is
        # "RelationType.PRECEDES", so it never matches; a loaded graph holds the string.
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "graph.json")
            g.save(path)
            g = ToolGraph.load(path)
    return g


def gtc_retrieve_ranker(g, n):
    cache = {}

    def rank(step):
        r, _, _, request = step
        if request not in cache:
            cache[request] = [t.name for t in g.retrieve(request, top_k=n)]
        return tiers_from_order(cache[request], set(r["available"]))
    return rank


def gtc_suggest_ranker(g, n):
    def rank(step):
        r, before, _, _ = step
        got = g.suggest_next(before[-1], history=list(before), top_k=n)
        return tiers_from_order([s.tool.name for s in got], set(r["available"]))
    return rank


def training_transitions(records):
    c = collections.Counter()
    for _, before, target in M.steps(records):
        c[(before[-1], target)] += 1
    return c


# ---------------------------------------------------------------- the table

def offer_sizes(graph, steps, data, hops):
    """Per step, the size of the learned graph's offer at its best point within BUDGET
    (model.py's exact step function), and that point."""
    best = M.best_within(M.curve(graph, data.test, data, hops), BUDGET)
    if best is None:
        sys.exit("the learned graph has no point within %d%% of the tokens" % (100 * BUDGET))
    t = best[0]
    sizes = []
    for r, before, _, _ in steps:
        avail = set(r["available"])
        value = M.reach(graph, [before[-1]], hops)
        sizes.append(sum(1 for b, v in value.items() if v >= t and b in avail))
    return sizes, best


def measure(name, sees, ranker, steps, sizes, offered=None):
    """A method's row; `offered`: its recall at toolscope's offer size when that is
    toolscope's own offer (the learned graph's threshold offer, previous tool included)."""
    start = time.perf_counter()
    tiers = [ranker(s) for s in steps]
    took = time.perf_counter() - start
    n = len(steps)
    at = {k: sum(hit(ti, s[2], k) for ti, s in zip(tiers, steps)) / n for k in CURVE}
    matched = offered if offered is not None else sum(
        hit(ti, s[2], k) for ti, s, k in zip(tiers, steps, sizes)) / n
    ranked = sum(sum(len(x) for x in ti) for ti in tiers) / n
    return {"method": name, "sees": sees, "recall_at": at, "recall_at_offer_size": matched,
            "ranked_tools": ranked, "seconds": took}


def run(data):
    steps = held_out_steps(data)
    kit = M.reference_graph(data.train, data)
    plain = M.plain_graph(data.train)
    sizes, best = offer_sizes(kit, steps, data, KIT_HOPS)
    n = len(data.tools)
    t0 = time.perf_counter()
    g = gtc_graph(data)
    g_loaded = gtc_graph(data, reload=True)
    g_learned = gtc_graph(data, training_transitions(data.train), reload=True)
    built = time.perf_counter() - t0
    rows = [
        measure("toolscope's learned graph (`init` + `fit`)", "previous call", graph_ranker(kit), steps, sizes, best[1]),
        measure("plain transition counts", "previous call", graph_ranker(plain), steps, sizes),
        measure("BM25 over name + description, `bm25s`", "the user's request", bm25_ranker(data), steps, sizes),
        measure("`graph-tool-call` `retrieve()`", "the user's request", gtc_retrieve_ranker(g, n), steps, sizes),
        measure("`graph-tool-call` `suggest_next()`", "previous call, history", gtc_suggest_ranker(g, n), steps, sizes),
        measure("`graph-tool-call` `suggest_next()`, graph saved and loaded", "previous call, history",
                gtc_suggest_ranker(g_loaded, n), steps, sizes),
        measure("`graph-tool-call` `suggest_next()` + training transitions as `precedes`, saved and loaded",
                "previous call, history", gtc_suggest_ranker(g_learned, n), steps, sizes),
    ]
    return {"steps": len(steps), "records": len(data.test),
            "empty_requests": sum(1 for s in steps if not s[3].strip()),
            "offer": {"threshold": best[0], "hops": KIT_HOPS, "recall": best[1], "token_share": best[2],
                      "tools_per_step": sum(sizes) / len(sizes)},
            "graph_tool_call_build_seconds": built, "rows": rows}


def check(report, data):
    """What must hold of any report: every held-out step counted with its request, recall
    never falling as the offer grows, the retrievers finding some targets."""
    out = []
    want = M.step_count(data.test)
    if report["steps"] != want or not want:
        out.append("%d steps measured, the held-out records have %d" % (report["steps"], want))
    if report["empty_requests"]:
        out.append("%d of %d steps have an empty request" % (report["empty_requests"], report["steps"]))
    for r in report["rows"]:
        at = [r["recall_at"][k] for k in CURVE]
        if any(b < a - 1e-12 for a, b in zip(at, at[1:])) or not all(0.0 <= x <= 1.0 for x in at):
            out.append("%s: recall@k is not a rising curve in [0, 1]: %s" % (r["method"], at))
        if "request" in r["sees"] and at[-1] == 0.0:
            out.append("%s found no target in 15 tools" % r["method"])
    return out


def markdown(report):
    off = report["offer"]
    lines = ["Held-out steps: %d (%d records). Offers cut to each record's `available`; toolscope's "
             "offer size = the learned graph's offer at threshold %.4g, hops %d (%.1f tools a step, "
             "%.1f%% of the tokens)." % (report["steps"], report["records"], off["threshold"], off["hops"],
                                         off["tools_per_step"], 100 * off["token_share"]),
             "",
             "| method (what it sees) | recall@3 | @5 | @8 | at toolscope's offer size (%.1f) |" % off["tools_per_step"],
             "|---|---|---|---|---|"]
    for r in report["rows"]:
        lines.append("| %s (%s) | %.3f | %.3f | %.3f | %.3f |" % (
            r["method"], r["sees"], r["recall_at"][3], r["recall_at"][5], r["recall_at"][8],
            r["recall_at_offer_size"]))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "out"),
                    help="a convert.py output folder (default benches/bfcl/out)")
    ap.add_argument("--format", choices=["markdown", "json"], default="markdown")
    ap.add_argument("--json", metavar="FILE", help="also write the JSON report to FILE")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless the report is sane (CI: .ci/bfcl-slice)")
    args = ap.parse_args()
    data = M.Data(args.data)
    report = run(data)
    if args.check:
        problems = check(report, data)
        for p in problems:
            print("peers: " + p, file=sys.stderr)
        if problems:
            sys.exit(1)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")
    if args.format == "json":
        json.dump(report, sys.stdout, indent=1)
        print()
    else:
        print(markdown(report))


if __name__ == "__main__":
    main()
