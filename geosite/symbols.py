"""How a layer looks in every view: on the sheets, in QGIS and in CAD.

One look per thing drawn, as plain data: a :class:`Style` (matplotlib values: colours as hex, widths and
marker sizes in points, dash patterns, hatches) that the sheets draw with and the GeoPackages' QGIS
styles are written from, and a :class:`CadLook` (the National CAD Standard layer, its AutoCAD colour index
and linetype) with the :class:`Linetype` and :class:`Block` definitions the DXF needs. The practices
(:mod:`geosite.practices`) declare theirs beside their placement and judgement; the site's own layers'
are in :mod:`geosite.maps.symbology` and the DXF writer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

INK = "#1a1a1a"


@dataclass(frozen=True)
class Style:
    """A layer's look on the sheets (and, through it, in QGIS). ``kind`` is polygon, line or point; the
    rest are matplotlib values (``lw`` and ``size`` in points). ``clear``: what map labels keep clear of
    (``footprint``: the symbol as drawn; ``edge``: a polygon's outline only; "": nothing).
    """

    kind: str
    label: str
    face: str = "none"
    edge: str = INK
    lw: float = 0.6
    ls: Any = "-"
    hatch: str | None = None
    alpha: float = 1.0
    marker: str = "o"
    size: float = 4.0
    z: float = 2.0
    extra: dict[str, Any] = field(default_factory=dict)
    clear: str = ""


@dataclass(frozen=True)
class CadLook:
    """A CAD layer (National CAD Standard name, ``C-ESCP-SFNC-DOWN``), its AutoCAD colour index, its
    linetype and what it holds (the layer's description in the DXF).
    """

    layer: str
    colour: int
    linetype: str
    description: str


@dataclass(frozen=True)
class Linetype:
    """A linetype the DXF defines: its name, description and pattern in feet (the total length, then dashes
    > 0, gaps < 0 and dots 0), scaled to the drawing's unit when written.
    """

    name: str
    description: str
    pattern_ft: tuple[float, ...]


@dataclass(frozen=True)
class Block:
    """A point symbol the DXF defines: one drawing unit in radius, drawn with ``shapes`` (``("poly",
    [(x, y), ...])``, ``("line", ((x0, y0), (x1, y1)))`` or ``("circle", r)``) on layer 0, and the
    attribute ``tags`` its references carry (the columns of the layer they are read from).
    """

    name: str
    shapes: tuple[tuple[str, Any], ...]
    tags: tuple[str, ...] = ()
