#!/usr/bin/env bash
# Build the API reference (HTML) from the docstrings (numpydoc style) with pdoc, into docs/api/_build/.
#   bash scripts/build_docs.sh            # then open docs/api/_build/index.html
#   bash scripts/build_docs.sh --serve    # or browse it live at http://localhost:8080 while editing
# Sets up .venv like the other scripts, with the `docs` extra (pdoc). The build folder is not committed.
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
install_geosite "[docs]"
OUT="docs/api/_build"
ARGS=(--docformat numpy --footer-text "geosite $("$VPY" -c 'import geosite; print(geosite.__version__)')" --search)
export MPLBACKEND=Agg  # documenting geosite.maps must never open a window
# pdoc follows __all__: a package that defines one (geosite itself, controls, rules, maps, review) gets no
# pages for its submodules unless they are named. Name those (and only those: pdoc walks the others itself),
# leaving out private modules (a leading underscore anywhere in the dotted name).
mapfile -t MODULES < <("$VPY" - <<'PY'
import importlib, pkgutil, geosite
names = [m.name for m in pkgutil.walk_packages(geosite.__path__, "geosite.")]
public = [n for n in names if not any(part.startswith("_") for part in n.split("."))]
def named_by_pdoc(n):  # its parent has no __all__ (pdoc walks it), or lists it in __all__
    parent, leaf = n.rsplit(".", 1)
    return leaf in getattr(importlib.import_module(parent), "__all__", [leaf])
print("\n".join(["geosite"] + [n for n in public if not named_by_pdoc(n)]))
PY
)
if [ "${1:-}" = "--serve" ]; then
  exec "$VPY" -m pdoc "${ARGS[@]}" -p 8080 "${MODULES[@]}"
fi
rm -rf "$OUT"
"$VPY" -m pdoc "${ARGS[@]}" -o "$OUT" "${MODULES[@]}"
echo "API reference: $ROOT/$OUT/index.html ($(find "$OUT" -name '*.html' | wc -l) pages)" >&2
