"""Open every layer of a GeoPackage in QGIS, as a consultant's QGIS would, and report what it found.

Run with the Python QGIS ships with (Debian: ``apt-get install python3-qgis``), headless::

    QT_QPA_PLATFORM=offscreen python3 scripts/qgis_open_gpkg.py OUT/plan/layers.gpkg

It prints one JSON object: the messages QGIS logged while opening (``warnings``: a GeoPackage version it
"may only partially support" is one), and for each layer whether it is valid, its geometry type, its
feature count, the renderer its default style (``layer_styles``) gave it, that renderer's legend labels,
the colours of its symbols, and the features no rule of it draws (``hidden``: a feature QGIS would not show).
"""

from __future__ import annotations

import json
import sys


def _layers(path: str) -> list[str]:
    from osgeo import ogr

    ds = ogr.Open(path)
    return [ds.GetLayer(i).GetName() for i in range(ds.GetLayerCount())]


def _hidden(layer) -> int:
    """How many features of the QgsVectorLayer ``layer`` no rule of its renderer draws."""
    from qgis.core import QgsExpressionContext, QgsExpressionContextUtils, QgsRenderContext

    renderer = layer.renderer()
    ctx = QgsRenderContext()
    ectx = QgsExpressionContext(QgsExpressionContextUtils.globalProjectLayerScopes(layer))
    ctx.setExpressionContext(ectx)
    renderer.startRender(ctx, layer.fields())
    hidden = 0
    for feature in layer.getFeatures():
        ctx.expressionContext().setFeature(feature)
        if not renderer.willRenderFeature(feature, ctx):
            hidden += 1
    renderer.stopRender(ctx)
    return hidden


def main(path: str) -> dict:
    """What QGIS makes of each layer of the GeoPackage ``path`` (see the module notes)."""
    from qgis.core import QgsApplication, QgsVectorLayer, QgsWkbTypes

    QgsApplication.setPrefixPath("/usr", True)
    app = QgsApplication([], False)
    app.initQgis()
    warnings: list[str] = []
    log = QgsApplication.messageLog()
    log.messageReceived.connect(lambda msg, tag, level: warnings.append(f"{tag}: {msg}"))
    out: dict = {"warnings": warnings, "layers": {}}
    for name in _layers(path):
        if name == "layer_styles":
            continue
        options = QgsVectorLayer.LayerOptions(True, False)  # loadDefaultStyle: the layer_styles row
        layer = QgsVectorLayer(f"{path}|layername={name}", name, "ogr", options)
        info: dict = {"valid": layer.isValid()}
        if layer.isValid():
            renderer = layer.renderer()
            info.update(
                geometry=QgsWkbTypes.displayString(layer.wkbType()),
                features=layer.featureCount(),
                renderer=renderer.type() if renderer else None,
                legend=[item.label() for item in renderer.legendSymbolItems()] if renderer else [],
                colours=[i.symbol().color().name() for i in renderer.legendSymbolItems() if i.symbol()]
                if renderer
                else [],
                hidden=_hidden(layer) if renderer else None,
                fields={f.name(): f.typeName() for f in layer.fields()},
            )
        out["layers"][name] = info
    return out


if __name__ == "__main__":
    import os

    print(json.dumps(main(sys.argv[1])), flush=True)
    os._exit(0)  # QGIS 3.22's Python bindings crash on the way out (exitQgis, interpreter teardown)
