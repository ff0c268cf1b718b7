"""geosite's outputs brought into the QGIS project: the layers of ``derived.gpkg`` and ``findings.gpkg``
with the styles geosite stored in them (their ``layer_styles`` table: the sheets' colours, dashes,
markers and labels), in one group per run, points above lines above polygons as on the sheets; and
the findings and calendar as tables.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from qgis.core import (
    QgsFeature,
    QgsFeatureSink,
    QgsField,
    QgsFields,
    QgsLayerTreeGroup,
    QgsMapLayer,
    QgsProcessingContext,
    QgsProcessingFeedback,
    QgsProcessingLayerPostProcessorInterface,
    QgsProject,
    QgsVectorLayer,
)
from qgis.PyQt.QtCore import QDate, QVariant

#: Draw order within a group, top first, by the GeoPackage's declared geometry type.
_RANK = {"POINT": 0, "MULTIPOINT": 0, "LINESTRING": 1, "MULTILINESTRING": 1, "POLYGON": 2, "MULTIPOLYGON": 2}
_RANK_KEY = "geosite/rank"

#: Post-processors alive until QGIS has called them (QGIS holds only a pointer to each).
_KEEP: list[Any] = []


def gpkg_layers(path: str) -> list[dict[str, Any]]:
    """The tables of a GeoPackage, in its order: name, declared geometry type (None for a table),
    feature count; read with SQLite, not GDAL, so listing costs nothing.

    Parameters
    ----------
    path : str
        A GeoPackage geosite wrote.

    Returns
    -------
    list of dict
        ``{"name", "geometry", "features"}`` for each table but ``layer_styles``.
    """
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        geometry = dict(db.execute("SELECT table_name, geometry_type_name FROM gpkg_geometry_columns"))
        names = [
            r[0]
            for r in db.execute("SELECT table_name FROM gpkg_contents ORDER BY rowid")
            if r[0] != "layer_styles"
        ]
        return [
            {
                "name": n,
                "geometry": geometry.get(n),
                "features": db.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0],
            }
            for n in names
        ]


class RunGroup:
    """The layer-tree group of one run, made when its first layer arrives (a new group per run: two
    runs on one site are two groups)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.node: QgsLayerTreeGroup | None = None

    def group(self, project: QgsProject) -> QgsLayerTreeGroup:
        """The group in ``project``, inserted at the top of its layer tree the first time."""
        if self.node is None:
            self.node = project.layerTreeRoot().insertGroup(0, self.name)
        return self.node


class Placed(QgsProcessingLayerPostProcessorInterface):
    """Applies a layer's stored style and moves it into its run's group at its rank."""

    def __init__(self, run: RunGroup, rank: int, styled: bool) -> None:
        super().__init__()
        self.run = run
        self.rank = rank
        self.styled = styled

    def postProcessLayer(
        self, layer: QgsMapLayer, context: QgsProcessingContext, feedback: QgsProcessingFeedback
    ) -> None:
        """Style ``layer`` from its GeoPackage and place it (QGIS calls this once it is in the project)."""
        if self.styled and isinstance(layer, QgsVectorLayer):
            message, ok = layer.loadDefaultStyle()
            if not ok:
                feedback.pushWarning(f"{layer.name()}: its stored style was not applied ({message})")
        project = context.project() or QgsProject.instance()
        root = project.layerTreeRoot()
        node = root.findLayer(layer.id())
        if node is None:
            return
        group = self.run.group(project)
        position = sum(
            1 for child in group.children() if int(child.customProperty(_RANK_KEY, 0) or 0) <= self.rank
        )
        clone = node.clone()
        clone.setCustomProperty(_RANK_KEY, self.rank)
        group.insertChildNode(position, clone)
        node.parent().removeChildNode(node)


def _post(run: RunGroup, rank: int, styled: bool) -> Placed:
    post = Placed(run, rank, styled)
    _KEEP.append(post)
    return post


def load_gpkg(
    context: QgsProcessingContext,
    path: str,
    run: RunGroup,
    *,
    prefix: str = "",
    skip: Iterable[str] = (),
) -> list[str]:
    """Load ``path``'s non-empty layers into the project when the algorithm completes.

    Parameters
    ----------
    context : QgsProcessingContext
        The algorithm's (its layers to load on completion).
    path : str
        A GeoPackage geosite wrote.
    run : RunGroup
        The run's group.
    prefix : str
        Put before each layer's name.
    skip : iterable of str
        Tables not to load.

    Returns
    -------
    list of str
        The layers that will be loaded; the empty ones are left out.
    """
    loaded = []
    skipped = set(skip)
    for order, table in enumerate(gpkg_layers(path)):
        if table["features"] == 0 or table["name"] in skipped:
            continue
        rank = _RANK.get(str(table["geometry"]).upper(), 3) * 1000 + order
        uri = f"{path}|layername={table['name']}"
        details = QgsProcessingContext.LayerDetails(
            prefix + table["name"], context.project() or QgsProject.instance(), table["name"]
        )
        details.forceName = True
        details.setPostProcessor(_post(run, rank, styled=True))
        context.addLayerToLoadOnCompletion(uri, details)
        loaded.append(table["name"])
    return loaded


def place_output(context: QgsProcessingContext, dest_id: str, run: RunGroup, rank: int) -> None:
    """Put an algorithm's own output layer (a findings table) into the run's group.

    Parameters
    ----------
    context : QgsProcessingContext
        The algorithm's.
    dest_id : str
        The layer id ``parameterAsSink`` returned.
    run : RunGroup
        The run's group.
    rank : int
        Its place in the group (tables after layers: 3000 and up).
    """
    if context.willLoadLayerOnCompletion(dest_id):
        context.layerToLoadOnCompletionDetails(dest_id).setPostProcessor(_post(run, rank, styled=False))


FINDING_FIELDS = ("status", "citation", "section", "rule", "message", "requirement", "settle", "source")
CALENDAR_FIELDS = ("date", "weekday", "what", "kind", "rule", "citation", "note")


def findings_fields() -> QgsFields:
    """The findings table's fields (text)."""
    fields = QgsFields()
    for name in FINDING_FIELDS:
        fields.append(QgsField(name, QVariant.String))
    return fields


def write_findings(sink: QgsFeatureSink, findings: Iterable[dict[str, Any]]) -> int:
    """Write report.json's findings to ``sink``, one row each; returns the rows written.

    Parameters
    ----------
    sink : QgsFeatureSink
        A table sink with :func:`findings_fields`.
    findings : iterable of dict
        report.json ``findings``.

    Returns
    -------
    int
        Rows written.
    """
    fields = findings_fields()
    n = 0
    for f in findings:
        row = QgsFeature(fields)
        row.setAttributes([_text(f.get(k)) for k in FINDING_FIELDS])
        sink.addFeature(row, QgsFeatureSink.FastInsert)
        n += 1
    return n


def calendar_fields() -> QgsFields:
    """The calendar table's fields: a date, then text."""
    fields = QgsFields()
    fields.append(QgsField("date", QVariant.Date))
    for name in CALENDAR_FIELDS[1:]:
        fields.append(QgsField(name, QVariant.String))
    return fields


def calendar_rows(schedule: dict[str, Any]) -> list[list[Any]]:
    """``geosite schedule --format json``'s deadlines and inspections as rows of :func:`calendar_fields`,
    in date order.

    Parameters
    ----------
    schedule : dict
        The schedule JSON.

    Returns
    -------
    list of list
        One row per deadline or inspection.
    """
    rows = []
    for d in schedule.get("deadlines", []):
        rows.append(
            [
                d.get("date"),
                d.get("weekday"),
                d.get("what"),
                d.get("kind"),
                d.get("rule"),
                d.get("citation"),
                d.get("note"),
            ]
        )
    for i in schedule.get("inspections", []):
        reasons = "; ".join(i.get("reasons", []))
        rows.append(
            [
                i.get("date"),
                i.get("weekday"),
                f"Inspection: {reasons}",
                "inspection",
                "",
                i.get("citation"),
                "",
            ]
        )
    rows.sort(key=lambda r: r[0] or "")
    for r in rows:
        r[0] = QDate.fromString(r[0], "yyyy-MM-dd") if r[0] else QDate()
        r[1:] = [_text(v) for v in r[1:]]
    return rows


def _text(v: Any) -> str:
    if v is None:
        return ""
    return v if isinstance(v, str) else json.dumps(v)
