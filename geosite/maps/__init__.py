"""Plan maps at exact scale: the existing site map, the site construction plan and the plan of final
site conditions (and, where NR 151.11's soil loss was computed, the soil-loss map), as vector PDF (print
master, fonts embedded) with PNG previews.

Every map is drawn at exactly 1 in = ``scale_ft`` ft: by default the largest standard engineer's scale
(1 in = 10, 20, 30, 40, 50, 60 or 100 ft) at which the site and its margin fit a sheet, never smaller than
the profile's chapter allows (Grantsburg's 100, Newburg's 20), on the smallest sheet that holds it there
(:func:`fit_sheets`), or tiled at the chapter's scale over several sheets with match lines and a key map;
``scale_ft`` given, exactly that scale (a smaller one than the chapter allows is refused).

Importing this package loads nothing heavy: each public name is imported from its module on first
use, and the drawing modules load matplotlib's Figure and its Agg/PDF backends only, never pyplot;
``import geosite`` does not import it at all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from geosite.maps.construction import render_construction_plan
    from geosite.maps.existing import render_existing_site_map
    from geosite.maps.final import render_final_conditions
    from geosite.maps.planset import MAP_FILES, render_plan_maps, write_plan_maps
    from geosite.maps.sheets import SHEET_SIZES_IN, Sheet, check_scale, fit_sheets, parse_sheet, plan_sheets
    from geosite.maps.soil_loss import render_soil_loss_map

#: Where each public name lives: loaded on first use, so ``geosite.maps.worker`` (and the parent
#: process of a run drawing its maps in a worker) never loads matplotlib.
_LAZY = {
    "MAP_FILES": "geosite.maps.planset",
    "render_plan_maps": "geosite.maps.planset",
    "write_plan_maps": "geosite.maps.planset",
    "render_construction_plan": "geosite.maps.construction",
    "render_existing_site_map": "geosite.maps.existing",
    "render_final_conditions": "geosite.maps.final",
    "render_soil_loss_map": "geosite.maps.soil_loss",
    "SHEET_SIZES_IN": "geosite.maps.sheets",
    "Sheet": "geosite.maps.sheets",
    "check_scale": "geosite.maps.sheets",
    "fit_sheets": "geosite.maps.sheets",
    "parse_sheet": "geosite.maps.sheets",
    "plan_sheets": "geosite.maps.sheets",
}


def __getattr__(name: str) -> Any:
    """A public name of the package, imported from its module on first use."""
    import importlib

    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # later lookups skip __getattr__
        return value
    raise AttributeError(f"module 'geosite.maps' has no attribute {name!r}")


__all__ = [
    "MAP_FILES",
    "SHEET_SIZES_IN",
    "Sheet",
    "check_scale",
    "fit_sheets",
    "parse_sheet",
    "plan_sheets",
    "render_construction_plan",
    "render_existing_site_map",
    "render_final_conditions",
    "render_plan_maps",
    "render_soil_loss_map",
    "write_plan_maps",
]
