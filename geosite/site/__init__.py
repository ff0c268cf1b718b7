"""The site: what the applicant's folder says, validated and in one projected CRS, and the numbers its
vector layers give before any DEM is read.

- :mod:`~geosite.site.model`: :class:`Site`, :class:`Project`, :class:`Contact`;
- :mod:`~geosite.site.loading`: :func:`load_site` (a site folder) and :func:`site_from_frames`
  (GeoDataFrames, for notebooks), validated at once: the site CRS, each layer's CRS, geometry and
  dates, every problem reported together;
- :mod:`~geosite.site.measurements`: :class:`SiteMeasurements`, the record every stage adds to, and
  :func:`measure_site` (site and disturbed area, the largest area at one time, pipe, roads) and
  :func:`phase_areas` -> :class:`PhaseAreas` (each phase's area and dates).
"""

from geosite.site.loading import load_site, read_layers, read_site_toml, site_from_frames
from geosite.site.measurements import Phase, PhaseAreas, SiteMeasurements, measure_site, phase_areas
from geosite.site.model import PLAT_VALUES, Contact, Project, Site

__all__ = [
    "PLAT_VALUES",
    "Contact",
    "Phase",
    "PhaseAreas",
    "Project",
    "Site",
    "SiteMeasurements",
    "load_site",
    "measure_site",
    "phase_areas",
    "read_layers",
    "read_site_toml",
    "site_from_frames",
]
