"""Straw bales (a sediment bale barrier): bales staked end to end on the contour, a sediment barrier the
chapters name beside filter fence (Grantsburg B(6)(c)[3] and B(6)(e): "filter fences, straw bales or
equivalent"). geosite proposes silt fence; a submitted bale line counts wherever a barrier is required.
"""

from __future__ import annotations

from typing import Any, ClassVar

from geosite.practices.base import PayItem, Practice
from geosite.symbols import CadLook


class StrawBales(Practice):
    """A line of staked straw bales, a sediment barrier."""

    name = "straw_bales"
    title = "Straw bale barrier"
    standard = "DNR 1055"
    family = "barrier"
    submitted: ClassVar[dict[str, dict[str, Any]]] = {
        "line": {"extra": {"marks": "s", "mark_every_in": 0.2, "mark_size": 2.6}, "lw": 0.9}
    }
    cad = CadLook("C-ESCP-BALE", 6, "CONTINUOUS", "straw bale barriers")
    pay = PayItem("LF", "length", "along the line of bales", "DNR 1055")
