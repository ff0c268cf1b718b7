"""Rules: the ordinances as data, and the engine that turns measurements into findings.

- ``profiles/*.toml``: one file per village (Grantsburg, Belgium), every threshold with its section;
- :mod:`~geosite.rules.profile`: :func:`load_profile` -> :class:`Profile` (typed views of a profile);
- :mod:`~geosite.rules.engine`: :func:`evaluate` -> :class:`Evaluation` (applicability, the plan type,
  a :class:`Finding` per rule, each citing its section), and :func:`fmt` for numbers in messages.

A new village is a new profile file; the engine reads only what a profile says.
"""

from geosite.rules.engine import Evaluation, Finding, Trigger, evaluate, fmt, plan_type
from geosite.rules.profile import Profile, available_profiles, load_profile

__all__ = ["Evaluation", "Finding", "Profile", "Trigger", "available_profiles", "evaluate", "fmt", "load_profile", "plan_type"]
