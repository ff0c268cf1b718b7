"""The plan of one site, every view's one source: its controls (submitted or proposed, each with its
practice, dates, geometry and attributes), its phases and the findings (:mod:`~geosite.plan.model`), built
from an analysis (:mod:`~geosite.plan.build`); its pay quantities (:mod:`~geosite.plan.quantities`), unit
prices (:mod:`~geosite.plan.prices`), estimate (:mod:`~geosite.plan.estimate`) and surety
(:mod:`~geosite.plan.surety`), gathered for the reports by :mod:`~geosite.plan.quantity_report`.
"""

from geosite.plan.build import dated_disturbance, plan_of
from geosite.plan.model import ATTRIBUTES, Control, Phase, Plan, fingerprint
from geosite.plan.prices import PriceTable, read_prices
from geosite.plan.quantities import PlanQuantities, Quantities, QuantityLine, plan_quantities

__all__ = [
    "ATTRIBUTES",
    "Control",
    "Phase",
    "Plan",
    "PlanQuantities",
    "PriceTable",
    "Quantities",
    "QuantityLine",
    "dated_disturbance",
    "fingerprint",
    "plan_of",
    "plan_quantities",
    "read_prices",
]
