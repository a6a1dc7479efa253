#!/usr/bin/env python3
"""Design study: which step context and which learned Next scores give the best
held-out next-call recall per token on BFCL multi-turn (standard library only).

  python3 benches/bfcl/convert.py            # writes benches/bfcl/out
  python3 benches/bfcl/study.py [--data benches/bfcl/out] [--budget 0.30] [--json FILE]

Every design is measured on the official split (convert.py's: task number % 5 == 0
held out) and as the mean over the five splits task % 5 == f (f = 0..4), all by task
number. A design's point at the budget is its highest recall over every threshold
(the exact step function) and the hops it may use, with token share <= budget;
"train t" is the same design at the threshold chosen on the training split alone
(the lowest threshold whose in-sample token share is within the budget).
"""

import argparse
import collections
import json
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model as M  # noqa: E402


def folds(data):
    recs = data.records()
    for f in range(5):
        yield f, [r for r in recs if M.task(r) % 5 != f], [r for r in recs if M.task(r) % 5 == f]


# ------------------------------------------------------------ graphs tried

def g_plain(tr, data):
    return M.plain_graph(tr)


def g_window(k):
    def g(tr, data):
        c = M.transition_counts(tr, k)
        return {a: {b: M.round4(x / sum(row.values())) for b, x in row.items()} for a, row in c.items()}
    return g


def g_maxnorm(tr, data):
    c = M.transition_counts(tr)
    return {a: {b: M.round4(x / max(row.values())) for b, x in row.items()} for a, row in c.items()}


def g_plain_smoothed(alpha):
    """Additive smoothing toward uniform within the seed's own group."""
    def g(tr, data):
        c = M.transition_counts(tr)
        out = {}
        for a in data.tools:
            row = c.get(a, {})
            n = sum(row.values())
            same = [b for b in data.tools if data.group[b] == data.group[a]]
            out[a] = {b: M.round4((row.get(b, 0) + alpha) / (n + alpha * len(same))) for b in same}
        return out
    return g


def g_popularity(tr, data):
    """init's prior alone: every action -> every tool by its share of its group's steps."""
    return M.init_prior(tr, data)


def g_group_smoothed(m, rowmax=True, prior="group"):
    """(c(a,b) + m w(b)) / (n_a + m), w the (global or group) popularity, optionally
    max-normalized per row; no rounding of the prior when rowmax is off."""
    def g(tr, data):
        if prior == "group":
            p = M.group_popularity(tr, data)
        else:
            u = collections.Counter(t for _, _, t in M.steps(tr))
            n = sum(u.values())
            p = {b: u[b] / n for b in data.tools}
        top = max(p.values())
        w = {b: (M.round4(v / top) if rowmax else v) for b, v in p.items() if v > 0}
        c = M.transition_counts(tr)
        out = {}
        for a in data.tools:
            row = c.get(a, {})
            n = sum(row.values())
            r = {b: (row.get(b, 0) + m * w.get(b, 0.0)) / (n + m) for b in set(w) | set(row)}
            if rowmax and n > 0:
                top_r = max(r.values())
                r = {b: v / top_r for b, v in r.items()}
            out[a] = {b: M.round4(v) for b, v in r.items() if M.round4(v) > 0}
        return out
    return g


def g_reference(tr, data):
    return M.reference_graph(tr, data)


def g_reference_m(m):
    return lambda tr, data: M.reference_graph(tr, data, m)


def g_per_token(inner):
    """Scores divided by the tool's token estimate (times the cheapest tool's): the
    threshold then ranks by expected hits per token."""
    def g(tr, data):
        base = inner(tr, data)
        lo = min(data.tok.values())
        return {a: {b: M.round4(s * lo / data.tok[b]) for b, s in row.items()} for a, row in base.items()}
    return g


# ------------------------------------------------------------ designs

Design = collections.namedtuple("Design", "key name graph hops seeds intersect keep_seeds in_model")


def designs():
    last = M.last_k
    D = Design
    return [
        D("plain_noint", "plain counts, seeds = previous call, offer not cut to available", g_plain, (1, 2), last(1), False, True, True),
        D("plain_h1", "plain counts, hops 1", g_plain, (1,), last(1), True, True, True),
        D("plain", "plain counts (baseline b): hops 1-3", g_plain, (1, 2, 3), last(1), True, True, True),
        D("plain_last2", "plain counts, seeds = last 2 calls", g_plain, (1, 2), last(2), True, True, True),
        D("plain_last3", "plain counts, seeds = last 3 calls", g_plain, (1, 2), last(3), True, True, True),
        D("plain_all", "plain counts, seeds = every earlier call", g_plain, (1, 2), last(10 ** 6), True, True, True),
        D("window2", "window-2 counts (b within 2 calls of a), seeds = last 2", g_window(2), (1, 2), last(2), True, True, True),
        D("window3", "window-3 counts, seeds = last 3", g_window(3), (1,), last(3), True, True, True),
        D("maxnorm", "plain counts max-normalized per row", g_maxnorm, (1, 2), last(1), True, True, True),
        D("addalpha", "counts + 0.5 per tool of the seed's group (add-alpha)", g_plain_smoothed(0.5), (1,), last(1), True, True, True),
        D("popularity", "group popularity only (init's prior, no transitions)", g_popularity, (1,), last(1), True, True, True),
        D("globalprior", "counts smoothed toward global popularity, m=2, row max", g_group_smoothed(2, True, "global"), (1,), last(1), True, True, True),
        D("groupshare", "counts smoothed toward group popularity, m=2, no row max", g_group_smoothed(2, False), (1,), last(1), True, True, True),
        D("reference", "RECOMMENDED: group-popularity prior, m=2, row max", g_reference, (1,), last(1), True, True, True),
        D("reference_h12", "recommended, hops 1-2", g_reference, (1, 2), last(1), True, True, True),
        D("reference_m1", "recommended with m=1", g_reference_m(1), (1,), last(1), True, True, True),
        D("reference_m5", "recommended with m=5", g_reference_m(5), (1,), last(1), True, True, True),
        D("reference_last2", "recommended, seeds = last 2 calls", g_reference, (1,), last(2), True, True, True),
        D("reference_last3", "recommended, seeds = last 3 calls", g_reference, (1,), last(3), True, True, True),
        D("reference_noint", "recommended, offer not cut to available", g_reference, (1,), last(1), False, True, True),
        D("reference_noself", "recommended, previous tool only if an edge brings it (not in the model)", g_reference, (1,), last(1), True, False, False),
        D("reference_pertok", "recommended, scores per token (not kept)", g_per_token(g_reference), (1,), last(1), True, True, True),
    ]


# ------------------------------------------------------------ measuring

def point_str(p):
    return "-" if p is None else "%.3f / %.1f%% / %.1f" % (p[1], 100 * p[2], p[3])


def best_over_hops(curves, budget):
    best = None
    for h, pts in curves.items():
        b = M.best_within(pts, budget)
        if b is not None and (best is None or (b[1], -b[2]) > (best[1][1], -best[1][2])):
            best = (h, b)
    return best


def cheapest_over_hops(curves, recall):
    best = None
    for h, pts in curves.items():
        b = M.cheapest_reaching(pts, recall)
        if b is not None and (best is None or b[2] < best[1][2]):
            best = (h, b)
    return best


def measure(design, data, budget):
    res = {"key": design.key, "name": design.name, "in_model": design.in_model, "folds": []}
    for f, tr, te in folds(data):
        g = design.graph(tr, data)
        curves = {h: M.curve(g, te, data, h, design.seeds, design.intersect, design.keep_seeds)
                  for h in design.hops}
        best = best_over_hops(curves, budget)
        cheap = cheapest_over_hops(curves, 0.90)
        # threshold from the training split alone: lowest t whose in-sample share fits
        h0 = best[0] if best else design.hops[0]
        insample = M.curve(g, tr, data, h0, design.seeds, design.intersect, design.keep_seeds)
        fit_t = [p[0] for p in insample if p[2] <= budget + 1e-12]
        t_train = min(fit_t) if fit_t else None
        p_train = M.at_threshold(curves[h0], t_train) if t_train is not None else None
        res["folds"].append({
            "fold": f, "steps": M.step_count(te),
            "best": None if best is None else {"hops": best[0], "threshold": best[1][0], "recall": best[1][1],
                                               "token_share": best[1][2], "tools": best[1][3]},
            "cheapest_090": None if cheap is None else {"hops": cheap[0], "threshold": cheap[1][0],
                                                        "recall": cheap[1][1], "token_share": cheap[1][2],
                                                        "tools": cheap[1][3]},
            "train_threshold": None if p_train is None else {"hops": h0, "threshold": t_train, "recall": p_train[1],
                                                             "token_share": p_train[2], "tools": p_train[3]},
        })
        if f == 0:
            res["curves_fold0"] = {h: [(p[0], p[1], p[2], p[3]) for p in pts if p[0] != M.INF]
                                   for h, pts in curves.items()}
    return res


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def five(res, what, field):
    return mean([(f[what] or {}).get(field) for f in res["folds"]])


# ------------------------------------------------------------ ceiling (not a graph)

def softmax_ceiling(data, budget, epochs=12):
    """Softmax regression over the available tools with features: previous call,
    the call before it, every earlier call (a bag), and a per-tool bias. Not a
    toolscope design: it shows how far the call sequence alone gets."""
    def feats(before):
        f = ["p1=" + before[-1], "bias"]
        if len(before) >= 2:
            f.append("p2=" + before[-2])
        f += ["in=" + x for x in set(before)]
        return f

    out = []
    for fold, tr, te in folds(data):
        W = collections.defaultdict(float)
        rows = [(feats(b), r.get("available") or data.tools, y) for r, b, y in M.steps(tr)]
        rnd = random.Random(0)
        lr = 0.3
        for _ in range(epochs):
            rnd.shuffle(rows)
            for fs, av, y in rows:
                z = [sum(W[(f, b)] for f in fs) for b in av]
                mx = max(z)
                e = [math.exp(v - mx) for v in z]
                s = sum(e)
                for b, ev in zip(av, e):
                    g = ev / s - (1.0 if b == y else 0.0)
                    for f in fs:
                        W[(f, b)] -= lr * (g + 1e-4 * W[(f, b)])
            lr *= 0.8
        items, at, n = [], 0.0, 0
        for r, b, y in M.steps(te):
            av = r.get("available") or data.tools
            fs = feats(b)
            n += 1
            at += sum(data.tok[x] for x in av)
            z = [sum(W.get((f, x), 0.0) for f in fs) for x in av]
            mx = max(z)
            e = [math.exp(v - mx) for v in z]
            s = sum(e)
            items += [(ev / s, data.tok[x], x == y) for x, ev in zip(av, e)]
        items.sort(key=lambda i: -i[0])
        t = h = 0.0
        for _, tk, hit in items:
            if (t + tk) / at > budget:
                break
            t += tk
            h += hit
        out.append(h / n)
    return out


# ------------------------------------------------------------ dataset facts

def facts(data):
    recs = data.records()
    by_split = {"train": data.train, "test": data.test}
    called = collections.Counter(c for r in recs for c in r["calls"])
    tr_steps = list(M.steps(data.train))
    seen = collections.Counter((b[-1], y) for _, b, y in tr_steps)
    te_steps = list(M.steps(data.test))
    return {
        "tools": len(data.tools),
        "tools_per_group": {g: len(ts) for g, ts in data.groups.items()},
        "tools_never_called": sorted(t for t in data.tools if called[t] == 0),
        "tokens_per_tool": {"mean": mean(list(data.tok.values())), "min": min(data.tok.values()),
                            "max": max(data.tok.values())},
        "tasks": {k: len({M.task(r) for r in v}) for k, v in by_split.items()},
        "records": {k: len(v) for k, v in by_split.items()},
        "steps": {k: M.step_count(v) for k, v in by_split.items()},
        "available_per_step": {"tools": mean([len(r["available"]) for r, _, _ in te_steps]),
                               "tokens": mean([sum(data.tok[t] for t in r["available"]) for r, _, _ in te_steps])},
        "test_target_is_previous_call": mean([y == b[-1] for _, b, y in te_steps]),
        "test_target_called_earlier": mean([y in b for _, b, y in te_steps]),
        "test_target_in_previous_group": mean([data.group[y] == data.group[b[-1]] for _, b, y in te_steps]),
        "test_transition_seen_in_train": mean([seen[(b[-1], y)] > 0 for _, b, y in te_steps]),
        "test_target_available": mean([y in r["available"] for r, _, y in te_steps]),
    }


def budget_curve(res, budgets):
    """Best recall within each budget over the fold-0 curves of all hops."""
    out = []
    for b in budgets:
        best = best_over_hops({h: [p for p in pts] for h, pts in res["curves_fold0"].items()}, b)
        out.append(None if best is None else (best[1][1], best[1][2], best[0], best[1][0]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "out"))
    ap.add_argument("--budget", type=float, default=0.30)
    ap.add_argument("--json", help="write every number (and the fold-0 curves) here")
    ap.add_argument("--only", help="comma-separated design keys")
    ap.add_argument("--tokens", help="JSON {tool: tokens} (model.py tokens) instead of len(json)/4")
    ap.add_argument("--no-ceiling", action="store_true", help="skip the softmax ceiling (about 15 s)")
    args = ap.parse_args()
    data = M.Data(args.data, args.tokens)

    report = {"facts": facts(data), "budget": args.budget, "designs": []}
    print("## Dataset\n")
    print("```\n" + json.dumps(report["facts"], indent=1) + "\n```\n")

    keys = set(args.only.split(",")) if args.only else None
    results = {}
    for d in designs():
        if keys and d.key not in keys:
            continue
        results[d.key] = measure(d, data, args.budget)
    print("## Designs at <= %d%% of the available tokens\n" % round(100 * args.budget))
    print("recall / token share / offered tools per step. Official split = tasks % 5 == 0 held out;"
          " 5-fold = mean over the five task splits.\n")
    print("| design | official split | t, hops | 5-fold mean | train-chosen t: official | train-chosen t: 5-fold | cheapest >= 0.90 (official) |")
    print("|---|---|---|---|---|---|---|")
    for key, res in results.items():
        f0 = res["folds"][0]
        b = f0["best"]
        tt = f0["train_threshold"]
        ch = f0["cheapest_090"]
        print("| %s%s | %s | %s | %.3f / %.1f%% | %s | %.3f / %.1f%% | %s |" % (
            res["name"], "" if res["in_model"] else " *",
            point_str(None if b is None else (b["threshold"], b["recall"], b["token_share"], b["tools"])),
            "-" if b is None else "%.4g, %d" % (b["threshold"], b["hops"]),
            five(res, "best", "recall") or 0, 100 * (five(res, "best", "token_share") or 0),
            "-" if tt is None else "%.3f / %.1f%% (t=%.4g)" % (tt["recall"], 100 * tt["token_share"], tt["threshold"]),
            five(res, "train_threshold", "recall") or 0, 100 * (five(res, "train_threshold", "token_share") or 0),
            "-" if ch is None else "%.1f%% (t=%.4g, h=%d)" % (100 * ch["token_share"], ch["threshold"], ch["hops"]),
        ))
        report["designs"].append(res)
    print("\n* not expressible as a toolscope recommendation\n")
    print("Everything available: recall %.3f at 100%% (%.1f tools per step).\n" % (
        report["facts"]["test_target_available"], report["facts"]["available_per_step"]["tools"]))

    budgets = [0.10, 0.15, 0.20, 0.25, 0.30, 0.35, 0.40, 0.50]
    show = [k for k in ("plain_noint", "plain", "reference") if k in results]
    if show:
        print("## Curve (official split): best recall within each token budget\n")
        print("| budget | " + " | ".join(results[k]["name"].split(":")[0] for k in show) + " |")
        print("|---|" + "---|" * len(show))
        cols = {k: budget_curve(results[k], budgets) for k in show}
        for i, b in enumerate(budgets):
            print("| %d%% | " % round(100 * b) + " | ".join(
                "-" if cols[k][i] is None else "%.3f (%.1f%%)" % (cols[k][i][0], 100 * cols[k][i][1]) for k in show) + " |")
        report["budget_curves"] = {k: [{"budget": b, "recall": None if c is None else c[0],
                                        "token_share": None if c is None else c[1]}
                                       for b, c in zip(budgets, cols[k])] for k in show}
        print()
    if not args.no_ceiling:
        ceil = softmax_ceiling(data, args.budget)
        report["softmax_ceiling"] = ceil
        print("Softmax regression on the whole call history (not a graph), recall at %d%%: official %.3f, 5-fold %.3f\n"
              % (round(100 * args.budget), ceil[0], mean(ceil)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
