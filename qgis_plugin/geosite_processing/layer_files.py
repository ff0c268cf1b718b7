"""Writing QGIS layers and rasters to the files of a site folder (docs/site_folder.md), with QGIS's own
GDAL: one GeoPackage holding each layer under geosite's name, and the DEM as a GeoTIFF.

Nothing is checked here that geosite checks (CRS, units, geometry types, dates): the layers are written
as they are, in their own CRS, fields and types (a QGIS date field is a GeoPackage DATE, which geosite
reads as a date), and geosite refuses what is wrong, naming the layer.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

from qgis.core import (
    QgsFeature,
    QgsFeatureRequest,
    QgsField,
    QgsFields,
    QgsProcessingContext,
    QgsProcessingException,
    QgsProcessingFeatureSource,
    QgsProcessingFeedback,
    QgsRasterBlockFeedback,
    QgsRasterFileWriter,
    QgsRasterLayer,
    QgsRasterPipe,
    QgsVectorFileWriter,
    QgsWkbTypes,
)

#: Raster files geosite reads as they are (its GeoTIFF driver); anything else is written as a GeoTIFF.
GEOTIFF_SUFFIXES = (".tif", ".tiff")


@dataclass(frozen=True)
class WrittenLayer:
    """One layer written: geosite's name for it, the QGIS layer it came from, its feature count."""

    name: str
    source_name: str
    features: int


def _fields(source_fields: QgsFields, renames: dict[str, str]) -> tuple:
    """The fields written and, for each, its index in the source: the source's fields with ``renames``
    applied (a field renamed onto a name the layer already has replaces that field), less any ``fid``
    (the GeoPackage's own key).
    """
    targets = {new.lower() for old, new in renames.items() if old != new}
    out, keep = QgsFields(), []
    for i in range(source_fields.count()):
        field = QgsField(source_fields.at(i))
        name = field.name()
        new = renames.get(name, name)
        if name.lower() == "fid" or (new == name and name.lower() in targets):
            continue
        field.setName(new)
        out.append(field)
        keep.append(i)
    return out, keep


def write_layer(
    gpkg: str,
    name: str,
    source: QgsProcessingFeatureSource,
    *,
    renames: dict[str, str],
    first: bool,
    context: QgsProcessingContext,
    feedback: QgsProcessingFeedback,
) -> WrittenLayer:
    """Write ``source`` (its selected features when the dialog says so) as layer ``name`` of ``gpkg``.

    Parameters
    ----------
    gpkg : str
        The GeoPackage, created (or replaced) by the first layer written.
    name : str
        geosite's name for the layer (``disturbance``).
    source : QgsProcessingFeatureSource
        The layer as the dialog gives it.
    renames : dict
        Source field -> geosite's attribute (``{"Phase_Name": "phase"}``).
    first : bool
        Whether this is the first layer of the file (the file is created).
    context, feedback
        The algorithm's.

    Returns
    -------
    WrittenLayer
        What was written.
    """
    fields, keep = _fields(source.fields(), renames)
    features = list(source.getFeatures(QgsFeatureRequest()))
    options = QgsVectorFileWriter.SaveVectorOptions()
    options.driverName = "GPKG"
    options.layerName = name
    options.fileEncoding = "UTF-8"
    options.actionOnExistingFile = (
        QgsVectorFileWriter.CreateOrOverwriteFile if first else QgsVectorFileWriter.CreateOrOverwriteLayer
    )
    writer = QgsVectorFileWriter.create(
        gpkg, fields, geometry_type(source, features), source.sourceCrs(), context.transformContext(), options
    )
    if writer.hasError() != QgsVectorFileWriter.NoError:
        raise QgsProcessingException(f"{name}: cannot write {gpkg}: {writer.errorMessage()}")
    count = 0
    for feature in features:
        if feedback.isCanceled():
            break
        out = QgsFeature(fields)
        out.setGeometry(feature.geometry())
        attributes = feature.attributes()
        out.setAttributes([attributes[i] for i in keep])
        if not writer.addFeature(out):
            raise QgsProcessingException(f"{name}: cannot write a feature to {gpkg}: {writer.errorMessage()}")
        count += 1
    del writer  # closes the layer
    return WrittenLayer(name=name, source_name=source.sourceName() or name, features=count)


def geometry_type(source: QgsProcessingFeatureSource, features: list) -> int:
    """The GeoPackage geometry type for ``features``: the layer's own, or GEOMETRY (any) where its
    features are of more than that type (a mixed layer, e.g. submitted controls with lines and polygons,
    which QGIS shows as one of its types).

    Parameters
    ----------
    source : QgsProcessingFeatureSource
        The layer.
    features : list of QgsFeature
        Its features, as written.

    Returns
    -------
    int
        A QgsWkbTypes.Type.
    """
    declared = source.wkbType()
    kinds = {f.geometry().wkbType() for f in features if f.hasGeometry()}
    if kinds - {declared}:
        multi = {QgsWkbTypes.multiType(k) for k in kinds}
        return (
            multi.pop()
            if len(multi) == 1 and QgsWkbTypes.multiType(declared) in multi
            else QgsWkbTypes.Unknown
        )
    return declared


def raster_file(
    layer: QgsRasterLayer,
    target: str,
    *,
    copy: bool,
    context: QgsProcessingContext,
    feedback: QgsProcessingFeedback,
) -> str:
    """A GeoTIFF file of ``layer`` for geosite: its own file where it is one (copied to ``target`` when
    ``copy``), else written to ``target`` from QGIS's raster pipe (a VRT, an ASCII grid, a WCS, a
    GeoPackage raster...).

    Parameters
    ----------
    layer : QgsRasterLayer
        The DEM (or proposed grade) picked in the dialog.
    target : str
        The GeoTIFF to write when the layer is not one file (or must be copied).
    copy : bool
        Whether the file must be in the folder (a submission), not only readable where it is.
    context, feedback
        The algorithm's.

    Returns
    -------
    str
        The path of the GeoTIFF geosite reads.
    """
    source = _file_of(layer)
    if source is not None and source.lower().endswith(GEOTIFF_SUFFIXES):
        if not copy:
            return source
        shutil.copyfile(source, target)
        return target
    provider = layer.dataProvider()
    pipe = QgsRasterPipe()
    if not pipe.set(provider.clone()):
        raise QgsProcessingException(f"{layer.name()}: the raster cannot be read to write {target}")
    writer = QgsRasterFileWriter(target)
    writer.setOutputFormat("GTiff")
    writer.setCreateOptions(["COMPRESS=DEFLATE", "TILED=YES", "BIGTIFF=IF_SAFER"])
    error = writer.writeRaster(
        pipe,
        provider.xSize(),
        provider.ySize(),
        provider.extent(),
        provider.crs(),
        context.transformContext(),
        QgsRasterBlockFeedback(),  # the writer's own kind; Cancel is looked at before geosite runs
    )
    if error != QgsRasterFileWriter.NoError:
        raise QgsProcessingException(f"{layer.name()}: writing {target} failed (QgsRasterFileWriter {error})")
    return target


def _file_of(layer: QgsRasterLayer) -> str | None:
    """The file a GDAL raster layer reads, when it is one plain file (no subdataset or options)."""
    if layer.providerType() != "gdal":
        return None
    path = layer.source()
    return path if os.path.isfile(path) else None
