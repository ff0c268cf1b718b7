"""geosite: erosion control plans for construction sites under Wisconsin village ordinances.

Light to import: heavy modules (terrain kernels, maps) load when first used.

>>> import geosite
>>> site = geosite.load_site("data/sample_sites/grantsburg_lot7")   # doctest: +SKIP
>>> result = geosite.analyze(site)                                  # doctest: +SKIP
>>> result.report["disturbed"]["area_acres"]                        # doctest: +SKIP
"""

from __future__ import annotations

__version__ = "0.1.0"

from typing import TYPE_CHECKING, Any

__all__ = ["__version__", "analyze", "load_profile", "load_site", "site_from_frames"]

if TYPE_CHECKING:  # pragma: no cover
    from geosite.pipeline import analyze
    from geosite.rules.profile import load_profile
    from geosite.site import load_site, site_from_frames

_LAZY = {
    "analyze": "geosite.pipeline",
    "load_site": "geosite.site",
    "site_from_frames": "geosite.site",
    "load_profile": "geosite.rules.profile",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'geosite' has no attribute {name!r}")
