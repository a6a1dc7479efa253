"""Runs Chat2Graph's real ``AgenticService.load`` in this (fresh) interpreter and prints
what Chat2Graph built, as JSON on the last line of stdout.

Started by the tests in a subprocess whose working directory is the unpacked Chat2Graph
tree (some of its paths are relative to it), one load per process: a second load in one
process would add a second copy of every vertex to the same toolkit.

Argument: a JSON object
  config     the file to load, or null for ``AgenticService.load()``'s default path
  members    {MCP group name: [member tool names]} the stand-in MCP servers list
  install    {"traces": PATH or null} to install the integration first, or null
  uninstall  true: uninstall it again before the load
  calls      function names the stand-in LLM calls, in order, of those it is offered
  run        "threads" or "tasks": after the load, run every operator once, all at the
             same time, each in a thread of its own (as the leader runs experts) or each
             as an asyncio task of one event loop
  fail       an operator whose run raises (its reasoner fails)
Only what Chat2Graph's README says must be stood in for is: see ``stand_ins``.
"""

import asyncio
import concurrent.futures
import importlib.abc
import importlib.machinery
import json
import logging
import re
import sys
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


def stand_ins(spec):
    """Offline stand-ins for the MCP transport, drawing, knowledge store and LLM."""
    # Appended last: a real module, when installed, always wins.
    sys.meta_path.append(_StandInFinder())

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
    calls = "".join(
        "<function_call>\n"
        + json.dumps({"name": f, "call_objective": "probe", "args": {}})
        + "\n</function_call>\n"
        for f in plan if f in offered
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

    def name(vertex):
        action = sub.get_action(vertex)
        if action is not None:
            return action.name
        tool = toolkit._tools[vertex]
        # A local tool's class is its entry's name; an MCP tool is named by its member name.
        return tool.name if isinstance(tool, McpTool) else type(tool).__name__

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


def main():
    spec = json.loads(sys.argv[1])
    sys.path.insert(0, ".")
    stand_ins(spec)
    if spec.get("install") is not None:
        import toolscope_chat2graph

        toolscope_chat2graph.install(traces=spec["install"].get("traces"))
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
        out["errors"] = run_all(built, spec["run"], spec.get("fail"))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
