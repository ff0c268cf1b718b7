"""The plan set: the three sheets (and the soil-loss sheet where NR 151.11's soil loss was computed) drawn
on one sheet size and scale, written into a folder.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from matplotlib import rc_context

from geosite.maps.construction import draw_construction
from geosite.maps.existing import draw_existing
from geosite.maps.final import draw_final
from geosite.maps.preview import PNG_DPI
from geosite.maps.sheets import LARGEST_SHEET, plan_sheets
from geosite.maps.soil_loss import draw_soil_loss

if TYPE_CHECKING:
    from geosite.maps.common import MapContext
    from geosite.symbols import PlacedLabel

MAP_FILES = {
    "existing": "existing_site_map.pdf",
    "construction": "construction_plan.pdf",
    "final": "final_conditions.pdf",
    "soil_loss": "soil_loss.pdf",  # where the set has it (geosite.maps.common.has_soil_loss_sheet)
}


@dataclass(frozen=True)
class _SetOptions:
    """What every map of a plan set shares: the scale (ft per inch), the margin (ft), datum and date."""

    scale_ft: float | None
    margin_ft: float | None
    vertical_datum: str | None
    date: str | None

    def context(self, result: Any, sheet: str, hillshade: bool) -> MapContext:
        """A map context for ``result`` on ``sheet`` with these options.

        Parameters
        ----------
        result : geosite.pipeline.AnalysisResult
            The analysis.
        sheet : str
            The sheet (``auto``, ``ANSI-C-landscape``).
        hillshade : bool
            Whether the map has shaded relief under it.

        Returns
        -------
        MapContext
            The context.
        """
        from geosite.maps.common import make_context

        return make_context(
            result,
            sheet=sheet,
            hillshade=hillshade,
            scale_ft=self.scale_ft,
            margin_ft=self.margin_ft,
            vertical_datum=self.vertical_datum,
            date=self.date,
        )


def render_plan_maps(
    result,
    out_dir: str | Path,
    sheet: str = "auto",
    scale_ft: float | None = None,
    *,
    margin_ft: float | None = None,
    hillshade: bool = True,
    vertical_datum: str | None = None,
    date: str | None = None,
    png_dpi: int | None = PNG_DPI,
    svg: bool = False,
    on_pdf: Callable[[Path], None] | None = None,
    on_labels: Callable[[dict[str, list[PlacedLabel]]], None] | None = None,
) -> list[Path]:
    """Write the three plan maps into ``out_dir``: existing_site_map.pdf, construction_plan.pdf and
    final_conditions.pdf, and soil_loss.pdf where NR 151.11's soil loss was computed
    (:func:`geosite.maps.common.has_soil_loss_sheet`), each with a PNG preview (``-N`` suffixes when
    tiled). All share the sheet the existing site map needs (the one with most to show) and the same
    scale, ``scale_ft`` feet per inch (None: the profile's, :attr:`geosite.rules.Profile.map_scale_ft`).
    Returns the files.

    ``out_dir`` is written into directly; the CLI wraps this in an atomic output folder. ``on_pdf`` is
    called with each PDF as soon as it is written (the map worker passes them on for their previews);
    ``on_labels`` once the sheets are drawn, before any is written, with each map's placed labels in model
    space (:class:`geosite.symbols.PlacedLabel`, by :data:`MAP_FILES` key: the DXF takes the construction
    plan's).
    """
    from geosite.maps.layout import RC
    from geosite.maps.printing import PngWriter
    from geosite.maps.render import save_sheets

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    kw = _SetOptions(scale_ft, margin_ft, vertical_datum, date)
    ctx = kw.context(result, sheet, hillshade)
    # render() returns the figures unsaved and says nothing of an overflow: said once below, if even the
    # largest sheet tried overflows
    drawn = _draw_set(result, ctx, kw, grow=str(sheet).strip().lower() == "auto")
    if on_labels is not None:
        on_labels({key: [lab for f in figs for lab in f.geosite.model_labels] for _, figs, key in drawn})
    files: list[Path] = []
    with PngWriter() as writer, rc_context(RC):  # each preview encoded while the next sheet is written
        for c, figs, key in drawn:
            for f in figs:
                written = save_sheets(c, f.geosite, out_dir / MAP_FILES[key], png_dpi, svg, writer=writer)
                files += written
                if on_pdf is not None:
                    on_pdf(written[0])
    return files


def _draw_set(result: Any, ctx: MapContext, kw: _SetOptions, grow: bool) -> list[tuple[MapContext, Any, str]]:
    """The three sheets drawn on one sheet size: the existing site map's, made larger (when ``grow``)
    while any sheet's panel overflows. Returns (context, figures, map key) per map.
    """
    from geosite.maps.render import render

    while True:
        drawn = [(ctx, render(ctx, draw_existing, None, "1"), "existing")]
        chosen = f"{ctx.plan.sheet.size}-{ctx.plan.sheet.orientation}"
        last = not grow or ctx.plan.sheet.size == LARGEST_SHEET
        for n, (key, draw) in enumerate(_later_sheets(result), start=2):
            c = _context_like(result, ctx, chosen, kw)
            drawn.append((c, render(c, draw, None, str(n)), key))
            over = any(
                f.geosite.notes and "overflows" in f.geosite.notes[-1] for _, figs, _ in drawn for f in figs
            )
            if over and not last:
                break  # the next sheet up, without drawing the rest on this one
        if not over or last:
            break
        ctx.plan = plan_sheets(
            ctx.extent, ctx.scale_ft, ctx.site.ft_per_unit, "auto", larger_than=ctx.plan.sheet
        )
    if over:
        logging.getLogger(__name__).warning(
            "map panel overflows on %s; choose a larger sheet", ctx.plan.sheet.label
        )
    return drawn


def _later_sheets(result: Any) -> list[tuple[str, Any]]:
    """The set's sheets after the existing site map, in their order: (map key, drawing function)."""
    from geosite.maps.common import has_soil_loss_sheet

    later = [("construction", draw_construction), ("final", draw_final)]
    return later + ([("soil_loss", draw_soil_loss)] if has_soil_loss_sheet(result) else [])


def _context_like(result: Any, ctx: MapContext, sheet: str, kw: _SetOptions) -> MapContext:
    """A context for another sheet of the set: the same DEM, read and traced once, at the set's scale (the
    first sheet's: on a sheet chosen by name, fitting anew would pick another scale for the others).
    """
    from dataclasses import replace

    c = replace(kw, scale_ft=ctx.scale_ft).context(result, sheet, False)
    c.share_terrain_from(ctx)
    return c


def write_plan_maps(result, out: str | Path, overwrite: bool = False, **options) -> list[Path]:
    """:func:`render_plan_maps` into the folder ``out``, written atomically (see
    :func:`geosite.io.output.atomic_dir`); ``options`` as for :func:`render_plan_maps`. Returns the files.
    """
    from geosite.io.output import atomic_dir

    out = Path(out)
    with atomic_dir(out, overwrite=overwrite) as tmp:
        files = render_plan_maps(result, tmp, **options)
    return [out / f.name for f in files]


__all__ = ["MAP_FILES", "render_plan_maps", "write_plan_maps"]
