"""The contour tracer, ready to call: the build's ahead-of-time compiled extension when it is there and
current, else :mod:`geosite.terrain._contour_numba` JIT-compiled (see :mod:`geosite._compiled`).
Private: use :func:`geosite.terrain.contours`.

Why compiled ahead of time: for the reason the hydrology kernels are (geosite.hydrology._kernels):
numba JIT-compiling this one kernel costs a fresh process about a second (benchmarks/bench_first_run.py
measures it), which every first run of a map would pay.
"""

from __future__ import annotations

from geosite._compiled import KernelSet

#: The kernel's numba signature: the types the extension is compiled for and every call must match.
SIGNATURES: dict[str, str] = {
    "contour_band": "Tuple((f8[:, ::1], i8[::1], i8[::1]))(f8[:, ::1], f8)",
}
KERNELS = KernelSet("geosite.terrain._contour_numba", "geosite.terrain._contour_aot", SIGNATURES)

_kernels, ENGINE, _impl = KERNELS.load()
contour_band = _kernels["contour_band"]


def warm() -> str:
    """Compile the kernel now when it is JIT-compiled. Returns the engine, "aot" or "jit"."""
    KERNELS.warm(ENGINE, _impl)
    return ENGINE
