"""The review calendar (geosite.schedule): every date below was counted by hand on a printed calendar
(day 0 = the event; holidays = US federal legal public holidays as observed), then checked with a
plain-datetime loop over a hand-written holiday list."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import geopandas as gpd
import pytest
from click.testing import CliRunner
from sitebuilder import rect

from geosite.errors import InputError, ProfileError
from geosite.rules.profile import load_profile
from geosite.schedule import (
    HolidayCalendar,
    add_days,
    bmp_completion_notice_due,
    build_schedule,
    enforcement_deadlines,
    holiday_calendar,
    inspection_schedule,
    permit_expiry,
    read_rainfall,
    review_deadlines,
    stabilization_deadlines,
    start_notice_due,
)
from geosite.site import Project, site_from_frames

ROOT_PROFILES = Path(__file__).resolve().parents[1] / "geosite" / "rules" / "profiles"

D = dt.date
GRANTSBURG = load_profile("grantsburg")
BELGIUM = load_profile("belgium")
PROFILES = Path(__file__).resolve().parents[1] / "geosite" / "rules" / "profiles"


@pytest.fixture(scope="module")
def cal() -> HolidayCalendar:
    return holiday_calendar(GRANTSBURG)


# ------------------------------------------------------------------------------------------ holidays


def test_observed_holidays(cal):
    # July 4 2026 is a Saturday -> observed Fri July 3; Christmas 2027 is a Saturday -> Fri Dec 24;
    # New Year's Day 2028 is a Saturday -> observed Fri 2027-12-31 (filed under the previous year)
    assert not cal.is_working_day(D(2026, 7, 3))
    assert not cal.is_working_day(D(2027, 12, 24))
    assert not cal.is_working_day(D(2027, 12, 31))
    assert cal.is_working_day(D(2027, 12, 23))
    assert cal.why_not_working(D(2026, 7, 4)) == "Saturday"
    assert "Thanksgiving" in cal.holiday(D(2026, 11, 26))


def test_working_days_across_christmas(cal):
    # received Tue 2026-12-15; 10 working days:
    # Dec 16 W 1, 17 Th 2, 18 F 3, 21 M 4, 22 T 5, 23 W 6, 24 Th 7, [25 F Christmas], 28 M 8, 29 T 9, 30 W 10
    assert cal.add_working_days(D(2026, 12, 15), 10) == D(2026, 12, 30)


def test_working_days_across_year_end(cal):
    # received Tue 2026-12-22; 10 working days:
    # Dec 23 W 1, 24 Th 2, [25 F Christmas], 28 M 3, 29 T 4, 30 W 5, 31 Th 6, [Jan 1 F New Year],
    # Jan 4 M 7, 5 T 8, 6 W 9, 7 Th 10
    assert cal.add_working_days(D(2026, 12, 22), 10) == D(2027, 1, 7)
    assert cal.working_days_between(D(2026, 12, 22), D(2027, 1, 7)) == 10


def test_working_days_christmas_and_new_year_on_saturdays(cal):
    # received Wed 2027-12-22; 10 working days:
    # Dec 23 Th 1, [24 F Christmas observed], 27 M 2, 28 T 3, 29 W 4, 30 Th 5, [31 F New Year 2028 observed],
    # Jan 3 M 6, 4 T 7, 5 W 8, 6 Th 9, 7 F 10
    assert cal.add_working_days(D(2027, 12, 22), 10) == D(2028, 1, 7)


def test_event_on_a_weekend_is_day_zero(cal):
    # received Sat 2026-12-19: Dec 21 M 1, 22 T 2
    assert cal.add_working_days(D(2026, 12, 19), 2) == D(2026, 12, 22)
    assert cal.add_working_days(D(2026, 12, 19), 0) == D(2026, 12, 19)


def _profile_with_holidays(tmp_path: Path, table: str) -> Path:
    text = (PROFILES / "grantsburg.toml").read_text(encoding="utf-8")
    start = text.index("[review.holidays]")
    end = text.index("[permit]")
    path = tmp_path / "village.toml"
    path.write_text(text[:start] + table + "\n" + text[end:], encoding="utf-8")
    return path


def test_profile_adds_and_removes_village_days(tmp_path):
    path = _profile_with_holidays(
        tmp_path,
        """[review.holidays]
country = "US"
add = [ { month_day = "12-24", name = "Christmas Eve" },
        { after = "Thanksgiving Day", days = 1, name = "Day after Thanksgiving" },
        { date = "2026-11-03", name = "General election" } ]
remove = [ "Columbus Day", "2026-11-11" ]
citation = "Definitions: working day"
""",
    )
    village = holiday_calendar(load_profile(str(path)))
    assert village.holiday(D(2026, 12, 24)) == "Christmas Eve"
    assert village.holiday(D(2026, 11, 27)) == "Day after Thanksgiving"
    assert village.holiday(D(2027, 11, 26)) == "Day after Thanksgiving"  # Thanksgiving 2027 is Nov 25
    assert village.holiday(D(2026, 11, 3)) == "General election"
    assert village.holiday(D(2026, 10, 12)) is None  # Columbus Day removed
    assert village.holiday(D(2026, 11, 11)) is None  # Veterans Day 2026 removed by date
    assert village.holiday(D(2027, 11, 11)) == "Veterans Day"  # ... only that year
    # notice of intent Mon 2026-11-23, 3 working days:
    # Tue 24 1, Wed 25 2, [Thu 26 Thanksgiving], [Fri 27 Day after], Mon 30 3   (default calendar: Fri 27)
    d = enforcement_deadlines(load_profile(str(path)), notice_of_intent=D(2026, 11, 23))[0]
    assert d.date == D(2026, 11, 30)
    assert enforcement_deadlines(GRANTSBURG, notice_of_intent=D(2026, 11, 23))[0].date == D(2026, 11, 27)
    # received Fri 2026-10-09, 1 working day: Columbus Day Mon Oct 12 is a working day here
    assert village.add_working_days(D(2026, 10, 9), 1) == D(2026, 10, 12)


def test_profile_holiday_errors_list_known_names(tmp_path):
    path = _profile_with_holidays(
        tmp_path,
        """[review.holidays]
add = [ { after = "Thanksgiving", name = "Day after" }, { month_day = "13-01" } ]
remove = [ "Boxing Day" ]
""",
    )
    with pytest.raises(ProfileError) as exc:
        holiday_calendar(load_profile(str(path)))
    msg = str(exc.value)
    assert "'Thanksgiving' is not a holiday" in msg and "Thanksgiving Day" in msg
    assert "13-01" in msg and "Boxing Day" in msg


# ------------------------------------------------------------------------------------------ review


def test_grantsburg_review_full_and_statement(cal):
    # full plan, received Tue 2026-12-15, 30 working days (C(1)):
    # Dec 16-18 (3), 21-24 (7), [25], 28-31 (11), [Jan 1], Jan 4-8 (16), 11-15 (21), [18 MLK Day],
    # 19-22 (25), 25-29 (30) -> Fri 2027-01-29
    (full,) = review_deadlines(D(2026, 12, 15), GRANTSBURG, "full")
    assert full.date == D(2027, 1, 29)
    assert full.citation.endswith("C(1)")
    (statement,) = review_deadlines(D(2026, 12, 15), GRANTSBURG, "statement")
    assert statement.date == D(2026, 12, 30) and statement.citation.endswith("C(2)")
    # unknown plan type: both, labelled
    both = review_deadlines(D(2026, 12, 15), GRANTSBURG, None)
    assert [d.date for d in both] == [D(2026, 12, 30), D(2027, 1, 29)]
    assert "if a plan statement" in both[0].what


def test_grantsburg_re_review_after_information():
    # statement; information received Thu 2026-12-31: [Jan 1], Jan 4 M 1 ... Jan 8 F 5, Jan 11-15 6-10 -> Fri
    # 2027-01-15
    ds = review_deadlines(D(2026, 12, 15), GRANTSBURG, "statement", info_received=D(2026, 12, 31))
    assert [d.date for d in ds] == [D(2026, 12, 30), D(2027, 1, 15)]
    assert ds[1].what.startswith("Second review")


def test_belgium_review_calendar_days():
    # received 2026-12-15 + 45 days: Dec 16..31 is 16 days, + Jan 1..29 is 29 -> Fri 2027-01-29 (year end)
    # information received 2027-01-20 + 30: Jan 21..31 is 11, + Feb 1..19 is 19 -> Fri 2027-02-19 (month end)
    ds = review_deadlines(D(2026, 12, 15), BELGIUM, "full", info_received=D(2027, 1, 20))
    assert [d.date for d in ds] == [D(2027, 1, 29), D(2027, 2, 19)]
    assert all(d.citation.endswith("C") and d.note == "" for d in ds)
    # exactly one acre ("both") gives one row: the same 45 days either way
    assert len(review_deadlines(D(2026, 12, 15), BELGIUM, "both")) == 1


def test_belgium_deadline_on_weekend_or_holiday_is_reported_not_moved(cal):
    # received 2026-11-19 + 45: Nov 20..30 is 11, Dec is 31 (42), Jan 1..3 (45) -> Sun 2027-01-03
    (d,) = review_deadlines(D(2026, 11, 19), BELGIUM, "full")
    assert d.date == D(2027, 1, 3)
    assert "Sunday" in d.note and "2027-01-04" in d.note
    # received 2027-01-01 + 45 -> Mon 2027-02-15, Washington's Birthday
    (d,) = review_deadlines(D(2027, 1, 1), BELGIUM, "full")
    assert d.date == D(2027, 2, 15) and "Washington" in d.note and "2027-02-16" in d.note
    # the other policy, should a village choose it
    due, rule, note = add_days(D(2026, 11, 19), 45, "days", cal, policy="extend")
    assert due == D(2027, 1, 4) and note == "" and "moved" in rule


def test_bad_plan_type():
    with pytest.raises(InputError, match="full, statement, both"):
        review_deadlines(D(2026, 12, 15), GRANTSBURG, "complete")


# ------------------------------------------------------------------------------------------ permit


def test_permit_expiry_and_extensions():
    # issued 2027-04-01 + 180: Apr 2..30 29, May 60, Jun 90, Jul 121, Aug 152, Sep 1..28 180 -> 2027-09-28
    (e,) = permit_expiry(D(2027, 4, 1), GRANTSBURG)
    assert e.date == D(2027, 9, 28) and e.citation.endswith("D(1)")
    # a 120-day building permit is shorter: still 180 days
    assert permit_expiry(D(2027, 4, 1), GRANTSBURG, 120)[0].date == D(2027, 9, 28)
    # a 365-day building permit: 2027-04-01 + 365 = 2028-03-31 (2028 has Feb 29)
    assert permit_expiry(D(2027, 4, 1), BELGIUM, 365)[0].date == D(2028, 3, 31)
    # extensions: 2027-09-28 + 180 = 2028-03-26 (Sep 2, Oct 33, Nov 63, Dec 94, Jan 125, Feb 154, Mar 26 180);
    # then + 90 = 2028-06-24
    ds = permit_expiry(D(2027, 4, 1), GRANTSBURG, None, extensions=[180, 90])
    assert [d.date for d in ds] == [D(2027, 9, 28), D(2028, 3, 26), D(2028, 6, 24)]
    with pytest.raises(InputError, match="1 to 180 days"):
        permit_expiry(D(2027, 4, 1), GRANTSBURG, None, extensions=[200])


# ------------------------------------------------------------------------------------------ notices


def test_start_notice_thursday_before_friday_holiday():
    # Grantsburg: work starts Thu 2026-07-02; [Fri 3 Independence Day observed], [Sat, Sun], Mon 6 1, Tue 7 2
    d = start_notice_due(D(2026, 7, 2), GRANTSBURG)
    assert d.date == D(2026, 7, 7) and d.citation.endswith("D(3)(a)")
    # Belgium: 48 hours, straight through -> Sat 2026-07-04, reported (the chapter does not move it)
    d = start_notice_due(D(2026, 7, 2), BELGIUM)
    assert d.date == D(2026, 7, 4) and "Saturday" in d.note and "2026-07-06" in d.note


def test_bmp_completion_notice():
    # Grantsburg: the next working day after installation on Thu 2026-07-02 -> Mon 2026-07-06
    assert bmp_completion_notice_due(D(2026, 7, 2), GRANTSBURG).date == D(2026, 7, 6)
    # Belgium: within 14 days -> Thu 2026-07-16
    d = bmp_completion_notice_due(D(2026, 7, 2), BELGIUM)
    assert d.date == D(2026, 7, 16) and d.citation.endswith("D(3)(b)")


def test_enforcement():
    # notice Thu 2026-12-24: comply within 24 hours -> Fri Dec 25 (Christmas: reported, not moved)
    # notice of intent Wed 2026-12-23: Dec 24 Th 1, [25], 28 M 2, 29 T 3 -> 2026-12-29
    comply, work = enforcement_deadlines(GRANTSBURG, notice=D(2026, 12, 24), notice_of_intent=D(2026, 12, 23))
    assert comply.date == D(2026, 12, 25) and "Christmas" in comply.note and comply.citation.endswith("B")
    assert work.date == D(2026, 12, 29) and work.citation.endswith("E")
    assert enforcement_deadlines(BELGIUM, notice=D(2026, 12, 24)) == []


def test_enforcement_where_work_goes_on_without_a_permit():
    # Grantsburg Enforcement C: cease within 24 hours, else a cease and desist order may be sought
    (d,) = enforcement_deadlines(GRANTSBURG, notice_without_permit=D(2027, 5, 4))
    assert d.date == D(2027, 5, 5) and d.citation.endswith("C") and "cease and desist" in d.what
    assert enforcement_deadlines(BELGIUM, notice_without_permit=D(2027, 5, 4)) == []


def test_permit_conditions_surety_and_building_permit():
    from geosite.schedule import permit_conditions

    g = permit_conditions(GRANTSBURG, D(2027, 4, 1))
    assert len(g) == 2
    assert (
        "the Village shall require a surety bond" in g[0] and g[0].endswith("D(2))") and "2027-04-01" in g[0]
    )
    assert "building permit" in g[1] and "C(3)" in g[1]
    (b,) = permit_conditions(BELGIUM)
    assert "the Building Inspector may require a surety bond" in b and "D(2)" in b


# ------------------------------------------------------------------------------------------ inspections


def test_inspections_weekly_and_after_rain(tmp_path):
    csv = tmp_path / "rain.csv"
    csv.write_text(
        "date,rain_in\n2027-04-30,2.0\n2027-05-05,0.49\n2027-05-06,0.50\n2027-05-09,0.8\n"
        "2027-05-12,T\n2027-05-31,0.6\n",
        encoding="utf-8",
    )
    rain = read_rainfall(csv)
    assert rain[D(2027, 5, 12)] == 0.0
    got = inspection_schedule(D(2027, 5, 3), D(2027, 5, 31), GRANTSBURG, rain)
    # weekly from Mon 05-03: 05-10, 05-17, 05-24, 05-31; rain: 0.49 on 05-05 does not count, 0.50 on 05-06
    # -> 05-07, 0.8 on 05-09 -> 05-10 (with the weekly one), 0.6 on the last day 05-31 -> 06-01;
    # 2.0 on 04-30 is before the work starts
    assert [i.date for i in got] == [
        D(2027, 5, 7),
        D(2027, 5, 10),
        D(2027, 5, 17),
        D(2027, 5, 24),
        D(2027, 5, 31),
        D(2027, 6, 1),
    ]
    assert got[1].reasons[0] == "weekly inspection" and "0.80 in of rain on 2027-05-09" in got[1].reasons[1]
    assert "D(3)(g)" in got[0].citation and "NR 216" in got[0].citation


def test_rain_in_millimetres(tmp_path):
    csv = tmp_path / "rain_mm.csv"
    csv.write_text("date,rain_mm\n2027-05-05,12.6\n2027-05-06,12.7\n", encoding="utf-8")  # 12.7 mm = 0.50 in
    rain = read_rainfall(csv)
    assert rain[D(2027, 5, 6)] == pytest.approx(0.5)
    got = inspection_schedule(D(2027, 5, 3), D(2027, 5, 8), BELGIUM, rain)
    assert [i.date for i in got] == [D(2027, 5, 7)]


def test_bad_rainfall_rows_name_file_and_line(tmp_path):
    csv = tmp_path / "rain.csv"
    csv.write_text(
        "date,rain_in\n2027-05-05,0.1\n2027-05-06,lots\n2027-13-01,0.2\n2027-05-08,-1\n2027-05-05,0.3\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as exc:
        read_rainfall(csv)
    msg = str(exc.value)
    assert str(csv) in msg and "4 bad row(s)" in msg
    assert "line 3: rain_in 'lots' is not a number" in msg
    assert "line 4: date '2027-13-01'" in msg
    assert "line 5: rain_in '-1'" in msg
    assert "line 6: date 2027-05-05 appears twice" in msg


def test_rainfall_header_errors(tmp_path):
    csv = tmp_path / "rain.csv"
    csv.write_text("day,precip\n2027-05-05,0.1\n", encoding="utf-8")
    with pytest.raises(
        InputError, match="needs columns 'date' and one of 'rain_in' or 'rain_mm'.*'day', 'precip'"
    ):
        read_rainfall(csv)
    with pytest.raises(InputError, match="not found"):
        read_rainfall(tmp_path / "missing.csv")


# -------------------------------------------------------------------------------- stabilization and the whole


def _site(jurisdiction: str = "grantsburg"):
    crs = "EPSG:7593" if jurisdiction == "grantsburg" else "EPSG:7613"
    dist = gpd.GeoDataFrame(
        {"id": [1, 2], "phase": [1, 2], "start": ["2027-05-03", "2027-06-01"], "end": ["2027-09-24", None]},
        geometry=[rect(0, 0, 200, 150), rect(200, 0, 100, 150)],
        crs=crs,
    )
    piles = gpd.GeoDataFrame(
        {"id": [1, 2, 3, 4], "days": [45, 60, 25, None], "start": [None, "2027-06-10", None, None]},
        geometry=[rect(10, 10, 20, 20), rect(220, 10, 20, 20), rect(50, 50, 10, 10), rect(400, 10, 10, 10)],
        crs=crs,
    )
    boundary = gpd.GeoDataFrame({"id": [1]}, geometry=[rect(0, 0, 420, 200)], crs=crs)
    return site_from_frames(
        {"site_boundary": boundary, "disturbance": dist, "stockpiles": piles},
        name="Test",
        jurisdiction=jurisdiction,
        project=Project(start=D(2027, 4, 26), end=D(2027, 10, 29), building_permit_days=365),
    )


def test_stabilization_dates():
    deadlines, notes = stabilization_deadlines(_site(), GRANTSBURG)
    got = {d.what.split(" if")[0].split(" (")[0]: d for d in deadlines}
    # disturbance 1 ends 2027-09-24: inactive 7 days -> 2027-10-01 (B(6)(c)[1])
    assert got["Stabilize disturbance area 1"].date == D(2027, 10, 1)
    assert got["Stabilize disturbance area 1"].citation.endswith("B(6)(c)[1]")
    # pile 1 (45 days, no start) lies in disturbance 1 (start 05-03): 05-03 + 30 = 2027-06-02 (B(6)(e))
    assert got["Stabilize stockpile 1"].date == D(2027, 6, 2)
    assert got["Stabilize stockpile 1"].citation.endswith("B(6)(e)")
    # pile 2 has its own start 06-10: + 30 = 2027-07-10
    assert got["Stabilize stockpile 2"].date == D(2027, 7, 10)
    # pile 4: days unknown, outside any disturbance: project start 04-26 + 30 = 2027-05-26
    assert got["Stabilize stockpile 4"].date == D(2027, 5, 26)
    assert "Stabilize stockpile 3" not in got
    assert any("stockpile 3" in n and "25 days" in n for n in notes)
    assert any("disturbance area 2" in n and "no end date" in n for n in notes)


def test_belgium_stabilization_not_specified():
    deadlines, notes = stabilization_deadlines(_site("belgium"), BELGIUM)
    assert deadlines == []
    assert sum("not specified by this chapter" in n for n in notes) == 2


def test_build_schedule_to_dict():
    sched = build_schedule(
        _site(),
        received=D(2026, 12, 22),
        issued=D(2027, 4, 1),
        plan_type="statement",
        notice_of_intent=D(2026, 12, 23),
        bmp_installed=[D(2026, 7, 2)],
    )
    d = sched.to_dict()
    json.dumps(d)  # serializable as is
    kinds = {x["kind"] for x in d["deadlines"]}
    assert kinds == {"review", "permit", "notice", "stabilization", "enforcement"}
    review = next(x for x in d["deadlines"] if x["kind"] == "review")
    assert review["date"] == "2027-01-07" and review["weekday"] == "Thu"
    assert next(x for x in d["deadlines"] if x["kind"] == "permit")["date"] == "2028-03-31"
    assert d["inspections"][0]["date"] == "2027-05-03"  # project start 04-26 + 7
    assert any("day 0" in c for c in d["counting"])
    rows = sched.rows()
    assert [r["date"] for r in rows] == sorted(r["date"] for r in rows)
    assert any("surety" in c for c in d["conditions"])
    # with no notice given, the enforcement periods are notes, Enforcement C's among them
    assert any("without a permit" in n and "Enforcement C" in n for n in build_schedule(_site()).notes)
    assert "| Date |" in sched.to_markdown() and "Plan review decision" in sched.to_text()
    text = " ".join(sched.to_text().split())
    for r in sched.rows():  # every row whole: wrapped in its column, never cut short
        assert " ".join(r["what"].split()) in text


def test_build_schedule_plan_type_from_area():
    # 300 x 150 ft disturbed = 45,000 sq ft > 1 acre: full plan (Grantsburg EPSG:7593 is in US survey ft)
    assert build_schedule(_site()).plan_type == "full"


# ------------------------------------------------------------------------------------------ CLI


@pytest.fixture(scope="module")
def site_dir(tmp_path_factory) -> Path:
    from sitebuilder import make_site

    folder = tmp_path_factory.mktemp("sched") / "site"
    return make_site(
        folder,
        {"site_boundary": [rect(0, 0, 300, 200)], "disturbance": [rect(0, 0, 100, 50)]},
        conf={"project": {"start": D(2027, 5, 3), "end": D(2027, 5, 31)}},
    )


def test_cli_text_json_and_out(site_dir, tmp_path):
    from geosite.cli import cli

    rain = tmp_path / "rain.csv"
    rain.write_text("date,rain_in\n2027-05-06,0.5\n", encoding="utf-8")
    runner = CliRunner()
    res = runner.invoke(cli, ["schedule", str(site_dir), "--received", "2026-12-22", "--rain", str(rain)])
    assert res.exit_code == 0, res.output
    assert "2027-01-07" in res.output and "0.50 in of rain" in res.output
    out = tmp_path / "out"
    res = runner.invoke(
        cli, ["schedule", str(site_dir), "--received", "2026-12-22", "--format", "json", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["plan_type"] == "statement" and data["deadlines"][0]["date"] == "2027-01-07"
    assert json.loads((out / "schedule.json").read_text())["jurisdiction"] == "grantsburg"
    assert "| 2027-01-07 | Thu |" in (out / "schedule.md").read_text()
    res = runner.invoke(cli, ["schedule", str(site_dir), "--out", str(out)])
    assert res.exit_code == 2 and "--overwrite" in res.output


def test_cli_bad_input_exit_2(site_dir, tmp_path):
    from geosite.cli import cli

    bad = tmp_path / "rain.csv"
    bad.write_text("date,rain_in\n2027-05-06,wet\n", encoding="utf-8")
    runner = CliRunner()
    res = runner.invoke(cli, ["schedule", str(site_dir), "--rain", str(bad)])
    assert res.exit_code == 2 and str(bad) in res.output and "line 2" in res.output
    res = runner.invoke(cli, ["schedule", str(site_dir), "--received", "2026-02-30"])
    assert res.exit_code == 2 and "--received" in res.output


def test_a_profile_given_as_a_file_is_the_one_the_schedule_counts_by(tmp_path):
    """--jurisdiction path/to/profile.toml: the schedule counts the review by that file, not by the
    installed profile of the same id (a village that set 20 working days gets 20, not 30)."""
    from sitebuilder import make_site

    from geosite.site import load_site

    text = (ROOT_PROFILES / "grantsburg.toml").read_text(encoding="utf-8")
    custom = tmp_path / "grantsburg_2027.toml"
    custom.write_text(
        text.replace("full_plan_days = { value = 30,", "full_plan_days = { value = 20,"), encoding="utf-8"
    )
    folder = make_site(
        tmp_path / "s",
        {"site_boundary": [rect(0, 0, 400, 400)], "disturbance": [rect(10, 10, 300, 300)]},
        {"name": "t", "jurisdiction": "grantsburg"},
    )
    site = load_site(folder, jurisdiction=str(custom))
    sched = build_schedule(site, received=dt.date(2027, 3, 1), plan_type="full")
    (review,) = [d for d in sched.deadlines if d.kind == "review"]
    assert review.date == dt.date(2027, 3, 29)  # 20 working days after Mon 2027-03-01 (no holidays in March)
