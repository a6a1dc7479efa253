"""Runs Chat2Graph's real ``AgenticService.load`` in this (fresh) interpreter and prints
what Chat2Graph built, as JSON on the last line of stdout.

Started by the tests in a subprocess whose working directory is the unpacked Chat2Graph
tree (some of its paths are relative to it), one load per process: a second load in one
process would add a second copy of every vertex to the same toolkit.

Argument: a JSON object
  config     the file to load, or null for ``AgenticService.load()``'s default path
  members    {MCP group name: [member tool names]} the stand-in MCP servers list
  install    {"traces": PATH or null, "otlp": PATH or null} to install the integration
             first, or null
  uninstall  true: uninstall it again before the load
  calls      function names the stand-in LLM calls, in order, of those it is offered
  run        "threads" or "tasks": after the load, run every operator once, all at the
             same time, each in a thread of its own (as the leader runs experts) or each
             as an asyncio task of one event loop
  fail       an operator whose run raises (its reasoner fails)
  fsize      a file size limit (RLIMIT_FSIZE, SIGXFSZ ignored) set after the load: a
             stand-in for a full disk, under which a write past it fails with EFBIG
The report holds ``log``: [level, message] of every line Chat2Graph's logger took.
Only what Chat2Graph's README says must be stood in for is: see ``stand_ins``.

``probe.py --serve``: the fork server (``harness.Zygote``). Importing the third-party
packages a load needs (mcp, SQLAlchemy, neo4j, pydantic, networkx, ...) is most of a
load's CPU time, so this process imports them once (``preload``: nothing of Chat2Graph,
whose modules read the environment and the working folder when imported) and then, per
request read from stdin, forks a child that becomes what ``probe.py SPEC`` would be in a
fresh interpreter (``become``: its environment, working folder, stdout and stderr, the
harness's limits) and runs ``main``. Each load still has a process of its own that never
saw another load.
"""

import asyncio
import concurrent.futures
import importlib
import importlib.abc
import importlib.machinery
import json
import logging
import os
import re
import resource
import signal
import sys
import threading
import types

# Modules the toolkit, workflow and reasoner paths import but never call (or, for
# litellm, the LLM call the tests script), and app.utils.logger, which is missing from
# the repository at this commit. Used only when the real module cannot be found.
EMPTY = (
    "matplotlib", "memfuse", "litellm", "google.genai", "google.generativeai", "pandas",
    "magic", "chromadb", "werkzeug", "flask", "flask_cors", "flask_sqlalchemy", "dbgpt",
    "dbgpt_ext", "playwright", "browser_use", "pyfiglet", "sqlalchemy_utils", "openai",
    "datasets",
)


class _AnyType(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything


class _Anything(metaclass=_AnyType):
    """Stands for any name a stand-in module is asked for: callable, subclassable, and
    anything asked of it (of the class or an instance) is another stand-in."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Anything()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _StandInFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        wanted = name in ("app.utils", "app.utils.logger", "google") or any(
            name == m or name.startswith(m + ".") for m in EMPTY
        )
        if not wanted:
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.__path__ = []
        if spec.name == "app.utils.logger":
            module.logger = logging.getLogger("chat2graph")
        else:
            # Every other name is a distinct class, so isinstance checks answer False.
            names = {}

            def __getattr__(attr):
                if attr.startswith("__"):
                    raise AttributeError(attr)
                return names.setdefault(attr, type(attr, (_Anything,), {}))

            module.__getattr__ = __getattr__
        return module

    def exec_module(self, module):
        pass


def _stand_in_finder():
    """Appends the stand-ins' finder to ``sys.meta_path`` (last: a real module, when
    installed, always wins), once: the fork server put it there before forking."""
    if not any(isinstance(f, _StandInFinder) for f in sys.meta_path):
        sys.meta_path.append(_StandInFinder())


def stand_ins(spec):
    """Offline stand-ins for the MCP transport, drawing, knowledge store and LLM."""
    _stand_in_finder()

    from mcp.types import TextContent, Tool as McpBaseTool

    from app.core.model.knowledge import Knowledge
    from app.core.service.toolkit_service import ToolkitService
    from app.core.toolkit.tool_connection import ToolConnection
    from app.core.toolkit.tool_connection_factory import ToolConnectionFactory
    from app.core.workflow.operator import Operator

    members = spec.get("members") or {}

    class Connection(ToolConnection):
        def __init__(self, group):
            super().__init__()
            self._group = group

        async def list_tools(self):
            schema = {"type": "object", "properties": {}}
            return [McpBaseTool(name=n, description=f"{n} of {self._group}", inputSchema=schema)
                    for n in members.get(self._group, [])]

        async def call(self, tool_name, **kwargs):
            return [TextContent(type="text", text=f"{tool_name} done")]

        async def close(self):
            pass

    async def create_connection(tool_group_config):
        return Connection(tool_group_config.name)

    ToolConnectionFactory.create_connection = staticmethod(create_connection)
    ToolkitService.visualize = lambda self, graph, title, show=False: None
    Operator.get_knowledge = lambda self, job: Knowledge(global_chunks=[], local_chunks=[])

    import litellm

    from app.plugin.lite_llm.lite_llm_client import LiteLlmClient

    litellm.completion = lambda **kwargs: _scripted(spec.get("calls") or [], **kwargs)
    generate = LiteLlmClient.generate

    async def generate_later(self, *args, **kwargs):
        # The LLM's latency: other operators' asyncio tasks run meanwhile.
        await asyncio.sleep(0.01)
        return await generate(self, *args, **kwargs)

    LiteLlmClient.generate = generate_later


def _scripted(plan, messages, **kwargs):
    """The stand-in LLM: calls the planned functions that the system prompt offers, in
    the format Chat2Graph's ModelService parses, and delivers at once."""
    offered = re.findall(r"^\(\d+\) Function (.+?)\(\):", messages[0]["content"], re.M)
    # A planned name starting with "!" is called whether it is offered or not (a name the
    # model made up).
    calls = "".join(
        "<function_call>\n"
        + json.dumps({"name": f.removeprefix("!"), "call_objective": "probe", "args": {}})
        + "\n</function_call>\n"
        for f in plan if f in offered or f.startswith("!")
    )
    message = types.SimpleNamespace(content=calls + "<deliverable>\ndone\n</deliverable>")
    return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)])


def operators():
    """(toolscope name, Operator) of everything the load built: ``leader``, then
    ``<expert profile name>/<n>`` in each expert's workflow order."""
    from app.core.service.agent_service import AgentService

    leader = AgentService.instance.leader
    found = [("leader", op) for op in _workflow_operators(leader)]
    for expert in leader.state.list_experts():
        name = expert.get_profile().name
        for n, op in enumerate(_workflow_operators(expert), 1):
            found.append((f"{name}/{n}", op))
    return found


def _workflow_operators(agent):
    # The operator graph keeps insertion order, which is the file's order.
    graph = agent._workflow._operator_graph
    return [data["operator"] for _, data in graph.nodes(data=True)]


def recommendation(operator):
    """What Chat2Graph offers this operator: ``Operator._build_task``'s actions and tools,
    and ``recommend_subgraph``'s edges with their scores, named as the file names them."""
    from app.core.common.async_func import run_async_function
    from app.core.model.job import Job
    from app.core.service.toolkit_service import ToolkitService
    from app.core.toolkit.mcp.mcp_tool import McpTool

    config = operator._config
    task = run_async_function(operator._build_task, job=Job(goal="probe"))
    service = ToolkitService.instance
    sub = service.recommend_subgraph(config.actions, config.threshold, config.hops)
    toolkit = service.get_toolkit()

    shared = shared_members(toolkit)

    def name(vertex):
        action = sub.get_action(vertex)
        if action is not None:
            return action.name
        tool = toolkit._tools[vertex]
        # A local tool's class is its entry's name; an MCP tool is named by its member
        # name, SERVER/TOOL when two servers list a tool of that name.
        if not isinstance(tool, McpTool):
            return type(tool).__name__
        server = tool.get_tool_group()._tool_group_config.name
        return qualified(server, tool.name) if tool.name in shared else tool.name

    tool_vertices = [v for v in sub.vertices() if sub.get_tool(v) is not None]
    offered = sorted(t.name for t in task.tools)
    if offered != sorted(toolkit._tools[v].name for v in tool_vertices):
        raise AssertionError("_build_task and recommend_subgraph disagree on the tools")
    return {
        "threshold": config.threshold,
        "hops": config.hops,
        "actions": sorted(a.name for a in task.actions),
        "tools": sorted(name(v) for v in tool_vertices),
        "edges": sorted(
            [name(u), name(v), "Next" if sub.get_action(v) else "Call", sub.get_score(u, v)]
            for u, v in sub.edges()
        ),
    }


def shared_members(toolkit):
    """The MCP tool names that two servers (by their names) list in the built toolkit."""
    servers = {}
    for gid, group in toolkit._tool_groups.items():
        for v in toolkit.successors(gid):
            tool = toolkit._tools.get(v)
            if tool is not None:
                servers.setdefault(tool.name, set()).add(group._tool_group_config.name)
    return {name for name, found in servers.items() if len(found) > 1}


def qualified(server, tool):
    """docs/mcp.md's ``SERVER/TOOL``, ``/`` and ``\\`` in either part escaped."""
    def escape(part):
        return part.replace("\\", "\\\\").replace("/", "\\/")

    return f"{escape(server)}/{escape(tool)}"


class ReasonerFailed(Exception):
    pass


class _FailingReasoner:
    async def infer(self, task):
        raise ReasonerFailed("the reasoner failed")


def run_all(built, mode, fail):
    """Runs every operator once, all at the same time; returns the errors by operator."""
    from app.core.common.async_func import run_async_function
    from app.core.model.job import Job
    from app.core.service.reasoner_service import ReasonerService

    real = ReasonerService.instance.get_reasoner()

    def kwargs(name):
        return {"reasoner": _FailingReasoner() if name == fail else real,
                "job": Job(goal="probe run")}

    if mode == "threads":
        with concurrent.futures.ThreadPoolExecutor(len(built)) as pool:
            futures = [pool.submit(run_async_function, op.execute, **kwargs(name))
                       for name, op in built]
            outcomes = [f.exception() for f in futures]
    else:
        async def together():
            return await asyncio.gather(*(op.execute(**kwargs(name)) for name, op in built),
                                        return_exceptions=True)

        outcomes = asyncio.run(together())
    return {name: str(o) for (name, _), o in zip(built, outcomes) if isinstance(o, Exception)}


# What the fork server imports before it forks: the third-party modules Chat2Graph's
# modules and stand_ins import first in a load (by `python -X importtime`), which are
# about nine tenths of a load's import time. Nothing of Chat2Graph's tree (`app`: its
# modules read the environment and the working folder when imported, and
# app.core.dal.database opens the database of $DATABASE_URL), nor the integration, nor
# a stand-in: those are imported by each load, in its own process.
PRELOAD = (
    "mcp", "mcp.types", "mcp.client.session", "mcp.client.websocket", "mcp.server.fastmcp",
    "sqlalchemy", "sqlalchemy.orm", "sqlalchemy.ext.declarative",
    "sqlalchemy.dialects.sqlite", "sqlite3", "neo4j", "neo4j.graph", "networkx",
    "pydantic", "requests", "yaml", "dotenv",
)


def preload():
    """Imports PRELOAD, with the stand-ins' finder in place as a fresh probe has it when
    they are imported (neo4j, for one, asks for pandas, which a probe stands in for).
    Raises RuntimeError where a thread is running after it: fork copies only the thread
    calling it, so a load in a child would not be the load of a fresh interpreter."""
    _stand_in_finder()
    for name in PRELOAD:
        importlib.import_module(name)
    tasks = os.listdir("/proc/self/task") if os.path.isdir("/proc/self/task") else []
    if threading.active_count() != 1 or len(tasks) > 1:
        raise RuntimeError("preloading started a thread")


def serve():
    """The fork server's loop: one request per line of stdin (a JSON object: ``argv``,
    ``cwd``, ``env``, ``out``, ``err``, ``memory``, ``cpu_seconds``), answered on stdout
    with ``{"pid": N}`` once forked and ``{"status": S, "cpu": SECONDS}`` (``os.wait4``'s
    status, and the CPU time the child used) once the child ended, after a first line
    ``{"ready": PID}``. Returns only in a child, with its request; exits at end of
    input."""
    requests = sys.stdin.buffer
    replies = sys.stdout
    replies.write(json.dumps({"ready": os.getpid()}) + "\n")
    replies.flush()
    while True:
        line = requests.readline()
        if not line:
            sys.exit(0)
        request = json.loads(line)
        replies.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            return request
        replies.write(json.dumps({"pid": pid}) + "\n")
        replies.flush()
        _, status, used = os.wait4(pid, 0)
        replies.write(json.dumps({"status": status,
                                  "cpu": used.ru_utime + used.ru_stime}) + "\n")
        replies.flush()


def become(request):
    """In a forked child: what ``probe.py SPEC`` started by ``harness.run_guarded`` is,
    but for the modules preloaded before the fork."""
    resource.setrlimit(resource.RLIMIT_AS, (request["memory"], request["memory"]))
    cpu = request["cpu_seconds"]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 10))
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    for fd, path, flags in ((0, os.devnull, os.O_RDONLY),
                            (1, request["out"], os.O_WRONLY | os.O_TRUNC),
                            (2, request["err"], os.O_WRONLY | os.O_TRUNC)):
        opened = os.open(path, flags)
        os.dup2(opened, fd)
        os.close(opened)
    # The harness sends PYTHONIOENCODING as it sets it for a fresh interpreter, which
    # reads it at startup: set here the encoding and error handler it would have chosen
    # (stderr keeps its backslashreplace, as Python's startup does).
    wanted = request["env"].get("PYTHONIOENCODING")
    if wanted:
        encoding, _, errors = wanted.partition(":")
        sys.stdout.reconfigure(encoding=encoding or None, errors=errors or None)
        sys.stderr.reconfigure(encoding=encoding or None, errors="backslashreplace")
    sys.argv = [sys.argv[0], *request["argv"]]


def main():
    spec = json.loads(sys.argv[1])
    sys.path.insert(0, ".")
    log = []

    class Keep(logging.Handler):
        def emit(self, record):
            log.append([record.levelname, record.getMessage()])

    chat2graph_logger = logging.getLogger("chat2graph")
    chat2graph_logger.addHandler(Keep())
    chat2graph_logger.setLevel(logging.INFO)
    stand_ins(spec)
    if spec.get("install") is not None:
        import toolscope_chat2graph

        toolscope_chat2graph.install(traces=spec["install"].get("traces"),
                                     otlp=spec["install"].get("otlp"))
        if spec.get("uninstall"):
            toolscope_chat2graph.uninstall()
    from app.core.sdk.agentic_service import AgenticService

    if spec.get("config"):
        AgenticService.load(spec["config"])
    else:
        AgenticService.load()
    built = operators()
    out = {"operators": {name: recommendation(op) for name, op in built}}
    if spec.get("run"):
        if spec.get("fsize") is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (spec["fsize"], spec["fsize"]))
        out["errors"] = run_all(built, spec["run"], spec.get("fail"))
    out["log"] = log
    print(json.dumps(out))


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        preload()
        become(serve())
    main()
