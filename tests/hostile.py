"""Hostile submissions for the security tests: a small clean submission to spoil, a loopback HTTP server
that counts the requests it gets (bound to 127.0.0.1 only, stopped by the test that started it), and
the CLI run in a child process with a time limit (so a hang fails the test instead of freezing it)."""

from __future__ import annotations

import hashlib
import http.server
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import geopandas as gpd
from sitebuilder import make_site, rect

from geosite.testing import inclined_plane

CRS = "EPSG:7593"


def gdf(geoms, **cols) -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame(cols, geometry=list(geoms), crs=CRS)


def submission(folder: Path, layers: dict | None = None, conf: dict | None = None, dem: bool = True) -> Path:
    """A small submission: a 200 x 200 ft site with a 100 x 100 ft disturbance on a 4 % plane (2-ft cells,
    the DEM reaching 200 ft around the site), Grantsburg, declared a plan statement."""
    base = {
        "site_boundary": gdf([rect(200, -400, 200, 200)], id=[1]),
        "disturbance": gdf(
            [rect(250, -350, 100, 100)], id=[1], phase=["all"], start=["2027-05-03"], end=["2027-10-29"]
        ),
    }
    base.update(layers or {})
    c = {"declared": {"plan_type": "statement"}}
    for k, v in (conf or {}).items():
        c[k] = {**c.get(k, {}), **v} if isinstance(v, dict) and isinstance(c.get(k), dict) else v
    return make_site(folder, base, c, dem=inclined_plane(4.0, shape=(300, 300), cell=2.0) if dem else None)


def digest(folder: Path) -> dict[str, str]:
    """Every regular file under ``folder`` (links not followed) by its sha256."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and not p.is_symlink():
            out[str(p.relative_to(folder))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


class _Counter(http.server.BaseHTTPRequestHandler):
    def _count(self) -> None:
        self.server.requests.append(self.path)  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_HEAD = do_POST = _count

    def log_message(self, *args) -> None:  # silence
        pass


@contextmanager
def loopback_server() -> Iterator[tuple[str, list[str]]]:
    """A counting HTTP server on 127.0.0.1 (a free port), for the length of the block: yields its base
    URL and the list of request paths it has received; shut down and joined on exit."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Counter)
    server.requests = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.requests  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def run_geosite(*args: str, timeout: float = 120.0) -> subprocess.CompletedProcess:
    """``geosite ARGS`` in a child process, killed after ``timeout`` seconds (subprocess.run kills it)."""
    return subprocess.run(
        [sys.executable, "-m", "geosite.cli", *args], capture_output=True, text=True, timeout=timeout
    )
