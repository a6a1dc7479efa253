"""Tests of toolscope_adapter on stand-in objects shaped like Chat2Graph's (no Chat2Graph,
no PyYAML needed; the YAML test runs only where PyYAML is installed)."""

import os
import sys
import tempfile
import unittest
from dataclasses import dataclass, field
from typing import List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from toolscope_adapter import (  # noqa: E402
    DEFAULT_HOPS,
    DEFAULT_THRESHOLD,
    apply_operator_tuning,
    apply_scores,
    load_tuning,
)


@dataclass
class OperatorConfig:
    """As Chat2Graph builds it: only instruction, output_schema and actions from YAML."""

    instruction: str
    output_schema: str
    actions: List[str]
    threshold: float = DEFAULT_THRESHOLD
    hops: int = DEFAULT_HOPS


@dataclass
class Profile:
    name: str


@dataclass
class ExpertConfig:
    profile: Profile
    workflow: List[List[OperatorConfig]]


@dataclass
class AgenticConfig:
    experts: List[ExpertConfig] = field(default_factory=list)


def from_yaml_like(data):
    """What AgenticConfig.from_yaml builds from a parsed file."""
    experts = []
    for e in data["experts"]:
        workflow = [
            [
                OperatorConfig(
                    instruction=op["instruction"],
                    output_schema=op.get("output_schema", ""),
                    actions=[a["name"] for a in op["actions"]],
                )
                for op in chain
            ]
            for chain in e["workflow"]
        ]
        experts.append(ExpertConfig(Profile(e["profile"]["name"]), workflow))
    return AgenticConfig(experts)


class ToolkitService:
    def __init__(self, edges):
        self.scores = dict(edges)

    def get_score(self, a, b):
        if (a, b) not in self.scores:
            raise KeyError((a, b))
        return self.scores[(a, b)]

    def set_score(self, a, b, score):
        self.scores[(a, b)] = score


QUERY = {"name": "query"}
RUN = {"name": "run"}
ANALYSE = {"instruction": "analyse", "actions": [QUERY], "threshold": 0.7, "hops": 2}
DATA = {
    "actions": [QUERY, RUN],
    "experts": [
        {"profile": {"name": "Plain"}, "workflow": [[{"instruction": "x", "actions": [RUN]}]]},
        {
            "profile": {"name": "Query Expert"},
            "workflow": [
                [{"instruction": "first", "actions": [QUERY]}, ANALYSE],
                [{"instruction": "third", "actions": [RUN], "hops": 1}],
            ],
        },
    ],
    "scores": [
        {"from": "query", "to": "Cypher", "score": 0.2},
        {"from": "query", "to": "Cypher", "score": 0.4},
        {"from": "run", "to": "Schema", "score": 1},
    ],
}


class OperatorTuningTest(unittest.TestCase):
    def test_threshold_and_hops_reach_the_operator_configs(self):
        config = from_yaml_like(DATA)
        done = apply_operator_tuning(config, load_tuning(DATA))
        ops = config.experts[1].workflow
        self.assertEqual((ops[0][0].threshold, ops[0][0].hops), (0.5, 0))
        self.assertEqual((ops[0][1].threshold, ops[0][1].hops), (0.7, 2))
        self.assertEqual((ops[1][0].threshold, ops[1][0].hops), (0.5, 1))
        self.assertEqual(config.experts[0].workflow[0][0].threshold, 0.5)
        self.assertIn("Query Expert/2: threshold = 0.7", done)
        self.assertIn("Query Expert/3: hops = 1", done)

    def test_a_config_of_another_shape_is_refused_by_name(self):
        config = from_yaml_like(DATA)
        config.experts[1].workflow.pop()
        with self.assertRaisesRegex(ValueError, "Query Expert/3"):
            apply_operator_tuning(config, load_tuning(DATA))

    def test_bad_values_are_refused(self):
        bad = {"experts": [{"profile": {"name": "E"}, "workflow": [[{"threshold": 2}]]}]}
        with self.assertRaisesRegex(ValueError, "not in"):
            load_tuning(bad)
        bad = {"experts": [{"profile": {"name": "E"}, "workflow": [[{"hops": True}]]}]}
        with self.assertRaisesRegex(ValueError, "hops"):
            load_tuning(bad)


class ScoresTest(unittest.TestCase):
    def test_scores_reach_the_toolkit_last_entry_winning(self):
        service = ToolkitService({("id-query", "id-Cypher"): 1.0, ("id-run", "id-Schema"): 1.0})
        done = apply_scores(service, load_tuning(DATA), resolve=lambda n: f"id-{n}")
        self.assertEqual(service.scores[("id-query", "id-Cypher")], 0.4)
        self.assertEqual(service.scores[("id-run", "id-Schema")], 1.0)
        self.assertEqual(len(done), 2)

    def test_a_missing_edge_sets_nothing(self):
        service = ToolkitService({("query", "Cypher"): 1.0})
        with self.assertRaisesRegex(ValueError, "run -> Schema"):
            apply_scores(service, load_tuning(DATA))
        self.assertEqual(service.scores[("query", "Cypher")], 1.0)


class YamlTest(unittest.TestCase):
    @unittest.skipUnless(__import__("importlib").util.find_spec("yaml"), "PyYAML not installed")
    def test_reads_a_file_with_anchors(self):
        text = """
actions:
  - &q {name: query}
experts:
  - profile: {name: E}
    workflow:
      - - &op
          instruction: go
          actions: [*q]
          threshold: 0.65
        - *op
scores:
  - {from: query, to: T, score: 0.3}
"""
        with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
            f.write(text)
        try:
            tuning = load_tuning(f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual([t.name for t in tuning.operators], ["E/1", "E/2"])
        self.assertEqual(tuning.scores, [("query", "T", 0.3)])


if __name__ == "__main__":
    unittest.main()
