"""Runs the plugin's algorithms in a headless QGIS and reports what a user would see, as JSON.

    QT_QPA_PLATFORM=offscreen /usr/bin/python3 qgis_plugin/tests/harness.py SPEC.json RESULT.json

Run by tests/test_qgis_plugin.py with Debian's QGIS (``/usr/bin/python3`` has ``qgis.core``), never
with the project's Python. SPEC names the geosite command (the provider's setting) and the scenarios:
an algorithm, its parameters (layers given as QGIS layers loaded into the project, like a user's), and
optionally a step at which the user presses Cancel. For each, RESULT holds the algorithm's results or
its error as the dialog shows it, the log, the progress reported, and the layer-tree groups the run
added, with each layer's validity, feature count and symbology (renderer and each symbol's first symbol
layer's class and colour), which the tests hold against the styles stored in the GeoPackages.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from qgis.core import (
    QgsApplication,
    QgsFeature,
    QgsField,
    QgsFields,
    QgsProcessingException,
    QgsProcessingFeedback,
    QgsProject,
    QgsRasterLayer,
    QgsRenderContext,
    QgsVectorLayer,
    QgsWkbTypes,
)
from qgis.PyQt.QtCore import QDate, QVariant


class Watch(QgsProcessingFeedback):
    """A feedback recording what the dialog would show; presses Cancel at a given stage."""

    def __init__(self, cancel_at_step: int | None = None) -> None:
        super().__init__()
        self.cancel_at_step = cancel_at_step
        self.log: list[str] = []
        self.errors: list[str] = []
        self.warnings: list[str] = []
        self.texts: list[str] = []
        self.progress: list[float] = []
        self.progressChanged.connect(self.progress.append)

    def setProgressText(self, text: str) -> None:
        self.texts.append(text)
        stages = [t for t in self.texts if t.startswith("geosite: ")]
        if self.cancel_at_step is not None and len(stages) >= self.cancel_at_step:
            self.cancel()
        super().setProgressText(text)

    def pushInfo(self, text: str) -> None:
        self.log.append(text)

    def pushConsoleInfo(self, text: str) -> None:
        self.log.append(text)

    def pushCommandInfo(self, text: str) -> None:
        self.log.append(text)

    def pushWarning(self, text: str) -> None:
        self.warnings.append(text)

    def reportError(self, text: str, fatalError: bool = False) -> None:
        self.errors.append(text)


def dated_copy(layer: QgsVectorLayer, renames: dict[str, str], dates: list[str]) -> QgsVectorLayer:
    """``layer`` as a memory layer whose fields ``renames`` are renamed and ``dates`` (new names) typed
    QDate: a user's own layer with its own field names and real date fields."""
    fields = QgsFields()
    for f in layer.fields():
        name = renames.get(f.name(), f.name())
        kind = QVariant.Date if name in dates else f.type()
        fields.append(QgsField(name, kind))
    uri = f"{QgsWkbTypes.displayString(layer.wkbType())}?crs={layer.crs().authid()}"
    memory = QgsVectorLayer(uri, f"{layer.name()} (dated)", "memory")
    memory.dataProvider().addAttributes(fields.toList())
    memory.updateFields()
    rows = []
    for feat in layer.getFeatures():
        out = QgsFeature(memory.fields())
        out.setGeometry(feat.geometry())
        values = []
        for f, v in zip(layer.fields(), feat.attributes()):
            name = renames.get(f.name(), f.name())
            values.append(QDate.fromString(str(v), "yyyy-MM-dd") if name in dates and v else v)
        out.setAttributes(values)
        rows.append(out)
    memory.dataProvider().addFeatures(rows)
    return memory


def layer_of(spec: dict[str, Any]) -> Any:
    """A project layer from its spec: ``{"uri", "name", "kind": vector|raster, "dated": {...}}``."""
    if spec.get("kind") == "raster":
        layer = QgsRasterLayer(spec["uri"], spec["name"])
    else:
        layer = QgsVectorLayer(spec["uri"], spec["name"], "ogr")
        if spec.get("dated"):
            layer = dated_copy(layer, spec["dated"]["renames"], spec["dated"]["dates"])
    assert layer.isValid(), spec
    QgsProject.instance().addMapLayer(layer)
    return layer.id()


def symbology(layer: QgsVectorLayer) -> dict[str, Any]:
    """The layer's renderer and each symbol's first symbol layer: class and colour (r,g,b,a)."""
    renderer = layer.renderer()
    if renderer is None or layer.geometryType() == QgsWkbTypes.NullGeometry:
        return {"renderer": None, "symbols": []}
    symbols = []
    for symbol in renderer.symbols(QgsRenderContext()):
        first = symbol.symbolLayer(0)
        props = first.properties()
        colour = props.get("line_color") if first.layerType() == "SimpleLine" else props.get("color")
        symbols.append([first.layerType(), colour])
    return {"renderer": renderer.type(), "symbols": symbols, "labels": layer.labelsEnabled()}


def snapshot(seen: set) -> dict[str, Any]:
    """The groups added since ``seen``: each layer's name, source, validity, count and symbology."""
    groups = {}
    for node in QgsProject.instance().layerTreeRoot().children():
        if not hasattr(node, "findLayers") or node.name() in seen:
            continue
        seen.add(node.name())
        layers = []
        for tree_layer in node.findLayers():
            layer = tree_layer.layer()
            entry = {
                "name": layer.name(),
                "source": layer.source(),
                "valid": layer.isValid(),
                "features": layer.featureCount() if isinstance(layer, QgsVectorLayer) else None,
            }
            if isinstance(layer, QgsVectorLayer):
                entry.update(symbology(layer))
            layers.append(entry)
        groups[node.name()] = layers
    return groups


def run_scenario(scenario: dict[str, Any], seen: set) -> dict[str, Any]:
    """Run one algorithm as the dialog does (results loaded into the project), recording everything."""
    import processing

    params = dict(scenario["params"])
    for name, spec in scenario.get("layers", {}).items():
        params[name] = layer_of(spec)
    feedback = Watch(scenario.get("cancel_at_step"))
    out: dict[str, Any] = {"results": None, "error": None}
    t0 = time.monotonic()
    try:
        out["results"] = processing.runAndLoadResults(scenario["alg"], params, feedback=feedback)
    except QgsProcessingException as exc:
        out["error"] = str(exc)
    out["elapsed_s"] = time.monotonic() - t0
    out.update(
        errors=feedback.errors,
        warnings=feedback.warnings,
        log=feedback.log,
        texts=feedback.texts,
        progress=feedback.progress,
        groups=snapshot(seen),
    )
    return out


def provider_info(provider: Any) -> dict[str, Any]:
    """What the toolbox and the settings show of the provider."""
    from processing.core.ProcessingConfig import ProcessingConfig

    analyze = provider.algorithm("analyze")
    setting = ProcessingConfig.settings["GEOSITE_EXECUTABLE"]
    try:
        setting.validator(sys.executable)  # a Python, not geosite: the options dialog refuses it
        refused = None
    except ValueError as exc:
        refused = str(exc)
    return {
        "refused": refused,
        "algorithms": sorted(a.id() for a in provider.algorithms()),
        "display": {a.id(): a.displayName() for a in provider.algorithms()},
        "long_name": provider.longName(),
        "setting": ProcessingConfig.settings["GEOSITE_EXECUTABLE"].description,
        "jurisdictions": analyze.parameterDefinition("JURISDICTION").options(),
        "help": analyze.shortHelpString(),
        "parameters": {a.id(): [p.name() for p in a.parameterDefinitions()] for a in provider.algorithms()},
    }


def main(spec_path: str, result_path: str) -> None:
    """Start QGIS and Processing, load the plugin with the spec's geosite, run the scenarios."""
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    app = QgsApplication([], False)
    app.initQgis()
    sys.path[:0] = [spec["plugin_dir"], "/usr/share/qgis/python/plugins"]
    from processing.core.Processing import Processing
    from processing.core.ProcessingConfig import ProcessingConfig

    Processing.initialize()
    from qgis.core import QgsSettings

    QgsSettings().setValue("Processing/Configuration/GEOSITE_EXECUTABLE", spec["geosite"])
    import geosite_processing

    plugin = geosite_processing.classFactory(None)
    plugin.initProcessing()
    provider = plugin.provider
    result: dict[str, Any] = {"provider": provider_info(provider), "scenarios": {}}
    assert ProcessingConfig.getSetting("GEOSITE_EXECUTABLE") == spec["geosite"]
    seen: set = set()
    for scenario in spec["scenarios"]:
        result["scenarios"][scenario["id"]] = run_scenario(scenario, seen)
    with open(result_path, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1, default=str)
    plugin.unload()
    os._exit(0)  # QGIS's exit can crash on a headless teardown; the results are written


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
