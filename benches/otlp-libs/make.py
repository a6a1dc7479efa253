"""Makes toolscope's OTLP fixtures with the real instrumentation libraries (run by hand).

    python3 benches/otlp-libs/make.py                 # every row
    python3 benches/otlp-libs/make.py pydantic-ai-2   # some rows
    python3 benches/otlp-libs/make.py --kit-only      # kit.yml and expected.json's script part
    python3 benches/otlp-libs/make.py --lock ROW      # rewrite lock-ROW.txt from the venv

Creates one virtual environment per row under target/otlp-libs/venvs/ from
requirements-ROW.txt (then lock-ROW.txt, if present, pins the rest), starts
fake_openai.py on a free port of 127.0.0.1, runs agent_run.py in each row's venv and
writes tests/fixtures/otlp-libs/: one .jsonl per row and mode, kit.yml, expected.json.
Each file is read back by read_otlp.py and checked against the script; a row whose
reading differs from the script fails here, before anything is committed.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
OUT = ROOT / "tests" / "fixtures" / "otlp-libs"
WORK = ROOT / "target" / "otlp-libs"
VENVS = WORK / "venvs"

sys.path.insert(0, str(HERE))
import read_otlp  # noqa: E402
import scenario  # noqa: E402

# file -> (venv row, agent_run.py row, --mode, what the file is)
FILES = {
    "pydantic-ai-2.jsonl": ("pydantic-ai-2", "pydantic-ai", "", "Pydantic AI 2.x, default data format (5)"),
    # 2.68 offers data formats 2 to 6 (default 5); 2, the oldest, is the other one kept.
    "pydantic-ai-2-v2.jsonl": ("pydantic-ai-2", "pydantic-ai", "2", "Pydantic AI 2.x, data format 2"),
    "openai-agents.jsonl": ("openai-agents", "openai-agents", "", "OpenAI Agents SDK + OpenInference"),
    "openinference-openai.jsonl": ("openinference-openai", "openinference-openai", "", "OpenInference openai"),
    "traceloop-0.62.jsonl": ("traceloop-0.62", "traceloop", "", "Traceloop OpenLLMetry 0.62"),
    "traceloop-0.54.jsonl": ("traceloop-0.54", "traceloop", "", "Traceloop OpenLLMetry 0.54"),
    "openai-v2.jsonl": ("openai-v2", "openai-v2", "content", "OpenTelemetry openai-v2, content captured"),
    "openai-v2-no-content.jsonl": ("openai-v2", "openai-v2", "no-content", "OpenTelemetry openai-v2, default mode"),
    "pydantic-ai-1.jsonl": ("pydantic-ai-1", "pydantic-ai", "", "Pydantic AI 1.0.x, default data format"),
    # 1.0.0 names the agent only in `agent_name` (1.0.18 adds gen_ai.agent.name).
    "pydantic-ai-1.0.0.jsonl": ("pydantic-ai-1.0.0", "pydantic-ai", "", "Pydantic AI 1.0.0, default data format"),
}

# The toolkit: each agent an operator whose actions call its tools.
KIT_ACTIONS = {
    "researcher": [
        ("web_search", "Find sources on the web.", ["search_web", "get_time"], ["read_sources"]),
        ("read_sources", "Read the pages found.", ["fetch_page"], ["write_answer"]),
        ("write_answer", "Write the answer in the user's language.", ["translate"], []),
    ],
    "analyst": [
        ("explore_files", "Find and read the data files.", ["list_dir", "read_file"], ["query_sales", "compute"]),
        ("query_sales", "Query the sales database.", ["run_sql"], ["compute"]),
        ("compute", "Work out the figures.", ["calculate", "get_time"], []),
    ],
    "assistant": [
        ("check_conditions", "Look up the time and the weather.", ["get_weather", "get_time", "calculate"], ["send_message"]),
        ("send_message", "Write and send the message.", ["translate", "send_email"], []),
    ],
}


def kit_yaml():
    import inspect

    lines = ["# The toolkit of benches/otlp-libs/scenario.py (written by make.py): 10 tools,",
             "# three agents as operators, their actions calling the tools they offer.",
             "name: otlp-libs", "tools:"]
    for fn in scenario.TOOLS:
        lines.append(f"  - name: {fn.__name__}")
        lines.append(f"    desc: {json.dumps(inspect.getdoc(fn))}")
        lines.append("    inputs:")
        for p in inspect.signature(fn).parameters:
            lines.append(f"      - {{name: {p}, type: string, required: true}}")
    lines.append("actions:")
    for actions in KIT_ACTIONS.values():
        for name, desc, tools, nxt in actions:
            lines.append(f"  - name: {name}")
            lines.append(f"    desc: {json.dumps(desc)}")
            lines.append(f"    tools: [{', '.join(tools)}]")
            if nxt:
                lines.append(f"    next: [{', '.join(nxt)}]")
    lines.append("operators:")
    for agent, actions in KIT_ACTIONS.items():
        lines.append(f"  - name: {agent}")
        lines.append(f"    actions: [{', '.join(a[0] for a in actions)}]")
    return "\n".join(lines) + "\n"


def check_kit():
    for agent, actions in KIT_ACTIONS.items():
        called = {t for a in actions for t in a[2]}
        assert called == set(scenario.AGENTS[agent][1]), agent


def script_part():
    runs = []
    for i, (agent, _, responses) in enumerate(scenario.RUNS):
        runs.append({
            "run": i + 1,
            "agent": agent,
            "prompt": scenario.prompt(i),
            "calls": scenario.calls_in_order(i),
            "responses": [[name for name, _ in r] for r in responses],
            "call_ids": [scenario.call_id(i, s, k) for s, r in enumerate(responses) for k in range(len(r))],
            "offered": scenario.AGENTS[agent][1],
        })
    return {
        "about": "Ground truth of tests/fixtures/otlp-libs, from benches/otlp-libs/scenario.py. "
                 "runs: the script (calls in order, parallel calls in the model's order). "
                 "files: what each file carries and what read_otlp.py recovers from it.",
        "tools": [f.__name__ for f in scenario.TOOLS],
        "agents": {a: tools for a, (_, tools) in scenario.AGENTS.items()},
        "calls_total": sum(len(r["calls"]) for r in runs),
        "runs": runs,
    }


def load_expected():
    path = OUT / "expected.json"
    if path.exists():
        return json.loads(path.read_text())
    return {}


def write_expected(files):
    data = script_part()
    data["files"] = dict(sorted(files.items()))
    (OUT / "expected.json").write_text(json.dumps(data, indent=1) + "\n")


def venv(row):
    path = VENVS / row
    py = path / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    lock = HERE / f"lock-{row}.txt"
    reqs = ["-r", str(HERE / f"requirements-{row}.txt")]
    if lock.exists():
        reqs += ["-c", str(lock)]
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", *reqs],
                   check=True)
    return py


def write_lock(row):
    py = VENVS / row / "bin" / "python"
    out = subprocess.run([str(py), "-m", "pip", "freeze", "--all", "--exclude", "pip",
                          "--exclude", "setuptools"], check=True, capture_output=True, text=True)
    (HERE / f"lock-{row}.txt").write_text(out.stdout)


def version_of(py, dist):
    out = subprocess.run([str(py), "-c", f"from importlib.metadata import version; print(version({dist!r}))"],
                         capture_output=True, text=True)
    return out.stdout.strip() or None


def start_server(log):
    port_file = WORK / "port"
    port_file.unlink(missing_ok=True)
    log.unlink(missing_ok=True)
    proc = subprocess.Popen([sys.executable, str(HERE / "fake_openai.py"), "--port-file", str(port_file),
                             "--log", str(log)], stdout=subprocess.DEVNULL)
    for _ in range(100):
        if port_file.exists() and port_file.read_text():
            return proc, int(port_file.read_text())
        time.sleep(0.05)
    proc.kill()
    raise SystemExit("fake_openai.py did not start")


def check_server_log(log):
    """Every run asked for its responses in order, with the agent's tools, and got its results back."""
    seen = {}
    for line in log.read_text().splitlines():
        entry = json.loads(line)
        seen.setdefault(entry["run"], []).append(entry)
    problems = []
    for i, (agent, _, responses) in enumerate(scenario.RUNS):
        entries = seen.get(i + 1, [])
        if [e["response"] for e in entries] != list(range(1, len(responses) + 2)):
            problems.append(f"run {i + 1}: responses {[e['response'] for e in entries]}")
        for e in entries:
            if sorted(e["tools"]) != sorted(scenario.AGENTS[agent][1]):
                problems.append(f"run {i + 1}: offered {e['tools']}")
        if entries:
            want = [scenario.call_id(i, s, k) for s, r in enumerate(responses) for k in range(len(r))]
            if sorted(entries[-1]["tool_results"]) != sorted(want):
                problems.append(f"run {i + 1}: tool results {entries[-1]['tool_results']}")
    return problems


def make_file(name, spec, versions):
    vrow, arow, mode, about = spec
    py = VENVS / vrow / "bin" / "python"
    log = WORK / f"server-{name}.log"
    server, port = start_server(log)
    out = OUT / name
    try:
        cmd = [str(py), str(HERE / "agent_run.py"), arow, "--base-url", f"http://127.0.0.1:{port}/v1",
               "--out", str(out)]
        if mode:
            cmd += ["--mode", mode]
        env = dict(os.environ, OTEL_SDK_DISABLED="false", OTEL_TRACES_EXPORTER="none",
                   OTEL_METRICS_EXPORTER="none", OTEL_LOGS_EXPORTER="none",
                   OPENAI_API_KEY="sk-fake-local", NO_PROXY="127.0.0.1", no_proxy="127.0.0.1")
        subprocess.run(cmd, check=True, env=env, cwd=HERE)
    except subprocess.CalledProcessError:
        out.unlink(missing_ok=True)  # a failed run leaves no fixture behind
        raise
    finally:
        server.terminate()
        server.wait()
    return describe(name, spec, versions)


def describe(name, spec, versions):
    """expected.json's entry for a made file: what it carries, checked against the script."""
    log = WORK / f"server-{name}.log"
    out = OUT / name
    reading = read_otlp.read_file(out)
    entry = read_otlp.summary(reading, scenario)
    entry["about"] = spec[3]
    entry["versions"] = versions
    entry["bytes"] = out.stat().st_size
    entry["server_check"] = (check_server_log(log) or "ok") if log.exists() else "no server log"
    return entry


def faults(name, entry):
    """What is wrong with a made file, against the script (empty when it is right)."""
    n = len(scenario.RUNS)
    got = entry["recovered"]
    problems = []
    if entry["traces"] != n:
        problems.append(f"{entry['traces']} traces, not {n}")
    if got["runs_agent_right"] != n:
        problems.append(f"agent right in {got['runs_agent_right']} runs")
    if entry["server_check"] != "ok":
        problems.append(f"server saw {entry['server_check']}")
    if name in NO_CONTENT:
        if got["calls_from_outputs"] or got["calls_from_tool_spans"]:
            problems.append("calls read from a file that should carry none")
    elif not entry["calls_readable"]:
        problems.append(f"calls in order in {got['runs_exact_from_outputs']} runs (outputs), "
                        f"{got['runs_exact_from_tool_spans']} (tool spans)")
    return problems


# Files made without message content: no call can be read from them.
NO_CONTENT = {"openai-v2-no-content.jsonl"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*", help="file names or venv rows (default: all)")
    ap.add_argument("--kit-only", action="store_true")
    ap.add_argument("--lock", action="store_true", help="write lock-ROW.txt after installing")
    ap.add_argument("--describe", action="store_true",
                    help="only re-read the chosen files already made and rewrite their expected.json entries")
    args = ap.parse_args()
    check_kit()
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "kit.yml").write_text(kit_yaml())
    files = load_expected().get("files", {})
    if args.kit_only:
        write_expected(files)
        return 0
    chosen = [n for n, s in FILES.items() if not args.files or n in args.files or s[0] in args.files]
    VENVS.mkdir(parents=True, exist_ok=True)
    ready = {}
    failed = []
    for name in chosen:
        vrow = FILES[name][0]
        if args.describe:
            if (OUT / name).exists():
                files[name] = describe(name, FILES[name], files.get(name, {}).get("versions"))
            continue
        if vrow not in ready:
            py = venv(vrow)
            if args.lock:
                write_lock(vrow)
            ready[vrow] = {d: version_of(py, d) for d in DISTS[vrow]}
        spec = FILES[name]
        print(f"== {name}", flush=True)
        try:
            files[name] = make_file(name, spec, ready[vrow])
        except subprocess.CalledProcessError as e:
            failed.append(f"{name}: {e}")
            continue
        print(json.dumps({k: v for k, v in files[name].items() if k not in ("runs", "trace_ids")}), flush=True)
        problems = faults(name, files[name])
        if problems:
            failed.append(f"{name}: " + "; ".join(problems))
    write_expected(files)
    if failed:
        print("failed:\n  " + "\n  ".join(failed), file=sys.stderr)
        return 1
    return 0


DISTS = {
    "pydantic-ai-2": ["pydantic-ai-slim", "openai", "opentelemetry-sdk"],
    "pydantic-ai-1": ["pydantic-ai-slim", "openai", "opentelemetry-sdk"],
    "pydantic-ai-1.0.0": ["pydantic-ai-slim", "openai", "opentelemetry-sdk"],
    "openai-agents": ["openai-agents", "openinference-instrumentation-openai-agents", "openai", "opentelemetry-sdk"],
    "openinference-openai": ["openinference-instrumentation-openai", "openai", "opentelemetry-sdk"],
    "traceloop-0.62": ["opentelemetry-instrumentation-openai", "openai", "opentelemetry-sdk"],
    "traceloop-0.54": ["opentelemetry-instrumentation-openai", "openai", "opentelemetry-sdk"],
    "openai-v2": ["opentelemetry-instrumentation-openai-v2", "openai", "opentelemetry-sdk"],
}


if __name__ == "__main__":
    sys.exit(main())
