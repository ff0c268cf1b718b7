"""Scale: county-size DEMs and many sites at once.

* :mod:`geosite.scale.tiles`: whole-DEM slope and steep-slope screening in tiles with a one-cell halo,
  memory bounded by the tile size whatever the DEM size (GeoTIFF, COG or a VRT mosaic of tiles).
* :mod:`geosite.scale.batch`: many site folders analysed in parallel on Dask (a local cluster or an
  existing scheduler), resumable, one bad site reported without stopping the others.

Nothing heavy is imported here: dask and distributed load only when a batch runs.
"""
