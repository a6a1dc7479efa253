"""Makes Chat2Graph use the tuning toolscope writes into its agentic config, and records
trace records of its runs for ``toolscope eval`` and ``toolscope fit``.

Chat2Graph's own loader ignores the operators' ``threshold`` and ``hops``, the leader's,
and the top-level ``scores:`` list. Two lines before loading make them take effect::

    import toolscope_chat2graph
    toolscope_chat2graph.install(traces="runs.jsonl")   # traces=None: tuning only
    mas = AgenticService.load("chat2graph.yml")         # or AgenticService.load()

After ``install()``, every ``AgenticService.load`` builds its operators with the file's
``threshold`` and ``hops`` and its toolkit with the file's ``scores:``; what cannot be
applied raises ``TuningError`` naming the file and the entry. ``uninstall()`` restores
Chat2Graph. ``python -m toolscope_chat2graph`` (or the ``toolscope-chat2graph`` script)
starts Chat2Graph's server with it installed.

Standard library only; Chat2Graph's own PyYAML reads the file, as Chat2Graph does.
"""

import argparse
import contextvars
import dataclasses
import functools
import inspect
import json
import math
import os
import runpy
import sys
import threading

MAX_CONFIG_BYTES = 16 << 20
MAX_CACHE_BYTES = 64 << 20  # toolscope's own bound on an MCP sidecar cache
MAX_HOPS = 1000  # toolscope's bound
SERVER = "app.server.bootstrap"  # Chat2Graph's server; it calls AgenticService.load()


class TuningError(ValueError):
    """Tuning in a Chat2Graph file that cannot be applied: names the file and the entry."""

    def __init__(self, path, entry, problem):
        super().__init__(f"{path}: {entry}: {problem}")


# ----- the file's tuning -------------------------------------------------------------


@dataclasses.dataclass
class Tuning:
    """What toolscope tunes in one Chat2Graph file."""

    path: str
    # Per expert, in file order: (profile name, [(toolscope operator name, threshold,
    # hops)]), None for what is not set.
    experts: list
    leader: tuple
    # (from, to) -> (score, the entry as written): later entries win, as in toolscope.
    scores: dict
    # MCP groups whose members toolscope knows (listed in the file or its fresh cache).
    known_groups: set


def read_tuning(path, encoding="utf-8"):
    """Reads the tuning of the Chat2Graph file at ``path``."""
    import yaml  # Chat2Graph's own dependency; it reads the file the same way.

    path = os.fspath(path)
    if os.path.getsize(path) > MAX_CONFIG_BYTES:
        raise TuningError(path, "the file", f"is over {MAX_CONFIG_BYTES} bytes")
    with open(path, encoding=encoding) as f:
        data = yaml.safe_load(f)
    if not isinstance(data, dict):
        raise TuningError(path, "the file", "is not a mapping")
    leader = data.get("leader") if isinstance(data.get("leader"), dict) else {}
    return Tuning(
        path=path,
        experts=[_expert(path, e) for e in _list(data.get("experts"))],
        leader=_operator_tuning(path, "leader", leader),
        scores=_scores(path, data.get("scores")),
        known_groups=_known_groups(path, data.get("tools")),
    )


def _list(value):
    return value if isinstance(value, list) else []


def _expert(path, expert):
    expert = expert if isinstance(expert, dict) else {}
    profile = expert.get("profile") if isinstance(expert.get("profile"), dict) else {}
    name = _text(profile.get("name")) or ""
    ops = [op for chain in _list(expert.get("workflow")) for op in _list(chain)]
    # toolscope names an expert's operators <profile name>/<n>, n from 1 in file order.
    return name, [
        (f"{name}/{n}",) + _operator_tuning(path, f"operator {name}/{n}", op)
        for n, op in enumerate(ops, 1)
    ]


def _operator_tuning(path, where, op):
    op = op if isinstance(op, dict) else {}
    threshold, hops = op.get("threshold"), op.get("hops")
    if threshold is not None and not _unit(threshold):
        raise TuningError(path, where, f"threshold {threshold!r} is not a number in [0, 1]")
    if hops is not None and not (
        isinstance(hops, int) and not isinstance(hops, bool) and 0 <= hops <= MAX_HOPS
    ):
        raise TuningError(path, where, f"hops {hops!r} is not a whole number 0 to {MAX_HOPS}")
    return (threshold, hops)


def _unit(value):
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0 <= value <= 1
    )


def _scores(path, entries):
    found = {}
    for entry in _list(entries):
        if not isinstance(entry, dict) or not {"from", "to", "score"} <= entry.keys():
            raise TuningError(path, f"scores entry {entry!r}", "is not {from, to, score}")
        shown = "scores entry {from: %s, to: %s, score: %s}" % (
            entry["from"], entry["to"], entry["score"])
        if not _unit(entry["score"]):
            raise TuningError(path, shown, "score is not a number in [0, 1]")
        key = (_text(entry["from"]), _text(entry["to"]))
        found[key] = (float(entry["score"]), shown)
    return found


def _text(value):
    """A YAML scalar as toolscope reads it: as text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return None if value is None else str(value)


def _known_groups(path, tools):
    """The MCP groups whose members toolscope knows: listed under the entry's own
    ``tools:`` key, or in the sidecar cache ``FILE.mcp.json`` made for that server."""
    cached = _cache_identities(path + ".mcp.json")
    known = set()
    for entry in _list(tools):
        if not isinstance(entry, dict) or entry.get("type") != "MCP":
            continue
        name = _text(entry.get("name"))
        if isinstance(entry.get("tools"), list):
            known.add(name)
        elif name in cached and cached[name] == _identity(entry.get("mcp_transport_config")):
            known.add(name)
    return known


def _cache_identities(cache_path):
    # toolscope ignores a cache it cannot read, so its groups' members stay unknown.
    try:
        if os.path.getsize(cache_path) > MAX_CACHE_BYTES:
            return {}
        with open(cache_path, encoding="utf-8") as f:
            servers = json.load(f).get("servers")
        return {
            s["name"]: (s["transport"], s.get("command"), tuple(s.get("args", ())), s.get("url"))
            for s in servers
        }
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        return {}


def _identity(block):
    """A server's identity as toolscope records it in its cache (never env or headers)."""
    if not isinstance(block, dict):
        return None
    kind = _text(block.get("transport_type")) or "STDIO"
    normal = kind.upper().replace("-", "_")
    url = _text(block.get("url")) or ""
    if normal == "STDIO":
        args = tuple(a for a in map(_text, _list(block.get("args"))) if a is not None)
        return ("stdio", _text(block.get("command")) or "", args, None)
    named = {"SSE": "sse", "STREAMABLE_HTTP": "streamable_http", "HTTP": "streamable_http",
             "WEBSOCKET": "websocket"}
    return (named[normal], None, (), url) if normal in named else (kind, None, (), None)


# ----- applying it while Chat2Graph loads ---------------------------------------------


class _Load:
    """One ``AgenticService.load`` in progress: its tuning and what the hooks saw."""

    def __init__(self, tuning):
        self.tuning = tuning
        self.pending = {name for _, ops in tuning.experts for name, t, h in ops
                        if (t, h) != (None, None)}
        if tuning.leader != (None, None):
            self.pending.add("leader")
        self.actions = {}  # action id -> name, for this load's actions
        # (action, entry name, built object, is an MCP group) for every tool occurrence
        self.tools = []
        self.applied = []

    def tune(self, name, wrapper, threshold, hops):
        """Sets threshold and hops on the operator Chat2Graph built (``_config`` is the
        ``app.core.workflow.operator_config.OperatorConfig`` its tasks read)."""
        _OPERATOR_NAMES[wrapper.operator.get_id()] = name
        if (threshold, hops) == (None, None):
            return
        config = wrapper.operator._config
        fields = {f.name for f in dataclasses.fields(config)}
        if not {"threshold", "hops"} <= fields:
            raise TuningError(self.tuning.path, f"operator {name}",
                              "the built operator's config has no threshold and hops")
        for key, value in (("threshold", threshold), ("hops", hops)):
            if value is not None:
                setattr(config, key, value)
                self.applied.append(f"operator {name}: {key} {value}")
        self.pending.discard(name)


_LOAD = contextvars.ContextVar("toolscope_chat2graph_load", default=None)
_OPERATOR_NAMES = {}  # built operator id -> toolscope name, for the recorder
_TOOL_NAMES = {}  # local tool class -> its entry's name, for the recorder


def _hook_load(original):
    signature = inspect.signature(original)

    def load(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        # Chat2Graph's signature: (yaml_path=its default path, encoding="utf-8").
        state = _Load(read_tuning(*bound.arguments.values()))
        token = _LOAD.set(state)
        try:
            mas = original(*args, **kwargs)
        finally:
            _LOAD.reset(token)
        _finish(state)
        return mas

    return functools.wraps(original)(load)


def _hook_build_toolkit(original):
    def build(agentic_service_config, *args, **kwargs):
        items = original(agentic_service_config, *args, **kwargs)
        state = _LOAD.get()
        if state is not None:
            _note_toolkit(state, agentic_service_config, items)
        return items

    return functools.wraps(original)(build)


def _note_toolkit(state, config, items):
    """Pairs each built tool (or MCP group) with its action and entry name: the item
    chain holds an action, then its tools in the order of the action's ``tools:``."""
    from app.core.toolkit.action import Action
    from app.core.toolkit.tool_group import ToolGroup

    entries = {a.id: a for chain in config.toolkit for a in chain}
    action = None
    for item in items:
        if isinstance(item, Action):
            action = item
            state.actions[item.id] = item.name
            continue
        built = item if isinstance(item, tuple) else (item,)
        names = [t.name for t in entries[action.id].tools]
        if len(names) != len(built):
            raise TuningError(state.tuning.path, f"action {action.name}",
                              "its built tools do not match its tools: list")
        for name, tool in zip(names, built):
            group = isinstance(tool, ToolGroup)
            state.tools.append((action, name, tool, group))
            if not group:
                _TOOL_NAMES[type(tool)] = name


def _hook_build_leader(original):
    def build(*args, **kwargs):
        wrapper = original(*args, **kwargs)
        state = _LOAD.get()
        if state is not None:
            state.tune("leader", wrapper, *state.tuning.leader)
        return wrapper

    return functools.wraps(original)(build)


def _hook_build_expert(original):
    def build(expert_config, agentic_service_config, *args, **kwargs):
        items = original(expert_config, agentic_service_config, *args, **kwargs)
        state = _LOAD.get()
        if state is not None:
            # The file's k-th expert is the config's k-th: Chat2Graph keeps them all.
            k = [e is expert_config for e in agentic_service_config.experts].index(True)
            _tune_expert(state, *state.tuning.experts[k], items)
        return items

    return functools.wraps(original)(build)


def _tune_expert(state, expert, operators, items):
    # Operators come back in file order: one per single-operator chain, a tuple per chain
    # of several (Chat2Graph drops empty chains, which hold no operator).
    built = [w for item in items for w in (item if isinstance(item, tuple) else (item,))]
    if len(built) != len(operators):
        raise TuningError(state.tuning.path, f"expert {expert}",
                          f"Chat2Graph built {len(built)} operators, the file has "
                          f"{len(operators)}")
    for wrapper, (name, threshold, hops) in zip(built, operators):
        state.tune(name, wrapper, threshold, hops)


def _finish(state):
    """After the load: a check that every tuned operator was tuned, the scores onto the
    built toolkit, and one log line through Chat2Graph's logger for each thing applied."""
    from app.core.service.toolkit_service import ToolkitService
    from app.utils.logger import logger

    if state.pending:
        raise TuningError(state.tuning.path, ", ".join(sorted(state.pending)),
                          "Chat2Graph did not build this operator where toolscope tunes it")
    _apply_scores(state, ToolkitService.instance.get_toolkit())
    for line in state.applied:
        logger.info(f"toolscope: {state.tuning.path}: {line}")


def _apply_scores(state, toolkit):
    exact, by_group = _edges_by_name(state, toolkit)
    for (source, target), (score, shown) in state.tuning.scores.items():
        edges = exact.get((source, target), [])
        if target not in state.tuning.known_groups:
            # toolscope does not know this group's members: the group stands for them.
            edges = edges + by_group.get((source, target), [])
        if not edges:
            raise TuningError(state.tuning.path, shown,
                              "names no edge of the toolkit Chat2Graph built"
                              + _known_hint(state, target))
        for u, v in edges:
            toolkit.set_score(u, v, score)
            if toolkit.get_score(u, v) != score:
                raise TuningError(state.tuning.path, shown, "the toolkit did not keep it")
        count = f" ({len(edges)} edges)" if len(edges) > 1 else ""
        state.applied.append(f"score {source} -> {target} = {score}{count}")


def _known_hint(state, target):
    if target in state.tuning.known_groups:
        return (f" (toolscope knows {target}'s members, so a score to the group names no "
                "edge there either: score its members)")
    return ""


def _edges_by_name(state, toolkit):
    """This load's Next and Call edges by (from, to) name: Next by action; Call to every
    vertex of a tool that the action's occurrences built; MCP members by member name, and
    by group name in ``by_group``."""
    graph = toolkit.get_graph()
    exact, by_group = {}, {}

    def add(table, key, u, v):
        if graph.has_edge(u, v):
            table.setdefault(key, []).append((u, v))

    for u, name in state.actions.items():
        for v in toolkit.successors(u):
            if v in state.actions:
                add(exact, (name, state.actions[v]), u, v)
    for action, name, tool, group in state.tools:
        if not group:
            add(exact, (action.name, name), action.id, tool.id)
            continue
        for member in toolkit.successors(tool.get_id()):
            built = toolkit.get_tool(member)
            if built is not None:
                add(exact, (action.name, built.name), action.id, member)
                add(by_group, (action.name, name), action.id, member)
    return exact, by_group


# ----- recording ------------------------------------------------------------------------


class _Recorder:
    """Appends one JSONL trace record per operator invocation (thread-safe)."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self._lock = threading.Lock()
        # Ids go on from the records already in the file, so appended runs stay apart.
        self._id = _count_lines(self.path)

    def write(self, operator, calls, ok):
        with self._lock:
            self._id += 1
            record = {"operator": operator, "called": list(dict.fromkeys(calls)),
                      "calls": calls, "ok": ok, "id": self._id}
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(record, ensure_ascii=False) + "\n")


def _count_lines(path):
    try:
        with open(path, "rb") as f:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    except FileNotFoundError:
        return 0


# The calls of the operator invocation running in this context. Asyncio tasks and
# threads each have their own context, so concurrent experts stay apart.
_CALLS = contextvars.ContextVar("toolscope_chat2graph_calls", default=None)


def _hook_execute(original, recorder):
    async def execute(self, *args, **kwargs):
        name = _OPERATOR_NAMES.get(self.get_id())
        if name is None:  # not built by a load with the integration installed
            return await original(self, *args, **kwargs)
        calls, ok = [], False
        token = _CALLS.set(calls)
        try:
            result = await original(self, *args, **kwargs)
            ok = True
            return result
        finally:
            _CALLS.reset(token)
            recorder.write(name, calls, ok)

    return functools.wraps(original)(execute)


def _hook_call_function(original):
    async def call_function(self, tools, *args, **kwargs):
        results = await original(self, tools, *args, **kwargs)
        calls = _CALLS.get()
        if calls is not None:
            calls.extend(_tool_name(r.func_name, tools) for r in results or [] if r.func_name)
        return results

    return functools.wraps(original)(call_function)


def _tool_name(func_name, tools):
    """The file's name for a called function. The tools offered are ``Tool.copy()``
    results (plain ``Tool`` or ``McpTool``), so a local tool is known by the class of the
    object its function is bound to; an MCP tool keeps its member name. A name that cannot
    be mapped is kept (toolscope counts it as an unknown call)."""
    from app.core.toolkit.mcp.mcp_tool import McpTool

    tool = next((t for t in tools if t.name == func_name), None)
    if tool is None or isinstance(tool, McpTool):
        return func_name
    owner = getattr(tool.function, "__self__", None)
    return _TOOL_NAMES.get(type(owner), func_name)


# ----- install and uninstall ------------------------------------------------------------

_INSTALLED = []  # (class, attribute, original as found in the class) to restore


def install(traces=None):
    """Makes every later ``AgenticService.load`` apply the file's tuning; with ``traces``
    (a path), also appends a trace record per operator invocation to it. Installing
    again replaces the earlier installation."""
    from app.core.reasoner.model_service import ModelService
    from app.core.sdk.agentic_service import AgenticService
    from app.core.workflow.operator import Operator

    uninstall()
    for attr, hook in (("load", _hook_load), ("_build_toolkit", _hook_build_toolkit),
                       ("_build_leader_workflow", _hook_build_leader),
                       ("_build_expert_workflow", _hook_build_expert)):
        _patch(AgenticService, attr, hook, static=True)
    if traces is not None:
        recorder = _Recorder(traces)
        _patch(Operator, "execute", lambda f: _hook_execute(f, recorder))
        _patch(ModelService, "call_function", _hook_call_function)


def _patch(cls, attr, hook, static=False):
    found = inspect.getattr_static(cls, attr)
    wrapped = hook(getattr(cls, attr))
    setattr(cls, attr, staticmethod(wrapped) if static else wrapped)
    _INSTALLED.append((cls, attr, found))


def uninstall():
    """Restores everything ``install`` changed."""
    while _INSTALLED:
        cls, attr, found = _INSTALLED.pop()
        setattr(cls, attr, found)


# ----- launcher -------------------------------------------------------------------------


def main(argv=None):
    """Starts Chat2Graph's server with the integration installed, without editing
    Chat2Graph's files."""
    parser = argparse.ArgumentParser(
        prog="toolscope-chat2graph",
        description="Run Chat2Graph's server with toolscope's tuning applied.")
    parser.add_argument("--traces", help="append trace records of the runs to this file")
    parser.add_argument("--root", default=".",
                        help="Chat2Graph's source tree (default: the current folder)")
    options = parser.parse_args(argv)
    traces = os.path.abspath(options.traces) if options.traces else None
    # Chat2Graph resolves some paths, its default config among them, from its root.
    os.chdir(options.root)
    sys.path.insert(0, os.getcwd())
    install(traces=traces)
    sys.argv = [SERVER]
    runpy.run_module(SERVER, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
