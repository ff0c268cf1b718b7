"""The plan's stamp on a sheet: the fingerprint of the plan a geosite sheet was drawn from and each
control's digest, written in the PDF's ``Keywords`` (``geosite-plan:<16 hex>; controls: 1.silt_fence.
3f2a9c01 2.tracking_pad.77e0b2aa ...``), so ``check`` can tell whether a submitted sheet shows the plan the
submitted layers hold (:mod:`geosite.review.drawn`).

Reading is a bounded search of the file's last bytes for that text: no PDF parser runs on a submission's
file (a stamp can be forged like any declaration; it tells a geosite-drawn sheet of another plan from one
of this plan, and says nothing of a sheet drawn elsewhere).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from geosite.plan.model import control_digest

if TYPE_CHECKING:
    from geosite.plan.model import Plan

#: how far from a PDF's end its Info dictionary is looked for (matplotlib writes it after the pages), bytes
TAIL_BYTES = 1 << 20
_STAMP = re.compile(
    rb"geosite-plan:([0-9a-f]{16})(?:; controls:((?: \d{1,9}\.[a-z0-9_]{1,64}\.[0-9a-f]{8}){0,100000}))?"
)
_ENTRY = re.compile(r"(\d{1,9})\.([a-z0-9_]{1,64})\.([0-9a-f]{8})")


@dataclass(frozen=True)
class Stamp:
    """A sheet's stamp: the plan's fingerprint and each control's (number -> (practice, digest))."""

    fingerprint: str
    controls: dict[int, tuple[str, str]]


def stamp_text(plan: Plan) -> str:
    """The stamp of ``plan`` as a sheet's PDF ``Keywords`` carry it."""
    entries = " ".join(
        f"{c.id}.{c.practice}.{control_digest(c)}" for c in sorted(plan.controls, key=lambda c: c.id)
    )
    return f"geosite-plan:{plan.fingerprint()}; controls: {entries}".rstrip()


def stamp_of(plan: Plan) -> Stamp:
    """The stamp ``plan`` gives its sheets."""
    return Stamp(plan.fingerprint(), {c.id: (c.practice, control_digest(c)) for c in plan.controls})


def read_stamp(path: Path) -> Stamp | None:
    """The stamp in the last :data:`TAIL_BYTES` of the PDF ``path`` (None when it carries none)."""
    with open(path, "rb") as f:
        f.seek(0, 2)
        size = f.tell()
        f.seek(max(0, size - TAIL_BYTES))
        tail = f.read(TAIL_BYTES)
    found = list(_STAMP.finditer(tail))
    if not found:
        return None
    m = found[-1]  # the last: a PDF updated in place writes its newest Info dictionary last
    controls = {int(i): (p, d) for i, p, d in _ENTRY.findall((m.group(2) or b"").decode("ascii"))}
    return Stamp(m.group(1).decode("ascii"), controls)
