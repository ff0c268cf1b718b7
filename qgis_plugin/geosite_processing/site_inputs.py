"""The site an algorithm works on: an existing site folder, or QGIS layers picked in the dialog written
as one (docs/site_folder.md), and the command-line options they become.

From layers, the folder holds ``site.toml`` (the dialog's values over an optional template site.toml)
and ``layers.gpkg`` (each layer under geosite's name); the DEM goes to geosite as ``--dem`` where it
lies (a GeoTIFF file; anything else is written as one first), except in a submission folder, which
holds its own copy. geosite then reads the folder and checks everything as it does for any folder.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qgis.core import (
    QgsProcessing,
    QgsProcessingContext,
    QgsProcessingException,
    QgsProcessingFeedback,
    QgsProcessingParameterBoolean,
    QgsProcessingParameterCrs,
    QgsProcessingParameterDateTime,
    QgsProcessingParameterDefinition,
    QgsProcessingParameterEnum,
    QgsProcessingParameterFeatureSource,
    QgsProcessingParameterField,
    QgsProcessingParameterFile,
    QgsProcessingParameterNumber,
    QgsProcessingParameterRasterLayer,
    QgsProcessingParameterString,
)

from . import site_toml
from .layer_files import WrittenLayer, raster_file, write_layer

_TYPES = {
    "polygon": QgsProcessing.TypeVectorPolygon,
    "line": QgsProcessing.TypeVectorLine,
    "point": QgsProcessing.TypeVectorPoint,
}


@dataclass(frozen=True)
class LayerInput:
    """A layer parameter: its name, geosite's layer, the label, the geometry types, whether advanced."""

    param: str
    layer: str
    label: str
    types: tuple
    advanced: bool = False


def _layer_input(name: str, families: tuple, label: str, hidden: bool) -> LayerInput:
    types = (
        (QgsProcessing.TypeVectorAnyGeometry,) if len(families) == 3 else tuple(_TYPES[f] for f in families)
    )
    return LayerInput(name.upper(), name, label, types, hidden)


#: The layers of a site folder as dialog parameters (``SITE_BOUNDARY`` for site_boundary...).
LAYERS = tuple(_layer_input(*row) for row in site_toml.LAYERS)

#: Field parameters: (parameter, its layer parameter, geosite's attribute, label).
FIELD_INPUTS = (
    ("DISTURBANCE_PHASE", "DISTURBANCE", "phase", "Disturbance: field holding the phase"),
    ("DISTURBANCE_START", "DISTURBANCE", "start", "Disturbance: field holding the start date"),
    ("DISTURBANCE_END", "DISTURBANCE", "end", "Disturbance: field holding the end date"),
    ("BMPS_TYPE", "BMPS", "type", "Submitted controls: field holding the practice type"),
)

VERTICAL_UNITS = ("us_ft", "ft", "m")
PLATS = ("none", "subdivision", "certified_survey")
DEWATERING = ("not stated", "yes", "no")
CONTACTS = ("applicant", "maintainer")


def _advanced(param: QgsProcessingParameterDefinition) -> QgsProcessingParameterDefinition:
    param.setFlags(param.flags() | QgsProcessingParameterDefinition.FlagAdvanced)
    return param


def folder_parameter(description: str) -> QgsProcessingParameterFile:
    """The optional ``SITE_FOLDER`` parameter (an existing site folder, instead of layers)."""
    return QgsProcessingParameterFile(
        "SITE_FOLDER", description, behavior=QgsProcessingParameterFile.Folder, optional=True
    )


def layer_parameters() -> list[QgsProcessingParameterDefinition]:
    """The layer, field and raster parameters of a site given as layers."""
    params: list[QgsProcessingParameterDefinition] = []
    for item in LAYERS:
        p = QgsProcessingParameterFeatureSource(item.param, item.label, list(item.types), optional=True)
        params.append(_advanced(p) if item.advanced else p)
    for name, parent, attribute, label in FIELD_INPUTS:
        params.append(
            _advanced(
                QgsProcessingParameterField(
                    name, f"{label} (default: '{attribute}')", parentLayerParameterName=parent, optional=True
                )
            )
        )
    params += [
        QgsProcessingParameterRasterLayer("DEM", "DEM (existing ground)", optional=True),
        QgsProcessingParameterEnum(
            "DEM_VERTICAL_UNIT",
            "DEM's vertical unit (never guessed)",
            options=list(VERTICAL_UNITS),
            optional=True,
            usesStaticStrings=True,
        ),
        _advanced(QgsProcessingParameterRasterLayer("PROPOSED_DEM", "Proposed grade DEM", optional=True)),
        _advanced(
            QgsProcessingParameterCrs("SITE_CRS", "Site CRS (default: the site boundary's)", optional=True)
        ),
    ]
    return params


def jurisdiction_parameters(
    profiles: list[tuple], *, profile_file: bool
) -> list[QgsProcessingParameterDefinition]:
    """``JURISDICTION`` (an installed profile) and, where the command takes one, ``PROFILE_FILE``."""
    params: list[QgsProcessingParameterDefinition] = [
        QgsProcessingParameterEnum(
            "JURISDICTION",
            "Jurisdiction (installed profile; default: the site folder's or template's)",
            options=[pid for pid, _ in profiles],
            optional=True,
            usesStaticStrings=True,
        )
    ]
    if profile_file:
        params.append(
            QgsProcessingParameterFile(
                "PROFILE_FILE",
                "Jurisdiction profile file (.toml; overrides the jurisdiction)",
                extension="toml",
                optional=True,
            )
        )
    return params


def project_parameters() -> list[QgsProcessingParameterDefinition]:
    """site.toml's name, template, [project] and contacts, for a site given as layers."""
    date = QgsProcessingParameterDateTime.Date
    number = QgsProcessingParameterNumber.Double
    params: list[QgsProcessingParameterDefinition] = [
        QgsProcessingParameterFile(
            "SITE_TOML",
            "Project details from a site.toml (contacts, [project], [declared]; the values below replace "
            "its own)",
            extension="toml",
            optional=True,
        ),
        QgsProcessingParameterString("SITE_NAME", "Site name", optional=True),
        QgsProcessingParameterDateTime("PROJECT_START", "Project start", type=date, optional=True),
        QgsProcessingParameterDateTime("PROJECT_END", "Project end", type=date, optional=True),
        QgsProcessingParameterNumber("CUT_CY", "Excavation (cubic yards)", number, optional=True, minValue=0),
        QgsProcessingParameterNumber("FILL_CY", "Fill (cubic yards)", number, optional=True, minValue=0),
        QgsProcessingParameterEnum(
            "PLAT", "Plat", options=list(PLATS), optional=True, usesStaticStrings=True
        ),
        QgsProcessingParameterEnum(
            "DEWATERING",
            "Dewatering",
            options=list(DEWATERING),
            defaultValue="not stated",
            usesStaticStrings=True,
        ),
    ]
    flags = (
        ("STATE_FUNDED", "State-funded or state-conducted work"),
        ("AUTHORITY_SUPERSEDED", "County or state supersedes the village's erosion control authority"),
        ("LANDSCAPING_ONLY", "Landscaping modifications only"),
    )
    params += [_advanced(QgsProcessingParameterBoolean(n, label, defaultValue=False)) for n, label in flags]
    params.append(
        _advanced(
            QgsProcessingParameterNumber(
                "BUILDING_PERMIT_DAYS",
                "Building permit (days)",
                QgsProcessingParameterNumber.Integer,
                optional=True,
                minValue=0,
            )
        )
    )
    for who in CONTACTS:
        for part in ("name", "address", "phone"):
            params.append(
                _advanced(
                    QgsProcessingParameterString(
                        f"{who.upper()}_{part.upper()}", f"{who.title()}: {part}", optional=True
                    )
                )
            )
    return params


@dataclass
class PreparedSite:
    """A site folder geosite can read, the options that go with it, and the layers written into it."""

    folder: str
    args: list[str] = field(default_factory=list)
    written: dict[str, WrittenLayer] = field(default_factory=dict)
    name: str = ""
    template_unit: str | None = None  # the template site.toml's [dem] vertical_unit

    def explain(self, message: str) -> str:
        """geosite's ``message`` about the folder written from layers, told in the dialog's terms: the
        GeoPackage's layers named by the QGIS layers written to them, the temporary folder left out."""
        if not self.written:
            return message
        gpkg = re.escape(os.path.join(self.folder, "layers.gpkg"))

        def _layer(m: re.Match) -> str:
            w = self.written.get(m.group(1) or m.group(2))
            return f"QGIS layer '{w.source_name}' ({w.name})" if w else m.group(0)

        message = re.sub(gpkg + r"(?:, layer '(\w+)'(?: \(\w+\))?| \((\w+)\))", _layer, message)
        message = message.replace(f"site '{self.folder}'", "the site written from the layers given")
        return message.replace(self.folder + os.sep, "")


def _given_layers(alg: Any, parameters: dict, context: QgsProcessingContext) -> dict[str, Any]:
    """Layer parameter -> its feature source, for the layers given."""
    given = {}
    for item in LAYERS:
        if parameters.get(item.param) in (None, ""):
            continue
        source = alg.parameterAsSource(parameters, item.param, context)
        if source is None:
            raise QgsProcessingException(f"{item.label}: the layer given cannot be read")
        given[item.param] = source
    return given


def _renames(alg: Any, parameters: dict, context: QgsProcessingContext) -> dict[str, dict[str, str]]:
    """Layer parameter -> {source field: geosite's attribute} from the field parameters."""
    out: dict[str, dict[str, str]] = {}
    for name, parent, attribute, _ in FIELD_INPUTS:
        chosen = alg.parameterAsFields(parameters, name, context) if parameters.get(name) else []
        if chosen:
            out.setdefault(parent, {})[chosen[0]] = attribute
    return out


def _text(alg: Any, parameters: dict, name: str, context: QgsProcessingContext) -> str | None:
    value = alg.parameterAsString(parameters, name, context) if parameters.get(name) not in (None, "") else ""
    return value.strip() or None


def _date(alg: Any, parameters: dict, name: str, context: QgsProcessingContext) -> Any:
    if parameters.get(name) in (None, ""):
        return None
    value = alg.parameterAsDateTime(parameters, name, context)
    return value.date().toPyDate() if value.isValid() else None


def _number(alg: Any, parameters: dict, name: str, context: QgsProcessingContext) -> float | None:
    if parameters.get(name) in (None, ""):
        return None
    return alg.parameterAsDouble(parameters, name, context)


def _project(alg: Any, parameters: dict, context: QgsProcessingContext) -> dict[str, Any]:
    """The [project] values the dialog states (None: not stated)."""
    dewatering = _text(alg, parameters, "DEWATERING", context) or "not stated"
    days = _number(alg, parameters, "BUILDING_PERMIT_DAYS", context)

    def flag(name: str) -> bool | None:
        return True if alg.parameterAsBoolean(parameters, name, context) else None

    return {
        "start": _date(alg, parameters, "PROJECT_START", context),
        "end": _date(alg, parameters, "PROJECT_END", context),
        "cut_cy": _number(alg, parameters, "CUT_CY", context),
        "fill_cy": _number(alg, parameters, "FILL_CY", context),
        "plat": _text(alg, parameters, "PLAT", context),
        "dewatering": {"yes": True, "no": False}.get(dewatering),
        "state_funded": flag("STATE_FUNDED"),
        "authority_superseded": flag("AUTHORITY_SUPERSEDED"),
        "landscaping_only": flag("LANDSCAPING_ONLY"),
        "building_permit_days": int(days) if days is not None else None,
    }


def _contacts(alg: Any, parameters: dict, context: QgsProcessingContext) -> dict[str, dict[str, Any]]:
    return {
        who: {
            part: _text(alg, parameters, f"{who.upper()}_{part.upper()}", context)
            for part in ("name", "address", "phone")
        }
        for who in CONTACTS
    }


def jurisdiction_args(alg: Any, parameters: dict, context: QgsProcessingContext) -> list[str]:
    """``--jurisdiction`` from PROFILE_FILE (a file) or JURISDICTION (a name); none when neither is given."""
    profile_file = _text(alg, parameters, "PROFILE_FILE", context) if "PROFILE_FILE" in parameters else None
    name = _text(alg, parameters, "JURISDICTION", context)
    chosen = profile_file or name
    return ["--jurisdiction", chosen] if chosen else []


@dataclass(frozen=True)
class Request:
    """What the command needs of the site: whether the DEM is used, and whether the folder is a deliverable
    (its own DEM copy) rather than a working copy."""

    workdir: str
    uses_dem: bool = True
    deliverable: bool = False


def prepare_site(
    alg: Any,
    parameters: dict,
    context: QgsProcessingContext,
    feedback: QgsProcessingFeedback,
    request: Request,
) -> PreparedSite:
    """The site folder the dialog describes, and the options to pass with it.

    Parameters
    ----------
    alg : QgsProcessingAlgorithm
        The algorithm (its ``parameterAs...`` readers).
    parameters : dict
        The run's parameters.
    context, feedback
        The run's.
    request : Request
        Where a folder is written and what the command needs.

    Returns
    -------
    PreparedSite
        The folder and options.

    Raises
    ------
    QgsProcessingException
        Neither a folder nor a site boundary given, or both a folder and layers.
    """
    folder = _text(alg, parameters, "SITE_FOLDER", context) if "SITE_FOLDER" in parameters else None
    layers = _given_layers(alg, parameters, context)
    if folder and layers:
        raise QgsProcessingException(
            f"Give either an existing site folder or layers, not both (folder {folder}; layers: "
            + ", ".join(sorted(layers))
            + ")"
        )
    if folder:
        unused = _layers_only_values(alg, parameters, context)
        if unused:
            raise QgsProcessingException(
                f"With an existing site folder ({folder}) its site.toml holds the project: leave "
                f"{', '.join(unused)} empty, or give the site as layers"
            )
        return _existing_folder(alg, parameters, context, folder, request)
    if "SITE_BOUNDARY" not in layers:
        raise QgsProcessingException(
            "Give a site folder, or at least the site boundary layer (SITE_BOUNDARY)"
        )
    return _folder_from_layers(alg, parameters, context, feedback, request, layers=layers)


#: Parameters that describe a site given as layers (a folder's site.toml says all of it).
_LAYERS_ONLY = (
    "SITE_TOML",
    "SITE_NAME",
    "SITE_CRS",
    "PROPOSED_DEM",
    "PROJECT_START",
    "PROJECT_END",
    "CUT_CY",
    "FILL_CY",
    "PLAT",
    "BUILDING_PERMIT_DAYS",
    *(name for name, *_ in FIELD_INPUTS),
    *(f"{who.upper()}_{part}" for who in CONTACTS for part in ("NAME", "ADDRESS", "PHONE")),
)
_LAYERS_ONLY_FLAGS = ("STATE_FUNDED", "AUTHORITY_SUPERSEDED", "LANDSCAPING_ONLY")


def _layers_only_values(alg: Any, parameters: dict, context: QgsProcessingContext) -> list[str]:
    """The parameters given that only a site given as layers uses."""
    given = [n for n in _LAYERS_ONLY if parameters.get(n) not in (None, "")]
    given += [
        n for n in _LAYERS_ONLY_FLAGS if n in parameters and alg.parameterAsBoolean(parameters, n, context)
    ]
    if (_text(alg, parameters, "DEWATERING", context) or "not stated") != "not stated":
        given.append("DEWATERING")
    return given


def _existing_folder(
    alg: Any, parameters: dict, context: QgsProcessingContext, folder: str, request: Request
) -> PreparedSite:
    """An existing folder: the DEM and its unit given in the dialog become ``--dem`` options."""
    site = PreparedSite(folder=folder, name=Path(folder).name)
    unit = _text(alg, parameters, "DEM_VERTICAL_UNIT", context)
    if request.uses_dem and parameters.get("DEM") not in (None, ""):
        dem = alg.parameterAsRasterLayer(parameters, "DEM", context)
        os.makedirs(request.workdir, exist_ok=True)
        target = os.path.join(request.workdir, "dem.tif")
        site.args += ["--dem", raster_file(dem, target, copy=False, context=context, feedback=None)]
    if request.uses_dem and unit:
        site.args += ["--dem-vertical-unit", unit]
    return site


def _folder_from_layers(
    alg: Any,
    parameters: dict,
    context: QgsProcessingContext,
    feedback: QgsProcessingFeedback,
    request: Request,
    *,
    layers: dict[str, Any],
) -> PreparedSite:
    """Write the layers, the DEM (for a deliverable) and site.toml into ``request.workdir``."""
    root = request.workdir
    os.makedirs(root, exist_ok=True)
    template_path = _text(alg, parameters, "SITE_TOML", context)
    try:
        template = site_toml.read_template(template_path) if template_path else {}
    except site_toml.TemplateError as exc:
        raise QgsProcessingException(str(exc)) from exc
    site = PreparedSite(folder=root)
    renames = _renames(alg, parameters, context)
    gpkg = os.path.join(root, "layers.gpkg")
    for item in LAYERS:
        if item.param in layers:
            written = write_layer(
                gpkg,
                item.layer,
                layers[item.param],
                renames=renames.get(item.param, {}),
                first=not site.written,
                context=context,
                feedback=feedback,
            )
            site.written[item.layer] = written
            feedback.pushInfo(f"{item.layer}: {written.features} features from '{written.source_name}'")
    template_dem = template.get("dem") if isinstance(template.get("dem"), dict) else {}
    site.template_unit = template_dem.get("vertical_unit")
    for key, param, label in (
        ("path", "DEM", "the DEM"),
        ("proposed", "PROPOSED_DEM", "the proposed grade DEM"),
    ):
        if request.uses_dem and template_dem.get(key) and parameters.get(param) in (None, ""):
            feedback.pushWarning(
                f"The template's [dem] {key} ({template_dem[key]}) is not used: the site's data come from "
                f"the dialog; give it as {label} ({param}) to use it"
            )
    dem = _dem_entries(alg, parameters, context, feedback, request, site=site)
    if template_path:
        for rel in site_toml.declared_files(template, Path(template_path).parent):
            os.makedirs(os.path.dirname(os.path.join(root, rel)) or root, exist_ok=True)
            shutil.copyfile(os.path.join(os.path.dirname(template_path), rel), os.path.join(root, rel))
    name = _text(alg, parameters, "SITE_NAME", context) or template.get("name")
    site.name = str(name or site.written["site_boundary"].source_name)
    crs = alg.parameterAsCrs(parameters, "SITE_CRS", context) if parameters.get("SITE_CRS") else None
    doc = site_toml.site_document(
        template,
        name=site.name,
        jurisdiction=_text(alg, parameters, "JURISDICTION", context),
        crs=(crs.authid() or crs.toWkt()) if crs is not None and crs.isValid() else None,
        dem=dem,
        layers_path="layers.gpkg",
        project=_project(alg, parameters, context),
        contacts=_contacts(alg, parameters, context),
    )
    with open(os.path.join(root, "site.toml"), "w", encoding="utf-8") as f:
        f.write(
            site_toml.dumps(
                doc, header="Written by the geosite QGIS plugin from the layers of a QGIS project."
            )
        )
    return site


def _dem_entries(
    alg: Any,
    parameters: dict,
    context: QgsProcessingContext,
    feedback: QgsProcessingFeedback,
    request: Request,
    *,
    site: PreparedSite,
) -> dict[str, Any]:
    """The [dem] values, and ``--dem`` on ``site`` where the DEM stays where it is."""
    if not request.uses_dem:
        return {}
    unit = _text(alg, parameters, "DEM_VERTICAL_UNIT", context) or site.template_unit
    dem_layer = alg.parameterAsRasterLayer(parameters, "DEM", context) if parameters.get("DEM") else None
    proposed = (
        alg.parameterAsRasterLayer(parameters, "PROPOSED_DEM", context)
        if parameters.get("PROPOSED_DEM")
        else None
    )
    if (dem_layer is not None or proposed is not None) and not unit:
        raise QgsProcessingException(
            "Choose the DEM's vertical unit (DEM_VERTICAL_UNIT: us_ft, ft or m), or give a template "
            "site.toml stating it ([dem] vertical_unit): geosite never guesses it"
        )
    entries: dict[str, Any] = {"vertical_unit": unit}
    root = request.workdir
    if dem_layer is not None:
        path = raster_file(
            dem_layer,
            os.path.join(root, "dem.tif"),
            copy=request.deliverable,
            context=context,
            feedback=feedback,
        )
        if os.path.dirname(os.path.abspath(path)) == os.path.abspath(root):
            entries["path"] = os.path.basename(path)
        else:
            site.args += ["--dem", path]
    if proposed is not None:
        if dem_layer is None:
            raise QgsProcessingException("A proposed grade DEM needs the existing ground DEM (DEM) too")
        raster_file(
            proposed, os.path.join(root, "proposed.tif"), copy=True, context=context, feedback=feedback
        )
        entries["proposed"] = "proposed.tif"
    return entries
