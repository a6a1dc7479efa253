#!/usr/bin/env bash
# The benchmark's own virtual environment for peers.py: the pinned packages of
# requirements-peers.txt from PyPI. Made once, made again when the pins or the Python
# change; prints the environment's python.
#
#   benches/bfcl/setup-peers.sh [VENV]   (default $TOOLSCOPE_BFCL_VENV, else
#                                         ~/.cache/toolscope-bfcl/venv, beside the wheel)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${1:-${TOOLSCOPE_BFCL_VENV:-${TOOLSCOPE_BFCL_CACHE:-$HOME/.cache/toolscope-bfcl}/venv}}
python=${PYTHON:-python3}
requirements=$here/requirements-peers.txt
stamp="$("$python" --version) $(sha256sum "$requirements" | cut -d' ' -f1)"
if [ "$(cat "$venv/.toolscope-stamp" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$venv"
  "$python" -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements" >&2
  echo "$stamp" >"$venv/.toolscope-stamp"
fi
echo "$venv/bin/python"
