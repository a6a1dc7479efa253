#!/usr/bin/env bash
# The BFCL multi-turn benchmark, end to end (README.md in this folder says what it measures).
#
#   benches/bfcl/run.sh [--slice N] [--out DIR] [--wheel PATH] [--check] [--python-only]
#
#   --slice N      only tasks 0..N-1 (CI: --slice 20 gives 16 training and 4 held-out tasks)
#   --out DIR      output folder (default benches/bfcl/out, git-ignored)
#   --wheel PATH   a bfcl-eval wheel on disk instead of `pip download` into the cache
#   --check        exit 1 unless toolscope's learned graph reaches recall >= 0.90 within 30% of
#                  the tokens and matches the Python reference's recall there (full data only)
#   --python-only  stop after the Python side (defs, traces, plain.yaml, reference.yaml and
#                  the Python numbers): for machines without the Rust commands
#
# Environment: TOOLSCOPE (the binary, default target/release/toolscope if built, else
# toolscope on PATH), TOOLSCOPE_BFCL_CACHE (wheel cache, default ~/.cache/toolscope-bfcl),
# INIT_FLAGS, FIT_FLAGS, EVAL_FLAGS (extra flags for those commands).
#
# The CLI it runs (README.md, "What run.sh runs"):
#   toolscope init DEFS... -o OUT.yaml --traces FILE
#   toolscope fit PATH --traces FILE --write
#   toolscope eval PATH --traces FILE --steps --sweep --format json
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="$here/out"
slice=()
wheel=()
check=0
python_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --slice) slice=(--slice "$2"); shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --wheel) wheel=(--wheel "$2"); shift 2 ;;
    --check) check=1; shift ;;
    --python-only) python_only=1; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -z "${TOOLSCOPE:-}" ]; then
  if [ -x "$root/target/release/toolscope" ]; then TOOLSCOPE="$root/target/release/toolscope"; else TOOLSCOPE=toolscope; fi
fi
py=${PYTHON:-python3}

mkdir -p "$out"
rm -rf "$out/defs" "$out"/eval-*.json "$out/kit.yaml"
echo "== convert" >&2
"$py" "$here/convert.py" --out "$out" ${slice[@]+"${slice[@]}"} ${wheel[@]+"${wheel[@]}"} > "$out/convert.json"
"$py" -c 'import json,sys; m=json.load(open(sys.argv[1])); print("tasks", m["tasks"], "records", m["records"], "steps", m["steps"], "collisions", len(m["collisions"]), file=sys.stderr)' "$out/convert.json"

echo "== baselines written by Python: plain.yaml (transition counts), reference.yaml (the recommended design)" >&2
"$py" "$here/model.py" write-yaml --data "$out"
"$py" "$here/model.py" eval --data "$out" > "$out/eval-python.json"

if [ "$python_only" = 1 ]; then
  "$py" "$here/model.py" summarize "$out/eval-python.json"
  exit 0
fi

echo "== toolscope init + fit ($TOOLSCOPE)" >&2
# shellcheck disable=SC2086
"$TOOLSCOPE" init "$out"/defs/*.json -o "$out/kit.yaml" --traces "$out/train.jsonl" ${INIT_FLAGS:-}
# shellcheck disable=SC2086
"$TOOLSCOPE" fit "$out/kit.yaml" --traces "$out/train.jsonl" --write ${FIT_FLAGS:-} > "$out/fit.diff"

echo "== toolscope eval --steps on the held-out tasks" >&2
for kit in kit plain reference; do
  # shellcheck disable=SC2086
  "$TOOLSCOPE" eval "$out/$kit.yaml" --traces "$out/test.jsonl" --steps --sweep --format json ${EVAL_FLAGS:-} \
    > "$out/eval-$kit.json"
done

# The learned graph against the Python reference: the same Next edges and scores are expected
# (toolscope diff exits 0 either way; the count is informational).
if "$TOOLSCOPE" diff "$out/reference.yaml" "$out/kit.yaml" --format json > "$out/diff-reference-kit.json" 2>/dev/null; then
  "$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
e = d.get("edges", {})
n = {k: len(e.get(k, [])) for k in ("added", "removed", "changed")}
print("kit.yaml against reference.yaml: edges", n, "(all 0 when init+fit follow README.md)", file=sys.stderr)
' "$out/diff-reference-kit.json" || true
fi

"$py" "$here/model.py" summarize "$out/eval-python.json" "$out/eval-kit.json" "$out/eval-plain.json" "$out/eval-reference.json" \
  | tee "$out/summary.txt"

if [ "$check" = 1 ]; then
  BFCL_OUT="$out" "$py" -c '
import os, sys
sys.path.insert(0, sys.argv[1])
import model as M
out = os.environ["BFCL_OUT"]
rows = M.summarize([os.path.join(out, "eval-python.json"), os.path.join(out, "eval-kit.json")], 0.30)
kit, ref = rows.get("eval-kit.json"), rows.get("python reference")
fail = []
if kit is None or kit[2] < 0.90:
    fail.append("kit.yaml: no point with recall >= 0.90 within 30%% of the tokens (%s)" % (kit,))
if kit is not None and ref is not None and abs(kit[2] - ref[2]) > 0.005:
    fail.append("kit.yaml recall %.3f differs from the Python reference %.3f" % (kit[2], ref[2]))
for f in fail:
    print("check: " + f, file=sys.stderr)
sys.exit(1 if fail else 0)
' "$here"
fi
