"""Budgets count what is really decoded and bound the whole process tree (issue 32 item 3).

- A raster read is charged every block it touches, whole (block shape from the header): counted by hand
  on small tiled GeoTIFFs, and a 1 MB GeoTIFF of one 16,384 x 16,384 deflate tile (1 GiB decoded) is
  refused under ``--limit raster_budget_bytes=50000000`` before a pixel is decoded, where it passed the
  header limits and ``check`` peaked at 1.5 GB.
- Staging counts folders and entries as it lists them (20,000 empty folders took 50 s to copy and remove,
  outside every limit) and keeps to the check's deadline.
- The child may start no process (so its limits bound all it runs), while its threads still start.
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
import rasterio
from click.testing import CliRunner
from hostile import submission
from rasterio.transform import from_origin
from rasterio.windows import Window

from geosite.cli import cli
from geosite.errors import LimitError, UnsafeInputError
from geosite.io.limits import Limits


def _tif(path, width, height, *, block=None, count=1, dtype="float32", interleave="band", **kw):
    profile = {"driver": "GTiff", "width": width, "height": height, "count": count, "dtype": dtype}
    if block and block[1] == width:  # strips of block[0] rows
        profile.update(blockysize=block[0])
    elif block:
        profile.update(tiled=True, blockxsize=block[1], blockysize=block[0])
    with rasterio.open(
        path,
        "w",
        crs="EPSG:7593",
        transform=from_origin(0, height, 1, 1),
        interleave=interleave,
        **profile,
        **kw,
    ) as dst:
        dst.write(np.zeros((count, height, width), dtype=dtype))
    return path


@pytest.mark.parametrize(
    ("shape", "block", "count", "dtype", "interleave", "window", "charged"),
    [
        # 100 x 100 float32 in 32 x 32 tiles: columns 10-39 and rows 10-39 touch tiles 0 and 1 each way
        ((100, 100), (32, 32), 1, "float32", "band", Window(10, 10, 30, 30), 4 * 32 * 32 * 4),
        ((100, 100), (32, 32), 1, "float32", "band", None, 16 * 32 * 32 * 4),  # 4 x 4 tiles
        ((100, 100), (32, 32), 1, "float32", "band", Window(31, 31, 2, 2), 4 * 32 * 32 * 4),  # a corner
        ((100, 100), (32, 32), 1, "float32", "band", Window(0, 0, 32, 32), 1 * 32 * 32 * 4),
        # three uint16 bands interleaved by pixel: a block holds all three, 6 bytes a cell
        ((64, 64), (16, 16), 3, "uint16", "pixel", Window(0, 0, 17, 1), 2 * 16 * 16 * 6),
        # strips of one row (GDAL's default for an untiled file): 5 rows, 100 cells each
        ((100, 100), (1, 100), 1, "float64", "band", Window(3, 20, 10, 5), 5 * 1 * 100 * 8),
    ],
)
def test_a_read_is_charged_the_blocks_it_touches(
    tmp_path, shape, block, count, dtype, interleave, window, charged
):
    from geosite.io.raster import block_charge, open_raster

    path = _tif(
        tmp_path / "a.tif", shape[1], shape[0], block=block, count=count, dtype=dtype, interleave=interleave
    )
    with open_raster(path, "DEM") as src:
        assert block_charge(src, window) == charged
        limits = Limits(raster_budget_bytes=charged)
    with open_raster(path, "DEM", limits=limits) as src:
        src.read(1, window=window)  # within the budget: read
    with (
        open_raster(path, "DEM", limits=Limits(raster_budget_bytes=charged - 1)) as src,
        pytest.raises(LimitError, match="decode to"),
    ):
        src.read(1, window=window)


def test_a_one_tile_bomb_is_refused_before_it_is_decoded(tmp_path):
    """1 MB on disk, one 16,384 x 16,384 deflate tile: a 100 x 100-cell window decodes 1 GiB."""
    folder = submission(tmp_path / "sub")
    bomb = tmp_path / "bomb.tif"
    t = from_origin(500_000.0 - 1000, 200_000.0 + 1000, 2.0, 2.0)  # over the small site
    with rasterio.open(
        bomb,
        "w",
        driver="GTiff",
        width=16384,
        height=16384,
        count=1,
        dtype="float32",
        crs="EPSG:7593",
        transform=t,
        tiled=True,
        blockxsize=16384,
        blockysize=16384,
        compress="deflate",
        nodata=-9999.0,
    ):
        pass
    assert bomb.stat().st_size < 2_000_000
    (folder / "dem.tif").write_bytes(bomb.read_bytes())
    t0 = time.monotonic()
    res = CliRunner().invoke(
        cli,
        [
            "-q",
            "check",
            str(folder),
            "--out",
            str(tmp_path / "out"),
            "--limit",
            "raster_budget_bytes=50000000",
        ],
    )
    assert res.exit_code == 2, res.output
    assert "decode to 1,024 MB" in res.output and "refused before reading" in res.output
    assert time.monotonic() - t0 < 30 and not (tmp_path / "out").exists()


def test_staging_counts_folders_and_entries_and_keeps_to_its_deadline(tmp_path):
    from geosite.io.stage import stage_submission

    folder = submission(tmp_path / "sub")
    for i in range(1_001):
        (folder / f"d{i:04d}").mkdir()
    t0 = time.monotonic()
    with pytest.raises(UnsafeInputError, match="max_staged_folders 1,000"):
        stage_submission(folder, tmp_path / "s1")
    assert time.monotonic() - t0 < 5
    stage_submission(folder, tmp_path / "s2", Limits(max_staged_folders=1_001))
    many = tmp_path / "many"
    many.mkdir()
    for i in range(60):
        (many / f"f{i:02d}").write_bytes(b"")
    with pytest.raises(UnsafeInputError, match="more entries than a submission may hold"):
        stage_submission(many, tmp_path / "s3", Limits(max_staged_files=20, max_staged_folders=20))
    with pytest.raises(LimitError, match="staging the submission took over check_seconds"):
        stage_submission(folder, tmp_path / "s4", deadline=time.monotonic() - 1)


def test_the_child_can_start_threads_but_no_process(tmp_path):
    """The seccomp filter the child installs, in a forked process: fork and a subprocess refused (EPERM),
    a thread pool works, a Unix socket opens, an Internet socket does not."""
    import errno
    import socket
    import subprocess
    from concurrent.futures import ThreadPoolExecutor

    from geosite.io import isolate

    pid = os.fork()
    if pid == 0:
        code = 0
        held, _ = isolate.block_sockets()
        code |= 0 if held else 1
        try:
            if os.fork() == 0:
                os._exit(0)
            code |= 2
        except OSError as exc:
            code |= 0 if exc.errno == errno.EPERM else 4
        try:
            subprocess.run(["true"], check=False)
            code |= 8
        except OSError:
            pass
        with ThreadPoolExecutor(4) as pool:
            code |= 0 if sum(pool.map(lambda x: x, range(10))) == 45 else 16
        socket.socket(socket.AF_UNIX).close()
        try:
            socket.socket(socket.AF_INET)
            code |= 32
        except OSError:
            pass
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0, os.WEXITSTATUS(status)
