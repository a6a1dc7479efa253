"""What the tests share: Chat2Graph's real source unpacked from ``shared/``, a fresh
interpreter per load (``probe.py``), and the real ``toolscope`` binary.

Chat2Graph's tarball: ``$TOOLSCOPE_CHAT2GRAPH_TARBALL``, else
``<repo>/../shared/chat2graph/chat2graph-13e9719.tar.gz``. The binary:
``$TOOLSCOPE_BIN``, else ``target/debug/toolscope`` or ``target/release/toolscope`` under
the repository root.
"""

import atexit
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
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


def probe(tree, config=None, install=True, traces=None, **spec):
    """Loads ``config`` (None: Chat2Graph's default path) in a fresh interpreter with the
    stand-in MCP servers; returns the probe's report. A failed load raises
    ``ProbeFailed`` carrying the interpreter's stderr."""
    spec.setdefault("members", MEMBERS)
    spec.update(config=str(config) if config else None,
                install={"traces": str(traces) if traces else None} if install else None)
    out = subprocess.run([sys.executable, str(HERE / "probe.py"), json.dumps(spec)],
                         cwd=tree, env=environment(),
                         capture_output=True, text=True, timeout=300)
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
    out = subprocess.run(command, cwd=cwd or tree, env=env, capture_output=True, text=True,
                         timeout=300)
    if out.returncode != 0:
        raise ProbeFailed(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])
