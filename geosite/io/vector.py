"""Reading the site's vector layers (GeoPackage, shapefile, GeoJSON, DXF, FlatGeobuf, KML, GML, OGR VRT)
through pyogrio, and the table of layers geosite knows with the geometry each must have. Every file is
checked first (its format by content, its side files, its size; geosite.io.untrusted, geosite.io.limits)
and read with GDAL offline.
"""

from __future__ import annotations

from pathlib import Path

import geopandas as gpd
import pyogrio
from pyogrio.errors import DataLayerError, DataSourceError

from geosite.errors import MissingInputError, UnreadableInputError, UnsafeInputError
from geosite.io.layers import ANY, LAYERS, LINE, POINT, POLYGON, LayerSpec  # noqa: F401 - re-exported
from geosite.io.limits import Limits
from geosite.io.untrusted import offline, policy_active, vector_format


def _checked(path: Path, root: Path | None, limits: Limits) -> str:
    """A vector file geosite may open: present, of an accepted format (side files too), not too big.
    Returns the driver its content names.
    """
    if not path.exists() and not path.is_symlink():
        raise MissingInputError(f"{path}: file not found")
    driver = vector_format(path, "vector file", root)
    limits.check_file_size(f"vector file {path}", path.stat().st_size, "max_vector_file_bytes")
    return driver


def _same_driver(path: Path, layer: str | None, driver: str, root: Path | None) -> None:
    """Under a submission policy (the sandboxed check): the driver GDAL opens ``path`` with must be the
    one its content names (and was inspected for); else UnsafeInputError.
    """
    if root is None or not policy_active():
        return
    with offline():
        opened = pyogrio.read_info(path, layer=layer).get("driver")
    if opened != driver:
        raise UnsafeInputError(
            f"{path}: its content reads as {driver} but GDAL opens it as {opened}; refused"
        )


def list_layers(path: Path, root: Path | None = None, limits: Limits | None = None) -> list[str]:
    """Layer names in a vector file; a missing or unreadable file is an error naming it."""
    _checked(path, root, limits or Limits())
    try:
        with offline():
            return [str(row[0]) for row in pyogrio.list_layers(path)]
    except (DataSourceError, DataLayerError, OSError) as exc:
        raise UnreadableInputError(f"{path}: cannot be read as a vector file ({_short(exc)})") from exc


def read_layer(
    path: Path,
    layer: str | None = None,
    cad_layer: str | None = None,
    *,
    root: Path | None = None,
    limits: Limits | None = None,
) -> gpd.GeoDataFrame:
    """Read one layer. For DXF, ``cad_layer`` keeps only the entities on that CAD layer. With ``root``,
    an OGR VRT's sources must lie inside it; ``limits`` bounds the file size and each feature's vertices.
    """
    import shapely

    limits = limits or Limits()
    driver = _checked(path, root, limits)
    where = f"{path}" + (f", layer {layer!r}" if layer else "")
    try:
        _same_driver(path, layer, driver, root)
        with offline():
            gdf = gpd.read_file(path, layer=layer, engine="pyogrio")
    except (DataSourceError, DataLayerError, OSError, ValueError) as exc:
        raise UnreadableInputError(f"{where}: cannot be read ({_short(exc)})") from exc
    _refuse_lists(gdf, where)
    if len(gdf) and gdf.geometry is not None:
        limits.check_vertices(
            where, shapely.get_num_coordinates(gdf.geometry.values), list(range(1, len(gdf) + 1))
        )
    if cad_layer is not None:
        if "Layer" not in gdf.columns:
            raise UnreadableInputError(f"{path}: no CAD 'Layer' field to select {cad_layer!r} from")
        gdf = gdf[gdf["Layer"] == cad_layer].reset_index(drop=True)
    return gdf


def _refuse_lists(gdf: gpd.GeoDataFrame, where: str) -> None:
    """An attribute holding lists or objects (a GeoJSON array, a GDAL list field) is an
    :class:`~geosite.errors.UnreadableInputError` naming the column and the features: geosite reads one
    value per attribute.
    """
    geom = gdf.geometry.name if isinstance(gdf, gpd.GeoDataFrame) and "geometry" in gdf else None
    for col in gdf.columns:
        if col == geom or gdf[col].dtype != object:
            continue
        bad = [
            i + 1
            for i, v in enumerate(gdf[col])
            if isinstance(v, list | tuple | dict | set) or hasattr(v, "shape")
        ]
        if bad:
            raise UnreadableInputError(
                f"{where}: column {col!r} holds lists, not single values (features "
                f"{', '.join(map(str, bad[:10]))}{' ...' if len(bad) > 10 else ''}); "
                "give one value per attribute"
            )


def _short(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
