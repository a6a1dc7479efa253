#!/usr/bin/env python3
"""The step evaluation and the learned graphs of the BFCL benchmark, in plain Python.

This is the reference the Rust `toolscope eval --steps`, `init --traces` and `fit`
are checked against (README.md in this folder gives the rules in words). Standard
library only.

  python3 model.py write-yaml --data out --out out   # plain.yaml and reference.yaml
  python3 model.py eval --data out                   # their held-out curves, as JSON
  python3 model.py summarize out/eval-*.json         # best recall within the budget
  python3 model.py tokens --kit out/reference.yaml > out/tokens-o200k.json
                                                     # toolscope's count per tool, for --tokens

Graph: one action per tool, named "call <tool>", calling its tool with score 1.0; the
learned part is the Next scores between actions, kept here as {tool a: {tool b: s}}.
"""

import argparse
import collections
import glob
import json
import math
import os
import sys

INF = float("inf")
OPERATOR = "bfcl"
PRIOR_WEIGHT = 2.0  # m: the written score counts as this many steps


def round4(x):
    """Half away from zero at 4 decimals, as Rust's (x * 1e4).round() / 1e4."""
    return math.floor(x * 10000.0 + 0.5) / 10000.0


def action(tool):
    return "call " + tool


# ---------------------------------------------------------------- data

class Data:
    """Tools (token estimate, group, definition) and the trace records of a
    convert.py output folder."""

    def __init__(self, folder, tokens=None):
        self.folder = folder
        self.tok = {}      # tool -> estimated tokens
        self.group = {}    # tool -> group (the defs file's class)
        self.defs = {}     # tool -> OpenAI function object
        self.groups = collections.OrderedDict()
        for path in sorted(glob.glob(os.path.join(folder, "defs", "*.json"))):
            g = os.path.basename(path)[:-5]
            self.groups[g] = []
            for e in json.load(open(path)):
                fn = e["function"] if "function" in e else e
                name = fn["name"]
                self.defs[name] = fn
                # The stand-in tokenizer: a token per 4 characters of the compact
                # JSON of {name, description, parameters}. (toolscope counts o200k
                # tokens of its own describe --style json entry.)
                self.tok[name] = len(json.dumps(fn, separators=(",", ":"), ensure_ascii=False)) / 4.0
                self.group.setdefault(name, g)
                self.groups[g].append(name)
        self.tools = list(self.tok)
        if tokens:
            # real counts, e.g. toolscope's o200k (model.py tokens writes them)
            with open(tokens) as f:
                counts = json.load(f)
            missing = [t for t in self.tools if t not in counts]
            if missing:
                sys.exit("%s has no count for %s" % (tokens, ", ".join(missing[:5])))
            self.tok = {t: float(counts[t]) for t in self.tools}
        self.train = read_jsonl(os.path.join(folder, "train.jsonl"))
        self.test = read_jsonl(os.path.join(folder, "test.jsonl"))

    def records(self):
        return self.train + self.test


def read_jsonl(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def task(record):
    return int(str(record["id"]).rsplit("_", 1)[1])


def steps(records):
    """(record, calls before, target) for every call after a record's first."""
    for r in records:
        calls = r["calls"]
        for i in range(1, len(calls)):
            yield r, calls[:i], calls[i]


# ---------------------------------------------------------------- learning

def transition_counts(records, window=1):
    """c[a][b]: steps whose target is b with a among the previous `window` calls."""
    c = collections.defaultdict(collections.Counter)
    for _, before, target in steps(records):
        for a in set(before[-window:]):
            c[a][target] += 1
    return c


def plain_graph(records):
    """The plain transition-count graph: N(a, b) = c(a, b) / n_a, 4 decimals."""
    c = transition_counts(records)
    return {a: {b: round4(k / sum(row.values())) for b, k in row.items()}
            for a, row in c.items()}


def group_popularity(records, data):
    """P(b) = u(b) / U(group of b): u(b) the training steps whose target is b, U(g)
    the steps whose target is a tool of group g (0 when U(g) = 0)."""
    u = collections.Counter(target for _, _, target in steps(records))
    per_group = collections.Counter()
    for b, k in u.items():
        per_group[data.group[b]] += k
    return {b: (u[b] / per_group[data.group[b]] if per_group[data.group[b]] else 0.0)
            for b in data.tools}


MAX_NEXT = 20  # init's most Next edges per action: 19 from runs and prior, 1 for reach


def init_prior(records, data):
    """What `init --traces` writes: per tool a, Next call a -> call b with score w(b) =
    round4(P(b) / max P) (0 for a tool no step targets), for the b of its row: a's
    successors in the steps (most steps first, then name), then the tools its records
    had (`available`, else their calls) with w > 0, then every tool with w > 0, these
    two by w descending, then name; MAX_NEXT - 1 at most. Then reach_all(): at most one
    edge more per row, so that every action is reachable from the operator's."""
    p = group_popularity(records, data)
    top = max(p.values()) if p else 0.0
    w = {b: (round4(v / top) if top > 0 else 0.0) for b, v in p.items()}
    c = transition_counts(records)
    likely = [b for b in sorted(data.tools, key=lambda b: (-w[b], b)) if w[b] > 0]
    had = collections.defaultdict(set)
    for r in records:
        names = r.get("available") or r["calls"]
        tools = set()
        for n in names:
            tools.update(data.groups.get(n, [n]) if n not in data.group else [n])
        for x in set(r["calls"]):
            had[x] |= tools
    rows = {}
    for a in sorted(data.tools):
        row = sorted(c.get(a, {}), key=lambda b: (-c[a][b], b))
        row = [b for b in row if b in w][:MAX_NEXT - 1]
        for b in [b for b in likely if b in had[a]] + likely:
            if len(row) >= MAX_NEXT - 1:
                break
            if b not in row:
                row.append(b)
        rows[a] = row
    rows = reach_all(rows, first_calls(records))
    return {a: {b: w[b] for b in row} for a, row in rows.items()}


def reach_all(rows, seeds):
    """rows ({tool: [tools]}) with one edge added to some rows so that every tool's action
    is reachable from the seeds' (the first tool by name when there are none): the
    unreached in name order u_0, u_1, ... each get an edge from the i-th of the reached
    (name order) followed by the unreached."""
    order = sorted(rows)
    stack = [s for s in seeds if s in rows] or order[:1]
    seen = set()
    while stack:
        a = stack.pop()
        if a not in seen:
            seen.add(a)
            stack.extend(b for b in rows[a] if b not in seen)
    reached = [a for a in order if a in seen]
    unreached = [a for a in order if a not in seen]
    out = {a: list(row) for a, row in rows.items()}
    for u, parent in zip(unreached, reached + unreached):
        out[parent].append(u)
    return out


def fit_row(w, row, m):
    """One row as fit writes it with prior weight m: r(a, b) = (c(a, b) + m * w(a, b)) /
    (n_a + m) over the edges a -> b that exist or were stepped, scaled to a row maximum
    of 1 and rounded; None when every r is 0 (the row stays as written)."""
    n = sum(row.values())
    r = {b: (row.get(b, 0) + m * w.get(b, 0.0)) / (n + m) for b in set(w) | set(row)}
    top = max(r.values()) if r else 0.0
    if top <= 0:
        return None
    return {b: round4(v / top) for b, v in r.items()}


WEIGHTS = (0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)   # 0: the plain transition counts
FOLDS = 5
OFFER_SIZES = 15
EPS = 1e-9


def step_score(row, available, target):
    """Mean over offers of the first k = 1..15 tools of the row (by score, cut to the
    run's available tools) of the hit; tied tools share the places left; a target of
    score 0 scores 0."""
    best = {b: s for b, s in row.items() if available is None or b in available}
    if best.get(target, 0.0) <= 0:   # score 0: only a threshold of 0 offers it (the whole row)
        return 0.0
    v = best[target]
    above = sum(1 for s in best.values() if s > v)
    tied = sum(1 for s in best.values() if s == v)
    return sum(min(1.0, max(0.0, (k - above) / tied)) for k in range(1, OFFER_SIZES + 1)) / OFFER_SIZES


def choose_smoothing(graph, records):
    """fit's choice of how far to trust the runs (core/src/evidence/learn.rs, Smoothing):
    the prior weight of WEIGHTS with the best 5-fold cross-validated score (folds by
    distinct call sequence, the i-th distinct in record order to fold i % 5, so repeats
    of a task stay on one side), ties to the weight nearest 2 then the smaller; then the
    rows whose held-out steps score higher with m = 0 fall back to the plain counts.
    Returns {"weight", "runs", "folds", "steps", "scores", "rows", "plain_rows",
    "chosen_score"}."""
    seen, fold_of = {}, []
    for r in records:
        fold_of.append(seen.setdefault(tuple(r["calls"]), len(seen)) % FOLDS)
    fixed = {"weight": PRIOR_WEIGHT, "runs": len(seen), "folds": 0, "steps": 0, "scores": [],
             "rows": 0, "plain_rows": [], "chosen_score": None}
    if len(seen) < FOLDS:
        return fixed
    total = [0.0] * len(WEIGHTS)
    per_row = {}
    steps_n = 0
    for f in range(FOLDS):
        train = [r for r, g in zip(records, fold_of) if g != f]
        c = transition_counts(train)
        rows = {}
        for r, g in zip(records, fold_of):
            if g != f:
                continue
            available = set(r["available"]) if r.get("available") is not None else None
            calls = r["calls"]
            for i in range(1, len(calls)):
                a, x = calls[i - 1], calls[i]
                if a not in graph and a not in c:
                    continue
                steps_n += 1
                scores = per_row.setdefault(a, [0.0] * len(WEIGHTS))
                for j, m in enumerate(WEIGHTS):
                    if (a, j) not in rows:
                        fitted = fit_row(graph.get(a, {}), c[a], m) if a in c else None
                        rows[(a, j)] = fitted if fitted is not None else dict(graph.get(a, {}))
                    v = step_score(rows[(a, j)], available, x)
                    total[j] += v
                    scores[j] += v
    if steps_n == 0:
        return fixed
    best = 0
    for i in range(1, len(WEIGHTS)):
        a, b = total[i], total[best]
        nearer = abs(WEIGHTS[i] - PRIOR_WEIGHT) < abs(WEIGHTS[best] - PRIOR_WEIGHT)
        if a > b + EPS or (a >= b - EPS and nearer):
            best = i
    plain_rows = sorted(a for a, s in per_row.items() if s[0] > s[best] + EPS)
    chosen = sum(s[0] if s[0] > s[best] + EPS else s[best] for s in per_row.values())
    return {"weight": WEIGHTS[best], "runs": len(seen), "folds": FOLDS, "steps": steps_n,
            "scores": [(m, t / steps_n) for m, t in zip(WEIGHTS, total)], "rows": len(per_row),
            "plain_rows": plain_rows, "chosen_score": chosen / steps_n}


def fit_next(graph, records, operator, m=None):
    """What `fit` writes for Next scores: the smoothing choose_smoothing() picks (or the
    weight m when given, no fallback), each row with n_a > 0 fitted by fit_row() with its
    weight (0 for the rows that fall back to the plain counts). Rows with n_a = 0 are left
    as written. Then the repairs (repairs(); operator = (seeds, threshold, hops)):
    N(a, b) = max(N(a, b), t) on the edges that keep the records complete."""
    if m is None:
        choice = choose_smoothing(graph, [r for r in records if r.get("calls") is not None])
    else:
        choice = {"weight": m, "plain_rows": []}
    plain = set(choice["plain_rows"])
    c = transition_counts(records)
    out = {a: dict(row) for a, row in graph.items()}
    for a, row in c.items():
        fitted = fit_row(graph.get(a, {}), row, 0.0 if a in plain else choice["weight"])
        if fitted is not None:
            out[a] = fitted
    for (a, b), t in repairs(graph, out, records, *operator).items():
        out[a][b] = max(out[a][b], t)
    fit_next.last_choice = choice
    return out


def layers(graph, seeds, t, hops):
    """{tool: hops from the seeds} over the edges of score >= t (Chat2Graph's rounds)."""
    fwd = {s: 0 for s in seeds}
    frontier = list(seeds)
    for k in range(1, hops + 1):
        nxt = []
        for a in frontier:
            for b, s in graph.get(a, {}).items():
                if s >= t and b not in fwd:
                    fwd[b] = k
                    nxt.append(b)
        if not nxt:
            break
        frontier = nxt
    return fwd


def repairs(before, learned, records, seeds, t, hops):
    """{(a, b): t} for the Next edges fit raises back to t so that no record complete
    before the fit loses it (the records name the operator and carry no parameters of
    their own, as BFCL's do; an action's Call score is 1.0, offered when t <= 1). A
    called tool is lost when its action is no longer reached within the hops over the
    learned scores; for each lost tool, of the paths of at most `hops` edges of score
    >= t before the fit from a seed to its action, the one needing the least raise (the
    sum of t - s over its edges whose learned score s is below t) has those edges
    raised. Ties: from the action back to the seeds, the fewest hops, then the
    predecessor with the smallest name."""
    was = layers(before, seeds, t, hops)
    now = layers(learned, seeds, t, hops)
    out = {}
    for called in {frozenset(x for x in called_of(r) if x in before) for r in records}:
        if not called or t > 1.0 or any(x not in was for x in called):
            continue
        for x in called:
            if x not in now:
                for a, b in cheapest_path(before, learned, was, t, hops, x):
                    out[(a, b)] = max(out.get((a, b), 0.0), t)
    return out


def cheapest_path(before, learned, was, t, hops, target):
    """The edges to raise on repairs()' path to `target` (reached before: `was`):
    cost[k][v] is the least raise from a seed to v within k hops."""
    into = collections.defaultdict(list)   # v -> [(u, cost)]
    for u in was:
        for v, s in before.get(u, {}).items():
            if s >= t and v in was:
                into[v].append((u, max(0.0, t - learned[u][v])))
    cost = [{v: (0 if k == 0 else INF) for v, k in was.items()}]
    for _ in range(hops):
        prev = cost[-1]
        nxt = dict(prev)
        for v, edges in into.items():
            for u, c in edges:
                nxt[v] = min(nxt[v], prev[u] + c)
        if nxt == prev:
            break
        cost.append(nxt)
    v, need, k, out = target, cost[-1][target], len(cost) - 1, []
    while True:
        while k > 0 and cost[k - 1][v] == need:
            k -= 1
        if k == 0:
            return out
        u, c = min((e for e in into[v] if cost[k - 1][e[0]] + e[1] == need), key=lambda e: e[0])
        if c > 0.0:
            out.append((u, v))
        need, v, k = cost[k - 1][u], u, k - 1


def called_of(record):
    """The record's called tools: `called` when given, else its `calls`."""
    called = record.get("called")
    return record["calls"] if called is None else called


def reference_graph(records, data, m=None):
    """The recommended design: init's group-popularity prior, then one fit, with the
    operator init writes (the actions of the first calls, REFERENCE_THRESHOLD, hops 1)."""
    operator = (first_calls(records), REFERENCE_THRESHOLD, REFERENCE_HOPS)
    return fit_next(init_prior(records, data), records, operator, m)


def first_calls(records):
    return sorted({r["calls"][0] for r in records if r["calls"]})


# ---------------------------------------------------------------- evaluation

def reach(graph, seeds, hops):
    """For every tool whose action the recommendation can keep: the highest threshold
    at which it is kept (seeds: always). The widest path of at most `hops` Next edges,
    which is the same set as Chat2Graph's frontier rounds at any threshold."""
    value = {s: INF for s in seeds}
    frontier = dict(value)
    for _ in range(hops):
        nxt = {}
        for a, va in frontier.items():
            for b, s in graph.get(a, {}).items():
                v = min(va, s)
                if v > value.get(b, -1.0) and v > nxt.get(b, -1.0):
                    nxt[b] = v
        for b, v in nxt.items():
            value[b] = max(value.get(b, -1.0), v)
        frontier = nxt
        if not frontier:
            break
    return value


def last_k(k):
    return lambda before: set(before[-k:])


def curve(graph, records, data, hops=1, seeds=last_k(1), intersect=True, keep_seeds=True):
    """The exact step function over the threshold: [(t, recall, token share, tools per
    step)], t ascending, each point the offer at threshold t (a tool is offered when
    its value >= t). Token share is a ratio of means: offered tokens over the tokens
    of everything available, both summed over steps."""
    hits = collections.Counter()
    tokens = collections.Counter()
    count = collections.Counter()
    n = 0
    available_tokens = 0.0
    for r, before, target in steps(records):
        available = set(r.get("available") or data.tools)
        s = seeds(before)
        value = reach(graph, s, hops)
        if not keep_seeds:
            # out of the model: a seed's own tool only when a Next edge brings it
            for x in s:
                value[x] = max([graph.get(a, {}).get(x, -1.0) for a in s])
        n += 1
        available_tokens += sum(data.tok[b] for b in available)
        for b, v in value.items():
            if v < 0 or (intersect and b not in available):
                continue
            tokens[v] += data.tok[b]
            count[v] += 1
            if b == target:
                hits[v] += 1
    points = []
    h = t = k = 0.0
    for v in sorted(set(tokens) | set(hits), reverse=True):
        h += hits[v]
        t += tokens[v]
        k += count[v]
        points.append((v, h / n, t / available_tokens, k / n))
    return points[::-1]


def at_threshold(points, t):
    """The point of a curve for threshold t (the offer of every value >= t)."""
    for p in points:
        if p[0] >= t:
            return p
    return (t, 0.0, 0.0, 0.0)


def best_within(points, budget):
    """Highest recall whose token share <= budget (ties: fewer tokens)."""
    ok = [p for p in points if p[2] <= budget + 1e-12 and p[0] != INF]
    return max(ok, key=lambda p: (p[1], -p[2])) if ok else None


def cheapest_reaching(points, recall):
    ok = [p for p in points if p[1] >= recall - 1e-12]
    return min(ok, key=lambda p: p[2]) if ok else None


def step_count(records):
    return sum(1 for _ in steps(records))


# ---------------------------------------------------------------- native YAML

def q(s):
    """A YAML double-quoted scalar (JSON's escapes are YAML's)."""
    return json.dumps(s, ensure_ascii=True)


def fmt(x):
    return ("%.4f" % x).rstrip("0").rstrip(".") if x != int(x) else "%.1f" % x


def write_toolkit(path, data, graph, operator_actions, threshold, hops, name):
    """A native toolscope toolkit: tools (inputs from each definition's top-level
    properties; nested schemas are not expressible there, about 2% of the
    characters), one group per defs file, one action per tool, the Next scores."""
    lines = ["# Written by benches/bfcl/model.py: %s. Do not edit." % name,
             "name: %s" % q(name), "", "tools:"]
    for t in data.tools:
        fn = data.defs[t]
        params = fn.get("parameters") or {}
        req = set(params.get("required") or [])
        lines.append("  - name: %s" % q(t))
        lines.append("    desc: %s" % q(fn.get("description", "")))
        props = params.get("properties") or {}
        if props:
            lines.append("    inputs:")
            for pname, p in props.items():
                ty = p.get("type", "")
                if isinstance(ty, list):
                    ty = next((x for x in ty if x != "null"), "")
                lines.append("      - {name: %s, type: %s, required: %s, desc: %s}" % (
                    q(pname), q(ty), "true" if pname in req else "false",
                    q(p.get("description", ""))))
    lines += ["", "groups:"]
    for g, members in data.groups.items():
        lines.append("  - {name: %s, tools: [%s]}" % (q(g), ", ".join(q(m) for m in members)))
    lines += ["", "actions:"]
    for a in data.tools:
        lines.append("  - name: %s" % q(action(a)))
        lines.append("    tools: [%s]" % q(a))
        row = graph.get(a, {})
        if row:
            lines.append("    next:")
            for b in sorted(row, key=lambda b: (-row[b], b)):
                lines.append("      - {name: %s, score: %s}" % (q(action(b)), fmt(row[b])))
    lines += ["", "operators:",
              "  - name: %s" % q(OPERATOR),
              "    actions: [%s]" % ", ".join(q(action(a)) for a in operator_actions),
              "    threshold: %s" % fmt(threshold),
              "    hops: %d" % hops, ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


# ---------------------------------------------------------------- CLI

REFERENCE_THRESHOLD = 0.02  # the operator default; README.md shows the curve
REFERENCE_HOPS = 1
PLAIN_THRESHOLD = 0.06


def summary(points, budget):
    b = best_within(points, budget)
    return {"budget": budget,
            "best": None if b is None else {"threshold": b[0], "recall": b[1],
                                            "token_share": b[2], "tools": b[3]},
            "curve": [{"threshold": p[0], "recall": p[1], "token_share": p[2], "tools": p[3]}
                      for p in points if p[0] != INF]}


def sweep_points(doc):
    """(threshold, hops, recall, token share, tools) from a `toolscope eval --steps
    --sweep --format json` report: {"overall": {"baseline": {"tokens"}, "sweep":
    [{"threshold", "hops", "recall", "offered_tools", "tokens", "token_ratio"}]},
    "operators": [...]}; token_ratio may be missing, then tokens / baseline tokens. Also
    reads points at the top level or per operator."""
    pts = []
    base = (doc.get("baseline") or {}).get("tokens")

    def take(items, base, hops=None):
        for p in items or []:
            if not isinstance(p, dict) or "threshold" not in p or "recall" not in p:
                continue
            ratio = p.get("token_ratio")
            if ratio is None and base and p.get("tokens") is not None:
                ratio = p["tokens"] / base
            if ratio is None:
                continue
            pts.append((p["threshold"], p.get("hops", hops), p["recall"], ratio, p.get("offered_tools")))

    for key in ("sweep", "steps"):
        if isinstance(doc.get(key), list):
            take(doc[key], base, doc.get("hops"))
    overall = doc.get("overall") or {}
    if isinstance(overall.get("sweep"), list):
        # toolscope eval --steps: every record pooled (the operators' points repeat it)
        take(overall["sweep"], (overall.get("baseline") or {}).get("tokens") or base)
        return pts
    for op in doc.get("operators") or []:
        b = (op.get("baseline") or {}).get("tokens") or base
        for key in ("sweep", "steps"):
            if isinstance(op.get(key), list):
                take(op[key], b, op.get("hops"))
    return pts


def summarize(paths, budget):
    rows = {}
    for path in paths:
        name = os.path.basename(path)
        with open(path) as f:
            doc = json.load(f)
        if "reference" in doc and "plain" in doc:   # model.py eval's own report
            for k in ("plain", "reference"):
                best = None
                for h, s in doc[k].items():
                    b = s["best"]
                    if b and (best is None or b["recall"] > best[2]):
                        best = (b["threshold"], int(h.split("_")[1]), b["recall"], b["token_share"], b["tools"])
                rows["python " + k] = best
            continue
        ok = [p for p in sweep_points(doc) if p[3] <= budget + 1e-12]
        rows[name] = max(ok, key=lambda p: (p[2], -p[3])) if ok else None
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["write-yaml", "eval", "summarize", "tokens"])
    ap.add_argument("reports", nargs="*", help="summarize: eval JSON reports")
    ap.add_argument("--data", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "out"))
    ap.add_argument("--out", help="folder for plain.yaml and reference.yaml (default: --data)")
    ap.add_argument("--budget", type=float, default=0.30)
    ap.add_argument("--tokens", help="JSON {tool: tokens} to use instead of len(json)/4")
    ap.add_argument("--toolscope", default=os.environ.get("TOOLSCOPE", "toolscope"),
                    help="tokens: the binary (default $TOOLSCOPE or toolscope)")
    ap.add_argument("--kit", help="tokens: the toolkit whose tool entries are counted")
    args = ap.parse_args()
    if args.command == "summarize":
        rows = summarize(args.reports, args.budget)
        print("best recall with token share <= %.0f%%:" % (100 * args.budget))
        print("%-28s %8s %12s %10s %5s %7s" % ("report", "recall", "token share", "threshold", "hops", "tools"))
        for name, p in rows.items():
            if p is None:
                print("%-28s %8s" % (name, "-"))
            else:
                print("%-28s %8.3f %11.1f%% %10.4g %5s %7s" % (
                    name, p[2], 100 * p[3], p[0], p[1], "-" if p[4] is None else "%.1f" % p[4]))
        return
    data = Data(args.data, args.tokens)
    if args.command == "tokens":
        # toolscope's own count of each tool's entry: the offer of its action alone
        import subprocess
        counts = {}
        for t in data.tools:
            out = subprocess.run([args.toolscope, "recommend", args.kit, "--seed", action(t), "-t", "1",
                                  "--hops", "0", "--format", "json"], capture_output=True, text=True, check=True)
            rec = json.loads(out.stdout)
            if rec.get("tools") != [t]:
                sys.exit("the offer of %s alone was %s" % (action(t), rec.get("tools")))
            counts[t] = rec["tokens"]
        json.dump(counts, sys.stdout, indent=1, sort_keys=True)
        print()
        return
    plain = plain_graph(data.train)
    ref = reference_graph(data.train, data)
    firsts = first_calls(data.train)
    if args.command == "write-yaml":
        out = args.out or args.data
        write_toolkit(os.path.join(out, "plain.yaml"), data, plain, firsts, PLAIN_THRESHOLD, 2,
                      "bfcl plain transition counts")
        write_toolkit(os.path.join(out, "reference.yaml"), data, ref, firsts, REFERENCE_THRESHOLD, REFERENCE_HOPS,
                      "bfcl group-smoothed transitions (Python reference)")
        print("wrote %s and %s" % (os.path.join(out, "plain.yaml"), os.path.join(out, "reference.yaml")),
              file=sys.stderr)
        return
    report = {"steps": step_count(data.test), "records": len(data.test)}
    for name, graph, hops in (("plain", plain, (1, 2)), ("reference", ref, (1,))):
        report[name] = {"hops_%d" % h: summary(curve(graph, data.test, data, h), args.budget)
                        for h in hops}
    json.dump(report, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
