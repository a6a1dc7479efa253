"""Opt-in recorder of toolscope trace records while Chat2Graph runs.

Chat2Graph does not store which tools its model called, so this module records them: one
JSONL line per operator invocation, in the format `toolscope eval` and `toolscope fit`
read::

    {"operator": "Query Expert/1", "called": ["SchemaGetter", "CypherExecutor"], "ok": true, "id": 3}

* ``operator`` is the name toolscope gives the operator: ``<expert>/<n>`` (the n-th
  operator of the expert's workflow, counting from 1) or ``leader``.
* ``called`` holds toolkit names (the ``name`` of the YAML tool entries, such as
  ``CypherExecutor``), mapped back from the Python function names the model calls (such as
  ``execute_cypher``). A name that cannot be mapped is kept as called; toolscope counts it
  as an unknown call.

Nothing happens unless you opt in::

    from toolscope_recorder import Recorder, ToolNames, OperatorNames, install
    recorder = Recorder("traces.jsonl", ToolNames.from_config(config))
    install(recorder, ModelService, Operator, OperatorNames.from_config(config))

``config`` is the agentic YAML loaded as a dict. ``install`` wraps
``ModelService.call_function`` (to see the called functions) and ``Operator.execute`` (to
know which operator runs); ``uninstall`` restores them. Only the standard library is used.
"""

import contextvars
import functools
import importlib
import inspect
import json
import threading

_CURRENT = contextvars.ContextVar("toolscope_invocation", default=None)


class ToolNames:
    """Maps called function names to toolkit tool names."""

    def __init__(self, toolkit_names, aliases=None):
        self.toolkit_names = set(toolkit_names)
        self.aliases = dict(aliases or {})

    @classmethod
    def from_config(cls, config, import_modules=True):
        """Toolkit names from the config's ``tools:`` entries. With ``import_modules``, each
        local tool's class is looked up at ``module_path`` and its one public method (the
        function Chat2Graph offers, e.g. ``execute_cypher``) becomes an alias."""
        names = set()
        aliases = {}
        for entry in config.get("tools") or []:
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                continue
            name = entry["name"]
            names.add(name)
            module_path = entry.get("module_path")
            if import_modules and isinstance(module_path, str):
                func = _function_of(module_path, name)
                if func:
                    aliases.setdefault(func, name)
        return cls(names, aliases)

    def learn(self, tools):
        """Learns aliases from the tool objects Chat2Graph passes to ``call_function``: a
        tool's ``name`` (its function name) maps to its class name when the class name is a
        toolkit name."""
        for tool in tools or []:
            cls_name = type(tool).__name__
            func = getattr(tool, "name", None)
            if cls_name in self.toolkit_names and isinstance(func, str):
                self.aliases.setdefault(func, cls_name)

    def map(self, func_name):
        if func_name in self.toolkit_names:
            return func_name
        return self.aliases.get(func_name, func_name)


def _function_of(module_path, class_name):
    """The single public method a tool class defines itself, or None."""
    try:
        cls = getattr(importlib.import_module(module_path), class_name)
    except Exception:  # a missing plugin must not stop the run being recorded
        return None
    own = [
        n for n, v in vars(cls).items() if not n.startswith("_") and inspect.isfunction(v)
    ]
    return own[0] if len(own) == 1 else None


class OperatorNames:
    """Names operators as toolscope does: ``<expert>/<n>`` and ``leader``.

    A running operator is recognised by its config's instruction, or else by its action
    names; a name that matches more than one workflow entry is not guessed.
    """

    def __init__(self, by_instruction, by_actions):
        self.by_instruction = by_instruction
        self.by_actions = by_actions

    @classmethod
    def from_config(cls, config):
        by_instruction = {}
        by_actions = {}
        for expert in config.get("experts") or []:
            if not isinstance(expert, dict):
                continue
            expert_name = (expert.get("profile") or {}).get("name", "")
            n = 0
            for chain in expert.get("workflow") or []:
                for op in chain if isinstance(chain, list) else []:
                    if not isinstance(op, dict):
                        continue
                    n += 1
                    name = f"{expert_name}/{n}"
                    by_instruction.setdefault(op.get("instruction"), []).append(name)
                    by_actions.setdefault(_action_key(op.get("actions")), []).append(name)
        leader = config.get("leader")
        if isinstance(leader, dict):
            by_actions.setdefault(_action_key(leader.get("actions")), []).append("leader")
        return cls(by_instruction, by_actions)

    def __call__(self, operator):
        explicit = getattr(operator, "toolscope_name", None)
        if isinstance(explicit, str):
            return explicit
        cfg = getattr(operator, "_config", None) or getattr(operator, "config", None)
        for table, key in (
            (self.by_instruction, getattr(cfg, "instruction", None)),
            (self.by_actions, _action_key(getattr(cfg, "actions", None))),
        ):
            names = table.get(key) if key is not None else None
            if names and len(names) == 1:
                return names[0]
        return None


def _action_key(actions):
    """Action names as a hashable key, from YAML dicts or Chat2Graph Action objects."""
    if not actions:
        return None
    names = []
    for a in actions:
        name = a.get("name") if isinstance(a, dict) else getattr(a, "name", None)
        if not isinstance(name, str):
            return None
        names.append(name)
    return tuple(names)


class Recorder:
    """Writes one JSONL record per operator invocation (appending, thread-safe)."""

    def __init__(self, path, tool_names):
        self.path = path
        self.tool_names = tool_names
        self.unnamed = 0
        self._lock = threading.Lock()
        self._next_id = 0

    def begin(self, operator_name):
        """Starts an invocation in the current context; returns the token for ``end``."""
        return _CURRENT.set({"operator": operator_name, "called": []})

    def called(self, func_name, tools=None):
        """Notes a called function in the current invocation (ignored outside one)."""
        inv = _CURRENT.get()
        if inv is None or not isinstance(func_name, str) or not func_name:
            return
        if tools:
            self.tool_names.learn(tools)
        name = self.tool_names.map(func_name)
        if name not in inv["called"]:
            inv["called"].append(name)

    def end(self, token, ok):
        inv = _CURRENT.get()
        _CURRENT.reset(token)
        if inv is None:
            return
        if inv["operator"] is None:
            self.unnamed += 1
            return
        with self._lock:
            self._next_id += 1
            line = {"operator": inv["operator"], "called": inv["called"], "ok": ok,
                    "id": self._next_id}
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(line, ensure_ascii=False) + "\n")


_INSTALLED = []


def install(recorder, model_service_cls, operator_cls, operator_name):
    """Wraps ``model_service_cls.call_function`` and ``operator_cls.execute`` so that every
    operator invocation is recorded. ``operator_name(operator)`` gives the toolscope name."""

    original_call = model_service_cls.call_function
    original_execute = operator_cls.execute

    def note(tools, results):
        for r in results or []:
            recorder.called(getattr(r, "func_name", None), tools)

    if inspect.iscoroutinefunction(original_call):
        @functools.wraps(original_call)
        async def call_function(self, tools, *args, **kwargs):
            results = await original_call(self, tools, *args, **kwargs)
            note(tools, results)
            return results
    else:
        @functools.wraps(original_call)
        def call_function(self, tools, *args, **kwargs):
            results = original_call(self, tools, *args, **kwargs)
            note(tools, results)
            return results

    if inspect.iscoroutinefunction(original_execute):
        @functools.wraps(original_execute)
        async def execute(self, *args, **kwargs):
            token = recorder.begin(operator_name(self))
            ok = False
            try:
                result = await original_execute(self, *args, **kwargs)
                ok = True
                return result
            finally:
                recorder.end(token, ok)
    else:
        @functools.wraps(original_execute)
        def execute(self, *args, **kwargs):
            token = recorder.begin(operator_name(self))
            ok = False
            try:
                result = original_execute(self, *args, **kwargs)
                ok = True
                return result
            finally:
                recorder.end(token, ok)

    model_service_cls.call_function = call_function
    operator_cls.execute = execute
    _INSTALLED.append((model_service_cls, "call_function", original_call))
    _INSTALLED.append((operator_cls, "execute", original_execute))


def uninstall():
    """Restores every method ``install`` wrapped."""
    while _INSTALLED:
        cls, attr, original = _INSTALLED.pop()
        setattr(cls, attr, original)
