"""The recorder's logic on stand-ins for Chat2Graph's classes (no Chat2Graph, no network).

Run: python3 -m unittest discover -s integrations/chat2graph -v
"""

import asyncio
import json
import os
import sys
import tempfile
import types
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import toolscope_recorder as tr  # noqa: E402


# A stand-in plugin module, as `module_path` names it in the YAML.
_plugin = types.ModuleType("standin_plugin.graph_query")


class CypherExecutor:
    def __init__(self):
        self.name = self.execute_cypher.__name__

    def execute_cypher(self, statement):
        return statement


class SchemaGetter:
    def __init__(self):
        self.name = "get_schema"

    def get_schema(self):
        return "schema"

    def helper(self):
        return None


_plugin.CypherExecutor = CypherExecutor
_plugin.SchemaGetter = SchemaGetter
sys.modules["standin_plugin"] = types.ModuleType("standin_plugin")
sys.modules["standin_plugin.graph_query"] = _plugin

CONFIG = {
    "tools": [
        {"name": "CypherExecutor", "module_path": "standin_plugin.graph_query"},
        {"name": "SchemaGetter", "module_path": "standin_plugin.graph_query"},
        {"name": "Missing", "module_path": "no.such.module"},
        {"name": "BrowserTool", "type": "MCP"},
    ],
    "experts": [
        {
            "profile": {"name": "Query Expert"},
            "workflow": [
                [
                    {"instruction": "Design the query.", "actions": [{"name": "query_design"}]},
                    {"instruction": "Run the query.", "actions": [{"name": "query_execution"}]},
                ]
            ],
        },
        {
            "profile": {"name": "Q&A Expert"},
            "workflow": [[{"instruction": "Answer.", "actions": [{"name": "answer"}]}]],
        },
    ],
    "leader": {"actions": [{"name": "job_decomposition"}]},
}


class Result:
    def __init__(self, func_name):
        self.func_name = func_name


class ModelService:
    """Stands in for Chat2Graph's ModelService: call_function runs what the model asked."""

    async def call_function(self, tools, model_response_text):
        return [Result(name) for name in model_response_text.split()]


class Action:
    def __init__(self, name):
        self.name = name


class OperatorConfig:
    def __init__(self, instruction, actions):
        self.instruction = instruction
        self.actions = [Action(a) for a in actions]


class Operator:
    def __init__(self, instruction, actions, calls, fail=False):
        self._config = OperatorConfig(instruction, actions)
        self.calls = calls
        self.fail = fail

    async def execute(self, service, tools):
        for text in self.calls:
            await asyncio.sleep(0)  # let concurrent operators interleave
            await service.call_function(tools, text)
        if self.fail:
            raise RuntimeError("the model gave up")
        return "done"


class RecorderTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "traces.jsonl")

    def tearDown(self):
        tr.uninstall()
        self.dir.cleanup()

    def lines(self):
        with open(self.path, encoding="utf-8") as f:
            return [json.loads(line) for line in f]

    def test_tool_names_from_module_path(self):
        names = tr.ToolNames.from_config(CONFIG)
        self.assertEqual(names.map("execute_cypher"), "CypherExecutor")
        self.assertEqual(names.map("SchemaGetter"), "SchemaGetter")
        # SchemaGetter defines two public methods: no alias is guessed from the class...
        self.assertEqual(names.map("get_schema"), "get_schema")
        # ...but the tool objects passed to call_function teach it.
        names.learn([SchemaGetter(), CypherExecutor()])
        self.assertEqual(names.map("get_schema"), "SchemaGetter")
        self.assertEqual(names.map("browse"), "browse")

    def test_operator_names(self):
        namer = tr.OperatorNames.from_config(CONFIG)
        self.assertEqual(namer(Operator("Run the query.", ["x"], [])), "Query Expert/2")
        self.assertEqual(namer(Operator("?", ["answer"], [])), "Q&A Expert/1")
        self.assertEqual(namer(Operator("Decompose", ["job_decomposition"], [])), "leader")
        self.assertIsNone(namer(Operator("?", ["unknown"], [])))
        op = Operator("?", ["unknown"], [])
        op.toolscope_name = "custom/1"
        self.assertEqual(namer(op), "custom/1")

    def test_install_records_each_invocation(self):
        rec = tr.Recorder(self.path, tr.ToolNames.from_config(CONFIG))
        tr.install(rec, ModelService, Operator, tr.OperatorNames.from_config(CONFIG))
        service = ModelService()
        tools = [CypherExecutor(), SchemaGetter()]
        ops = [
            Operator("Design the query.", [], ["get_schema", "get_schema execute_cypher"]),
            Operator("Run the query.", [], ["execute_cypher nope"], fail=True),
            Operator("Answer.", [], []),
            Operator("Not in the config.", ["zzz"], ["execute_cypher"]),
        ]

        async def run_all():
            for op in ops:
                try:
                    await op.execute(service, tools)
                except RuntimeError:
                    pass
            # Calls outside any operator are not recorded.
            await service.call_function(tools, "execute_cypher")

        asyncio.run(run_all())
        self.assertEqual(
            self.lines(),
            [
                {"operator": "Query Expert/1", "called": ["SchemaGetter", "CypherExecutor"],
                 "ok": True, "id": 1},
                {"operator": "Query Expert/2", "called": ["CypherExecutor", "nope"],
                 "ok": False, "id": 2},
                {"operator": "Q&A Expert/1", "called": [], "ok": True, "id": 3},
            ],
        )
        self.assertEqual(rec.unnamed, 1)
        tr.uninstall()
        self.assertEqual(ModelService.call_function.__qualname__, "ModelService.call_function")

    def test_concurrent_invocations_keep_their_own_calls(self):
        rec = tr.Recorder(self.path, tr.ToolNames(["A", "B"]))
        tr.install(rec, ModelService, Operator, lambda op: op._config.instruction)

        async def both():
            a = Operator("x/1", [], ["A", "A", "A"])
            b = Operator("x/2", [], ["B", "B"])
            await asyncio.gather(a.execute(ModelService(), []), b.execute(ModelService(), []))

        asyncio.run(both())
        got = {line["operator"]: line["called"] for line in self.lines()}
        self.assertEqual(got, {"x/1": ["A"], "x/2": ["B"]})


if __name__ == "__main__":
    unittest.main()
