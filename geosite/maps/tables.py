"""Tables on a sheet (the schedule, the soil map units, the keyed labels) set in Helvetica in columns.

A table is a list of rows; a row holds its cells separated by a tab (``"C5-C6\\tsilt fence\\t219 LF"``), a
row without a tab is a line of text across the table (wrapped to its width), an empty row a gap. Each run
of rows with the same number of cells shares its columns: each as wide as its widest cell, measured by
Helvetica's own metrics (the PDF's standard font the sheet is printed in), right-aligned where every cell
under the heading is a number or a quantity (``219 LF``, ``0.60``, ``2027-05-02``). Where the columns are
wider than the room, the text columns share what the number columns leave, the widest wrapped (a row then
takes more lines; never a cell cut across columns).

Hand-written rather than matplotlib's ``Axes.table``: that lays cells out in axes fractions with its own
autoscaling font, and a sheet needs the text at a fixed size in inches, each line a searchable text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from geosite.maps.symbology import FONT, INK

#: The space between two columns, inches of paper.
COLUMN_GAP_IN = 0.1
#: A line's pitch, in text sizes.
LINE_PITCH = 1.25
#: A cell that reads as a number or a quantity (right-aligned in its column).
_NUMERIC = re.compile(r"^[-+<>~]?[\d.,:/-]+( ?[A-Za-z%]{1,3})?$|^-$")


@lru_cache(maxsize=4)
def _metrics(bold: bool) -> Any:
    from matplotlib.font_manager import FontProperties

    from geosite.maps.printing import _afm

    return _afm(FontProperties(family=FONT, weight="bold" if bold else "normal"))


def text_width_in(text: str, size: float, *, bold: bool = False) -> float:
    """The width of ``text`` set in Helvetica at ``size`` points, inches (its Adobe font metrics).

    Parameters
    ----------
    text : str
        One line of text.
    size : float
        The text size, points.
    bold : bool
        Helvetica-Bold's widths.

    Returns
    -------
    float
        The width, inches.
    """
    if not text:
        return 0.0
    _, _, w, _, _ = _metrics(bold).get_str_bbox_and_descent(text)
    return float(w) / 1000.0 * size / 72.0


def wrap_in(text: str, width_in: float, size: float, *, bold: bool = False) -> list[str]:
    """``text`` broken at spaces into lines no wider than ``width_in`` inches at ``size`` points (a word
    wider than that alone on its line); its own line breaks kept.

    Parameters
    ----------
    text : str
        The text.
    width_in : float
        The room, inches.
    size : float
        The text size, points.
    bold : bool
        Helvetica-Bold's widths.

    Returns
    -------
    list of str
        The lines.
    """
    out: list[str] = []
    for para in text.split("\n"):
        line = ""
        for word in para.split(" "):
            trial = f"{line} {word}" if line else word
            if line and text_width_in(trial, size, bold=bold) > width_in:
                out.append(line)
                line = word
            else:
                line = trial
        out.append(line)
    return out


@dataclass(frozen=True)
class Placed:
    """One line of a table as printed: its text, left or right edge from the table's left, inches, the
    line's number from the top, and its alignment.
    """

    text: str
    x_in: float
    line: int
    align: str  # "left" or "right": x_in is the text's left or right edge


def _runs(rows: list[str]) -> list[tuple[int, list[list[str]] | str]]:
    """The rows grouped: (cells per row, the rows' cells) for each run of rows with the same number of
    tab-separated cells, (1, the line) for each row without a tab.
    """
    out: list[tuple[int, Any]] = []
    for r in rows:
        if "\t" not in r:
            out.append((1, r))
            continue
        cells = r.split("\t")
        if out and isinstance(out[-1][1], list) and out[-1][0] == len(cells):
            out[-1][1].append(cells)
        else:
            out.append((len(cells), [cells]))
    return out


def _columns(cells: list[list[str]], width_in: float, size: float) -> tuple[list[float], list[str], set[int]]:
    """Each column's width (inches) and alignment, and the text columns wrapped to fit ``width_in``: the
    room the number columns leave is shared among the text columns, each given what it needs up to an
    equal share of what is left (the narrow ones whole, the wide ones wrapped), never under
    :data:`MIN_COLUMN_IN`.
    """
    n = len(cells[0])
    bold_head = len(cells) > 1
    widths = [
        max(text_width_in(row[k], size, bold=bold_head and i == 0) for i, row in enumerate(cells))
        for k in range(n)
    ]
    body = cells[1:] if len(cells) > 1 else cells
    align = [
        "right" if all(_NUMERIC.match(r[k].strip()) or not r[k].strip() for r in body) else "left"
        for k in range(n)
    ]
    if sum(widths) + COLUMN_GAP_IN * (n - 1) <= width_in:
        return widths, align, set()
    texts = sorted((k for k in range(n) if align[k] == "left"), key=lambda k: widths[k])
    room = width_in - COLUMN_GAP_IN * (n - 1) - sum(widths[k] for k in range(n) if align[k] != "left")
    wrapped: set[int] = set()
    for i, k in enumerate(texts):
        share = max(room / (len(texts) - i), MIN_COLUMN_IN)
        if widths[k] > share:
            widths[k] = share
            wrapped.add(k)
        room -= widths[k]
    return widths, align, wrapped


#: The narrowest a wrapped text column is made, inches.
MIN_COLUMN_IN = 0.6


def layout_table(rows: list[str], width_in: float, size: float) -> list[Placed]:
    """Where each line of ``rows`` goes in a table ``width_in`` inches wide at ``size`` points (see the
    module notes); a run's first row of several is its heading (set in bold).

    Parameters
    ----------
    rows : list of str
        The table's rows.
    width_in : float
        The room, inches.
    size : float
        The text size, points.

    Returns
    -------
    list of Placed
        Every line of text, in reading order.
    """
    out: list[Placed] = []
    line = 0
    for _, run in _runs(rows):
        if isinstance(run, str):
            for t in wrap_in(run, width_in, size) if run else [""]:
                if t:
                    out.append(Placed(t, 0.0, line, "left"))
                line += 1
            continue
        widths, align, wrap = _columns(run, width_in, size)
        for i, cells in enumerate(run):
            used = 1
            x = 0.0
            for k, cell in enumerate(cells):
                bold = len(run) > 1 and i == 0
                parts = wrap_in(cell, widths[k], size, bold=bold) if k in wrap else [cell]
                for j, t in enumerate(parts):
                    if t:
                        edge = x + widths[k] if align[k] == "right" else x
                        out.append(Placed(t, edge, line + j, align[k] + ("-bold" if bold else "")))
                used = max(used, len(parts))
                x += widths[k] + COLUMN_GAP_IN
            line += used
    return out


def table_lines(rows: list[str], width_in: float, size: float) -> int:
    """How many lines ``rows`` take in a table ``width_in`` inches wide at ``size`` points."""
    placed = layout_table(rows, width_in, size)
    blank_tail = 0
    for r in reversed(rows):  # trailing gaps count, as drawn
        if r:
            break
        blank_tail += 1
    return (max((p.line for p in placed), default=-1) + 1) + blank_tail


def draw_table(
    target: Any, x0: float, y_top: float, rows: list[str], *, width_in: float, size: float, **kw: Any
) -> float:
    """Draw ``rows`` as a table whose top left is (``x0``, ``y_top``) inches on ``target`` (an axes in inch
    units, or a figure with ``transform=fig.dpi_scale_trans`` in ``kw``); every line one text of gid
    ``table``. Returns the height used, inches.

    Parameters
    ----------
    target : matplotlib.axes.Axes or matplotlib.figure.Figure
        What the text is put on (its ``text`` method).
    x0 : float
        The table's left edge, inches.
    y_top : float
        The table's top, inches.
    rows : list of str
        The rows (see the module notes).
    width_in : float
        The room, inches.
    size : float
        The text size, points.
    **kw : object
        Passed to every ``text`` call (``transform``).

    Returns
    -------
    float
        The height used, inches.
    """
    pitch = size * LINE_PITCH / 72
    placed = layout_table(rows, width_in, size)
    for p in placed:
        align, _, bold = p.align.partition("-")
        target.text(
            x0 + p.x_in,
            y_top - p.line * pitch - 0.8 * size / 72,
            p.text,
            fontsize=size,
            va="baseline",
            ha=align,
            fontweight="bold" if bold else "normal",
            gid="table",
            color=INK,
            family=FONT,
            **kw,
        )
    return table_lines(rows, width_in, size) * pitch


def widest_row_in(rows: list[str], size: float) -> float:
    """The natural width of the table's widest run of columns, inches (unwrapped), or of its widest word
    where it has no columns.
    """
    best = 0.0
    for _, run in _runs(rows):
        if isinstance(run, str):
            best = max(best, max((text_width_in(w, size) for w in run.split()), default=0.0))
        else:
            n = len(run[0])
            best = max(
                best,
                sum(max(text_width_in(r[k], size) for r in run) for k in range(n)) + COLUMN_GAP_IN * (n - 1),
            )
    return best


def cells(*values: Any) -> str:
    """One row of a table: ``values`` as its cells."""
    return "\t".join(str(v) for v in values)


__all__ = [
    "Placed",
    "cells",
    "draw_table",
    "layout_table",
    "table_lines",
    "text_width_in",
    "widest_row_in",
    "wrap_in",
]
