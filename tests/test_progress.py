"""The command line's progress display: a tqdm line per run naming each stage on a terminal, nothing
under -q or where stderr is not a terminal (a log, a pipe, CliRunner)."""

from __future__ import annotations

import io

from click.testing import CliRunner

from geosite.cli import cli
from geosite.cli.app import Steps


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_sees_each_stage_and_the_line_is_cleared_at_the_end():
    term = Terminal()
    with Steps(quiet=False, file=term) as steps:
        steps("reading the DEM")
        steps("routing flow (fill, D8, accumulation)")
    out = term.getvalue()
    assert "geosite: reading the DEM (stage 1," in out
    assert "geosite: routing flow (fill, D8, accumulation) (stage 2," in out
    assert out.endswith("\r") and out.split("\r")[-2].strip() == ""  # leave=False: the line is blanked


def test_quiet_or_not_a_terminal_prints_nothing():
    for steps in (Steps(quiet=True, file=Terminal()), Steps(quiet=False, file=io.StringIO())):
        with steps:
            steps("reading the DEM")
        assert steps.file.getvalue() == ""


def test_analyze_under_a_pipe_writes_no_progress(tmp_path):
    from sitebuilder import make_site, rect

    from geosite.testing import inclined_plane

    site = make_site(
        tmp_path / "s",
        {"site_boundary": [rect(60, -240, 80, 120)], "disturbance": [rect(80, -220, 40, 60)]},
        dem=inclined_plane(5.0, shape=(150, 150), cell=2.0),
    )
    res = CliRunner().invoke(cli, ["analyze", str(site), "--out", str(tmp_path / "out"), "--no-maps"])
    assert res.exit_code == 0, res.output
    assert "stage" not in res.stderr and "\r" not in res.stderr
