"""CLI commands kept in their own modules (loaded lazily by geosite.cli); shared helpers below."""
