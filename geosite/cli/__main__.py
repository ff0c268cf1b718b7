"""``python -m geosite.cli``: the geosite command line."""

from geosite.cli.app import main

main()
