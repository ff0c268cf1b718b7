"""Erosion mat (DNR technical standards 1052, non-channel erosion mat, and 1053, channel erosion mat): a
rolled blanket pinned over a slope. geosite proposes it where an interior fence row cannot be built and the
slope above the next fence is longer than DNR 1056 allows; a submitted mat is a cover (it stabilizes the
ground under it and stops slope length, like mulch).
"""

from __future__ import annotations

from typing import Any, ClassVar

from geosite.practices.base import PayItem, Practice
from geosite.symbols import CadLook, Style


class ErosionMat(Practice):
    """Erosion mat over a slope (DNR 1052)."""

    name = "erosion_mat"
    title = "Erosion mat"
    standard = "DNR 1052"
    family = "cover"
    looks: ClassVar[dict[str, Style]] = {
        "erosion_mat": Style(
            "polygon",
            "Erosion mat (DNR 1052)",
            face="#f5cba7",
            edge="#d35400",
            lw=0.6,
            hatch="++",
            z=4.6,
            clear="edge",
        )
    }
    drawn: ClassVar[dict[str, str]] = {"polygon": "erosion_mat"}
    temporary = False
    submitted: ClassVar[dict[str, dict[str, Any]]] = {"polygon": {"face": "none", "hatch": "++"}}
    cad = CadLook("C-ESCP-MATS", 30, "CONTINUOUS", "erosion mat")
    pay = PayItem("SY", "area", "the area covered, laps not counted", "DNR 1052")
