"""Channel-edge protection: filter fence along both edges of a channel or area of concentrated runoff that
passes through the site (Grantsburg B(6)(c)[3]), inside the disturbed area and, outside it, along the
stretches the disturbed area's runoff reaches (:func:`geosite.controls.channel_edge_fences`).

What is built is silt fence (its rows go on the silt fence layer, ``side`` "channel", and are judged by the
same coverage test); this practice decides where, whether it is required here (its own requirement: its
conditions and the alternative it names), and whether the submitted barriers run along those edges.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import geopandas as gpd
import shapely

from geosite import controls
from geosite.grid import to_crs, to_dem_crs
from geosite.practices.base import Outcome, PayItem, Practice
from geosite.practices.context import mark
from geosite.practices.sediment_basin import SedimentBasin
from geosite.practices.silt_fence import FENCE_LAYER, GAPS_LAYER, ROLES, SiltFence, cover, route_of

if TYPE_CHECKING:
    from geosite.practices.context import Context
    from geosite.rules import Finding, Requirement


class ChannelFence(Practice):
    """Silt fence along the edges of a channel that passes through the site."""

    name = "channel_fence"
    title = "Channel-edge silt fence"
    standard = "DNR 1056"
    family = "barrier"
    serves = ("channel_fence",)
    controls = ("fence_channel_offset_ft", "fence_row_min_length_ft", "fence_cover_tolerance_ft")
    needs_dem = True
    after = (SiltFence.name, SedimentBasin.name)
    pay = PayItem("LF", "length", "along the channel edge (silt fence)", "DNR 1056")

    def place(self, ctx: Context, q: Requirement) -> Outcome:
        """The fences along the channel edges: the edge pieces inside the disturbed area (placed with the
        perimeter fence) and the stretches outside it that the disturbed area's runoff reaches.
        """
        out = Outcome(self.name, q.id)
        inside = _inside(ctx)
        chan = ctx.m.layers.get("channels")
        if ctx.flow is None or inside is None:
            return out
        lines = inside
        if chan is not None and len(chan):
            lines = _with_outside(ctx, inside, to_crs(chan, ctx.flow.dem.crs))
        else:
            ctx.m.set("hydrology.channels_receiving_disturbed_runoff", 0)  # no channel traced on the DEM
        route = route_of(ctx, q)
        required = route.required and ctx.open(q)
        length = float(lines["length_ft"].sum()) if len(lines) else 0.0
        out.report["channel_fence"] = {"required": required, "route": route.why, "channel_length_ft": length}
        out.layers[FENCE_LAYER] = mark(lines, required if route.required else False)
        out.shared.update(route=route, lines=lines)
        out.proposed = [
            {
                "type": SiltFence.name,
                "practice": ROLES["channel"],
                "standard": SiltFence.standard,
                "geometry": g,
                "side": "channel",
            }
            for g in lines.geometry
            if g is not None and not g.is_empty
        ]
        if len(lines):
            status_words = "required " if required else ""
            out.findings.append(
                ctx.finding(
                    q,
                    "channel_fence_location",
                    "info",
                    f"Silt fence {status_words}({q.citation}) along {length:,.0f} ft of channel edges where "
                    "the disturbed area's runoff reaches the channel"
                    + ("." if route.required else f"; shown for reference: {route.why}."),
                    values={"channel_length_ft": length},
                    geometry=shapely.union_all(lines.geometry.values),
                    layer=FENCE_LAYER,
                )
            )
        return out

    def judge(self, ctx: Context, q: Requirement, placed: Outcome) -> list[Finding]:
        """The submitted barriers along the channel-edge stretches placed."""
        route, lines = placed.shared.get("route"), placed.shared.get("lines")
        if route is None or not route.required or lines is None or not len(lines) or ctx.flow is None:
            return []
        if ctx.bmps is None:
            return [
                ctx.finding(
                    q,
                    "channel_fence_submitted",
                    "not_assessed",
                    f"No bmps layer submitted: {lines['length_ft'].sum():,.0f} ft of channel-edge fence is "
                    "required and cannot be checked.",
                    settle="a bmps layer with the plan's controls",
                    geometry=shapely.union_all(lines.geometry.values),
                    layer=FENCE_LAYER,
                )
            ]
        got = cover(ctx, ctx.flow, lines)
        cov, gaps = got.summary, got.gaps
        placed.shared["covered"] = cov["gap_length_ft"] <= 0.0
        prev = placed.layers.get(GAPS_LAYER)
        placed.layers[GAPS_LAYER] = gaps if prev is None else gpd.pd.concat([prev, gaps], ignore_index=True)
        ok = cov["gap_length_ft"] <= 0.0
        return [
            ctx.finding(
                q,
                "channel_fence_submitted",
                "pass" if ok else "fail",
                "Submitted silt fence / straw bales run along every channel-edge stretch the disturbed "
                "area's "
                "runoff reaches."
                if ok
                else f"Channel-edge fence missing along {cov['gap_length_ft']:,.0f} ft of the "
                f"{cov['required_length_ft']:,.0f} ft required ({len(gaps)} "
                f"gap{'s' if len(gaps) != 1 else ''}).",
                required=True,
                values=dict(cov),
                submitted=f"{cov['covered_length_ft']:,.0f} ft of the channel edges covered",
                geometry=None if ok else shapely.union_all(gaps.geometry.values),
                layer=GAPS_LAYER,
            )
        ]


def _inside(ctx: Context) -> gpd.GeoDataFrame | None:
    """The channel-edge pieces the perimeter fence's placement drew inside the disturbed area (site CRS;
    None when the perimeter fence was not placed).
    """
    for o in ctx.outcomes.values():
        if "channel_sides" in o.shared:
            got: gpd.GeoDataFrame = o.shared["channel_sides"]
            return got.reset_index(drop=True)
    return None


def _with_outside(ctx: Context, inside: gpd.GeoDataFrame, chan_dem: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    """``inside`` with the channel-edge fences outside the disturbed polygons (site CRS), where its runoff
    reaches the channels of ``chan_dem`` (DEM CRS).
    """
    site, flow = ctx.site, ctx.flow
    assert flow is not None  # placed only with a DEM
    out = controls.channel_edge_fences(
        to_dem_crs(site.disturbed, site, flow.dem),
        to_dem_crs(site.boundary, site, flow.dem),
        flow.dem,
        flow.fg,
        chan_dem,
        threshold_sqft=float(ctx.profile.value("terrain", "channel_threshold_sqft")),
        offset_ft=float(ctx.control("fence_channel_offset_ft")),
        min_piece_ft=float(ctx.control("fence_row_min_length_ft")),
    )
    ctx.m.set("hydrology.channels_receiving_disturbed_runoff", int(out.attrs.get("segments_reached", 0)))
    if not len(out):
        return inside
    out = to_crs(out, site.crs)
    out["polygon_id"] = None
    out["length_ft"] = out.geometry.length * site.ft_per_unit
    cols = ["side", "polygon_id", "geometry", "length_ft"]
    return gpd.GeoDataFrame(
        gpd.pd.concat([inside, out[cols]], ignore_index=True), geometry="geometry", crs=site.crs
    )


def covered(ctx: Context, placed: Outcome | None) -> bool:
    """Whether submitted barriers cover every channel-edge stretch placed, by the coverage test every fence
    requirement is judged by, whatever route the fences take (B(6)(a) asks for the channel's protection
    either way); False where no stretch is placed.
    """
    lines = None if placed is None else placed.shared.get("lines")
    if lines is None or not len(lines) or ctx.flow is None:
        return False
    if "covered" not in placed.shared:  # type: ignore[union-attr]
        cov = cover(ctx, ctx.flow, lines).summary
        placed.shared["covered"] = cov["gap_length_ft"] <= 0.0  # type: ignore[union-attr]
    return bool(placed.shared["covered"])  # type: ignore[union-attr]
