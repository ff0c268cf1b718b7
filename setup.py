"""geosite's build: everything is in pyproject.toml except the hydrology kernels' extension, compiled
ahead of time by numba from geosite/hydrology/_kernels_numba.py (see geosite/hydrology/_kernels.py
for why). Without numba's AOT compiler or a C compiler the extension is skipped, never the install:
numba then compiles the same kernels on first use."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def _skip(why: object) -> None:
    print(f"geosite: kernels not compiled ahead of time ({why}); numba compiles them on first use", file=sys.stderr)


class BuildKernels(build_ext):
    """build_ext that has numba compile the kernels to object files first, and never fails the build."""

    def build_extension(self, ext):  # noqa: ANN001
        try:
            ext._prepare_object_files(self)  # numba.pycc: the kernels to object files
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001 - the JIT path is always there
            _skip(exc)


def kernel_extensions() -> list:
    try:
        sys.path.insert(0, str(ROOT))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numba.pycc is pending deprecation: geosite/hydrology/_kernels.py
            from numba.pycc import CC

        from geosite.hydrology import _kernels, _kernels_numba
    except Exception as exc:  # noqa: BLE001
        _skip(exc)
        return []
    cc = CC("_kernels_aot", _kernels_numba)
    for name, sig in _kernels.SIGNATURES.items():
        cc.export(name, sig)(getattr(_kernels_numba, name).py_func)
    digest = _kernels.source_digest()
    cc.export("source_digest", "i8()")(lambda: digest)
    return [cc.distutils_extension()]


setup(ext_modules=kernel_extensions(), cmdclass={"build_ext": BuildKernels})
