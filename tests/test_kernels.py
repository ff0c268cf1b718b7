"""The compiled kernels as geosite runs them (hydrology; the contour tracer): the ahead-of-time
compiled extensions are the ones in use after installation, give the JIT-compiled sources' answers bit
for bit on every kernel, and both refuse arrays of the wrong type instead of reading them as something
else."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from geosite._compiled import arg_types
from geosite.hydrology import _kernels as fk
from geosite.terrain import _contour_kernels as ck
from geosite.testing import rolling_terrain


def test_the_compiled_extension_is_in_use():
    pycc = pytest.importorskip("numba.pycc", reason="numba's AOT compiler is gone: the JIT path is the one")
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler here: the extension cannot have been built")
    del pycc
    assert fk.ENGINE == "aot", (
        "geosite.hydrology._kernels_aot is missing or older than _kernels_numba.py: reinstall "
        "(pip install -e . ; bash scripts/run_tests.sh does it) to rebuild it"
    )
    assert ck.ENGINE == "aot", (
        "geosite.terrain._contour_aot is missing or older than _contour_numba.py: reinstall to rebuild it"
    )


def _inputs(z: np.ndarray):
    """Arguments for every kernel, from one DEM (each kernel fed the previous one's output)."""
    from geosite.hydrology import _kernels_numba as jit

    nr, nc = z.shape
    filled = np.empty_like(z)
    label = np.empty(z.shape, dtype=np.int64)
    jit.priority_flood(z, filled, True, label)
    dirs = np.empty(z.shape, dtype=np.uint8)
    jit.d8_directions(filled, 3.0, 2.5, dirs)
    acc = np.empty(z.shape)
    jit.accumulate(dirs, np.ones(1), acc)
    inside = np.zeros(z.shape, dtype=np.uint8)
    inside[nr // 3 : nr // 2, nc // 3 : nc // 2] = 1
    cells, parent = jit.trace_upstream(dirs, inside)
    n = z.size
    rec1, rec2, p1 = np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n)
    jit.dinf_partition(filled, dirs, 3.0, 2.5, rec1, rec2, p1)
    up = jit.dinf_upstream_lazy(
        filled,
        dirs,
        3.0,
        2.5,
        inside.reshape(-1),
        np.empty(n, np.int64),
        np.empty(n, np.int64),
        np.empty(n),
        np.zeros(n, np.uint8),
    )
    pick = tuple(np.ascontiguousarray(a, dtype=np.int64) for a in np.divmod(np.arange(0, n, 7), nc))
    start = int(np.flatnonzero(~np.isnan(z.reshape(-1)))[n // 2])
    weight = np.linspace(0.5, 1.5, n)
    return {
        "priority_flood": [
            (z, np.empty_like(z), True, np.empty(z.shape, np.int64)),
            (z, np.empty_like(z), False, np.empty((1, 1), np.int64)),
        ],
        "d8_directions": [(filled, 3.0, 2.5, np.empty(z.shape, np.uint8))],
        "accumulate": [(dirs, np.ones(1), np.empty(z.shape)), (dirs, weight, np.empty(z.shape))],
        "accumulate_marked": [(dirs, inside.reshape(-1).copy(), np.empty(z.shape))],
        "trace_upstream": [(dirs, inside)],
        "upstream_stats": [(dirs, cells, parent, 3.0, 2.5)],
        "entry_lengths": [(parent, jit.upstream_stats(dirs, cells, parent, 3.0, 2.5)[1])],
        "lowest_fill_by_seed": [
            (label, filled, np.ones(z.shape, dtype=bool)),
            (label, filled, np.ascontiguousarray(inside.astype(bool))),
        ],
        "outlets_relied_on": [
            (dirs, filled, np.ones(z.shape, dtype=bool)),
            (dirs, filled, np.ascontiguousarray(inside.astype(bool))),
        ],
        "flat_components_touching": [(filled, dirs, inside)],
        "spill_below": [
            (
                z,
                start,
                float(filled.reshape(-1)[start]) + 0.5,
                np.zeros(z.shape, np.uint8),
                np.zeros(z.shape, np.uint8),
                walls,
                level,
                f,
                3,
                5,
            )
            for walls in (np.zeros(4, np.uint8), np.array([1, 0, 1, 1], np.uint8))
            for level, f in (
                (np.full((1, 1), np.inf), 0),
                (np.linspace(0.0, 100.0, 25 * 25).reshape(25, 25), 4),
            )
        ],
        "spill_basin": [
            (z, start, np.zeros(z.shape, np.uint8)),
            (z, int(np.nanargmin(z.reshape(-1))), np.zeros(z.shape, np.uint8)),
        ],
        "channel_segments": [(dirs, acc, 30.0)],
        "block_extremes": [(z, 8, np.nan), (z, 7, float(z[3, 3])), (filled, 2, np.nan)],
        "block_extremes_f4": [
            (z.astype(np.float32), 8, np.nan),
            (z.astype(np.float32), 7, float(np.float32(z[3, 3]))),
        ],
        "dinf_partition": [
            (filled, dirs, 3.0, 2.5, np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n))
        ],
        "downhill_at": [
            (filled, 3.0, 2.5, dirs, True, pick[0], pick[1], np.empty(pick[0].size), np.empty(pick[0].size)),
            (
                z,
                3.0,
                2.5,
                np.zeros((1, 1), np.uint8),
                False,
                pick[0],
                pick[1],
                np.empty(pick[0].size),
                np.empty(pick[0].size),
            ),
        ],
        "downhill_vectors": [
            (filled, 3.0, 2.5, dirs, True, np.empty(z.shape), np.empty(z.shape)),
            (z, 3.0, 2.5, dirs, False, np.empty(z.shape), np.empty(z.shape)),
        ],
        "dinf_inflow": [
            (rec1, rec2, p1, inside.reshape(-1), np.ones(1)),
            (rec1, rec2, p1, inside.reshape(-1), weight),
        ],
        "dinf_upstream_lazy": [
            (
                filled,
                dirs,
                3.0,
                2.5,
                inside.reshape(-1),
                np.zeros(n, np.int64),
                np.zeros(n, np.int64),
                np.zeros(n),
                np.zeros(n, np.uint8),
            )
        ],
        "dinf_inflow_within": [
            (rec1, rec2, p1, inside.reshape(-1), np.ones(1), up),
            (rec1, rec2, p1, inside.reshape(-1), weight, up),
        ],
    }


def _dems():
    rng = np.random.default_rng(3)
    z = rolling_terrain((90, 110), cell=3.0, relief_ft=25.0, seed=5).elevation_ft.copy()
    flats = np.round(z, 1)  # flats and filled depressions to route
    holes = z.copy()
    holes[rng.random(z.shape) < 0.02] = np.nan
    holes[40:48, 10:30] = np.nan
    return [z, flats, holes]


def _same(a, b) -> bool:
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    return a == b or (a != a and b != b)


@pytest.mark.skipif(fk.ENGINE != "aot", reason="the extension is not built here: only the JIT path runs")
@pytest.mark.parametrize("case", range(3))
def test_the_extension_gives_the_jit_answers_bit_for_bit(case):
    from geosite.hydrology import _kernels_numba as jit

    calls = _inputs(_dems()[case])
    assert set(calls) == set(fk.SIGNATURES)
    for name, arglists in calls.items():
        for args in arglists:
            a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
            b = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
            got = getattr(fk, name)(*a)  # the extension
            want = getattr(jit, name)(*b)  # numba, just in time
            assert _same(got, want), name
            for x, y in zip(a, b, strict=True):  # what each wrote into its output arrays
                assert _same(x, y), name


def test_every_kernel_has_a_typed_name_and_nothing_else_does():
    """The explicit, typed module names (what type checkers and IDEs see) are exactly SIGNATURES's kernels,
    each the checked wrapper the loader made for the engine in use."""
    import ast
    import inspect
    import typing

    tree = ast.parse(inspect.getsource(fk))
    typed = {
        n.target.id
        for n in tree.body
        if isinstance(n, ast.AnnAssign)
        and isinstance(n.target, ast.Name)
        and ast.unparse(n.annotation).startswith("Callable")
    }
    assert typed == set(fk.SIGNATURES)
    hints = typing.get_type_hints(fk)
    for name in fk.SIGNATURES:
        assert getattr(fk, name) is fk._kernels[name] and getattr(fk, name).__name__ == name
        declared = typing.get_args(hints[name])[0]  # Callable[[args...], result]
        sig_args = arg_types(fk.SIGNATURES[name])
        assert len(declared) == len(sig_args), name
        for t, s in zip(declared, sig_args, strict=True):  # an array where the signature has one
            assert (typing.get_origin(t) is np.ndarray) == (s is not None), (name, t, s)


@pytest.mark.parametrize("bad", ["float32", "strided", "1-D"])
def test_a_wrong_array_is_refused_not_misread(bad):
    z = rolling_terrain((20, 20), cell=3.0, relief_ft=5.0, seed=1).elevation_ft
    arg = {"float32": z.astype(np.float32), "strided": np.asfortranarray(z), "1-D": z.reshape(-1)}[bad]
    with pytest.raises(TypeError, match="priority_flood.*argument 0"):
        fk.priority_flood(arg, np.empty_like(z), False, np.empty((1, 1), np.int64))


@pytest.mark.skipif(ck.ENGINE != "aot", reason="the extension is not built here: only the JIT path runs")
@pytest.mark.parametrize("case", range(3))
def test_the_contour_extension_gives_the_jit_lines_bit_for_bit(case):
    from geosite.terrain import _contour_numba as jit

    z = _dems()[case]
    for iv in (0.5, 1.0, 2.0):
        got, want = ck.contour_band(z.copy(), iv), jit.contour_band(z.copy(), iv)
        assert _same(got, want) and got[2].size > 10


def test_the_contour_tracer_refuses_a_wrong_array():
    z = rolling_terrain((20, 20), cell=3.0, relief_ft=5.0, seed=1).elevation_ft
    with pytest.raises(TypeError, match="contour_band.*argument 0"):
        ck.contour_band(z.astype(np.float32), 1.0)
