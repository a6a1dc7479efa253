"""Makes Chat2Graph use the tuning toolscope writes into its agentic config, and records
trace records of its runs for ``toolscope eval`` and ``toolscope fit``.

Chat2Graph's own loader ignores the operators' ``threshold`` and ``hops``, the leader's,
and the top-level ``scores:`` list. Two lines before loading make them take effect::

    import toolscope_chat2graph
    toolscope_chat2graph.install(traces="runs.jsonl")   # traces=None: tuning only
    # otlp="runs.otlp.jsonl": the runs as OTLP JSON lines too (GenAI conventions)
    mas = AgenticService.load("chat2graph.yml")         # or AgenticService.load()

After ``install()``, every ``AgenticService.load`` builds its operators with the file's
``threshold`` and ``hops`` and its toolkit with the file's ``scores:``. What the file gets
wrong raises ``TuningError`` naming the file and the entry; what an MCP server changed
since the file was tuned (a tool it no longer lists) is skipped with one warning line
through Chat2Graph's logger, so a tuned file never stops Chat2Graph from starting.
``uninstall()`` restores Chat2Graph. ``python -m toolscope_chat2graph`` (or the
``toolscope-chat2graph`` script) starts Chat2Graph's server with it installed.

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
import reprlib
import runpy
import stat
import sys
import threading
import time

MAX_CONFIG_BYTES = 16 << 20
MAX_CACHE_BYTES = 64 << 20  # toolscope's own bound on an MCP sidecar cache
MAX_HOPS = 1000  # toolscope's bound
MAX_DEPTH = 128  # toolscope's bound on YAML nesting (block or flow)
# What reading the file's tuning may expand through aliases and merge keys: two entries
# per YAML node plus a million, toolscope's bound on the edges a load may expand groups
# into. A file without aliases never comes near it; a 12 KB file of nested aliases that
# stands for 10^9 operators is refused at it.
EXPANSIONS_PER_NODE = 2
EXPANSIONS_BASE = 1_000_000
SERVER = "app.server.bootstrap"  # Chat2Graph's server; it calls AgenticService.load()


class TuningError(ValueError):
    """Tuning in a Chat2Graph file that cannot be applied: names the file and the entry."""

    def __init__(self, path, entry, problem):
        super().__init__(f"{path}: {entry}: {problem}")


class Chat2GraphNotFound(ImportError):
    """``install()`` ran where Chat2Graph's ``app`` package cannot be imported."""


# ----- reading files: regular files only, never blocking, never past a bound ------------


class _Refused(Exception):
    """A file that is not read: not a regular file, or over its bound."""


def _read_regular(path, limit):
    """The bytes of the regular file at ``path``, at most ``limit`` of them. Opened without
    blocking (a FIFO cannot hang the open) and checked with ``fstat`` on what was opened,
    so a FIFO, device or folder is refused unread and a file that grows while read is read
    no further than the bound. Raises ``_Refused``, or ``OSError`` as ``open`` does."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _Refused(f"is not a regular file ({_kind(mode)})")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise _Refused(f"is over {limit} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _kind(mode):
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a regular file"


def _one_line(text):
    """``text`` with line breaks and other control characters escaped, so a name from a
    file or a server cannot break or forge a log line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 60
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxdict = 2, 4, 4


def _short(value):
    """A bounded rendering of a YAML value (as ``repr``): an aliased list standing for
    10^9 items is shown by its first few."""
    return _one_line(_SHORT.repr(value))


def _as_written(value):
    """A scalar as the file has it, anything else as ``_short`` renders it."""
    if isinstance(value, (list, dict)):
        return _short(value)
    return _one_line(value)


# ----- the file's tuning -------------------------------------------------------------


@dataclasses.dataclass
class Server:
    """An MCP server the file declares (a ``type: MCP`` entry of ``tools:``)."""

    name: str
    # Its tools as toolscope knows them, in order, or None when toolscope does not know
    # them; and where from (the entry's ``tools:`` list, or the sidecar cache).
    known: list
    source: str


@dataclasses.dataclass
class Tuning:
    """What toolscope tunes in one Chat2Graph file."""

    path: str
    # Per expert, in file order: (profile name, [(toolscope operator name, threshold,
    # hops)]), None for what is not set.
    experts: list
    leader: tuple
    # (from, to) -> (score, the entry as written, its place in the list): later entries
    # win, as in toolscope.
    scores: dict
    # The MCP servers the file declares, by name.
    servers: dict
    # The names of the other tools the file declares.
    local_tools: set = dataclasses.field(default_factory=set)
    # Warnings about the file's MCP cache (unreadable, or not a regular file).
    notes: list = dataclasses.field(default_factory=list)

    @property
    def known_groups(self):
        """The MCP servers whose tools toolscope knows."""
        return {name for name, s in self.servers.items() if s.known is not None}


def read_tuning(path, encoding="utf-8"):
    """Reads the tuning of the Chat2Graph file at ``path``."""
    path = os.fspath(path)
    try:
        raw = _read_regular(path, MAX_CONFIG_BYTES)
    except _Refused as refused:
        raise TuningError(path, "the file", str(refused)) from None
    reader = _yaml_reader(raw.decode(encoding), path)
    try:
        data = reader.get_single_data()
    finally:
        reader.dispose()
    if not isinstance(data, dict):
        raise TuningError(path, "the file", "is not a mapping")
    budget = _Budget(path, EXPANSIONS_PER_NODE * reader.nodes + EXPANSIONS_BASE)
    budget.spend(reader.merged)
    leader = data.get("leader") if isinstance(data.get("leader"), dict) else {}
    experts = budget.items(data.get("experts"))
    _count_operators(experts, budget)
    tuning = Tuning(
        path=path,
        experts=[_expert(path, e) for e in experts],
        leader=_operator_tuning(path, "leader", leader),
        scores=_scores(path, data.get("scores"), budget),
        servers={},
    )
    tuning.servers = _servers(tuning, data.get("tools"), budget)
    return tuning


class _Budget:
    """Counts the entries reading the tuning visits, aliases expanded, against the bound."""

    def __init__(self, path, limit):
        self.path, self.limit, self.spent = path, limit, 0

    def spend(self, n=1):
        self.spent += n
        if self.spent > self.limit:
            raise TuningError(self.path, "the file",
                              f"expands to more than {self.limit} entries through its "
                              "aliases and merge keys (the bound is two per YAML node plus "
                              f"{EXPANSIONS_BASE}, toolscope's)")

    def items(self, value):
        """The items of a list (nothing for anything else), counted before they are
        visited, so that an aliased list of 10^9 items costs one step to refuse."""
        if not isinstance(value, list):
            return ()
        self.spend(len(value))
        return value


def _yaml_reader(text, path):
    """PyYAML's SafeLoader, as Chat2Graph reads the file, with toolscope's bounds: nesting
    past ``MAX_DEPTH`` levels (which would end in a RecursionError inside PyYAML) and
    merge keys nested as deep refused with ``TuningError``; the nodes and the pairs merge
    keys copy counted, for the expansion bound."""
    import yaml  # Chat2Graph's own dependency

    class Reader(yaml.SafeLoader):
        nodes = merged = 0
        _depth = _merge_depth = 0

        def compose_node(self, parent, index):
            self.nodes += 1
            self._depth += 1
            try:
                if self._depth > MAX_DEPTH:
                    self._too_deep("nesting")
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

        def flatten_mapping(self, node):
            self._merge_depth += 1
            try:
                if self._merge_depth > MAX_DEPTH:
                    self._too_deep("merge keys (<<)", node)
                super().flatten_mapping(node)
            finally:
                self._merge_depth -= 1
            self.merged += len(node.value)
            if self.merged > EXPANSIONS_PER_NODE * self.nodes + EXPANSIONS_BASE:
                raise TuningError(path, _where(node.start_mark),
                                  "merge keys (<<) expand past the bound of two per YAML "
                                  f"node plus {EXPANSIONS_BASE}")

        def _too_deep(self, what, node=None):
            mark = node.start_mark if node is not None else self.peek_event().start_mark
            raise TuningError(path, _where(mark), f"{what} deeper than {MAX_DEPTH} levels")

    return Reader(text)


def _where(mark):
    return f"line {mark.line + 1} column {mark.column + 1}"


def _workflow(expert):
    workflow = expert.get("workflow") if isinstance(expert, dict) else None
    return workflow if isinstance(workflow, list) else []


def _count_operators(experts, budget):
    """Spends what the experts' operators expand to before any is read: a workflow is
    summed once however many experts alias it, so 10^9 operators cost a few thousand
    steps to refuse."""
    sums = {}
    for expert in experts:
        workflow = _workflow(expert)
        if id(workflow) not in sums:
            sums[id(workflow)] = len(workflow) + sum(
                len(chain) for chain in workflow if isinstance(chain, list))
        budget.spend(sums[id(workflow)])


def _expert(path, expert):
    expert = expert if isinstance(expert, dict) else {}
    profile = expert.get("profile") if isinstance(expert.get("profile"), dict) else {}
    name = _text(profile.get("name")) or ""
    ops = [op for chain in _workflow(expert) if isinstance(chain, list) for op in chain]
    # toolscope names an expert's operators <profile name>/<n>, n from 1 in file order.
    return name, [
        (f"{name}/{n}",) + _operator_tuning(path, f"operator {name}/{n}", op)
        for n, op in enumerate(ops, 1)
    ]


def _operator_tuning(path, where, op):
    op = op if isinstance(op, dict) else {}
    threshold, hops = op.get("threshold"), op.get("hops")
    if threshold is not None and not _unit(threshold):
        raise TuningError(path, where,
                          f"threshold {_short(threshold)} is not a number in [0, 1]")
    if hops is not None and not (
        isinstance(hops, int) and not isinstance(hops, bool) and 0 <= hops <= MAX_HOPS
    ):
        raise TuningError(path, where,
                          f"hops {_short(hops)} is not a whole number 0 to {MAX_HOPS}")
    return (threshold, hops)


def _unit(value):
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0 <= value <= 1
    )


def _scores(path, entries, budget):
    found = {}
    for place, entry in enumerate(budget.items(entries)):
        if not isinstance(entry, dict) or not {"from", "to", "score"} <= entry.keys():
            raise TuningError(path, f"scores entry {_short(entry)}", "is not {from, to, score}")
        shown = "scores entry {from: %s, to: %s, score: %s}" % (
            _as_written(entry["from"]), _as_written(entry["to"]),
            _as_written(entry["score"]))
        if not _unit(entry["score"]):
            raise TuningError(path, shown, "score is not a number in [0, 1]")
        key = (_text(entry["from"]), _text(entry["to"]))
        if None in key:
            raise TuningError(path, shown, "from and to must each be a name")
        found.pop(key, None)  # the last entry for an edge wins, in its place
        found[key] = (float(entry["score"]), shown, place)
    return found


def _text(value):
    """A YAML scalar as toolscope reads it: as text (None for a list, a mapping or
    nothing)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None or isinstance(value, (list, dict)):
        return None
    return str(value)


def _servers(tuning, tools, budget):
    """The MCP servers the file declares, each with the tools toolscope knows: listed
    under the entry's own ``tools:`` key, or in the sidecar cache ``FILE.mcp.json`` made
    for that server (a cache made for another server is ignored, as toolscope does)."""
    cache_path = tuning.path + ".mcp.json"
    cached = None  # read only when a server needs it
    servers = {}
    for entry in budget.items(tools):
        name = _text(entry.get("name")) if isinstance(entry, dict) else None
        if name is None:
            continue
        if entry.get("type") != "MCP":
            tuning.local_tools.add(name)
            continue
        listed = entry.get("tools")
        if isinstance(listed, list):
            names = [t for t in map(_text, budget.items(listed)) if t is not None]
            servers[name] = Server(name, names, f"the `tools:` list of {name}'s entry")
            continue
        if cached is None:
            cached = _read_cache(cache_path, tuning.notes)
        identity = _identity(entry.get("mcp_transport_config"), budget)
        found = cached.get(name)
        if found is not None and found[0] == identity:
            servers[name] = Server(name, found[1], cache_path)
        else:
            servers[name] = Server(name, None, "")
    return servers


def _read_cache(cache_path, notes):
    """{server name: (identity, [tool names])} of toolscope's MCP sidecar cache, read
    server by server and tool by tool (a malformed entry costs only itself). A cache that
    cannot be read is ignored, as toolscope ignores it (TS090), with a note."""
    try:
        data = json.loads(_read_regular(cache_path, MAX_CACHE_BYTES))
    except FileNotFoundError:
        return {}
    except _Refused as refused:
        notes.append(f"the MCP cache {cache_path} {refused}: ignored")
        return {}
    except (OSError, ValueError, RecursionError) as error:
        problem = "is nested too deep" if isinstance(error, RecursionError) else (
            f"cannot be read ({_short(error)})")
        notes.append(f"the MCP cache {cache_path} {problem}: ignored")
        return {}
    servers = data.get("servers") if isinstance(data, dict) else None
    found = {}
    for s in servers if isinstance(servers, list) else ():
        try:
            identity = (s["transport"], s.get("command"), tuple(s.get("args", ())),
                        s.get("url"))
            hash(identity)
            tools = [t["name"] for t in s["tools"]
                     if isinstance(t, dict) and isinstance(t.get("name"), str)]
            if isinstance(s["name"], str):
                found[s["name"]] = (identity, tools)
        except (KeyError, TypeError, AttributeError):
            continue
    return found


def _identity(block, budget):
    """A server's identity as toolscope records it in its cache (never env or headers)."""
    if not isinstance(block, dict):
        return None
    kind = _text(block.get("transport_type")) or "STDIO"
    normal = kind.upper().replace("-", "_")
    url = _text(block.get("url")) or ""
    if normal == "STDIO":
        args = tuple(a for a in map(_text, budget.items(block.get("args"))) if a is not None)
        return ("stdio", _text(block.get("command")) or "", args, None)
    named = {"SSE": "sse", "STREAMABLE_HTTP": "streamable_http", "HTTP": "streamable_http",
             "WEBSOCKET": "websocket"}
    return (named[normal], None, (), url) if normal in named else (kind, None, (), None)


# ----- qualified member names ---------------------------------------------------------


def qualify(server, tool):
    """``SERVER/TOOL``: a member of an MCP server, named so that it cannot be taken for a
    member of another server with a tool of that name. ``/`` and ``\\`` inside either part
    are escaped with ``\\``."""
    return f"{_escape(server)}/{_escape(tool)}"


def _escape(part):
    return part.replace("\\", "\\\\").replace("/", "\\/")


def split_qualified(name):
    """(server, tool) of a qualified name: split at the first ``/`` that is not escaped,
    both parts unescaped; None without such a ``/`` or with an empty part."""
    parts, current, chars = [], [], iter(name)
    for c in chars:
        if c == "\\":
            current.append(next(chars, "\\"))
        elif c == "/" and not parts:
            parts.append("".join(current))
            current = []
        else:
            current.append(c)
    if not parts:
        return None
    server, tool = parts[0], "".join(current)
    return (server, tool) if server and tool else None


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
        self.warnings = []

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

    def warn(self, entry, problem, fix=True):
        """One warning line naming the file, the entry and (with ``fix``) the way to bring
        toolscope's picture of the servers up to date."""
        path = self.tuning.path
        fix = f"; run `toolscope mcp discover {path}`" if fix else ""
        self.warnings.append(f"{entry}: {problem}{fix}")


_LOAD = contextvars.ContextVar("toolscope_chat2graph_load", default=None)
_OPERATOR_NAMES = {}  # built operator id -> toolscope name, for the recorder
_TOOL_NAMES = {}  # local tool class -> its entry's name, for the recorder
_SHARED = set()  # MCP tool names two servers list: recorded qualified


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
    """After the load: a check that every tuned operator was tuned, the MCP servers'
    tools compared with what toolscope knows, the scores onto the built toolkit, and one
    log line through Chat2Graph's logger for each thing applied or skipped."""
    from app.core.service.toolkit_service import ToolkitService
    from app.utils.logger import logger

    if state.pending:
        raise TuningError(state.tuning.path, ", ".join(sorted(state.pending)),
                          "Chat2Graph did not build this operator where toolscope tunes it")
    built = _Built(state, ToolkitService.instance.get_toolkit())
    _SHARED.clear()
    _SHARED.update(built.shared)
    _compare_servers(state, built)
    _apply_scores(state, built)
    path = state.tuning.path
    for line in state.tuning.notes:
        logger.warning(_one_line(f"toolscope: {path}: {line}"))
    for line in state.warnings:
        logger.warning(_one_line(f"toolscope: {path}: {line}"))
    for line in state.applied:
        logger.info(_one_line(f"toolscope: {path}: {line}"))


class _Built:
    """This load's toolkit by the file's names: Next edges by action; Call edges to local
    tools by entry; each MCP server's tools as it lists them now, per calling action."""

    def __init__(self, state, toolkit):
        self.toolkit = toolkit
        graph = toolkit.get_graph()
        self.action_names = set(state.actions.values())
        self.next = {}  # (from, to) -> [(u, v)]
        self.local = {}  # (action, entry) -> [(u, v)]
        self.local_names = set()
        # (action, server) -> [(member name, (u, v))]; a key for every call of a server
        self.calls = {}
        self.live = {}  # server -> the tool names it lists now, in order

        def add(table, key, u, v):
            if graph.has_edge(u, v):
                table.setdefault(key, []).append((u, v))

        for u, name in state.actions.items():
            for v in toolkit.successors(u):
                if v in state.actions:
                    add(self.next, (name, state.actions[v]), u, v)
        for action, name, tool, group in state.tools:
            if not group:
                self.local_names.add(name)
                add(self.local, (action.name, name), action.id, tool.id)
                continue
            members = self.calls.setdefault((action.name, name), [])
            listed = self.live.setdefault(name, [])
            for member in toolkit.successors(tool.get_id()):
                made = toolkit.get_tool(member)
                if made is None:
                    continue
                if made.name not in listed:
                    listed.append(made.name)
                if graph.has_edge(action.id, member):
                    members.append((made.name, (action.id, member)))
        servers_of = {}
        for server, listed in self.live.items():
            for tool in listed:
                servers_of.setdefault(tool, []).append(server)
        self.servers_of = servers_of  # tool name -> the servers listing it now
        self.shared = {tool for tool, servers in servers_of.items() if len(servers) > 1}

    def servers_called_by(self, action):
        return [server for (a, server) in self.calls if a == action]


def _compare_servers(state, built):
    """One warning per server whose tools now differ from what toolscope knows of them:
    Chat2Graph offers what the server lists now (a new tool gets the server's score, if
    the file scores the server), toolscope shows its cache."""
    for name, listed in built.live.items():
        server = state.tuning.servers.get(name)
        if server is None or server.known is None:
            continue
        gained = [t for t in listed if t not in server.known]
        lost = [t for t in server.known if t not in listed]
        if not gained and not lost:
            continue
        if not listed:
            change = f"lists no tools now ({len(lost)} in {server.source})"
        else:
            change = "; ".join(part for part in (
                gained and "lists new tools " + ", ".join(gained),
                lost and "no longer lists " + ", ".join(lost)) if part)
            change += f", compared with {server.source}"
        state.warn(f"MCP server {name}", f"{change}; Chat2Graph offers the tools the "
                   "server lists now, toolscope shows the cache")


def _apply_scores(state, built):
    """Each ``scores:`` entry onto the toolkit Chat2Graph built, in file order. A score on
    an MCP server scores each of its tools (as the server lists them now) that the action
    calls and that has no score of its own, wherever that entry stands."""
    own = set()
    on_servers = []
    entries = sorted(state.tuning.scores.items(), key=lambda kv: kv[1][2])
    for (source, target), (score, shown, _) in entries:
        found = _resolve(state, built, source, target, shown)
        if found is None:
            continue
        if isinstance(found, str):  # a server: its tools get what is left
            on_servers.append((source, found, score, shown))
            continue
        own.update(found)
        _set(state, built, found, score, shown)
        count = f" ({len(found)} edges)" if len(found) > 1 else ""
        state.applied.append(f"score {source} -> {target} = {score}{count}")
    for source, server, score, shown in on_servers:
        members = built.calls[(source, server)]
        if not members:
            state.warn(shown, f"skipped: the MCP server {server} lists no tools now")
            continue
        left = [(tool, edge) for tool, edge in members if edge not in own]
        _set(state, built, [edge for _, edge in left], score, shown)
        tools = sorted({tool for tool, _ in left})
        count = f" ({len(left)} edges)" if len(left) > 1 else ""
        state.applied.append(
            f"score {source} -> {server} = {score}: on its tools without a score of their "
            f"own: {', '.join(tools) or 'none'}{count}")


def _set(state, built, edges, score, shown):
    for u, v in edges:
        built.toolkit.set_score(u, v, score)
        if built.toolkit.get_score(u, v) != score:
            raise TuningError(state.tuning.path, shown, "the toolkit did not keep it")


def _resolve(state, built, source, target, shown):
    """The edges a ``scores:`` entry names: a list of edges, a server's name (the entry
    scores that server's tools), or None after a warning (an MCP server changed since
    the file was tuned). Raises ``TuningError`` for what the file gets wrong."""
    path = state.tuning.path
    if source not in built.action_names:
        raise TuningError(path, shown, f"names no edge of the toolkit Chat2Graph built: "
                          f"there is no action {source}")
    no_edge = "names no edge of the toolkit Chat2Graph built"
    if target in built.action_names:
        return _or_raise(built.next.get((source, target)), path, shown, no_edge)
    if target in built.local_names or target in state.tuning.local_tools:
        return _or_raise(built.local.get((source, target)), path, shown,
                         f"{no_edge}: {source} does not call {target}")
    if target in state.tuning.servers or target in built.live:
        if (source, target) not in built.calls:
            raise TuningError(path, shown, f"{no_edge}: {source} does not call the MCP "
                              f"server {target}")
        return target
    qualified = split_qualified(target)
    if qualified is not None and (qualified[0] in state.tuning.servers
                                  or qualified[0] in built.live):
        server, tool = qualified
        return _member(state, built, source, server, tool, shown)
    servers = built.servers_of.get(target, [])
    if len(servers) > 1:
        state.warn(shown, f"skipped: {target} is a tool of the MCP servers "
                   f"{' and '.join(servers)}, so the model sees {len(servers)} functions "
                   f"named {target}; name one: "
                   + " or ".join(qualify(s, target) for s in servers), fix=False)
        return None
    if servers and (source, servers[0]) in built.calls:
        return _member(state, built, source, servers[0], target, shown)
    # No server the action calls lists it now: gone from one that listed it when the file
    # was tuned (a warning), or never one of theirs (the file's mistake).
    called = built.servers_called_by(source)
    knew = [s for s in called
            if target in (getattr(state.tuning.servers.get(s), "known", None) or ())]
    if knew:
        state.warn(shown, f"skipped: the MCP server {knew[0]} no longer lists {target}"
                   + _lists(built, knew[0]))
        return None
    if servers:
        raise TuningError(path, shown, f"{no_edge}: {source} does not call the MCP server "
                          f"{servers[0]}, which lists {target}")
    if not called:
        raise TuningError(path, shown, no_edge)
    state.warn(shown, f"skipped: no MCP server {source} calls lists {target} now ("
               + "; ".join(f"{s}{_lists(built, s)}" for s in called) + ")")
    return None


def _member(state, built, source, server, tool, shown):
    """The Call edges from ``source`` to ``server``'s tool ``tool``."""
    if (source, server) not in built.calls:
        raise TuningError(state.tuning.path, shown, f"names no edge of the toolkit "
                          f"Chat2Graph built: {source} does not call the MCP server {server}")
    edges = [edge for name, edge in built.calls[(source, server)] if name == tool]
    if edges:
        return edges
    state.warn(shown, f"skipped: the MCP server {server} does not list {tool} now"
               + _lists(built, server))
    return None


def _lists(built, server):
    listed = built.live.get(server) or []
    return f": it lists {', '.join(listed)}" if listed else ": it lists no tools"


def _or_raise(edges, path, shown, problem):
    if not edges:
        raise TuningError(path, shown, problem)
    return edges


# ----- recording ------------------------------------------------------------------------


class _Recorder:
    """Appends one JSONL trace record per operator invocation (thread-safe). A record
    that cannot be written is logged and dropped: a trace never fails the agent's run."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self._lock = threading.Lock()
        # Ids go on from the records already in the file, so appended runs stay apart.
        self._id = _count_lines(self.path)

    def write(self, operator, calls, ok, available=None):
        try:
            with self._lock:
                record = {"operator": operator, "called": list(dict.fromkeys(calls)),
                          "calls": calls, "ok": ok, "id": self._id + 1}
                if available is not None:
                    record["available"] = available
                line = _valid_unicode(json.dumps(record, ensure_ascii=False)) + "\n"
                _append(self.path, line.encode("utf-8"))
                self._id += 1
        except Exception as error:  # noqa: BLE001 (whatever it is, the run goes on)
            _log_warning(f"toolscope: could not write a trace record of {operator} to "
                         f"{self.path} ({type(error).__name__}: {error}); the run goes on")


class _OtlpRecorder:
    """Appends the spans of each operator invocation as one OTLP JSON line, as the
    OpenTelemetry Collector's file exporter writes them, following the GenAI semantic
    conventions: a root ``invoke_agent`` span naming the operator in ``gen_ai.agent.name``,
    a ``chat`` span under it with the functions sent in ``gen_ai.tool.definitions``, and an
    ``execute_tool`` span per call (``gen_ai.tool.name``, ``gen_ai.tool.call.id``) at the
    time its response came. One trace per invocation: Langfuse, Phoenix and toolscope each
    show it as one run. Written by hand (standard library only, no OpenTelemetry SDK); a
    line that cannot be written is logged and dropped, as a JSONL record is."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self._lock = threading.Lock()
        _count_lines(self.path)  # refuses what is not a regular file, before any run

    def write(self, operator, run, ok):
        try:
            line = _valid_unicode(json.dumps(_otlp_line(operator, run, ok), ensure_ascii=False))
            with self._lock:
                _append(self.path, (line + "\n").encode("utf-8"))
        except Exception as error:  # noqa: BLE001 (whatever it is, the run goes on)
            _log_warning(f"toolscope: could not write the OTLP spans of {operator} to "
                         f"{self.path} ({type(error).__name__}: {error}); the run goes on")


def _otlp_line(operator, run, ok):
    """One invocation as an OTLP ``resourceSpans`` object (see ``_OtlpRecorder``)."""
    trace = os.urandom(16).hex()
    end = time.time_ns()
    root, chat = os.urandom(8).hex(), os.urandom(8).hex()

    def attr(key, value):
        return {"key": key, "value": {"stringValue": value}}

    def span(span_id, parent, name, start, stop, attrs, failed=False):
        return {"traceId": trace, "spanId": span_id, "parentSpanId": parent, "name": name,
                "kind": 1, "startTimeUnixNano": str(start), "endTimeUnixNano": str(stop),
                "attributes": attrs, "status": {"code": 2} if failed else {}}

    system = attr("gen_ai.system", "chat2graph")
    spans = [span(root, "", f"invoke_agent {operator}", run.start, end,
                  [attr("gen_ai.operation.name", "invoke_agent"),
                   attr("gen_ai.agent.name", operator), system], failed=not ok)]
    chat_attrs = [attr("gen_ai.operation.name", "chat"), attr("gen_ai.agent.name", operator),
                  system]
    if run.available is not None:
        definitions = [{"type": "function", "name": n} for n in run.available]
        chat_attrs.append(attr("gen_ai.tool.definitions", json.dumps(definitions)))
    spans.append(span(chat, root, "chat", run.start, end, chat_attrs))
    for k, (name, at) in enumerate(zip(run.calls, run.times)):
        spans.append(span(os.urandom(8).hex(), root, f"execute_tool {name}", at, at,
                          [attr("gen_ai.operation.name", "execute_tool"),
                           attr("gen_ai.tool.name", name),
                           attr("gen_ai.tool.call.id", f"call_{k + 1}"),
                           attr("gen_ai.agent.name", operator), system]))
    return {"resourceSpans": [{
        "resource": {"attributes": [attr("service.name", "chat2graph")]},
        "scopeSpans": [{"scope": {"name": "toolscope_chat2graph"}, "spans": spans}]}]}


def _valid_unicode(text):
    """``text`` with lone surrogates (which UTF-8 cannot hold: a function name the model
    made up can carry one) replaced by U+FFFD; surrogate pairs joined."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _append(path, data):
    """Appends ``data`` to the regular file at ``path`` (made if missing), without ever
    blocking on a FIFO put in its place."""
    flags = (os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
             | getattr(os, "O_CLOEXEC", 0))
    fd = os.open(path, flags, 0o644)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(f"{path} is not a regular file ({_kind(mode)})")
        start = os.fstat(fd).st_size
        written = 0
        try:
            while written < len(data):
                written += os.write(fd, data[written:])
        except OSError:
            # A torn line would be a bad record: take it back, unless another writer
            # appended after it.
            if written and os.fstat(fd).st_size == start + written:
                os.ftruncate(fd, start)
            raise
    finally:
        os.close(fd)


def _log_warning(message):
    try:
        from app.utils.logger import logger
    except ImportError:
        import logging

        logger = logging.getLogger("toolscope_chat2graph")
    logger.warning(_one_line(message))


def _count_lines(path):
    """The lines of the trace file: 0 when it does not exist yet. Refuses what is not a
    regular file (a FIFO would hang, /dev/zero never ends)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return 0
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"traces={path!r} is not a regular file ({_kind(st.st_mode)}): "
                             "give a regular file, or a name that does not exist yet")
        count, left = 0, st.st_size  # what is there now, even if it grows while counted
        while left > 0:
            chunk = os.read(fd, min(1 << 20, left))
            if not chunk:
                break
            count += chunk.count(b"\n")
            left -= len(chunk)
        return count
    finally:
        os.close(fd)


class _Run:
    """What one operator invocation did: the functions sent to the model, the calls."""

    def __init__(self):
        self.calls = []
        self.times = []  # when each call's response came (ns since the epoch)
        self.available = None
        self.start = time.time_ns()


# The operator invocation running in this context. Asyncio tasks and threads each have
# their own context, so concurrent experts stay apart.
_RUN = contextvars.ContextVar("toolscope_chat2graph_run", default=None)


def _hook_execute(original, recorder, otlp=None):
    async def execute(self, *args, **kwargs):
        name = _OPERATOR_NAMES.get(self.get_id())
        if name is None:  # not built by a load with the integration installed
            return await original(self, *args, **kwargs)
        run, ok = _Run(), False
        token = _RUN.set(run)
        try:
            result = await original(self, *args, **kwargs)
            ok = True
            return result
        finally:
            _RUN.reset(token)
            if recorder is not None:
                recorder.write(name, run.calls, ok, run.available)
            if otlp is not None:
                otlp.write(name, run, ok)

    return functools.wraps(original)(execute)


def _hook_build_task(original):
    async def build_task(self, *args, **kwargs):
        task = await original(self, *args, **kwargs)
        run = _RUN.get()
        if run is not None:
            # The functions the model is offered: one per tool of the task, as the
            # reasoner lists them in its prompt (a tool two actions call, twice).
            run.available = [_file_name(t) for t in task.tools]
        return task

    return functools.wraps(original)(build_task)


def _hook_call_function(original):
    async def call_function(self, tools, *args, **kwargs):
        results = await original(self, tools, *args, **kwargs)
        run = _RUN.get()
        if run is not None:
            called = [_tool_name(r.func_name, tools) for r in results or [] if r.func_name]
            run.calls.extend(called)
            # Parallel calls share their time: readers keep them in the model's order.
            run.times.extend([time.time_ns()] * len(called))
        return results

    return functools.wraps(original)(call_function)


def _tool_name(func_name, tools):
    """The file's name for a called function: that of the tool Chat2Graph calls for it
    (the first offered of that name). A name that cannot be mapped is kept (toolscope
    counts it as an unknown call)."""
    tool = next((t for t in tools if t.name == func_name), None)
    return func_name if tool is None else _file_name(tool)


def _file_name(tool):
    """The file's name for a tool Chat2Graph offers. The tools offered are ``Tool.copy()``
    results (plain ``Tool`` or ``McpTool``), so a local tool is known by the class of the
    object its function is bound to; an MCP tool by its name, qualified with its server's
    when two servers list a tool of that name."""
    from app.core.toolkit.mcp.mcp_tool import McpTool

    if isinstance(tool, McpTool):
        if tool.name in _SHARED:
            return qualify(tool.get_tool_group()._tool_group_config.name, tool.name)
        return tool.name
    owner = getattr(tool.function, "__self__", None)
    return _TOOL_NAMES.get(type(owner), tool.name)


# ----- install and uninstall ------------------------------------------------------------

_INSTALLED = []  # (class, attribute, original as found in the class) to restore


def install(traces=None, otlp=None):
    """Makes every later ``AgenticService.load`` apply the file's tuning; with ``traces``
    (a path), also appends a trace record per operator invocation to it; with ``otlp`` (a
    path), the invocation's spans as an OTLP JSON line (``_OtlpRecorder``), for Langfuse,
    Phoenix (through a Collector) or toolscope. Installing again replaces the earlier
    installation."""
    ModelService, AgenticService, Operator = _chat2graph()
    recorder = _Recorder(traces) if traces is not None else None
    spans = _OtlpRecorder(otlp) if otlp is not None else None
    uninstall()
    for attr, hook in (("load", _hook_load), ("_build_toolkit", _hook_build_toolkit),
                       ("_build_leader_workflow", _hook_build_leader),
                       ("_build_expert_workflow", _hook_build_expert)):
        _patch(AgenticService, attr, hook, static=True)
    if recorder is not None or spans is not None:
        _patch(Operator, "execute", lambda f: _hook_execute(f, recorder, spans))
        _patch(Operator, "_build_task", _hook_build_task)
        _patch(ModelService, "call_function", _hook_call_function)


def _chat2graph():
    """The Chat2Graph classes ``install`` hooks, or one clear error saying what to do."""
    try:
        from app.core.reasoner.model_service import ModelService
        from app.core.sdk.agentic_service import AgenticService
        from app.core.workflow.operator import Operator
    except ModuleNotFoundError as error:
        missing = error.name or ""
        if missing == "app":
            problem = ("Chat2Graph's package `app` cannot be imported: run inside "
                       "Chat2Graph's source tree (its root as the working folder), or put "
                       "that root on sys.path (PYTHONPATH)")
        elif missing.startswith("app."):
            problem = (f"the package `app` found first on sys.path has no `{missing}`: "
                       "put Chat2Graph's source tree (its root) first on sys.path, or run "
                       "inside it")
        else:
            problem = (f"Chat2Graph needs the module `{missing}`, which is not installed "
                       "here: install Chat2Graph's dependencies into this environment")
        raise Chat2GraphNotFound(f"toolscope_chat2graph.install(): {problem}",
                                 name=error.name) from None
    return ModelService, AgenticService, Operator


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
    Chat2Graph's files. What stops it before the server runs is said in one line."""
    parser = argparse.ArgumentParser(
        prog="toolscope-chat2graph",
        description="Run Chat2Graph's server with toolscope's tuning applied.")
    parser.add_argument("--traces", help="append trace records of the runs to this file")
    parser.add_argument("--otlp", help="append the runs' spans to this file as OTLP JSON lines")
    parser.add_argument("--root", default=".",
                        help="Chat2Graph's source tree (default: the current folder)")
    options = parser.parse_args(argv)

    def stop(message):
        parser.exit(1, f"{parser.prog}: {_one_line(message)}\n")

    traces = os.path.abspath(options.traces) if options.traces else None
    otlp = os.path.abspath(options.otlp) if options.otlp else None
    # Chat2Graph resolves some paths, its default config among them, from its root.
    try:
        os.chdir(options.root)
    except OSError as error:
        stop(f"--root {options.root}: {error.strerror or error}")
    sys.path.insert(0, os.getcwd())
    try:
        install(traces=traces, otlp=otlp)
    except (Chat2GraphNotFound, ValueError, OSError) as error:
        stop(str(error))
    sys.argv = [SERVER]
    try:
        runpy.run_module(SERVER, run_name="__main__", alter_sys=True)
    except TuningError as error:
        stop(str(error))


if __name__ == "__main__":
    main()
