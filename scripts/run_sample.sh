#!/usr/bin/env bash
# Quickstart 1: set up geosite in .venv and analyze the bundled sample sites into geosite-out/.
# Where the real DEMs are ($GEOSITE_REAL_DEMS, else shared/data/real_dems beside the repository), the
# third sample site (a subdivision on real LiDAR, read in place and never copied into the repository) is
# generated into geosite-out/_sites/ and analyzed too.
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
install_geosite ""
for site in data/sample_sites/*/; do
  name="$(basename "$site")"
  .venv/bin/geosite analyze "$site" --out "geosite-out/$name" --overwrite
done
REAL_DEMS="${GEOSITE_REAL_DEMS:-$ROOT/../shared/data/real_dems}"
if [ -d "$REAL_DEMS" ]; then
  .venv/bin/python scripts/make_sample_sites.py --only crow_wing_real_terrain --out geosite-out/_sites --quiet \
    --real-dems "$REAL_DEMS"
  .venv/bin/geosite analyze geosite-out/_sites/crow_wing_real_terrain --out geosite-out/crow_wing_real_terrain --overwrite
fi
echo "outputs in $ROOT/geosite-out/"
