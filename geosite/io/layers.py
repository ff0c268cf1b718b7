"""The layers a site folder may hold, each with the geometry types it may carry, whether a site must have
it and what it is (docs/site_folder.md): the one table the readers (:mod:`geosite.io.vector`), the site
model and the profile schema all read. No GIS import here, so the profile schema can read it cheaply.
"""

from __future__ import annotations

from dataclasses import dataclass

POLYGON = ("Polygon", "MultiPolygon")
LINE = ("LineString", "MultiLineString")
POINT = ("Point", "MultiPoint")
ANY = POLYGON + LINE + POINT


@dataclass(frozen=True)
class LayerSpec:
    """A geosite layer: its name, the geometry types it may hold, whether a site must have it, and what
    it is.
    """

    name: str
    geometry: tuple[str, ...]
    required: bool = False
    description: str = ""


LAYERS: dict[str, LayerSpec] = {
    s.name: s
    for s in [
        LayerSpec(
            "site_boundary", POLYGON, True, "the site: the land in the permit application's legal description"
        ),
        LayerSpec("disturbance", POLYGON, False, "land disturbing activity, with phase and start/end dates"),
        LayerSpec("stockpiles", POLYGON, False, "soil or dirt stockpiles, with planned days in place"),
        LayerSpec("roads", LINE + POLYGON, False, "roads, streets and highways, with status"),
        LayerSpec("streams", LINE + POLYGON, False, "streams and rivers"),
        LayerSpec("lakes", POLYGON, False, "lakes and ponds"),
        LayerSpec("wetlands", POLYGON, False, "wetlands"),
        LayerSpec("channels", LINE + POLYGON, False, "drainage channels and ditches"),
        LayerSpec("storm_inlets", POINT + POLYGON, False, "storm drain inlets"),
        LayerSpec("utilities", LINE, False, "underground pipes and facilities, with status"),
        LayerSpec("structures", POLYGON, False, "buildings and other structures"),
        LayerSpec("floodplain", POLYGON, False, "100-year floodplain, fringe and floodway"),
        LayerSpec("soils", POLYGON, False, "soil map units"),
        LayerSpec("vegetation", POLYGON, False, "vegetative cover"),
        LayerSpec("access_drives", LINE + POLYGON, False, "access drives where the site meets roads"),
        LayerSpec("bmps", ANY, False, "submitted best management practices, with type"),
        LayerSpec("contours", LINE, False, "submitted contours, with elevation"),
    ]
}
