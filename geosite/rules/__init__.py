"""Rules: the ordinances as data, and the engine that turns measurements into findings.

- ``profiles/*.toml``: one file per village (Grantsburg, Belgium), every threshold with its section;
- :mod:`~geosite.rules.profile`: :func:`load_profile` -> :class:`Profile` (typed views of a profile);
- :mod:`~geosite.rules.engine`: :func:`site_gate` -> :class:`Gate` (whether the chapter applies, and
  each scope within it, e.g. B(6) where runoff leaves the site: computed once, read by every stage),
  :func:`evaluate` -> :class:`Evaluation` (applicability, the plan type, a :class:`Finding` per rule,
  each citing its section), :func:`decide` -> a :class:`Decision` per requirement (required here or
  not, decided once), :data:`STATUSES`, and :func:`fmt` for numbers in messages.

A new village is a new profile file; the engine reads only what a profile says.
"""

from geosite.rules.engine import (
    STATUSES,
    Decision,
    Evaluation,
    Finding,
    Gate,
    Trigger,
    Verdict,
    decide,
    evaluate,
    feature_applies,
    fmt,
    plan_type,
    site_gate,
)
from geosite.rules.profile import Profile, Requirement, available_profiles, load_profile

__all__ = [
    "STATUSES",
    "Decision",
    "Evaluation",
    "Finding",
    "Gate",
    "Profile",
    "Requirement",
    "Trigger",
    "Verdict",
    "available_profiles",
    "decide",
    "evaluate",
    "feature_applies",
    "fmt",
    "load_profile",
    "plan_type",
    "site_gate",
]
