"""The layers and styles of derived.gpkg: the site's and the analysis'
(:data:`geosite.io.output.DERIVED_SCHEMA`, :data:`geosite.io.qgis_styles.LAYER_RULES`) and each
practice's, read from its descriptor (:class:`geosite.practices.base.OutputLayer`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from geosite.io.output import DERIVED_SCHEMA, LayerSchema
from geosite.io.qgis_styles import Rule, layer_rules
from geosite.practices import registry
from geosite.practices.silt_fence import FENCE_LAYER, GAPS_LAYER


def derived_schema() -> dict[str, LayerSchema]:
    """The fixed schema of derived.gpkg: the site's and the analysis' layers, then the practices'."""
    return {**DERIVED_SCHEMA, **registry.layer_schemas()}


def derived_styles(symbology: Mapping[str, Any]) -> dict[str, list[Rule]]:
    """The QGIS styles of derived.gpkg, from the sheets' styles ``symbology`` (name -> Style: colours as hex,
    widths
    and marker sizes in points) and each layer's legend rules (the practices' from their descriptors).
    """
    out = layer_rules(symbology, registry.legend_rules())
    for name, rules in out.items():
        spec = registry.output_layer(name)
        if spec is not None and spec.qgis_label and rules:
            rules[0] = dataclasses.replace(rules[0], label_by=spec.qgis_label)
    return out


def findings_context() -> dict[str, LayerSchema]:
    """The context layers findings.gpkg carries beside the findings: the site, the disturbed area, and the
    perimeter fence placed with the gaps a submission leaves in it (derived.gpkg's schemas).
    """
    schema = derived_schema()
    return {n: schema[n] for n in ("site_boundary", "disturbed_area", FENCE_LAYER, GAPS_LAYER)}


def sheet_styles() -> dict[str, Any]:
    """The sheets' layer styles (:data:`geosite.maps.symbology.STYLES`), for the QGIS styles the
    GeoPackages carry. The symbology module is plain data: unless the maps package is loaded already, it
    is read on its own, without the package's matplotlib (0.3-0.4 s a run without maps would pay).
    """
    import importlib.util
    import sys

    if "geosite.maps" in sys.modules:
        from geosite.maps.symbology import STYLES

        return STYLES
    name = "geosite._sheet_symbology"
    if name not in sys.modules:
        here = Path(__file__).parents[1] / "maps" / "symbology.py"
        spec = importlib.util.spec_from_file_location(name, here)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {name} from geosite/maps/symbology.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while the class is made
        spec.loader.exec_module(module)
    return sys.modules[name].STYLES
