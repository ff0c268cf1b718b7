import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

SHARED = Path(__file__).resolve().parents[2] / "shared"
#: the real DEMs: $GEOSITE_REAL_DEMS, else shared/data/real_dems beside the repository (README)
REAL_DEMS = Path(os.environ.get("GEOSITE_REAL_DEMS") or SHARED / "data" / "real_dems")


@pytest.fixture
def real_dems() -> Path:
    if not REAL_DEMS.is_dir():
        pytest.skip("shared/data/real_dems is not present")
    return REAL_DEMS


ROOT = Path(__file__).resolve().parents[1]


def _analyzed(name: str):
    import warnings

    from geosite.pipeline import analyze
    from geosite.site import load_site

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return analyze(load_site(ROOT / "data" / "sample_sites" / name))


@pytest.fixture(scope="session")
def lot7_result():
    """The Lot 7 sample site analyzed once (the AnalysisResult)."""
    return _analyzed("grantsburg_lot7")


@pytest.fixture(scope="session")
def belgium_result():
    """The Belgium Commons sample site analyzed once (the AnalysisResult)."""
    return _analyzed("belgium_commons")


@pytest.fixture(scope="session")
def lot7_outputs(lot7_result, tmp_path_factory):
    """The Lot 7 sample site analyzed once, with every output written (report, GeoPackage, DXF, the
    three sheets): the files the read-back tests measure."""
    import warnings

    from geosite.pipeline import write_outputs

    out = tmp_path_factory.mktemp("lot7") / "out"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write_outputs(lot7_result, out, maps=True)
    return out


@pytest.fixture(scope="session")
def own_plans(tmp_path_factory):
    """Each round-trip site's plan, analyzed, written (no maps) and checked once for the session, on first
    use: ``own_plans(name)`` gives (the AnalysisResult, the output folder, its own check). ``name`` is a
    bundled sample's folder name or a key of test_round_trip.BUILT; test_round_trip and
    test_plan_mutations both read these (copy the plan folder before changing it)."""
    from test_round_trip import BUILT, SAMPLES, run_plan

    sources = {**{p.name: p for p in SAMPLES}, **BUILT}
    made: dict[str, tuple[object, Path, object]] = {}

    def get(name: str):
        if name not in made:
            root = tmp_path_factory.mktemp(name)
            src = sources[name]
            folder = src if isinstance(src, Path) else src(root / name)
            result, checked = run_plan(folder, root / "out")
            made[name] = (result, root / "out", checked)
        return made[name]

    return get


def pytest_terminal_summary(terminalreporter) -> None:
    """The kernels this run used, at the end of the output where CI's tail shows it: a suite that ran
    the JIT path pays for it in every child process (the sandbox's included)."""
    from geosite.hydrology import _kernels
    from geosite.terrain import _contour_kernels

    terminalreporter.write_line(
        f"geosite kernels: hydrology {_kernels.ENGINE}, contours {_contour_kernels.ENGINE}"
    )
