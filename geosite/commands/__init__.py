"""CLI commands kept in their own modules, each defining a click command named like the module;
geosite.cli loads them lazily so `geosite --help` stays fast."""
