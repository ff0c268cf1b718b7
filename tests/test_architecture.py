"""The package drawn from its imports (docs/architecture.md): the import-linter contracts in pyproject.toml
hold (one-way layers, no cycles among the modules of any package, private modules kept private), and no
module reaches into another room for a private name (``_hooks``, ``_read_layers``)."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "geosite"

pytest.importorskip("importlinter")


def _lint(config: Path, cwd: Path) -> subprocess.CompletedProcess:
    # in a child process: import-linter imports the root package by name from the working folder
    code = (
        "import sys; from importlinter.cli import lint_imports; "
        "sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True, no_logo=True))"
    )
    return subprocess.run([sys.executable, "-c", code, str(config)], cwd=cwd, capture_output=True, text=True)


def test_import_contracts_hold() -> None:
    run = _lint(ROOT / "pyproject.toml", ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Contracts: 3 kept, 0 broken." in run.stdout


def test_the_contracts_do_fail_on_a_cycle_and_an_upward_import(tmp_path: Path) -> None:
    # the same contract types, on a package that breaks each of them: so the test above can fail
    pkg = tmp_path / "badpkg"
    (pkg / "low").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "high.py").write_text("")
    (pkg / "low" / "__init__.py").write_text("")
    (pkg / "low" / "a.py").write_text("from badpkg.low import b\nfrom badpkg import high\n")
    (pkg / "low" / "b.py").write_text("from badpkg.low import a\n")
    config = tmp_path / "contracts.toml"
    config.write_text(
        textwrap.dedent("""
        [tool.importlinter]
        root_package = "badpkg"
        [[tool.importlinter.contracts]]
        id = "layers"
        name = "layers"
        type = "layers"
        containers = ["badpkg"]
        layers = ["high", "low"]
        [[tool.importlinter.contracts]]
        id = "no-cycles"
        name = "no cycles"
        type = "acyclic_siblings"
        ancestors = ["badpkg"]
    """)
    )
    run = _lint(config, tmp_path)
    assert run.returncode != 0
    assert "Contracts: 0 kept, 2 broken." in run.stdout, run.stdout


def _room(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2])


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_private_names_imported_across_rooms() -> None:
    offences = []
    for path in sorted(PACKAGE.rglob("*.py")):
        importer = _module_name(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith("geosite"):
                continue
            for alias in node.names:
                target = f"{node.module}.{alias.name}"
                if not alias.name.startswith("_") or alias.name.startswith("__"):
                    continue
                # a private module or name of the importer's own room is fine; another room's is not
                if _room(target) != _room(importer) and _room(node.module) != _room(importer):
                    offences.append(f"{importer}:{node.lineno} imports {target}")
    assert not offences, offences
