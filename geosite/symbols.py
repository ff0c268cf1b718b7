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
#: A capital letter's height in the sheets' Helvetica, in ems (its AFM's CapHeight, 718/1000): a DXF TEXT's
#: height is its capitals', a sheet's font size its em.
CAP_HEIGHT_EM = 0.718
#: A text line's ink about its baseline, in capital heights: descenders below, accents above.
TEXT_DESCENT, TEXT_ASCENT = 0.3, 1.05


def line_offsets(n: int, pitch: float, height: float) -> tuple[float, ...]:
    """The baselines of ``n`` lines of text filling a block ``n * pitch`` high, from its centre (top line
    first, negative below), each line's ink (:data:`TEXT_DESCENT`, :data:`TEXT_ASCENT`) centred in its
    band: how a sheet's label, measured as a box, is laid out as lines of ``height`` capitals in CAD.

    Parameters
    ----------
    n : int
        The number of lines.
    pitch : float
        The distance from one line's band to the next (any length unit).
    height : float
        The capitals' height (the same unit).

    Returns
    -------
    tuple of float
        Each baseline's offset from the block's centre.
    """
    mid = (TEXT_ASCENT - TEXT_DESCENT) * height / 2
    return tuple(n * pitch / 2 - (i + 0.5) * pitch - mid for i in range(n))


#: what a submission shows is drawn in this green (its practice's own symbol, in this colour)
SUBMITTED = "#1e8449"


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


@dataclass(frozen=True)
class PlacedLabel:
    """A label where a view placed it, in model space (the site CRS): what the construction sheet's label
    placement chose (:func:`geosite.maps.labels.place`), handed to the DXF so its text sits where the sheet's
    does, or a label the DXF placed itself.

    The text is a block of lines centred on (``x``, ``y``) and turned ``rotation_deg`` counter-clockwise;
    each line is centred on the block's axis, ``line_widths[i]`` wide, its baseline ``line_offsets[i]``
    from the centre across the text (negative: below). Lengths are CRS units.

    Attributes
    ----------
    text : str
        The label, lines joined by newlines.
    x, y : float
        The text block's centre, CRS units.
    rotation_deg : float
        Its angle, degrees counter-clockwise from the x axis.
    height : float
        Its capital letters' height, CRS units (a DXF TEXT's height).
    line_widths : tuple of float
        Each line's width, CRS units, top line first.
    line_offsets : tuple of float
        Each line's baseline from the centre across the text, CRS units.
    size_pt : float
        Its size on the sheet, points (0 for a label the sheet did not place).
    units_per_inch : float
        The sheet's scale, CRS units per inch of paper.
    kind : str
        What it names, in the sheets' words (``phase``, ``stockpile``, ``control``, ``road``, ``contour``).
    names : str
        The plan item it names where the drawing code said so (``control:12``, ``pile:3``); "" otherwise.
    feature_wkb : bytes or None
        The geometry it names (CRS units, WKB), where known.
    leader : tuple of float or None
        The leader drawn from the text to its feature (x0, y0, x1, y1, CRS units); None where it sits on it.
    window : tuple of float or None
        The ground the sheet shows (x0, y0, x1, y1, CRS units): the feature named is cut to it.
    """

    text: str
    x: float
    y: float
    rotation_deg: float
    height: float
    line_widths: tuple[float, ...]
    line_offsets: tuple[float, ...]
    size_pt: float = 0.0
    units_per_inch: float = 0.0
    kind: str = ""
    names: str = ""
    feature_wkb: bytes | None = None
    leader: tuple[float, float, float, float] | None = None
    window: tuple[float, float, float, float] | None = None


@dataclass(frozen=True)
class Symbol:
    """How one kind of control is drawn on the sheets and in QGIS: its legend ``key`` (one legend row per
    key), its :class:`Style` and ``where`` it applies, as (attribute, value) pairs a control must carry
    beyond its practice (a fence's ``side``); empty: every other control of the practice.
    """

    key: str
    style: Style
    where: tuple[tuple[str, Any], ...] = ()

    def fits(self, attrs: Any) -> bool:
        """Whether a control with attributes ``attrs`` (a mapping) is drawn with this symbol."""
        return all(attrs.get(k) == v for k, v in self.where)


def submitted_look(name: str, shape: dict[str, Any], kind: str) -> Style:
    """The symbol of a submitted control of the practice ``name`` drawn as ``kind`` (polygon, line or
    point): its practice's own shape (``shape``: a fence's x, a basin's hatch, a pad's stone; the Style's
    attributes) in :data:`SUBMITTED` green, so the map and its legend swatch are the same thing.
    """
    label = f"Submitted {name.replace('_', ' ')} (label: name or type)"
    if kind == "line":
        o = {"lw": 1.2, **shape}
        return Style(
            "line",
            label,
            edge=SUBMITTED,
            lw=o["lw"],
            z=8.2,
            extra=dict(o.get("extra", {})),
            clear="footprint",
        )
    if kind == "polygon":  # an area practice (mulch, mat: no face) keeps labels off its outline only
        o = {"face": "none", "hatch": None, **shape}
        return Style(
            "polygon",
            label,
            face=o["face"],
            edge=SUBMITTED,
            lw=1.0,
            hatch=o["hatch"],
            z=6.6,
            clear="footprint" if o["face"] != "none" else "edge",
        )
    return Style(
        "point", label, face="white", edge=SUBMITTED, marker=shape.get("marker", "o"), size=6.0, z=8.4
    )
