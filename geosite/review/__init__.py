"""Checking a submitted plan against the chapter: ``geosite check``.

``check_submission(folder)`` stages the submission and checks it in a sandbox (:mod:`geosite.review.sandbox`:
a child process with no network, bounded memory and time, only allowlisted drivers; docs/security.md),
returning a :class:`CheckResult` whose findings say, section by section, what is required, what was
submitted, and pass, fail or not assessable; ``write_check_outputs`` writes findings.json, findings.md,
findings.gpkg and a self-contained report.html. (:func:`geosite.review.check.check_submission` runs the same
check in this process, for a folder you trust.) The ``[declared]`` table of site.toml is described in
:mod:`geosite.review.declared`. Names are loaded on first use, so importing the sandbox stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from geosite.review.check import CheckResult, write_check_outputs
    from geosite.review.declared import Declared, read_declared
    from geosite.review.findings import ReviewFinding
    from geosite.review.sandbox import check_submission_sandboxed as check_submission

#: Public name -> (module, name there).
_LAZY = {
    "CheckResult": ("geosite.review.check", "CheckResult"),
    "write_check_outputs": ("geosite.review.check", "write_check_outputs"),
    "check_submission": ("geosite.review.sandbox", "check_submission_sandboxed"),
    "Declared": ("geosite.review.declared", "Declared"),
    "read_declared": ("geosite.review.declared", "read_declared"),
    "ReviewFinding": ("geosite.review.findings", "ReviewFinding"),
}

__all__ = [
    "CheckResult",
    "Declared",
    "ReviewFinding",
    "check_submission",
    "read_declared",
    "write_check_outputs",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'geosite.review' has no attribute {name!r}")
