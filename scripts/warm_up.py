"""Set-up's last step (scripts/_venv.sh, install_geosite): do now what the first run would otherwise do.

    .venv/bin/python scripts/warm_up.py

What a first ``geosite analyze`` did that the second did not (measured by benchmarks/bench_first_run.py,
fresh caches and a package without bytecode, as a fresh set-up leaves them):

* compile geosite's modules to bytecode: an editable install (``pip install -e``, the set-up's) leaves
  none, and the first run imports about a hundred modules (a regular install compiles them itself);
* build matplotlib's and ezdxf's font lists (``fontlist-*.json`` and ``font_manager_cache.json`` in
  their cache folders), which the first import of each makes by scanning the system's fonts; the
  sheets need the one, the DXF export the other;
* compile the numba kernels where the build could not compile them ahead of time (no C compiler):
  numba caches them on disk (``geosite.hydrology._kernels.warm``; nothing to do for the extension).

Each step is idempotent and quick when already done, so the set-up runs it every time.
"""

from __future__ import annotations

import compileall
import importlib.util
import sys
import time
from pathlib import Path


def compile_package() -> int:
    """Byte-compile the installed geosite package (where it is imported from); returns the failures."""
    spec = importlib.util.find_spec("geosite")
    if spec is None or spec.origin is None:
        raise SystemExit("geosite is not installed in this interpreter")
    ok = compileall.compile_dir(str(Path(spec.origin).parent), quiet=1, workers=1)
    return 0 if ok else 1


def font_lists() -> None:
    """Have matplotlib and ezdxf build their font lists now (each writes it to its cache folder)."""
    import ezdxf  # its font manager scans the fonts when first imported
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import font_manager

    font_manager.fontManager.findfont("DejaVu Sans")
    del ezdxf


def kernels() -> str:
    """Compile the kernels where they were not compiled ahead of time; returns the engines."""
    from geosite.hydrology import _kernels
    from geosite.terrain import _contour_kernels

    return f"{_kernels.warm()}, contours {_contour_kernels.warm()}"


def main() -> int:
    t = time.perf_counter()
    failed = compile_package()
    font_lists()
    engines = kernels()
    print(
        f"warm-up: bytecode, font lists, kernels ({engines}) in {time.perf_counter() - t:.1f} s",
        file=sys.stderr,
    )
    return failed


if __name__ == "__main__":
    raise SystemExit(main())
