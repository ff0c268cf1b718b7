"""Issue 34: the plan's quantities, the cost estimate and the surety.

A built site whose controls have sizes a reader can check by hand (a fence of 300 ft with two 10-ft
J-hooks, a 50 x 20 ft pad, a 30 x 40 ft trap holding 120 cu yd, an acre of mulch ...), priced by a
unit-price table summed by hand; the price file's and the estimate's bad rows; the surety as each
chapter words it; a submitted estimate that understates a quantity, through ``check``; and the round
trip (the plan ``analyze`` writes declares its quantities, and its own check finds them consistent).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import shutil
import tomllib
import warnings
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import geopandas as gpd
import pytest
from sitebuilder import line, make_site, point, rect

import geosite
from geosite.errors import InputError, ProfileError, SiteValidationError
from geosite.maps.quantities import quantity_table
from geosite.plan import plan_quantities, read_prices
from geosite.plan.build import plan_of_site
from geosite.plan.estimate import estimate
from geosite.plan.quantity_report import csv_text, quantity_report
from geosite.plan.surety import surety_of
from geosite.review import check_submission
from geosite.rules import load_profile

CRS = "EPSG:7593"
ROOT = Path(__file__).resolve().parents[1]
PROFILES = ROOT / "geosite" / "rules" / "profiles"

#: the controls of the built site: (type, geometry, attributes); sizes a reader checks by hand
CONTROLS = [
    ("silt_fence", line((100, 100), (400, 100)), {}),  # 300 ft along the downslope edge
    ("silt_fence", line((100, 100), (100, 110)), {}),  # two 10-ft J-hooks
    ("silt_fence", line((400, 100), (400, 110)), {}),
    ("straw_bales", line((100, 300), (220, 300)), {}),  # 120 ft
    ("tracking_pad", rect(240, 40, 20, 50), {}),  # 50 x 20 ft = 1,000 sq ft = 111.1 SY
    ("sediment_trap", rect(420, 120, 30, 40), {"storage_cy": 120.0, "drainage_acres": 2.0}),  # 1,200 SF
    ("inlet_protection", point(90, 95), {"method": "Type D-HR"}),
    ("inlet_protection", point(410, 95), {}),
    ("erosion_mat", rect(120, 200, 90, 30), {}),  # 2,700 sq ft = 300 SY
    ("stabilization", rect(500, 300, 43.56 * 10, 100), {"method": "mulch"}),  # 43,560 sq ft = 1 acre
    ("diversion", line((100, 500), (350, 500)), {}),  # 250 ft
    ("dewatering", point(300, 150), {}),
    ("ditch_check", point(200, 150), {}),  # a practice geosite does not know
]


def _frame(rows, **extra):
    cols = {"id": list(range(1, len(rows) + 1)), "type": [t for t, _g, _a in rows]}
    for key in ("storage_cy", "drainage_acres", "method"):
        cols[key] = [a.get(key) for _t, _g, a in rows]
    cols.update(extra)
    return gpd.GeoDataFrame(cols, geometry=[g for _t, g, _a in rows], crs=CRS)


def built_site(folder: Path, rows=None, conf=None, **layers) -> Path:
    """A site with two disturbance phases (west and east) and the controls ``rows`` as its bmps."""
    base = {
        "site_boundary": gpd.GeoDataFrame({"id": [1]}, geometry=[rect(0, 0, 1000, 700)], crs=CRS),
        "disturbance": gpd.GeoDataFrame(
            {
                "id": [1, 2],
                "phase": ["1", "2"],
                "start": ["2027-05-03", "2027-07-01"],
                "end": ["2027-06-30", "2027-09-30"],
            },
            geometry=[rect(90, 90, 380, 420), rect(480, 280, 480, 140)],
            crs=CRS,
        ),
        "bmps": _frame(CONTROLS if rows is None else rows),
        **layers,
    }
    project = {"start": dt.date(2027, 5, 3), "end": dt.date(2027, 9, 30)}
    return make_site(folder, base, {"project": project, **(conf or {})})


def plan_of(folder: Path, profile="grantsburg"):
    site = geosite.load_site(folder)
    prof = load_profile(profile) if isinstance(profile, str) else profile
    return plan_of_site(site, prof)


def line_of(q, item, unit, kind=""):
    (x,) = [x for x in q.totals if x.item == item and x.unit == unit and x.kind == kind]
    return x


# --------------------------------------------------------------------------------------------- quantities


def test_quantities_of_controls_of_known_size(tmp_path: Path) -> None:
    q = plan_quantities(plan_of(built_site(tmp_path / "s"))).submitted
    assert line_of(q, "silt_fence", "LF").rounded == 320  # 300 + 10 + 10, J-hooks included
    assert line_of(q, "straw_bales", "LF").rounded == 120
    pad = line_of(q, "tracking_pad", "SY")
    assert pad.amount == pytest.approx(1000.0 / 9.0) and pad.rounded == 111.1
    # its stone: 1,000 sq ft x 12 in (DNR 1057) = 37.04 cu yd x 1.40 tons per cu yd (the profile's source)
    assert line_of(q, "tracking_pad", "TON").amount == pytest.approx(1000.0 / 27.0 * 1.40)
    assert line_of(q, "tracking_pad", "TON").rounded == 51.9
    assert line_of(q, "sediment_trap", "CY").rounded == 120.0  # its own storage_cy
    assert line_of(q, "sediment_trap", "SF").rounded == 1200  # its drawn surface, 30 x 40 ft
    assert line_of(q, "inlet_protection", "EA", "Type D-HR").rounded == 1  # by type
    assert line_of(q, "inlet_protection", "EA").rounded == 1  # the type not given
    assert q.total("inlet_protection", "EA") == 2
    assert line_of(q, "erosion_mat", "SY").rounded == 300.0
    assert line_of(q, "stabilization", "AC", "mulch").rounded == 1.00
    assert line_of(q, "diversion", "LF").rounded == 250
    assert line_of(q, "dewatering", "EA").rounded == 1
    unknown = [x for x in q.totals if x.item == "ditch_check"]
    assert len(unknown) == 1 and unknown[0].unit is None and unknown[0].amount is None
    assert "geosite knows no practice 'ditch_check'" in unknown[0].why
    for x in q.totals:  # each line with its Handbook standard, its unit and how it is measured
        if x.unit is not None:
            assert x.standard.startswith("DNR 10") and x.how


def test_quantities_per_phase(tmp_path: Path) -> None:
    """The fence serves phase 1 (the west polygon), the mulch phase 2 (the east one): per phase they add
    up to the totals."""
    q = plan_quantities(plan_of(built_site(tmp_path / "s"))).submitted
    per = {(x.phase, x.item, x.unit, x.kind): x.rounded for x in q.by_phase}
    assert per[("1", "silt_fence", "LF", "")] == 320
    assert per[("2", "stabilization", "AC", "mulch")] == 1.00
    for t in q.totals:
        if t.amount is not None:
            parts = [x.amount for x in q.by_phase if (x.item, x.unit, x.kind) == (t.item, t.unit, t.kind)]
            assert sum(a for a in parts if a is not None) == pytest.approx(t.amount)


def test_trap_storage_not_assessed_unless_given_or_sized_by_the_profile(tmp_path: Path) -> None:
    """DNR 1063 sizes a trap by its surface: without its storage_cy and without a storage per acre in the
    profile, its CY is not assessed (never zero); a profile giving one sizes it by the acres drained."""
    rows = [("sediment_trap", rect(420, 120, 30, 40), {"drainage_acres": 2.0})]
    folder = built_site(tmp_path / "s", rows)
    q = plan_quantities(plan_of(folder)).submitted
    cy = line_of(q, "sediment_trap", "CY")
    assert cy.amount is None and cy.missing == (1,) and "sediment_trap_storage_cy_per_acre" in cy.why
    assert line_of(q, "sediment_trap", "SF").rounded == 1200
    text = (PROFILES / "grantsburg.toml").read_text()
    text = text.replace(
        "[quantities]\n",
        '[quantities]\nsediment_trap_storage_cy_per_acre = { value = 67.0, source = "a test standard: 67 cu '
        'yd of storage per acre drained" }\n',
    )
    (tmp_path / "sized.toml").write_text(text)
    q = plan_quantities(plan_of(folder, load_profile(tmp_path / "sized.toml"))).submitted
    assert line_of(q, "sediment_trap", "CY").amount == pytest.approx(134.0)  # 67 x 2.0 acres


def test_pad_stone_not_assessed_without_the_profiles_numbers(tmp_path: Path) -> None:
    text = (PROFILES / "grantsburg.toml").read_text()
    cut = text[: text.index("[quantities]")]
    (tmp_path / "bare.toml").write_text(cut)
    rows = [("tracking_pad", rect(240, 40, 20, 50), {})]
    q = plan_quantities(plan_of(built_site(tmp_path / "s", rows), load_profile(tmp_path / "bare.toml")))
    ton = line_of(q.submitted, "tracking_pad", "TON")
    assert ton.amount is None and "tracking_pad_stone_depth_in" in ton.why
    assert line_of(q.submitted, "tracking_pad", "SY").rounded == 111.1


# --------------------------------------------------------------------------------------------- prices


PRICES = """item,unit,price,source,date,kind
silt_fence,LF,2.75,2026 bid tabulation,2026-03-01,
Straw bale barrier,LF,5.00,2026 bid tabulation,2026-03-01,
tracking_pad,SY,45.00,supplier quote,2026-02-10,
sediment_trap,CY,18.50,2026 bid tabulation,2026-03-01,
inlet_protection,EA,150.00,2026 bid tabulation,2026-03-01,
inlet_protection,EA,210.00,2026 bid tabulation,2026-03-01,Type D-HR
erosion_mat,SY,3.10,2026 bid tabulation,2026-03-01,
stabilization,AC,"$1,200.00",2026 bid tabulation,2026-03-01,
diversion,LF,4.25,2026 bid tabulation,2026-03-01,
dewatering,EA,350,2026 bid tabulation,2026-03-01,
"""


def test_estimate_against_a_hand_summed_price_table(tmp_path: Path) -> None:
    (tmp_path / "prices.csv").write_text(PRICES)
    prices = read_prices(tmp_path / "prices.csv")
    plan = plan_of(built_site(tmp_path / "s"))
    est = estimate(plan_quantities(plan).submitted, prices)
    ext = {(x.line.item, x.line.unit, x.line.kind): x.extension for x in est.lines}
    # by hand: quantity as bid x unit price
    assert ext[("silt_fence", "LF", "")] == Decimal("880.00")  # 320 x 2.75
    assert ext[("straw_bales", "LF", "")] == Decimal("600.00")  # 120 x 5.00
    assert ext[("tracking_pad", "SY", "")] == Decimal("4999.50")  # 111.1 x 45.00
    assert ext[("sediment_trap", "CY", "")] == Decimal("2220.00")  # 120.0 x 18.50
    assert ext[("inlet_protection", "EA", "Type D-HR")] == Decimal("210.00")
    assert ext[("inlet_protection", "EA", "")] == Decimal("150.00")
    assert ext[("erosion_mat", "SY", "")] == Decimal("930.00")  # 300.0 x 3.10
    assert ext[("stabilization", "AC", "mulch")] == Decimal("1200.00")  # 1.00 x 1,200.00
    assert ext[("diversion", "LF", "")] == Decimal("1062.50")  # 250 x 4.25
    assert ext[("dewatering", "EA", "")] == Decimal("350.00")
    # the pad's stone and the trap's surface are priced in their item's other unit: not priced again
    covered = {(x.line.item, x.line.unit): x.covered for x in est.lines if x.covered}
    assert covered == {("tracking_pad", "TON"): "SY", ("sediment_trap", "SF"): "CY"}
    assert est.total == Decimal("12602.00")
    assert est.complete  # every item priced and measured (the ditch check has no pay item)


def test_estimate_says_what_it_leaves_out(tmp_path: Path) -> None:
    (tmp_path / "prices.csv").write_text(
        "item,unit,price,source,date\nsilt_fence,LF,2.75,bid tab,2026-03-01\n"
    )
    plan = plan_of(built_site(tmp_path / "s"))
    rep = quantity_report(plan, read_prices(tmp_path / "prices.csv"))
    assert rep.estimate is not None and rep.estimate.total == Decimal("880.00")
    assert not rep.estimate.complete
    left = rep.to_dict()["estimate"]["unpriced"]
    assert "Erosion mat (SY)" in left and "Silt fence (LF)" not in left
    assert "incomplete" in rep.surety.words


def test_no_prices_the_report_says_none_were_given(tmp_path: Path) -> None:
    rep = quantity_report(plan_of(built_site(tmp_path / "s")))
    block = rep.to_dict()
    assert block["estimate"] is None and block["prices"] is None
    assert "No unit prices were given" in block["prices_note"]
    assert "the quantities above are the basis" in rep.surety.words


@pytest.mark.parametrize(
    ("row", "said"),
    [
        ("silt_fence,SY,2.75,bid tab,2026-03-01", "silt_fence is counted in LF, not 'SY'"),
        ("silt_fence,LF,=2*1.5,bid tab,2026-03-01", "is a formula, not a number"),
        ("silt_fence,LF,@SUM(A1),bid tab,2026-03-01", "is a formula, not a number"),
        ("silt_fence,LF,-2.75,bid tab,2026-03-01", "must be a positive number"),
        ("silt_fence,LF,two dollars,bid tab,2026-03-01", "is not a number"),
        ("silt_fence,LF,2.75,,2026-03-01", "source is empty"),
        ("silt_fence,LF,2.75,bid tab,March 2026", "is not a date"),
        ("mobilization,LS,900,bid tab,2026-03-01", "is not a practice with a pay item"),
    ],
)
def test_price_file_bad_rows_name_the_file_and_line(tmp_path: Path, row: str, said: str) -> None:
    p = tmp_path / "prices.csv"
    p.write_text("item,unit,price,source,date\nerosion_mat,SY,3.10,bid tab,2026-03-01\n" + row + "\n")
    with pytest.raises(InputError) as e:
        read_prices(p)
    assert str(p) in str(e.value) and "line 3" in str(e.value) and said in str(e.value)


def test_price_file_item_priced_in_two_units_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "prices.csv"
    p.write_text(
        "item,unit,price,source,date\ntracking_pad,SY,45,quote,2026-02-10\ntracking_pad,TON,38,quote,2026-02-10\n"
    )
    with pytest.raises(SiteValidationError, match="line 3: tracking_pad is priced on line 2 already"):
        read_prices(p)


def test_price_file_header_and_size(tmp_path: Path) -> None:
    p = tmp_path / "prices.csv"
    p.write_text("item,unit,cost,source,date\n")
    with pytest.raises(InputError, match="line 1 .*column 'cost' is not one of.*no column 'price'"):
        read_prices(p)
    p.write_text("item,unit,price,source,date\n" + "silt_fence,LF,1,x,2026-01-01\n" * 50_000)
    with pytest.raises(InputError, match="max_table_bytes"):
        read_prices(p)


def test_village_prices_in_the_profile(tmp_path: Path) -> None:
    """A Village's published table (its profile's [prices], with source and date) prices the plan when the
    user gives none; a price in a unit its item is not counted in is a profile error."""
    text = (PROFILES / "grantsburg.toml").read_text()
    entry = '{ value = 3.00, unit = "LF", source = "Village fee schedule", date = 2026-01-05 }'
    good = text + f"\n[prices]\nsilt_fence = {entry}\n"
    (tmp_path / "priced.toml").write_text(good)
    rep = quantity_report(plan_of(built_site(tmp_path / "s"), load_profile(tmp_path / "priced.toml")))
    assert rep.estimate is not None and rep.estimate.total == Decimal("960.00")  # 320 LF x 3.00
    assert "[prices]" in rep.estimate.origin
    bad = good.replace('unit = "LF"', 'unit = "SY"')
    (tmp_path / "bad.toml").write_text(bad)
    with pytest.raises(ProfileError, match="prices.silt_fence.unit: 'SY', but silt_fence is counted in LF"):
        geosite.load_profile(tmp_path / "bad.toml")


# --------------------------------------------------------------------------------------------- surety


def test_surety_as_each_chapter_words_it(tmp_path: Path) -> None:
    g = surety_of(load_profile("grantsburg"), None)
    assert g.required == "shall" and g.amount is None
    assert "surety bond, irrevocable letter of credit or cash escrow" in g.words
    assert "set by the Village" in g.words and "states no amount" in g.words
    assert "Enforcement F" in g.words  # the Village's cost beyond the deposit is billed
    b = surety_of(load_profile("belgium"), None)
    assert b.required == "may" and "set by the Village Engineer" in b.words and "Enforcement" not in b.words


def test_surety_by_a_published_rule(tmp_path: Path) -> None:
    """Where a Village publishes a rule (here a test profile's: 125 % of the estimate, at least $5,000),
    the amount is the rule's on a complete estimate."""
    text = (PROFILES / "grantsburg.toml").read_text()
    rule = (
        'surety_percent_of_estimate = { value = 125.0, source = "a test resolution" }\n'
        'surety_minimum_usd = { value = 5000.0, source = "a test resolution" }\n'
    )
    i = text.index("surety_amount_by")
    (tmp_path / "rule.toml").write_text(text[:i] + rule + text[i:])
    (tmp_path / "prices.csv").write_text(PRICES)
    plan = plan_of(built_site(tmp_path / "s"), load_profile(tmp_path / "rule.toml"))
    rep = quantity_report(plan, read_prices(tmp_path / "prices.csv"))
    assert rep.surety.amount == Decimal("15752.50")  # 1.25 x 12,602.00 > 5,000
    assert "$15,752.50" in rep.surety.words


# --------------------------------------------------------------------------------------------- outputs


def test_quantities_csv_is_safe_in_a_spreadsheet(tmp_path: Path) -> None:
    rows = [("inlet_protection", point(90, 95), {"method": '=HYPERLINK("http://x","y")'})]
    rep = quantity_report(plan_of(built_site(tmp_path / "s", rows)))
    table = list(csv.DictReader(io.StringIO(csv_text(rep))))
    (row,) = [r for r in table if r["phase"] == "all"]
    assert row["kind"].startswith("'=") and row["description"].startswith("Storm drain")
    assert row["quantity"] == "1.0" and row["unit"] == "EA"


def test_quantity_table_on_the_sheet(tmp_path: Path) -> None:
    """The construction sheet's rows: one per pay line, per phase where the plan has two."""
    plan = plan_of(built_site(tmp_path / "s"))
    rows = quantity_table(SimpleNamespace(site_plan=plan))
    assert rows[1] == "(c) QUANTITIES, PAY ITEMS (as submitted)"
    assert rows[2].split()[-3:] == ["ph", "2", "total"] or rows[2].endswith("total")
    (fence,) = [r for r in rows if r.startswith("Silt fence ")]
    assert fence.split()[-3:] == ["320", "-", "320"]  # phase 1, phase 2, total
    (mulch,) = [r for r in rows if r.startswith("Temporary stabilization, mulch")]
    assert mulch.split()[-3:] == ["-", "1.00", "1.00"]
    assert any(r.startswith("ditch check") and r.split()[-1] == "n.a." for r in rows)


# --------------------------------------------------------------------------------------------- check


def _check(folder: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return check_submission(folder)


def _estimate_findings(checked):
    return [f for f in checked.findings if f.rule == "declared_quantities"]


def test_check_holds_an_understated_estimate_for_the_village(tmp_path: Path) -> None:
    rows = [
        {"item": "silt_fence", "unit": "LF", "quantity": 250},  # 320 measured: 70 LF (21.9 %) under
        {"item": "Straw bale barrier", "unit": "LF", "quantity": 118},  # 120 measured: within 5 %
        {"item": "tracking_pad", "unit": "SY", "quantity": 111.1},
        {"item": "inlet_protection", "unit": "EA", "quantity": 2},
        {"item": "erosion_mat", "unit": "AC", "quantity": 0.06},  # mat is counted in SY: not compared
        {"item": "mobilization", "unit": "LS", "quantity": 1},  # not a practice: not compared
    ]
    folder = built_site(tmp_path / "s", conf={"estimate": rows})
    found = _estimate_findings(_check(folder))
    decide = [f for f in found if f.status == "inspector_decision"]
    fence = next(f for f in decide if f.values["item"] == "silt_fence")
    assert fence.values["declared"] == 250 and fence.values["measured"] == 320
    assert fence.values["under_pct"] == pytest.approx(21.9)
    assert "gives 250 LF" in fence.message and "measure 320 LF" in fence.message
    assert fence.citation == "D(2)" and fence.geometry is not None and fence.feature_ids == [1, 2, 3]
    # items the estimate leaves out are understated too (a line of 0), each with its figure
    missing = {f.values["item"] for f in decide}
    assert {"diversion", "dewatering", "sediment_trap", "stabilization", "erosion_mat"} <= missing
    assert "straw_bales" not in missing and "tracking_pad" not in missing
    infos = " ".join(f.message for f in found if f.status == "info")
    assert "erosion mat in AC: not compared (erosion_mat is counted in SY)" in infos
    assert "'mobilization'" in infos
    covered = next(f for f in found if f.status == "pass")
    assert "straw bale barrier 120 LF measured, 118 declared" in covered.message
    assert not any(f.status == "fail" for f in found)  # the chapter asks for no estimate


def test_check_reads_an_estimate_csv_inside_the_folder_only(tmp_path: Path) -> None:
    folder = built_site(tmp_path / "s", conf={"declared": {"estimate": "estimate.csv"}})
    (folder / "estimate.csv").write_text("item,unit,quantity\nsilt_fence,LF,320\n")
    fence = [f for f in _estimate_findings(_check(folder)) if f.values.get("item") == "silt_fence"]
    assert not fence  # covered (the pass lists it)
    (folder / "estimate.csv").write_text('item,unit,quantity\nsilt_fence,LF,"=1000*1"\n')
    with pytest.raises(InputError, match=r"estimate.csv line 2: quantity '=1000\*1' is a formula"):
        _check(folder)
    outside = built_site(tmp_path / "t", conf={"declared": {"estimate": "../outside.csv"}})
    (tmp_path / "outside.csv").write_text("item,unit,quantity\nsilt_fence,LF,320\n")
    with pytest.raises(InputError, match="leads outside the submission folder"):
        _check(outside)
    both = built_site(tmp_path / "u", conf={"declared": {"estimate": "e.csv"}, "estimate": [{"item": "x"}]})
    with pytest.raises(SiteValidationError, match="not both"):
        _check(both)


def test_round_trip_the_plan_declares_its_quantities(tmp_path: Path) -> None:
    """The plan folder ``analyze`` writes declares its quantities as its estimate (the pad: 50 ft along the
    16-ft drive, 800 sq ft = 88.9 SY, its stone 800 / 27 x 1.40 = 41.5 TON); its own check finds them
    consistent, and the same folder with the fence cut by a fifth is left to the Village."""
    from test_round_trip import BUILT, run_plan

    folder = BUILT["small_lot_4pct"](tmp_path / "lot")
    result, checked = run_plan(folder, tmp_path / "out")
    plan = tmp_path / "out" / "plan"
    conf = tomllib.loads((plan / "site.toml").read_text())
    rows = {(r["item"], r["unit"]): r["quantity"] for r in conf["estimate"]}
    assert rows[("tracking_pad", "SY")] == 88.9 and rows[("tracking_pad", "TON")] == 41.5
    assert result.report["quantities"]["proposed"]["totals"]
    (ok,) = _estimate_findings(checked)
    assert ok.status == "pass"
    fence = rows[("silt_fence", "LF")]
    moved = tmp_path / "cut"
    shutil.copytree(plan, moved)
    text = (
        (moved / "site.toml")
        .read_text()
        .replace(
            f'item = "silt_fence"\nunit = "LF"\nquantity = {fence!r}',
            f'item = "silt_fence"\nunit = "LF"\nquantity = {round(fence * 0.8)}',
        )
    )
    (moved / "site.toml").write_text(text)
    again = _estimate_findings(_check(moved))
    (cut,) = [f for f in again if f.status == "inspector_decision"]
    assert cut.values["measured"] == fence and cut.values["declared"] == round(fence * 0.8)
    assert _check(moved).verdict in ("inspector_decision", "incomplete")


def test_cli_refuses_a_bad_price_file_before_any_work(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from geosite.cli import cli

    folder = built_site(tmp_path / "s")
    bad = tmp_path / "prices.csv"
    bad.write_text("item,unit,price,source,date\nsilt_fence,LF,=A1*2,bid tab,2026-03-01\n")
    for command in ("analyze", "check"):
        out = tmp_path / f"out-{command}"
        r = CliRunner().invoke(cli, [command, str(folder), "--out", str(out), "--prices", str(bad)])
        assert r.exit_code == 2, r.output
        assert "line 2: price '=A1*2' is a formula" in r.output and not out.exists()


def test_check_report_shows_the_quantities_escaped(tmp_path: Path) -> None:
    """report.html and findings.json carry the submitted quantities; a kind is the submission's text."""
    from geosite.review.html import quantities_html

    rows = [("inlet_protection", point(90, 95), {"method": "<img src=x onerror=alert(1)>"})]
    checked = _check(built_site(tmp_path / "s", rows))
    block = checked.to_dict()["quantities"]
    assert block["plan"] == "submitted" and block["submitted"]["totals"][0]["quantity"] == 1.0
    page = quantities_html(block)
    assert "<img" not in page and "&lt;img src=x" in page
