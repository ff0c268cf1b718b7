"""Output folders written atomically: everything goes to a hidden temporary folder beside the target,
which replaces the target only when every file is written. An existing output is kept unless
``overwrite`` is given; an output inside an input folder is refused."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from geosite.errors import OutputError


def check_output_dir(out: Path, inputs: Sequence[Path], overwrite: bool) -> Path:
    """Refuse an output that exists (without ``overwrite``) or that lies inside (or is) an input."""
    out = Path(out).resolve()
    for inp in inputs:
        inp = Path(inp).resolve()
        if out == inp or out.is_relative_to(inp) or (inp.is_dir() and inp.is_relative_to(out)):
            raise OutputError(f"output folder {out} overlaps the input {inp}; choose an --out outside the inputs")
    if out.exists() and not overwrite:
        raise OutputError(f"output folder {out} exists; pass --overwrite to replace it")
    if out.exists() and not out.is_dir():
        raise OutputError(f"output {out} exists and is not a folder")
    return out


@contextmanager
def atomic_dir(out: Path, overwrite: bool = False) -> Iterator[Path]:
    """Yield a temporary folder; on success it becomes ``out`` (replacing it if ``overwrite``)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = None
    if out.exists():
        if not overwrite:
            shutil.rmtree(tmp, ignore_errors=True)
            raise OutputError(f"output folder {out} exists; pass --overwrite to replace it")
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        out.rename(old)
    tmp.rename(out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def write_json(path: Path, data: Any) -> None:
    """JSON with NaN and infinities written as null (JSON has no NaN)."""
    path.write_text(json.dumps(finite(data), indent=2, default=_json_default, allow_nan=False) + "\n", encoding="utf-8")


def py_scalar(v: Any) -> Any:
    """A numpy scalar (an id or value read from a GeoDataFrame) as the plain Python value; anything
    else unchanged."""
    return v.item() if hasattr(v, "item") else v


def finite(obj: Any) -> Any:
    """``obj`` (dicts, lists, numbers) with NaN and infinities as None, numpy scalars as Python ones:
    what JSON can hold."""
    import math

    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [finite(v) for v in obj]
    if hasattr(obj, "dtype") and getattr(obj, "shape", None) == ():
        return finite(obj.item())
    return obj


def _json_default(obj: Any) -> Any:
    import datetime as dt

    import numpy as np

    if isinstance(obj, dt.date):
        return obj.isoformat()
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def write_gpkg(path: Path, layers: dict[str, Any]) -> list[str]:
    """Write GeoDataFrames as layers of one GeoPackage; empty layers are skipped. Returns layer names."""
    written = []
    for name, gdf in layers.items():
        if gdf is None or len(gdf) == 0:
            continue
        gdf.to_file(path, layer=name, driver="GPKG", engine="pyogrio")
        written.append(name)
    return written
