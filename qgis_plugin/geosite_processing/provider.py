"""The Processing provider "geosite": its setting (which geosite command to run) and its algorithms."""

from __future__ import annotations

from qgis.core import Qgis, QgsMessageLog, QgsProcessingProvider
from qgis.PyQt.QtGui import QIcon

from .algorithms import ALGORITHMS
from .base import ICON, configured_command
from .engine import SETTING, EngineNotFound, find_engine

_DESCRIPTION = "geosite command: its executable or its environment's folder (empty: geosite on PATH)"


def _check_setting(value: str) -> None:
    """The settings dialog's check: a command that is not geosite is refused with the reason."""
    if value:
        try:
            find_engine(value)
        except EngineNotFound as exc:
            raise ValueError(str(exc)) from exc


class GeositeProvider(QgsProcessingProvider):
    """geosite's algorithms in the Processing toolbox, run by the geosite command the setting names."""

    def __init__(self) -> None:
        super().__init__()
        self.engine = None
        self.problem = ""

    def id(self) -> str:
        """The provider's id: algorithms are ``geosite:NAME``."""
        return "geosite"

    def name(self) -> str:
        """The name in the toolbox."""
        return "geosite"

    def longName(self) -> str:
        """The name with the geosite found (its version and path), or why none was."""
        return (
            self.engine.describe() if self.engine else "geosite (not found: set its command in the options)"
        )

    def icon(self) -> QIcon:
        """geosite's icon."""
        return QIcon(ICON)

    def svgIconPath(self) -> str:
        """The icon's file."""
        return ICON

    def load(self) -> bool:
        """Add the setting (Settings > Options > Processing > Providers > geosite) and the algorithms."""
        from processing.core.ProcessingConfig import ProcessingConfig, Setting

        ProcessingConfig.settingIcons[self.name()] = self.icon()
        ProcessingConfig.addSetting(
            Setting(self.name(), SETTING, _DESCRIPTION, "", valuetype=Setting.FILE, validator=_check_setting)
        )
        ProcessingConfig.readSettings()
        self.refreshAlgorithms()
        return True

    def unload(self) -> None:
        """Remove the setting."""
        from processing.core.ProcessingConfig import ProcessingConfig

        ProcessingConfig.removeSetting(SETTING)

    def loadAlgorithms(self) -> None:
        """Find geosite (the setting may have changed), show it in the setting, add the algorithms."""
        from processing.core.ProcessingConfig import ProcessingConfig

        try:
            self.engine, self.problem = find_engine(configured_command()), ""
            found = f"found: {self.engine.describe()}"
        except EngineNotFound as exc:
            self.engine, self.problem = None, str(exc)
            found = f"not found: {exc}"
            QgsMessageLog.logMessage(self.problem, "geosite", Qgis.Warning)
        setting = ProcessingConfig.settings.get(SETTING)
        if setting is not None:
            setting.description = f"{_DESCRIPTION}; {found}"
        for cls in ALGORITHMS:
            self.addAlgorithm(cls(self.engine, self.problem))

    def versionInfo(self) -> str:
        """The geosite version found (shown in algorithm logs)."""
        return self.engine.version if self.engine else ""

    def helpId(self) -> str:
        """No online help page of QGIS's."""
        return ""
