#!/usr/bin/env python3
"""Turn BFCL's multi-turn data into toolscope inputs (standard library only).

Reads the bfcl-eval wheel as a zip (no install) and writes to OUT:

  defs/<Class>.json   one OpenAI function-calling defs file per API class that a
                      multi-turn task involves: [{"type": "function",
                      "function": {name, description, parameters}}], BFCL's own
                      types (dict, float, tuple, any, ...) mapped to JSON Schema
  train.jsonl         ordered traces of the training tasks
  test.jsonl          ordered traces of the held-out tasks
  meta.json           counts, the split rule, the wheel's version and digest

The wheel is fetched with `pip download --no-deps bfcl-eval==VERSION -d CACHE`
(CACHE defaults to $TOOLSCOPE_BFCL_CACHE, else ~/.cache/toolscope-bfcl), or
given with --wheel. Nothing of it belongs in the repository.

Split: by TASK NUMBER, never by record. BFCL's four multi-turn categories
(base, long_context, miss_func, miss_param) repeat the same 200 tasks with
the same ids' trailing number and nearly the same call sequences, so a split
by record would leak. A task is held out when `number % MOD == 0` (MOD=5
unless --holdout-mod says otherwise): tasks 0, 5, 10, ... are the test split.

One record per (category, task): {"id": "multi_turn_base_12", "operator":
"bfcl", "calls": [...], "called": [...], "available": [...], "requests": [...]}
where calls are the ground truth's function names in order across all turns (repeats kept,
empty turns skipped), parsed with `ast`, and available is every tool of the
task's involved classes less the task's `excluded_function` (the functions
BFCL withholds for that whole run). A miss_func task's `missed_function` is
withheld only until the turn that adds it back, and it is called only after
that, so it stays available. `requests[i]` is the text of the user turn in which
`calls[i]` happens (for a turn without a message, miss_func's turn that gives a
withheld function back, the latest user message before it): the query of the
retrievers peers.py compares with. toolscope ignores the field.
"""

import argparse
import ast
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import zipfile

VERSION = "2026.3.23"
CATEGORIES = ["base", "long_context", "miss_func", "miss_param"]
OPERATOR = "bfcl"
PKG = "bfcl_eval/"

# BFCL's parameter types -> JSON Schema. "any" means no constraint: {}.
# (BFCL's own GORILLA_TO_OPENAPI maps "any" to "string"; an empty schema is
# what "any" means in JSON Schema.) Types BFCL's Java/JS sets use are mapped
# too, though the multi-turn docs use only the first six.
TYPE_MAP = {
    "dict": "object",
    "object": "object",
    "float": "number",
    "number": "number",
    "double": "number",
    "integer": "integer",
    "int": "integer",
    "long": "integer",
    "short": "integer",
    "byte": "integer",
    "Bigint": "integer",
    "string": "string",
    "String": "string",
    "char": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "Boolean": "boolean",
    "array": "array",
    "list": "array",
    "tuple": "array",
    "ArrayList": "array",
    "Array": "array",
    "Queue": "array",
    "Stack": "array",
    "HashMap": "object",
    "Hashtable": "object",
    "any": None,
    "Any": None,
}


def default_cache():
    return os.environ.get("TOOLSCOPE_BFCL_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "toolscope-bfcl"
    )


def fetch_wheel(version, cache):
    """The wheel's path in CACHE, downloaded there by pip when absent."""
    name = "bfcl_eval-%s-py3-none-any.whl" % version
    path = os.path.join(cache, name)
    if os.path.exists(path):
        return path
    os.makedirs(cache, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
           "bfcl-eval==%s" % version, "-d", cache]
    subprocess.run(cmd, check=True)
    if not os.path.exists(path):
        found = [f for f in os.listdir(cache)
                 if f.startswith("bfcl_eval-%s-" % version) and f.endswith(".whl")]
        if not found:
            sys.exit("pip did not leave a bfcl_eval %s wheel in %s" % (version, cache))
        path = os.path.join(cache, found[0])
    return path


def read_jsonl(z, name):
    text = z.read(name).decode("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def class_file_mapping(z):
    """MULTI_TURN_FUNC_DOC_FILE_MAPPING from executable_backend_config.py, read
    with ast (the module is never imported)."""
    src = z.read(PKG + "constants/executable_backend_config.py").decode("utf-8")
    for node in ast.parse(src).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "MULTI_TURN_FUNC_DOC_FILE_MAPPING"
            for t in node.targets
        ):
            return ast.literal_eval(node.value)
    sys.exit("MULTI_TURN_FUNC_DOC_FILE_MAPPING not found in the wheel")


def to_schema(s):
    """A BFCL parameter schema as JSON Schema: types mapped (recursively through
    properties and items), description, required, enum and default kept."""
    if not isinstance(s, dict):
        return s
    out = {}
    for k, v in s.items():
        if k == "type":
            if isinstance(v, str):
                if v not in TYPE_MAP:
                    sys.exit("unmapped BFCL type %r" % v)
                if TYPE_MAP[v] is not None:
                    out["type"] = TYPE_MAP[v]
            else:
                out["type"] = v
        elif k == "properties":
            out[k] = {n: to_schema(p) for n, p in v.items()}
        elif k == "items":
            out[k] = to_schema(v)
        else:
            out[k] = v
    return out


def call_names(call_strings, where):
    names = []
    for s in call_strings:
        node = ast.parse(s, mode="eval").body
        if not isinstance(node, ast.Call):
            sys.exit("%s: not a call: %r" % (where, s))
        f = node.func
        if isinstance(f, ast.Name):
            names.append(f.id)
        elif isinstance(f, ast.Attribute):
            names.append(f.attr)
        else:
            sys.exit("%s: call of %s" % (where, ast.dump(f)))
    return names


def user_text(question, turn):
    """The user's message of a turn ("" for a turn with none: miss_func's turn that
    gives a withheld function back, whose calls answer the request before it)."""
    if turn >= len(question):
        return ""
    return "\n".join(m.get("content", "") for m in question[turn] if m.get("role") == "user")


def task_number(record_id):
    m = re.search(r"_(\d+)$", record_id)
    if not m:
        sys.exit("no task number in id %r" % record_id)
    return int(m.group(1))


def convert(wheel, out, holdout_mod=5, slice_n=None, categories=CATEGORIES):
    z = zipfile.ZipFile(wheel)
    names = set(z.namelist())
    mapping = class_file_mapping(z)

    records = []  # (task, record)
    involved_all = set()
    for cat in categories:
        qname = PKG + "data/BFCL_v4_multi_turn_%s.json" % cat
        aname = PKG + "data/possible_answer/BFCL_v4_multi_turn_%s.json" % cat
        if qname not in names or aname not in names:
            sys.exit("the wheel has no %s or %s" % (qname, aname))
        answers = {a["id"]: a for a in read_jsonl(z, aname)}
        for q in read_jsonl(z, qname):
            a = answers[q["id"]]
            task = task_number(q["id"])
            if slice_n is not None and task >= slice_n:
                continue
            calls, requests = [], []
            request = ""
            for i, turn in enumerate(a["ground_truth"]):
                request = user_text(q["question"], i) or request
                called = call_names(turn, "%s turn %d" % (q["id"], i))
                calls += called
                requests += [request] * len(called)
            involved_all.update(q["involved_classes"])
            records.append((task, q, calls, requests))

    # Tool definitions of every involved class, names made unique if needed.
    docs = {}
    for cls in sorted(involved_all):
        fname = PKG + "data/multi_turn_func_doc/" + mapping[cls]
        docs[cls] = read_jsonl(z, fname)
    owners = {}
    for cls, fns in docs.items():
        for fn in fns:
            owners.setdefault(fn["name"], []).append(cls)
    collisions = {n: c for n, c in owners.items() if len(c) > 1}

    def tool_name(cls, fn_name):
        # A name two classes share is written Class.name in both (BFCL itself
        # renames such functions, e.g. posting_get_login_status, so today
        # there is none).
        return "%s.%s" % (cls, fn_name) if fn_name in collisions else fn_name

    os.makedirs(os.path.join(out, "defs"), exist_ok=True)
    class_tools = {}
    for cls, fns in docs.items():
        entries = []
        for fn in fns:
            entries.append({"type": "function", "function": {
                "name": tool_name(cls, fn["name"]),
                "description": fn.get("description", ""),
                "parameters": to_schema(fn.get("parameters", {"type": "dict", "properties": {}})),
            }})
        class_tools[cls] = [e["function"]["name"] for e in entries]
        with open(os.path.join(out, "defs", cls + ".json"), "w") as f:
            json.dump(entries, f, indent=1, ensure_ascii=False)
            f.write("\n")

    splits = {"train": [], "test": []}
    steps = {"train": 0, "test": 0}
    tasks = {"train": set(), "test": set()}
    for task, q, calls, requests in records:
        involved = q["involved_classes"]
        excluded = set(q.get("excluded_function", []))
        by_plain = {}
        for cls in involved:
            for fn in docs[cls]:
                by_plain.setdefault(fn["name"], tool_name(cls, fn["name"]))
        tools = [by_plain[c] for c in calls]
        available = [t for cls in involved for t in class_tools[cls]
                     if t.split(".")[-1] not in excluded]
        for t in tools:
            if t not in available:
                sys.exit("%s calls %s, which is not available" % (q["id"], t))
        called = list(dict.fromkeys(tools))
        split = "test" if task % holdout_mod == 0 else "train"
        splits[split].append({"id": q["id"], "operator": OPERATOR, "calls": tools,
                              "called": called, "available": available, "requests": requests})
        steps[split] += max(len(tools) - 1, 0)
        tasks[split].add(task)
    for split, recs in splits.items():
        with open(os.path.join(out, split + ".jsonl"), "w") as f:
            for r in recs:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")

    with open(wheel, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    meta = {
        "wheel": os.path.basename(wheel),
        "sha256": digest,
        "categories": categories,
        "split": "task number %% %d == 0 -> test" % holdout_mod,
        "slice": slice_n,
        "classes": {c: len(t) for c, t in class_tools.items()},
        "tools": sum(len(t) for t in class_tools.values()),
        "collisions": collisions,
        "tasks": {s: len(t) for s, t in tasks.items()},
        "records": {s: len(r) for s, r in splits.items()},
        "steps": steps,
        "calls": {s: sum(len(r["calls"]) for r in recs) for s, recs in splits.items()},
    }
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    return meta


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--wheel", help="a bfcl-eval wheel already on disk")
    p.add_argument("--version", default=VERSION, help="bfcl-eval version (default %(default)s)")
    p.add_argument("--cache", default=default_cache(), help="where pip downloads the wheel")
    p.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "out"),
                   help="output folder (default benches/bfcl/out, git-ignored)")
    p.add_argument("--holdout-mod", type=int, default=5,
                   help="tasks whose number %% MOD == 0 are held out (default 5)")
    p.add_argument("--slice", type=int, help="only tasks 0..N-1 (for CI)")
    args = p.parse_args()
    wheel = args.wheel or fetch_wheel(args.version, args.cache)
    meta = convert(wheel, args.out, args.holdout_mod, args.slice)
    json.dump(meta, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
