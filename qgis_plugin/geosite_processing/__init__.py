"""geosite for QGIS: a Processing provider running the geosite command line installed in its own Python
environment (docs/qgis.md in the geosite repository)."""


def classFactory(iface):
    """The plugin object QGIS asks for when it loads the plugin."""
    from .plugin import GeositePlugin

    return GeositePlugin(iface)
