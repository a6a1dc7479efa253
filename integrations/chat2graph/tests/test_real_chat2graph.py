"""The integration on Chat2Graph's real code: every operator's recommendation inside
Chat2Graph equals ``toolscope recommend`` for the same file, tuned or not; what cannot be
applied raises; the launcher installs before the load; runs are recorded in a form
``toolscope eval`` reads. Each load runs in a fresh interpreter (``harness.probe``)."""

import json
import shutil
import sys
import unittest
from collections import Counter
from pathlib import Path

import yaml

from . import harness
from .harness import DEFAULT_CONFIG, ProbeFailed, probe, scratch, toolscope

# A widely tuned file: most operators and the leader, Next edges (one across chains),
# Call edges (one on a tool that an action in two chains builds twice, one exactly at
# its operator's threshold), and MCP members' Call edges.
TUNING = [
    ("threshold", "Design Expert/1", 0.7), ("threshold", "Design Expert/2", 0.35),
    ("hops", "Design Expert/2", 2), ("threshold", "Extraction Expert/1", 0.45),
    ("hops", "Extraction Expert/1", 1), ("threshold", "Query Expert/1", 0.3),
    ("hops", "Query Expert/1", 1), ("threshold", "Analysis Expert/1", 0.6),
    ("hops", "Analysis Expert/1", 3), ("threshold", "Q&A Expert/1", 0.25),
    ("hops", "Q&A Expert/1", 2), ("hops", "Q&A Expert/2", 1),
    ("threshold", "WebSurferExpert/1", 0.4), ("hops", "WebSurferExpert/1", 1),
    ("threshold", "DeveloperExpert/1", 0.55), ("hops", "DeveloperExpert/1", 2),
    ("threshold", "leader", 0.35), ("hops", "leader", 2),
    ("score", "supplement", "query_execution", 0.4),
    ("score", "vertex_type_and_condition_validation", "supplement", 0.8),
    ("score", "query_execution", "content_understanding_3", 0.3),
    ("score", "web_research", "reference_listing", 0.6),
    ("score", "reference_listing", "query_system_status", 0.2),
    ("score", "query_system_status", "job_decomposition", 0.9),
    ("score", "navigate browser action", "visual view page action", 0.5),
    ("score", "handle zip file action", "analyze multimodal content action", 0.45),
    ("score", "analyze multimodal content action", "file operation action", 0.65),
    ("score", "query_execution", "SchemaGetter", 0.45),
    ("score", "query_execution", "CypherExecutor", 0.9),
    ("score", "vertex_type_and_condition_validation", "SchemaGetter", 0.35),
    ("score", "analyze multimodal content action", "GeminiMultiModalTool", 0.3),
    ("score", "analyze multimodal content action", "YouTubeTool", 0.6),
    ("score", "algorithms_execution", "PageRankExecutor", 0.2),
    ("score", "query_system_status", "DocumentReader", 0.35),
    ("score", "content_understanding", "DocumentReader", 0.7),
    ("score", "web_research", "browser_click", 0.3),
    ("score", "web_research", "browser_navigate", 0.6),
    ("score", "file operation action", "read_text_file", 0.4),
    ("score", "reference_listing", "write_file", 0.7),
    ("score", "browser using action", "browser_use", 0.33),
]

# What the stand-in LLM calls, of what it is offered, and the file's names for them.
PLAN = ["get_schema", "execute_cypher", "get_schema", "browser_click", "read_text_file"]
FILE_NAMES = {"get_schema": "SchemaGetter", "execute_cypher": "CypherExecutor"}

_tree = None


def setUpModule():
    global _tree
    _tree = harness.unpack()


def default_config(folder, cache=True):
    """A copy of Chat2Graph's own config (with toolscope's MCP cache beside it)."""
    config = folder / "chat2graph.yml"
    shutil.copy(_tree / DEFAULT_CONFIG, config)
    if cache:
        harness.write_cache(config)
    return config


def tuned_config(folder):
    config = default_config(folder)
    for edit in TUNING:
        toolscope("set", config, *edit)
    return config


def chains_of(config):
    """How often each action occurs in the config's ``toolkit`` chains."""
    data = yaml.safe_load(Path(config).read_text())
    return Counter(a["name"] for chain in data["toolkit"] for a in chain)


class Agrees:
    """Chat2Graph's recommendation (what ``Operator._build_task`` offers and
    ``recommend_subgraph``'s edges) equals ``toolscope recommend``, operator by
    operator."""

    def assert_agree(self, config, report, groups=None):
        """Compares every operator; ``groups`` maps MCP members to the group toolscope
        shows instead (when it does not know the members). Returns how many agreed."""
        rename = groups or {}
        exported = json.loads(toolscope("export", config, "--to", "json").stdout)
        operators = {o["name"]: o for o in exported["operators"]}
        self.assertEqual(set(operators), set(report["operators"]))
        occurrences = chains_of(config)
        agreed = 0
        for name, mine in report["operators"].items():
            with self.subTest(operator=name):
                theirs = json.loads(toolscope("recommend", config, "--operator", name,
                                              "--format", "json", "--no-tokens").stdout)
                self.assertEqual((mine["threshold"], mine["hops"]),
                                 (operators[name]["threshold"], operators[name]["hops"]))
                tools = [rename.get(t, t) for t in mine["tools"]]
                edges = [(f, rename.get(t, t), kind.lower(), s)
                         for f, t, kind, s in mine["edges"]]
                self.assertEqual(sorted(set(mine["actions"])), theirs["actions"])
                self.assertEqual(sorted(set(tools)), theirs["tools"])
                self.assertEqual(set(edges),
                                 {(e["from"], e["to"], e["kind"], e["score"])
                                  for e in theirs["edges"]})
                self.assert_copies(theirs, tools, edges, occurrences, rename)
                agreed += 1
        return agreed

    def assert_copies(self, theirs, tools, edges, occurrences, rename):
        """Chat2Graph builds an action's tools once per place the action has in the
        chains (and an MCP group's members once per calling action), so it offers such
        a tool that often: the counts toolscope's Call edges predict."""
        per_group = Counter(rename.values())
        expected = Counter()
        for e in theirs["edges"]:
            if e["kind"] == "call":
                expected[e["to"]] += occurrences[e["from"]] * per_group.get(e["to"], 1)
        self.assertEqual(Counter(tools), expected)
        calls = Counter((f, t) for f, t, kind, _ in edges if kind == "call")
        self.assertEqual(calls, Counter({(e["from"], e["to"]): occurrences[e["from"]]
                                         * per_group.get(e["to"], 1)
                                         for e in theirs["edges"] if e["kind"] == "call"}))


class Agreement(Agrees, unittest.TestCase):
    def test_chat2graph_yml_agrees(self):
        config = default_config(scratch("default"))
        report = probe(_tree, config)
        self.assertEqual(self.assert_agree(config, report), 10)
        # The duplicates are real: get_schema twice for Query Expert/1 (two actions call
        # SchemaGetter), GeminiMultiModalTool twice for one action in two chains.
        self.assertEqual(report["operators"]["Query Expert/1"]["tools"].count("SchemaGetter"),
                         2)
        self.assertEqual(report["operators"]["WebSurferExpert/1"]["tools"]
                         .count("GeminiMultiModalTool"), 2)

    def test_widely_tuned_copy_agrees(self):
        config = tuned_config(scratch("tuned"))
        report = probe(_tree, config)
        self.assertEqual(self.assert_agree(config, report), 10)
        # The tuning took effect: no operator is left at Chat2Graph's defaults, and
        # scores other than 1.0 are on the edges Chat2Graph recommends.
        self.assertNotIn((0.5, 0), {(o["threshold"], o["hops"])
                                    for o in report["operators"].values()})
        scores = {e[3] for o in report["operators"].values() for e in o["edges"]}
        self.assertLessEqual({0.4, 0.8, 0.6, 0.9, 0.65, 0.45, 0.7, 0.35}, scores)

    def test_default_path_load_is_tuned(self):
        # AgenticService.load() with no path reads the tree's own config.
        tree = harness.unpack()
        config = tuned_config(tree / "app/core/sdk")
        report = probe(tree, None)
        self.assertEqual(self.assert_agree(config, report), 10)
        self.assertEqual(report["operators"]["leader"]["threshold"], 0.35)

    def test_group_score_applies_to_members_toolscope_does_not_know(self):
        folder = scratch("group")
        config = default_config(folder, cache=False)
        toolscope("set", config, "threshold", "Q&A Expert/1", 0.2)
        toolscope("set", config, "score", "web_research", "BrowserUsing", 0.3)
        browser = {m: "BrowserUsing" for m in harness.MEMBERS["BrowserUsing"]}
        for cache in ("none", "stale"):
            with self.subTest(cache=cache):
                if cache == "stale":  # made for another server: toolscope ignores it
                    identity, members = harness.SERVERS["BrowserUsing"]
                    harness.write_cache(config, {"BrowserUsing": (
                        dict(identity, url="http://elsewhere/sse"), members)})
                report = probe(_tree, config)
                self.assertEqual(self.assert_agree(config, report, groups={
                    **browser,
                    **{m: g for g in ("FileTool", "BrowserTool") for m in harness.MEMBERS[g]},
                }), 10)
                edges = report["operators"]["Q&A Expert/1"]["edges"]
                self.assertIn(["web_research", "browser_click", "Call", 0.3], edges)
                self.assertIn(["web_research", "browser_navigate", "Call", 0.3], edges)


class EditedCalls(Agrees, unittest.TestCase):
    """Files whose Call edges and tools were edited with ``toolscope set`` load in
    Chat2Graph into the graph toolscope shows for them."""

    def test_unlinked_last_callers_and_server_edits_agree(self):
        config = default_config(scratch("unlinked"))
        edits = [
            # Each the tool's only caller: the tool leaves both graphs.
            ("unlink", "schema_design_and_import", "VertexLabelAdder"),
            ("unlink", "graph_validation", "GraphReachabilityGetter"),
            # The only tool of the server BrowserTool: the server goes with it.
            ("unlink", "browser using action", "browser_use"),
            # A server with two known tools, linked, scored and unlinked as a whole.
            ("link", "supplement", "FileTool", 0.6),
            ("unlink", "reference_listing", "FileTool"),
            ("score", "web_research", "BrowserUsing", 0.3),
            ("threshold", "Q&A Expert/1", 0.2),  # so that the 0.3 edges are offered
        ]
        for edit in edits:
            toolscope("set", config, *edit)
        text = config.read_text()
        for gone in ("VertexLabelAdder", "GraphReachabilityGetter", "BrowserTool"):
            self.assertNotIn(f'name: "{gone}"', text)
        report = probe(_tree, config)
        self.assertEqual(self.assert_agree(config, report), 10)
        built = {t for o in report["operators"].values() for t in o["tools"]}
        self.assertFalse(built & {"VertexLabelAdder", "GraphReachabilityGetter", "browser_use"})
        edges = report["operators"]["Q&A Expert/1"]["edges"]
        self.assertIn(["web_research", "browser_click", "Call", 0.3], edges)
        self.assertIn(["web_research", "browser_navigate", "Call", 0.3], edges)
        self.assertNotIn("reference_listing", {e[0] for e in edges if e[2] == "Call"})
        query = report["operators"]["Query Expert/1"]["edges"]
        self.assertIn(["supplement", "write_file", "Call", 0.6], query)

    def test_added_tool_with_its_module_path_loads(self):
        config = default_config(scratch("added"))
        action = "visual view page action"
        refused = toolscope("set", config, "add-tool", "PageVisionTool", "--caller", action,
                            check=False)
        self.assertEqual(refused.returncode, 1)
        self.assertIn("module_path", refused.stderr)
        toolscope("set", config, "add-tool", "PageVisionTool", "--caller", action, "--score",
                  0.8, "--module-path", "app.plugin.mcp.page_vision_tool")
        report = probe(_tree, config)
        self.assertEqual(self.assert_agree(config, report), 10)
        web = report["operators"]["WebSurferExpert/1"]
        self.assertIn("PageVisionTool", web["tools"])
        self.assertIn([action, "PageVisionTool", "Call", 0.8], web["edges"])
        # What the refusal prevents: the entry without its module path does not load.
        broken = config.read_text().replace(
            '    module_path: "app.plugin.mcp.page_vision_tool"\n', "")
        config.write_text(broken)
        with self.assertRaises(ProbeFailed) as caught:
            probe(_tree, config)
        self.assertIn("Empty module name", caught.exception.args[0])


class Refusals(unittest.TestCase):
    """What cannot be applied raises, naming the file and the entry."""

    def assert_load_fails(self, config, *words):
        with self.assertRaises(ProbeFailed) as caught:
            probe(_tree, config)
        last = caught.exception.args[0].strip().splitlines()[-1]
        self.assertIn("TuningError", last)
        for word in (str(config),) + words:
            self.assertIn(word, last)

    def test_score_on_no_edge(self):
        config = default_config(scratch("no-edge"))
        with open(config, "a") as f:
            f.write("\nscores:\n  - {from: supplement, to: CypherExecutor, score: 0.5}\n")
        self.assertIn("TS060", toolscope("lint", config).stdout)  # toolscope agrees
        self.assert_load_fails(config, "{from: supplement, to: CypherExecutor, score: 0.5}",
                               "names no edge")

    def test_group_score_when_toolscope_knows_the_members(self):
        config = default_config(scratch("known"), cache=False)
        toolscope("set", config, "score", "web_research", "BrowserUsing", 0.3)
        harness.write_cache(config)  # discovered afterwards: toolscope now ignores it
        self.assertIn("TS060", toolscope("lint", config).stdout)
        self.assert_load_fails(config, "to: BrowserUsing", "score its members")

    def test_out_of_range_threshold(self):
        config = default_config(scratch("range"))
        text = config.read_text().replace("  - &query_design_operator\n",
                                          "  - &query_design_operator\n    threshold: 1.5\n")
        config.write_text(text)
        self.assert_load_fails(config, "Query Expert/1", "threshold 1.5")


class InstallAndLaunch(unittest.TestCase):
    def test_uninstall_restores_chat2graph(self):
        report = probe(_tree, tuned_config(scratch("uninstall")), uninstall=True)
        for name, op in report["operators"].items():
            self.assertEqual((op["threshold"], op["hops"]), (0.5, 0), name)
            self.assertEqual({e[3] for e in op["edges"]}, {1.0}, name)

    def assert_launched_tuned(self, tree, report):
        exported = json.loads(toolscope("export", tree / DEFAULT_CONFIG, "--to", "json").stdout)
        self.assertEqual({o["name"]: (o["threshold"], o["hops"]) for o in exported["operators"]},
                         {n: (o["threshold"], o["hops"]) for n, o in report["operators"].items()})

    def test_python_m_launcher_installs_before_the_server_loads(self):
        tree = harness.unpack()
        tuned_config(tree / "app/core/sdk")
        report = harness.launch(tree, [sys.executable, "-m", "toolscope_chat2graph",
                                       "--traces", "runs.jsonl"])
        self.assert_launched_tuned(tree, report)

    def test_installed_console_script(self):
        script = Path(sys.executable).with_name("toolscope-chat2graph")
        if not script.exists():
            self.skipTest("the package is not installed here (.ci/chat2graph-tests does)")
        tree = harness.unpack()
        tuned_config(tree / "app/core/sdk")
        elsewhere = scratch("cwd")  # --root: run from anywhere
        report = harness.launch(tree, [str(script), "--root", str(tree)], cwd=elsewhere,
                                use_source=False)
        self.assert_launched_tuned(tree, report)


class Recording(unittest.TestCase):
    """A real run of every operator at once, the LLM scripted, records one trace record
    per invocation that ``toolscope eval`` reads."""

    def run_and_read(self, config, mode):
        traces = scratch("traces") / "runs.jsonl"
        report = probe(_tree, config, traces=traces, calls=PLAN, run=mode,
                       fail="Design Expert/2")
        self.assertEqual(report["errors"], {"Design Expert/2": "the reasoner failed"})
        records = [json.loads(line) for line in traces.read_text().splitlines()]
        return report, records, traces

    def expected_calls(self, config, operator):
        offered = json.loads(toolscope("recommend", config, "--operator", operator,
                                       "--format", "json", "--no-tokens").stdout)["tools"]
        names = [FILE_NAMES.get(f, f) for f in PLAN]
        return [n for n in names if n in offered]

    def check(self, config, mode):
        report, records, traces = self.run_and_read(config, mode)
        self.assertEqual(sorted(r["operator"] for r in records), sorted(report["operators"]))
        self.assertEqual(sorted(r["id"] for r in records), list(range(1, len(records) + 1)))
        for r in records:
            with self.subTest(operator=r["operator"]):
                failed = r["operator"] == "Design Expert/2"
                self.assertEqual(r["ok"], not failed)
                calls = [] if failed else self.expected_calls(config, r["operator"])
                self.assertEqual(r["calls"], calls)
                self.assertEqual(r["called"], list(dict.fromkeys(calls)))
        self.assertTrue(any(len(r["calls"]) > len(r["called"]) for r in records))
        self.assertTrue(any(set(r["called"]) & {"browser_click", "read_text_file"}
                            for r in records))
        out = toolscope("eval", config, "--traces", traces, "--format", "json")
        self.assertEqual(out.stderr, "")
        overall = json.loads(out.stdout)["overall"]
        self.assertEqual((overall["records"], overall["unknown_calls"], overall["complete"]),
                         (len(records), 0, 1.0))

    def test_experts_in_threads_tuned(self):
        self.check(tuned_config(scratch("threads")), "threads")

    def test_experts_as_asyncio_tasks(self):
        self.check(default_config(scratch("tasks")), "tasks")

    def test_appended_runs_keep_distinct_ids(self):
        config = default_config(scratch("append"))
        traces = scratch("traces") / "runs.jsonl"
        for _ in range(2):
            probe(_tree, config, traces=traces, calls=PLAN, run="tasks")
        ids = [json.loads(line)["id"] for line in traces.read_text().splitlines()]
        self.assertEqual(sorted(ids), list(range(1, 21)))


if __name__ == "__main__":
    unittest.main()
