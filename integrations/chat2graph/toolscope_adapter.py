"""Apply the tuning toolscope saves in a Chat2Graph agentic config to what Chat2Graph builds.

Chat2Graph's YAML loader (``AgenticConfig.from_yaml``) builds every ``OperatorConfig`` from
``instruction``, ``output_schema`` and ``actions`` only, so the ``threshold`` and ``hops``
toolscope writes into an operator are ignored (the defaults 0.5 and 0 apply), and nothing
reads the top-level ``scores:`` list. This module applies both, after Chat2Graph has loaded
the same file::

    from toolscope_adapter import load_tuning, apply_operator_tuning, apply_scores

    config = AgenticConfig.from_yaml(path)          # as Chat2Graph does today
    tuning = load_tuning(path)                      # reads the same file (PyYAML)
    apply_operator_tuning(config, tuning)           # threshold/hops onto OperatorConfig
    ...                                             # Chat2Graph builds its toolkit
    apply_scores(toolkit_service, tuning, resolve)  # scores: onto the toolkit's edges

``resolve`` maps an action or tool name to the id the toolkit service uses for it (the
default passes names through). Every function returns a list of what it did, one line each,
so the caller can log it; anything that does not match raises ``ValueError`` naming it.

The module needs nothing from Chat2Graph: it works on any objects of that shape (tests use
stand-ins). PyYAML, which Chat2Graph already depends on, is only needed to read a path;
``load_tuning`` also takes an already-parsed mapping.
"""

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

DEFAULT_THRESHOLD = 0.5
DEFAULT_HOPS = 0


@dataclass
class OperatorTuning:
    """The tuning written into one operator of ``experts[].workflow``."""

    expert: str
    chain: int
    position: int
    # toolscope's name for the operator: ``<expert>/<n>``, n counting operators from 1.
    name: str
    threshold: Optional[float] = None
    hops: Optional[int] = None


@dataclass
class Tuning:
    """Everything toolscope tunes in a Chat2Graph file."""

    operators: List[OperatorTuning] = field(default_factory=list)
    scores: List[Tuple[str, str, float]] = field(default_factory=list)


def load_tuning(source: Any) -> Tuning:
    """Reads the tuning from a path (str or path-like; needs PyYAML) or a parsed mapping."""
    if isinstance(source, Mapping):
        data = source
    else:
        import yaml  # PyYAML, as Chat2Graph uses; imported only when a path is given.

        with open(source, encoding="utf-8") as f:
            data = yaml.safe_load(f)
    if not isinstance(data, Mapping):
        raise ValueError("the agentic config is not a mapping")
    return Tuning(operators=_operators(data), scores=_scores(data))


def _operators(data: Mapping) -> List[OperatorTuning]:
    out = []
    for expert in data.get("experts") or []:
        if not isinstance(expert, Mapping):
            continue
        profile = expert.get("profile") or {}
        name = str(profile.get("name", "")) if isinstance(profile, Mapping) else ""
        n = 0
        for c, chain in enumerate(expert.get("workflow") or []):
            for p, op in enumerate(chain or []):
                if not isinstance(op, Mapping):
                    continue
                n += 1
                threshold = op.get("threshold")
                hops = op.get("hops")
                if threshold is None and hops is None:
                    continue
                out.append(
                    OperatorTuning(
                        expert=name,
                        chain=c,
                        position=p,
                        name=f"{name}/{n}",
                        threshold=_threshold(threshold, f"{name}/{n}"),
                        hops=_hops(hops, f"{name}/{n}"),
                    )
                )
    return out


def _threshold(value: Any, where: str) -> Optional[float]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{where}: threshold {value!r} is not a number")
    if not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{where}: threshold {value!r} is not in [0, 1]")
    return float(value)


def _hops(value: Any, where: str) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1000:
        raise ValueError(f"{where}: hops {value!r} is not a whole number from 0 to 1000")
    return value


def _scores(data: Mapping) -> List[Tuple[str, str, float]]:
    # Later entries for the same edge win, as in toolscope.
    found: Dict[Tuple[str, str], float] = {}
    for entry in data.get("scores") or []:
        if not isinstance(entry, Mapping) or not {"from", "to", "score"} <= set(entry):
            raise ValueError(f"a scores entry must be {{from, to, score}}: {entry!r}")
        score = _threshold(entry["score"], f"score {entry['from']} -> {entry['to']}")
        found[(str(entry["from"]), str(entry["to"]))] = score
    return [(f, t, s) for (f, t), s in found.items()]


def apply_operator_tuning(config: Any, tuning: Tuning) -> List[str]:
    """Sets ``threshold`` and ``hops`` on the ``OperatorConfig`` objects Chat2Graph built.

    ``config`` is what ``AgenticConfig.from_yaml`` returns: ``config.experts[k]`` has
    ``profile.name`` and ``workflow``, a list of chains, each a list of ``OperatorConfig``
    in file order. Operators are matched by expert name and position.
    """
    experts = {}
    for expert in getattr(config, "experts", None) or []:
        profile = getattr(expert, "profile", None)
        experts.setdefault(str(getattr(profile, "name", "")), expert)
    done = []
    for t in tuning.operators:
        expert = experts.get(t.expert)
        if expert is None:
            raise ValueError(f"{t.name}: Chat2Graph's config has no expert {t.expert!r}")
        try:
            op = expert.workflow[t.chain][t.position]
        except (AttributeError, IndexError, TypeError):
            raise ValueError(f"{t.name}: no operator at workflow[{t.chain}][{t.position}]")
        if t.threshold is not None:
            op.threshold = t.threshold
            done.append(f"{t.name}: threshold = {t.threshold}")
        if t.hops is not None:
            op.hops = t.hops
            done.append(f"{t.name}: hops = {t.hops}")
    return done


def apply_scores(
    service: Any,
    tuning: Tuning,
    resolve: Callable[[str], Any] = lambda name: name,
) -> List[str]:
    """Sets each ``scores:`` entry on the toolkit through ``service.set_score(from, to,
    score)``, names mapped to the service's ids by ``resolve``. An edge the toolkit does
    not have (``service.get_score`` raises or returns ``None``) is reported by ValueError
    before anything is set."""
    edges = [(resolve(f), resolve(t), s, f, t) for f, t, s in tuning.scores]
    getter = getattr(service, "get_score", None)
    if getter is not None:
        for a, b, _, f, t in edges:
            try:
                current = getter(a, b)
            except Exception as e:  # the service's own error for a missing edge
                raise ValueError(f"score {f} -> {t}: the toolkit has no such edge ({e})")
            if current is None:
                raise ValueError(f"score {f} -> {t}: the toolkit has no such edge")
    done = []
    for a, b, s, f, t in edges:
        service.set_score(a, b, s)
        done.append(f"score {f} -> {t} = {s}")
    return done
