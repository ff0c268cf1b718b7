"""Errors and warnings raised by geosite.

Every exception derives from :class:`GeositeError`; the narrow classes also derive from the matching
builtin, so ``except ValueError`` keeps working for callers who do not know geosite. Users catch
``geosite.errors.X``; nothing here is private.

The CLI maps :class:`InputError` (and its subclasses) to exit code 2.
"""

from __future__ import annotations

from collections.abc import Iterable


class GeositeError(Exception):
    """Root of every error geosite raises on purpose."""


class InputError(GeositeError, ValueError):
    """Something in the user's input is wrong: a file, a layer, a setting. Exit code 2 in the CLI."""


class MissingInputError(InputError, FileNotFoundError):
    """A required file, layer or setting is absent."""


class UnreadableInputError(InputError, OSError):
    """A file exists but cannot be read (corrupt, wrong format, permissions)."""


class CRSError(InputError):
    """A layer or raster has no CRS, a geographic CRS where a projected one is needed, or a CRS that
    contradicts the declared one.
    """


class UnitError(InputError):
    """A unit is missing, unknown or inconsistent (e.g. the DEM's vertical unit was not given)."""


class GeometryError(InputError):
    """Invalid, empty or wrongly typed geometries in a layer."""


class ProfileError(InputError):
    """A jurisdiction profile is unknown or malformed."""


class UnsafeInputError(InputError):
    """A file the input names that geosite refuses to open: a path leaving the site folder (``..``, an
    absolute path, a symbolic link), a URL or GDAL virtual path (``/vsicurl/``), a FIFO or device, a
    format geosite does not read from a submission, or a VRT whose sources leave the folder.
    """


class LimitError(InputError):
    """An input over one of geosite's resource limits (raster cells x bytes, raster dimensions, vertices,
    file size, time); the message names the limit and how to raise it.
    """


class OutputError(GeositeError, OSError):
    """An output cannot be written (it exists and --overwrite was not given, or it lies inside the inputs)."""


class SiteValidationError(InputError):
    """Several problems found while validating a site folder; all of them are listed.

    ``problems`` holds one message per problem, each naming the file, the layer and what is wrong.
    """

    def __init__(self, problems: Iterable[str], site: str | None = None) -> None:
        self.problems = list(problems)
        self.site = site
        head = (
            f"site {site!r} has {len(self.problems)} problem(s):"
            if site
            else f"{len(self.problems)} problem(s):"
        )
        super().__init__("\n  - ".join([head, *self.problems]))


class GeositeWarning(UserWarning):
    """Root of geosite's warnings: allowed, but worth a look."""


class CoverageWarning(GeositeWarning):
    """The DEM does not cover the site plus the map margin (200 ft)."""


class ReprojectionWarning(GeositeWarning):
    """A layer was reprojected to the site CRS."""


class Note(str):
    """A note on the input, as the report lists it (a ``str``), with its warning class: ``category`` is the
    :class:`GeositeWarning` subclass it is raised as (``--strict``: an error), or None for a routine note
    (an optional layer not present) that is listed but not warned. Kept typed so no code sorts notes by
    their wording.
    """

    category: type[GeositeWarning] | None

    def __new__(cls, text: str, category: type[GeositeWarning] | None = GeositeWarning) -> Note:
        note = super().__new__(cls, text)
        note.category = category
        return note


class TitleBlockWarning(GeositeWarning):
    """An item of the plan sheets' title block (the preparer, a contact's phone, the vertical datum) the
    site folder does not give: the sheets leave its field blank to fill in, the report's notes list it.
    """


class ImplausibleInputWarning(GeositeWarning):
    """An input that is allowed but implausible for the jurisdiction: a site outside the profile's
    declared extent, DEM heights outside the ground's range for the declared vertical unit. The report
    lists each (report.json ``input_warnings``, and under the notes); ``--strict`` makes them errors.
    """
