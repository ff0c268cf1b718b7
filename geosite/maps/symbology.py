"""How each layer is drawn.

Styles are plain data (matplotlib keyword values); the drawing code reads them and nothing else. Which
plan-content item a layer answers for, and its letter, is the village's profile's (``Profile.map_items``:
the full plan's items with ``map_layers``), so a new village's sheets need no code.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from geosite.practices import registry
from geosite.symbols import CAP_HEIGHT_EM, INK, Style, submitted_look

#: The sheets' text face: one of the PDF's 14 standard fonts, which every PDF reader has, so the PDF embeds
#: none (geosite.maps.printing measures text by its Adobe font metrics)
FONT = "Helvetica"
#: The smallest text on a sheet at print size: a capital letter 0.08 in high, the usual civil drafting
#: minimum (the "Leroy 80" lettering of plan sets; CAD text height is the capitals' height).
MIN_TEXT_IN = 0.08
#: The smallest size printed, points: the capitals :data:`MIN_TEXT_IN` high (Helvetica's capitals are
#: :data:`geosite.symbols.CAP_HEIGHT_EM` of its size), rounded up to a tenth (8.1 pt)
MIN_PT = math.ceil(MIN_TEXT_IN * 72 / CAP_HEIGHT_EM * 10) / 10
#: Text sizes, points: labels of the map's features, the panel's body text, headings
BODY_PT = 8.5
HEADING_PT = 11.0
WATER = "#2b7bba"
WATER_FILL = "#cfe6f6"


STYLES: dict[str, Style] = {
    # existing conditions
    "site_boundary": Style("polygon", "Site boundary", edge=INK, lw=1.6, ls=(0, (12, 3, 2, 3, 2, 3)), z=9),
    "map_margin": Style(
        "polygon", "Adjacent area shown ({margin} ft)", edge="#777777", lw=0.6, ls=(0, (4, 3)), z=8.9
    ),
    "lakes": Style("polygon", "Lakes and ponds", face=WATER_FILL, edge=WATER, lw=0.6, z=3),
    "streams": Style("line", "Streams", edge=WATER, lw=1.2, z=4.2),
    "wetlands": Style("polygon", "Wetlands", face="none", edge="#3f8f3f", lw=0.6, hatch="||", z=3.1),
    "channels": Style("line", "Channels and ditches (submitted)", edge=WATER, lw=0.9, ls=(0, (6, 2)), z=4.1),
    "floodplain": Style(
        "polygon", "100-year floodplain", face="none", edge="#5b8fd1", lw=0.6, hatch="\\\\\\\\", z=2.9
    ),
    "floodway": Style("polygon", "Floodway", face="none", edge="#1f4e9c", lw=0.8, hatch="xxxx", z=2.92),
    "flood_fringe": Style(
        "polygon", "Flood fringe", face="none", edge="#5b8fd1", lw=0.6, hatch="////", z=2.91
    ),
    "soils": Style(
        "polygon", "Soil map units (label: musym)", face="none", edge="#9a6b3f", lw=0.5, ls=(0, (2, 2)), z=2.5
    ),
    # outlines only: an opaque fill would hide the hillshade under it
    "vegetation": Style(
        "polygon",
        "Vegetative cover (label: cover)",
        face="none",
        edge="#7fae6a",
        lw=0.5,
        ls=(0, (1, 1.2)),
        z=1.5,
    ),
    "storm_inlets": Style(
        "point", "Storm drain inlets (label: name)", face="white", edge=INK, marker="s", size=3.5, z=7
    ),
    "natural_drainage": Style(
        "line",
        "Natural drainage paths (from the DEM): arrows point downslope, label: where the flow goes",
        edge="#2e86c1",
        lw=0.8,
        ls=(0, (1, 1.5)),
        z=4,
        extra={"arrows": 6.0},
    ),
    "upslope_areas": Style(
        "polygon",
        "Upslope drainage areas (label: D-infinity area, mean slope, cover; outline by D8)",
        face="none",
        edge="#c0392b",
        lw=0.8,
        ls=(0, (5, 2, 1, 2)),
        z=5,
    ),
    "upslope_entry_points": Style(
        "point",
        "Where upslope drainage enters (arrow: downslope, from the DEM)",
        face="#c0392b",
        edge="#c0392b",
        marker="v",
        size=3.5,
        z=7,
        extra={"arrow_point": 7.0},
    ),
    "utilities": Style(
        "line", "Utilities (label: name and size)", edge="#a03ca0", lw=0.8, ls=(0, (8, 2, 2, 2)), z=5.8
    ),
    "structures": Style(
        "polygon", "Structures (label: name, footprint)", face="#bdbdbd", edge=INK, lw=0.6, z=6
    ),
    "roads": Style(
        "line",
        "Roads, highways and paving (label: name, width)",
        face="#d9d9d9",
        edge="#555555",
        lw=1.4,
        z=5.5,
    ),
    "access_drives": Style(
        "line", "Access drives", face="#eeeeee", edge="#555555", lw=1.0, ls=(0, (3, 1.5)), z=5.6
    ),
    "contours": Style("line", "Contours, {interval} ft", edge="#9c6b30", lw=0.3, z=2.0),
    "index_contours": Style(
        "line", "Index contours, every {index} ft, labelled (ft)", edge="#7a4f1c", lw=0.8, z=2.05
    ),
    "hillshade": Style("polygon", "Hillshade (from the DEM)", face="#bbbbbb", edge="none", z=0.5),
    # construction
    "disturbance": Style(
        "polygon",
        "Land disturbance (label: phase, dates)",
        face="#f4d9a6",
        edge="#b5651d",
        lw=0.9,
        alpha=0.85,
        z=3.5,
    ),
    "stockpiles": Style(
        "polygon", "Soil stockpiles (label: days)", face="#c49a6c", edge="#5c3d1e", lw=0.8, hatch="...", z=6.5
    ),
    # the practices' layers: each practice's own looks (geosite.practices), with what labels keep clear of
    **registry.styles(),
    "bmps": Style(
        "point", "Submitted BMPs (label: type)", face="#27ae60", edge=INK, marker="P", size=6.0, z=8.4
    ),
    # final
    # hatched, not filled: a fill would read as one of the construction plan's phase colours
    "structures_proposed": Style(
        "polygon", "Proposed structures", face="white", edge="#922b21", lw=1.0, hatch="////", z=6.1
    ),
    "roads_proposed": Style("line", "New or changed roads", face="#f5cba7", edge="#a04000", lw=1.6, z=5.7),
    "utilities_proposed": Style("line", "New or changed utilities", edge="#a03ca0", lw=1.2, z=5.85),
    "stabilized": Style(
        "polygon",
        "Disturbed area, stabilized at completion",
        face="#d4efdf",
        edge="#1e8449",
        lw=0.6,
        ls=(0, (2, 2)),
        z=3,
    ),
}

#: The symbols map labels keep clear of (geosite.maps.labels.keep_clear), by style: ``footprint`` the
#: symbol as drawn (a filled polygon's area, a line with its marks), ``edge`` a polygon's outline only (its
#: ground may hold labels). A label may sit on its own feature only inside it (a footprint's name).
KEEP_CLEAR: dict[str, str] = {
    **dict.fromkeys(
        (
            "streams",
            "channels",
            "lakes",
            "wetlands",
            "structures",
            "structures_proposed",
            "stockpiles",
        ),
        "footprint",
    ),
    "site_boundary": "edge",
}
STYLES.update({k: dataclasses.replace(STYLES[k], clear=c) for k, c in KEEP_CLEAR.items()})

#: Map labels (geosite.maps.labels): placement order by kind (lower first), sizes in points, distances
#: in paper inches.
LABELS: dict[str, Any] = {
    "priority": {
        "inlet": 10,
        "road": 15,
        "water": 20,
        "utility": 25,
        "structure": 30,
        "phase": 35,
        "stockpile": 38,
        "control": 40,
        "upslope": 45,
        "floodplain": 50,
        "soil": 55,
        "vegetation": 60,
        "feature": 50,
        "contour": 70,
    },
    "size_pt": {"road": 9.0, "water": BODY_PT, "feature": BODY_PT, "small": MIN_PT, "contour": MIN_PT},
    "pad_in": 0.015,  # clear space kept around every label's box
    "frame_inset_in": 0.04,  # labels stay this far inside the map frame
    # positions tried off the feature, no farther: a label sits by its feature, or its key does
    # (geosite.maps.labels: the text then goes to the sheet's table of keyed labels)
    "ring_radii_in": (0.03, 0.1, 0.18, 0.28, 0.4, 0.55, 0.75),
    "halo_pt": 2.2,  # white halo stroke around the text
    "leader_pt": 0.45,  # a width no other line has: a leader is told from the linework in the PDF
    "contour_every_in": 5.0,  # an index contour's labels: one per piece 0.75 in or longer, then one per 5 in
    "contour_min_in": 0.75,
}

#: Floodplain zones (layer floodplain, attribute ``zone``): the style each is drawn in.
FLOOD_ZONES: dict[str, str] = {
    "floodway": "floodway",
    "fringe": "flood_fringe",
    "flood_fringe": "flood_fringe",
    "100yr": "floodplain",
}

#: Submitted BMPs (layer ``bmps``) are drawn in this green, each type with its practice's own symbol
#: (:attr:`geosite.practices.base.Practice.submitted`).


def submitted_style(bmp_type: str, kind: str) -> Style:
    """The symbol of a submitted BMP of ``bmp_type`` drawn as ``kind`` (polygon, line or point): the
    practice's own symbol (:func:`geosite.symbols.submitted_look`).
    """
    practice = registry.named(bmp_type)
    return submitted_look(bmp_type, dict(practice.submitted.get(kind, {})) if practice else {}, kind)
