"""Hostile inputs to the integration's own reading and writing (issue 35, items 9 to 12),
without Chat2Graph: a config of nested aliases, merge keys that double, deep nesting, a
FIFO or /dev/zero where a config, cache or trace file should be, a record that cannot be
written. Whatever could hang or take the machine's memory runs in a child interpreter
guarded as the probes are (``harness.run_guarded``: killed when it uses no CPU time for a
minute, or more than its CPU time, under ``harness.PROBE_MEMORY``), so that a regression
fails the test instead of stopping the suite. Their Chat2Graph side is in
``test_real_chat2graph.HostileFiles``."""

import json
import os
import sys
import unittest

import toolscope_chat2graph as ts

from .harness import INTEGRATION, SERVERS, Hung, run_guarded, scratch, write_cache


def nested_aliases(width=1000):
    """A config whose aliases stand for width**3 operators: a chain of ``width`` aliases
    to one operator, a workflow of ``width`` aliases to that chain, and ``width`` experts,
    all aliases of one with that workflow. About 12 KB for 10^9 operators."""
    refs = lambda name: "[" + ", ".join([f"*{name}"] * width) + "]"  # noqa: E731
    return (
        "operators:\n  - &o {instruction: i, output_schema: o, actions: [], threshold: 0.5}\n"
        f"chains:\n  - &c {refs('o')}\n"
        f"workflow: &w {refs('c')}\n"
        "experts: [&e {profile: {name: E}, workflow: *w}"
        + ", *e" * (width - 1) + "]\n"
    )


def merge_chain(levels=2_000):
    """Mappings that each merge the one before (``{<<: *m41, x42: 1}``): PyYAML copies
    every merged pair into each mapping, so the pairs grow with the square of the levels
    (2 x 10^6 here, from 60 KB; 2 x 10^8 from 20,000 levels and 600 KB)."""
    lines = ["m0: &m0 {x0: 1}"]
    lines += [f"m{k}: &m{k} {{<<: *m{k - 1}, x{k}: 1}}" for k in range(1, levels + 1)]
    return "\n".join(lines) + "\nleader: {actions: []}\n"


def isolated(code, cpu_seconds=60):
    """Runs ``code`` in a child interpreter with the integration importable, guarded
    (``harness.run_guarded``) with ``cpu_seconds`` of CPU time: what it reads here takes
    well under a second of it. (returncode, stdout, stderr), or fails the calling test if
    the child hung (blocked, or past its CPU time)."""
    env = dict(os.environ, PYTHONPATH=str(INTEGRATION))
    try:
        out = run_guarded([sys.executable, "-c", code], env=env, cpu_seconds=cpu_seconds)
    except Hung as hung:
        raise AssertionError(str(hung)) from None
    return out.returncode, out.stdout, out.stderr


def written(text, name="c2g.yml"):
    path = scratch("bounds") / name
    path.write_text(text)
    return path


class Expansion(unittest.TestCase):
    """Item 9: the config is bounded by what its aliases expand to, not its size alone."""

    def test_nested_aliases_are_refused_at_the_bound(self):
        path = written(nested_aliases())
        self.assertLess(path.stat().st_size, 12_500)
        # Visiting the 10^9 operators would take hours of CPU time; the child has a
        # minute of it (isolated).
        code = ("import toolscope_chat2graph as ts\n"
                "try:\n"
                f"    ts.read_tuning({str(path)!r})\n"
                "except ts.TuningError as e:\n"
                "    print(e)\n")
        status, out, err = isolated(code)
        self.assertEqual(status, 0, err[-2000:])
        self.assertIn(f"{path}: the file: expands to more than", out)
        self.assertIn("aliases", out)

    def test_the_same_shape_within_the_bound_is_read(self):
        # 10 x 10 x 10 = 1,000 operators: aliases are fine, only their expansion is bounded.
        tuning = ts.read_tuning(written(nested_aliases(width=10)))
        self.assertEqual(len(tuning.experts), 10)
        self.assertEqual(tuning.experts[3][1][-1], ("E/100", 0.5, None))

    def test_a_chain_of_merge_keys_is_refused(self):
        path = written(merge_chain())
        code = ("import toolscope_chat2graph as ts\n"
                "try:\n"
                f"    ts.read_tuning({str(path)!r})\n"
                "except ts.TuningError as e:\n"
                "    print(e)\n")
        status, out, err = isolated(code)
        self.assertEqual(status, 0, err[-2000:])
        self.assertIn("merge keys (<<) expand past the bound", out)
        self.assertIn(str(path), out)

    def test_an_aliased_list_in_an_entry_is_shown_short(self):
        text = nested_aliases(width=10) + "scores:\n  - {from: *w, to: b, score: 0.5}\n"
        with self.assertRaises(ts.TuningError) as caught:
            ts.read_tuning(written(text))
        self.assertIn("from and to must each be a name", str(caught.exception))
        self.assertLess(len(str(caught.exception)), 400)


class Nesting(unittest.TestCase):
    """Item 12: deep nesting is a TuningError naming the place, never a RecursionError."""

    def test_deep_flow_and_block_nesting(self):
        for name, text in [
            ("flow", "leader: " + "[" * 5000 + "]" * 5000 + "\n"),
            ("mapping", "leader: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n"),
            ("block", "".join("  " * k + "- \n" for k in range(3000))),
        ]:
            with self.subTest(name):
                with self.assertRaises(ts.TuningError) as caught:
                    ts.read_tuning(written(text))
                self.assertIn("nesting deeper than 128 levels", str(caught.exception))
                self.assertIn("line 1", str(caught.exception))

    def test_nesting_at_the_bound_is_read(self):
        text = "leader: {threshold: 0.5, deep: " + "[" * 120 + "]" * 120 + "}\n"
        self.assertEqual(ts.read_tuning(written(text)).leader, (0.5, None))

    def test_a_deep_cache_is_ignored_with_a_note(self):
        path = written("tools:\n  - {name: Files, type: MCP, mcp_transport_config: "
                       "{transport_type: SSE, url: 'http://h/sse'}}\n")
        (path.parent / (path.name + ".mcp.json")).write_text("[" * 100_000 + "]" * 100_000)
        tuning = ts.read_tuning(path)
        self.assertEqual(tuning.known_groups, set())
        self.assertEqual(tuning.notes, [f"the MCP cache {path}.mcp.json is nested too deep: "
                                        "ignored"])


class SpecialFiles(unittest.TestCase):
    """Item 10: the config and its cache are read only as regular files, opened without
    blocking, read no further than their bound."""

    def special(self, kind, where):
        if kind == "fifo":
            os.mkfifo(where)
        else:
            os.symlink("/dev/zero", where)

    def read_in_child(self, path):
        code = ("import toolscope_chat2graph as ts\n"
                "try:\n"
                f"    t = ts.read_tuning({str(path)!r})\n"
                "    print('read', sorted(t.known_groups), t.notes)\n"
                "except ts.TuningError as e:\n"
                "    print('refused', e)\n")
        status, out, err = isolated(code)
        self.assertEqual(status, 0, err[-2000:])
        return out.strip()

    def test_config_that_is_no_regular_file(self):
        for kind, said in (("fifo", "a FIFO"), ("zero", "a character device")):
            with self.subTest(kind):
                path = scratch("special") / "c2g.yml"
                self.special(kind, path)
                self.assertEqual(self.read_in_child(path),
                                 f"refused {path}: the file: is not a regular file ({said})")

    def test_cache_that_is_no_regular_file(self):
        config = ("tools:\n  - {name: Files, type: MCP, mcp_transport_config: "
                  "{transport_type: SSE, url: 'http://h/sse'}}\n")
        for kind, said in (("fifo", "a FIFO"), ("zero", "a character device")):
            with self.subTest(kind):
                path = written(config)
                self.special(kind, f"{path}.mcp.json")
                note = f"the MCP cache {path}.mcp.json is not a regular file ({said}): ignored"
                self.assertEqual(self.read_in_child(path), f"read [] {[note]!r}")

    def test_config_over_the_bound_growing_or_not(self):
        path = written("x" * (ts.MAX_CONFIG_BYTES + 1))
        with self.assertRaises(ts.TuningError) as caught:
            ts.read_tuning(path)
        self.assertIn(f"is over {ts.MAX_CONFIG_BYTES} bytes", str(caught.exception))

    def test_trace_path_that_is_no_regular_file(self):
        # What install(traces=...) reads first: the records already there, for the ids.
        for kind, said in (("fifo", "a FIFO"), ("zero", "a character device")):
            with self.subTest(kind):
                path = scratch("special") / "runs.jsonl"
                self.special(kind, path)
                code = ("import toolscope_chat2graph as ts\n"
                        "try:\n"
                        f"    ts._Recorder({str(path)!r})\n"
                        "except ValueError as e:\n"
                        "    print(e)\n")
                status, out, err = isolated(code)
                self.assertEqual(status, 0, err[-2000:])
                self.assertIn(f"is not a regular file ({said})", out)


class Recording(unittest.TestCase):
    """Item 11: a record that cannot be written is logged and dropped, never raised."""

    def test_a_lone_surrogate_is_written_as_u_fffd(self):
        path = scratch("surrogate") / "runs.jsonl"
        recorder = ts._Recorder(path)
        recorder.write("Q&A Expert/1", ["\ud800x", "\U0001f600"], True, ["\udfffy"])
        record = json.loads(path.read_bytes().decode("utf-8"))
        self.assertEqual(record["calls"], ["\ufffdx", "\U0001f600"])
        self.assertEqual(record["available"], ["\ufffdy"])

    def test_a_full_disk_is_logged_and_the_next_record_goes_on(self):
        # A file size limit with SIGXFSZ ignored: a write past it fails with EFBIG, as a
        # full disk fails with ENOSPC (tests/hard_links.rs uses the same stand-in).
        path = scratch("full") / "runs.jsonl"
        code = ("import logging, resource, signal, toolscope_chat2graph as ts\n"
                "logging.basicConfig(format='%(levelname)s %(message)s')\n"
                f"r = ts._Recorder({str(path)!r})\n"
                "r.write('a', ['x'], True)\n"
                "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
                "resource.setrlimit(resource.RLIMIT_FSIZE, (80, resource.RLIM_INFINITY))\n"
                "r.write('b', ['y' * 100], True)\n"
                "resource.setrlimit(resource.RLIMIT_FSIZE, (200, resource.RLIM_INFINITY))\n"
                "r.write('c', [], False)\n"
                "print('went on')\n")
        status, out, err = isolated(code)
        self.assertEqual((status, out), (0, "went on\n"), err)
        warning = [line for line in err.splitlines() if line.startswith("WARNING")]
        self.assertEqual(len(warning), 1, err)
        self.assertIn(f"could not write a trace record of b to {path} (OSError", warning[0])
        self.assertIn("the run goes on", warning[0])
        records = [json.loads(line) for line in path.read_text().splitlines()]
        self.assertEqual([(r["operator"], r["id"]) for r in records], [("a", 1), ("c", 2)])

    def test_a_fifo_put_in_place_later_is_not_waited_on(self):
        path = scratch("later") / "runs.jsonl"
        code = ("import logging, os, toolscope_chat2graph as ts\n"
                "logging.basicConfig(format='%(levelname)s %(message)s')\n"
                f"r = ts._Recorder({str(path)!r})\n"
                f"os.mkfifo({str(path)!r})\n"
                "r.write('a', [], True)\n"  # no reader: refused at once, not waited on
                "print('went on')\n")
        status, out, err = isolated(code)
        self.assertEqual((status, out), (0, "went on\n"), err)
        self.assertIn("could not write a trace record of a", err)


class Fixtures(unittest.TestCase):
    def test_the_cache_fixture_is_read(self):
        path = written("tools:\n  - {name: BrowserUsing, type: MCP, mcp_transport_config: "
                       "{transport_type: SSE, url: 'http://localhost:8931/sse'}}\n")
        write_cache(path, {"BrowserUsing": SERVERS["BrowserUsing"]})
        server = ts.read_tuning(path).servers["BrowserUsing"]
        self.assertEqual((server.known, server.source),
                         (["browser_click", "browser_navigate"], f"{path}.mcp.json"))


if __name__ == "__main__":
    unittest.main()
