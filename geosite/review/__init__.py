"""Checking a submitted plan against the chapter: ``geosite check``.

``check_submission(folder)`` reruns every measurement and returns a :class:`CheckResult` whose findings
say, section by section, what is required, what was submitted, and pass, fail or not assessable;
``write_check_outputs`` writes findings.json, findings.md, findings.gpkg and a self-contained report.html.
The ``[declared]`` table of site.toml is described in :mod:`geosite.review.declared`.
"""

from geosite.review.check import CheckResult, check_submission, write_check_outputs
from geosite.review.declared import Declared, read_declared
from geosite.review.findings import ReviewFinding

__all__ = [
    "CheckResult",
    "Declared",
    "ReviewFinding",
    "check_submission",
    "read_declared",
    "write_check_outputs",
]
