"""The quantity table on the site construction plan: each practice's pay quantity (A(3)(c): the dimensions
of the controls, as a contractor bids them), from the sheet's own plan (:func:`geosite.plan.plan_quantities`:
the same lines report.json, report.md and quantities.csv print), with its standard, and per phase where
the plan has a few.

The rows are monospaced table rows the construction sheet adds to its (d) schedule block, which goes into
a blank strip of the map frame when it fits and into the panel otherwise (:func:`geosite.maps.panel.
frame_block`): the table never covers the map.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from geosite.plan.quantities import QuantityLine, plan_quantities
from geosite.practices.pay import PAY_DECIMALS

if TYPE_CHECKING:
    from geosite.maps.common import MapContext

#: The most phases the table gives a column each (more: totals only, the phases in report.md and
#: quantities.csv), so the table stays narrow enough for a frame strip.
MAX_PHASE_COLUMNS = 4
#: The longest item label the table prints whole, characters.
LABEL_MAX_CHARS = 34


def _qty(x: QuantityLine | None) -> str:
    """A quantity as the table prints it: to its unit's decimals, "n.a." (not assessed), "-" (none)."""
    if x is None:
        return "-"
    if x.rounded is None or x.unit is None:
        return "n.a."
    text = f"{x.rounded:,.{PAY_DECIMALS[x.unit]}f}"
    return text + "*" if x.missing else text


def quantity_table(ctx: MapContext) -> list[str]:
    """The table's rows (monospaced): a blank row, the title, the header, one row per pay line of the plan's
    own controls (its total, and per phase where the plan has 2 to :data:`MAX_PHASE_COLUMNS` phases), and
    a key to its marks.

    Parameters
    ----------
    ctx : MapContext
        The sheet's context (its plan: ``ctx.site_plan``).

    Returns
    -------
    list of str
        The rows; none when the plan has no control.
    """
    plan = ctx.site_plan
    if plan is None or not plan.controls:
        return []
    q = plan_quantities(plan).built
    if q is None or not q.totals:
        return []
    phases = list(dict.fromkeys(x.phase for x in q.by_phase))
    phases = phases if 1 < len(phases) <= MAX_PHASE_COLUMNS else []
    w = min(max(len(x.label) for x in q.totals), LABEL_MAX_CHARS)
    cols = [f"ph {p or '?'}"[:9] for p in phases] + ["total"]
    cells = [[*(_qty(_in(q.by_phase, x, p)) for p in phases), _qty(x)] for x in q.totals]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(cols)]
    head = f"{'item':<{w}} {'standard':<8} {'unit':<4} " + " ".join(
        f"{c:>{widths[i]}}" for i, c in enumerate(cols)
    )
    who = "proposed" if plan.source == "proposed" else "as submitted"
    rows = ["", f"(c) QUANTITIES, PAY ITEMS ({who})", head]
    for x, r in zip(q.totals, cells, strict=True):
        rows.append(
            f"{x.label[:w]:<{w}} {x.standard[:8]:<8} {(x.unit or '-'):<4} "
            + " ".join(f"{c:>{widths[i]}}" for i, c in enumerate(r))
        )
    if any(x.unit is None or x.amount is None or x.missing for x in q.totals):
        rows.append("n.a. not assessed, * part not assessed: why in report.md")
    return rows


def _in(lines: tuple[QuantityLine, ...], x: QuantityLine, phase: str | None) -> QuantityLine | None:
    """The line of ``phase`` matching total line ``x`` (None when that phase has none)."""
    return next(
        (y for y in lines if y.phase == phase and (y.item, y.kind, y.unit) == (x.item, x.kind, x.unit)),
        None,
    )
