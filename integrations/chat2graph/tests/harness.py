"""What the tests share: Chat2Graph's real source unpacked from ``shared/``, a process
of its own per load (``probe.py``, forked by a fork server that imported the third-party
packages once: ``Zygote``; ``TOOLSCOPE_C2G_NO_ZYGOTE=1`` for a fresh interpreter per
load), and the real ``toolscope`` binary.

Chat2Graph's tarball: ``$TOOLSCOPE_CHAT2GRAPH_TARBALL``, else
``<repo>/../shared/chat2graph/chat2graph-13e9719.tar.gz``. The binary:
``$TOOLSCOPE_BIN``, else ``target/debug/toolscope`` or ``target/release/toolscope`` under
the repository root.
"""

import atexit
import functools
import json
import locale
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
INTEGRATION = HERE.parent
REPO = INTEGRATION.parents[1]
DEFAULT_CONFIG = "app/core/sdk/chat2graph.yml"

# The stand-in MCP servers: the identity toolscope records for each server the default
# config declares (so its sidecar cache is fresh) and the member tools they list.
SERVERS = {
    "BrowserUsing": ({"transport": "sse", "url": "http://localhost:8931/sse"},
                     ["browser_click", "browser_navigate"]),
    "FileTool": ({"transport": "stdio", "command": "npx",
                  "args": ["@modelcontextprotocol/server-filesystem", "."]},
                 ["read_text_file", "write_file"]),
    "BrowserTool": ({"transport": "stdio", "command": "uvx", "args": ["browser-use", "--mcp"]},
                    ["browser_use"]),
}
MEMBERS = {name: members for name, (_, members) in SERVERS.items()}

_scratch = tempfile.mkdtemp(prefix="toolscope-c2g-")
atexit.register(shutil.rmtree, _scratch, ignore_errors=True)


def scratch(name):
    """A new folder for one test's files."""
    return Path(tempfile.mkdtemp(prefix=name + "-", dir=_scratch))


def tarball():
    path = os.environ.get("TOOLSCOPE_CHAT2GRAPH_TARBALL") or (
        REPO.parent / "shared" / "chat2graph" / "chat2graph-13e9719.tar.gz")
    if not Path(path).is_file():
        raise FileNotFoundError(f"Chat2Graph's source is not at {path} "
                                "(set TOOLSCOPE_CHAT2GRAPH_TARBALL)")
    return Path(path)


def unpack():
    """A fresh copy of Chat2Graph's tree; returns its root."""
    where = scratch("tree")
    with tarfile.open(tarball()) as tar:
        tar.extractall(where, filter="data")
    return where / "chat2graph"


def toolscope_bin():
    candidates = [os.environ.get("TOOLSCOPE_BIN"), REPO / "target/debug/toolscope",
                  REPO / "target/release/toolscope"]
    for c in candidates:
        if c and Path(c).is_file():
            return str(c)
    raise FileNotFoundError("no toolscope binary: set TOOLSCOPE_BIN or run cargo build")


def toolscope(*args, check=True):
    out = subprocess.run([toolscope_bin(), *map(str, args)], capture_output=True, text=True)
    if check and out.returncode != 0:
        raise AssertionError(f"toolscope {' '.join(map(str, args))}: {out.stderr}")
    return out


def write_cache(config, servers=SERVERS):
    """The MCP sidecar cache toolscope reads beside ``config``, as `mcp discover` writes."""
    entries = [
        dict(name=name, **identity, discovered_at="2026-01-01T00:00:00Z",
             tools=[{"name": m, "description": f"{m} of {name}", "input_schema": {}}
                    for m in sorted(members)])
        for name, (identity, members) in sorted(servers.items())
    ]
    Path(str(config) + ".mcp.json").write_text(
        json.dumps({"toolscope_mcp_cache": 1, "servers": entries}, indent=2))


# A small Chat2Graph config for asking the toolscope binary what it implements: two
# MCP servers whose caches list a tool `t` each, a score on the server S, and a server Z
# whose cache lists no tools.
_ASK = """\
app: {name: ask}
tools:
  - &s {name: S, type: MCP, mcp_transport_config: {transport_type: SSE, url: "http://s/sse"}}
  - &r {name: R, type: MCP, mcp_transport_config: {transport_type: SSE, url: "http://r/sse"}}
  - &z {name: Z, type: MCP, mcp_transport_config: {transport_type: SSE, url: "http://z/sse"}}
actions:
  - &a {name: a, desc: d, tools: [*s, *r, *z]}
toolkit:
  - [*a]
operators:
  - &o {instruction: i, output_schema: o, actions: [*a]}
experts:
  - profile: {name: E, desc: d}
    workflow: [[*o]]
leader: {actions: [*a]}
scores:
  - {from: a, to: S, score: 0.5}
"""


@functools.lru_cache(maxsize=None)
def toolscope_knows():
    """What of issue 32's agreed rules the toolscope binary implements, as a set:
    ``server scores`` (a score on an MCP server whose tools it knows scores each tool
    without a score of its own, where older builds report TS060 and draw 1.0) and
    ``qualified names`` (a tool two servers list is two tools, ``S/t`` and ``R/t``) and
    ``empty servers`` (a server the cache lists with no tools offers none, as in
    Chat2Graph, where older builds show the server as a tool, as if its tools were
    unknown).
    The tests compare Chat2Graph with toolscope on these only where the binary has
    them; Chat2Graph's side is checked against the rule itself either way."""
    config = scratch("ask") / "ask.yml"
    config.write_text(_ASK)
    write_cache(config, {"S": ({"transport": "sse", "url": "http://s/sse"}, ["t"]),
                         "R": ({"transport": "sse", "url": "http://r/sse"}, ["t"]),
                         "Z": ({"transport": "sse", "url": "http://z/sse"}, [])})
    known = set()
    # The file is sound either way (lint exits 0): a binary that fails on it fails the
    # test asking, rather than passing for one that knows the rules.
    if "TS060" not in toolscope("lint", config).stdout:
        known.add("server scores")
    exported = json.loads(toolscope("export", config, "--to", "json").stdout)
    if "S/t" in json.dumps(exported):
        known.add("qualified names")
    offered = json.loads(toolscope("recommend", config, "--operator", "E/1", "--format",
                                   "json", "--no-tokens").stdout)["tools"]
    if "Z" not in offered:
        known.add("empty servers")
    return known


def environment(path=(INTEGRATION, HERE)):
    """Chat2Graph's settings for an offline run, with a database of its own."""
    app_root = scratch("app-root")
    env = dict(os.environ)
    env.update(
        APP_ROOT=str(app_root),
        DATABASE_URL=f"sqlite:///{app_root}/chat2graph.db",
        MODEL_PLATFORM_TYPE="LITELLM",
        WORKFLOW_PLATFORM_TYPE="BUILTIN",
        LLM_NAME="scripted",
        PYTHONPATH=os.pathsep.join(map(str, path)),
    )
    return env


# What a probe may map: far above what a load takes (about 0.5 GB here), so that a load
# that reads without end fails here (MemoryError) instead of taking the machine's memory.
PROBE_MEMORY = 3 << 30

# What turns a hang into a failure, without timing the wall clock of a loaded machine (a
# load that takes 90 s at a load average of 5 can take past 300 s when every core is
# busy compiling): a child that uses no CPU time for STALL_SECONDS is blocked (as on a
# FIFO opened for reading, which waits for a writer), and one past its CPU time is
# running away (SIGXCPU). A Chat2Graph load takes seconds of CPU time however busy the
# machine is.
STALL_SECONDS = 60
PROBE_CPU_SECONDS = 600
WALL_SECONDS = 3600  # where /proc cannot say what a child used


def run_guarded(command, cwd=None, env=None, cpu_seconds=PROBE_CPU_SECONDS):
    """Runs ``command`` under the memory ceiling and ``cpu_seconds`` of CPU time, its
    output captured as text; returns its ``subprocess.CompletedProcess``. Raises ``Hung`` when the child is blocked (no CPU time
    used for ``STALL_SECONDS``) or runs past its CPU time, after killing it."""
    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (PROBE_MEMORY, PROBE_MEMORY))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 10))

    child = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, preexec_fn=limits)
    started = time.monotonic()
    used, still_since = None, started
    while True:
        try:
            out, err = child.communicate(timeout=2)
            break
        except subprocess.TimeoutExpired:
            now, ticks = time.monotonic(), _cpu_ticks(child.pid)
            if ticks is None or ticks != used:
                used, still_since = ticks, now
            blocked = ticks is not None and now - still_since > STALL_SECONDS
            if blocked or now - started > WALL_SECONDS:
                child.kill()
                child.communicate()
                raise Hung(f"hung: used no CPU time for {STALL_SECONDS} s (blocked), killed"
                           if blocked else f"hung: still running after {WALL_SECONDS} s, "
                           "killed") from None
    if child.returncode == -signal.SIGXCPU:
        raise Hung(f"ran past {cpu_seconds} s of CPU time, killed")
    return subprocess.CompletedProcess(command, child.returncode, out, err)


def _cpu_ticks(pid):
    """The CPU time the process ``pid`` (all its threads, and the children it waited for)
    used so far, in clock ticks; None where /proc cannot say."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    # utime, stime, cutime, cstime: the stat file's fields 14 to 17.
    return sum(int(v) for v in fields[11:15])


class Hung(Exception):
    pass


def run_forked(command, cwd, env, cpu_seconds=PROBE_CPU_SECONDS):
    """``run_guarded`` for ``command`` = ``[python, probe.py, SPEC]``, with the same
    guards, result and ``Hung``, but the process is forked by the fork server
    (``Zygote``) instead of started afresh, which spares each load the imports of the
    third-party packages (about four fifths of its CPU time). Falls back to
    ``run_guarded`` where ``TOOLSCOPE_C2G_NO_ZYGOTE=1``, where the fork server could not
    start (said once on stderr), and where ``env`` differs from the server's in what
    Python reads at startup (``PYTHON*``, but for a ``PYTHONIOENCODING`` the server's
    environment lacks, which the child applies). The server's environment is
    ``environment()``'s, not that of the load that started it."""
    zygote = Zygote.get()
    if zygote is None or not zygote.serves(command, env):
        return run_guarded(command, cwd, env, cpu_seconds)
    return zygote.run(command, cwd, env, cpu_seconds)


class Zygote:
    """The fork server: ``probe.py --serve`` (see probe.py), one per test process, started
    at its first load and ended at exit."""

    _running = None
    _failed = False
    _lock = threading.Lock()
    cpu_seconds = []  # the CPU time each child used, for measuring

    @classmethod
    def get(cls):
        """The running server (started if need be), or None where there is none."""
        if os.environ.get("TOOLSCOPE_C2G_NO_ZYGOTE") == "1" or cls._failed:
            return None
        with cls._lock:
            if cls._running is None or cls._running.process.poll() is not None:
                try:
                    cls._running = cls(environment())
                except ZygoteFailed as failed:
                    cls._failed = True
                    print(f"\nharness: no fork server ({failed}): each load takes a fresh "
                          "interpreter", file=sys.stderr)
                    return None
            return cls._running

    def __init__(self, env):
        self.env = dict(env)
        self.stderr = scratch("zygote") / "stderr"
        with open(self.stderr, "wb") as err:
            self.process = subprocess.Popen(
                [sys.executable, str(HERE / "probe.py"), "--serve"], cwd=self.stderr.parent,
                env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
        self._pending = b""
        atexit.register(self.close)
        try:
            ready = self._reply(self.process.pid)
        except Hung as hung:
            self.process.kill()
            self.process.wait()
            raise ZygoteFailed(str(hung)) from None
        if ready.get("ready") != self.process.pid:
            raise ZygoteFailed(f"it said {ready}")

    def serves(self, command, env):
        """Whether a child of this server is what ``command`` in ``env`` starts."""
        if command[:2] != [sys.executable, str(HERE / "probe.py")] or len(command) != 3:
            return False
        # The child applies a PYTHONIOENCODING of its own only where the server has none.
        startup = {k for k in set(env) | set(self.env) if k.startswith("PYTHON")
                   and (k != "PYTHONIOENCODING" or k in self.env)}
        return all(env.get(k) == self.env.get(k) for k in startup)

    def run(self, command, cwd, env, cpu_seconds):
        folder = scratch("forked")
        out, err = folder / "stdout", folder / "stderr"
        out.touch()
        err.touch()
        request = dict(argv=command[2:], cwd=str(cwd or os.getcwd()), env=env, out=str(out),
                       err=str(err), memory=PROBE_MEMORY, cpu_seconds=cpu_seconds)
        with self._lock:
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
            self.process.stdin.flush()
            pid = self._reply(self.process.pid)["pid"]
            try:
                ended = self._reply(pid)
            except Hung:
                os.kill(pid, signal.SIGKILL)
                self._reply(None)  # the server reaps it
                raise
        self.cpu_seconds.append(ended["cpu"])
        returncode = os.waitstatus_to_exitcode(ended["status"])
        if returncode == -signal.SIGXCPU:
            raise Hung(f"ran past {cpu_seconds} s of CPU time, killed")
        return subprocess.CompletedProcess(command, returncode, _text(out), _text(err))

    def _reply(self, watched):
        """The server's next line, as JSON; while waiting, ``watched`` (a pid, or None)
        is guarded as ``run_guarded`` guards its child: ``Hung`` when it uses no CPU time
        for ``STALL_SECONDS``. Raises ``ZygoteFailed`` when the server ended."""
        fd = self.process.stdout.fileno()
        started = time.monotonic()
        used, still_since = None, started
        while b"\n" not in self._pending:
            if select.select([fd], [], [], 2)[0]:
                chunk = os.read(fd, 65536)
                if not chunk:
                    self.process.wait()
                    raise ZygoteFailed(f"it ended ({self.process.returncode}): "
                                       + self.stderr.read_text(errors="replace")[-2000:])
                self._pending += chunk
                continue
            if watched is None:
                continue
            now, ticks = time.monotonic(), _cpu_ticks(watched)
            if ticks is None or ticks != used:
                used, still_since = ticks, now
            blocked = ticks is not None and now - still_since > STALL_SECONDS
            if blocked or now - started > WALL_SECONDS:
                raise Hung(f"hung: used no CPU time for {STALL_SECONDS} s (blocked), killed"
                           if blocked else f"hung: still running after {WALL_SECONDS} s, "
                           "killed")
        line, self._pending = self._pending.split(b"\n", 1)
        return json.loads(line)

    def close(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class ZygoteFailed(Exception):
    pass


def _text(path):
    """A child's output as ``subprocess.run(..., text=True)`` gives it."""
    data = path.read_bytes().decode(locale.getpreferredencoding(False))
    return data.replace("\r\n", "\n").replace("\r", "\n")


def probe(tree, config=None, install=True, traces=None, io_encoding=None, otlp=None, **spec):
    """Loads ``config`` (None: Chat2Graph's default path) in a fresh interpreter with the
    stand-in MCP servers; returns the probe's report. A failed load raises
    ``ProbeFailed`` carrying the interpreter's stderr; one that hangs (``run_guarded``)
    is killed and raises ``ProbeFailed`` saying so. ``io_encoding``: the interpreter's
    ``PYTHONIOENCODING``."""
    spec.setdefault("members", MEMBERS)
    spec.update(config=str(config) if config else None,
                install={"traces": str(traces) if traces else None,
                         "otlp": str(otlp) if otlp else None} if install else None)
    env = environment()
    if io_encoding:
        env["PYTHONIOENCODING"] = io_encoding
    # A file size limit (``fsize``) would bound a forked child's stdout and stderr too: the
    # fork server hands it files, where a fresh interpreter writes to pipes.
    return run_probe([sys.executable, str(HERE / "probe.py"), json.dumps(spec)], tree, env,
                     fork=spec.get("fsize") is None)


def run_probe(command, cwd, env=None, fork=False):
    """Runs ``command`` guarded (``run_guarded``; ``fork``: ``run_forked`` where it can);
    the last line of its stdout as JSON."""
    env = env or environment()
    try:
        out = run_forked(command, cwd, env) if fork else run_guarded(command, cwd, env)
    except Hung as hung:
        raise ProbeFailed(str(hung)) from None
    if out.returncode != 0:
        raise ProbeFailed(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


class ProbeFailed(Exception):
    pass


def launch(tree, command, cwd=None, use_source=True):
    """Runs a launcher ``command`` for Chat2Graph's ``tree`` (in ``cwd``, default the
    tree) with the stand-ins of ``site/``: the server stops right after its load,
    printing the probe's report. ``use_source`` False leaves the integration's source off
    the path, so an installed copy is used."""
    path = [HERE / "site", HERE] + ([INTEGRATION] if use_source else [])
    env = environment(path)
    env["TOOLSCOPE_PROBE"] = json.dumps({"members": MEMBERS, "root": str(tree)})
    return run_probe(command, cwd or tree, env)
