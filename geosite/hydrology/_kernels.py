"""The hydrology kernels, ready to call: the build's ahead-of-time compiled extension when it is there
and current, else the same source JIT-compiled by numba. Private: use :mod:`geosite.hydrology`.

Every kernel is :mod:`geosite.hydrology._kernels_numba`'s function of that name, taking exactly the
argument types of :data:`SIGNATURES` (numba's notation: ``f8[:, ::1]`` a C-contiguous 2-D float64
array). Both paths check them before the call, so a wrong dtype or layout raises ``TypeError`` (compiled
code given the wrong array would read garbage) and the two paths accept the same calls.

Why ahead of time (measured by benchmarks/bench_first_run.py; numba 0.68.1, 2 cores): JIT-compiling
these kernels costs a fresh process about 6 s (the priority flood alone about 1 s; another 3 s went to
slice copies before :func:`~geosite.hydrology._kernels_numba._grown`), every later process about
0.4 s to import numba and load its cache, and a first ``geosite analyze`` paid 13 s more than the
second. The options the issue listed, measured: compiling during set-up leaves a plain ``pip install``
paying it all on the first run; fewer, explicitly typed kernels still compile for 4-5 s (numba spends
0.1 s on even a one-line function); a compiled extension costs neither, and numba's AOT compiler
(``numba.pycc``) builds it from this same source at install (``setup.py``; a C compiler is needed), so
the numbers are the JIT's (tests/test_kernels.py compares the two bit for bit). ``numba.pycc`` has no
parallel mode (these kernels are sequential) and is pending deprecation: if it goes, or the build has no
C compiler, the build skips the extension and the JIT path takes over. The extension carries a digest
of the source it was built from; an extension older than the source (an edited checkout) is not used.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

#: Each kernel's numba signature: the types the extension is compiled for and every call must match.
SIGNATURES: dict[str, str] = {
    "priority_flood": "f8[:, ::1](f8[:, ::1], f8[:, ::1], b1, i8[:, ::1])",
    "d8_directions": "i8(f8[:, ::1], f8, f8, u1[:, ::1])",
    "accumulate": "f8[:, ::1](u1[:, ::1], f8[::1], f8[:, ::1])",
    "trace_upstream": "Tuple((i8[::1], i8[::1]))(u1[:, ::1], u1[:, ::1])",
    "upstream_stats": "UniTuple(f8[::1], 2)(u1[:, ::1], i8[::1], i8[::1], f8, f8)",
    "flat_components_touching": "u1[:, ::1](f8[:, ::1], u1[:, ::1], u1[:, ::1])",
    "spill_below": "b1(f8[:, ::1], i8, f8, u1[:, ::1], u1[:, ::1])",
    "spill_basin": "Tuple((f8, i8, i8, i8, i8, i8))(f8[:, ::1], i8, u1[:, ::1])",
    "block_extremes": "UniTuple(f8[:, ::1], 2)(f8[:, ::1], i8)",
    "channel_segments": "Tuple((i8[::1], i8[::1], b1[::1], b1[::1]))(u1[:, ::1], f8[:, ::1], f8)",
    "dinf_partition": "void(f8[:, ::1], u1[:, ::1], f8, f8, i8[::1], i8[::1], f8[::1])",
    "downhill_vectors": "void(f8[:, ::1], f8, f8, u1[:, ::1], b1, f8[:, ::1], f8[:, ::1])",
    "dinf_upstream": "u1[::1](i8[::1], i8[::1], f8[::1], i8, u1[::1])",
    "dinf_inflow": "f8(i8[::1], i8[::1], f8[::1], u1[::1], f8[::1])",
}

SOURCE = Path(__file__).with_name("_kernels_numba.py")
_DTYPES = {"f8": np.dtype(np.float64), "i8": np.dtype(np.int64), "u1": np.dtype(np.uint8), "b1": np.dtype(np.bool_)}


def source_digest() -> int:
    """A digest of what the compiled kernels are made of: the source, the D8 table it freezes in, and
    :data:`SIGNATURES` (63 bits, so the extension can return it as an int64)."""
    from geosite.grid import DC, DR

    h = hashlib.sha256(SOURCE.read_bytes())
    h.update(DR.tobytes() + DC.tobytes() + repr(sorted(SIGNATURES.items())).encode())
    return int(h.hexdigest()[:15], 16)


def _arg_types(sig: str) -> list[tuple[np.dtype, int] | None]:
    """(dtype, ndim) of each argument of a signature (``f8[:, ::1]`` -> float64, 2), None for a scalar."""
    depth, start = 0, 0
    for start in range(len(sig) - 1, -1, -1):  # the arguments: the last top-level (...) group
        depth += {")": 1, "(": -1}.get(sig[start], 0)
        if depth == 0:
            break
    args, part = [], ""
    for ch in sig[start + 1 : -1] + ",":
        depth += {"[": 1, "(": 1, "]": -1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            args.append(part.strip())
            part = ""
        else:
            part += ch
    return [(_DTYPES[a[:2]], a.count(",") + 1) if a.endswith("]") else None for a in args]


def _checked(name: str, fn: Callable[..., Any], sig: str) -> Callable[..., Any]:
    types = _arg_types(sig)

    def kernel(*args: Any) -> Any:
        if len(args) != len(types):
            raise TypeError(f"{name}() takes {len(types)} arguments ({sig}), got {len(args)}")
        for k, (a, t) in enumerate(zip(args, types)):
            if t is not None and not (isinstance(a, np.ndarray) and a.dtype == t[0] and a.ndim == t[1]
                                      and a.flags.c_contiguous):
                got = f"{a.dtype}[{a.ndim}-D, {'C' if a.flags.c_contiguous else 'strided'}]" if isinstance(a, np.ndarray) else type(a).__name__
                raise TypeError(f"{name}(): argument {k} must be a C-contiguous {t[1]}-D {t[0]} array ({sig}), got {got}")
        return fn(*args)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _load() -> tuple[Any, str]:
    """The extension when it was built from the current source, else the numba source (JIT)."""
    try:
        from geosite.hydrology import _kernels_aot as aot  # type: ignore[attr-defined]
    except ImportError:
        log.debug("no compiled kernels (geosite.hydrology._kernels_aot): numba compiles them on first use")
    else:
        if aot.source_digest() == source_digest():
            return aot, "aot"
        log.info("the compiled kernels predate %s (reinstall geosite to rebuild them): numba compiles them on first use",
                 SOURCE.name)
    from geosite.hydrology import _kernels_numba as jit

    return jit, "jit"


_impl, ENGINE = _load()
for _name, _sig in SIGNATURES.items():
    globals()[_name] = _checked(_name, getattr(_impl, _name), _sig)


def warm() -> str:
    """Compile every kernel now (numba caches it on disk) when they are JIT-compiled; nothing to do for
    the extension. Returns the engine, "aot" or "jit"."""
    if ENGINE == "jit":
        for name, sig in SIGNATURES.items():
            getattr(_impl, name).compile(sig)
    return ENGINE
