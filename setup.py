"""geosite's build: everything is in pyproject.toml except the kernels' extensions, compiled ahead of
time by numba from geosite/hydrology/_kernels_numba.py and geosite/terrain/_contour_numba.py (see
geosite/hydrology/_kernels.py for why). Without numba's AOT compiler or a C compiler an extension is
skipped, never the install: numba then compiles the same kernels on first use."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def _skip(why: object) -> None:
    print(
        f"geosite: kernels not compiled ahead of time ({why}); numba compiles them on first use",
        file=sys.stderr,
    )


class BuildKernels(build_ext):
    """build_ext that has numba compile the kernels to object files first, and never fails the build."""

    def build_extension(self, ext):
        try:
            ext._prepare_object_files(self)  # numba.pycc: the kernels to object files
            super().build_extension(ext)
        except Exception as exc:
            _skip(exc)


def _constant(value: int):
    return lambda: value  # numba freezes the closure's value into the compiled code


def kernel_extensions() -> list:
    try:
        sys.path.insert(0, str(ROOT))
        with warnings.catch_warnings():
            warnings.simplefilter(
                "ignore"
            )  # numba.pycc is pending deprecation: geosite/hydrology/_kernels.py
            from numba.pycc import CC

        import importlib

        from geosite.hydrology import _kernels
        from geosite.terrain import _contour_kernels
    except Exception as exc:
        _skip(exc)
        return []
    out = []
    for ks in (_kernels.KERNELS, _contour_kernels.KERNELS):
        source = importlib.import_module(ks.source)
        cc = CC(ks.extension.rsplit(".", 1)[1], source)
        for name, sig in ks.signatures.items():
            cc.export(name, sig)(getattr(source, name).py_func)
        cc.export("source_digest", "i8()")(_constant(ks.digest()))
        out.append(cc.distutils_extension())
    return out


setup(ext_modules=kernel_extensions(), cmdclass={"build_ext": BuildKernels})
