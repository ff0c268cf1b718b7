"""Every name the applicant chooses is data (issue 32 item 2): output and staging folders are built from a
bounded, sanitized form of it, with a hash where it was changed or cut, never over the file system's
255-byte limit; problems are one line each, never a traceback.

The rule is tested over names of 1 to 255 bytes in several scripts (1, 2, 3 and 4 bytes a character),
with separators, dots, control, invisible and format characters and bytes that are not UTF-8, on a real
file system; then end to end: ``geosite check`` with no ``--out`` and the batch worker on a 255-byte name,
a name holding a line break and a terminal escape, and a broken submission under such a name.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from hostile import submission

from geosite.cli import cli
from geosite.io.names import NAME_MAX_BYTES, OUTPUT_NAME_MAX_BYTES, safe_name

SCRIPTS = ["a", "é", "漢", "😀", "ש"]  # 1, 2, 3, 4 bytes; right to left
ODD = [
    "\\",
    ":",
    "|",
    "*",
    "?",
    "<",
    ">",
    '"',
    " ",
    ".",
    "-",
    "\n",
    "\r",
    "\t",
    "\x1b",
    "\x7f",
    "\u202e",
    "\u200b",
]


def _names() -> list[str]:
    """Names of 1 to 255 bytes: each script at several lengths, with odd characters spliced in, dots alone,
    leading dots and dashes, and undecodable bytes (as os.fsdecode gives them)."""
    names = {".", "..", "...", ".hidden", "-rf", "trailing.", "trailing ", "\udcff\udcfe", "a\udc80b"}
    for script, n in itertools.product(SCRIPTS, (1, 2, 50, 63, 64, 100, 127, 200, 254, 255)):
        per = len(script.encode())
        names.add(script * max(n // per, 1))
    for k, odd in enumerate(ODD):
        for base in ("lot", "é" * 100, "x" * (254 - len(odd.encode()))):
            names.add(base + odd + "7" if k % 2 else odd + base)
    return sorted(n for n in names if 0 < len(n.encode("utf-8", "surrogateescape")) <= NAME_MAX_BYTES)


NAMES = _names()


def test_safe_names_are_valid_bounded_distinct_and_kept_when_plain(tmp_path):
    seen: dict[str, str] = {}
    for name in NAMES:
        for suffix in ("", "-check"):
            got = safe_name(name, suffix=suffix)
            raw = got.encode("utf-8")  # encodable: no lone surrogate left
            assert got.endswith(suffix) and len(raw) <= OUTPUT_NAME_MAX_BYTES, (name, got)
            assert got not in (".", "..") and not got.startswith((".", "-")), (name, got)
            assert not any(c in got for c in '/\\\x00:*?"<>|\n\r\t\x1b\x7f\u202e\u200b'), (name, got)
            assert seen.setdefault(got, name) == name, f"{name!r} and {seen[got]!r} both give {got!r}"
    assert safe_name("lot 7 residence") == "lot 7 residence"
    assert safe_name("Lot 7 (Birch St)", suffix="-check") == "Lot 7 (Birch St)-check"
    # what geosite builds beside an output folder still fits the file system: its temporary sibling
    for name in NAMES[::7]:
        out = tmp_path / safe_name(name, suffix="-check")
        (tmp_path / f".{out.name}.tmp-{os.getpid()}-abcdefgh").mkdir()
        (tmp_path / ".geosite-batch-tmp" / f"{out.name}-{'0' * 32}").mkdir(parents=True, exist_ok=True)


def _named(tmp_path: Path, name: str, **kw) -> Path:
    """A small submission (hostile.submission) in a folder called ``name`` (written under a plain name and
    renamed: GDAL itself cannot write there)."""
    return submission(tmp_path / "plain", **kw).rename(tmp_path / name)


def _one_line_each(text: str) -> None:
    for line in text.splitlines():
        assert "\x1b" not in line and "\r" not in line and "\u202e" not in line, line


@pytest.mark.parametrize(
    "name",
    ["é" * 127 + "x", "lot 7\n\x1b[31mRED\u202e.." + os.fsdecode(b"\xff\xfe")],
    ids=["255 bytes", "controls and bytes that are not UTF-8"],
)
def test_check_with_no_out_writes_under_a_bounded_name(tmp_path, monkeypatch, name):
    """No --out: the output folder is the bounded, sanitized name; what is printed is one line each; the
    outputs hold bytes that are not UTF-8 as \\xNN and stay valid UTF-8 (JSON, Markdown, HTML)."""
    import json

    monkeypatch.chdir(tmp_path)
    folder = _named(tmp_path, name)
    res = CliRunner().invoke(cli, ["check", str(folder)])
    assert res.exit_code in (0, 1), res.output
    assert "Traceback" not in res.output
    (out,) = (tmp_path / "geosite-out").iterdir()
    assert out.name == safe_name(name, suffix="-check") and (out / "report.html").is_file()
    _one_line_each(res.output)
    summary = json.loads((out / "findings.json").read_text(encoding="utf-8"))
    assert ("\\xff\\xfe" in summary["folder"]) == ("\udcff" in name)
    for f in ("findings.md", "report.html"):
        (out / f).read_text(encoding="utf-8")


def test_batch_check_of_a_255_byte_name(tmp_path):
    from geosite.scale.batch import BatchOptions, process_site

    folder = _named(tmp_path, "漢" * 85)
    row = process_site(folder, tmp_path / "out", BatchOptions(check=True))
    assert row["status"] == "ok", row
    assert (tmp_path / "out" / safe_name(folder.name) / "findings.json").is_file()


def test_a_broken_submission_under_a_hostile_name_is_one_line_per_problem(tmp_path):
    folder = _named(tmp_path, "bad\nname\x1b[2J", conf={"crs": "EPSG:999999"})
    res = CliRunner().invoke(cli, ["-q", "check", str(folder), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2, res.output
    lines = res.stderr.splitlines()
    assert lines[0].startswith("error: ") and all(line.startswith("  - ") for line in lines[1:]), lines
    assert "bad\\nname\\x1b[2J" in lines[0] and "Traceback" not in res.stderr
    _one_line_each(res.stderr)
