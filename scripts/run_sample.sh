#!/usr/bin/env bash
# Quickstart 1: set up geosite in .venv and analyze the bundled sample sites into geosite-out/.
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
install_geosite ""
for site in data/sample_sites/*/; do
  name="$(basename "$site")"
  .venv/bin/geosite analyze "$site" --out "geosite-out/$name" --overwrite
done
echo "outputs in $ROOT/geosite-out/"
