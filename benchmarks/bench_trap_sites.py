"""Where the proposed sediment traps lie (geosite.controls.trap_sites), measured on every round-trip site
and on any site folders given:

    .venv/bin/python benchmarks/bench_trap_sites.py [SITE_FOLDER ...]

Per site and trap: its DNR 1063 surface (sq ft), whether a position fits, how far its centre moved from
the outlet (ft), whether it lies in the disturbed area, the sq ft of it off the site, the ft of perimeter
fence (downslope, sideslope, hooks) and of other fence (interior rows, channel edges) inside it; and the
same two numbers for the circle the sheet drew before, centred on the outlet. The real-DEM round-trip
sites need the real DEMs (``$GEOSITE_REAL_DEMS``, see the README); without them they are skipped.
"""

from __future__ import annotations

import sys
import tempfile
import warnings
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[1] / "tests"))

PERIMETER = ("downslope", "sideslope", "hook")


def _fence_inside(fence, poly, fpu: float) -> tuple[float, float]:
    """(perimeter, other) fence length inside ``poly``, ft (half a foot in from its rim)."""
    if fence is None or poly is None:
        return 0.0, 0.0
    inner = poly.buffer(-0.5 / fpu)
    per = other = 0.0
    for side, g in zip(fence["side"], fence.geometry, strict=True):
        length = g.intersection(inner).length * fpu
        if side in PERIMETER:
            per += length
        else:
            other += length
    return per, other


def measure(name: str, folder: Path) -> None:
    """Print the traps of the site in ``folder``."""
    import geosite
    from geosite.controls.trap_sites import footprint

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = geosite.analyze(geosite.load_site(folder))
    fp = r.layers.get("sediment_basin_footprints")
    if fp is None or not len(fp):
        print(f"{name}: no traps")
        return
    fpu, site = r.site.ft_per_unit, r.site.boundary
    fence = r.layers.get("filter_fence")
    at = r.layers["sediment_basins"].set_index("outlet").geometry
    print(name)
    for t in fp.itertuples():
        old = footprint(at.loc[t.outlet], t.surface_sqft, fpu)
        old_off = old.difference(site).area * fpu**2
        old_per, _ = _fence_inside(fence, old, fpu)
        if t.placed:
            off = t.geometry.difference(site).area * fpu**2
            per, other = _fence_inside(fence, t.geometry, fpu)
            now = (
                f"moved {t.moved_ft:5.1f} ft, {'in' if t.in_disturbed else 'beside'} the disturbed area, "
                f"off site {off:6.1f} sq ft, perimeter fence inside {per:5.1f} ft, "
                f"other fence {other:5.1f} ft"
            )
        else:
            now = "NO ROOM"
        print(
            f"  outlet {t.outlet}: {t.surface_sqft:7,.0f} sq ft: {now}; "
            f"circle at the outlet: off site {old_off:6,.0f} sq ft, perimeter fence inside {old_per:5.1f} ft"
        )


def main(argv: list[str]) -> None:
    """Measure the round-trip sites, then the folders in ``argv``."""
    import pytest
    import test_round_trip as rt

    tmp = Path(tempfile.mkdtemp())
    for sample in rt.SAMPLES:
        measure(sample.name, sample)
    for name, build in rt.BUILT.items():
        try:
            folder = build(tmp / name)
        except pytest.skip.Exception as e:
            print(f"{name}: skipped ({e})")
            continue
        measure(name, folder)
    for arg in argv:
        measure(Path(arg).name, Path(arg))


if __name__ == "__main__":
    main(sys.argv[1:])
