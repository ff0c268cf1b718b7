"""geosite's LS against a second engine's: SAGA GIS's LS Factor (``saga_cmd ta_hydrology 22``, METHOD 1,
Desmet & Govers 1996) on the real LiDAR DEMs (shared/data/real_dems: Minnesota, 400 x 400 cells of 1 m;
Virginia, 259 x 283 cells of 2 m with nodata holes), SAGA run as a subprocess. Skipped where ``saga_cmd``
(SAGA 8 or later) or the DEMs are absent, as on CI. Written against SAGA 8.5.0.

What SAGA 8.5 computes (its source, ta_hydrology/TopographicIndices.cpp, ``CLS_Factor::Get_LS``): with
CONV 0 ("no conversion") the AREA grid goes unchanged where Desmet & Govers put A, the area draining into
the cell, L = [(A + D^2)^(m+1) - A^(m+1)] / (D^(m+2) x^m 22.13^m) with D its cell size, so AREA must be
that area in square metres on a metre grid (not a specific catchment area, and not its square root:
CONV 1 divides it by D, CONV 2 takes its root). SAGA's own D8 accumulation (ta_hydrology 0) counts the
cell itself, A + D^2, so the cell's area is taken off before it is given. S is McCool's; m is RUSLE's with
beta times EROSIVITY (read as an integer: 1 or 2).

Like with like (:func:`test_ls_formula_matches_saga_on_the_same_area`): SAGA is given geosite's own D8
area (``LSGrid.upslope_sqft`` in m^2) and computes its own slope (ta_morphometry 0, METHOD 2, Horn 1981)
of the same DEM file; EROSIVITY 1 against ``disturbed=False``, 2 against ``disturbed=True`` (beta doubled).
What differs by design, taken out: SAGA sets x = 1 (its aspect term is commented out), geosite uses
x = |sin a| + |cos a| of the flow direction, so geosite's LS times x^m is compared. Compared on the cells
in the method's range (slope <= 33 %: geosite's ``ls`` is NaN beyond) whose 3 x 3 window is whole (not
on the DEM's edge or beside nodata, where each engine extrapolates the slope its own way). No channel
threshold: SAGA resets no slope length. Tolerance: relative difference <= 1e-4 on every such cell. The one
difference left is the unit plot: geosite's 72.6 ft (USDA AH 537 and 703) against SAGA's 22.13 m =
72.605 ft, so geosite's L is larger by (72.605 / 72.6)^m - 1 = 6.9e-5 m, at most 5.5e-5 for m <= 0.8
(measured: at most 4.6e-5 undisturbed, 5.5e-5 disturbed); with that factor taken out the two agree to
1e-6 (measured 1.6e-7: SAGA writes float32 grids, and the two slopes agree to 4e-6 percentage
points).

SAGA's whole chain (:func:`test_ls_distribution_matches_saga_chain`): its own sink fill (ta_preprocessor
4, Wang & Liu, 0.1 degree minimum slope), D8 area and slope: independent of geosite's routing. Cell by
cell it differs where the routing differs: 46 % of the Minnesota DEM lies in closed depressions both
engines fill, where D8 directions on a filled flat are each engine's convention, and cells below them
inherit the difference. So it is compared on the cells neither fill raises, as a distribution: median
relative difference under 0.1 % (measured 4.1e-5 and 2.6e-5: most cells get the same area), and the 10th
to 95th percentiles and the mean of LS within 5 % (measured within 2.2 %).

GRASS r.watershed's ``length_slope`` is not compared: it answers another formula (raster/r.watershed/
ram/sg_factor.c): L = (lambda / 72.6)^m with lambda the flow-path length from the top of the slope
(capped by ``max_slope_length``), S from the mean gradient over that path rather than the cell's, and LS
scaled by 100; not Desmet & Govers' unit contributing area on the cell's own slope.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import rasterio
from scipy import ndimage

from geosite.hydrology import FlowGrid, flow_grid
from geosite.io.raster import read_dem
from geosite.soil_loss import LSGrid, load_soil_loss_data, ls_factor
from geosite.units import METRES_PER_FOOT

DEMS = ["minnesota_1m/dem.tif", "virginia_2m/dtm.tif"]
NODATA = -99999.0
#: SAGA's unit plot (TopographicIndices.cpp: 22.13 m) in feet
SAGA_PLOT_FT = 22.13 / METRES_PER_FOOT


def _saga_version() -> tuple[int, ...] | None:
    """The installed SAGA's version (``saga_cmd --version``), None without ``saga_cmd``."""
    if shutil.which("saga_cmd") is None:
        return None
    out = subprocess.run(["saga_cmd", "--version"], capture_output=True, text=True, check=False).stdout
    found = re.search(r"SAGA Version:\s*(\d+)\.(\d+)", out)
    return tuple(int(g) for g in found.groups()) if found else (0,)


VERSION = _saga_version()
needs_saga = pytest.mark.skipif(
    VERSION is None or VERSION < (8,),
    reason="saga_cmd (SAGA GIS) is not installed"
    if VERSION is None
    else f"SAGA {VERSION}: SAGA 2's ta_hydrology 22 roots the area whatever CONV says; needs SAGA 8 or later",
)


def _saga(*args: str) -> None:
    """Run one SAGA tool; its output in the error if it fails."""
    done = subprocess.run(["saga_cmd", *args], capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"saga_cmd {' '.join(args)}: {done.stdout[-2000:]}{done.stderr[-2000:]}"


def _write(path: Path, like: Path, values: np.ndarray) -> Path:
    """``values`` (NaN = nodata) as a float64 GeoTIFF on ``like``'s grid."""
    with rasterio.open(like) as src:
        profile = dict(src.profile, driver="GTiff", dtype="float64", count=1, nodata=NODATA)
    with rasterio.open(path, "w", **profile) as dst:
        dst.write(np.where(np.isnan(values), NODATA, values), 1)
    return path


def _read(path: Path) -> np.ndarray:
    """A grid SAGA wrote, NaN on its nodata."""
    with rasterio.open(path) as src:
        values = src.read(1).astype(np.float64)
        return np.where(values == src.nodata, np.nan, values)


def _cell_m(path: Path) -> float:
    """The DEM file's cell size, m (the real DEMs are on metre grids with square cells)."""
    with rasterio.open(path) as src:
        return float(src.transform.a)


def _saga_ls(area_m2: Path, slope: Path, out: Path, erosivity: int) -> np.ndarray:
    """SAGA's Desmet & Govers LS from an area grid (m^2 draining into each cell) and a slope grid."""
    _saga(
        "ta_hydrology", "22", "-SLOPE", str(slope), "-AREA", str(area_m2), "-LS", str(out),
        "-METHOD", "1", "-CONV", "0", "-EROSIVITY", str(erosivity), "-STABILITY", "0",
    )  # fmt: skip
    return _read(out)


def _comparable(flow: FlowGrid, grid: LSGrid) -> tuple[np.ndarray, np.ndarray]:
    """geosite's LS with SAGA's x = 1 (LS times x^m) and the cells compared: in the method's range
    (``ls`` defined) with a whole 3 x 3 window (not on the edge, not beside nodata)."""
    ux, uy = flow.downhill()
    x = np.abs(ux) + np.abs(uy)
    x = np.where(x > 0.0, x, 1.0)  # as ls_factor: a cell with no downhill direction has x = 1
    broken = ndimage.binary_dilation(np.isnan(grid.s), np.ones((3, 3), bool))
    whole = np.zeros(broken.shape, bool)
    whole[1:-1, 1:-1] = True
    return grid.ls * x**grid.m, whole & ~broken & np.isfinite(grid.ls)


@pytest.fixture(scope="module", params=DEMS)
def routed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple:
    """A real DEM's file, its geosite routing, SAGA's Horn slope of it and a scratch folder."""
    from conftest import REAL_DEMS

    if not REAL_DEMS.is_dir():
        pytest.skip("shared/data/real_dems is not present")
    src = REAL_DEMS / request.param
    work = tmp_path_factory.mktemp("saga")
    slope = work / "slope.sdat"
    horn = ["-ASPECT", str(work / "aspect.sdat"), "-METHOD", "2"]  # METHOD 2: Horn 1981, as geosite's
    _saga("ta_morphometry", "0", "-ELEVATION", str(src), "-SLOPE", str(slope), *horn)
    return src, flow_grid(read_dem(src, "m")), slope, work


@needs_saga
@pytest.mark.parametrize(("disturbed", "erosivity"), [(False, 1), (True, 2)])
def test_ls_formula_matches_saga_on_the_same_area(routed: tuple, disturbed: bool, erosivity: int) -> None:
    src, flow, slope, work = routed
    grid = ls_factor(flow, disturbed=disturbed)
    m2_per_sqft = _cell_m(src) ** 2 / flow.dem.cell_area_sqft
    area = _write(work / "area.tif", src, grid.upslope_sqft * m2_per_sqft)
    theirs = _saga_ls(area, slope, work / f"ls_{erosivity}.sdat", erosivity)
    ours, cells = _comparable(flow, grid)
    assert cells.sum() > 0.8 * cells.size  # most of the DEM is compared
    assert np.isfinite(theirs[cells]).all()
    rel = np.abs(ours[cells] / theirs[cells] - 1.0)
    assert rel.max() <= 1e-4  # measured 4.6e-5 (undisturbed), 5.5e-5 (disturbed)
    # the unit plot's 72.6 ft against 22.13 m is the whole difference
    plot_ft = load_soil_loss_data().unit_plot_length_ft.required()
    plot = (SAGA_PLOT_FT / plot_ft) ** grid.m[cells]
    assert np.abs(ours[cells] / (theirs[cells] * plot) - 1.0).max() <= 1e-6


@needs_saga
def test_ls_distribution_matches_saga_chain(routed: tuple) -> None:
    src, flow, slope, work = routed
    filled, accumulated = work / "filled.sdat", work / "accumulated.sdat"
    _saga("ta_preprocessor", "4", "-ELEV", str(src), "-FILLED", str(filled))
    _saga("ta_hydrology", "0", "-ELEVATION", str(filled), "-FLOW", str(accumulated), "-METHOD", "0")
    upslope = _read(accumulated) - _cell_m(src) ** 2  # SAGA's D8 area counts the cell itself
    theirs = _saga_ls(_write(work / "saga_area.tif", src, upslope), slope, work / "ls_chain.sdat", 1)
    grid = ls_factor(flow, disturbed=False)
    ours, cells = _comparable(flow, grid)
    with rasterio.open(src) as ds:
        z = ds.read(1, masked=True).filled(np.nan).astype(np.float64)
    raised = (flow.filled_ft * METRES_PER_FOOT - z > 1e-6) | (_read(filled) - z > 1e-6)
    cells &= ~raised & np.isfinite(theirs)
    assert cells.sum() > 0.4 * cells.size
    a, b = ours[cells], theirs[cells]
    assert np.median(np.abs(a / b - 1.0)) < 1e-3  # measured 4.1e-5 (Minnesota), 2.6e-5 (Virginia)
    q = [10, 25, 50, 75, 90, 95]
    np.testing.assert_allclose(np.percentile(a, q), np.percentile(b, q), rtol=0.05)  # measured <= 2.2 %
    assert a.mean() == pytest.approx(b.mean(), rel=0.05)  # measured 0.7 %, 0.5 %
