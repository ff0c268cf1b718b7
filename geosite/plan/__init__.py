"""The plan of one site, every view's one source: its controls (submitted or proposed, each with its
practice, dates, geometry and attributes), its phases and the findings (:mod:`~geosite.plan.model`), built
from an analysis (:mod:`~geosite.plan.build`).
"""

from geosite.plan.build import dated_disturbance, plan_of
from geosite.plan.model import ATTRIBUTES, Control, Phase, Plan, fingerprint

__all__ = ["ATTRIBUTES", "Control", "Phase", "Plan", "dated_disturbance", "fingerprint", "plan_of"]
