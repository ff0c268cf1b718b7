"""The practices geosite knows, found by name (the table every other part of geosite reads them from).

Each practice is one module of this package with one :class:`~geosite.practices.base.Practice` subclass
(:data:`PRACTICES`, in the order the sheets' legends list them); a profile's requirement names the one that
serves it by its ``practice`` key (:func:`serving`), a submitted ``bmps`` feature the one it is by its
``type`` (:func:`named`).
"""

from __future__ import annotations

from typing import Any

from geosite.errors import ProfileError
from geosite.io.output import LayerSchema
from geosite.practices.base import OutputLayer, Practice
from geosite.practices.channel_fence import ChannelFence
from geosite.practices.context import Catalogue
from geosite.practices.dewatering import Dewatering
from geosite.practices.diversion import Diversion
from geosite.practices.erosion_mat import ErosionMat
from geosite.practices.inlet_protection import InletProtection
from geosite.practices.removal import TemporaryRemoval
from geosite.practices.sediment_basin import SedimentBasin
from geosite.practices.sediment_trap import SedimentTrap
from geosite.practices.silt_fence import SiltFence
from geosite.practices.stabilization import Stabilization
from geosite.practices.stockpile_barrier import StockpileBarrier
from geosite.practices.stockpile_setback import StockpileSetback
from geosite.practices.stockpile_stabilization import StockpileStabilization
from geosite.practices.straw_bales import StrawBales
from geosite.practices.tracking_pad import TrackingPad
from geosite.symbols import Block, CadLook, Linetype, Style

#: every practice, in the order the sheets list them
PRACTICES: tuple[Practice, ...] = (
    StockpileSetback(),
    SedimentBasin(),
    SedimentTrap(),
    TrackingPad(),
    Diversion(),
    SiltFence(),
    ChannelFence(),
    StrawBales(),
    StockpileBarrier(),
    InletProtection(),
    Stabilization(),
    ErosionMat(),
    Dewatering(),
    StockpileStabilization(),
    TemporaryRemoval(),
)
_BY_NAME = {p.name: p for p in PRACTICES}
_BY_KEY = {key: p for p in PRACTICES for key in p.serves}
assert len(_BY_NAME) == len(PRACTICES), "two practices share a name"
assert len(_BY_KEY) == sum(len(p.serves) for p in PRACTICES), "two practices serve one requirement key"


def named(name: str) -> Practice | None:
    """The practice called ``name`` (a submitted ``bmps`` feature's ``type``); None for one geosite does not
    know.
    """
    return _BY_NAME.get(str(name).strip().lower())


def serving(key: str) -> Practice:
    """The practice that places and judges requirements of practice key ``key`` (a :class:`ProfileError`
    naming the known keys for another: the profile's validation catches it first).
    """
    if key not in _BY_KEY:
        raise ProfileError(f"no practice serves {key!r}; known: {', '.join(sorted(_BY_KEY))}")
    return _BY_KEY[key]


def practice_keys() -> tuple[str, ...]:
    """Every practice key a profile's requirement may name."""
    return tuple(_BY_KEY)


def catalogue() -> Catalogue:
    """The ``bmps`` types of each family of practices, and those that stay after stabilization."""
    fams: dict[str, tuple[str, ...]] = {}
    for p in PRACTICES:
        if p.family:
            fams[p.family] = (*fams.get(p.family, ()), p.name)
    return Catalogue(fams, kept=tuple(p.name for p in PRACTICES if not p.temporary))


def layer_owners() -> dict[str, Practice]:
    """Each layer a practice writes -> the practice that declares it."""
    return {layer.name: p for p in PRACTICES for layer in p.layers}


def styles() -> dict[str, Style]:
    """Every practice's sheet styles, by look name (the sheets draw with them; QGIS's are written from
    them).
    """
    return {k: v for p in PRACTICES for k, v in p.looks.items()}


def layer_schemas() -> dict[str, LayerSchema]:
    """The layers the practices write, each with its one geometry type and fields (derived.gpkg's schema)."""
    return {layer.name: LayerSchema(layer.geometry, layer.fields) for p in PRACTICES for layer in p.layers}


def legend_rules() -> dict[str, tuple[tuple[str, str, tuple[str, Any] | None], ...]]:
    """Each practice layer's legend in QGIS: its rules as (label, look name, where)."""
    return {layer.name: layer.rules for p in PRACTICES for layer in p.layers}


def cad_layers() -> dict[str, CadLook]:
    """Each practice layer's CAD look, keyed ``layer`` and ``layer:value`` (by its ``cad_field``)."""
    out: dict[str, CadLook] = {}
    for p in PRACTICES:
        for layer in p.layers:
            for value, look in layer.cad.items():
                out[f"{layer.name}:{value}" if value else layer.name] = look
    return out


def output_layer(name: str) -> OutputLayer | None:
    """The practice layer called ``name`` (None for a layer no practice writes)."""
    return next((layer for p in PRACTICES for layer in p.layers if layer.name == name), None)


def blocks() -> tuple[Block, ...]:
    """The point symbols the practices define for CAD."""
    return tuple(b for p in PRACTICES for b in p.blocks)


def linetypes() -> tuple[Linetype, ...]:
    """The linetypes the practices define for CAD."""
    return tuple(lt for p in PRACTICES for lt in p.linetypes)
