"""Fuzzing the sandboxed ``geosite check`` (issue 24, requirement 6): valid GeoPackage, GeoJSON, GeoTIFF
and DXF bytes from data/sample_sites/grantsburg_lot7, mutated by a seeded random mutator (bytes flipped,
spans overwritten, duplicated or cut, and tokens an attacker would plant: the loopback server's URL, a
/vsicurl/ path, a +nadgrids, a VRT root, SQL, a NUL, huge numbers), one or two of the four spoiled in
each submission (the others valid, so the reading goes on past them).

Property, for every case: exit 0, 1 or 2 and no traceback; no request reaches the loopback server;
the submission unchanged and nothing written outside the output folder (the sandbox's temporary folder
is left empty); no sandbox process alive after the run.

The same submissions then go through ``batch --check``'s worker (:func:`geosite.scale.batch.process_site`
with ``check``, its warm sandbox server kept from site to site) and the batch summary: every site's row
``ok`` or ``error`` with a message, never an internal error; the same properties.

``GEOSITE_FUZZ_PROFILE=ci`` (default): 10 submissions, about 35 s here; ``soak``: 150.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from pathlib import Path

import geopandas as gpd
import pytest
from click.testing import CliRunner
from hostile import digest, loopback_server
from sitebuilder import write_toml

from geosite.cli import cli

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample_sites" / "grantsburg_lot7"
CASES = {"ci": 10, "soak": 150}[os.environ.get("GEOSITE_FUZZ_PROFILE", "ci")]
SEED = 24


def tokens(url: str) -> list[bytes]:
    return [
        url.encode(),
        f"/vsicurl/{url}/x.tif".encode(),
        b"+nadgrids=/tmp/geosite-fuzz-grid.gsb",
        b"<VRTDataset><SourceFilename>" + url.encode() + b"</SourceFilename>",
        b"CREATE VIEW v AS SELECT 1;",
        b"\x00",
        b"1e400",
        b"-99999999999999999999",
        b'"crs":{"type":"link","properties":{"href":"' + url.encode() + b'"}}',
        b"0\nINSERT\n2\nB\n70\n30000\n71\n30000\n",
        b"\xff" * 64,
    ]


def mutate(data: bytes, rng: random.Random, url: str) -> bytes:
    """``data`` with 1 to 4 random mutations."""
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.choice(("flip", "overwrite", "truncate", "duplicate", "token"))
        at = rng.randrange(max(len(buf), 1))
        if op == "flip":
            for _ in range(rng.randint(1, 16)):
                i = rng.randrange(len(buf))
                buf[i] ^= 1 << rng.randrange(8)
        elif op == "overwrite":
            n = rng.randint(1, 256)
            buf[at : at + n] = bytes(rng.randrange(256) for _ in range(n))
        elif op == "truncate":
            del buf[max(at, 16) :]
        elif op == "duplicate":
            n = rng.randint(1, 4096)
            buf[at:at] = buf[at : at + n]
        else:
            buf[at:at] = rng.choice(tokens(url))
    return bytes(buf)


@pytest.fixture(scope="module")
def originals(tmp_path_factory) -> dict[str, bytes]:
    """The four valid files: the sample's GeoPackage and GeoTIFF, its roads as GeoJSON, its utilities as
    DXF."""
    from geosite.views.dxf import write_layers_dxf

    tmp = tmp_path_factory.mktemp("originals")
    roads = gpd.read_file(SAMPLE / "layers.gpkg", layer="roads")
    roads.to_file(tmp / "roads.geojson", driver="GeoJSON")
    write_layers_dxf(
        {"utilities": gpd.read_file(SAMPLE / "layers.gpkg", layer="utilities")},
        tmp / "utilities.dxf",
        scale_ft=100.0,
    )
    return {
        "layers.gpkg": (SAMPLE / "layers.gpkg").read_bytes(),
        "dem.tif": (SAMPLE / "dem.tif").read_bytes(),
        "roads.geojson": (tmp / "roads.geojson").read_bytes(),
        "utilities.dxf": (tmp / "utilities.dxf").read_bytes(),
    }


def sandbox_alive(tmp: Path) -> list[int]:
    alive = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                cmd = (p / "cmdline").read_bytes().decode("utf-8", "replace")
            except OSError:
                continue
            if "geosite.review.sandbox" in cmd and str(tmp) in cmd:
                alive.append(int(p.name))
    return alive


def tree(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def test_mutated_submissions_exit_0_1_or_2_with_no_request_and_nothing_written_outside(
    tmp_path, monkeypatch, originals
):
    import tomllib

    sandbox_tmp = tmp_path / "tmp"
    sandbox_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(sandbox_tmp))
    rng = random.Random(SEED)
    conf = tomllib.loads((SAMPLE / "site.toml").read_text())
    conf["layers"] = {"path": "layers.gpkg", "roads": "roads.geojson", "utilities": "utilities.dxf"}
    codes = []
    with loopback_server() as (url, requests):
        for case in range(CASES):
            folder = tmp_path / f"case{case}"
            folder.mkdir()
            spoiled = rng.sample(
                sorted(originals), rng.choice((1, 1, 2))
            )  # the others valid: reads go deeper
            for name, data in originals.items():
                (folder / name).write_bytes(mutate(data, rng, url) if name in spoiled else data)
            write_toml(folder / "site.toml", conf)
            before, around = digest(folder), tree(tmp_path)
            res = CliRunner().invoke(
                cli,
                ["-q", "check", str(folder), "--out", str(tmp_path / "out"), "--limit", "check_seconds=60"],
            )
            assert res.exit_code in (0, 1, 2), (case, res.output)
            assert isinstance(res.exception, SystemExit | None) and "Traceback" not in res.output, (
                case,
                res.output,
            )
            assert requests == [], case
            assert digest(folder) == before, case
            assert tree(tmp_path) - around <= {"out"} | {
                str(p.relative_to(tmp_path)) for p in (tmp_path / "out").rglob("*")
            }
            assert list(sandbox_tmp.iterdir()) == [], case
            assert sandbox_alive(sandbox_tmp) == [], case
            codes.append(res.exit_code)
            shutil.rmtree(tmp_path / "out", ignore_errors=True)
        assert 2 in codes  # the mutations do reach the readers' refusals
        clean = tmp_path / "case_clean"  # beside the spoiled ones, one that passes: its outputs written too
        clean.mkdir()
        for name, data in originals.items():
            (clean / name).write_bytes(data)
        write_toml(clean / "site.toml", conf)
        _batch_check(tmp_path, sandbox_tmp, requests)


def _batch_check(tmp_path: Path, sandbox_tmp: Path, requests: list[str]) -> None:
    """The cases again, through the batch worker's own function and the summary."""
    from geosite.io.limits import Limits
    from geosite.review.sandbox import close_shared
    from geosite.scale.batch import BatchOptions, process_site, write_summary

    folders = sorted(tmp_path.glob("case*"))
    before, around = {f: digest(f) for f in folders}, tree(tmp_path)
    options = BatchOptions(check=True, limits=Limits(check_seconds=60))
    (tmp_path / "batch").mkdir()  # run_batch's OUT
    rows = [process_site(f, tmp_path / "batch", options) for f in folders]
    write_summary(rows, tmp_path / "batch")
    close_shared()  # the worker's warm server: stopped, its folder removed
    for f, row in zip(folders, rows, strict=True):
        assert row["status"] in ("ok", "error"), row
        assert row["status"] == "ok" or (row["error"] and not row["error"].startswith("internal error")), row
        assert digest(f) == before[f], f
    assert {r["status"] for r in rows} == {"ok", "error"}  # both outcomes reached
    assert (tmp_path / "batch" / "case_clean" / "plan" / "site.toml").is_file()
    assert requests == []
    assert tree(tmp_path) - around <= {
        str(p.relative_to(tmp_path)) for p in (tmp_path / "batch").rglob("*")
    } | {"batch"}
    assert list(sandbox_tmp.iterdir()) == []
    assert sandbox_alive(sandbox_tmp) == []
