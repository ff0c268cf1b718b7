"""Proposed diversions (B(6)(a)) through the analyze pipeline on a plane: a line along the upslope
edge of a disturbed area receiving more than 10,000 sq ft of fast sheetflow, none otherwise."""

from __future__ import annotations

import warnings

import pytest
from sitebuilder import RIDGE_Y, make_site, rect, ridge_plane

import geosite


def run(folder):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return geosite.analyze(geosite.load_site(folder))


@pytest.mark.parametrize(("upslope", "needed"), [(90.0, False), (400.0, True)])
def test_diversion_along_the_upslope_edge(tmp_path, upslope, needed):
    # 5 % plane falling south from a ridge; a 100 ft wide, 60 ft deep disturbed rectangle whose top edge
    # lies `upslope` ft below the top of the land draining to it, so its sheetflow area is 100 x 90 =
    # 9,000 sq ft (no diversion) or 100 x 400 = 40,000 sq ft (diversion: across 60 ft of bare soil at 5 %
    # the flow runs 0.60 ft/s, faster than 0.5 ft/s).
    dem = ridge_plane(5.0)
    top = RIDGE_Y - 1.0 - upslope
    folder = make_site(
        tmp_path / "s",
        {"site_boundary": [rect(0, -990, 1000, 990)], "disturbance": [rect(400, top - 60, 100, 60)]},
        dem=dem,
    )
    res = run(folder)
    (u,) = res.report["upslope"]
    assert u["sheetflow_area_sqft"] == pytest.approx(100 * upslope, rel=0.02)
    assert u["velocity_fps"] == pytest.approx(
        60 / (3600 * 0.007 * (0.05 * 60) ** 0.8 / (4.1**0.5 * 0.05**0.4)), rel=1e-6
    )
    assert u["diversion_required"] is needed
    (d,) = res.report["diversions"]
    assert d["required"] is needed
    lines = res.layers.get("diversions")
    if not needed:
        assert lines is None or len(lines) == 0
        return
    assert lines["length_ft"].sum() == pytest.approx(100.0, rel=0.05)
    # offset outward (upslope, north) of the top edge, never inside the disturbed area
    y_top = 200_000.0 + top
    for g in lines.geometry:
        assert g.bounds[1] >= y_top - 1e-6
        assert g.bounds[3] <= y_top + 10.0
    f = [f for f in res.findings if f.rule == "sheetflow_diversion_location"]
    assert f and f[0].citation == "B(6)(a)"
