"""The geosite algorithms, one per command of the command line: Analyze site (``analyze``), Check
submission (``check``), Draw plan sheets (``map``), Review calendar (``schedule``) and Write a submission
folder (a site folder from layers, read back by geosite).
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import uuid
from typing import Any

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsFeature,
    QgsFeatureSink,
    QgsProcessing,
    QgsProcessingContext,
    QgsProcessingException,
    QgsProcessingFeedback,
    QgsProcessingOutputFile,
    QgsProcessingOutputFolder,
    QgsProcessingOutputHtml,
    QgsProcessingOutputNumber,
    QgsProcessingOutputString,
    QgsProcessingParameterBoolean,
    QgsProcessingParameterDateTime,
    QgsProcessingParameterEnum,
    QgsProcessingParameterFeatureSink,
    QgsProcessingParameterFile,
    QgsProcessingParameterFolderDestination,
    QgsProcessingParameterNumber,
    QgsProcessingParameterString,
    QgsWkbTypes,
)

from . import results
from .base import GeositeAlgorithm, advanced, common_args, limits_parameter, output_folder, output_parameters
from .engine import Engine
from .site_inputs import (
    PreparedSite,
    Request,
    folder_parameter,
    jurisdiction_args,
    jurisdiction_parameters,
    layer_parameters,
    prepare_site,
    project_parameters,
)

SHEETS = ["auto"] + [
    f"{size}{turn}"
    for size in ("ANSI-A", "ANSI-B", "ANSI-C", "ANSI-D", "ARCH-D")
    for turn in ("", "-landscape", "-portrait")
]
SHEET_KINDS = ("existing_site_map", "construction_plan", "final_conditions")
CONSULTANT = ("Consultant: the plan", "consultant")
INSPECTOR = ("Inspector: the review", "inspector")


def _site_parameters(profiles: list[tuple], *, profile_file: bool = True, dem: bool = True) -> list:
    params = [folder_parameter("Existing site folder (site.toml, layers, DEM); or give the layers below")]
    params += [
        p for p in layer_parameters() if dem or p.name() not in ("DEM", "DEM_VERTICAL_UNIT", "PROPOSED_DEM")
    ]
    params += jurisdiction_parameters(profiles, profile_file=profile_file)
    return params + project_parameters()


def _sheet_parameters() -> list:
    return [
        QgsProcessingParameterEnum(
            "SHEET", "Sheet size (--sheet)", options=SHEETS, defaultValue="auto", usesStaticStrings=True
        ),
        QgsProcessingParameterNumber(
            "SCALE_FT",
            "Map scale, feet per inch (--scale; default: the chapter's)",
            QgsProcessingParameterNumber.Double,
            optional=True,
            minValue=0.0,
        ),
    ]


def _sheet_args(
    alg: GeositeAlgorithm, parameters: dict[str, Any], context: QgsProcessingContext
) -> list[str]:
    args = ["--sheet", alg.parameterAsString(parameters, "SHEET", context) or "auto"]
    if parameters.get("SCALE_FT") not in (None, ""):
        args += ["--scale", repr(alg.parameterAsDouble(parameters, "SCALE_FT", context))]
    return args


def _flags(
    alg: GeositeAlgorithm, parameters: dict[str, Any], context: QgsProcessingContext, names: dict[str, str]
) -> list[str]:
    return [flag for name, flag in names.items() if alg.parameterAsBoolean(parameters, name, context)]


def _date_arg(
    alg: GeositeAlgorithm, parameters: dict[str, Any], name: str, context: QgsProcessingContext
) -> list[str]:
    if parameters.get(name) in (None, ""):
        return []
    value = alg.parameterAsDateTime(parameters, name, context)
    return [value.date().toString("yyyy-MM-dd")] if value.isValid() else []


def _sheet_outputs() -> list:
    return [
        QgsProcessingOutputFile(k.upper(), f"{k.replace('_', ' ').capitalize()} (PDF)") for k in SHEET_KINDS
    ] + [QgsProcessingOutputString("SHEETS", "Every sheet PDF (one per line; tiled sites have several)")]


def _sheets(out: str) -> dict[str, Any]:
    """The sheet PDFs geosite wrote in ``out``: the first of each kind, and all of them."""
    found: dict[str, Any] = {}
    every = sorted(glob.glob(os.path.join(out, "*.pdf")))
    for kind in SHEET_KINDS:
        mine = [p for p in every if os.path.basename(p).startswith(kind)]
        found[kind.upper()] = mine[0] if mine else None
    found["SHEETS"] = "\n".join(every)
    return found


def _group_name(site: PreparedSite, report_site: Any, what: str) -> str:
    name = report_site.get("name") if isinstance(report_site, dict) else report_site
    return f"{name or site.name}: geosite {what}"


class AnalyzeAlgorithm(GeositeAlgorithm):
    """``geosite analyze``."""

    COMMAND = "analyze"
    NAME = "analyze"
    DISPLAY = "Analyze site"
    GROUP, GROUP_ID = CONSULTANT
    HELP = (
        "<p>Measures the site (areas, phases, slopes, drainage), places the controls the village's "
        "chapter requires and reports a finding per rule, each citing its section. Loads derived.gpkg's "
        "layers styled as on the sheets, and the findings as a table; writes the plan sheets (PDF) and "
        "the plan folder (the submission geosite proposes).</p><p>Give an existing site folder, or the "
        "site's layers, DEM and project details.</p>"
    )

    def parameters_for(self, profiles: list[tuple]) -> list:
        """Site, options, outputs."""
        params = _site_parameters(profiles)
        params.append(
            QgsProcessingParameterBoolean("NO_MAPS", "Skip the plan sheets (--no-maps)", defaultValue=False)
        )
        params += _sheet_parameters()
        params += [
            QgsProcessingParameterBoolean(
                "MAKE_VALID", "Repair invalid polygons (--make-valid)", defaultValue=False
            ),
            QgsProcessingParameterBoolean(
                "STRICT", "Treat warnings as errors (--strict)", defaultValue=False
            ),
            advanced(
                QgsProcessingParameterBoolean(
                    "ALLOW_OUTSIDE_PATHS", "Let site.toml name files outside the folder", defaultValue=False
                )
            ),
            limits_parameter(),
            QgsProcessingParameterFeatureSink(
                "FINDINGS", "Findings", QgsProcessing.TypeVector, optional=True, createByDefault=True
            ),
        ]
        return params + output_parameters("Output folder (report, derived.gpkg, sheets, plan folder)")

    def outputs_for(self) -> list:
        """Files and figures of the run."""
        return [
            QgsProcessingOutputFile("REPORT_JSON", "report.json"),
            QgsProcessingOutputFile("REPORT_MD", "report.md"),
            QgsProcessingOutputFile("DERIVED_GPKG", "derived.gpkg"),
            QgsProcessingOutputFile("DERIVED_DXF", "derived.dxf"),
            QgsProcessingOutputFolder("PLAN_FOLDER", "Plan folder (the proposed submission)"),
            QgsProcessingOutputString("PLAN_TYPE", "Plan type"),
            QgsProcessingOutputNumber("FAILED", "Failed findings"),
            *_sheet_outputs(),
        ]

    def run_command(
        self,
        engine: Engine,
        parameters: dict[str, Any],
        context: QgsProcessingContext,
        feedback: QgsProcessingFeedback,
        workdir: str,
    ) -> dict[str, Any]:
        """Write the site, run analyze, load its layers and findings."""
        site = prepare_site(
            self, parameters, context, feedback, Request(workdir=os.path.join(workdir, "site"))
        )
        out = output_folder(self, parameters, context)
        args = [site.folder, "--out", out, *site.args, *jurisdiction_args(self, parameters, context)]
        args += _flags(
            self,
            parameters,
            context,
            {
                "NO_MAPS": "--no-maps",
                "MAKE_VALID": "--make-valid",
                "STRICT": "--strict",
                "ALLOW_OUTSIDE_PATHS": "--allow-outside-paths",
            },
        )
        if not self.parameterAsBoolean(parameters, "NO_MAPS", context):
            args += _sheet_args(self, parameters, context)
        self.geosite(engine, args + common_args(self, parameters, context), feedback, site)
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            report = json.load(f)
        run = results.RunGroup(_group_name(site, report.get("site"), "analyze"))
        loaded = results.load_gpkg(context, os.path.join(out, "derived.gpkg"), run)
        feedback.pushInfo(f"derived.gpkg: loading {len(loaded)} layers with features ({', '.join(loaded)})")
        outputs = {
            "OUTPUT": out,
            "REPORT_JSON": os.path.join(out, "report.json"),
            "REPORT_MD": os.path.join(out, "report.md"),
            "DERIVED_GPKG": os.path.join(out, "derived.gpkg"),
            "DERIVED_DXF": os.path.join(out, "derived.dxf"),
            "PLAN_FOLDER": os.path.join(out, "plan"),
            "PLAN_TYPE": report.get("plan_type"),
            "FAILED": sum(1 for f in report.get("findings", []) if f.get("status") == "fail"),
            **_sheets(out),
        }
        sink, dest = self.parameterAsSink(
            parameters,
            "FINDINGS",
            context,
            results.findings_fields(),
            QgsWkbTypes.NoGeometry,
            QgsCoordinateReferenceSystem(),
        )
        if sink is not None:
            results.write_findings(sink, report.get("findings", []))
            results.place_output(context, dest, run, 3000)
            outputs["FINDINGS"] = dest
        return outputs


class CheckAlgorithm(GeositeAlgorithm):
    """``geosite check``."""

    COMMAND = "check"
    NAME = "check"
    DISPLAY = "Check submission"
    GROUP, GROUP_ID = INSPECTOR
    HELP = (
        "<p>Reviews a submitted plan against the village's chapter, section by section: what is missing, "
        "what is wrong and where, and the review deadline. The submission is read by geosite in a sandbox "
        "(no network, bounded memory and time). Loads findings.gpkg's layers (where each problem is) "
        "styled by status; the verdict is an output, and report.html opens in the results viewer.</p>"
        "<p>A plan with failed findings is a result (verdict <i>fail</i>), not an error.</p>"
    )

    def parameters_for(self, profiles: list[tuple]) -> list:
        """Submission, options, outputs."""
        params = _site_parameters(profiles)
        params[0] = folder_parameter(
            "Submission folder (site.toml with [declared], layers, DEM); or give the layers below"
        )
        params += [
            QgsProcessingParameterDateTime(
                "RECEIVED",
                "Received (application, plan and fee; --received)",
                type=QgsProcessingParameterDateTime.Date,
                optional=True,
            ),
            QgsProcessingParameterBoolean(
                "MAKE_VALID", "Repair invalid polygons, reporting each (--make-valid)", defaultValue=False
            ),
            QgsProcessingParameterBoolean("NO_HTML", "Skip report.html (--no-html)", defaultValue=False),
            limits_parameter(),
        ]
        return params + output_parameters("Output folder (findings, report.html)")

    def outputs_for(self) -> list:
        """Files and the verdict."""
        return [
            QgsProcessingOutputString("VERDICT", "Verdict (pass, fail, incomplete, inspector_decision)"),
            QgsProcessingOutputNumber("FAILED", "Failed findings"),
            QgsProcessingOutputString("REVIEW_DEADLINE", "Review deadline"),
            QgsProcessingOutputFile("FINDINGS_GPKG", "findings.gpkg"),
            QgsProcessingOutputFile("FINDINGS_JSON", "findings.json"),
            QgsProcessingOutputFile("FINDINGS_MD", "findings.md"),
            QgsProcessingOutputHtml("REPORT_HTML", "Review report"),
        ]

    def run_command(
        self,
        engine: Engine,
        parameters: dict[str, Any],
        context: QgsProcessingContext,
        feedback: QgsProcessingFeedback,
        workdir: str,
    ) -> dict[str, Any]:
        """Write the submission (its DEM copied in: a DEM the applicant submits is part of the plan's
        content), run check (exit 1 = failed findings, a result), load the findings."""
        site = prepare_site(
            self,
            parameters,
            context,
            feedback,
            Request(workdir=os.path.join(workdir, "site"), deliverable=True),
        )
        out = output_folder(self, parameters, context)
        args = [site.folder, "--out", out, *site.args, *jurisdiction_args(self, parameters, context)]
        received = _date_arg(self, parameters, "RECEIVED", context)
        args += ["--received", *received] if received else []
        args += _flags(self, parameters, context, {"MAKE_VALID": "--make-valid", "NO_HTML": "--no-html"})
        self.geosite(engine, args + common_args(self, parameters, context), feedback, site, ok_codes=(0, 1))
        with open(os.path.join(out, "findings.json"), encoding="utf-8") as f:
            summary = json.load(f)
        verdict = summary.get("verdict")
        run = results.RunGroup(_group_name(site, summary.get("site"), f"check ({verdict})"))
        results.load_gpkg(context, os.path.join(out, "findings.gpkg"), run)
        html = os.path.join(out, "report.html")
        return {
            "OUTPUT": out,
            "VERDICT": verdict,
            "FAILED": (summary.get("counts") or {}).get("fail", 0),
            "REVIEW_DEADLINE": summary.get("review_deadline"),
            "FINDINGS_GPKG": os.path.join(out, "findings.gpkg"),
            "FINDINGS_JSON": os.path.join(out, "findings.json"),
            "FINDINGS_MD": os.path.join(out, "findings.md"),
            "REPORT_HTML": html if os.path.exists(html) else None,
        }


class MapAlgorithm(GeositeAlgorithm):
    """``geosite map``."""

    COMMAND = "map"
    NAME = "map"
    DISPLAY = "Draw plan sheets"
    GROUP, GROUP_ID = CONSULTANT
    HELP = (
        "<p>Draws the site's plan sheets: existing site map, construction plan and final conditions, as "
        "vector PDFs at the scale the village's chapter asks for (PNG previews beside them).</p>"
    )

    def parameters_for(self, profiles: list[tuple]) -> list:
        """Site, sheet options, output."""
        params = _site_parameters(profiles) + _sheet_parameters()
        params += [
            QgsProcessingParameterNumber(
                "MARGIN_FT",
                "Margin shown around the site, feet (--margin)",
                QgsProcessingParameterNumber.Double,
                optional=True,
                minValue=0.0,
            ),
            QgsProcessingParameterBoolean(
                "NO_HILLSHADE", "No shaded relief (--no-hillshade)", defaultValue=False
            ),
        ]
        return params + output_parameters("Output folder (the sheets)")

    def outputs_for(self) -> list:
        """The sheets."""
        return _sheet_outputs()

    def run_command(
        self,
        engine: Engine,
        parameters: dict[str, Any],
        context: QgsProcessingContext,
        feedback: QgsProcessingFeedback,
        workdir: str,
    ) -> dict[str, Any]:
        """Write the site and draw its sheets."""
        site = prepare_site(
            self, parameters, context, feedback, Request(workdir=os.path.join(workdir, "site"))
        )
        out = output_folder(self, parameters, context)
        args = [site.folder, "--out", out, *site.args, *jurisdiction_args(self, parameters, context)]
        args += _sheet_args(self, parameters, context)
        if parameters.get("MARGIN_FT") not in (None, ""):
            args += ["--margin", repr(self.parameterAsDouble(parameters, "MARGIN_FT", context))]
        args += _flags(self, parameters, context, {"NO_HILLSHADE": "--no-hillshade"})
        self.geosite(engine, args + common_args(self, parameters, context), feedback, site)
        return {"OUTPUT": out, **_sheets(out)}


class ScheduleAlgorithm(GeositeAlgorithm):
    """``geosite schedule``."""

    COMMAND = "schedule"
    NAME = "schedule"
    DISPLAY = "Review calendar"
    GROUP, GROUP_ID = INSPECTOR
    HELP = (
        "<p>The site's calendar under its chapter: review and permit deadlines, notices, inspections "
        "(weekly and after rain) and stabilization dates, counted in the chapter's working days. The "
        "calendar is loaded as a table, dated.</p>"
    )
    DATES = (
        ("RECEIVED", "--received", "Received (application, plan and fee)"),
        ("ISSUED", "--issued", "Permit issued"),
        ("INFO_RECEIVED", "--info-received", "Needed information received"),
        ("NOTICE", "--notice", "Notice of violation or stop-work order"),
        ("NOTICE_OF_INTENT", "--notice-of-intent", "Notice of intent mailed or served"),
        ("NOTICE_WITHOUT_PERMIT", "--notice-without-permit", "Notice of work without a permit"),
    )

    def parameters_for(self, profiles: list[tuple]) -> list:
        """Site (no DEM needed), dates, rain, output."""
        params = _site_parameters(profiles, dem=False)
        date = QgsProcessingParameterDateTime.Date
        params += [
            QgsProcessingParameterDateTime(n, f"{label} ({flag})", type=date, optional=True)
            for n, flag, label in self.DATES
        ]
        params += [
            QgsProcessingParameterFile(
                "RAIN",
                "Daily rainfall CSV: date, rain_in or rain_mm (--rain)",
                extension="csv",
                optional=True,
            ),
            QgsProcessingParameterEnum(
                "PLAN_TYPE",
                "Plan type (default: from the disturbed area)",
                options=["full", "statement", "both"],
                optional=True,
                usesStaticStrings=True,
            ),
            QgsProcessingParameterString(
                "EXTENSIONS", "Permit extensions, days each (e.g. 180, 90)", optional=True
            ),
            QgsProcessingParameterString(
                "BMP_INSTALLED", "Days BMPs were installed (YYYY-MM-DD, separated by commas)", optional=True
            ),
            QgsProcessingParameterFeatureSink(
                "CALENDAR", "Calendar", QgsProcessing.TypeVector, optional=True, createByDefault=True
            ),
        ]
        return params + output_parameters("Output folder (schedule.json, schedule.md)")

    def outputs_for(self) -> list:
        """The files."""
        return [
            QgsProcessingOutputFile("SCHEDULE_JSON", "schedule.json"),
            QgsProcessingOutputFile("SCHEDULE_MD", "schedule.md"),
        ]

    def _args(self, parameters: dict[str, Any], context: QgsProcessingContext) -> list[str]:
        args: list[str] = []
        for name, flag, _ in self.DATES:
            day = _date_arg(self, parameters, name, context)
            args += [flag, *day] if day else []
        rain = self.parameterAsString(parameters, "RAIN", context) if parameters.get("RAIN") else ""
        args += ["--rain", rain] if rain else []
        plan_type = (
            self.parameterAsString(parameters, "PLAN_TYPE", context) if parameters.get("PLAN_TYPE") else ""
        )
        args += ["--plan-type", plan_type] if plan_type else []
        for name, flag in (("EXTENSIONS", "--extension"), ("BMP_INSTALLED", "--bmp-installed")):
            text = self.parameterAsString(parameters, name, context) if parameters.get(name) else ""
            for item in text.replace(";", ",").split(","):
                args += [flag, item.strip()] if item.strip() else []
        return args

    def run_command(
        self,
        engine: Engine,
        parameters: dict[str, Any],
        context: QgsProcessingContext,
        feedback: QgsProcessingFeedback,
        workdir: str,
    ) -> dict[str, Any]:
        """Write the site, count its calendar, load it as a table."""
        request = Request(workdir=os.path.join(workdir, "site"), uses_dem=False)
        site = prepare_site(self, parameters, context, feedback, request)
        out = output_folder(self, parameters, context)
        args = [
            site.folder,
            "--format",
            "json",
            "--out",
            out,
            *site.args,
            *jurisdiction_args(self, parameters, context),
        ]
        outcome = self.geosite(
            engine,
            args + self._args(parameters, context) + common_args(self, parameters, context),
            feedback,
            site,
            echo_stdout=False,
        )
        schedule = json.loads(outcome.stdout)
        outputs = {
            "OUTPUT": out,
            "SCHEDULE_JSON": os.path.join(out, "schedule.json"),
            "SCHEDULE_MD": os.path.join(out, "schedule.md"),
        }
        sink, dest = self.parameterAsSink(
            parameters,
            "CALENDAR",
            context,
            results.calendar_fields(),
            QgsWkbTypes.NoGeometry,
            QgsCoordinateReferenceSystem(),
        )
        if sink is not None:
            fields = results.calendar_fields()
            for row in results.calendar_rows(schedule):
                feature = QgsFeature(fields)
                feature.setAttributes(row)
                sink.addFeature(feature, QgsFeatureSink.FastInsert)
            run = results.RunGroup(_group_name(site, schedule.get("site"), "schedule"))
            results.place_output(context, dest, run, 3000)
            outputs["CALENDAR"] = dest
        for line in schedule.get("notes", []):
            feedback.pushInfo(f"note: {line}")
        return outputs


class WriteSiteFolderAlgorithm(GeositeAlgorithm):
    """A site folder from layers, read back by geosite."""

    COMMAND = "schedule"  # the validating read: load_site's every check, no analysis
    NAME = "write_site_folder"
    DISPLAY = "Write a submission folder (from layers)"
    GROUP, GROUP_ID = CONSULTANT
    HELP = (
        "<p>Writes the layers, DEM and project details as a site folder (site.toml, layers.gpkg, dem.tif: "
        "docs/site_folder.md), the folder an applicant submits and <i>Check submission</i> reads. geosite "
        "then reads the folder back and refuses what it would refuse at the village (a CRS in degrees, "
        "a DEM without its vertical unit, dates that are not dates...); nothing is left where it "
        "refuses.</p><p>[declared] texts (plan type, maintenance, stabilization...) come from the "
        "template site.toml.</p>"
    )

    def parameters_for(self, profiles: list[tuple]) -> list:
        """Layers, DEM, jurisdiction (installed: a submission names one), project, output."""
        params = (
            layer_parameters() + jurisdiction_parameters(profiles, profile_file=False) + project_parameters()
        )
        return params + [QgsProcessingParameterFolderDestination("OUTPUT", "Site folder")]

    def outputs_for(self) -> list:
        """The folder's files."""
        return [
            QgsProcessingOutputFile("SITE_TOML", "site.toml"),
            QgsProcessingOutputFile("LAYERS_GPKG", "layers.gpkg"),
        ]

    def run_command(
        self,
        engine: Engine,
        parameters: dict[str, Any],
        context: QgsProcessingContext,
        feedback: QgsProcessingFeedback,
        workdir: str,
    ) -> dict[str, Any]:
        """Write beside the destination, have geosite read it, then move it into place."""
        out = output_folder(self, parameters, context)
        if os.path.exists(out):
            raise QgsProcessingException(f"{out} exists and is not empty: choose a new folder for the site")
        parent = os.path.dirname(os.path.abspath(out))
        os.makedirs(parent, exist_ok=True)
        partial = os.path.join(parent, f".{os.path.basename(out)}.partial-{uuid.uuid4().hex[:8]}")
        try:
            site = prepare_site(
                self, parameters, context, feedback, Request(workdir=partial, deliverable=True)
            )
            self.geosite(engine, [partial, "--format", "json"], feedback, site, echo_stdout=False)
            os.replace(partial, out)
        finally:
            shutil.rmtree(partial, ignore_errors=True)
        feedback.pushInfo(f"wrote {out}: " + ", ".join(sorted(os.listdir(out))))
        return {
            "OUTPUT": out,
            "SITE_TOML": os.path.join(out, "site.toml"),
            "LAYERS_GPKG": os.path.join(out, "layers.gpkg"),
        }


ALGORITHMS = (AnalyzeAlgorithm, CheckAlgorithm, MapAlgorithm, ScheduleAlgorithm, WriteSiteFolderAlgorithm)
