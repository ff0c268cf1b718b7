"""Practices: each erosion control written once, placed and judged through one protocol, dispatched from
the profile.

- :mod:`~geosite.practices.base`: the protocol (:class:`Practice`: its descriptor, ``place`` and ``judge``),
  :class:`Outcome`, :class:`PayItem`, :class:`OutputLayer`;
- :mod:`~geosite.practices.context`: what every practice reads (:class:`Context`) and how a finding is born
  whole (:meth:`Context.finding`);
- :mod:`~geosite.practices.features`: one per-feature engine for requirements written ``for_each`` feature;
- one module per practice: :mod:`~geosite.practices.silt_fence` (edges, J-hooks, interior rows),
  :mod:`~geosite.practices.straw_bales`, :mod:`~geosite.practices.channel_fence` (channel-edge protection),
  :mod:`~geosite.practices.sediment_trap`, :mod:`~geosite.practices.sediment_basin`,
  :mod:`~geosite.practices.stockpile_setback`, :mod:`~geosite.practices.stockpile_barrier`,
  :mod:`~geosite.practices.stockpile_stabilization`, :mod:`~geosite.practices.tracking_pad`,
  :mod:`~geosite.practices.inlet_protection`, :mod:`~geosite.practices.diversion`,
  :mod:`~geosite.practices.dewatering`, :mod:`~geosite.practices.stabilization` (mulch, seed, cover),
  :mod:`~geosite.practices.erosion_mat`, :mod:`~geosite.practices.removal` (temporary BMPs removed);
- :mod:`~geosite.practices.registry`: the practices found by name; :mod:`~geosite.practices.validate`: a
  profile's practice keys, parameters and ``[controls]`` held against them;
- :mod:`~geosite.practices.stage`: the controls stage (:func:`measure_controls`).

The geometry each practice places and measures with is in :mod:`geosite.controls` (arrays and GeoDataFrames
in, no profile), usable alone from a notebook.
"""

from geosite.practices.base import Outcome, OutputLayer, PayItem, Practice
from geosite.practices.context import Context
from geosite.practices.registry import PRACTICES, catalogue, named, serving
from geosite.practices.stage import ControlsResult, measure_controls

__all__ = [
    "PRACTICES",
    "Context",
    "ControlsResult",
    "OutputLayer",
    "Outcome",
    "PayItem",
    "Practice",
    "catalogue",
    "measure_controls",
    "named",
    "serving",
]
