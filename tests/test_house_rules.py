"""House rules measured over the tree (issue 26): no function in ``geosite/`` longer than a reader can hold at
once, and numeric parameters documented with their units.

Lines of code are counted as a reader meets them: every line of the function from its ``def`` to its last
line, less its docstring, blank lines and lines holding only a comment. The numba kernel sources may exceed
the limit where splitting a kernel costs speed inside ``@njit``; each such kernel is listed here with its
length, so a longer one fails until it is looked at.
"""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "geosite"

MAX_CODE_LINES = 60

# numba kernels kept whole (one loop nest each; splitting moves state across calls in the hot loop)
KERNEL_EXCEPTIONS = {
    ("hydrology/_kernels_numba.py", "priority_flood"): 82,
    ("hydrology/_kernels_numba.py", "spill_basin"): 63,
    ("terrain/_contour_numba.py", "_walk"): 67,
}


def code_lines(source_lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines of code in a function: its lines less the docstring, blank lines and comment-only lines."""
    skip: set[int] = set()
    first = node.body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        skip = set(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
    count = 0
    for number in range(start, (node.end_lineno or node.lineno) + 1):
        text = source_lines[number - 1].strip()
        if number in skip or not text or text.startswith("#"):
            continue
        count += 1
    return count


def function_lengths(path: Path) -> list[tuple[str, int, int]]:
    """(name, first line, lines of code) of every function and method in one source file."""
    source = path.read_text()
    lines = source.splitlines()
    return [
        (node.name, node.lineno, code_lines(lines, node))
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]


def test_the_count_is_the_one_described() -> None:
    # 4 code lines: the def, two statements and the return; the docstring, comment and blank line are not
    source = textwrap.dedent(
        '''
        def f(x):
            """Doc
            string."""
            y = x + 1  # a trailing comment counts with its line

            # a comment alone does not
            z = y * 2
            return z
        '''
    )
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef)
    assert code_lines(source.splitlines(), node) == 4


def test_no_function_is_longer_than_the_limit() -> None:
    too_long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for name, line, count in function_lengths(path):
            allowed = KERNEL_EXCEPTIONS.get((rel, name), MAX_CODE_LINES)
            if count > allowed:
                too_long.append(f"geosite/{rel}:{line} {name}: {count} lines of code (limit {allowed})")
    assert not too_long, "\n".join(too_long)


# ---- docstrings: a Parameters section is complete, and every number in it has its unit ------------------

# what a description may name as the unit of a number (a count or a ratio says so in words)
UNIT = re.compile(
    r"\b(ft|feet|foot|sq ?ft|acres?|ac|metres?|meters?|m|mm|km|in|inch(es)?|yd|cu ?yd|cubic|square|"
    r"days?|hours?|minutes?|seconds?|s|ms|years?|%|per ?cent|percent|percentage|fraction|ratio|"
    r"dimensionless|unitless|degrees?|deg|radians?|cells?|pixels?|px|dpi|points?|pt|bytes?|MB|MiB|GB|"
    r"count|number|times|multiple|scale|index|indices|rows?|columns?|levels?|workers?|processes|"
    r"characters?|lines?|items?|pieces?|piles?|turns?|iterations?|samples?|mph|ft/s|in/hr?|cfs|"
    r"units?|zoom|weight|z-?score|sigma)\b|%",
    re.IGNORECASE,
)

# a float carries a unit; an int is a count unless its name says otherwise
NUMERIC = {"float", "float | None"}


def _documented_functions() -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, str]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name.startswith("_"):
                continue
            doc = ast.get_docstring(node)
            if doc and re.search(r"^Parameters\n-{10}", doc, re.MULTILINE):
                found.append((f"geosite/{path.relative_to(PACKAGE).as_posix()}:{node.lineno}", node, doc))
    return found


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    args = node.args
    every = args.posonlyargs + args.args + args.kwonlyargs
    named = {a.arg: (ast.unparse(a.annotation) if a.annotation else "") for a in every}
    for star, prefix in ((args.vararg, "*"), (args.kwarg, "**")):
        if star is not None:
            named[prefix + star.arg] = ""
    named.pop("self", None)
    named.pop("cls", None)
    return named


def test_every_parameters_section_is_complete_and_gives_units() -> None:
    docscrape = pytest.importorskip("numpydoc.docscrape")
    problems = []
    functions = _documented_functions()
    assert len(functions) > 20  # the walk finds the documented functions
    for where, node, doc in functions:
        params = _parameters(node)
        section = docscrape.NumpyDocString(doc)["Parameters"]
        documented: dict[str, str] = {}
        for entry in section:
            for name in (n.strip() for n in entry.name.split(",")):
                documented[name.lstrip("*")] = entry.type + " " + " ".join(entry.desc)
        for name, annotation in params.items():
            bare = name.lstrip("*")
            if bare not in documented:
                problems.append(f"{where} {node.name}: parameter {name!r} not in its Parameters section")
            elif annotation in NUMERIC and not UNIT.search(documented[bare]):
                problems.append(f"{where} {node.name}: {name!r} ({annotation}) is described without a unit")
    assert not problems, "\n".join(problems)
