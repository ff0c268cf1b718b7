"""What every geosite algorithm shares: finding the geosite command, a working folder, the output folder,
running the command with QGIS's feedback, and turning geosite's refusal into the algorithm's error.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

from qgis.core import (
    QgsProcessingAlgorithm,
    QgsProcessingContext,
    QgsProcessingException,
    QgsProcessingFeedback,
    QgsProcessingParameterBoolean,
    QgsProcessingParameterDefinition,
    QgsProcessingParameterFolderDestination,
    QgsProcessingParameterString,
    QgsProcessingUtils,
    QgsSettings,
)
from qgis.PyQt.QtGui import QIcon

from .engine import SETTING, Engine, EngineNotFound, find_engine
from .runner import Cancelled, GeositeError, Outcome, run_geosite
from .site_inputs import PreparedSite

ICON = os.path.join(os.path.dirname(__file__), "icon.svg")
_STEPS_KEY = "geosite_processing/steps/{}"


def configured_command() -> str:
    """The provider setting's text (empty: ``geosite`` on PATH)."""
    from processing.core.ProcessingConfig import ProcessingConfig

    return str(ProcessingConfig.getSetting(SETTING) or "")


def advanced(param: QgsProcessingParameterDefinition) -> QgsProcessingParameterDefinition:
    """``param`` shown under the dialog's Advanced parameters."""
    param.setFlags(param.flags() | QgsProcessingParameterDefinition.FlagAdvanced)
    return param


def output_parameters(description: str) -> list[QgsProcessingParameterDefinition]:
    """``OUTPUT`` (geosite's ``--out``) and ``OVERWRITE``."""
    return [
        QgsProcessingParameterBoolean(
            "OVERWRITE", "Replace the output folder when geosite wrote it (--overwrite)", defaultValue=False
        ),
        QgsProcessingParameterFolderDestination("OUTPUT", description),
    ]


def limits_parameter() -> QgsProcessingParameterDefinition:
    """``LIMITS``: geosite's ``--limit KEY=VALUE`` options, separated by spaces or commas."""
    return advanced(
        QgsProcessingParameterString(
            "LIMITS",
            "Resource limits (--limit KEY=VALUE, separated by spaces; docs/security.md)",
            optional=True,
        )
    )


class GeositeAlgorithm(QgsProcessingAlgorithm):
    """An algorithm running one geosite command. Subclasses give ``COMMAND``, the texts, the parameters
    (:meth:`site_parameters`, :meth:`own_parameters`) and :meth:`run_command`."""

    COMMAND = ""
    NAME = ""
    DISPLAY = ""
    GROUP = ""
    GROUP_ID = ""
    HELP = ""

    def __init__(self, engine: Engine | None = None, problem: str = "") -> None:
        super().__init__()
        self.engine = engine
        self.problem = problem

    def createInstance(self) -> GeositeAlgorithm:
        """A new instance (QGIS runs each on its own copy)."""
        return type(self)(self.engine, self.problem)

    def name(self) -> str:
        """The id within the provider (``geosite:NAME``)."""
        return self.NAME

    def displayName(self) -> str:
        """The name in the toolbox."""
        return self.DISPLAY

    def group(self) -> str:
        """The toolbox group."""
        return self.GROUP

    def groupId(self) -> str:
        """The toolbox group's id."""
        return self.GROUP_ID

    def icon(self) -> QIcon:
        """geosite's icon."""
        return QIcon(ICON)

    def shortHelpString(self) -> str:
        """What it does, the command it runs and the geosite found."""
        found = self.engine.describe() if self.engine else f"geosite not found: {self.problem}"
        return f"{self.HELP}<p>Runs <code>geosite {self.COMMAND}</code>. {found}.</p>"

    def initAlgorithm(self, config: dict[str, Any] | None = None) -> None:
        """Add the parameters and outputs."""
        profiles = list(self.engine.profiles) if self.engine else []
        for param in self.parameters_for(profiles):
            self.addParameter(param)
        for out in self.outputs_for():
            self.addOutput(out)

    def parameters_for(self, profiles: list[tuple]) -> list[QgsProcessingParameterDefinition]:
        """The parameters, given the installed profiles."""
        raise NotImplementedError

    def outputs_for(self) -> list:
        """Outputs beyond the destination parameters'."""
        return []

    def processAlgorithm(
        self, parameters: dict[str, Any], context: QgsProcessingContext, feedback: QgsProcessingFeedback
    ) -> dict[str, Any]:
        """Find geosite, run :meth:`run_command` in a working folder removed afterwards; geosite's
        refusal (exit 2) is the algorithm's error, with its own message."""
        try:
            engine = find_engine(configured_command())
        except EngineNotFound as exc:
            raise QgsProcessingException(str(exc)) from exc
        feedback.pushInfo(engine.describe())
        workdir = tempfile.mkdtemp(prefix=f"geosite-{self.COMMAND}-", dir=QgsProcessingUtils.tempFolder())
        try:
            return self.run_command(engine, parameters, context, feedback, workdir)
        except Cancelled as exc:
            raise QgsProcessingException("Cancelled: geosite was stopped and wrote nothing") from exc
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def run_command(
        self,
        engine: Engine,
        parameters: dict[str, Any],
        context: QgsProcessingContext,
        feedback: QgsProcessingFeedback,
        workdir: str,
    ) -> dict[str, Any]:
        """Prepare the inputs, run the command, gather the outputs."""
        raise NotImplementedError

    def geosite(
        self,
        engine: Engine,
        args: list[str],
        feedback: QgsProcessingFeedback,
        site: PreparedSite | None = None,
        **kw: Any,
    ) -> Outcome:
        """Run ``geosite --progress-json COMMAND ARGS``; a refusal raises QgsProcessingException with
        geosite's message (the folder's layers named by the QGIS layers they came from)."""
        key = _STEPS_KEY.format(self.COMMAND)
        settings = QgsSettings()
        expected = int(settings.value(key, 0) or 0) or None
        try:
            outcome = run_geosite(
                [engine.executable, "--progress-json", self.COMMAND, *args],
                feedback,
                expected_steps=expected,
                **kw,
            )
        except GeositeError as exc:
            message = site.explain(str(exc)) if site else str(exc)
            raise QgsProcessingException(message) from exc
        if outcome.steps:
            settings.setValue(key, outcome.steps)
        return outcome


def output_folder(
    alg: QgsProcessingAlgorithm, parameters: dict[str, Any], context: QgsProcessingContext
) -> str:
    """The ``OUTPUT`` folder, an empty folder there removed (a folder picked in the dialog exists; geosite
    writes only a new folder, or replaces one it wrote with ``--overwrite``).

    Parameters
    ----------
    alg : QgsProcessingAlgorithm
        The algorithm.
    parameters : dict
        Its parameters.
    context : QgsProcessingContext
        Its context.

    Returns
    -------
    str
        The folder.
    """
    out = alg.parameterAsString(parameters, "OUTPUT", context)
    if os.path.isdir(out) and not os.listdir(out):
        os.rmdir(out)
    return out


def common_args(
    alg: QgsProcessingAlgorithm, parameters: dict[str, Any], context: QgsProcessingContext
) -> list[str]:
    """``--overwrite`` and ``--limit`` options from ``OVERWRITE`` and ``LIMITS`` where the algorithm has them.

    Parameters
    ----------
    alg : QgsProcessingAlgorithm
        The algorithm.
    parameters : dict
        Its parameters.
    context : QgsProcessingContext
        Its context.

    Returns
    -------
    list of str
        The options.
    """
    args = []
    if alg.parameterDefinition("OVERWRITE") and alg.parameterAsBoolean(parameters, "OVERWRITE", context):
        args.append("--overwrite")
    if alg.parameterDefinition("LIMITS"):
        text = alg.parameterAsString(parameters, "LIMITS", context) or ""
        for item in text.replace(",", " ").split():
            args += ["--limit", item]
    return args
