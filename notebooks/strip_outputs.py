"""Strip outputs and execution counts from notebooks before committing them.

    .venv/bin/python notebooks/strip_outputs.py                 # every notebooks/*.ipynb
    .venv/bin/python notebooks/strip_outputs.py path/to/a.ipynb # just these

tests/test_notebooks.py fails while a notebook in notebooks/ still has outputs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat


def strip(path: Path) -> bool:
    """Remove outputs, execution counts and per-run metadata; True when the file changed."""
    nb = nbformat.read(path, as_version=4)
    before = nbformat.writes(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        for key in ("execution", "collapsed", "scrolled"):
            cell.metadata.pop(key, None)
    nb.metadata.pop("widgets", None)
    after = nbformat.writes(nb)
    if after != before:
        path.write_text(after, encoding="utf-8")
        return True
    return False


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted(Path(__file__).parent.glob("*.ipynb"))
    for p in paths:
        print(f"{'stripped' if strip(p) else 'clean   '}  {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
