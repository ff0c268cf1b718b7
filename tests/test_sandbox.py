"""``geosite check`` reads a submission in a sandbox (issue 24): staged, opened only by allowlisted drivers,
in a child process with no network and bounded memory, CPU and wall-clock time.

Each hostile case of the issue is built here. End to end, through the CLI: exit 2 naming the file, zero
requests to a counting loopback HTTP server, the submission byte-identical, nothing left in the temporary
folder. Files outside the submission that a hostile file names are FIFOs: opening one to read would
block, so a run that returns at once with its refusal has not opened it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import tempfile
import time
from pathlib import Path

import geopandas as gpd
import pytest
from click.testing import CliRunner
from hostile import digest, loopback_server, submission
from sitebuilder import line, rect, write_toml

from geosite.cli import cli
from geosite.errors import LimitError, UnsafeInputError

DXF_HEAD = "0\nSECTION\n2\nHEADER\n0\nENDSEC\n"


@pytest.fixture(autouse=True)
def private_tmp(tmp_path, monkeypatch):
    """The sandbox's temporary folders under this test's own folder (checked empty after each run)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return tmp


@pytest.fixture(scope="module")
def heavy_dem(tmp_path_factory) -> bytes:
    """A 2,400 x 2,400-cell GeoTIFF (0.25 ft cells over the 600 ft the small site and its margin take):
    its analysis needs many seconds of CPU, so a run over it outlasts a 1 s limit on any machine."""
    from sitebuilder import write_dem

    from geosite.io.raster import read_dem
    from geosite.testing import inclined_plane

    path = tmp_path_factory.mktemp("heavy") / "dem.tif"
    write_dem(path, inclined_plane(4.0, shape=(2400, 2400), cell=0.25))
    assert read_dem(path, "us_ft").shape == (2400, 2400)
    return path.read_bytes()


def check(folder, out, *extra):
    return CliRunner().invoke(cli, ["-q", "check", str(folder), "--out", str(out), *extra])


def toml(folder, **tables):
    import tomllib

    conf = tomllib.loads((folder / "site.toml").read_text())
    for k, v in tables.items():
        conf[k] = {**conf.get(k, {}), **v} if isinstance(v, dict) else v
    write_toml(folder / "site.toml", conf)


def sandbox_processes(tmp: Path) -> list[int]:
    """Processes still running the sandbox child on a folder under ``tmp``."""
    pids = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                cmd = (p / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            except OSError:
                continue
            if "geosite.review.sandbox" in cmd and str(tmp) in cmd:
                pids.append(int(p.name))
    return pids


def refused(res, out, tmp, *needles):
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    for n in needles:
        assert n in res.output, res.output
    assert not out.exists()
    assert list(tmp.iterdir()) == []  # the staged copy and the child's folder are gone
    assert sandbox_processes(tmp) == []


def fifo(path: Path) -> Path:
    path.parent.mkdir(exist_ok=True)
    os.mkfifo(path)
    return path


# ------------------------------------------------------------------------------------------ hostile files


def recursive_view_gpkg(src: Path, dst: Path) -> None:
    """A copy of a GeoPackage with a layer that is a recursive SQL view (it never ends when read)."""
    dst.write_bytes(src.read_bytes())
    con = sqlite3.connect(dst)
    con.execute(
        "CREATE VIEW roads AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
        "SELECT n AS fid, NULL AS geom FROM r"
    )
    con.execute(
        "INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES ('roads', 'features', "
        "'roads', 7593)"
    )
    con.execute("INSERT INTO gpkg_geometry_columns VALUES ('roads', 'geom', 'LINESTRING', 7593, 0, 0)")
    con.commit()
    con.close()


def nested_blocks_dxf(levels: int, copies: int) -> str:
    """A DXF whose block B{k} inserts B{k-1} ``copies`` times, ``levels`` deep, one insert of the last
    in the drawing: copies ** (levels - 1) lines once expanded."""
    blocks = [
        "0\nSECTION\n2\nBLOCKS\n",
        "0\nBLOCK\n8\n0\n2\nB0\n70\n0\n10\n0\n20\n0\n30\n0\n3\nB0\n",
        "0\nLINE\n8\n0\n10\n0\n20\n0\n11\n1\n21\n1\n",
        "0\nENDBLK\n",
    ]
    for k in range(1, levels):
        blocks.append(f"0\nBLOCK\n8\n0\n2\nB{k}\n70\n0\n10\n0\n20\n0\n30\n0\n3\nB{k}\n")
        blocks += [f"0\nINSERT\n8\n0\n2\nB{k - 1}\n10\n{i}\n20\n0\n" for i in range(copies)]
        blocks.append("0\nENDBLK\n")
    blocks.append("0\nENDSEC\n")
    ents = f"0\nSECTION\n2\nENTITIES\n0\nINSERT\n8\n0\n2\nB{levels - 1}\n10\n0\n20\n0\n0\nENDSEC\n0\nEOF\n"
    return DXF_HEAD + "".join(blocks) + ents


def hostile_layers(folder: Path, url: str, outside: Path) -> dict[str, str]:
    """Every hostile layer of the issue in one submission (a site's layer problems are reported together)."""
    ogr_vrt = (
        f'<OGRVRTDataSource><OGRVRTLayer name="roads"><SrcDataSource>{outside}/roads.gpkg</SrcDataSource>'
        f"<SrcSQL dialect=\"SQLITE\">SELECT ogr_geocode('x', 'QUERY_TEMPLATE={url}/geo?q=%s', "
        f"'CACHE_FILE={outside}/cache.db') AS g FROM roads</SrcSQL></OGRVRTLayer></OGRVRTDataSource>"
    )
    (folder / "roads.vrt").write_text(ogr_vrt)
    (folder / "wfs.gml").write_text(
        f'<?xml version="1.0"?><OGRWFSDataSource><URL>{url}/wfs?SERVICE=WFS</URL></OGRWFSDataSource>'
    )
    (folder / "lakes.gml").write_text(
        f'<?xml version="1.0"?><ogr:FeatureCollection xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        f'xsi:schemaLocation="http://ogr.maptools.org/ {url}/schema.xsd" '
        'xmlns:ogr="http://ogr.maptools.org/" '
        'xmlns:gml="http://www.opengis.net/gml"><gml:featureMember><ogr:lakes '
        'fid="lakes.0"><ogr:geometryProperty>'
        "<gml:Point "
        'srsName="EPSG:7593"><gml:coordinates>500300,199700</gml:coordinates></gml:Point></ogr:geometryProperty>'
        "</ogr:lakes></gml:featureMember></ogr:FeatureCollection>"
    )
    wet = json.loads(
        gpd.GeoDataFrame({"id": [1]}, geometry=[rect(220, -380, 20, 20)], crs="EPSG:7593").to_json()
    )
    wet["crs"] = {"type": "link", "properties": {"href": f"{url}/crs.wkt", "type": "ogcwkt"}}
    (folder / "wetlands.geojson").write_text(json.dumps(wet))
    gpd.GeoDataFrame({"id": [1]}, geometry=[line((210, -390), (390, -390))], crs="EPSG:7593").to_file(
        folder / "channels.shp"
    )
    (folder / "channels.prj").write_text(
        f"+proj=tmerc +lat_0=45 +lon_0=-92 +k=1 +x_0=0 +y_0=0 +ellps=GRS80 "
        f"+nadgrids={outside}/grid.gsb +units=us-ft +no_defs"
    )
    gpd.GeoDataFrame({"id": [1]}, geometry=[rect(230, -370, 20, 20)], crs="EPSG:7593").to_file(
        folder / "floodplain.shp"
    )
    (folder / "floodplain.prj").write_text(  # issue 32: a datum naming an outside grid in a WKT extension
        'GEOGCS["NAD83",DATUM["North_American_Datum_1983",SPHEROID["GRS 1980",6378137,298.257222101],'
        f'EXTENSION["PROJ4_GRIDS","{outside}/grid.gsb"]],PRIMEM["Greenwich",0],'
        'UNIT["degree",0.0174532925199433]]'
    )
    recursive_view_gpkg(folder / "layers.gpkg", folder / "views.gpkg")
    (folder / "blocks.dxf").write_text(nested_blocks_dxf(levels=12, copies=10))
    return {
        "roads": "roads.vrt",
        "streams": "wfs.gml",
        "lakes": "lakes.gml",
        "wetlands": "wetlands.geojson",
        "channels": "channels.shp",
        "utilities": "views.gpkg:roads",
        "structures": "blocks.dxf",
        "floodplain": "floodplain.shp",
    }


# ------------------------------------------------------------------------------------------ end to end


def test_every_hostile_kind_is_refused_with_no_request_and_nothing_outside_opened(tmp_path, private_tmp):
    """The issue's VRT (URL and absolute sources, VRTWarpedDataset), OGR VRT with ogr_geocode, GML WFS
    description, GML, GeoJSON crs link, +nadgrids, recursive GeoPackage view and nested DXF blocks: each
    refused by name in one run, no request made, no outside FIFO opened, no .gfs written."""
    folder = submission(tmp_path / "sub")
    outside = tmp_path / "outside"
    for name in ("dem.tif", "roads.gpkg", "grid.gsb", "warp.tif"):
        fifo(outside / name)
    with loopback_server() as (url, requests):
        (folder / "mosaic.vrt").write_text(
            '<VRTDataset rasterXSize="300" rasterYSize="300"><VRTRasterBand dataType="Float32" '
            'band="1"><SimpleSource>'
            "<SourceFilename "
            f'relativeToVRT="0">{url}/tile.tif</SourceFilename><SourceBand>1</SourceBand></SimpleSource>'
            "<SimpleSource><SourceFilename "
            f'relativeToVRT="0">{outside}/dem.tif</SourceFilename></SimpleSource>'
            "</VRTRasterBand></VRTDataset>"
        )
        (folder / "warped.vrt").write_text(
            f'<VRTDataset subClass="VRTWarpedDataset" rasterXSize="300" rasterYSize="300"><GDALWarpOptions>'
            "<SourceDataset "
            f'relativeToVRT="0">{outside}/warp.tif</SourceDataset></GDALWarpOptions></VRTDataset>'
        )
        toml(
            folder,
            dem={"path": "mosaic.vrt", "proposed": "warped.vrt"},
            layers=hostile_layers(folder, url, outside),
        )
        before = digest(folder)
        t0 = time.monotonic()
        res = check(folder, tmp_path / "out", "--limit", "check_seconds=120")
        refused(
            res,
            tmp_path / "out",
            private_tmp,
            "mosaic.vrt: a VRT",
            "warped.vrt: a VRT",
            "roads.vrt: an OGR VRT",
            "wfs.gml: cannot be read as a vector file",
            "lakes.gml: a GML file",
            "wetlands.geojson: crs member",
            "is not a named EPSG or OGC CRS",
            "channels.shp: channels.prj: a CRS naming a grid",
            "floodplain.shp: floodplain.prj: a CRS naming a grid",
            "views.gpkg: holds the SQL view 'roads'",
            "blocks.dxf: blocks nested more than 8 deep",
        )
        assert time.monotonic() - t0 < 60  # no FIFO opened (it would block), no view run
        assert requests == []
    assert digest(folder) == before
    assert not list(folder.rglob("*.gfs")) and not list(folder.rglob("*.aux.xml"))


def test_a_link_in_the_submission_is_refused_at_staging_and_never_followed(tmp_path, private_tmp):
    folder = submission(tmp_path / "sub")
    target = fifo(tmp_path / "outside" / "dem.tif")  # following the link to read it would block
    (folder / "dem.tif").unlink()
    (folder / "dem.tif").symlink_to(target)
    refused(
        check(folder, tmp_path / "out"),
        tmp_path / "out",
        private_tmp,
        "dem.tif: a symbolic link",
        "refused without following it",
    )


def test_a_sparse_3_gb_prj_is_refused_by_its_size_before_a_byte_is_read(tmp_path, private_tmp):
    folder = submission(tmp_path / "sub")
    gpd.read_file(folder / "layers.gpkg", layer="site_boundary").to_file(folder / "boundary.shp")
    with open(folder / "boundary.prj", "r+b") as fh:
        fh.truncate(3 * 2**30)  # sparse: 3 GB long, no block on disk
    toml(folder, layers={"site_boundary": "boundary.shp"})
    t0 = time.monotonic()
    refused(
        check(folder, tmp_path / "out"),
        tmp_path / "out",
        private_tmp,
        "boundary.prj: 3,221,225,472 bytes",
        "over max_toml_bytes",
        "refused before reading",
    )
    assert time.monotonic() - t0 < 10


def test_a_fifo_named_as_a_grid_in_site_toml_crs_is_never_opened(tmp_path, private_tmp):
    folder = submission(tmp_path / "sub")
    grid = fifo(tmp_path / "outside" / "grid.gsb")
    toml(folder, crs=f"+proj=tmerc +lat_0=45 +lon_0=-92 +ellps=GRS80 +nadgrids={grid} +units=us-ft +no_defs")
    refused(
        check(folder, tmp_path / "out", "--limit", "check_seconds=60"),
        tmp_path / "out",
        private_tmp,
        "site.toml: crs: a CRS naming a grid, file or URL",
    )


def test_a_journal_beside_the_geopackage_is_left_alone_and_the_report_says_what_was_read(
    tmp_path, private_tmp
):
    """layers.gpkg-wal is neither merged nor deleted (it is not staged); the report records the isolation
    that held and each staged file's SHA-256, which a reader can recompute."""
    folder = submission(tmp_path / "sub")
    (folder / "layers.gpkg-wal").write_bytes(os.urandom(4096))
    before = digest(folder)
    res = check(folder, tmp_path / "out")
    assert res.exit_code in (0, 1), res.output
    assert digest(folder) == before
    assert not (folder / "layers.gpkg-shm").exists()
    f = json.loads((tmp_path / "out" / "findings.json").read_text())
    box = f["sandbox"]
    assert box["network_namespace"] or box["seccomp"]
    if isolate_landlock_abi() > 0:
        assert box["landlock"] is True, box["landlock_error"]
    assert "CONNECTED" not in box["network_probe"]
    assert set(box["drivers"]) <= {"GTiff", "GPKG", "ESRI Shapefile", "GeoJSON", "DXF", "MEM", "Memory"}
    assert box["proj_network"] is False
    # the child runs the kernels this process runs: loaded before it is confined, never refused by a
    # confinement and silently JIT-compiled in every check
    from geosite.hydrology import _kernels
    from geosite.terrain import _contour_kernels

    assert box["kernels"] == {"hydrology": _kernels.ENGINE, "contours": _contour_kernels.ENGINE}
    staged = {s["path"]: s["sha256"] for s in box["staged"]["files"]}
    assert staged == {
        p: hashlib.sha256((folder / p).read_bytes()).hexdigest()
        for p in ("dem.tif", "layers.gpkg", "site.toml")
    }
    assert any("layers.gpkg-wal" in s for s in box["staged"]["not_staged"])
    assert f["folder"] == str(folder)  # the submission's path, not the staged copy's
    assert f["isolation"].startswith("Read in a sandbox: a staged copy, network blocked by")
    md = (tmp_path / "out" / "findings.md").read_text()
    html = (tmp_path / "out" / "report.html").read_text()
    for sha in staged.values():  # the report names what it read
        assert sha in md and sha in html
    assert list(private_tmp.iterdir()) == []


def test_tracebacks_of_the_issue_are_exit_2_naming_file_and_key(tmp_path, private_tmp):
    folder = submission(tmp_path / "sub")
    text = (folder / "site.toml").read_text()
    (folder / "site.toml").write_text(text + "\nx = " + "[" * 5000 + "]" * 5000 + "\n")
    refused(
        check(folder, tmp_path / "out"),
        tmp_path / "out",
        private_tmp,
        "site.toml: arrays or tables nested too deeply",
    )
    (folder / "site.toml").write_text(text)
    # a NUL in a path, list values in an attribute, a layer in a Mars CRS: one run, every problem named
    dist = json.loads(gpd.read_file(folder / "layers.gpkg", layer="disturbance").to_json())
    for ft in dist["features"]:
        ft["properties"]["id"] = [1, 2]
    (folder / "dist.geojson").write_text(json.dumps(dist))
    mars = gpd.read_file(folder / "layers.gpkg", layer="disturbance").set_crs(
        "IAU_2015:49910", allow_override=True
    )
    mars.to_file(folder / "mars.gpkg", layer="stockpiles")
    toml(
        folder,
        dem={"path": "dem\x00.tif"},
        layers={"disturbance": "dist.geojson", "stockpiles": "mars.gpkg:stockpiles"},
    )
    refused(
        check(folder, tmp_path / "out"),
        tmp_path / "out",
        private_tmp,
        "[dem] path = 'dem\\x00.tif': a path holding a NUL",
        "dist.geojson: column 'id' holds lists",
        "mars.gpkg, layer 'stockpiles': cannot be moved from its CRS 'Mars",
    )


def test_the_child_is_killed_at_the_wall_clock_limit(tmp_path, private_tmp, heavy_dem):
    folder = submission(tmp_path / "sub")
    (folder / "dem.tif").write_bytes(heavy_dem)
    t0 = time.monotonic()
    res = check(folder, tmp_path / "out", "--limit", "check_seconds=1")
    refused(res, tmp_path / "out", private_tmp, "took over 1 s (check_seconds)", "nothing written")
    assert time.monotonic() - t0 < 10


def test_the_memory_limit_stops_the_child_with_a_clear_message(tmp_path, private_tmp):
    folder = submission(tmp_path / "sub")
    refused(
        check(folder, tmp_path / "out", "--limit", "check_memory_bytes=300000000"),
        tmp_path / "out",
        private_tmp,
        "more memory than check_memory_bytes 300,000,000",
    )


def test_the_cpu_limit_stops_the_child_with_a_clear_message(tmp_path, private_tmp, heavy_dem):
    """The heavy DEM needs many CPU seconds to analyse; the kernel stops the child at 1."""
    folder = submission(tmp_path / "sub")
    (folder / "dem.tif").write_bytes(heavy_dem)
    refused(
        check(folder, tmp_path / "out", "--limit", "check_cpu_seconds=1"),
        tmp_path / "out",
        private_tmp,
        "over 1 s of CPU time (check_cpu_seconds)",
    )


def test_killing_check_kills_its_child(tmp_path, heavy_dem):
    """``geosite check`` killed (SIGKILL, no chance to clean up) while its child analyses the heavy DEM:
    the kernel ends the child too (PR_SET_PDEATHSIG), so nothing runs on past the inspector's run."""
    import signal
    import subprocess
    import sys

    folder = submission(tmp_path / "sub")
    (folder / "dem.tif").write_bytes(heavy_dem)
    tmp = tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    parent = subprocess.Popen(
        [sys.executable, "-m", "geosite.cli", "-q", "check", str(folder), "--out", str(tmp_path / "out")],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not sandbox_processes(tmp) and time.monotonic() < deadline:
        time.sleep(0.05)
    children = sandbox_processes(tmp)
    assert children, "the sandbox child never started"
    time.sleep(0.5)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while sandbox_processes(tmp) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sandbox_processes(tmp) == []
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------------------------- the layers, one by one


def test_isolation_stops_a_connection_to_the_loopback_server():
    """In a forked child, each layer alone (network namespace; seccomp filter) leaves the loopback server
    with zero requests, where the same connection from the parent arrives."""
    import socket
    import urllib.request

    from geosite.io import isolate

    with loopback_server() as (url, requests):
        urllib.request.urlopen(url + "/parent", timeout=5).read()
        assert requests == ["/parent"]
        host, port = url.split("//")[1].split(":")
        for layer in (isolate.enter_network_namespace, isolate.block_sockets):
            pid = os.fork()
            if pid == 0:  # the child: cut the network, then try
                held, _ = layer()
                try:
                    socket.create_connection((host, int(port)), timeout=2).sendall(
                        b"GET /child HTTP/1.0\r\n\r\n"
                    )
                    os._exit(3)
                except OSError:
                    os._exit(0 if held else 4)
            _, status = os.waitpid(pid, 0)
            assert os.WEXITSTATUS(status) == 0, (layer.__name__, status)
        time.sleep(0.2)
        assert requests == ["/parent"]


def isolate_landlock_abi() -> int:
    from geosite.io.isolate import landlock_abi

    return landlock_abi()


@pytest.mark.skipif(isolate_landlock_abi() < 1, reason="no Landlock in this kernel")
def test_landlock_lets_the_child_read_only_what_it_was_given(tmp_path):
    """In a forked child restricted to one folder: a file there reads, a file beside it (outside) does
    not, nor can a file be written outside its writable folder, nor a TCP connection made (ABI >= 4)."""
    from geosite.io import isolate

    given, outside, work = tmp_path / "given", tmp_path / "outside", tmp_path / "work"
    for d in (given, outside, work):
        d.mkdir()
    (given / "a.txt").write_text("a")
    (outside / "secret.txt").write_text("s")
    with loopback_server() as (url, requests):
        host, port = url.split("//")[1].split(":")
        pid = os.fork()
        if pid == 0:
            held, _ = isolate.restrict_files([str(given)], [str(work)])
            code = 0 if held else 10
            code |= 0 if (given / "a.txt").read_text() == "a" else 1
            try:
                (outside / "secret.txt").read_text()
                code |= 2
            except PermissionError:
                pass
            try:
                (outside / "new.txt").write_text("x")
                code |= 4
            except PermissionError:
                pass
            (work / "ok.txt").write_text("w")
            if isolate.landlock_abi() >= 4 and "CONNECTED" in isolate.network_probe(host, int(port)):
                code |= 8
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.WEXITSTATUS(status) == 0, os.WEXITSTATUS(status)
        assert requests == []
    assert (work / "ok.txt").read_text() == "w" and not (outside / "new.txt").exists()


def test_only_the_allowlisted_gdal_drivers_remain(tmp_path):
    """After pruning (in a fresh process), a VRT opened without naming a driver finds none to read it."""
    import subprocess
    import sys

    vrt = tmp_path / "a.vrt"
    vrt.write_text(
        '<VRTDataset rasterXSize="2" rasterYSize="2"><VRTRasterBand dataType="Byte" band="1"/></VRTDataset>'
    )
    code = (
        "import json, sys, rasterio, pyogrio\nwith rasterio.Env(): pass\n"
        "from geosite.io.allowlist import prune_gdal_drivers\nleft = prune_gdal_drivers()\n"
        "try:\n    rasterio.open(sys.argv[1]); opened = True\nexcept Exception:\n    opened = False\n"
        "print(json.dumps({'left': left, 'opened': opened}))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(vrt)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert len(out["left"]) == 2  # rasterio's GDAL and pyogrio's
    for names in out["left"].values():
        assert (
            set(names) <= {"GTiff", "GPKG", "ESRI Shapefile", "GeoJSON", "DXF", "MEM", "Memory"}
            and "GTiff" in names
        )
    assert out["opened"] is False


def test_staging_refuses_fifos_control_characters_and_oversized_totals(tmp_path):
    from geosite.io.limits import Limits
    from geosite.io.stage import stage_submission

    folder = submission(tmp_path / "sub")
    staged = stage_submission(folder, tmp_path / "s1")
    assert sorted(f.path for f in staged.files) == ["dem.tif", "layers.gpkg", "site.toml"]
    assert all(not os.access(staged.root / f.path, os.W_OK) or os.geteuid() == 0 for f in staged.files)
    assert oct((staged.root / "dem.tif").stat().st_mode & 0o777) == "0o444"
    total = sum(f.size for f in staged.files)
    with pytest.raises(LimitError, match="max_staged_total_bytes"):
        stage_submission(folder, tmp_path / "s2", Limits(max_staged_total_bytes=total - 1))
    assert not (tmp_path / "s2").exists()  # refused before anything was copied
    os.link(folder / "dem.tif", tmp_path / "outside-dem.tif")  # the same file under a name outside
    with pytest.raises(UnsafeInputError, match="2 hard links"):
        stage_submission(folder, tmp_path / "s5")
    (tmp_path / "outside-dem.tif").unlink()
    (folder / "bad\x1bname.txt").write_text("x")
    with pytest.raises(UnsafeInputError, match="control character"):
        stage_submission(folder, tmp_path / "s3")
    (folder / "bad\x1bname.txt").unlink()
    os.mkfifo(folder / "pipe.gpkg")
    with pytest.raises(UnsafeInputError, match="FIFO"):
        stage_submission(folder, tmp_path / "s4")


def test_geopackage_inspection_allows_geosites_own_and_refuses_views_triggers_virtual_tables(tmp_path):
    from geosite.io.allowlist import check_geopackage

    folder = submission(tmp_path / "sub")
    check_geopackage(folder / "layers.gpkg", "layers.gpkg")  # GDAL's own R-trees and triggers pass
    cases = {
        "CREATE VIEW v AS SELECT 1": "SQL view 'v'",
        "CREATE TRIGGER t AFTER INSERT ON site_boundary BEGIN SELECT 1; END": "trigger 't'",
        "CREATE VIRTUAL TABLE f USING fts5(a)": "virtual table 'f'",
        "CREATE TABLE g (a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2))": "generated columns",
        "UPDATE gpkg_spatial_ref_sys SET definition = '+proj=longlat +nadgrids=/x/y.gsb' WHERE srs_id = "
        "4326": "srs_id 4326: a CRS naming a grid",
    }
    for i, (sql, needle) in enumerate(cases.items()):
        copy = tmp_path / f"c{i}.gpkg"
        copy.write_bytes((folder / "layers.gpkg").read_bytes())
        con = sqlite3.connect(copy)
        con.execute(sql)
        con.commit()
        con.close()
        with pytest.raises(UnsafeInputError, match=needle.replace("(", r"\(")):
            check_geopackage(copy, copy.name)


def test_dxf_expanded_entities_are_counted_by_hand(tmp_path):
    """Block A: 2 lines. Block B: 3 INSERTs of A and a line (4 + 3 x 2 = 10). The drawing: 2 INSERTs of
    B and a MINSERT of A of 2 x 2 (3 + 2 x 10 + 4 x 2 = 31 entities): refused over 30, read at 31."""
    from geosite.io.allowlist import check_dxf

    ln = "0\nLINE\n8\n0\n10\n0\n20\n0\n11\n1\n21\n1\n"
    ins = "0\nINSERT\n8\n0\n2\n{}\n10\n0\n20\n0\n"
    text = (
        DXF_HEAD
        + "0\nSECTION\n2\nBLOCKS\n0\nBLOCK\n8\n0\n2\nA\n70\n0\n"
        + ln * 2
        + "0\nENDBLK\n"
        + "0\nBLOCK\n8\n0\n2\nB\n70\n0\n"
        + ins.format("A") * 3
        + ln
        + "0\nENDBLK\n0\nENDSEC\n"
        + "0\nSECTION\n2\nENTITIES\n"
        + ins.format("B") * 2
        + "0\nINSERT\n8\n0\n2\nA\n70\n2\n71\n2\n10\n0\n20\n0\n"
        + "0\nENDSEC\n0\nEOF\n"
    )
    path = tmp_path / "a.dxf"
    path.write_text(text)
    check_dxf(path, "a.dxf", 31)
    with pytest.raises(UnsafeInputError, match="over 30 entities"):
        check_dxf(path, "a.dxf", 30)
    path.write_text(nested_blocks_dxf(levels=5, copies=100))  # 100 ** 4 = 1e8 lines from 127 KB
    with pytest.raises(UnsafeInputError, match="over 2,000,000 entities"):
        check_dxf(path, "a.dxf", 2_000_000)
    path.write_text(nested_blocks_dxf(levels=9, copies=1))
    with pytest.raises(UnsafeInputError, match="nested more than 8 deep"):
        check_dxf(path, "a.dxf", 2_000_000)
    path.write_text(nested_blocks_dxf(levels=8, copies=1))
    check_dxf(path, "a.dxf", 2_000_000)


@pytest.mark.parametrize(
    ("crs", "ok"),
    [
        ("EPSG:7593", True),
        (7593, True),
        ('PROJCS["x",GEOGCS["y",DATUM["z",SPHEROID["GRS80",6378137,298.257]]]]', True),
        ("+proj=tmerc +ellps=GRS80 +units=us-ft", True),
        ("+proj=tmerc +nadgrids=@null", False),
        ("+proj=longlat +geoidgrids=/x.gtx", False),
        ("+init=/etc/passwd:x", False),
        ('BOUNDCRS[SOURCECRS[...],ABRIDGEDTRANSFORMATION[PARAMETERFILE["g","/x.gsb"]]]', False),
        ('{"$schema": "https://proj.org/schemas/v0.7/projjson.schema.json"}', False),
        # issue 32: WKT extensions, optional grids, grid parameters of pipelines, models, quoted paths
        ('GEOGCS["x",DATUM["d",SPHEROID["s",6378137,298.257],EXTENSION["PROJ4_GRIDS","/abs/o.gsb"]]]', False),
        ('GEOGCS["x",DATUM["d",SPHEROID["s",6378137,298.257]],EXTENSION["PROJ4","+proj=longlat"]]', False),
        ("+proj=pipeline +step +proj=hgridshift +grids=us_noaa_conus.tif", False),
        ("proj=pipeline step proj=vgridshift grids=x.gtx", False),
        ("+proj=defmodel +model=nkg.json", False),
        ("+proj=tinshift +file=x.json", False),
        ('{"type": "GeographicCRS", "parameter_file": "a.gsb"}', False),
        ('GEOGCS["../grids/x",DATUM["d",SPHEROID["s",6378137,298.257]]]', False),
        ('GEOGCS["x",DATUM["d",SPHEROID["s",6378137,298.257]],AUTHORITY["EPSG","4269"]]', True),
        ("+proj=tmerc +towgs84=1,2,3 +units=us-ft", True),
        (
            'PROJCS["NAD83 / Wisconsin Transverse Mercator",GEOGCS["NAD83",DATUM["North_American_Datum_1983",'
            'SPHEROID["GRS 1980",6378137,298.257222101]],PRIMEM["Greenwich",0],'
            'UNIT["degree",0.0174532925199433]],'
            'PROJECTION["Transverse_Mercator"],UNIT["metre",1]]',
            True,
        ),
    ],
)
def test_crs_text_is_plain_or_refused(crs, ok):
    from geosite.io.allowlist import check_crs_text

    if ok:
        check_crs_text(crs, "crs")
    else:
        with pytest.raises(UnsafeInputError, match="grid, file or URL"):
            check_crs_text(crs, "crs")


def test_terminal_escapes_from_the_submission_are_not_printed(tmp_path, private_tmp):
    """A site name carrying a terminal escape (ESC [2J clears the screen) reaches the inspector's
    terminal as text in the verdict line."""
    folder = submission(tmp_path / "sub")
    toml(folder, name="Lot\x1b[2J 7")
    res = CliRunner().invoke(cli, ["check", str(folder), "--out", str(tmp_path / "out")])
    assert res.exit_code in (0, 1) and "\x1b" not in res.output, res.output
    assert "Lot\\x1b[2J 7" in res.output


def test_csv_cells_that_would_run_as_formulas_are_neutralised(tmp_path):
    from geosite.io.spreadsheet import safe_cell
    from geosite.scale.summary import SUMMARY_COLUMNS, write_summary

    payloads = ['=HYPERLINK("http://x","y")', "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1", "  =1"]
    assert [safe_cell(p) for p in payloads] == ["'" + p for p in payloads]
    assert [safe_cell(v) for v in ("Lot 7", -2.5, 3, None, "a=b")] == ["Lot 7", -2.5, 3, None, "a=b"]
    rows = [
        {
            **dict.fromkeys(SUMMARY_COLUMNS),
            "site": "s",
            "name": payloads[0],
            "status": "error",
            "error": "@cmd",
            "seconds": -1.0,
            "boundary_wkb": None,
            "crs": None,
        }
    ]
    write_summary(rows, tmp_path)
    import csv

    with open(tmp_path / "summary.csv", newline="") as fh:
        row = next(csv.DictReader(fh))
    assert row["name"] == "'" + payloads[0] and row["error"] == "'@cmd" and row["seconds"] == "-1.0"


@pytest.mark.parametrize(("headroom", "at_ceiling"), [(1.05, True), (10.0, False)])
def test_an_error_at_the_memory_ceiling_is_the_limits(headroom, at_ceiling):
    """The rule behind the memory-limit message: a child whose peak address space reached 85 % of its
    RLIMIT_AS reports its error as the limit (a library short of memory says something else: PROJ an
    unknown CRS, SQLite an unreadable table). Run in a fresh process given a limit ``headroom`` times its
    peak so far; without a limit, never."""
    import subprocess
    import sys

    code = (
        "import resource\n"
        "from geosite.review.sandbox_child import at_memory_ceiling\n"
        "assert not at_memory_ceiling()\n"
        "peak = next(int(x.split()[1]) * 1024 for x in open('/proc/self/status')"
        " if x.startswith('VmPeak:'))\n"
        f"resource.setrlimit(resource.RLIMIT_AS, (int(peak * {headroom}), resource.RLIM_INFINITY))\n"
        "print(at_memory_ceiling())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(at_ceiling)
