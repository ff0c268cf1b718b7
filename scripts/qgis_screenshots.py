"""The pictures of docs/qgis.md, taken headless with QGIS (Debian's python3-qgis) and the plugin:

    QT_QPA_PLATFORM=offscreen /usr/bin/python3 scripts/qgis_screenshots.py [--geosite .venv/bin/geosite]

Runs with QGIS's own Python, never the project's: it loads the plugin from qgis_plugin/, points it at
the geosite given, loads the Lot 7 sample's layers as a user would, and writes into docs/img/:

- ``qgis_toolbox.png``: the provider in the Processing toolbox;
- ``qgis_analyze_dialog.png``: the Analyze site dialog with the sample's layers picked;
- ``qgis_analyze_result.png``: the map of derived.gpkg's layers, in their stored styles, after the run;
- ``qgis_analyze_layers.png``: the layers panel with the run's group and its legend;
- ``qgis_check_result.png``: the Check submission findings over the site.

Each picture is written as a 128-colour palette PNG (small enough to commit). Nothing is written outside
docs/img/ but QGIS's temporary outputs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOT7 = ROOT / "data" / "sample_sites" / "grantsburg_lot7"
IMG = ROOT / "docs" / "img"


class _Iface:
    """What Processing's dialogs ask of QGIS's main window, headless (qgis.utils.iface is None here)."""

    def __init__(self) -> None:
        from qgis.gui import QgsMapCanvas
        from qgis.PyQt.QtWidgets import QMainWindow

        self._window = QMainWindow()
        self._canvas = QgsMapCanvas(self._window)

    def mainWindow(self):
        return self._window

    def mapCanvas(self):
        return self._canvas

    def activeLayer(self):
        return None

    def messageBar(self):
        from qgis.gui import QgsMessageBar

        return QgsMessageBar()

    def browserModel(self):
        from qgis.gui import QgsBrowserGuiModel

        return QgsBrowserGuiModel()

    def __getattr__(self, name: str):
        """Any other of the main window's methods: nothing to do headless."""
        return lambda *args, **kw: None


def _save(image, name: str) -> Path:
    """Write ``image`` (a QImage or QPixmap) as a 128-colour palette PNG in docs/img/ (Pillow's median
    cut, no dithering: flat colours stay flat; Debian's QGIS has python3-pil)."""
    import io

    from PIL import Image
    from qgis.PyQt.QtCore import QBuffer, QIODevice
    from qgis.PyQt.QtGui import QPixmap

    if isinstance(image, QPixmap):
        image = image.toImage()
    buffer = QBuffer()
    buffer.open(QIODevice.WriteOnly)
    image.save(buffer, "PNG")
    rgb = Image.open(io.BytesIO(bytes(buffer.data()))).convert("RGB")
    small = rgb.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    path = IMG / name
    small.save(path, "PNG", optimize=True)
    print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    return path


def _lot7_layers() -> dict:
    """The sample's layers in the project, as the dialog's parameters (layer ids)."""
    import sqlite3

    from qgis.core import QgsProject, QgsRasterLayer, QgsVectorLayer

    gpkg = LOT7 / "layers.gpkg"
    params = {}
    for (name,) in sqlite3.connect(gpkg).execute("SELECT table_name FROM gpkg_contents"):
        layer = QgsVectorLayer(f"{gpkg}|layername={name}", name.replace("_", " "), "ogr")
        QgsProject.instance().addMapLayer(layer, False)
        params[name.upper()] = layer.id()
    dem = QgsRasterLayer(str(LOT7 / "dem.tif"), "Lot 7 LiDAR (US ft)")
    from qgis.core import QgsHillshadeRenderer

    dem.setRenderer(
        QgsHillshadeRenderer(dem.dataProvider(), 1, 315.0, 45.0)
    )  # degrees: light's azimuth, altitude
    dem.renderer().setOpacity(0.45)
    QgsProject.instance().addMapLayer(dem, False)
    params["DEM"] = dem.id()
    return params


def _render(layers: list, extent, name: str, size: tuple = (900, 640)) -> None:
    """Render ``layers`` (top first) over ``extent`` to docs/img/``name``."""
    from qgis.core import QgsMapRendererSequentialJob, QgsMapSettings
    from qgis.PyQt.QtCore import QSize
    from qgis.PyQt.QtGui import QColor

    settings = QgsMapSettings()
    settings.setLayers(layers)
    settings.setDestinationCrs(layers[0].crs())
    settings.setExtent(extent)
    settings.setOutputSize(QSize(*size))
    settings.setBackgroundColor(QColor("white"))
    job = QgsMapRendererSequentialJob(settings)
    job.start()
    job.waitForFinished()
    _save(job.renderedImage(), name)


def _group_layers(name_ending: str) -> list:
    from qgis.core import QgsProject

    root = QgsProject.instance().layerTreeRoot()
    (group,) = [g for g in root.children() if g.name().endswith(name_ending)]
    return [node.layer() for node in group.findLayers() if node.layer().isSpatial()]


def _dialog(params: dict) -> None:
    from processing.gui.AlgorithmDialog import AlgorithmDialog
    from qgis.core import QgsApplication

    alg = QgsApplication.processingRegistry().createAlgorithmById("geosite:analyze")
    dialog = AlgorithmDialog(alg)
    dialog.setParameters(params)
    dialog.resize(980, 760)
    dialog.show()
    QgsApplication.processEvents()
    _save(dialog.grab(), "qgis_analyze_dialog.png")
    dialog.close()


def _toolbox() -> None:
    from qgis.core import QgsApplication
    from qgis.gui import QgsProcessingToolboxProxyModel, QgsProcessingToolboxTreeView

    view = QgsProcessingToolboxTreeView(None, QgsApplication.processingRegistry())
    view.setFilters(QgsProcessingToolboxProxyModel.FilterToolbox)
    view.setFilterString("geosite")
    view.setHeaderHidden(True)
    view.expandAll()
    view.resize(420, 230)
    view.show()
    QgsApplication.processEvents()
    _save(view.grab(), "qgis_toolbox.png")


def _layers_panel() -> None:
    from qgis.core import QgsApplication, QgsLayerTreeModel, QgsProject
    from qgis.gui import QgsLayerTreeView

    model = QgsLayerTreeModel(QgsProject.instance().layerTreeRoot())
    model.setFlag(QgsLayerTreeModel.AllowNodeChangeVisibility)
    view = QgsLayerTreeView()
    view.setModel(model)
    view.expandAll()
    view.resize(360, 620)
    view.show()
    QgsApplication.processEvents()
    _save(view.grab(), "qgis_analyze_layers.png")


def main() -> int:
    """Take the pictures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--geosite", default=str(ROOT / ".venv" / "bin" / "geosite"))
    args = parser.parse_args()
    os.environ.setdefault("GDAL_PAM_ENABLED", "NO")  # no statistics written beside the sample's DEM
    from qgis.core import QgsApplication, QgsProject, QgsRectangle, QgsSettings

    app = QgsApplication([], True)
    app.initQgis()
    import qgis.utils

    qgis.utils.iface = _Iface()
    sys.path[:0] = [str(ROOT / "qgis_plugin"), "/usr/share/qgis/python/plugins"]
    from processing.core.Processing import Processing

    Processing.initialize()
    QgsSettings().setValue("Processing/Configuration/GEOSITE_EXECUTABLE", args.geosite)
    import geosite_processing

    plugin = geosite_processing.classFactory(None)
    plugin.initProcessing()
    IMG.mkdir(parents=True, exist_ok=True)
    import processing

    params = _lot7_layers()
    _toolbox()
    out = Path(tempfile.mkdtemp(prefix="geosite-screens-"))
    _dialog({**params, "SITE_TOML": str(LOT7 / "site.toml"), "NO_MAPS": True, "OUTPUT": str(out / "analyze")})
    processing.runAndLoadResults(
        "geosite:analyze",
        {**params, "SITE_TOML": str(LOT7 / "site.toml"), "NO_MAPS": True, "OUTPUT": str(out / "analyze"),
         "FINDINGS": "TEMPORARY_OUTPUT"},
    )  # fmt: skip
    layers = _group_layers("geosite analyze")
    site = next(layer for layer in layers if layer.name() == "site_boundary").extent()
    extent = QgsRectangle(site)
    extent.grow(120.0)  # feet around the parcel (EPSG:7593, US survey feet)
    relief = QgsProject.instance().mapLayer(params["DEM"])
    _render([*layers, relief], extent, "qgis_analyze_result.png")
    _layers_panel()
    processing.runAndLoadResults(
        "geosite:check", {"SITE_FOLDER": str(LOT7), "RECEIVED": "2027-03-01", "OUTPUT": str(out / "check")}
    )
    _render([*_group_layers("geosite check (fail)"), relief], extent, "qgis_check_result.png")
    plugin.unload()
    QgsProject.instance().clear()
    os._exit(0)  # QGIS's own exit can crash on a headless teardown; the pictures are written


if __name__ == "__main__":
    main()
