"""The hydrology kernels, ready to call: the build's ahead-of-time compiled extension when it is there
and current, else the same source JIT-compiled by numba. Private: use :mod:`geosite.hydrology`.

Every kernel is :mod:`geosite.hydrology._kernels_numba`'s function of that name, taking exactly the
argument types of :data:`SIGNATURES`, checked before the call (:mod:`geosite._compiled` loads them).

Why ahead of time (measured by benchmarks/bench_first_run.py; numba 0.68.1, 2 cores): JIT-compiling
these kernels costs a fresh process about 6 s (the priority flood alone about 1 s), every later
process about 0.4 s to import numba and load its cache, and a first ``geosite analyze`` 13 s more than
the second. The options the issue listed, measured: compiling during set-up leaves a plain ``pip install``
paying it all on the first run; fewer, explicitly typed kernels still compile for 4-5 s (numba spends
0.1 s on even a one-line function); a compiled extension costs neither, and numba's AOT compiler
(``numba.pycc``) builds it from this same source at install (``setup.py``; a C compiler is needed), so
the numbers are the JIT's (tests/test_kernels.py compares the two bit for bit). ``numba.pycc`` has no
parallel mode (these kernels are sequential) and is pending deprecation: if it goes, or the build has no
C compiler, the build skips the extension and the JIT path takes over. The extension carries a digest
of the source it was built from; an extension older than the source (an edited checkout) is not used.
It is compiled for the generic x86-64 (or the build machine's architecture's baseline) CPU, numba.pycc's
default: compiled for the build machine's own CPU (``CC.target_cpu = "host"``), the coarse pass's
block extremes ran twice as fast but the priority flood of a 2 M-cell window took 0.25 s against 0.17 s,
and a wheel so built would stop on an older CPU.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from geosite._compiled import KernelSet
from geosite.grid import DC, DR

#: Each kernel's numba signature: the types the extension is compiled for and every call must match.
SIGNATURES: dict[str, str] = {
    "priority_flood": "f8[:, ::1](f8[:, ::1], f8[:, ::1], b1, i8[:, ::1])",
    "d8_directions": "i8(f8[:, ::1], f8, f8, u1[:, ::1])",
    "accumulate": "f8[:, ::1](u1[:, ::1], f8[::1], f8[:, ::1])",
    "accumulate_marked": "f8[:, ::1](u1[:, ::1], u1[::1], f8[:, ::1])",
    "trace_upstream": "Tuple((i8[::1], i8[::1]))(u1[:, ::1], u1[:, ::1])",
    "upstream_stats": "UniTuple(f8[::1], 2)(u1[:, ::1], i8[::1], i8[::1], f8, f8)",
    "entry_lengths": "f8[::1](i8[::1], f8[::1])",
    "lowest_fill_by_seed": "Tuple((i8[::1], f8[::1]))(i8[:, ::1], f8[:, ::1], b1[:, ::1])",
    "outlets_relied_on": "Tuple((i8[::1], f8[::1]))(u1[:, ::1], f8[:, ::1], b1[:, ::1])",
    "flat_components_touching": "u1[:, ::1](f8[:, ::1], u1[:, ::1], u1[:, ::1])",
    "spill_below": "b1(f8[:, ::1], i8, f8, u1[:, ::1], u1[:, ::1], u1[::1], f8[:, ::1], i8, i8, i8)",
    "spill_basin": "Tuple((f8, i8, i8, i8, i8, i8))(f8[:, ::1], i8, u1[:, ::1])",
    "block_extremes": "UniTuple(f8[:, ::1], 2)(f8[:, ::1], i8, f8)",
    "block_extremes_f4": "UniTuple(f8[:, ::1], 2)(f4[:, ::1], i8, f8)",
    "channel_segments": "Tuple((i8[::1], i8[::1], b1[::1], b1[::1]))(u1[:, ::1], f8[:, ::1], f8)",
    "dinf_partition": "void(f8[:, ::1], u1[:, ::1], f8, f8, i8[::1], i8[::1], f8[::1])",
    "downhill_vectors": "void(f8[:, ::1], f8, f8, u1[:, ::1], b1, f8[:, ::1], f8[:, ::1])",
    "downhill_at": "void(f8[:, ::1], f8, f8, u1[:, ::1], b1, i8[::1], i8[::1], f8[::1], f8[::1])",
    "dinf_inflow": "f8(i8[::1], i8[::1], f8[::1], u1[::1], f8[::1])",
    "dinf_upstream_lazy": (
        "u1[::1](f8[:, ::1], u1[:, ::1], f8, f8, u1[::1], i8[::1], i8[::1], f8[::1], u1[::1])"
    ),
    "dinf_inflow_within": "f8(i8[::1], i8[::1], f8[::1], u1[::1], f8[::1], u1[::1])",
}

KERNELS = KernelSet(
    "geosite.hydrology._kernels_numba",
    "geosite.hydrology._kernels_aot",
    SIGNATURES,
    frozen=DR.tobytes() + DC.tobytes(),
)  # the one D8 table, frozen into the compiled code
SOURCE: Path = KERNELS.source_path


def source_digest() -> int:
    """The digest the extension must carry to be used (:meth:`KernelSet.digest`)."""
    return KERNELS.digest()


_kernels, ENGINE, _impl = KERNELS.load()

# the array types of the signatures (numba's f8, f4, i8, u1, b1; the dimensions are in SIGNATURES)
F8 = NDArray[np.float64]
F4 = NDArray[np.float32]
I8 = NDArray[np.int64]
U1 = NDArray[np.uint8]
B1 = NDArray[np.bool_]

# Each kernel by name, typed from its signature (a checked wrapper around the extension's or numba's
# function): type checkers and IDEs see them; tests/test_kernels.py checks this list against SIGNATURES.
priority_flood: Callable[[F8, F8, bool, I8], F8] = _kernels["priority_flood"]
d8_directions: Callable[[F8, float, float, U1], int] = _kernels["d8_directions"]
accumulate: Callable[[U1, F8, F8], F8] = _kernels["accumulate"]
accumulate_marked: Callable[[U1, U1, F8], F8] = _kernels["accumulate_marked"]
trace_upstream: Callable[[U1, U1], tuple[I8, I8]] = _kernels["trace_upstream"]
upstream_stats: Callable[[U1, I8, I8, float, float], tuple[F8, F8]] = _kernels["upstream_stats"]
entry_lengths: Callable[[I8, F8], F8] = _kernels["entry_lengths"]
lowest_fill_by_seed: Callable[[I8, F8, B1], tuple[I8, F8]] = _kernels["lowest_fill_by_seed"]
outlets_relied_on: Callable[[U1, F8, B1], tuple[I8, F8]] = _kernels["outlets_relied_on"]
flat_components_touching: Callable[[F8, U1, U1], U1] = _kernels["flat_components_touching"]
spill_below: Callable[[F8, int, float, U1, U1, U1, F8, int, int, int], bool] = _kernels["spill_below"]
spill_basin: Callable[[F8, int, U1], tuple[float, int, int, int, int, int]] = _kernels["spill_basin"]
block_extremes: Callable[[F8, int, float], tuple[F8, F8]] = _kernels["block_extremes"]
block_extremes_f4: Callable[[F4, int, float], tuple[F8, F8]] = _kernels["block_extremes_f4"]
channel_segments: Callable[[U1, F8, float], tuple[I8, I8, B1, B1]] = _kernels["channel_segments"]
dinf_partition: Callable[[F8, U1, float, float, I8, I8, F8], None] = _kernels["dinf_partition"]
downhill_vectors: Callable[[F8, float, float, U1, bool, F8, F8], None] = _kernels["downhill_vectors"]
downhill_at: Callable[[F8, float, float, U1, bool, I8, I8, F8, F8], None] = _kernels["downhill_at"]
dinf_inflow: Callable[[I8, I8, F8, U1, F8], float] = _kernels["dinf_inflow"]
dinf_upstream_lazy: Callable[[F8, U1, float, float, U1, I8, I8, F8, U1], U1] = _kernels["dinf_upstream_lazy"]
dinf_inflow_within: Callable[[I8, I8, F8, U1, F8, U1], float] = _kernels["dinf_inflow_within"]


def warm() -> str:
    """Compile every kernel now (numba caches it on disk) when they are JIT-compiled; nothing to do for
    the extension. Returns the engine, "aot" or "jit".
    """
    KERNELS.warm(ENGINE, _impl)
    return ENGINE
