# Sourced by the Quickstart scripts: make (once) and use the project's virtual environment in .venv.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
  echo "geosite needs Python 3.11 or newer; '$PY' is $("$PY" --version 2>&1). Set PYTHON=/path/to/python3.11." >&2
  exit 2
fi
if [ ! -x .venv/bin/python ]; then
  echo "creating .venv with $("$PY" --version)" >&2
  "$PY" -m venv .venv
fi
VPY="$ROOT/.venv/bin/python"
step() {  # say what is starting (stderr), with the seconds since set-up began
  echo "[$(( SECONDS ))s] $*" >&2
}
install_geosite() {  # $1: extras, e.g. "[test]"
  step "installing geosite${1:-} and its dependencies into .venv (pip; a few minutes on a fresh machine, seconds after)"
  "$VPY" -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null
  "$VPY" -m pip install --quiet --disable-pip-version-check -e ".${1:-}"
  # what the first run would otherwise do (benchmarks/bench_first_run.py): geosite's bytecode (an editable
  # install compiles none), matplotlib's and ezdxf's font lists, and the kernels where the install
  # could not compile them ahead of time (setup.py; no C compiler): numba compiles them into its cache now
  step "warming up: geosite's bytecode, the font lists, the flow and contour kernels (compiled now by numba where the install found no C compiler)"
  "$VPY" "$ROOT/scripts/warm_up.py"
  step "set-up done"
}
