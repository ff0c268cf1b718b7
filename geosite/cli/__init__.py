"""The command line: ``geosite analyze | map | check | schedule | batch``, a thin layer over the API.

:mod:`~geosite.cli.app` holds the click group (verbosity, lazy commands, the one error handler: bad
input exits 2); each command is a module of its own here. The library never imports this package.
"""

from geosite.cli.app import cli, main

__all__ = ["cli", "main"]
