"""Reading a file's tuning, and the trace file's ids: plain functions of the integration
that need no Chat2Graph (PyYAML reads the file, as Chat2Graph does)."""

import json
import unittest

import toolscope_chat2graph as ts

from .harness import SERVERS, scratch, write_cache

CONFIG = """\
tools:
  - {name: Files, type: MCP, mcp_transport_config: {transport_type: STDIO, command: npx,
     args: ["@modelcontextprotocol/server-filesystem", "."]}}
  - {name: Web, type: MCP, mcp_transport_config: {transport_type: SSE, url: "http://h/sse"}}
  - {name: Listed, type: MCP, tools: [a, b]}
operators:
  - &one {instruction: i, output_schema: o, actions: [], threshold: 0.7}
  - &two {instruction: i, output_schema: o, actions: [], hops: 2}
experts:
  - profile: {name: "Q&A Expert"}
    workflow: [[*one, *two], [], [*one]]
leader: {actions: [], threshold: 0.25, hops: 1}
scores:
  - {from: a, to: b, score: 0.5}
  - {from: a, to: b, score: 0.25}
  - {from: a, to: c, score: 1}
"""


def written(text, name="c2g.yml"):
    path = scratch("reading") / name
    path.write_text(text)
    return path


class ReadTuning(unittest.TestCase):
    def test_operators_leader_and_scores(self):
        tuning = ts.read_tuning(written(CONFIG))
        # Operators are named as toolscope names them; an empty chain holds none.
        self.assertEqual(tuning.experts, [("Q&A Expert", [
            ("Q&A Expert/1", 0.7, None), ("Q&A Expert/2", None, 2),
            ("Q&A Expert/3", 0.7, None)])])
        self.assertEqual(tuning.leader, (0.25, 1))
        # The last entry for an edge wins, as in toolscope.
        self.assertEqual({k: s for k, (s, _, _) in tuning.scores.items()},
                         {("a", "b"): 0.25, ("a", "c"): 1.0})

    def test_what_cannot_be_applied_names_the_file_and_the_entry(self):
        cases = [
            ("threshold: 0.7}", "threshold: 1.5}", "operator Q&A Expert/1", "threshold 1.5"),
            ("threshold: 0.7}", "threshold: yes}", "operator Q&A Expert/1", "threshold True"),
            ("hops: 2}", "hops: -1}", "operator Q&A Expert/2", "hops -1"),
            ("hops: 2}", "hops: 1001}", "operator Q&A Expert/2", "hops 1001"),
            ("hops: 2}", "hops: 1.5}", "operator Q&A Expert/2", "hops 1.5"),
            ("hops: 1}", "hops: x}", "leader", "hops 'x'"),
            ("score: 0.5}", "score: .nan}", "{from: a, to: b, score: nan}", "not a number"),
            ("score: 0.5}", "score: 2}", "{from: a, to: b, score: 2}", "not a number in"),
            ("{from: a, to: c, score: 1}", "{from: a, score: 1}", "scores entry", "{from, to,"),
        ]
        for old, new, entry, problem in cases:
            with self.subTest(new=new):
                path = written(CONFIG.replace(old, new, 1))
                with self.assertRaises(ts.TuningError) as caught:
                    ts.read_tuning(path)
                for part in (str(path), entry, problem):
                    self.assertIn(part, str(caught.exception))

    def test_groups_whose_members_toolscope_knows(self):
        path = written(CONFIG)
        self.assertEqual(ts.read_tuning(path).known_groups, {"Listed"})
        fresh = dict(SERVERS["FileTool"][0])
        write_cache(path, {"Files": (fresh, ["read"]),
                           "Web": ({"transport": "sse", "url": "http://other/sse"}, ["get"])})
        # Files' cache was made for this server; Web's for another one (stale).
        self.assertEqual(ts.read_tuning(path).known_groups, {"Listed", "Files"})
        (path.parent / (path.name + ".mcp.json")).write_text("{not json")
        self.assertEqual(ts.read_tuning(path).known_groups, {"Listed"})

    def test_a_file_over_the_bound_is_refused(self):
        path = written("x" * (ts.MAX_CONFIG_BYTES + 1))
        with self.assertRaises(ts.TuningError):
            ts.read_tuning(path)


class QualifiedNames(unittest.TestCase):
    """docs/mcp.md's rule: ``SERVER/TOOL``, with ``/`` and ``\\`` inside either part
    escaped by ``\\``; split at the first ``/`` that is not escaped."""

    def test_escapes_and_reads_back(self):
        self.assertEqual(ts.qualify("playwright", "browser_navigate"),
                         "playwright/browser_navigate")
        self.assertEqual(ts.qualify("a/b", "c\\d"), "a\\/b/c\\\\d")
        for server, tool in [("a/b", "c\\d"), ("x", "y/z"), ("PDF/DOCX", "read"), ("s", "t"),
                             ("\\", "/"), ("a\\/", "\\\\b")]:
            self.assertEqual(ts.split_qualified(ts.qualify(server, tool)), (server, tool))

    def test_what_is_not_qualified(self):
        self.assertIsNone(ts.split_qualified("plain"))
        self.assertIsNone(ts.split_qualified("a\\/b"))  # an escaped `/` only
        self.assertIsNone(ts.split_qualified("/t"))
        self.assertIsNone(ts.split_qualified("s/"))
        self.assertEqual(ts.split_qualified("s/a/b"), ("s", "a/b"))


class TraceIds(unittest.TestCase):
    def test_ids_go_on_from_the_records_in_the_file(self):
        path = scratch("ids") / "runs.jsonl"
        path.write_text('{"operator": "leader", "called": []}\n' * 3)
        recorder = ts._Recorder(path)
        recorder.write("leader", ["A", "B", "A"], True)
        last = json.loads(path.read_text().splitlines()[-1])
        self.assertEqual(last, {"operator": "leader", "called": ["A", "B"],
                                "calls": ["A", "B", "A"], "ok": True, "id": 4})


if __name__ == "__main__":
    unittest.main()
