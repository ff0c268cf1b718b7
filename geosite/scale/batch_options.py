"""What a batch run is asked to do (:class:`BatchOptions`): the options every site of it shares, and the
part of them that changes a site's result (so a re-run with other options does the site again).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class BatchOptions:
    """What every site of a batch is run with.

    Attributes
    ----------
    jurisdiction : profile name overriding each site.toml's (None: each site's own).
    make_valid, strict : as ``geosite analyze --make-valid / --strict``.
    force : redo sites whose output is up to date.
    check : also check each site as a submission (``geosite check``): findings.json, findings.md,
        findings.gpkg and report.html beside the analysis, and a verdict in the summary.
    overwrite : replace an existing OUT/<site> folder that geosite did not write (without it such a
        site fails, its folder untouched; a folder geosite wrote is replaced when its inputs changed).
    allow_outside : let each site.toml name files outside its folder (not with ``check``).
    timeout_s : per site: its work runs in a child process, killed (with its children) after this many
        seconds; the site fails with the limit named. None: no limit, the work runs in the worker.
    limits : :class:`geosite.io.limits.Limits` for reading every site.
    sandbox : with ``check``, each submission is staged and read in the sandbox (geosite.review.sandbox;
        the worker keeps one warm server for all its sites). False reads each folder in the worker's own
        process, for folders you trust only (benchmarks/bench_sandbox.py's baseline); not a CLI option.
    """

    jurisdiction: str | None = None
    make_valid: bool = False
    strict: bool = False
    force: bool = False
    check: bool = False
    overwrite: bool = False
    allow_outside: bool = False
    timeout_s: float | None = None
    limits: Any = None
    sandbox: bool = True

    def result_key(self) -> dict[str, Any]:
        """The options that change a site's results (hashed into its marker)."""
        return {
            "jurisdiction": self.jurisdiction,
            "make_valid": self.make_valid,
            "strict": self.strict,
            "check": self.check,
        }
