"""A short reading of an OTLP JSON lines file: per trace, the agent, the calls, the tools offered.

    python3 read_otlp.py FILE...         # one line per trace
    python3 read_otlp.py --check [DIR]   # the committed fixtures still read as expected.json says

Standard library only. This is the ground truth toolscope's readers are tested against:
it reads every place the libraries of make.py were seen to put things, and reports
each source apart (calls from the inference spans' output messages, calls from tool
spans), so a test can tell which source a file carries.
"""

import json
import re
import sys

AGENT_KEYS = ("gen_ai.agent.name", "agent.name", "agent_name")
INFERENCE_OPS = {"chat", "text_completion", "generate_content"}

# OpenInference: llm.output_messages.<i>.message.tool_calls.<j>.tool_call.function.name
OI_CALL = re.compile(r"^llm\.output_messages\.(\d+)\.message\.tool_calls\.(\d+)\.tool_call\.(function\.name|id)$")
# Traceloop before the GenAI message attributes: gen_ai.completion.<i>.tool_calls.<j>.name
TL_CALL = re.compile(r"^gen_ai\.completion\.(\d+)\.tool_calls\.(\d+)\.(name|id)$")
OI_TOOL = re.compile(r"^llm\.tools\.(\d+)\.tool\.json_schema$")
TL_FUNC = re.compile(r"^llm\.request\.functions\.(\d+)\.name$")


def value(v):
    """An OTLP AnyValue as a Python value."""
    if "stringValue" in v:
        return v["stringValue"]
    if "intValue" in v:
        return int(v["intValue"])
    if "doubleValue" in v:
        return v["doubleValue"]
    if "boolValue" in v:
        return v["boolValue"]
    if "arrayValue" in v:
        return [value(x) for x in v["arrayValue"].get("values", [])]
    if "kvlistValue" in v:
        return {kv["key"]: value(kv.get("value", {})) for kv in v["kvlistValue"].get("values", [])}
    return None


def attrs(items):
    return {kv["key"]: value(kv.get("value", {})) for kv in items or []}


def spans_of(path):
    """Every span of a file, with its attributes and events decoded."""
    out = []
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            for rs in json.loads(line).get("resourceSpans", []):
                for ss in rs.get("scopeSpans", []):
                    scope = ss.get("scope", {}).get("name", "")
                    for s in ss.get("spans", []):
                        out.append({
                            "trace": s["traceId"], "id": s["spanId"], "parent": s.get("parentSpanId", ""),
                            "name": s.get("name", ""), "scope": scope,
                            "start": int(s.get("startTimeUnixNano", 0)),
                            "attrs": attrs(s.get("attributes")),
                            "events": [(e.get("name"), attrs(e.get("attributes"))) for e in s.get("events", [])],
                        })
    return out


def maybe_json(v):
    if isinstance(v, str):
        try:
            return json.loads(v)
        except ValueError:
            return None
    return v


def calls_in_messages(messages):
    """Tool calls in a list of GenAI output messages (parts) or OpenAI-style messages."""
    found = []
    for m in messages if isinstance(messages, list) else []:
        if not isinstance(m, dict):
            continue
        for p in m.get("parts") or []:
            if isinstance(p, dict) and p.get("type") == "tool_call":
                found.append((p.get("id"), p.get("name")))
        for tc in m.get("tool_calls") or []:  # OpenAI message shape
            fn = tc.get("function") or {}
            found.append((tc.get("id"), fn.get("name") or tc.get("name")))
        msg = m.get("message")
        if isinstance(msg, dict):
            found.extend(calls_in_messages([msg]))
    return found


def indexed(a, pattern, fields):
    """Values of keys matching `pattern` (groups: i, j, field), in numeric (i, j) order."""
    slots = {}
    for k, v in a.items():
        m = pattern.match(k)
        if m:
            slots.setdefault((int(m.group(1)), int(m.group(2))), {})[m.group(3)] = v
    return [(slots[key].get(fields[0]), slots[key].get(fields[1])) for key in sorted(slots)]


def output_calls(span):
    """(source, [(id, name)]) of the tool calls in an inference span's output, or None."""
    a = span["attrs"]
    if "gen_ai.output.messages" in a:
        return "gen_ai.output.messages", calls_in_messages(maybe_json(a["gen_ai.output.messages"]))
    oi = indexed(a, OI_CALL, ("id", "function.name"))
    if oi or any(k.startswith("llm.output_messages.") for k in a):
        return "llm.output_messages.*.message.tool_calls.*.tool_call.function.name", oi
    tl = indexed(a, TL_CALL, ("id", "name"))
    if tl or any(k.startswith("gen_ai.completion.") for k in a):
        return "gen_ai.completion.*.tool_calls.*.name", tl
    # Pydantic AI's first data format: messages as events (attribute `events` or span events).
    if "events" in a:
        evs = maybe_json(a["events"]) or []
        calls = calls_in_messages([e for e in evs if isinstance(e, dict)
                                   and e.get("event.name") in ("gen_ai.choice", None)])
        return "events (gen_ai.choice)", calls
    choice = [maybe_json(e[1].get("message")) or e[1] for e in span["events"] if e[0] == "gen_ai.choice"]
    if choice:
        return "span events gen_ai.choice", calls_in_messages(choice)
    return None


def tool_span(span):
    """(source, id, name) when the span is a tool execution, else None."""
    a = span["attrs"]
    if a.get("gen_ai.operation.name") == "execute_tool" and "gen_ai.tool.name" in a:
        return "execute_tool gen_ai.tool.name", a.get("gen_ai.tool.call.id"), a["gen_ai.tool.name"]
    if span["name"] == "running tool" and "gen_ai.tool.name" in a:
        return "running tool gen_ai.tool.name", a.get("gen_ai.tool.call.id"), a["gen_ai.tool.name"]
    if a.get("openinference.span.kind") == "TOOL" and "tool.name" in a:
        return "openinference TOOL tool.name", a.get("tool.call.id"), a["tool.name"]
    return None


def tool_names(defs):
    names = []
    for d in defs if isinstance(defs, list) else []:
        if isinstance(d, dict):
            fn = d.get("function") if isinstance(d.get("function"), dict) else d
            if fn.get("name"):
                names.append(fn["name"])
    return names


def offered(span):
    """(source, names) of the tools an inference span says the model was given, or None."""
    a = span["attrs"]
    if "gen_ai.tool.definitions" in a:
        return "gen_ai.tool.definitions", tool_names(maybe_json(a["gen_ai.tool.definitions"]))
    oi = sorted((int(m.group(1)), v) for k, v in a.items() for m in [OI_TOOL.match(k)] if m)
    if oi:
        return "llm.tools.*.tool.json_schema", tool_names([maybe_json(v) for _, v in oi])
    tl = sorted((int(m.group(1)), v) for k, v in a.items() for m in [TL_FUNC.match(k)] if m)
    if tl:
        return "llm.request.functions.*.name", [v for _, v in tl]
    if "model_request_parameters" in a:
        p = maybe_json(a["model_request_parameters"]) or {}
        return "model_request_parameters", tool_names(p.get("function_tools"))
    return None


def read_file(path):
    """Per trace (in file order): agent, calls by source, offered tools, run mark."""
    spans = spans_of(path)
    traces = {}
    for s in spans:
        traces.setdefault(s["trace"], []).append(s)
    out = []
    for trace, group in traces.items():
        group.sort(key=lambda s: s["start"])
        ids = {s["id"] for s in group}
        rec = {"trace_id": trace, "spans": len(group), "agent": None, "agent_attr": None,
               "root": [s["name"] for s in group if s["parent"] not in ids],
               "calls_outputs": [], "output_source": None, "call_ids": [],
               "calls_tool_spans": [], "tool_span_source": None,
               "offered": [], "offered_source": None, "run_mark": None,
               "finish_tool_calls": 0}
        for s in group:  # the outermost agent name (spans are in start order)
            for key in AGENT_KEYS:
                if rec["agent"] is None and isinstance(s["attrs"].get(key), str):
                    rec["agent"], rec["agent_attr"] = s["attrs"][key], key
        for s in group:
            got = output_calls(s)
            if got:
                rec["output_source"] = got[0]
                for cid, name in got[1]:
                    if cid is None or cid not in rec["call_ids"]:
                        rec["calls_outputs"].append(name)
                        rec["call_ids"].append(cid)
            t = tool_span(s)
            if t:
                rec["tool_span_source"] = t[0]
                rec["calls_tool_spans"].append(t[2])
            o = offered(s)
            if o and o[1]:
                rec["offered_source"] = o[0]
                rec["offered"] += [n for n in o[1] if n not in rec["offered"]]
            finish = s["attrs"].get("gen_ai.response.finish_reasons") or []
            if "tool_calls" in finish or "tool_call" in finish:  # OpenAI's word, GenAI's word
                rec["finish_tool_calls"] += 1
            if rec["run_mark"] is None:
                m = re.search(r"\[run (\d+)\]", json.dumps(s["attrs"]))
                if m:
                    rec["run_mark"] = int(m.group(1))
        out.append(rec)
    return out


def summary(reading, scenario):
    """What a file carries, checked against the script (runs in trace start order)."""
    runs = []
    totals = {"outputs": 0, "tool_spans": 0}
    exact = {"outputs": 0, "tool_spans": 0, "offered": 0, "agent": 0}
    for i, rec in enumerate(reading):
        want = scenario.calls_in_order(i) if i < len(scenario.RUNS) else None
        agent = scenario.RUNS[i][0] if i < len(scenario.RUNS) else None
        offered_want = scenario.AGENTS[agent][1] if agent else None
        totals["outputs"] += len(rec["calls_outputs"])
        totals["tool_spans"] += len(rec["calls_tool_spans"])
        exact["outputs"] += rec["calls_outputs"] == want
        exact["tool_spans"] += rec["calls_tool_spans"] == want
        exact["offered"] += sorted(rec["offered"]) == sorted(offered_want or [])
        exact["agent"] += rec["agent"] == agent
        runs.append({
            "run": i + 1, "trace_id": rec["trace_id"], "spans": rec["spans"], "root": rec["root"],
            "agent": rec["agent"], "run_mark": rec["run_mark"],
            "calls_outputs": rec["calls_outputs"], "calls_tool_spans": rec["calls_tool_spans"],
            "offered": rec["offered"], "finish_tool_calls": rec["finish_tool_calls"],
        })
    n = len(scenario.RUNS)
    pick = lambda key: sorted({r[key] for r in reading if r[key]})  # noqa: E731
    return {
        "traces": len(reading),
        "trace_ids": [r["trace_id"] for r in reading],
        "agent_attr": pick("agent_attr"),
        "calls_readable": exact["outputs"] == n or exact["tool_spans"] == n,
        "calls_in_outputs": pick("output_source"),
        "calls_in_tool_spans": pick("tool_span_source"),
        "inference_spans_finishing_in_tool_calls": sum(r["finish_tool_calls"] for r in reading),
        "calls_have_ids": any(r["call_ids"] for r in reading) and all(all(r["call_ids"]) for r in reading),
        "offered_recorded": exact["offered"] == n,
        "offered_in": pick("offered_source"),
        "recovered": {"calls_from_outputs": totals["outputs"], "calls_from_tool_spans": totals["tool_spans"],
                      "runs_exact_from_outputs": exact["outputs"], "runs_exact_from_tool_spans": exact["tool_spans"],
                      "runs_offered_exact": exact["offered"], "runs_agent_right": exact["agent"]},
        "runs": runs,
    }


def check(folder):
    """Re-read the committed fixtures and compare with expected.json (0 when all agree)."""
    import os

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import scenario

    expected = json.load(open(os.path.join(folder, "expected.json")))
    bad = 0
    for name, entry in sorted(expected["files"].items()):
        now = summary(read_file(os.path.join(folder, name)), scenario)
        diff = sorted(k for k in now if now[k] != entry.get(k))
        bad += bool(diff)
        print(f"{name}: " + (f"differs in {', '.join(diff)}" if diff else
                             f"ok ({now['recovered']['calls_from_outputs']} calls from outputs, "
                             f"{now['recovered']['calls_from_tool_spans']} from tool spans)"))
    return 1 if bad else 0


def main():
    if sys.argv[1:2] == ["--check"]:
        sys.exit(check(sys.argv[2] if len(sys.argv) > 2 else "tests/fixtures/otlp-libs"))
    for path in sys.argv[1:]:
        print(f"== {path}")
        for rec in read_file(path):
            print(json.dumps({k: rec[k] for k in ("trace_id", "agent", "calls_outputs", "calls_tool_spans", "offered")}))


if __name__ == "__main__":
    main()
