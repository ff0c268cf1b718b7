"""Whether the submitted sheets show the plan the submitted layers hold.

A sheet geosite drew carries the stamp of the plan it was drawn from (:mod:`geosite.plan.stamp`): its
fingerprint and each control's number, practice and digest. ``check`` reads the stamp of each PDF at the
top of the submission's folder and compares it with the plan its ``bmps`` layer holds
(:func:`geosite.plan.build.plan_of_site`): a sheet of another plan (a control added, moved, removed or
retyped since the sheet was drawn) is a finding for the inspector, cited to the plan item the ``bmps``
layer answers (Grantsburg A(3)(c), B(6)); a sheet drawn elsewhere carries no stamp and is declared, not
read (an ``info`` finding says so).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from geosite.plan.stamp import Stamp, read_stamp, stamp_of
from geosite.plan.table import tag_runs
from geosite.rules import Finding

if TYPE_CHECKING:
    from geosite.plan import Plan
    from geosite.rules import Profile

#: the most PDFs at the top of a submission's folder whose stamps are read (geosite's bound on a hostile
#: folder, not an ordinance number)
MAX_SHEETS = 64


def sheets_in(root: Path | None) -> list[Path]:
    """The regular PDF files at the top of the folder ``root`` (not links), at most :data:`MAX_SHEETS`."""
    if root is None or not Path(root).is_dir():
        return []
    out = []
    for entry in sorted(os.scandir(root), key=lambda e: e.name):
        if not entry.name.lower().endswith(".pdf"):
            continue
        st = entry.stat(follow_symlinks=False)
        if stat.S_ISREG(st.st_mode):
            out.append(Path(entry.path))
        if len(out) == MAX_SHEETS:
            break
    return out


def _stamp(path: Path) -> Stamp | None:
    """The sheet's stamp, None when it has none or cannot be read (then it is a sheet drawn elsewhere)."""
    try:
        return read_stamp(path)
    except OSError:
        return None


def differences(shown: Stamp, held: Stamp) -> list[str]:
    """What a sheet's plan (``shown``) and the layers' (``held``) disagree on, in words, by control tag."""
    only_map = sorted(set(shown.controls) - set(held.controls))
    only_layers = sorted(set(held.controls) - set(shown.controls))
    retyped = sorted(
        i for i in set(shown.controls) & set(held.controls) if shown.controls[i][0] != held.controls[i][0]
    )
    moved = sorted(
        i
        for i in set(shown.controls) & set(held.controls)
        if i not in retyped and shown.controls[i][1] != held.controls[i][1]
    )
    out = []
    if only_map:
        out.append(f"{tag_runs(only_map)} on the sheet, not in the layers")
    if only_layers:
        out.append(f"{tag_runs(only_layers)} in the layers, not on the sheet")
    if retyped:
        out.append(f"{tag_runs(retyped)} of another type on the sheet")
    if moved:
        out.append(f"{tag_runs(moved)} drawn elsewhere (or of another shape) on the sheet")
    return out or ["their fingerprints differ"]


def maps_agree(plan: Plan, profile: Profile, plan_type: str) -> list[Finding]:
    """The finding on the submitted sheets against the plan of the submitted layers (see the module notes).

    Parameters
    ----------
    plan : Plan
        The plan the submission's layers hold.
    profile : Profile
        The village's profile (the plan item its ``bmps`` layer answers).
    plan_type : str
        The plan type checked (``full`` or ``statement``).

    Returns
    -------
    list of Finding
        One finding, none when the submission has no PDF at its top or the chapter no item for ``bmps``.
    """
    item = next((i for i in profile.plan_content.items(plan_type) if "bmps" in i.layers), None)
    sheets = sheets_in(plan.site.root)
    if item is None or not sheets:
        return []
    rule = f"plan_content.{plan_type}.maps_agree"
    section = profile.section_name(profile.plan_content.section)
    head = f"Submitted sheets against the bmps layer ({len(plan.controls)} controls)"
    stamps = {p.name: _stamp(p) for p in sheets}
    drawn = {n: s for n, s in stamps.items() if s is not None}
    names = ", ".join(stamps)
    if not drawn:
        return [
            Finding(
                rule,
                item.citation,
                section,
                "info",
                f"{head}: {names} carry no geosite plan stamp (drawn elsewhere): what they show is declared, "
                "not read; the inspector compares them with the layers.",
                requirement=item.text,
                submitted=names,
                layer="bmps",
            )
        ]
    held = stamp_of(plan)
    bad = {n: differences(s, held) for n, s in drawn.items() if s.fingerprint != held.fingerprint}
    if not bad:
        return [
            Finding(
                rule,
                item.citation,
                section,
                "pass",
                f"{head}: {', '.join(drawn)} (drawn by geosite) were drawn from the plan the layers hold "
                f"(plan {held.fingerprint}).",
                requirement=item.text,
                submitted=", ".join(drawn),
                layer="bmps",
            )
        ]
    said = "; ".join(f"{n}: {', '.join(d)}" for n, d in bad.items())
    return [
        Finding(
            rule,
            item.citation,
            section,
            "inspector_decision",
            f"{head}: a sheet shows another plan than the layers ({said}). Which one is the plan is the "
            "inspector's to decide; the sheet is redrawn from the layers with `geosite map`.",
            requirement=item.text,
            submitted=said,
            settle="sheets drawn from the submitted layers (geosite map), or layers matching the sheets",
            layer="bmps",
        )
    ]
