#!/usr/bin/env python
"""Generate geosite's two bundled sample sites, deterministically.

    .venv/bin/python scripts/make_sample_sites.py [--out data/sample_sites] [--only grantsburg_lot7]

Writes, for each site, a folder in the site-folder format (docs/site_folder.md):

* ``site.toml``   -- name, jurisdiction, CRS, DEM path and vertical unit, applicant, maintainer, project;
* ``dem.tif``     -- existing-ground DEM, 2-ft cells, float32, DEFLATE + floating-point predictor, 256x256
  tiles, nodata -9999;
* ``layers.gpkg`` -- one GeoPackage with the vector layers, each with an integer ``id`` column.

Sites (all names, people and addresses fictional; soils illustrative, not SSURGO):

``grantsburg_lot7``  Village of Grantsburg, EPSG:7593 (WISCRS Burnett, US ft), DEM heights in US ft.
    A 1.1-acre residential lot on a hillside above a small creek: ~0.6 acre disturbed.
``belgium_commons``  Village of Belgium, EPSG:7613 (WISCRS Kenosha/Milwaukee/Ozaukee/Racine, US ft),
    DEM heights in *metres* on the US-ft grid. A ~22-acre mixed development, three phases, ~16 acres
    disturbed in all and ~13.1 acres at one time.

Determinism: every random number comes from a seeded ``numpy.random.default_rng``; coordinates are
rounded to 0.01 ft and heights to 0.001 of the file's vertical unit; the GeoPackage's ``last_change``
timestamps are pinned with GDAL's OGR_CURRENT_DATE; no other timestamps are written. Two runs on the same
machine give byte-identical files.

How the terrain is built (all in a local frame: feet, x east, y north, origin at the parcel's SW corner,
then shifted to real WISCRS coordinates computed with pyproj from the site's lon/lat):

* a straight valley axis; a creek meandering within the valley floor (the ``streams`` line);
* a cross-valley profile given as a slope-vs-distance function (floor ~1 %, a steep mid-slope up to
  ~16-17 %, a gentle upland ~2-3 %), integrated into heights, plus a down-valley gradient;
* near the floor, distances are measured from the creek (so the creek is the cross-section low point);
  on the hillside from the axis (so contours run straight along the road), blended smoothly;
* "spurs and hollows": the steep zone is shifted up and down slope along the valley;
* a channel incised along the creek and along drainage channels; the existing road flattened into a
  crowned bench; two small closed depressions; smooth fractal noise (std ~0.2 ft), damped along
  the creek and on the road so the creek drains cleanly.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import geopandas as gpd
import numpy as np
import pyogrio
import rasterio
import shapely
from pyproj import Transformer
from rasterio.transform import from_origin
from shapely.geometry import LineString, Point, Polygon, box
from shapely.ops import unary_union

US_FT_M = 1200.0 / 3937.0  # metres per US survey foot
CELL = 2.0  # DEM cell size, ft
NODATA = -9999.0
GPKG_DATE = "2027-01-04T00:00:00.000Z"  # pinned gpkg_contents.last_change (GDAL OGR_CURRENT_DATE)

SITE_NAMES = ("grantsburg_lot7", "belgium_commons")
LAYER_ORDER = [  # docs/site_folder.md order
    "site_boundary",
    "disturbance",
    "stockpiles",
    "roads",
    "streams",
    "lakes",
    "wetlands",
    "channels",
    "storm_inlets",
    "utilities",
    "structures",
    "floodplain",
    "soils",
    "vegetation",
    "access_drives",
    "bmps",
]


# --------------------------------------------------------------------------------------------- terrain


def _logistic(t):
    return 1.0 / (1.0 + np.exp(-t))


@dataclass
class Valley:
    """Analytic existing-ground surface (heights in US ft) in a local frame (ft)."""

    axis_y: float  # valley axis: y = axis_y
    meanders: list[tuple[float, float, float]]  # creek: y = axis_y + sum(a * sin(2 pi x / L + phase))
    z_ref: float  # creek-floor height (before incision) at x = x_ref
    x_ref: float
    grad_x: float  # dz/dx of the valley floor (negative: flows east; positive: flows west)
    s_floor: float  # floor cross-slope
    s_mid: float  # steep mid-slope
    s_top: float  # upland slope
    e1: float  # floor -> mid-slope transition (distance from axis, ft)
    e2: float  # mid-slope -> upland transition
    w1: float
    w2: float
    s_south: float  # south valley side
    e_south: float
    w_south: float
    spurs: list[tuple[float, float, float]]  # shift of the mid-slope along the valley: (a, L, phase)
    spur_center: float
    spur_width: float
    blend: tuple[float, float] = (90.0, 240.0)  # |e| where creek-relative -> axis-relative distances
    _table: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    def creek_y(self, x):
        x = np.asarray(x, dtype=float)
        y = np.full_like(x, self.axis_y)
        for a, wl, ph in self.meanders:
            y = y + a * np.sin(2 * np.pi * x / wl + ph)
        return y

    def dzde(self, e):
        e = np.asarray(e, dtype=float)
        north = (
            self.s_floor
            + (self.s_mid - self.s_floor) * _logistic((e - self.e1) / self.w1)
            + (self.s_top - self.s_mid) * _logistic((e - self.e2) / self.w2)
        )
        south = self.s_floor + (self.s_south - self.s_floor) * _logistic((-e - self.e_south) / self.w_south)
        return np.where(e >= 0, north, -south)

    def profile(self, e):
        if self._table is None:
            es = np.arange(-3000.0, 3000.0 + 0.25, 0.25)
            g = self.dzde(es)
            f = np.concatenate([[0.0], np.cumsum(0.5 * (g[1:] + g[:-1]) * 0.25)])
            f -= np.interp(0.0, es, f)
            self._table = (es, f)
        es, f = self._table
        return np.interp(e, es, f)

    def e_eff(self, x, y):
        """Cross-valley coordinate: creek-relative on the floor, axis-relative on the slopes, with spurs."""
        x = np.asarray(x, dtype=float)
        y = np.asarray(y, dtype=float)
        ea = y - self.axis_y
        b0, b1 = self.blend
        t = np.clip((np.abs(ea) - b0) / (b1 - b0), 0.0, 1.0)
        w = 0.5 * (1 + np.cos(np.pi * t))  # 1 on the floor, 0 on the slopes
        e = y - (self.axis_y + (self.creek_y(x) - self.axis_y) * w)
        spur = np.zeros_like(x * y)
        for a, wl, ph in self.spurs:
            spur = spur + a * np.sin(2 * np.pi * x / wl + ph)
        return e + spur * np.exp(-(((e - self.spur_center) / self.spur_width) ** 2))

    def z_floor(self, x):
        return self.z_ref + self.grad_x * (np.asarray(x, dtype=float) - self.x_ref)

    def z(self, x, y):
        return self.z_floor(x) + self.profile(self.e_eff(x, y))

    def contour_y(self, level, xs, y_lo, y_hi, iters=60):
        """y where z(x, y) == level, for each x, searched in [y_lo, y_hi] (z increasing with y there)."""
        xs = np.asarray(xs, dtype=float)
        lo = np.full_like(xs, y_lo)
        hi = np.full_like(xs, y_hi)
        for _ in range(iters):
            mid = 0.5 * (lo + hi)
            above = self.z(xs, mid) > level
            hi = np.where(above, mid, hi)
            lo = np.where(above, lo, mid)
        return 0.5 * (lo + hi)

    def offset_y(self, e, xs, y_lo, y_hi, iters=60):
        """y where the floor coordinate e_eff(x, y) == e (a line parallel to the creek on the floor)."""
        xs = np.asarray(xs, dtype=float)
        lo = np.full_like(xs, y_lo)
        hi = np.full_like(xs, y_hi)
        for _ in range(iters):
            mid = 0.5 * (lo + hi)
            above = self.e_eff(xs, mid) > e
            hi = np.where(above, mid, hi)
            lo = np.where(above, lo, mid)
        return 0.5 * (lo + hi)

    def height_above_floor_e(self, h, side):
        """Distance e from the creek where the profile has risen h ft, to the north (+1) or south (-1)."""
        es = np.arange(0.0, 2000.0, 0.25) * side
        f = self.profile(es)
        return float(es[np.argmax(f >= h)])


def fractal_noise(shape, rng, std, corr_cells, beta=3.0):
    """Smooth isotropic noise: white noise filtered by (k^2 + k0^2)^(-beta/4) with a high-k roll-off."""
    white = rng.standard_normal(shape)
    spec = np.fft.rfft2(white)
    ky = np.fft.fftfreq(shape[0])[:, None]
    kx = np.fft.rfftfreq(shape[1])[None, :]
    k2 = kx**2 + ky**2
    k0 = 1.0 / (8.0 * corr_cells)
    filt = (k2 + k0**2) ** (-beta / 4.0) * np.exp(-k2 * (corr_cells / 2.0) ** 2)
    out = np.fft.irfft2(spec * filt, s=shape)
    out -= out.mean()
    return out * (std / out.std())


def distance_to(line, X, Y, pad):
    """Distance from cell centres to a geometry, computed only inside its bbox + pad (inf elsewhere)."""
    d = np.full(X.shape, np.inf)
    x0, y0, x1, y1 = line.bounds
    m = (x0 - pad <= X) & (x1 + pad >= X) & (y0 - pad <= Y) & (y1 + pad >= Y)
    pts = shapely.points(X[m], Y[m])
    d[m] = shapely.distance(pts, line)
    return d, m


def channel_cut(X, Y, line, depth, width, *, head_taper=0.0, bottom=2.0):
    """Depth of a channel carved along a line: flat bottom (half-width ``bottom``, wide enough that a
    cell centre always lies on it, so the raster thalweg is smooth), Gaussian banks; ramps in over
    head_taper ft from the line's start."""
    d, m = distance_to(line, X, Y, pad=4 * width + bottom)
    prof = np.zeros(X.shape)
    prof[m] = np.exp(-((np.maximum(d[m] - bottom, 0.0) / width) ** 2))
    if head_taper > 0:
        s = np.zeros(X.shape)
        s[m] = shapely.line_locate_point(line, shapely.points(X[m], Y[m]))
        prof *= np.clip(s / head_taper, 0.0, 1.0)
    return depth * prof, d


def flatten_road(Z, X, Y, valley, y_c, *, half_w, blend=10.0, crown=0.02):
    """Existing road: a crowned bench at the height of its centreline."""
    dy = np.abs(Y - y_c)
    t = np.clip((dy - half_w - 2.0) / blend, 0.0, 1.0)
    wgt = 0.5 * (1 + np.cos(np.pi * t))
    z_road = valley.z(X[0], np.full(X.shape[1], y_c))[None, :] + crown * np.clip(half_w - dy, 0.0, None)
    return Z * (1 - wgt) + z_road * wgt, wgt


# --------------------------------------------------------------------------------------------- geometry


def band(xs, y_lo, y_hi):
    xs = np.asarray(xs, dtype=float)
    y_lo = np.broadcast_to(np.asarray(y_lo, dtype=float), xs.shape)
    y_hi = np.broadcast_to(np.asarray(y_hi, dtype=float), xs.shape)
    ring = list(zip(xs, y_hi, strict=True)) + list(zip(xs[::-1], y_lo[::-1], strict=True))
    return shapely.make_valid(Polygon(ring))


def wiggle(xs, amp, wl, ph):
    return amp * np.sin(2 * np.pi * np.asarray(xs, dtype=float) / wl + ph)


def rect(x0, y0, x1, y1):
    return box(x0, y0, x1, y1)


def polys(g):
    """Split a (Multi)Polygon into a list of Polygons (largest first), dropping slivers."""
    parts = list(getattr(g, "geoms", [g]))
    parts = [p for p in parts if p.geom_type == "Polygon" and p.area > 1.0]
    return sorted(parts, key=lambda p: -p.area)


# --------------------------------------------------------------------------------------------- sites


@dataclass
class Site:
    name: str
    lonlat: tuple[float, float]
    epsg: int
    vertical_unit: str  # "us_ft" or "m"
    seed: int
    valley: Valley
    layers: dict[str, list[dict]]
    toml: str
    roads_to_flatten: list[tuple[float, float]]  # (y_centre, half_width) of existing E-W roads
    channels_to_incise: list[tuple[LineString, float, float, float]]  # line, depth, width, head taper
    creek_depth: float
    creek_width: float
    depressions: list[tuple[float, float, float, float]]  # x, y, depth, sigma
    noise_std: float = 0.2


def _row(geom, **attrs):
    return {"geometry": geom, **attrs}


def grantsburg_lot7() -> Site:
    v = Valley(
        axis_y=-95.0,
        meanders=[(20.0, 430.0, 0.6), (7.0, 170.0, 2.1)],
        z_ref=917.0,
        x_ref=100.0,
        grad_x=0.004,  # creek flows west, toward the St. Croix
        s_floor=0.012,
        s_mid=0.165,
        s_top=0.028,
        e1=95.0,
        e2=285.0,
        w1=18.0,
        w2=22.0,
        s_south=0.05,
        e_south=70.0,
        w_south=20.0,
        spurs=[(16.0, 380.0, 0.3), (6.0, 150.0, 1.7)],
        spur_center=190.0,
        spur_width=90.0,
    )
    L: dict[str, list[dict]] = {}
    parcel = rect(0, 0, 200, 240)  # Lot 7: 200 ft x 240 ft = 1.10 acre
    L["site_boundary"] = [_row(parcel, name="Lot 7, Lindquist property")]

    # Existing village street along the top (north) edge: pavement 24 ft, centreline y = 262.
    road_yc, road_hw = 262.0, 12.0
    ext = dem_bounds(parcel)
    xs_dem = (ext[0], ext[2])
    road = rect(xs_dem[0], road_yc - road_hw, xs_dem[1], road_yc + road_hw)
    L["roads"] = [_row(road, name="Birch Street", status="existing", public=True, surface="asphalt")]

    # Proposed house (with attached garage) and gravel drive to the street.
    house = unary_union([rect(60, 156, 116, 198), rect(116, 166, 142, 198)])
    L["structures"] = [_row(house, name="Lindquist residence (house + attached garage)", status="proposed")]
    drive = rect(122, 198, 138, road_yc - road_hw)
    L["access_drives"] = [
        _row(drive, name="Driveway / construction entrance", surface="gravel", pad_length_ft=30.0)
    ]

    # Disturbance: house pad, back-yard grading onto the steep slope, driveway and its apron to the street.
    dist_main = Polygon(
        [(14, 240), (14, 150), (22, 112), (50, 92), (100, 86), (150, 88), (182, 100), (194, 136), (194, 240)]
    )
    apron = rect(118, 236, 142, road_yc - road_hw)
    disturbance = unary_union([dist_main, apron])
    L["disturbance"] = [
        _row(disturbance, phase="1", start="2027-05-03", end="2027-09-24", name="House pad and drive")
    ]

    # One topsoil pile near (but downslope of) the street: the street is within 25 ft but upslope.
    pile = Polygon([(28, 214), (72, 214), (76, 222), (72, 232), (28, 232), (24, 222)])
    L["stockpiles"] = [_row(pile, days=45, material="topsoil", name="Topsoil pile")]

    # Creek, wetland and floodplain in the valley.
    xs = np.append(np.arange(xs_dem[0] + 1.0, xs_dem[1] - 1.0, 5.0), xs_dem[1] - 1.0)  # DEM edge to edge
    creek = LineString(
        list(zip(xs[::-1], v.creek_y(xs[::-1]), strict=True))
    )  # drawn downstream: east -> west
    L["streams"] = [_row(creek, name="Little Wood Creek")]
    xw = np.arange(ext[0], 381.0, 5.0)
    taper = np.sin(np.pi * (xw - xw[0]) / (xw[-1] - xw[0])) ** 0.35
    e_n = v.height_above_floor_e(0.9, +1) * taper + wiggle(xw, 6, 97, 0.4) * taper
    e_s = v.height_above_floor_e(0.7, -1) * taper + wiggle(xw, 5, 83, 1.9) * taper
    wet = band(xw, v.offset_y(e_s, xw, -400, 100), v.offset_y(e_n, xw, -400, 100))
    L["wetlands"] = [_row(wet, name="Little Wood Creek wet meadow", type="wet meadow")]
    xf = np.arange(xs_dem[0], xs_dem[1] + 1e-9, 5.0)
    fp_n = v.height_above_floor_e(3.0, +1) + wiggle(xf, 5, 140, 0.2)
    fp_s = v.height_above_floor_e(3.0, -1) + wiggle(xf, 5, 120, 1.0)
    flood = band(xf, v.offset_y(fp_s, xf, -500, 200), v.offset_y(fp_n, xf, -500, 200))
    L["floodplain"] = [_row(flood, zone="100yr", name="Little Wood Creek, Zone A")]

    # Storm inlets in the street's south (downslope) gutter.
    L["storm_inlets"] = [
        _row(Point(131.0, road_yc - road_hw + 1.5), name="CB-1 (in front of Lot 7)"),
        _row(Point(-118.0, road_yc - road_hw + 1.5), name="CB-2"),
    ]

    # Utilities: existing mains in the street, new laterals to the house (126 ft) + new electric (62 ft).
    L["utilities"] = [
        _row(
            LineString([(xs_dem[0], 256.0), (xs_dem[1], 256.0)]),
            kind="water",
            status="existing",
            underground=True,
            name="6-in water main",
        ),
        _row(
            LineString([(xs_dem[0], 267.0), (xs_dem[1], 267.0)]),
            kind="sanitary",
            status="existing",
            underground=True,
            name="8-in sanitary sewer",
        ),
        _row(
            LineString([(xs_dem[0], 244.0), (xs_dem[1], 244.0)]),
            kind="electric",
            status="existing",
            underground=False,
            name="Overhead distribution line",
        ),
        _row(
            LineString([(96.0, 256.0), (96.0, 198.0)]),
            kind="water",
            status="new",
            underground=True,
            name="1-in water lateral",
        ),
        _row(
            LineString([(82.0, 267.0), (82.0, 198.0)]),
            kind="sanitary",
            status="new",
            underground=True,
            name="4-in sewer lateral",
        ),
        _row(
            LineString([(150.0, 244.0), (146.0, 204.0), (142.0, 188.0)]),
            kind="electric",
            status="new",
            underground=True,
            name="Underground electric service",
        ),
    ]

    # Existing cover (bands follow the valley) and soils, over the site + ~250 ft.
    xa = np.arange(-260.0, 461.0, 5.0)
    ylo, yhi = -360.0, 505.0
    b_floor_n = v.offset_y(v.height_above_floor_e(1.6, +1) + wiggle(xa, 7, 120, 0.8), xa, -400, 400)
    b_floor_s = v.offset_y(v.height_above_floor_e(1.4, -1) + wiggle(xa, 6, 110, 2.4), xa, -400, 400)
    b_woods_top = -95.0 + 215.0 + wiggle(xa, 12, 150, 1.3)
    cover_bands = [
        ("dense_woods", np.full_like(xa, ylo), b_floor_s, "Lowland hardwoods"),
        ("dense_grass", b_floor_s, b_floor_n, "Wet meadow / reed canary grass"),
        ("light_woods", b_floor_n, b_woods_top, "Aspen and oak on the slope"),
        ("short_grass", b_woods_top, np.full_like(xa, yhi), "Mowed old field"),
    ]
    veg = []
    for cover, lo, hi, note in cover_bands:
        g = band(xa, lo, hi).difference(road)
        for p in polys(g):
            veg.append(_row(p, cover=cover, name=note))
    for p in polys(road.intersection(box(xa[0], ylo, xa[-1], yhi))):
        veg.append(_row(p, cover="pavement", name="Birch Street"))
    L["vegetation"] = veg

    s_floor = v.offset_y(v.height_above_floor_e(2.2, +1) + wiggle(xa, 8, 130, 0.1), xa, -400, 400)
    s_floor_s = v.offset_y(v.height_above_floor_e(2.0, -1) + wiggle(xa, 8, 130, 1.1), xa, -400, 400)
    s_top = -95.0 + 300.0 + wiggle(xa, 10, 170, 2.2)
    soil_bands = [
        ("GrB", "Grantsburg silt loam, 2 to 6 percent slopes", "C", np.full_like(xa, ylo), s_floor_s),
        ("Se", "Seelyeville muck, 0 to 1 percent slopes", "A/D", s_floor_s, s_floor),
        ("AmD", "Amery sandy loam, 12 to 20 percent slopes", "B", s_floor, s_top),
        ("GrB", "Grantsburg silt loam, 2 to 6 percent slopes", "C", s_top, np.full_like(xa, yhi)),
    ]
    L["soils"] = [_row(band(xa, lo, hi), musym=m, name=n, hsg=h) for m, n, h, lo, hi in soil_bands]

    # BMPs (deliberately imperfect): silt fence on the contour below the disturbance from the west end to
    # x = 150 only (the last ~45 ft of the downslope edge and the east side are unfenced), west end turned
    # upslope; a fence below the stockpile; inlet protection at CB-1 only; a 30-ft tracking pad.
    xs_f = np.arange(8.0, 150.0 + 1e-9, 2.0)
    level = float(v.z(100.0, 80.0))
    yf = v.contour_y(level, xs_f, 0.0, 200.0)
    fence = LineString([(4.0, yf[0] + 22.0)] + list(zip(xs_f, yf, strict=True)))
    pile_fence = LineString([(20.0, 220.0), (22.0, 209.0), (78.0, 209.0), (81.0, 218.0)])
    L["bmps"] = [
        _row(fence, type="silt_fence", name="Silt fence below the pad (west end turned up)"),
        _row(pile_fence, type="silt_fence", name="Silt fence, downslope side of the topsoil pile"),
        _row(
            L["storm_inlets"][0]["geometry"].buffer(2.5, quad_segs=2),
            type="inlet_protection",
            name="Inlet filter bag at CB-1",
        ),
        _row(
            rect(122, 220, 138, road_yc - road_hw),
            type="tracking_pad",
            name="Stone tracking pad, 3-in clear stone, 30 ft",
        ),
    ]

    toml = """# Sample site generated by scripts/make_sample_sites.py -- do not edit; rerun the script.
# Fictional people and addresses; terrain synthetic; soils illustrative (not SSURGO).
name = "Lot 7 residence, Birch Street"
jurisdiction = "grantsburg"
crs = "EPSG:7593"                      # WISCRS Burnett County, NAD83(2011), US survey feet

[dem]
path = "dem.tif"
vertical_unit = "us_ft"                # NAVD88 heights in US survey feet (2-ft cells)

[layers]
path = "layers.gpkg"

[applicant]
name = "Erik and Karin Lindquist"
address = "418 S. Brad Street, Grantsburg, WI 54840"
phone = "715-555-0142"

[maintainer]
name = "Dale Hanson, North Country Excavating LLC"
address = "2310 State Road 70, Grantsburg, WI 54840"
phone = "715-555-0187"

[project]
start = 2027-05-03
end = 2027-10-29
cut_cy = 180.0
fill_cy = 95.0
plat = "none"
dewatering = false
state_funded = false
building_permit_days = 365
"""
    return Site(
        name="grantsburg_lot7",
        lonlat=(-92.68, 45.78),
        epsg=7593,
        vertical_unit="us_ft",
        seed=7593_07,
        valley=v,
        layers=L,
        toml=toml,
        roads_to_flatten=[(road_yc, road_hw)],
        channels_to_incise=[],
        creek_depth=2.2,
        creek_width=4.5,
        depressions=[(360.0, 420.0, 1.3, 10.0), (-170.0, -35.0, 1.6, 12.0)],
    )


def belgium_commons() -> Site:
    v = Valley(
        axis_y=-25.0,
        meanders=[(26.0, 520.0, 1.1), (9.0, 190.0, 0.3)],
        z_ref=648.0,
        x_ref=0.0,
        grad_x=-0.003,  # creek flows east, toward Lake Michigan
        s_floor=0.010,
        s_mid=0.150,
        s_top=0.016,
        e1=165.0,
        e2=425.0,
        w1=24.0,
        w2=30.0,
        s_south=0.035,
        e_south=90.0,
        w_south=25.0,
        spurs=[(24.0, 610.0, 2.0), (8.0, 230.0, 0.7)],
        spur_center=300.0,
        spur_width=120.0,
        blend=(110.0, 280.0),
    )
    L: dict[str, list[dict]] = {}
    parcel = Polygon([(0, -70), (1150, -70), (1150, 800), (40, 800), (0, 760)])
    L["site_boundary"] = [_row(parcel, name="Belgium Commons (CSM 4127, Lots 1-3)")]

    road_yc, road_hw = 827.0, 12.0
    ext = dem_bounds(parcel)
    xs_dem = (ext[0], ext[2])
    county_road = rect(xs_dem[0], road_yc - road_hw, xs_dem[1], road_yc + road_hw)
    # New internal street: 32-ft pavement south from County Road D, ending in a cul-de-sac (r = 45 ft).
    street = unary_union([rect(584, 300, 616, road_yc - road_hw), Point(600, 300).buffer(45, quad_segs=16)])
    L["roads"] = [
        _row(county_road, name="County Road D", status="existing", public=True, surface="asphalt"),
        _row(street, name="Commons Court", status="new", public=True, surface="asphalt"),
    ]

    xs = np.append(np.arange(xs_dem[0] + 1.0, xs_dem[1] - 1.0, 5.0), xs_dem[1] - 1.0)  # DEM edge to edge
    creek = LineString(list(zip(xs, v.creek_y(xs), strict=True)))  # drawn downstream: west -> east
    L["streams"] = [_row(creek, name="Sauk Creek (tributary)")]

    # Phases. P1 (east, commercial) reaches down toward the creek; P2 (middle, townhouses + street);
    # P3 (west, houses) starts after P1 is stabilized. P1 + P2 overlap June-September: > 10 acres at once.
    xp = np.arange(600.0, 1120.0 + 1e-9, 5.0)
    x_pile = 860.0
    bulge = np.clip(1 - np.maximum(np.abs(xp - (x_pile + 40.0)) - 45.0, 0) / 25.0, 0, 1)
    p1_south = v.creek_y(xp) + 45.0 - 33.0 * bulge
    p1 = band(xp, p1_south, 640.0)
    x2 = np.arange(250.0, 630.0 + 1e-9, 5.0)
    p2_south = v.contour_y(float(v.z(440.0, 120.0)), x2, 0.0, 400.0)
    p2 = unary_union([band(x2, p2_south, 795.0), rect(584, 795, 616, road_yc - road_hw)]).difference(p1)
    p3 = unary_union([rect(20, 165, 250, 790), rect(108, 790, 132, road_yc - road_hw)]).difference(
        unary_union([p1, p2])
    )
    L["disturbance"] = [
        _row(p1, phase="1", start="2027-04-12", end="2027-09-30", name="Phase 1: commercial lots"),
        _row(
            p2, phase="2", start="2027-06-01", end="2027-11-15", name="Phase 2: Commons Court and townhouses"
        ),
        _row(p3, phase="3", start="2027-10-01", end="2027-12-10", name="Phase 3: single-family lots"),
    ]

    # Stockpiles: SP-2 sits ~18 ft from the creek (a setback problem), on the floor above it.
    xs_pile = np.arange(x_pile, x_pile + 80.0 + 1e-9, 5.0)
    sp2 = band(xs_pile, v.creek_y(xs_pile) + 20.0, v.creek_y(xs_pile) + 48.0)
    L["stockpiles"] = [
        _row(rect(280, 735, 360, 778), days=150, material="topsoil", name="SP-1 topsoil, Phase 2"),
        _row(sp2, days=60, material="excavated fill", name="SP-2 fill from building pads"),
        _row(rect(1000, 480, 1062, 528), days=90, material="topsoil", name="SP-3 topsoil, Phase 1"),
        _row(rect(40, 300, 92, 342), days=25, material="topsoil", name="SP-4 topsoil, Phase 3"),
    ]

    # Drainage channels: the existing east ditch from the road to the creek, and a grassed swale that
    # begins inside Phase 2 (a channel originating in the disturbed area).
    ditch_x = np.array([1138.0, 1139.0, 1137.0, 1132.0, 1126.0])
    ditch_y = np.array([808.0, 600.0, 380.0, 160.0, 0.0])
    y_end = float(v.creek_y(1124.0))
    ditch = LineString(list(zip(ditch_x, ditch_y, strict=True)) + [(1124.0, y_end)])
    swale_pts = [(450.0, 330.0), (455.0, 240.0), (462.0, 150.0), (468.0, 60.0)]
    swale = LineString(swale_pts + [(470.0, float(v.creek_y(470.0)))])
    L["channels"] = [
        _row(ditch, name="East property-line ditch", status="existing"),
        _row(swale, name="Central grassed swale", status="existing"),
    ]

    # Wetland on the west part of the floor; floodplain (fringe + floodway) along the creek.
    xw = np.arange(ext[0], 520.0 + 1e-9, 5.0)
    taper = np.sin(np.pi * (xw - xw[0]) / (xw[-1] - xw[0])) ** 0.35
    e_n = (v.height_above_floor_e(1.0, +1) + wiggle(xw, 9, 140, 0.7)) * taper
    e_s = (v.height_above_floor_e(0.8, -1) + wiggle(xw, 7, 110, 2.0)) * taper
    wet = band(xw, v.offset_y(e_s, xw, -500, 300), v.offset_y(e_n, xw, -500, 300))
    L["wetlands"] = [_row(wet, name="Sauk Creek fresh (wet) meadow", type="wet meadow")]
    xf = np.arange(xs_dem[0], xs_dem[1] + 1e-9, 5.0)
    fw = band(xf, v.offset_y(-16.0, xf, -500, 300), v.offset_y(16.0, xf, -500, 300))
    fringe_n = v.height_above_floor_e(2.5, +1) + wiggle(xf, 6, 160, 0.5)
    fringe_s = v.height_above_floor_e(2.5, -1) + wiggle(xf, 6, 140, 1.4)
    fr = band(xf, v.offset_y(fringe_s, xf, -500, 300), v.offset_y(fringe_n, xf, -500, 300)).difference(fw)
    L["floodplain"] = [_row(fw, zone="floodway", name="Sauk Creek floodway")] + [
        _row(p, zone="fringe", name="Sauk Creek flood fringe") for p in polys(fr)
    ]

    L["storm_inlets"] = [
        _row(
            Point(560.0, road_yc - road_hw + 1.5),
            name="CB-1 County Road D west of entrance",
            status="existing",
        ),
        _row(Point(905.0, road_yc - road_hw + 1.5), name="CB-2 County Road D east", status="existing"),
        _row(Point(614.0, 560.0), name="CB-3 Commons Court", status="new"),
        _row(Point(586.0, 420.0), name="CB-4 Commons Court", status="new"),
        _row(Point(600.0, 257.0), name="CB-5 cul-de-sac", status="new"),
    ]

    L["utilities"] = [
        _row(
            LineString([(xs_dem[0], 821.0), (xs_dem[1], 821.0)]),
            kind="water",
            status="existing",
            underground=True,
            name="12-in water main, County Road D",
        ),
        _row(
            LineString([(xs_dem[0], 834.0), (xs_dem[1], 834.0)]),
            kind="gas",
            status="existing",
            underground=True,
            name="4-in gas main",
        ),
        _row(
            LineString([(594.0, 821.0), (594.0, 300.0), (560.0, 300.0)]),
            kind="water",
            status="new",
            underground=True,
            name="8-in water main, Commons Court",
        ),
        _row(
            LineString([(606.0, 834.0), (606.0, 285.0)]),
            kind="sanitary",
            status="new",
            underground=True,
            name="8-in sanitary sewer, Commons Court",
        ),
        _row(
            LineString(
                [
                    (614.0, 560.0),
                    (614.0, 420.0),
                    (586.0, 420.0),
                    (600.0, 257.0),
                    (760.0, 190.0),
                    (1004.0, 104.0),
                ]
            ),
            kind="storm",
            status="new",
            underground=True,
            name="Storm sewer to basin",
        ),
    ]

    L["structures"] = [
        _row(rect(780, 360, 960, 460), status="proposed", name="Retail building A"),
        _row(rect(1000, 200, 1080, 262), status="proposed", name="Restaurant pad B"),
        _row(rect(300, 660, 420, 705), status="proposed", name="Townhouse block 1"),
        _row(rect(440, 660, 560, 705), status="proposed", name="Townhouse block 2"),
        _row(rect(300, 500, 420, 545), status="proposed", name="Townhouse block 3"),
        _row(rect(440, 500, 560, 545), status="proposed", name="Townhouse block 4"),
        _row(rect(60, 640, 120, 690), status="proposed", name="House, Lot 10"),
        _row(rect(60, 470, 120, 520), status="proposed", name="House, Lot 11"),
        _row(rect(160, 560, 215, 610), status="proposed", name="House, Lot 12"),
        _row(rect(1040, 700, 1100, 760), status="existing", name="Farmstead barn (to remain)"),
    ]

    L["access_drives"] = [
        _row(
            rect(584, 755, 616, road_yc - road_hw),
            name="Main construction entrance (Commons Court)",
            surface="stone",
            pad_length_ft=60.0,
        ),
        _row(
            rect(110, 790, 130, road_yc - road_hw),
            name="Phase 3 entrance",
            surface="gravel",
            pad_length_ft=0.0,
        ),
    ]

    xa = np.arange(-260.0, 1411.0, 5.0)
    ylo, yhi = -330.0, 1060.0
    b_floor_n = v.offset_y(v.height_above_floor_e(1.8, +1) + wiggle(xa, 8, 150, 0.8), xa, -500, 500)
    b_floor_s = v.offset_y(v.height_above_floor_e(1.6, -1) + wiggle(xa, 7, 130, 2.4), xa, -500, 500)
    b_woods_top = -25.0 + 215.0 + wiggle(xa, 14, 180, 1.3)
    cover_bands = [
        ("crops", np.full_like(xa, ylo), b_floor_s, "Corn-soybean field"),
        ("dense_grass", b_floor_s, b_floor_n, "Creek corridor, wet meadow"),
        ("light_woods", b_floor_n, b_woods_top, "Box elder and ash along the valley side"),
        ("crops", b_woods_top, np.full_like(xa, yhi), "Corn-soybean field"),
    ]
    veg = []
    for cover, lo, hi, note in cover_bands:
        g = band(xa, lo, hi).difference(county_road).difference(rect(990, 640, 1150, 800))
        for p in polys(g):
            veg.append(_row(p, cover=cover, name=note))
    veg.append(_row(rect(990, 640, 1150, 800), cover="short_grass", name="Farmstead yard"))
    for p in polys(county_road.intersection(box(xa[0], ylo, xa[-1], yhi))):
        veg.append(_row(p, cover="pavement", name="County Road D"))
    L["vegetation"] = veg

    s_floor = v.offset_y(v.height_above_floor_e(2.4, +1) + wiggle(xa, 9, 160, 0.1), xa, -500, 500)
    s_floor_s = v.offset_y(v.height_above_floor_e(2.2, -1) + wiggle(xa, 9, 160, 1.1), xa, -500, 500)
    s_mid_lo = -25.0 + 150.0 + wiggle(xa, 12, 210, 2.2)
    s_mid_hi = -25.0 + 440.0 + wiggle(xa, 12, 190, 0.4)
    soil_bands = [
        ("OzB", "Ozaukee silt loam, 2 to 6 percent slopes", "C", np.full_like(xa, ylo), s_floor_s),
        ("Ho", "Houghton muck, 0 to 2 percent slopes", "A/D", s_floor_s, s_floor),
        ("OzB", "Ozaukee silt loam, 2 to 6 percent slopes", "C", s_floor, s_mid_lo),
        ("OzD2", "Ozaukee silt loam, 12 to 20 percent slopes, eroded", "C", s_mid_lo, s_mid_hi),
        ("OzB", "Ozaukee silt loam, 2 to 6 percent slopes", "C", s_mid_hi, np.full_like(xa, yhi)),
    ]
    L["soils"] = [_row(band(xa, lo, hi), musym=m, name=n, hsg=h) for m, n, h, lo, hi in soil_bands]

    # BMPs (deliberately imperfect): fence along P1's low edge except its east 110 ft and except around
    # SP-2 (none on the pile's downslope side); fence along P2's low edge on the contour; fence along P3's
    # south edge (one row for a 600-ft slope); inlet protection at CB-1, CB-3, CB-4 only; one tracking
    # pad at the main entrance (none at the Phase 3 entrance); a sediment basin for Phase 1.
    xf1 = np.arange(600.0, 1010.0 + 1e-9, 5.0)
    bulge_f = np.clip(1 - np.maximum(np.abs(xf1 - (x_pile + 40.0)) - 45.0, 0) / 25.0, 0, 1)
    fence1 = LineString(list(zip(xf1, v.creek_y(xf1) + 39.0 - 33.0 * bulge_f, strict=True)))
    fence1 = fence1.difference(rect(x_pile - 8, -200, x_pile + 88, 300))
    xf2 = np.arange(250.0, 600.0 + 1e-9, 5.0)
    fence2 = LineString(list(zip(xf2, v.contour_y(float(v.z(440.0, 114.0)), xf2, 0.0, 400.0), strict=True)))
    fence3 = LineString([(14.0, 180.0), (14.0, 159.0), (256.0, 159.0), (256.0, 175.0)])
    bmps = []
    for part in getattr(fence1, "geoms", [fence1]):
        bmps.append(_row(part, type="silt_fence", name="Silt fence, Phase 1 low edge"))
    bmps += [
        _row(fence2, type="silt_fence", name="Silt fence, Phase 2 low edge"),
        _row(fence3, type="silt_fence", name="Silt fence, Phase 3 south edge"),
        _row(
            LineString([(274.0, 745.0), (278.0, 729.0), (362.0, 729.0), (366.0, 745.0)]),
            type="silt_fence",
            name="Silt fence below SP-1",
        ),
        _row(
            LineString([(994.0, 490.0), (998.0, 474.0), (1064.0, 474.0), (1068.0, 490.0)]),
            type="silt_fence",
            name="Silt fence below SP-3",
        ),
        _row(
            L["storm_inlets"][0]["geometry"].buffer(2.5, quad_segs=2),
            type="inlet_protection",
            name="Inlet filter, CB-1",
        ),
        _row(
            L["storm_inlets"][2]["geometry"].buffer(2.5, quad_segs=2),
            type="inlet_protection",
            name="Inlet filter, CB-3",
        ),
        _row(
            L["storm_inlets"][3]["geometry"].buffer(2.5, quad_segs=2),
            type="inlet_protection",
            name="Inlet filter, CB-4",
        ),
        _row(
            rect(584, 755, 616, road_yc - road_hw),
            type="tracking_pad",
            name="Tracking pad, 60 ft, 3-in clear stone",
        ),
        _row(
            Point(1040.0, 100.0).buffer(36.0, quad_segs=8),
            type="sediment_basin",
            name="Sediment basin SB-1 (Phase 1)",
        ),
    ]
    L["bmps"] = bmps

    toml = """# Sample site generated by scripts/make_sample_sites.py -- do not edit; rerun the script.
# Fictional people and addresses; terrain synthetic; soils illustrative (not SSURGO).
name = "Belgium Commons"
jurisdiction = "belgium"
crs = "EPSG:7613"                      # WISCRS Kenosha/Milwaukee/Ozaukee/Racine, NAD83(2011), US survey ft

[dem]
path = "dem.tif"
# The DEM is on the site's US-survey-foot grid (2-ft cells) but its heights are NAVD88 METRES, as some
# county LiDAR deliveries are: this site exercises geosite's vertical-unit handling. Do not change to us_ft.
vertical_unit = "m"

[layers]
path = "layers.gpkg"

[applicant]
name = "Lakeshore Commons Development LLC (contact: Thomas Gengler)"
address = "125 Main Street, Belgium, WI 53004"
phone = "262-555-0136"

[maintainer]
name = "Maria Schmitz, Ozaukee Earthworks Inc."
address = "610 Park Street, Belgium, WI 53004"
phone = "262-555-0199"

[project]
start = 2027-04-12
end = 2027-12-17
cut_cy = 18500.0
fill_cy = 16200.0
plat = "subdivision"
dewatering = true                      # trench dewatering for the sanitary sewer, through the sediment basin
state_funded = false
building_permit_days = 365
"""
    # Channels are incised into the DEM (they exist); the swale starts shallow at its head.
    return Site(
        name="belgium_commons",
        lonlat=(-87.85, 43.50),
        epsg=7613,
        vertical_unit="m",
        seed=7613_01,
        valley=v,
        layers=L,
        toml=toml,
        roads_to_flatten=[(road_yc, road_hw)],
        channels_to_incise=[(ditch, 1.6, 3.5, 25.0), (swale, 1.0, 6.0, 60.0)],
        creek_depth=2.8,
        creek_width=6.0,
        depressions=[(1300.0, 980.0, 1.4, 11.0), (-150.0, 10.0, 1.2, 13.0)],
    )


BUILDERS = {"grantsburg_lot7": grantsburg_lot7, "belgium_commons": belgium_commons}


# --------------------------------------------------------------------------------------------- writing


def origin_for(site: Site) -> tuple[float, float]:
    """Real coordinates of the local origin: the lon/lat transformed to the site CRS, rounded to 10 ft."""
    t = Transformer.from_crs(4326, site.epsg, always_xy=True)
    x, y = t.transform(*site.lonlat)
    return round(x / 10.0) * 10.0, round(y / 10.0) * 10.0


def dem_grid(site: Site):
    return dem_bounds(site.layers["site_boundary"][0]["geometry"])


def dem_bounds(parcel, margin: float = 320.0):
    """Local DEM bounds: the site boundary's bbox + margin, snapped outward to 10 ft."""
    x0, y0, x1, y1 = parcel.bounds
    snap = 10.0
    left = np.floor((x0 - margin) / snap) * snap
    bottom = np.floor((y0 - margin) / snap) * snap
    right = np.ceil((x1 + margin) / snap) * snap
    top = np.ceil((y1 + margin) / snap) * snap
    return left, bottom, right, top


def build_dem(site: Site):
    left, bottom, right, top = dem_grid(site)
    ncol = int(round((right - left) / CELL))
    nrow = int(round((top - bottom) / CELL))
    xc = left + (np.arange(ncol) + 0.5) * CELL
    yc = top - (np.arange(nrow) + 0.5) * CELL
    X, Y = np.meshgrid(xc, yc)
    v = site.valley
    Z = v.z(X, Y)
    creek = site.layers["streams"][0]["geometry"]
    # Channels are carved with the deepest cut winning (not summed), so junctions leave no pits.
    # The creek is carved along the streams line extended past the DEM edges, so it runs out of the
    # grid at full depth (the DEM edge is its outlet). Noise is off on channel bottoms (hydro-flattened
    # water surfaces, as in county LiDAR) and fades in across the banks.
    c0, c1 = np.array(creek.coords[0]), np.array(creek.coords[-1])
    ext0 = c0 + (c0 - np.array(creek.coords[1])) * 10.0
    ext1 = c1 + (c1 - np.array(creek.coords[-2])) * 10.0
    creek_ext = LineString([tuple(ext0)] + list(creek.coords) + [tuple(ext1)])
    cut, d_creek = channel_cut(X, Y, creek_ext, site.creek_depth, site.creek_width)
    damp = np.exp(-((np.maximum(np.minimum(d_creek, 1e6) - 2.0, 0) / (3 * site.creek_width)) ** 2))
    for line, depth, width, taper in site.channels_to_incise:
        c, d_ch = channel_cut(X, Y, line, depth, width, head_taper=taper, bottom=1.5)
        cut = np.maximum(cut, c)
        damp = np.maximum(damp, np.exp(-((np.maximum(np.minimum(d_ch, 1e6) - 1.5, 0) / (3 * width)) ** 2)))
    Z = Z - cut
    for yc_road, hw in site.roads_to_flatten:
        Z, wgt = flatten_road(Z, X, Y, v, yc_road, half_w=hw)
        damp = np.maximum(damp, 0.85 * wgt)
    for x, y, depth, sigma in site.depressions:
        Z = Z - depth * np.exp(-((X - x) ** 2 + (Y - y) ** 2) / (2 * sigma**2))
    rng = np.random.default_rng(site.seed)
    noise = fractal_noise(Z.shape, rng, site.noise_std, corr_cells=12) + fractal_noise(
        Z.shape, rng, 0.03, corr_cells=3
    )
    Z = Z + noise * (1.0 - damp)
    return Z, (left, top, ncol, nrow)


def to_world(geom, ox, oy):
    return shapely.transform(geom, lambda c: np.round(c + np.array([ox, oy]), 2))


def write_site(site: Site, out_dir: Path) -> dict:
    out = out_dir / site.name
    out.mkdir(parents=True, exist_ok=True)
    ox, oy = origin_for(site)
    crs = f"EPSG:{site.epsg}"

    # DEM
    Z_ft, (left, top, ncol, nrow) = build_dem(site)
    if site.vertical_unit == "m":
        Zf = np.round(Z_ft * US_FT_M, 3).astype(np.float32)
        unit_name = "metre"
    else:
        Zf = np.round(Z_ft, 3).astype(np.float32)
        unit_name = "US survey foot"
    dem_path = out / "dem.tif"
    if dem_path.exists():
        dem_path.unlink()
    profile = {
        "driver": "GTiff",
        "width": ncol,
        "height": nrow,
        "count": 1,
        "dtype": "float32",
        "crs": crs,
        "transform": from_origin(ox + left, oy + top, CELL, CELL),
        "nodata": NODATA,
        "compress": "deflate",
        "predictor": 3,
        "zlevel": 9,
        "tiled": True,
        "blockxsize": 256,
        "blockysize": 256,
    }
    with rasterio.Env(GDAL_PAM_ENABLED="NO"), rasterio.open(dem_path, "w", **profile) as dst:
        dst.write(Zf, 1)
        dst.units = (unit_name,)
        dst.update_tags(VERTICAL_DATUM="NAVD88", VERTICAL_UNIT=unit_name, SOURCE="synthetic (geosite sample)")

    # Layers
    gpkg = out / "layers.gpkg"
    frames = {}
    for lname in sorted(site.layers, key=LAYER_ORDER.index):
        recs = []
        for i, r in enumerate(site.layers[lname], start=1):
            g = to_world(r["geometry"], ox, oy)
            recs.append({"id": i, **{k: val for k, val in r.items() if k != "geometry"}, "geometry": g})
        frames[lname] = gpd.GeoDataFrame(recs, geometry="geometry", crs=crs)
    counts = write_layers(gpkg, frames)
    (out / "site.toml").write_text(site.toml, encoding="utf-8")
    return {
        "dem_shape": Zf.shape,
        "dem_bytes": dem_path.stat().st_size,
        "gpkg_bytes": gpkg.stat().st_size,
        "counts": counts,
        "z_range": (float(Zf.min()), float(Zf.max())),
    }


# ------------------------------------------------------------------------------- real terrain (third site)

REAL_SITE = "crow_wing_real_terrain"
#: where the real LiDAR lives: $GEOSITE_REAL_DEMS, else shared/data/real_dems beside the repository (never
#: copied into it)
REAL_DEMS = Path(
    os.environ.get("GEOSITE_REAL_DEMS")
    or Path(__file__).resolve().parents[2] / "shared" / "data" / "real_dems"
)


def crow_wing_real_terrain(out_dir: Path, real_dems: Path = REAL_DEMS) -> dict:
    """A six-lot subdivision on real LiDAR: ``shared/data/real_dems/minnesota_1m/dem.tif`` (forested
    glacial terrain, Crow Wing County, Minnesota, 1-m cells, EPSG:26915 UTM 15N metres, heights in
    metres), used as if the site were in the Village of Grantsburg. The folder is generated, never
    committed (tests and scripts/run_sample.sh write it outside the repository's tracked files); it
    holds its own copy of the DEM, so it names nothing outside itself and `geosite check` takes it. The
    creek is the DEM's own channel (the D8
    flow path down the valley south of the parcel); the parcel is a 183 x 122 m rectangle turned
    25 deg off the grid on the slope north of it; a new cul-de-sac street, six lots with houses, a
    stockpile, utilities, inlets and an imperfect set of BMPs. Deterministic (no randomness; coordinates
    rounded to 0.01 m). Returns what was written."""
    import math

    from geosite.grid import Dem
    from geosite.hydrology import flow_grid

    dem_path = real_dems / "minnesota_1m" / "dem.tif"
    if not dem_path.is_file():
        raise SystemExit(f"{dem_path}: not found (the real-terrain site needs shared/data/real_dems)")
    with rasterio.open(dem_path) as src:
        z = src.read(1).astype(float)
        z[~np.isfinite(z) | (z < -1e30)] = np.nan
        transform, crs = src.transform, src.crs
    dem = Dem.from_array(z, transform, crs, "m")
    fg = flow_grid(dem)
    # the creek: the D8 flow path from the valley's head cell west of the parcel to the DEM edge
    r, c = rasterio.transform.rowcol(transform, 429330.0, 5150562.0)
    path = []
    from geosite import grid as ggrid

    dr, dc = np.asarray(ggrid.DR), np.asarray(ggrid.DC)  # geosite's D8 table (codes 1..8)
    for _ in range(5000):
        path.append(transform @ (c + 0.5, r + 0.5))
        d = int(fg.directions[r, c])
        if not 1 <= d <= 8:
            break
        r, c = r + int(dr[d - 1]), c + int(dc[d - 1])
        if not (0 <= r < z.shape[0] and 0 <= c < z.shape[1]):
            break
    creek = LineString(path).simplify(1.5)
    cx, cy, th = 429450.0, 5150652.0, math.radians(25.0)

    def frame(x, y):  # local parcel frame (m, x along the parcel, y across it) -> UTM
        return (cx + x * math.cos(th) - y * math.sin(th), cy + x * math.sin(th) + y * math.cos(th))

    def poly(pts):
        return Polygon([frame(*p) for p in pts])

    def line(pts):
        return LineString([frame(*p) for p in pts])

    def rct(x0, y0, x1, y1):
        return poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])

    W, H = 183.0, 122.0
    parcel = rct(-W / 2, -H / 2, W / 2, H / 2)
    road_axis = line(
        [(-W / 2 - 40, H / 2 + 6), (W / 2 + 40, H / 2 + 6)]
    )  # existing road, outside the top edge
    road_old = road_axis.buffer(4.0, cap_style="flat")
    court_axis = line([(0.0, H / 2 + 2), (0.0, -12.0)])
    court = unary_union(
        [court_axis.buffer(5.0, cap_style="flat"), Point(frame(0.0, -12.0)).buffer(14.0, quad_segs=16)]
    )
    lots = [rct(x0, y0, x0 + 38, y0 + 34) for x0 in (-88.0, -50.0) for y0 in (-56.0, 8.0)]
    lots += [rct(12.0, y0, 50.0, y0 + 34) for y0 in (-56.0, 8.0)]
    houses = [shapely.affinity.scale(lot, 0.42, 0.45) for lot in lots]
    names = [f"House, Lot {i}" for i in range(1, 7)]
    phase1 = unary_union([court.buffer(6.0), rct(-6.0, H / 2 - 12.0, 6.0, H / 2)]).intersection(parcel)
    ph2 = unary_union([lot.buffer(-2.0) for lot in lots[:4]]).difference(phase1)
    ph3 = unary_union([lot.buffer(-2.0) for lot in lots[4:]]).difference(phase1)
    pile = rct(-44.0, -8.0, -30.0, 2.0)
    drive = rct(-4.0, H / 2, 4.0, H / 2 + 2.0).union(rct(-4.0, H / 2 - 20.0, 4.0, H / 2))
    pad = rct(
        -4.0, H / 2 + 2.0 - 12.19, 4.0, H / 2 + 2.0
    )  # 40 ft of stone from the road: short of DNR 1057's 50
    inlets = [Point(frame(-9.0, -12.0)), Point(frame(9.0, -12.0))]
    water_old = road_axis.parallel_offset(2.0, "left")
    water_new = line([(1.5, H / 2 + 4.0), (1.5, -12.0)])
    sewer_new = line([(-1.5, H / 2 + 4.0), (-1.5, -24.0)])
    barn = rct(62.0, 20.0, 80.0, 44.0)
    soils_split = line([(-300, -10.0), (300, 25.0)])
    win = box(*dem.bounds).buffer(-1.0)
    upper = poly([(-400, -10.0), (400, 25.0), (400, 400), (-400, 400)]).intersection(win)
    lower = win.difference(upper)
    del soils_split
    fence = line([(-W / 2 + 2, -H / 2 + 3), (W / 2 - 60, -H / 2 + 3)])
    layers = {
        "site_boundary": [_row(parcel, name="Aspen Ridge, Lots 1-6 (proposed plat)")],
        "disturbance": [
            _row(
                phase1,
                phase="1",
                start="2027-05-03",
                end="2027-07-30",
                name="Phase 1: Aspen Ridge Court and utilities",
            ),
            _row(ph2, phase="2", start="2027-06-14", end="2027-10-15", name="Phase 2: Lots 1-4"),
            _row(ph3, phase="3", start="2027-08-02", end="2027-10-29", name="Phase 3: Lots 5-6"),
        ],
        "stockpiles": [_row(pile, days=60, material="topsoil", name="SP-1 topsoil")],
        "roads": [
            _row(road_old, name="County Road 3", status="existing", public=True, surface="asphalt"),
            _row(
                court.intersection(parcel.buffer(3.0)),
                name="Aspen Ridge Court",
                status="new",
                public=True,
                surface="asphalt",
            ),
        ],
        "streams": [_row(creek, name="Spring Creek")],
        "wetlands": [
            _row(
                creek.buffer(6.0).intersection(box(429360, 5150500, 429520, 5150600)),
                name="Spring Creek sedge meadow",
                type="wet meadow",
            )
        ],
        "storm_inlets": [_row(p, name=f"CB-{i}", status="new") for i, p in enumerate(inlets, start=1)],
        "utilities": [
            _row(
                water_old,
                kind="water",
                status="existing",
                underground=True,
                name="6-in water main, County Road 3",
            ),
            _row(
                water_new,
                kind="water",
                status="new",
                underground=True,
                name="8-in water main, Aspen Ridge Court",
            ),
            _row(
                sewer_new,
                kind="sanitary",
                status="new",
                underground=True,
                name="8-in sanitary sewer, Aspen Ridge Court",
            ),
        ],
        "structures": [_row(h, status="proposed", name=n) for h, n in zip(houses, names, strict=True)]
        + [_row(barn, status="existing", name="Pole barn (to remain)")],
        "floodplain": [_row(creek.buffer(14.0).intersection(win), zone="100yr", name="Spring Creek, Zone A")],
        "soils": [
            _row(upper, musym="MkB", name="Mahtomedi loamy sand, 1 to 8 percent slopes", hsg="A"),
            _row(lower, musym="MkD", name="Mahtomedi loamy sand, 8 to 25 percent slopes", hsg="A"),
        ],
        "vegetation": [
            _row(win.difference(road_old), cover="light_woods", name="Aspen and red pine"),
            _row(road_old.intersection(win), cover="pavement", name="County Road 3"),
        ],
        "access_drives": [
            _row(
                drive, name="Construction entrance (Aspen Ridge Court)", surface="gravel", pad_length_ft=40.0
            )
        ],
        "bmps": [
            _row(fence, type="silt_fence", name="Silt fence along the low edge (east part missing)"),
            _row(inlets[0].buffer(1.0), type="inlet_protection", name="Inlet filter, CB-1"),
            _row(pad, type="tracking_pad", name="Stone tracking pad, 40 ft"),
        ],
    }
    out = out_dir / REAL_SITE
    out.mkdir(parents=True, exist_ok=True)
    # the folder is generated (never committed), so it holds its own copy of the DEM: a site folder that
    # names nothing outside itself is one `geosite check` accepts as a submission
    shutil.copyfile(dem_path, out / "dem.tif")
    toml = """# Generated by scripts/make_sample_sites.py (crow_wing_real_terrain) -- do not edit; \
rerun the script.
# Real LiDAR (a copy of shared/data/real_dems/minnesota_1m/dem.tif, never committed) used as if in Grantsburg;
# the plat, people and addresses are fictional; soils illustrative (not SSURGO).
name = "Aspen Ridge, six-lot subdivision on real terrain"
jurisdiction = "grantsburg"
crs = "EPSG:26915"                     # the DEM's own: NAD83 / UTM 15N, metres

[dem]
path = "dem.tif"
vertical_unit = "m"                    # the README infers metres from the 380-410 range: stated, not guessed

[layers]
path = "layers.gpkg"

[applicant]
name = "Aspen Ridge Development LLC (contact: Mara Lindgren)"
address = "1450 Highway 371, Grantsburg, WI 54840"
phone = "715-555-0163"

[maintainer]
name = "Jon Berg, Pine Country Site Works"
address = "88 Mill Road, Grantsburg, WI 54840"
phone = "715-555-0171"

[preparer]
name = "Kari Olson, P.E."
firm = "Northwoods Civil Consultants"
phone = "715-555-0190"

[project]
start = 2027-05-03
end = 2027-10-29
cut_cy = 2400.0
fill_cy = 2100.0
plat = "subdivision"
dewatering = false
state_funded = false
"""
    frames = {
        lname: gpd.GeoDataFrame(
            [
                {
                    "id": i,
                    **{k: v for k, v in r.items() if k != "geometry"},
                    "geometry": shapely.transform(r["geometry"], lambda a: np.round(a, 2)),
                }
                for i, r in enumerate(layers[lname], start=1)
            ],
            geometry="geometry",
            crs=crs,
        )
        for lname in sorted(layers, key=LAYER_ORDER.index)
    }
    gpkg = out / "layers.gpkg"
    counts = write_layers(gpkg, frames)
    (out / "site.toml").write_text(toml, encoding="utf-8")
    return {"counts": counts, "dem": str(dem_path), "gpkg_bytes": gpkg.stat().st_size}


def write_layers(gpkg: Path, frames: dict[str, gpd.GeoDataFrame]) -> dict[str, int]:
    """Write the layers to one GeoPackage deterministically: ``id`` first as int64, ``last_change``
    pinned, the file vacuumed. Returns the feature count per layer."""
    for p in (gpkg, Path(str(gpkg) + "-journal"), Path(str(gpkg) + "-wal")):
        if p.exists():
            p.unlink()
    counts = {}
    pyogrio.set_gdal_config_options({"OGR_CURRENT_DATE": GPKG_DATE})
    try:
        for lname, gdf in frames.items():
            cols = ["id"] + [c for c in gdf.columns if c not in ("id", "geometry")] + ["geometry"]
            gdf = gdf[cols]
            gdf["id"] = gdf["id"].astype("int64")
            gdf.to_file(gpkg, layer=lname, driver="GPKG", engine="pyogrio", promote_to_multi=False)
            counts[lname] = len(gdf)
    finally:
        pyogrio.set_gdal_config_options({"OGR_CURRENT_DATE": None})
    # Belt and braces: pin last_change even on GDAL builds that ignore OGR_CURRENT_DATE.
    con = sqlite3.connect(gpkg)
    try:
        with con:
            con.execute("UPDATE gpkg_contents SET last_change = ?", (GPKG_DATE,))
        con.execute("VACUUM")  # compact (and deterministic) page layout
    finally:
        con.close()
    return counts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "data" / "sample_sites"))
    ap.add_argument(
        "--only",
        action="append",
        choices=(*SITE_NAMES, REAL_SITE),
        help=f"generate only this site (repeatable); {REAL_SITE} (real LiDAR read from shared/, not bundled) "
        "is generated only when named",
    )
    ap.add_argument(
        "--real-dems", default=str(REAL_DEMS), help="folder of the real DEMs (shared/data/real_dems)"
    )
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    out = Path(args.out)
    names = args.only or list(SITE_NAMES)
    if REAL_SITE in names:
        names = [n for n in names if n != REAL_SITE]
        info = crow_wing_real_terrain(out, Path(args.real_dems))
        if not args.quiet:
            print(
                f"{REAL_SITE}: DEM {info['dem']} (copied into the folder); layers.gpkg "
                f"{info['gpkg_bytes']:,} B; "
                f"{sum(info['counts'].values())} features in {len(info['counts'])} layers"
            )
    for n in names:
        t0 = time.perf_counter()
        info = write_site(BUILDERS[n](), out)
        if not args.quiet:
            nrow, ncol = info["dem_shape"]
            print(
                f"{n}: DEM {ncol} x {nrow} cells, z {info['z_range'][0]:.2f}.."
                f"{info['z_range'][1]:.2f}, {info['dem_bytes']:,} B; layers.gpkg {info['gpkg_bytes']:,} B; "
                f"{sum(info['counts'].values())} features in {len(info['counts'])} layers; "
                f"{time.perf_counter() - t0:.1f} s"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
