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
    ("hydrology/_kernels_numba.py", "_flood_run"): 74,
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


# ---- rules are data: no ordinance or DNR number as a code default ---------------------------------------

# a parameter (or dataclass field) whose name carries a quantity an ordinance or a DNR technical standard
# could set: a slope, an area, a length, a speed, a time, a depth, an angle, a volume, a threshold, a table
QUANTITY = re.compile(
    r"(_pct|_acres?|_sqft|_ft|_fps|_days?|_in|_deg|_hours?|_cy|_cfs|_per_acre|_every)$"
    r"|^(threshold|table|setback|margin|interval)"
)

# (module under geosite/, function or Class.field, parameter): why its default is geosite's own choice
# and not a number of the chapter or the Handbook. Each function says so in its docstring ("geosite's
# choice, not the ordinance's").
DEFAULTS_ALLOWED = {
    ("controls/slope_length.py", "interior_rows", "straighten_ft"): (
        "Douglas-Peucker tolerance of a drawn row, ft: a drafting tolerance"
    ),
    ("controls/fences.py", "row_obstacles", "width_ft"): (
        "the width a drive or ditch drawn as a line is given as an obstacle, ft: a drawing convention"
    ),
    ("controls/setbacks.py", "is_downslope", "tolerance_ft"): (
        "how much lower than the pile's edge a feature must be to count as lower, ft: a numerical tolerance"
    ),
    ("controls/submitted.py", "fence_coverage", "min_gap_ft"): (
        "gaps between submitted and required fence shorter than this are drawing noise, ft"
    ),
    ("hydrology/stage.py", "runoff_leaves_site", "missing_sqft"): (
        "a measurement passed in (the disturbed area without heights), not a threshold: 0 means none"
    ),
    ("hydrology/stage.py", "velocity_across", "max_length_ft"): (
        "TR-55's own limit on sheet flow length (NRCS 1986): the method geosite computes with"
    ),
    ("terrain/steep.py", "steep_area_sqft", "min_area_sqft"): (
        "0 is no mapping unit at all (every cell measured), not a number of any chapter"
    ),
    ("views/dxf.py", "write_dxf", "scale_ft"): (
        "the plot scale DXF text and symbols are sized for, a drawing size (CAD rescales text at will); "
        "write_outputs passes the maps' scale, the profile's"
    ),
    # paper inches on the sheets: drawing sizes
    ("maps/labels.py", "avoid", "pad_in"): "the box kept clear around a point symbol, paper inches",
    ("maps/layout.py", "label_polygons", "min_sq_in"): "the paper area a polygon needs to hold its label",
    ("maps/layout.py", "draw_contours", "label_every_in"): "the spacing of contour labels on paper",
    ("maps/panel.py", "key_map", "height_in"): "the key map's height on the sheet",
    ("maps/title.py", "location_map", "height_in"): "the location map's height on the sheet",
}

# modules whose every default is no rule's: their numbers shape synthetic test terrain
MODULES_ALLOWED = {
    "testing.py": "synthetic DEMs with closed-form answers (a plane's azimuth, a cone's peak): test fixtures",
}


def _numeric(node: ast.expr | None) -> bool:
    """Whether a default is a number or a table of numbers (a literal, a named constant, an expression)."""
    if node is None:
        return False
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int | float) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return _numeric(node.operand)
    if isinstance(node, ast.BinOp):
        return _numeric(node.left) or _numeric(node.right)
    if isinstance(node, ast.Name | ast.Attribute):
        # a module constant (DNR_1056_MAX_SLOPE_LENGTH_FT, STEEP_THRESHOLDS_PCT, math.inf); NaN is no value
        return ast.unparse(node) not in ("math.nan", "np.nan", "numpy.nan")
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_numeric(e) for e in node.elts)
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id in ("float", "int", "tuple", "list")
    return False


def _is_dataclass(node: ast.ClassDef) -> bool:
    return any("dataclass" in ast.unparse(d) for d in node.decorator_list)


def quantity_defaults(source: str) -> list[tuple[int, str, str, str]]:
    """(line, function or Class.field, parameter, default) of every parameter or dataclass field whose name
    carries an ordinance quantity and whose default is a number or a table of numbers.
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            a = node.args
            positional = a.posonlyargs + a.args
            pairs = list(zip(positional[len(positional) - len(a.defaults) :], a.defaults, strict=True))
            pairs += [(k, d) for k, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None]
            name = getattr(node, "name", "<lambda>")
            for arg, default in pairs:
                if QUANTITY.search(arg.arg) and _numeric(default):
                    found.append((node.lineno, name, arg.arg, ast.unparse(default)))
        elif isinstance(node, ast.ClassDef) and _is_dataclass(node):
            for st in node.body:
                if (
                    isinstance(st, ast.AnnAssign)
                    and isinstance(st.target, ast.Name)
                    and QUANTITY.search(st.target.id)
                    and _numeric(st.value)
                ):
                    found.append((st.lineno, node.name, st.target.id, ast.unparse(st.value)))  # type: ignore[arg-type]
    return found


def test_the_rule_catches_the_defaults_it_was_written_for() -> None:
    # the signatures as they were before the numbers moved to the profiles (issue 26): every one is caught
    before = textwrap.dedent(
        """
        def steep_area_sqft(dem, within=None, slope=None, threshold_pct=12.0, below_pct=None): ...
        def steep_slope_polygons(dem, slope=None, threshold_pct=(12.0, 20.0), min_area_sqft=DEFAULT): ...
        def screen_steep_slopes(path, vertical_unit, threshold_pct=12.0, tile=2048): ...
        def disturbed_outlets(d, dem, fg, trap_max_acres=5.0, basin_max_acres=100.0, *, merge_ft=50.0): ...
        def basin_kind(acres, trap_max_acres=5.0, basin_max_acres=100.0): ...
        def inlet_protection(inlets, d, dem, fg, max_drainage_acres=1.0): ...
        def diversions(p, dem, fg, area_sqft=10_000.0, velocity_fps=0.5): ...
        def filter_fence(p, dem, fg=None, *, hook_ft=10.0, table=DNR_1056_MAX_SLOPE_LENGTH_FT): ...
        def contours(dem, interval_ft=5.0): ...
        def deadline(start, review_days=45): ...
        def rain(storm_in=-(-3)): ...
        def upslope_area(dem, polygon, channel_threshold_sqft=5 * SQFT_PER_ACRE): ...
        def limits(tbl, table=[[2.0, 100.0], [float("inf"), 20.0]]): ...
        """
    )
    caught = {(name, param) for _line, name, param, _d in quantity_defaults(before)}
    assert caught == {
        ("steep_area_sqft", "threshold_pct"),
        ("steep_slope_polygons", "threshold_pct"),
        ("steep_slope_polygons", "min_area_sqft"),
        ("screen_steep_slopes", "threshold_pct"),
        ("disturbed_outlets", "trap_max_acres"),
        ("disturbed_outlets", "basin_max_acres"),
        ("disturbed_outlets", "merge_ft"),
        ("basin_kind", "trap_max_acres"),
        ("basin_kind", "basin_max_acres"),
        ("inlet_protection", "max_drainage_acres"),
        ("diversions", "area_sqft"),
        ("diversions", "velocity_fps"),
        ("filter_fence", "hook_ft"),
        ("filter_fence", "table"),
        ("contours", "interval_ft"),
        ("deadline", "review_days"),
        ("rain", "storm_in"),
        ("upslope_area", "channel_threshold_sqft"),
        ("limits", "table"),
    }
    # and what is not a number is not caught: None, a flag, text, no table at all
    assert not quantity_defaults("def f(a_ft=None, *, b_pct: bool = False, table='dnr', threshold=()): ...")


def test_no_ordinance_number_is_a_code_default() -> None:
    """Every threshold of an ordinance or a DNR technical standard is written once, in the profile: a
    library function takes it as a required argument (or from the profile), never as a default a notebook
    user silently gets under another village's profile.
    """
    problems, seen = [], set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in MODULES_ALLOWED:
            continue
        source = path.read_text()
        docs = {
            n.name: ast.get_docstring(n) or ""
            for n in ast.walk(ast.parse(source))
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        }
        for line, name, param, default in quantity_defaults(source):
            key = (rel, name, param)
            if key not in DEFAULTS_ALLOWED:
                problems.append(
                    f"geosite/{rel}:{line} {name}({param}={default}): an ordinance or DNR number as a "
                    "default; make it required (the caller passes the profile's) or add it to "
                    "DEFAULTS_ALLOWED with the reason it is geosite's own choice"
                )
            elif "geosite's choice, not the ordinance's" not in " ".join(docs.get(name, "").split()):
                problems.append(
                    f"geosite/{rel}:{line} {name}: the docstring does not say {param}'s default is "
                    "\"geosite's choice, not the ordinance's\""
                )
            seen.add(key)
    stale = sorted(set(DEFAULTS_ALLOWED) - seen)
    assert not problems, "\n".join(problems)
    assert not stale, f"allowed defaults that no longer exist (remove them): {stale}"
