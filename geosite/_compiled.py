"""Loading a set of numba kernels: the build's ahead-of-time compiled extension when it is there and
current, else the same source JIT-compiled by numba. Private; used by :mod:`geosite.hydrology._kernels`
and :mod:`geosite.terrain._contour_kernels` (each says why its kernels are compiled, and measured).

A kernel set is a numba source module (``*_numba.py``), its :class:`KernelSet` (each kernel's numba
signature, in numba's notation: ``f8[:, ::1]`` a C-contiguous 2-D float64 array) and an extension
(``*_aot``) that setup.py builds from the source with ``numba.pycc``. Both paths check every call's
arrays against the signature first, so a wrong dtype or layout raises ``TypeError`` (compiled code given
the wrong array would read garbage) and the two paths accept the same calls. The extension carries a
digest of the source it was built from; an extension older than the source (an edited checkout) is
not used.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

_DTYPES: dict[str, np.dtype[Any]] = {
    "f8": np.dtype(np.float64),
    "f4": np.dtype(np.float32),
    "i8": np.dtype(np.int64),
    "u1": np.dtype(np.uint8),
    "b1": np.dtype(np.bool_),
}


@dataclass(frozen=True)
class KernelSet:
    """One source module of kernels and the extension compiled from it."""

    source: str  #: the numba module, e.g. "geosite.terrain._contour_numba"
    extension: str  #: the compiled module setup.py builds beside it, e.g. "geosite.terrain._contour_aot"
    signatures: dict[str, str]
    frozen: bytes = field(default=b"")  #: module-level data the compiled code freezes in (e.g. a D8 table)

    @property
    def source_path(self) -> Path:
        """The numba module's source file."""
        spec = importlib.util.find_spec(self.source)
        assert spec is not None and spec.origin is not None, self.source
        return Path(spec.origin)

    def digest(self) -> int:
        """A digest of what the compiled kernels are made of: the source, the data it freezes in, and
        the signatures (63 bits, so the extension can return it as an int64).
        """
        h = hashlib.sha256(self.source_path.read_bytes())
        h.update(self.frozen + repr(sorted(self.signatures.items())).encode())
        return int(h.hexdigest()[:15], 16)

    def load(self) -> tuple[dict[str, Callable[..., Any]], str, Any]:
        """(each kernel, checked; the engine, "aot" or "jit"; the module the kernels come from)."""
        impl, engine = None, "jit"
        try:
            impl = importlib.import_module(self.extension)
        except ImportError as exc:
            built = list(self.source_path.parent.glob(self.extension.rsplit(".", 1)[1] + ".*.so"))
            (log.warning if built else log.debug)(
                "compiled kernels %s not loaded (%s): numba compiles them on first use, several "
                "seconds in every new process",
                built[0] if built else self.extension,
                exc,
            )
        else:
            if impl.source_digest() == self.digest():
                engine = "aot"
            else:
                log.info(
                    "the compiled kernels predate %s (reinstall geosite to rebuild them): numba compiles "
                    "them on first use",
                    self.source_path.name,
                )
                impl = None
        if impl is None:
            impl = importlib.import_module(self.source)
        return {n: checked(n, getattr(impl, n), s) for n, s in self.signatures.items()}, engine, impl

    def warm(self, engine: str, impl: Any) -> None:
        """Compile every kernel now (numba caches it on disk) when they are JIT-compiled.

        Each is compiled for its argument types alone, as a call compiles it: numba's on-disk cache
        is keyed by the signature it was compiled for, and one given with its return type is a key no
        call looks up (measured: the first run after such a warm-up compiled 10 kernels again, 18 s
        against 6 s for the second run).
        """
        if engine == "jit":
            from numba.core import sigutils

            for name, sig in self.signatures.items():
                args, _ = sigutils.normalize_signature(sig)
                getattr(impl, name).compile(tuple(args))


def arg_types(sig: str) -> list[tuple[np.dtype, int] | None]:
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


def checked(name: str, fn: Callable[..., Any], sig: str) -> Callable[..., Any]:
    """``fn`` behind a check of its arguments' count, dtypes, dimensions and C-contiguity."""
    types = arg_types(sig)

    def kernel(*args: Any) -> Any:
        """The kernel, its arguments checked first."""
        if len(args) != len(types):
            raise TypeError(f"{name}() takes {len(types)} arguments ({sig}), got {len(args)}")
        for k, (a, t) in enumerate(zip(args, types, strict=True)):
            if t is not None and not (
                isinstance(a, np.ndarray) and a.dtype == t[0] and a.ndim == t[1] and a.flags.c_contiguous
            ):
                got = (
                    f"{a.dtype}[{a.ndim}-D, {'C' if a.flags.c_contiguous else 'strided'}]"
                    if isinstance(a, np.ndarray)
                    else type(a).__name__
                )
                raise TypeError(
                    f"{name}(): argument {k} must be a C-contiguous {t[1]}-D {t[0]} array ({sig}), got {got}"
                )
        return fn(*args)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel
