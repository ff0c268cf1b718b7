"""Resource limits on inputs: what geosite refuses before it reads, so no file can exhaust the machine.

:class:`Limits` holds them (defaults below, every one overridable: ``load_site(..., limits=...)``, the
CLI's ``--limit KEY=VALUE``); an input over a limit is a :class:`~geosite.errors.LimitError` naming the
limit, the input's number and the ``--limit`` that raises it.

The raster budget counts the cells a run will read times :data:`BYTES_PER_DEM_CELL`, the peak working
memory the analysis needs per DEM cell (measured: 200-330 bytes per cell, 1 M and 4 M-cell DEMs,
analyze with every stage), so a 29 KB GeoTIFF claiming 200,000 x 200,000 cells is refused from its
header, before a byte of it is decompressed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from typing import Any

from geosite.errors import InputError, LimitError

#: Peak working memory of an analysis per DEM cell read (float64 heights, slope, flow grid, D-inf,
#: masks, contours), bytes; measured on analyze of 1 M and 4 M-cell DEMs.
BYTES_PER_DEM_CELL = 200


def machine_memory_bytes() -> int:
    """Physical memory of this machine (8 GB when it cannot be told)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


def default_raster_budget_bytes() -> int:
    """Half the machine's memory, at most 16 GB: the memory one site's DEM cells may take."""
    return min(machine_memory_bytes() // 2, 16 * 2**30)


@dataclass(frozen=True)
class Limits:
    """Limits on what one site may make geosite read and hold.

    Attributes
    ----------
    raster_budget_bytes : cells read from a DEM x :data:`BYTES_PER_DEM_CELL` may not exceed this
        (default: half the machine's memory, at most 16 GB).
    max_raster_side : cells along either side of a raster file (default 100,000: 100 km at 1 m).
    max_raster_cells : cells in a raster file, read or not (default 5e9): a header claiming more is absurd
        for a site and the mark of a decompression bomb.
    max_vertices_per_feature : vertices in one feature of a layer (default 250,000).
    max_vertices_total : vertices in all the layers of a site (default 2,000,000).
    max_vector_file_bytes : size of one vector file (default 512 MB), checked before it is read.
    max_toml_bytes : size of site.toml (default 1 MB).
    max_table_bytes : size of a CSV table geosite reads (a unit-price file, a submitted estimate), bytes
        (default 1 MB), checked before it is read.
    max_table_rows : rows of such a table (default 10,000).
    max_sheet_tiles : sheets one plan map may be tiled over (default 100: about 14,000 acres at
        1 in = 100 ft on ARCH-D), checked before any work.
    max_staged_file_bytes : size of one file of a submission that is neither a vector file nor a small
        text file (a DEM, a submitted map), bytes (default 2 GiB); checked before ``check`` stages it.
    max_staged_total_bytes : size of all the files of a submission, bytes (default 4 GiB).
    max_staged_files : files in a submission (default 10,000).
    max_staged_folders : folders in a submission (default 1,000: a site folder needs a handful, and each
        one is made and removed again by staging).
    max_result_vertices : vertices in all the geometry a sandboxed ``check`` hands back to the process that
        writes the outputs (the site's layers, what was derived from them and the DEM, the findings),
        counted before that process touches any (default 20,000,000: 320 MB of coordinates).
    check_seconds : wall-clock time the sandboxed ``check`` may take to read and check a submission, s
        (default 1,800); its process is killed after it.
    check_cpu_seconds : CPU time of that process, s (default 1,800).
    check_memory_bytes : address space of that process, bytes (default 0: the raster budget plus 4 GiB).
    """

    raster_budget_bytes: int = 0  # 0: default_raster_budget_bytes()
    max_raster_side: int = 100_000
    max_raster_cells: int = 5_000_000_000
    max_vertices_per_feature: int = 250_000
    max_vertices_total: int = 2_000_000
    max_vector_file_bytes: int = 512 * 2**20
    max_toml_bytes: int = 2**20
    max_table_bytes: int = 2**20
    max_table_rows: int = 10_000
    max_sheet_tiles: int = 100
    max_staged_file_bytes: int = 2 * 2**30
    max_staged_total_bytes: int = 4 * 2**30
    max_staged_files: int = 10_000
    max_staged_folders: int = 1_000
    max_result_vertices: int = 20_000_000
    check_seconds: int = 1_800
    check_cpu_seconds: int = 1_800
    check_memory_bytes: int = 0

    def __post_init__(self) -> None:
        if self.raster_budget_bytes == 0:
            object.__setattr__(self, "raster_budget_bytes", default_raster_budget_bytes())

    def with_overrides(self, overrides: dict[str, Any]) -> Limits:
        """These limits with some replaced (``{"max_vertices_total": 5e6}``); an unknown key or a value
        that is not a positive number is an :class:`~geosite.errors.InputError` listing the keys.
        """
        known = {f.name for f in fields(self)}
        values = {}
        for key, value in overrides.items():
            if key not in known:
                raise InputError(f"--limit {key}: not a limit (known: {', '.join(sorted(known))})")
            try:
                number = float(value)
            except (TypeError, ValueError):
                number = float("nan")
            if not number > 0 or number == float("inf"):
                raise InputError(f"--limit {key}={value!r}: use a positive number")
            values[key] = int(number)
        return replace(self, **values)

    def check_raster(self, what: str, width: int, height: int) -> None:
        """Refuse a raster file whose dimensions are absurd for a site."""
        if width <= 0 or height <= 0:
            raise LimitError(f"{what}: {width} x {height} cells; a raster needs at least one cell")
        if max(width, height) > self.max_raster_side or width * height > self.max_raster_cells:
            raise LimitError(
                f"{what}: claims {width:,} x {height:,} cells; more than a site's raster can be "
                f"(max_raster_side {self.max_raster_side:,}, max_raster_cells {self.max_raster_cells:,}); "
                "refused before reading (a decompression bomb looks like this). Raise with --limit "
                "max_raster_side=N"
            )

    def check_sheet_tiles(self, what: str, tiles: int, sheet: str, scale_ft: float) -> None:
        """Refuse plan maps tiled over more than ``max_sheet_tiles`` sheets each."""
        if tiles > self.max_sheet_tiles:
            raise LimitError(
                f"{what}: the plan maps would take {tiles:,} {sheet} sheets each at 1 in = {scale_ft:g} ft, "
                "over "
                f"max_sheet_tiles {self.max_sheet_tiles:,}; refused before any work. Use --no-maps (the "
                "numbers "
                "need no sheets), map a part of the site, or raise with --limit max_sheet_tiles=N"
            )

    def check_read(self, what: str, width: int, height: int, decoded_bytes: int = 0) -> None:
        """Refuse to read a ``width`` x ``height`` window whose working memory (its cells times
        :data:`BYTES_PER_DEM_CELL`) exceeds the budget, or whose blocks decode to more than the budget
        (``decoded_bytes``, bytes: :func:`geosite.io.raster.block_charge`; GDAL decodes them one at a time
        into its block cache, so they are charged on their own, not added to the analysis' peak).
        """
        self.check_decode(what, decoded_bytes)
        need = width * height * BYTES_PER_DEM_CELL
        if need > self.raster_budget_bytes:
            raise LimitError(
                f"{what}: reading {width:,} x {height:,} cells needs about {need / 2**30:,.1f} GB of working "
                "memory "
                f"({BYTES_PER_DEM_CELL} bytes per cell), over the raster budget of "
                f"{self.raster_budget_bytes / 2**30:,.1f} GB; "
                "refused before reading. Use a coarser DEM, or raise with --limit raster_budget_bytes=N"
            )

    def check_decode(self, what: str, decoded_bytes: int) -> None:
        """Refuse a read whose blocks decode to more than the raster budget (``decoded_bytes``, bytes): GDAL
        decodes every block a read touches whole, so a small window of a file stored as one huge tile costs
        the tile (a 1 MB GeoTIFF of one 16,384 x 16,384 deflate tile decodes to 1 GiB).
        """
        if decoded_bytes > self.raster_budget_bytes:
            raise LimitError(
                f"{what}: the read touches blocks of the file that decode to "
                f"{decoded_bytes / 2**20:,.0f} MB, "
                f"over the raster budget of {self.raster_budget_bytes / 2**20:,.0f} MB (GDAL decodes a "
                "block whole, however little of it is read); refused before reading. Store the raster in "
                "smaller tiles (gdal_translate -co TILED=YES), or raise with --limit raster_budget_bytes=N"
            )

    def check_vertices(self, what: str, per_feature: Any, ids: Any, total_so_far: int = 0) -> int:
        """Refuse a layer with a feature over ``max_vertices_per_feature`` or a site over
        ``max_vertices_total``; returns the new running total.
        """
        import numpy as np

        counts = np.asarray(per_feature)
        over = np.flatnonzero(counts > self.max_vertices_per_feature)
        if over.size:
            i = over[0]
            raise LimitError(
                f"{what}: feature {ids[i]} has {int(counts[i]):,} vertices, over max_vertices_per_feature "
                f"{self.max_vertices_per_feature:,}; simplify it, or raise with --limit "
                "max_vertices_per_feature=N"
            )
        total = total_so_far + int(counts.sum())
        if total > self.max_vertices_total:
            raise LimitError(
                f"{what}: the site's layers reach {total:,} vertices, over max_vertices_total "
                f"{self.max_vertices_total:,}; simplify them, or raise with --limit max_vertices_total=N"
            )
        return total

    def check_file_size(self, what: str, size: int, limit_key: str) -> None:
        """LimitError when file ``what`` (``size`` bytes) is over the limit named ``limit_key``."""
        limit = getattr(self, limit_key)
        if size > limit:
            raise LimitError(
                f"{what}: {size:,} bytes, over {limit_key} {limit:,}; refused before reading. "
                f"Raise with --limit {limit_key}=N"
            )


def parse_limits(items: tuple[str, ...] | list[str], base: Limits | None = None) -> Limits:
    """``KEY=VALUE`` strings (the CLI's repeated ``--limit``) over ``base`` (default: :class:`Limits`)."""
    base = base or Limits()
    overrides = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise InputError(f"--limit {item!r}: use KEY=VALUE (e.g. --limit max_vertices_total=5000000)")
        overrides[key.strip()] = value.strip()
    return base.with_overrides(overrides)
