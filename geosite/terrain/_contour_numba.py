"""The source of geosite.terrain's contour tracer (numba): marching squares for every level in one pass
over a band of rows. Arrays in, arrays out; no files, no CRS. Call it through
:mod:`geosite.terrain._contour_kernels`, which runs the build's ahead-of-time compiled copy of this file
(or, without it, this function JIT-compiled).

Why hand-written (measured, benchmarks/bench_terrain.py): contourpy traces one level per pass over the
grid, so its cost is levels x cells; geosite traced it tile by tile for only the levels inside each
tile's height range, and still took 1.02-1.14x gdal_contour's time on a 4 M-cell plane and cone, with
a tile's set-up in Python costing as much as scanning 13,000 cells. GDAL's tracer does every level in
one pass; no Python library does. This one gives contourpy's lines exactly (tests/test_terrain.py
compares the segments with contourpy's on random grids with ties and holes): a corner is above a level
when its height is greater (``z > level``), a vertex is linearly interpolated along the edge it
crosses, a saddle is resolved by the mean of the quad's four corners (contourpy's ``serial`` with
``quad_as_tri=False``), and a quad missing one corner is traced as the triangle of the other three
(``corner_mask=True``); a quad missing more is skipped.

Grid coordinates: (col, row) of the band, row 0 its first. Levels are ``k * interval`` for integer k.

Compile time is part of the design (the path without a C compiler JIT-compiles this): numba's type
inference grows faster than a function's length, so the tracer is a few small functions (one function
of them all took 5.1 s to compile, 2.9 s of it type inference), and loops stand in for array methods
and slice copies (``nk.min()`` alone cost 1.2 s).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_NO = -(1 << 62)  # "no height" in the level counts


@njit(cache=True, nogil=True)
def _levels_below(z: np.ndarray, iv: float) -> np.ndarray:
    """m[r, c]: the smallest k with ``k * iv >= z[r, c]``, so the cell is above level k (``z > k * iv``)
    exactly when ``k < m``; :data:`_NO` where the height is NaN.
    """
    h, w = z.shape
    m = np.empty((h, w), dtype=np.int64)
    for r in range(h):
        for c in range(w):
            v = z[r, c]
            if np.isnan(v):
                m[r, c] = _NO
                continue
            k = np.int64(np.ceil(v / iv))
            while (k - 1) * iv >= v:  # the product, as the level is computed, decides
                k -= 1
            while k * iv < v:
                k += 1
            m[r, c] = k
    return m


@njit(cache=True, nogil=True)
def _link(nbr: np.ndarray, a: int, b: int) -> None:
    nbr[a, 0 if nbr[a, 0] < 0 else 1] = b
    nbr[b, 0 if nbr[b, 0] < 0 else 1] = a


@njit(cache=True, nogil=True)
def _number_edges(m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Each edge's first node (its nodes are its crossings, by level): ``hb`` for the edges (r, c)-(r, c+1),
    ``vb`` for (r, c)-(r+1, c), ``gb`` for the diagonal of a quad missing one corner (the side of the
    triangle of its other three; an empty array when no height is missing), and the number of nodes.
    """
    h, w = m.shape
    hb = np.empty((h, w - 1), dtype=np.int64)
    vb = np.empty((h - 1, w), dtype=np.int64)
    n = 0
    holes = False
    for r in range(h):
        for c in range(w - 1):
            hb[r, c] = n
            a, b = m[r, c], m[r, c + 1]
            if a != _NO and b != _NO:
                n += abs(a - b)
            else:
                holes = True
        if r < h - 1:
            for c in range(w):
                vb[r, c] = n
                a, b = m[r, c], m[r + 1, c]
                if a != _NO and b != _NO:
                    n += abs(a - b)
    if not holes:
        return hb, vb, np.empty((0, 0), dtype=np.int64), n
    gb = np.empty((h - 1, w - 1), dtype=np.int64)
    for r in range(h - 1):
        for c in range(w - 1):
            gb[r, c] = n
            ma, mb, mc, md = m[r, c], m[r, c + 1], m[r + 1, c], m[r + 1, c + 1]
            if (ma == _NO) + (mb == _NO) + (mc == _NO) + (md == _NO) == 1:
                n += abs(mb - mc) if (ma == _NO or md == _NO) else abs(ma - md)
    return hb, vb, gb, n


@njit(cache=True, nogil=True)
def _edge_nodes(
    z: np.ndarray, m: np.ndarray, iv: float, hb: np.ndarray, vb: np.ndarray, xy: np.ndarray, nk: np.ndarray
) -> None:
    """Each grid edge's nodes: where each level crosses it (linear between its two heights), and the level."""
    h, w = z.shape
    for r in range(h):
        for c in range(w - 1):
            a, b = m[r, c], m[r, c + 1]
            if a == _NO or b == _NO or a == b:
                continue
            za, zb = z[r, c], z[r, c + 1]
            lo = min(a, b)
            for k in range(lo, max(a, b)):
                i = hb[r, c] + k - lo
                xy[i, 0] = c + (k * iv - za) / (zb - za)
                xy[i, 1] = r
                nk[i] = k
        if r < h - 1:
            for c in range(w):
                a, b = m[r, c], m[r + 1, c]
                if a == _NO or b == _NO or a == b:
                    continue
                za, zb = z[r, c], z[r + 1, c]
                lo = min(a, b)
                for k in range(lo, max(a, b)):
                    i = vb[r, c] + k - lo
                    xy[i, 0] = c
                    xy[i, 1] = r + (k * iv - za) / (zb - za)
                    nk[i] = k


@njit(cache=True, nogil=True)
def _link_quad(
    z: np.ndarray, m: np.ndarray, iv: float, r: int, c: int, hb: np.ndarray, vb: np.ndarray, nbr: np.ndarray
) -> None:
    """Link the nodes of quad (r, c), all four corners with heights, level by level."""
    ma, mb, mc, md = m[r, c], m[r, c + 1], m[r + 1, c], m[r + 1, c + 1]
    lo = min(min(ma, mb), min(mc, md))
    hi = max(max(ma, mb), max(mc, md))
    top = hb[r, c] - min(ma, mb)  # + k: the node of level k on each edge
    bot = hb[r + 1, c] - min(mc, md)
    lef = vb[r, c] - min(ma, mc)
    rig = vb[r, c + 1] - min(mb, md)
    for k in range(lo, hi):
        a, b, cc, d = k < ma, k < mb, k < mc, k < md
        t, s, le, ri = a != b, cc != d, a != cc, b != d
        if t and s and le and ri:  # a saddle: the quad's mean decides which corners join
            mid = 0.25 * (z[r, c] + z[r, c + 1] + z[r + 1, c] + z[r + 1, c + 1]) > k * iv
            if mid == b:  # B and C join through the middle: the lines cut off A and D
                _link(nbr, top + k, lef + k)
                _link(nbr, bot + k, rig + k)
            else:  # A and D join: the lines cut off B and C
                _link(nbr, top + k, rig + k)
                _link(nbr, lef + k, bot + k)
        elif t:
            _link(nbr, top + k, bot + k if s else (lef + k if le else rig + k))
        elif s:
            _link(nbr, bot + k, lef + k if le else rig + k)
        elif le:
            _link(nbr, lef + k, rig + k)


@njit(cache=True, nogil=True)
def _link_triangle(
    z: np.ndarray,
    m: np.ndarray,
    iv: float,
    r: int,
    c: int,
    hb: np.ndarray,
    vb: np.ndarray,
    gb: np.ndarray,
    xy: np.ndarray,
    nk: np.ndarray,
    nbr: np.ndarray,
) -> None:
    """Quad (r, c) missing one corner: its diagonal's nodes, and the links of the triangle of the other
    three.
    """
    ma, mb, mc, md = m[r, c], m[r, c + 1], m[r + 1, c], m[r + 1, c + 1]
    if ma == _NO or md == _NO:  # the diagonal B-C, from B
        p, q, zp, zq, x0, dx = mb, mc, z[r, c + 1], z[r + 1, c], c + 1.0, -1.0
    else:  # the diagonal A-D, from A
        p, q, zp, zq, x0, dx = ma, md, z[r, c], z[r + 1, c + 1], c + 0.0, 1.0
    g = gb[r, c] - min(p, q)
    for k in range(min(p, q), max(p, q)):
        f = (k * iv - zp) / (zq - zp)
        xy[g + k, 0] = x0 + dx * f
        xy[g + k, 1] = r + f
        nk[g + k] = k
    # the triangle's two sides along the quad's edges: their first node, the counts of their two corners
    if ma == _NO:  # B, C, D: right, bottom
        e1, s1, u1, e2, s2, u2 = vb[r, c + 1], mb, md, hb[r + 1, c], mc, md
    elif mb == _NO:  # A, C, D: left, bottom
        e1, s1, u1, e2, s2, u2 = vb[r, c], ma, mc, hb[r + 1, c], mc, md
    elif mc == _NO:  # A, B, D: top, right
        e1, s1, u1, e2, s2, u2 = hb[r, c], ma, mb, vb[r, c + 1], mb, md
    else:  # A, B, C: top, left
        e1, s1, u1, e2, s2, u2 = hb[r, c], ma, mb, vb[r, c], ma, mc
    e1 -= min(s1, u1)
    e2 -= min(s2, u2)
    for k in range(min(min(s1, u1), min(s2, u2)), max(max(s1, u1), max(s2, u2))):
        c1 = (k < s1) != (k < u1)
        c2 = (k < s2) != (k < u2)
        if c1 and c2:
            _link(nbr, e1 + k, e2 + k)
        elif c1:
            _link(nbr, e1 + k, g + k)
        elif c2:
            _link(nbr, e2 + k, g + k)


@njit(cache=True, nogil=True)
def _walk(xy: np.ndarray, nk: np.ndarray, nbr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The lines through the linked nodes, level by level (the nodes sorted by level by counting): each
    level's open lines walked from an end, then its closed ones.
    """
    nodes = nk.size
    k0 = k1 = nk[0]
    for i in range(nodes):  # a loop: nk.min() and nk.max() cost numba over a second of compile
        k0 = min(k0, nk[i])
        k1 = max(k1, nk[i])
    nlev = k1 - k0 + 1
    start = np.zeros(nlev + 1, dtype=np.int64)
    for i in range(nodes):
        start[nk[i] - k0 + 1] += 1
    for j in range(nlev):
        start[j + 1] += start[j]
    order = np.empty(nodes, dtype=np.int64)
    fill = np.empty(nlev, dtype=np.int64)
    for j in range(nlev):
        fill[j] = start[j]
    for i in range(nodes):
        j = nk[i] - k0
        order[fill[j]] = i
        fill[j] += 1
    out = np.empty((nodes + nodes // 3 + 1, 2))  # a closed line has 4 nodes at least, 1 vertex repeated
    offs = np.empty(nodes // 2 + 2, dtype=np.int64)  # an open line has 2 nodes at least
    lk = np.empty(nodes // 2 + 1, dtype=np.int64)
    seen = np.zeros(nodes, dtype=np.uint8)
    nv = 0
    nl = 0
    offs[0] = 0
    for j in range(nlev):
        for closed in range(2):
            for q in range(start[j], start[j + 1]):
                s0 = order[q]
                deg = (nbr[s0, 0] >= 0) + (nbr[s0, 1] >= 0)
                if seen[s0] or deg == 0 or (closed == 0 and deg == 2):
                    continue
                prev = -1
                cur = s0
                while True:
                    seen[cur] = 1
                    out[nv, 0] = xy[cur, 0]
                    out[nv, 1] = xy[cur, 1]
                    nv += 1
                    nxt = nbr[cur, 0]
                    if nxt == prev or nxt < 0:
                        nxt = nbr[cur, 1]
                    if nxt < 0 or seen[nxt]:
                        if nxt == s0 and closed == 1:
                            out[nv, 0] = xy[s0, 0]
                            out[nv, 1] = xy[s0, 1]
                            nv += 1
                        break
                    prev = cur
                    cur = nxt
                lk[nl] = k0 + j
                nl += 1
                offs[nl] = nv
    xy_out = np.empty((nv, 2))
    for i in range(nv):  # loops, not slice copies: those cost numba a second of compile
        xy_out[i, 0] = out[i, 0]
        xy_out[i, 1] = out[i, 1]
    offs_out = np.empty(nl + 1, dtype=np.int64)
    lk_out = np.empty(nl, dtype=np.int64)
    for i in range(nl):
        offs_out[i] = offs[i]
        lk_out[i] = lk[i]
    offs_out[nl] = offs[nl]
    return xy_out, offs_out, lk_out


@njit(cache=True, nogil=True)
def contour_band(z: np.ndarray, iv: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every contour line of the band ``z`` (heights; NaN = none) at the multiples of ``iv``.

    Returns ``(xy, offsets, k)``: the (col, row) vertices of all lines end to end, line i being
    ``xy[offsets[i]:offsets[i + 1]]`` (a closed line repeats its first vertex at the end), and each
    line's level multiple, in increasing k; a level's open lines come before its closed ones.
    A line meeting the band's first or last row there ends (the next band continues it).

    Each crossing of a level with a grid edge is a node, numbered edge by edge (an edge's nodes by
    level), so a quad finds its four edges' nodes of level k by offset; each quad links its nodes in
    pairs, every node ends with at most two links, and the lines are walked from the links.
    Memory: 24 bytes per band cell (the level counts and the two edge numberings; 8 more where heights
    are missing), 40 per node.
    """
    h, w = z.shape
    if h < 2 or w < 2:
        return np.empty((0, 2)), np.zeros(1, dtype=np.int64), np.empty(0, dtype=np.int64)
    m = _levels_below(z, iv)
    hb, vb, gb, nodes = _number_edges(m)
    if nodes == 0:
        return np.empty((0, 2)), np.zeros(1, dtype=np.int64), np.empty(0, dtype=np.int64)
    xy = np.empty((nodes, 2))
    nk = np.empty(nodes, dtype=np.int64)
    _edge_nodes(z, m, iv, hb, vb, xy, nk)
    nbr = np.empty((nodes, 2), dtype=np.int64)
    for i in range(nodes):
        nbr[i, 0] = -1
        nbr[i, 1] = -1
    holes = gb.size > 0
    for r in range(h - 1):
        for c in range(w - 1):
            ma, mb, mc, md = m[r, c], m[r, c + 1], m[r + 1, c], m[r + 1, c + 1]
            if ma != _NO and mb != _NO and mc != _NO and md != _NO:
                if not (ma == mb == mc == md):
                    _link_quad(z, m, iv, r, c, hb, vb, nbr)
            elif holes and (ma == _NO) + (mb == _NO) + (mc == _NO) + (md == _NO) == 1:
                _link_triangle(z, m, iv, r, c, hb, vb, gb, xy, nk, nbr)
    return _walk(xy, nk, nbr)
