"""The integration on Chat2Graph's real code: every operator's recommendation inside
Chat2Graph equals ``toolscope recommend`` for the same file, tuned or not; what cannot be
applied raises; the launcher installs before the load; runs are recorded in a form
``toolscope eval`` reads. Each load runs in a fresh interpreter (``harness.probe``)."""

import json
import os
import shutil
import sys
import unittest
from collections import Counter
from pathlib import Path

import yaml

from . import harness, test_bounds
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

    def assert_agree_if_toolscope_knows(self, config, report, *rules):
        """``assert_agree`` on all 10 operators, in a subtest that is skipped, with the
        reason, when the toolscope binary lacks one of issue 32's ``rules``
        (``harness.toolscope_knows``; they are on branch mcp-rust): then only Chat2Graph's
        side is checked, against the rule itself, by the caller."""
        lacking = [rule for rule in rules if rule not in harness.toolscope_knows()]
        with self.subTest("toolscope recommend agrees"):
            if lacking:
                self.skipTest(f"the toolscope binary {harness.toolscope_bin()} lacks issue "
                              f"32's {' and '.join(lacking)}: Chat2Graph is checked "
                              "against the rule alone")
            self.assertEqual(self.assert_agree(config, report), 10)

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

    def test_a_server_the_action_does_not_call(self):
        config = default_config(scratch("not-called"))
        with open(config, "a") as f:
            f.write("\nscores:\n  - {from: supplement, to: BrowserUsing, score: 0.5}\n"
                    "  - {from: supplement, to: BrowserTool/browser_use, score: 0.5}\n")
        self.assert_load_fails(config, "{from: supplement, to: BrowserUsing, score: 0.5}",
                               "supplement does not call the MCP server BrowserUsing")
        text = config.read_text().replace("to: BrowserUsing", "to: FileTool/read_text_file")
        config.write_text(text)
        self.assert_load_fails(config, "to: FileTool/read_text_file",
                               "supplement does not call the MCP server FileTool")

    def test_an_action_that_does_not_exist(self):
        config = default_config(scratch("no-action"))
        with open(config, "a") as f:
            f.write("\nscores:\n  - {from: surfing, to: BrowserUsing, score: 0.5}\n")
        self.assert_load_fails(config, "to: BrowserUsing", "there is no action surfing")

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
        self.otlp = traces.with_name("runs.otlp.jsonl")
        report = probe(_tree, config, traces=traces, otlp=self.otlp, calls=PLAN, run=mode,
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
                # What Chat2Graph sent the model: one entry per function of the task,
                # so a tool two actions (or two places of one action) call, twice.
                self.assertEqual(Counter(r["available"]),
                                 Counter(report["operators"][r["operator"]]["tools"]))
        self.assertTrue(any(len(r["calls"]) > len(r["called"]) for r in records))
        self.assertTrue(any(len(r["available"]) > len(set(r["available"])) for r in records))
        self.assertTrue(any(set(r["called"]) & {"browser_click", "read_text_file"}
                            for r in records))
        out = toolscope("eval", config, "--traces", traces, "--format", "json")
        self.assertEqual(out.stderr, "")
        evaluated = json.loads(out.stdout)
        overall = evaluated["overall"]
        self.assertEqual((overall["records"], overall["unknown_calls"], overall["complete"]),
                         (len(records), 0, 1.0))
        # eval counts what Chat2Graph sent: one record per operator, so its offered tools
        # are the functions Chat2Graph built for that invocation, a tool two actions (or
        # two places of one action) call counted twice (issue 32, item 6).
        sent = {name: len(op["tools"]) for name, op in report["operators"].items()}
        groups = {g["operator"]: g for g in evaluated["operators"]}
        self.assertEqual({name: g["offered_tools"] for name, g in groups.items()},
                         {name: float(n) for name, n in sent.items()})
        self.assertTrue(any(n > len(set(report["operators"][name]["tools"]))
                            for name, n in sent.items()))
        # eval --steps: a record's first call is offered from its operator's seeds, the
        # same functions (cut to what the run had, which is all of them).
        out = toolscope("eval", config, "--traces", traces, "--steps", "--format", "json")
        self.assertEqual(out.stderr, "")
        for g in json.loads(out.stdout)["operators"]:
            if g["first"]["steps"]:
                with self.subTest(first=g["operator"]):
                    self.assertEqual(g["first"]["offered_tools"], float(sent[g["operator"]]))
                    # The baseline is what the run had: `available` lists each function.
                    self.assertEqual(g["first"]["baseline"]["offered_tools"],
                                     float(sent[g["operator"]]))
        self.check_otlp(config, records)

    def check_otlp(self, config, records):
        """The same runs as OTLP spans (``install(otlp=...)``): one trace a run, read by
        toolscope as the same records, calls in order, what was sent as ``available``."""
        lines = [json.loads(line) for line in self.otlp.read_text().splitlines()]
        self.assertEqual(len(lines), len(records))
        out = toolscope("eval", config, "--traces", self.otlp, "--steps", "--per-step",
                        "--format", "json")
        self.assertEqual(out.stderr, "")
        evaluated = json.loads(out.stdout)
        self.assertEqual(evaluated["overall"]["records"], len(records))
        traces = {}
        for line in lines:
            spans = line["resourceSpans"][0]["scopeSpans"][0]["spans"]
            root = spans[0]
            self.assertEqual(root["attributes"][0]["value"]["stringValue"], "invoke_agent")
            agent = root["attributes"][1]["value"]["stringValue"]
            traces[root["traceId"]] = agent
            self.assertEqual(root["status"], {} if agent != "Design Expert/2" else {"code": 2})
        self.assertEqual(sorted(traces.values()), sorted(r["operator"] for r in records))
        steps = {}
        for e in evaluated["per_step"]:
            steps.setdefault(e["id"], []).append(e)
        by_operator = {r["operator"]: r for r in records}
        for trace, entries in steps.items():
            r = by_operator[traces[trace]]
            with self.subTest(otlp=r["operator"]):
                self.assertEqual([e["next"] for e in entries], r["calls"])
                self.assertEqual(entries[0]["available"], list(dict.fromkeys(r["available"])))
        self.assertEqual(sorted(len(e) for e in steps.values()),
                         sorted(len(r["calls"]) for r in records if r["calls"]))

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



def warnings(report):
    return [message for level, message in report["log"] if level == "WARNING"]


# The MCP servers as they change after a file was tuned, each way at once: BrowserUsing
# drops browser_click, FileTool gains list_directory, BrowserTool lists nothing.
CHANGED = {
    "BrowserUsing": ["browser_navigate"],
    "FileTool": ["list_directory", "read_text_file", "write_file"],
    "BrowserTool": [],
}


class ServerChanges(Agrees, unittest.TestCase):
    """Issue 32: a file tuned against its MCP servers, then the servers change (and the
    cache with them, as `toolscope mcp discover` rewrites it, or not). Chat2Graph starts
    every time; each entry it cannot apply is one warning line naming the file, the
    entry, the server and the fix; a score on a server scores each of its tools without
    a score of its own, whatever toolscope or the server knew when it was written."""

    SERVER_SCORES = [  # written before `mcp discover`, so on the servers
        ("web_research", "BrowserUsing", 0.6),
        ("file operation action", "FileTool", 0.55),
        ("browser using action", "BrowserTool", 0.4),
    ]
    MEMBER_SCORES = [  # written after it, on tools of the servers
        ("web_research", "browser_click", 0.3),
        ("file operation action", "read_text_file", 0.45),
        ("browser using action", "browser_use", 0.35),
        ("reference_listing", "write_file", 0.7),
    ]

    def tuned(self, name, server_scores=True):
        config = default_config(scratch(name), cache=False)
        for operator in ("Q&A Expert/1", "Q&A Expert/2", "WebSurferExpert/1"):
            toolscope("set", config, "threshold", operator, 0.25)
        toolscope("set", config, "threshold", "DeveloperExpert/1", 0.5)
        for source, server, score in self.SERVER_SCORES if server_scores else ():
            toolscope("set", config, "score", source, server, score)
        harness.write_cache(config)
        for source, tool, score in self.MEMBER_SCORES:
            toolscope("set", config, "score", source, tool, score)
        # Scored before the tools were known, an entry names the server itself.
        written = {(e["from"], e["to"]): e["score"]
                   for e in yaml.safe_load(config.read_text())["scores"]}
        for source, target, score in self.SERVER_SCORES:
            self.assertEqual(written.get((source, target)), score if server_scores else None,
                             (source, target))
        return config

    def discovered(self, config, members):
        """The cache as `mcp discover` writes it when the servers list ``members`` (for
        BrowserTool in CHANGED, no tools: toolscope agrees only where it knows that such
        a server offers none, the rule ``empty servers``)."""
        harness.write_cache(config, {name: (identity, members[name])
                                     for name, (identity, _) in harness.SERVERS.items()})

    def edges(self, report, operator):
        return {(f, t): s for f, t, kind, s in report["operators"][operator]["edges"]
                if kind == "Call"}

    def assert_warned(self, report, config, expected):
        """Exactly the ``expected`` warnings, as (entry or server, words) pairs, in any
        order; each one line naming the file, and the fix."""
        found = warnings(report)
        self.assertEqual(len(found), len(expected), found)
        for line in found:
            self.assertNotIn("\n", line)
            self.assertTrue(line.startswith(f"toolscope: {config}: "), line)
            self.assertTrue(line.endswith(f"run `toolscope mcp discover {config}`"), line)
        for entry, words in expected:
            with self.subTest(entry=entry):
                self.assertTrue(any(entry in line and all(w in line for w in words)
                                    for line in found), (entry, words, found))

    def test_unchanged_servers(self):
        config = self.tuned("unchanged")
        report = probe(_tree, config)
        self.assertEqual(warnings(report), [])
        # The server scores reach the tools without a score of their own only.
        self.assertEqual(self.edges(report, "Q&A Expert/1"), {
            ("web_research", "browser_click"): 0.3, ("web_research", "browser_navigate"): 0.6,
            ("knowledge_base_retrieving", "KnowledgeBaseRetriever"): 1.0})
        developer = self.edges(report, "DeveloperExpert/1")
        self.assertEqual(developer[("file operation action", "write_file")], 0.55)
        self.assertNotIn(("file operation action", "read_text_file"), developer)  # 0.45
        self.assertEqual(self.edges(report, "WebSurferExpert/1")[
            ("browser using action", "browser_use")], 0.35)
        self.assert_agree_if_toolscope_knows(config, report, "server scores")

    def check_changed(self, config, report):
        """What the changed servers give, the cache rewritten or not."""
        self.assertEqual(self.edges(report, "Q&A Expert/1"), {
            ("web_research", "browser_navigate"): 0.6,
            ("knowledge_base_retrieving", "KnowledgeBaseRetriever"): 1.0})
        # The new tool is offered as Chat2Graph offers it, with its server's score.
        developer = self.edges(report, "DeveloperExpert/1")
        self.assertEqual(developer[("file operation action", "list_directory")], 0.55)
        self.assertEqual(developer[("file operation action", "write_file")], 0.55)
        self.assertEqual(self.edges(report, "Q&A Expert/2")[
            ("reference_listing", "list_directory")], 1.0)
        web = report["operators"]["WebSurferExpert/1"]
        self.assertNotIn("browser_use", web["tools"])
        # What could be applied was: the operators' tuning, the other scores.
        self.assertEqual(self.edges(report, "Q&A Expert/2")[
            ("reference_listing", "write_file")], 0.7)
        self.assertEqual(web["threshold"], 0.25)

    def test_changed_servers_after_discovery(self):
        config = self.tuned("rediscovered")
        self.discovered(config, CHANGED)
        report = probe(_tree, config, members=CHANGED)
        self.check_changed(config, report)
        self.assert_warned(report, config, [
            ("{from: web_research, to: browser_click, score: 0.3}",
             ["BrowserUsing", "browser_click", "lists browser_navigate"]),
            ("{from: browser using action, to: browser_use, score: 0.35}",
             ["BrowserTool", "lists no tools"]),
            ("{from: browser using action, to: BrowserTool, score: 0.4}",
             ["BrowserTool", "lists no tools now"]),
        ])
        self.assert_agree_if_toolscope_knows(config, report, "server scores",
                                             "empty servers")

    def test_changed_servers_after_discovery_without_server_scores(self):
        config = self.tuned("member-scores", server_scores=False)
        self.discovered(config, CHANGED)
        report = probe(_tree, config, members=CHANGED)
        self.assert_warned(report, config, [
            ("to: browser_click", ["BrowserUsing"]), ("to: browser_use", ["BrowserTool"])])
        self.assertEqual(self.edges(report, "DeveloperExpert/1")[
            ("file operation action", "list_directory")], 1.0)
        self.assert_agree_if_toolscope_knows(config, report, "empty servers")

    def test_changed_servers_with_the_cache_of_before(self):
        # The servers changed since the last `mcp discover`: the cache is compared with
        # what they list now, one warning per server that differs.
        config = self.tuned("stale")
        report = probe(_tree, config, members=CHANGED)
        self.check_changed(config, report)
        cache = f"{config}.mcp.json"
        self.assert_warned(report, config, [
            ("MCP server BrowserUsing", ["no longer lists browser_click", cache]),
            ("MCP server FileTool", ["lists new tools list_directory", cache]),
            ("MCP server BrowserTool", ["lists no tools now (1 in", cache]),
            ("{from: web_research, to: browser_click, score: 0.3}",
             ["the MCP server BrowserUsing no longer lists browser_click"]),
            ("to: browser_use", ["BrowserTool no longer lists browser_use"]),
            ("to: BrowserTool, score: 0.4", ["BrowserTool lists no tools now"]),
        ])

    def test_a_server_score_written_before_discovery_still_starts(self):
        # Issue 32's first case: scored on the server while its tools were unknown, the
        # cache written afterwards. Chat2Graph refused to start.
        config = default_config(scratch("scored-first"), cache=False)
        toolscope("set", config, "threshold", "WebSurferExpert/1", 0.25)
        toolscope("set", config, "score", "browser using action", "BrowserTool", 0.3)
        harness.write_cache(config)
        report = probe(_tree, config)
        self.assertEqual(warnings(report), [])
        self.assertEqual(self.edges(report, "WebSurferExpert/1")[
            ("browser using action", "browser_use")], 0.3)
        self.assert_agree_if_toolscope_knows(config, report, "server scores")


# Playwright's and browser-use's servers both list browser_navigate.
SHARED = dict(harness.MEMBERS, BrowserTool=["browser_navigate", "browser_use"])


class SharedMembers(Agrees, unittest.TestCase):
    """A tool two servers list is two tools: ``SERVER/TOOL`` names each (docs/mcp.md),
    in ``scores:`` and in trace records; the bare name, ambiguous, is skipped with a
    warning."""

    def test_qualified_scores_and_records(self):
        config = default_config(scratch("shared"))
        harness.write_cache(config, {
            name: (identity, SHARED[name]) for name, (identity, _) in harness.SERVERS.items()})
        for operator in ("Q&A Expert/1", "WebSurferExpert/1"):
            toolscope("set", config, "threshold", operator, 0.25)
        with open(config, "a") as f:
            f.write("\nscores:\n"
                    "  - {from: web_research, to: BrowserUsing/browser_navigate, score: 0.3}\n"
                    "  - {from: browser using action, to: BrowserTool/browser_navigate, "
                    "score: 0.7}\n"
                    "  - {from: browser using action, to: BrowserTool, score: 0.4}\n"
                    "  - {from: web_research, to: browser_navigate, score: 0.5}\n")
        traces = scratch("traces") / "runs.jsonl"
        report = probe(_tree, config, members=SHARED, traces=traces,
                       calls=["browser_navigate"], run="tasks")
        self.assertEqual(report["errors"], {})
        qna = report["operators"]["Q&A Expert/1"]["edges"]
        self.assertIn(["web_research", "BrowserUsing/browser_navigate", "Call", 0.3], qna)
        web = report["operators"]["WebSurferExpert/1"]["edges"]
        self.assertIn(["browser using action", "BrowserTool/browser_navigate", "Call", 0.7],
                      web)
        self.assertIn(["browser using action", "browser_use", "Call", 0.4], web)
        (line,) = warnings(report)
        self.assertIn("{from: web_research, to: browser_navigate, score: 0.5}: skipped: "
                      "browser_navigate is a tool of the MCP servers BrowserUsing and "
                      "BrowserTool", line)
        self.assertIn("name one: BrowserUsing/browser_navigate or BrowserTool/"
                      "browser_navigate", line)
        records = {json.loads(r)["operator"]: json.loads(r)
                   for r in traces.read_text().splitlines()}
        self.assertEqual(records["Q&A Expert/1"]["calls"], ["BrowserUsing/browser_navigate"])
        self.assertEqual(records["WebSurferExpert/1"]["calls"], ["BrowserTool/browser_navigate"])
        self.assertIn("BrowserTool/browser_navigate", records["WebSurferExpert/1"]["available"])
        # The file scores the server BrowserTool too: both rules.
        self.assert_agree_if_toolscope_knows(config, report, "qualified names",
                                             "server scores")

    def test_a_server_name_holding_the_separator(self):
        config = default_config(scratch("slash"))
        text = config.read_text().replace('name: "FileTool"', 'name: "File/Tool"')
        config.write_text(text)
        identity, members = harness.SERVERS["FileTool"]
        harness.write_cache(config, {"File/Tool": (identity, members)})
        toolscope("set", config, "threshold", "DeveloperExpert/1", 0.25)
        with open(config, "a") as f:
            f.write("\nscores:\n"
                    "  - {from: file operation action, to: 'File\\/Tool/read_text_file', "
                    "score: 0.3}\n")
        report = probe(_tree, config, members={"File/Tool": members})
        self.assertEqual(warnings(report), [])
        self.assertIn(["file operation action", "read_text_file", "Call", 0.3],
                      report["operators"]["DeveloperExpert/1"]["edges"])


class PlainErrors(unittest.TestCase):
    """Issue 32, item 7: errors outside Chat2Graph are one clear line."""

    def test_install_without_chat2graph(self):
        code = ("import toolscope_chat2graph as ts\n"
                "try:\n"
                "    ts.install()\n"
                "except ts.Chat2GraphNotFound as e:\n"
                "    print(type(e).__mro__[1].__name__, e)\n")
        env = dict(harness.environment(), PYTHONPATH=str(harness.INTEGRATION))
        out = harness.run_guarded([sys.executable, "-c", code], cwd=scratch("nowhere"),
                                  env=env)
        self.assertEqual((out.returncode, out.stderr), (0, ""))
        self.assertEqual(out.stdout, "ImportError toolscope_chat2graph.install(): "
                         "Chat2Graph's package `app` cannot be imported: run inside "
                         "Chat2Graph's source tree (its root as the working folder), or put "
                         "that root on sys.path (PYTHONPATH)\n")

    def launcher(self, *args):
        env = dict(harness.environment(), PYTHONPATH=str(harness.INTEGRATION))
        return harness.run_guarded([sys.executable, "-m", "toolscope_chat2graph", *args],
                                   cwd=scratch("launch"), env=env)

    def test_launcher_with_a_missing_root(self):
        out = self.launcher("--root", "/missing")
        self.assertEqual((out.returncode, out.stdout), (1, ""))
        self.assertEqual(out.stderr, "toolscope-chat2graph: --root /missing: "
                         "No such file or directory\n")

    def test_launcher_with_a_root_that_is_not_chat2graph(self):
        out = self.launcher("--root", str(scratch("empty")))
        self.assertEqual(out.returncode, 1)
        self.assertEqual(len(out.stderr.splitlines()), 1, out.stderr)
        self.assertIn("Chat2Graph's package `app` cannot be imported", out.stderr)


class HostileFiles(unittest.TestCase):
    """Issue 35, items 9, 10 and 12 through Chat2Graph's real load: each used to hang,
    take the memory or end in an uncaught error; each now loads (a cache that cannot be
    read is ignored with a warning, as toolscope ignores it) or refuses at once with
    ``TuningError``. The probe's guards (``harness.run_guarded``: no CPU time used for a
    minute, or too much) and its memory ceiling turn a regression into a failure."""

    def test_a_cache_that_is_no_regular_file(self):
        for kind in ("fifo", "zero"):
            with self.subTest(kind):
                config = default_config(scratch("cache-" + kind), cache=False)
                cache = f"{config}.mcp.json"
                os.mkfifo(cache) if kind == "fifo" else os.symlink("/dev/zero", cache)
                report = probe(_tree, config)
                self.assertEqual(len(report["operators"]), 10)
                (line,) = warnings(report)
                self.assertIn(f"the MCP cache {cache} is not a regular file", line)

    def assert_refused(self, config, words, **spec):
        with self.assertRaises(ProbeFailed) as caught:
            probe(_tree, config, **spec)
        last = caught.exception.args[0].strip().splitlines()[-1]
        self.assertTrue(last.startswith("toolscope_chat2graph.TuningError: "), last)
        for word in words:
            self.assertIn(word, last)

    def test_a_config_that_is_no_regular_file(self):
        config = scratch("config-fifo") / "chat2graph.yml"
        os.mkfifo(config)
        self.assert_refused(config, [f"{config}: the file: is not a regular file (a FIFO)"])

    def test_nested_aliases_and_deep_nesting(self):
        for name, text, words in [
            ("aliases", test_bounds.nested_aliases(), ["expands to more than"]),
            ("deep", "leader: " + "[" * 3000 + "]" * 3000 + "\n",
             ["line 1 column", "nesting deeper than 128 levels"]),
        ]:
            with self.subTest(name):
                config = scratch(name) / "chat2graph.yml"
                config.write_text(text)
                self.assert_refused(config, words)

    def test_traces_that_are_no_regular_file(self):
        for kind, said in (("fifo", "a FIFO"), ("zero", "a character device")):
            with self.subTest(kind):
                traces = scratch("traces-" + kind) / "runs.jsonl"
                os.mkfifo(traces) if kind == "fifo" else os.symlink("/dev/zero", traces)
                with self.assertRaises(ProbeFailed) as caught:
                    probe(_tree, default_config(scratch("t")), traces=traces)
                last = caught.exception.args[0].strip().splitlines()[-1]
                self.assertEqual(last, f"ValueError: traces={str(traces)!r} is not a regular "
                                 f"file ({said}): give a regular file, or a name that does "
                                 "not exist yet")


class TracesThatCannotBeWritten(unittest.TestCase):
    """Issue 35, item 11: a record that cannot be written is logged and the agent's run
    goes on with its result."""

    def test_a_made_up_name_with_a_lone_surrogate(self):
        # The model calls a function whose name holds a lone surrogate (its JSON may
        # escape one). Chat2Graph prints the model's reply: with a strict stdout that
        # fails in Chat2Graph itself, so its stdout escapes what it cannot encode here,
        # as a terminal set up so does; then only the trace record is left to fail.
        traces = scratch("surrogate") / "runs.jsonl"
        report = probe(_tree, default_config(scratch("surrogate-config")), traces=traces,
                       calls=["!\ud800made_up", "get_schema"], run="tasks",
                       io_encoding="utf-8:backslashreplace")
        self.assertEqual(report["errors"], {})
        records = [json.loads(line) for line in traces.read_bytes().decode().splitlines()]
        self.assertEqual(len(records), 10)
        query = next(r for r in records if r["operator"] == "Query Expert/1")
        self.assertEqual(query["calls"], ["\ufffdmade_up", "SchemaGetter"])
        self.assertTrue(all(r["calls"][0] == "\ufffdmade_up" and r["ok"] for r in records))

    def test_a_full_disk(self):
        # RLIMIT_FSIZE with SIGXFSZ ignored stands in for a full disk (EFBIG for ENOSPC):
        # the trace file holds a record already, so every write past it fails.
        traces = scratch("full") / "runs.jsonl"
        traces.write_text('{"operator": "leader", "called": []}\n')
        report = probe(_tree, default_config(scratch("full-config")), traces=traces,
                       calls=PLAN, run="threads", fsize=traces.stat().st_size)
        self.assertEqual(report["errors"], {})
        lost = [w for w in warnings(report) if "could not write a trace record" in w]
        self.assertEqual(len(lost), 10, warnings(report))
        self.assertIn("File too large", lost[0])
        self.assertEqual(traces.read_text(), '{"operator": "leader", "called": []}\n')


if __name__ == "__main__":
    unittest.main()
