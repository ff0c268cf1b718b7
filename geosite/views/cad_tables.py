"""The plan's tables in the DXF, beside the drawing: the schedule of controls (the construction sheet's (d)
schedule, :func:`geosite.plan.table.schedule`: each kind of control's tags, words, standard, quantity,
phase and dates), the phases with their start, end and stabilization dates, and the stockpiles with their
days. The controls' labels give their tags (``C5-C7``); these rows say what they are.

Each cell is a TEXT fitted to its width (as every label of the DXF, :mod:`geosite.views.cad_labels`), left
of a column as wide as its widest cell, on ``C-ANNO-TABL``, to the right of the drawing (so it is over no
symbol); its XDATA says where it is (``table=PHASES``, ``row=2`` (0 the heads), ``column=START``; the title's
column is ``title``), for data extraction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from geosite.io.text import dxf_text
from geosite.views.cad_items import cad_text
from geosite.views.cad_labels import text_block
from geosite.views.cad_plan import pay_text

if TYPE_CHECKING:
    from geosite.plan import Plan

#: The tables' CAD layer: (name, ACI colour, what it holds).
TABLE_LAYER = ("C-ANNO-TABL", 7, "the plan's schedule of controls, phases and stockpiles")
#: Spacing in text heights (capital heights): between rows, between columns, between tables, and from the
#: drawing's edge to the tables.
SPACING = {"row": 1.8, "column": 2.0, "table": 3.0, "margin": 6.0}


@dataclass(frozen=True)
class Table:
    """A table: its title, its column heads and its rows (text)."""

    title: str
    heads: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def plan_tables(plan: Plan) -> list[Table]:
    """The plan's tables (see the module notes); a table with no rows is left out.

    Parameters
    ----------
    plan : geosite.plan.Plan
        The site's plan.

    Returns
    -------
    list of Table
        Controls, phases and stockpiles.
    """
    from geosite.plan.table import schedule

    controls = tuple(
        (
            r.tags,
            r.what.upper(),
            r.standard,
            "" if r.amount is None or r.unit is None else pay_text(r.amount, r.unit),
            r.phase or "",
            cad_text("install", r.install),
            cad_text("remove", r.remove),
        )
        for r in schedule(plan)
    )
    phases = tuple(
        (
            ph.key,
            cad_text("start", ph.start),
            cad_text("end", ph.end),
            cad_text("stabilized", ph.stabilized),
            f"{ph.area_sqft / 43_560.0:.2f}",
        )
        for ph in plan.phases
    )
    out = [
        Table(
            f"SCHEDULE OF CONTROLS ({plan.source.upper()})",
            ("TAGS", "CONTROL", "STANDARD", "QUANTITY", "PHASE", "INSTALL", "REMOVE"),
            controls,
        ),
        Table("PHASES", ("PHASE", "START", "END", "STABILIZED", "ACRES"), phases),
        Table("STOCKPILES", ("ID", "NAME", "MATERIAL", "DAYS"), _pile_rows(plan)),
    ]
    return [t for t in out if t.rows]


def _pile_rows(plan: Plan) -> tuple[tuple[str, ...], ...]:
    """The stockpiles' rows: id, name, material, days."""
    piles = plan.piles
    if piles is None:
        return ()
    return tuple(
        (
            cad_text("id", r.get("id")) or str(i + 1),
            cad_text("name", r.get("name")),
            cad_text("material", r.get("material")),
            cad_text("days", r.get("days")),
        )
        for i, (_, r) in enumerate(piles.iterrows())
    )


def write_tables(
    msp: Any, tables: Sequence[Table], at: tuple[float, float], height: float, style: str
) -> tuple[float, float, float, float]:
    """Write ``tables`` one under another, their top left at ``at`` (CRS units), text ``height`` high
    (capital height, CRS units) in text style ``style``; returns the extent written (x0, y0, x1, y1).
    """
    layer, aci, what = TABLE_LAYER
    if layer not in msp.doc.layers:
        msp.doc.layers.add(layer, color=aci).description = what
    x0, y = at
    right = x0
    for t in tables:
        y -= height
        _cell(msp, t.title, (x0, y), height, style=style, where=(t.title, -1, "title"))
        right = max(right, x0 + _width(t.title, height))
        cols = [max(_width(r[k], height) for r in (t.heads, *t.rows)) for k in range(len(t.heads))]
        for i, row in enumerate((t.heads, *t.rows)):
            y -= SPACING["row"] * height
            x = x0
            for k, cell in enumerate(row):
                _cell(msp, cell, (x, y), height, style=style, where=(t.title, i, t.heads[k]))
                x += cols[k] + SPACING["column"] * height
            right = max(right, x)
        y -= SPACING["table"] * height
    return x0, y, right, at[1]


def _width(text: str, height: float) -> float:
    """A cell's width as its TEXT is fitted (the DXF's Helvetica estimate)."""
    return max(text_block(text, height).line_widths, default=0.0)


def _cell(
    msp: Any, text: str, at: tuple[float, float], height: float, *, style: str, where: tuple[str, int, str]
) -> None:
    """One cell: a TEXT fitted from ``at`` (its baseline's left end) to its width; ``where`` its table,
    row and column (its XDATA).
    """
    from ezdxf.enums import TextEntityAlignment

    w = _width(text, height)
    if not text.strip() or w <= 0:
        return
    t = msp.add_text(dxf_text(text), height=height, dxfattribs={"layer": TABLE_LAYER[0], "style": style})
    t.set_placement(at, (at[0] + w, at[1]), align=TextEntityAlignment.FIT)
    table, row, column = where
    t.set_xdata(
        "GEOSITE",
        [(1000, dxf_text(f"{k}={v}")[:255]) for k, v in (("table", table), ("row", row), ("column", column))],
    )
