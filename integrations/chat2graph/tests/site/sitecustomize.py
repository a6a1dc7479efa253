"""Started with every interpreter of the launcher tests (their PYTHONPATH holds this
folder): sets up probe.py's stand-ins, and makes the banner Chat2Graph's server prints
right after ``AgenticService.load()`` report what was built and stop the server there."""

import json
import os
import sys

_spec = json.loads(os.environ["TOOLSCOPE_PROBE"])
sys.path.insert(0, _spec["root"])  # Chat2Graph's tree: the stand-ins patch its classes
import probe  # noqa: E402  (found through PYTHONPATH)

probe.stand_ins(_spec)


def _report_and_stop(*args, **kwargs):
    print(json.dumps({"operators": {n: probe.recommendation(op) for n, op in probe.operators()}}))
    sys.exit(0)


import pyfiglet  # noqa: E402  (a stand-in)

pyfiglet.print_figlet = _report_and_stop
