"""The plugin: registers the geosite Processing provider (in QGIS, and in qgis_process, which calls
``initProcessing`` of a plugin whose metadata says ``hasProcessingProvider=yes``)."""

from __future__ import annotations

from qgis.core import QgsApplication

from .provider import GeositeProvider


class GeositePlugin:
    """The plugin object QGIS keeps while it is loaded."""

    def __init__(self, iface: object = None) -> None:
        self.iface = iface
        self.provider = None

    def initProcessing(self) -> None:
        """Register the provider (once)."""
        if self.provider is None:
            self.provider = GeositeProvider()
            QgsApplication.processingRegistry().addProvider(self.provider)

    def initGui(self) -> None:
        """In QGIS's window: the provider is all there is."""
        self.initProcessing()

    def unload(self) -> None:
        """Remove the provider."""
        if self.provider is not None:
            QgsApplication.processingRegistry().removeProvider(self.provider)
            self.provider = None
