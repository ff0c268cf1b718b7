"""Views of one site's plan: the GeoPackages' layers and styles (:mod:`~geosite.views.layers`) and the DXF
for CAD (:mod:`~geosite.views.dxf`), each reading the practices' descriptors (geosite.practices) for the
controls and its own tables for the site's layers. The sheets are :mod:`geosite.maps`.
"""
