#!/usr/bin/env bash
# Quickstart 1: set up geosite in .venv and analyze the bundled sample sites into geosite-out/.
# Where the real DEMs are ($GEOSITE_REAL_DEMS, else shared/data/real_dems beside the repository), the
# third sample site (a subdivision on real LiDAR, read in place and never copied into the repository) is
# generated into geosite-out/_sites/ and analyzed too.
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
install_geosite "[notebooks]"  # the notebooks extra: Jupyter, to open notebooks/ (README: Notebooks)
sites=(data/sample_sites/*/)
n=${#sites[@]}
i=0
for site in "${sites[@]}"; do
  name="$(basename "$site")"
  i=$((i + 1))
  step "analyzing sample site $i of $n: $name (30-60 s: terrain, controls, sheets) into geosite-out/$name"
  .venv/bin/geosite analyze "$site" --out "geosite-out/$name" --overwrite
done
REAL_DEMS="${GEOSITE_REAL_DEMS:-$ROOT/../shared/data/real_dems}"
if [ -d "$REAL_DEMS" ]; then
  step "making the real-terrain sample site from the LiDAR DEMs in $REAL_DEMS"
  .venv/bin/python scripts/make_sample_sites.py --only crow_wing_real_terrain --out geosite-out/_sites --quiet \
    --real-dems "$REAL_DEMS"
  step "analyzing the real-terrain sample site (about a minute) into geosite-out/crow_wing_real_terrain"
  .venv/bin/geosite analyze geosite-out/_sites/crow_wing_real_terrain --out geosite-out/crow_wing_real_terrain --overwrite
else
  step "skipping the real-terrain sample site: its LiDAR DEMs are not in the repository and no folder $REAL_DEMS" \
    "was found (set GEOSITE_REAL_DEMS to the folder holding them to analyze it too)"
fi
step "outputs in $ROOT/geosite-out/ (open notebooks/ with: .venv/bin/jupyter lab notebooks/)"
