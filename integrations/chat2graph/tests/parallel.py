"""Runs the suite in N test processes at once (``python tests/parallel.py -j N`` from
``integrations/chat2graph``, or with ``-s DIR`` from elsewhere): the suite's time is its
loads of Chat2Graph, each a CPU-bound process of its own, and one ``unittest`` process runs
them one after the other on one core.

Each process is a plain ``python -m unittest -v`` over its share of the test ids, so it
has its own scratch folder, its own copy of Chat2Graph's tree and its own fork server
(``harness``): nothing is shared between them but the toolscope binary. The tests are
dealt out by about how many loads of Chat2Graph each makes (``LOADS``), costliest first,
each to the process with the least so far. A process's output is printed whole when it ends, so the lines of two
processes never interleave. Exits non-zero when any process does (or found no test)."""

import argparse
import os
import subprocess
import sys
import tempfile
import unittest

# The module whose tests each load Chat2Graph (tens of seconds each on a slow machine).
HEAVY = "tests.test_real_chat2graph."


def test_ids(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from test_ids(item)
        else:
            yield item.id()


# Tests that cost more than one forked load: a fresh interpreter (the launchers, a file
# size limit) costs about three, and some tests load twice. Only the balance depends on it.
LOADS = {
    "InstallAndLaunch.test_python_m_launcher_installs_before_the_server_loads": 3,
    "InstallAndLaunch.test_installed_console_script": 3,
    "TracesThatCannotBeWritten.test_a_full_disk": 3,
    "Agreement.test_group_score_applies_to_members_toolscope_does_not_know": 2,
    "EditedCalls.test_added_tool_with_its_module_path_loads": 2,
    "Recording.test_appended_runs_keep_distinct_ids": 2,
}


def cost(test):
    """About how many loads of Chat2Graph a test makes (a quick test: next to none)."""
    if not test.startswith(HEAVY):
        return 0.02
    return LOADS.get(test[len(HEAVY):], 1)


def deal(ids, n):
    """The costliest test first, each to the share with the least so far."""
    shares = [[] for _ in range(n)]
    load = [0.0] * n
    for test in sorted(ids, key=cost, reverse=True):
        k = load.index(min(load))
        shares[k].append(test)
        load[k] += cost(test)
    return [sorted(s) for s in shares if s]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-j", type=int, default=os.cpu_count() or 1,
                        help="test processes (default: the CPUs)")
    parser.add_argument("-s", default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), help="the folder the tests are discovered in")
    args = parser.parse_args()
    top = os.path.abspath(args.s)
    suite = unittest.TestLoader().discover(start_dir=top, top_level_dir=top)
    ids = sorted(test_ids(suite))
    if not ids:
        print("parallel: no tests found", file=sys.stderr)
        return 1
    broken = [i for i in ids if i.startswith("unittest.loader.")]
    if broken:
        # A module that does not import: the plain runner reports it best.
        print(f"parallel: {len(broken)} module(s) do not import; running serially",
              file=sys.stderr)
        return subprocess.call([sys.executable, "-m", "unittest", "discover", "-s", top, "-v"])
    shares = deal(ids, max(1, args.j))
    print(f"parallel: {len(ids)} tests in {len(shares)} processes", flush=True)
    procs = []
    for share in shares:
        out = tempfile.TemporaryFile()
        procs.append((subprocess.Popen([sys.executable, "-m", "unittest", "-v", *share],
                                       cwd=top, stdout=out, stderr=subprocess.STDOUT), out))
    status = 0
    for k, (proc, out) in enumerate(procs):
        code = proc.wait()
        out.seek(0)
        sys.stdout.write(f"--- process {k + 1} of {len(procs)} (exit {code}) ---\n")
        sys.stdout.flush()
        sys.stdout.buffer.write(out.read())
        sys.stdout.flush()
        out.close()
        status = status or code
    return status


if __name__ == "__main__":
    sys.exit(main())
