#!/usr/bin/env bash
# Quickstart 2: set up geosite with its test dependencies in .venv, lint it (ruff, mypy) and run the test suite.
# GDAL's command-line tools (gdaldem, gdal_contour) are the independent reference some tests compare
# against; where they are missing and apt-get can install them (root), they are installed, else
# those tests skip and say so.
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
if ! command -v gdaldem >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "installing GDAL command-line tools (Debian gdal-bin) for the reference comparisons" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gdal-bin >/dev/null) \
    || echo "could not install gdal-bin; GDAL comparison tests will skip" >&2
fi
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "installing Chromium and chromedriver (Debian chromium chromium-driver) for the report.html browser test" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null) \
    || echo "could not install chromium; the browser test will skip" >&2
fi
if ! /usr/bin/python3 -c "import qgis.core" >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  # measured: 73 s with apt-get update on a Debian 12 machine that had GDAL already
  echo "installing QGIS headless (Debian qgis python3-qgis) for the GeoPackage style and QGIS plugin tests" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qgis python3-qgis >/dev/null) \
    || echo "could not install qgis; the QGIS style and plugin tests will skip" >&2
fi
if ! command -v librecad >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "installing LibreCAD (Debian librecad) for the DXF rendering test" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq librecad >/dev/null) \
    || echo "could not install librecad; the LibreCAD test will skip" >&2
fi
install_geosite "[test]"
# issue 26: lint and types first, with the versions pinned in the test extra and the configuration in
# pyproject.toml ([tool.ruff], [tool.mypy]); any finding fails the run before the tests start
echo "ruff check geosite tests benchmarks scripts setup.py qgis_plugin" >&2
.venv/bin/ruff check --no-cache geosite tests benchmarks scripts setup.py qgis_plugin
echo "mypy (files and settings from pyproject.toml)" >&2
.venv/bin/mypy
echo "numpydoc lint geosite (checks from pyproject.toml [tool.numpydoc_validation])" >&2
find geosite -name '*.py' -print0 | sort -z | xargs -0 .venv/bin/python -m numpydoc lint
# the tests run on every core (pytest-xdist), each file's tests on one worker (--dist loadfile: a module's
# fixtures are built once); measured on 2 cores: 478 s against about 880 s of CPU one after another.
# GEOSITE_TEST_WORKERS=0 runs them in this process (a debugger, -x on the first failure in order).
exec .venv/bin/python -m pytest -n "${GEOSITE_TEST_WORKERS:-auto}" --dist loadfile "$@"
