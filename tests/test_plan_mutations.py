"""Mutation test of ``geosite check``: a plan that leaves out what a requirement that applies asks for never
passes that requirement, and its verdict is never pass.

Each site (the two bundled samples and built sites of tests/test_round_trip.py) is analyzed once; its plan
folder passes its own check (no failing finding, and every requirement a mutant below targets passes, or
stands as the case says: the pile by the road is the inspector's decision, the map not assessed without
sheets).
Each mutant is a copy of that plan with one thing a requirement asks for taken out or moved away (the
case's comment names the section of docs/rules.md / the chapter that asks for it); check of the mutant
must judge that requirement ``fail`` (or ``not_assessed`` where the text leaves the inspector unable to
tell) and give a verdict other than pass.
"""

from __future__ import annotations

import shutil
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest
from mutations import (
    Mutation,
    bmps_removed_after_start,
    both,
    declare,
    drop,
    drop_nearest,
    narrow_pad,
    project,
    retype,
    set_column,
    shift,
    shorten_pad,
    stabilized,
    turn_down,
    undeclare,
    undeclare_table,
)
from test_round_trip import BUILT, SAMPLES

from geosite.errors import InputError
from geosite.review.check import check_submission

#: the sites: the bundled samples, and built sites of tests/test_round_trip.py
SITES = {
    **{p.name: p for p in SAMPLES},
    **{
        k: BUILT[k]
        for k in (
            "big_site_basins",
            "channel_through",
            "channel_through_basins",
            "pile_by_the_road",
            "belgium_dewatering",
            "steep_lot_15pct",
        )
    },
}
FAIL = ("fail",)
UNDECIDED = ("fail", "not_assessed", "incomplete")
EDGE_FENCE = ("silt_fence",)
#: check refused the submission (an InputError naming the problem): not a pass either
REFUSED = "refused"


@dataclass(frozen=True)
class Case:
    """One mutant: the site, what is done to its plan, the rule whose finding must turn, the statuses it
    may turn to, and (for a known bug in check) the reason the case is expected to fail."""

    site: str
    what: str
    mutate: Mutation
    rule: str
    statuses: tuple[str, ...] = FAIL
    bug: str | None = None
    own: str | None = "pass"

    @property
    def id(self) -> str:
        return f"{self.site}-{self.what}"


CASES = [
    # --- grantsburg_lot7 (plan statement, 0.60 acres)
    # B(6)(c)[3]: fences along all sideslope and downslope sides
    Case("grantsburg_lot7", "no_silt_fence", drop(types=EDGE_FENCE), "filter_fence_submitted"),
    Case(
        "grantsburg_lot7",
        "no_downslope_fence",
        drop(types=EDGE_FENCE, practice="downslope edge"),
        "filter_fence_submitted",
    ),
    # DNR 1056 (design criteria, binding on every BMP): slope above a fence within the table's length
    Case(
        "grantsburg_lot7",
        "no_interior_rows_nor_their_stand_ins",
        both(
            drop(types=EDGE_FENCE, practice="row on the contour"),
            drop(types=("stabilization", "erosion_mat"), pile=False),
        ),
        "filter_fence_slope_length",
    ),
    # B(6)(e): a fence on the downslope side of piles
    Case("grantsburg_lot7", "no_pile_fence", drop(types=EDGE_FENCE, pile=True), "stockpile_fence"),
    # B(6)(e): piles kept over 30 days stabilized
    Case(
        "grantsburg_lot7",
        "no_pile_stabilization",
        drop(types=("stabilization",), pile=True),
        "stockpile_stabilization",
    ),
    # B(3): tracking pad at the entrance
    Case("grantsburg_lot7", "no_tracking_pad", drop(types=("tracking_pad",)), "tracking_pad"),
    # B(4): all storm drain inlets protected
    Case(
        "grantsburg_lot7",
        "no_protection_at_inlet_1",
        drop_nearest("inlet_protection", "storm_inlets"),
        "inlet_protection_submitted",
    ),
    Case(
        "grantsburg_lot7",
        "inlet_protection_40ft_off_the_inlets",
        shift(bmp_type="inlet_protection", dx=40.0),
        "inlet_protection_submitted",
    ),
    Case(
        "grantsburg_lot7",
        "no_inlet_protection",
        drop(types=("inlet_protection",)),
        "inlet_protection_submitted",
    ),
    # B(6)(c)[1]: inactive ground stabilized within 7 days
    Case("grantsburg_lot7", "stabilized_30_days_late", stabilized(30), "inactive_stabilization_submitted"),
    Case(
        "grantsburg_lot7",
        "stabilized_before_the_work_starts",
        stabilized(-200),
        "inactive_stabilization_submitted",
        UNDECIDED,
    ),
    Case(
        "grantsburg_lot7",
        "no_stabilized_dates",
        stabilized(None),
        "inactive_stabilization_submitted",
        UNDECIDED,
    ),
    # B(6)(f): temporary BMPs removed after the site has been stabilized ("shown by each bmps feature's
    # remove date, or the plan's bmp_removal provision")
    Case(
        "grantsburg_lot7",
        "bmps_removed_30_days_into_the_work",
        bmps_removed_after_start(30),
        "bmp_removal_submitted",
    ),
    # plan statement item B(7): stabilization description with its schedule
    Case(
        "grantsburg_lot7",
        "no_declared_stabilization",
        undeclare("stabilization"),
        "plan_content.statement.B_7",
        UNDECIDED,
    ),
    # B(1): dewatering declared, the pumped water treated (a dewatering practice, trap or basin)
    Case(
        "grantsburg_lot7",
        "dewatering_declared_nothing_treats_it",
        both(project(dewatering=True), drop(types=("sediment_trap", "sediment_basin", "dewatering"))),
        "dewatering_submitted",
        own=None,  # the plan declares no dewatering: B(1) asks nothing of it
    ),
    # --- belgium_commons (full plan, 16.46 acres; the Handbook's standards are the design criteria)
    Case(
        "belgium_commons",
        "no_basins",
        drop(types=("sediment_basin", "sediment_trap")),
        "sediment_basin_submitted",
    ),
    # the sample's drives declare their pads (pad_length_ft): the mutant takes those out too
    Case(
        "belgium_commons",
        "no_tracking_pads",
        both(drop(types=("tracking_pad",)), set_column("access_drives", "pad_length_ft", None)),
        "tracking_pad",
    ),
    # --- big_site_basins (10.61 acres: B(6)(c)[2] only)
    Case(
        "big_site_basins",
        "no_basin",
        drop(types=("sediment_basin", "sediment_trap")),
        "sediment_basin_submitted",
    ),
    Case(
        "big_site_basins",
        "basin_relabelled_a_trap",
        retype("sediment_basin", "sediment_trap"),  # 16.68 acres drain there: over DNR 1063's 5
        "sediment_basin_submitted",
    ),
    # the basin taken out and the ground dated stabilized before its work starts (0 acres "at one time")
    Case(
        "big_site_basins",
        "no_basin_and_stabilized_before_the_work_starts",
        both(stabilized(-200), drop(types=("sediment_basin", "sediment_trap"))),
        "sediment_basin_submitted",
    ),
    Case(
        "big_site_basins",
        "basin_moved_300ft_upslope",
        shift(bmp_type="sediment_basin", dy=300.0),
        "sediment_basin_submitted",
    ),
    # B(6)(a): sheetflow from more than 10,000 sq ft diverted
    Case(
        "big_site_basins",
        "diversion_60ft_downslope_into_the_work",
        shift(bmp_type="diversion", dy=-60.0),
        "sheetflow_diversion_submitted",
    ),
    # A(1)-(3): a full plan for one acre or more, not a plan statement
    Case(
        "big_site_basins", "declared_a_plan_statement", declare(plan_type="statement"), "plan_type_submitted"
    ),
    # full plan A(3)(d): the schedule, with each BMP's installation
    Case(
        "big_site_basins",
        "no_install_dates",
        set_column("bmps", "install", None),
        "plan_content.full.A_3_d.schedule",
        UNDECIDED,
    ),
    # full plan A(1)(j): name, address and telephone of the person responsible for maintenance of BMPs
    Case(
        "big_site_basins",
        "no_maintainer",
        undeclare_table("maintainer"),
        "plan_content.full.A_1_j",
        UNDECIDED,
    ),
    Case(
        "big_site_basins",
        "no_stabilized_dates",
        stabilized(None),
        "inactive_stabilization_submitted",
        UNDECIDED,
    ),
    Case("big_site_basins", "no_diversion", drop(types=("diversion",)), "sheetflow_diversion_submitted"),
    # full plan item A(3)(e)-style: provisions for maintenance of BMPs during construction
    Case(
        "big_site_basins",
        "no_declared_maintenance",
        undeclare("maintenance"),
        "plan_content.full.A_3_e",
        UNDECIDED,
    ),
    # --- channel_through (1.10 acres, a stream through the work)
    # B(6)(c)[3]: fences along the channel edges
    Case(
        "channel_through",
        "no_channel_edge_fences",
        drop(types=EDGE_FENCE, practice="channel edge"),
        "channel_fence_submitted",
    ),
    Case("channel_through", "no_diversions", drop(types=("diversion",)), "sheetflow_diversion_submitted"),
    # B(6)(a): channelized inflow diverted, otherwise the channel protected as B(6)(c)[3]
    Case(
        "channel_through",
        "no_diversion_nor_channel_fences",
        both(drop(types=("diversion",)), drop(types=EDGE_FENCE, practice="channel edge")),
        "channelized_diversion_submitted",
    ),
    # --- channel_through_basins (10.28 acres across the stream)
    Case(
        "channel_through_basins",
        "no_basin",
        drop(types=("sediment_basin", "sediment_trap")),
        "sediment_basin_submitted",
    ),
    Case(
        "channel_through_basins",
        "no_diversion_nor_channel_fences",
        both(drop(types=("diversion",)), drop(types=EDGE_FENCE, practice="channel edge")),
        "channelized_diversion_submitted",
    ),
    # --- pile_by_the_road (a pile 15 ft from the road below it)
    # B(6)(e) "wherever possible": closer than 25 ft is the inspector's call only with the plan's more BMPs
    Case(
        "pile_by_the_road",
        "no_bmps_at_the_pile",
        drop(pile=True),
        "stockpile_setback",
        own="inspector_decision",
    ),
    Case(
        "pile_by_the_road",
        "no_setback_reason",
        set_column("stockpiles", "setback_reason", None),
        "stockpile_setback",
        own="inspector_decision",
    ),
    Case(
        "pile_by_the_road",
        "downslope_fence_40ft_upslope",
        shift(bmp_type="silt_fence", practice="downslope edge", dy=40.0),
        "filter_fence_submitted",
    ),
    Case("pile_by_the_road", "pad_25ft_of_50", shorten_pad(25.0), "tracking_pad"),
    # --- belgium_dewatering (Belgium: the Handbook's standards)
    Case("belgium_dewatering", "no_tracking_pad", drop(types=("tracking_pad",)), "tracking_pad"),
    Case(
        "belgium_dewatering",
        "no_downslope_fence",
        drop(types=EDGE_FENCE, practice="downslope edge"),
        "filter_fence_submitted",
    ),
    # --- steep_lot_15pct (1.72 acres on 15 %)
    Case(
        "steep_lot_15pct",
        "downslope_fence_40ft_upslope",
        shift(bmp_type="silt_fence", practice="downslope edge", dy=40.0),
        "filter_fence_submitted",
    ),
    Case(
        "steep_lot_15pct",
        "no_sideslope_fences",
        drop(types=EDGE_FENCE, practice="sideslope edge"),
        "filter_fence_submitted",
    ),
    Case(
        "steep_lot_15pct",
        "downslope_fence_40ft_down_off_the_site",
        shift(bmp_type="silt_fence", practice="downslope edge", dy=-40.0),
        "filter_fence_submitted",
    ),
    Case(
        "steep_lot_15pct",
        # DNR 1056's ends turned upslope. Dropping analyze's J-hooks is no mutant here: its side fences run
        # up the 15 % slope into their ends, which are turned upslope by their own line (the reading in
        # geosite/controls/fence_ends.py); hooks that run down the slope from the ends are
        "fence_ends_turned_downslope",
        turn_down(bmp_type="silt_fence", practice="J-hook"),
        "filter_fence_submitted",
    ),
    Case("steep_lot_15pct", "pad_60ft_up_the_drive", shift(bmp_type="tracking_pad", dy=60.0), "tracking_pad"),
    Case("steep_lot_15pct", "pad_25ft_of_50", shorten_pad(25.0), "tracking_pad"),
    Case("steep_lot_15pct", "pad_half_the_drive_wide", narrow_pad(0.5), "tracking_pad"),
    Case("steep_lot_15pct", "no_pile_fence", drop(types=EDGE_FENCE, pile=True), "stockpile_fence"),
    Case(
        "steep_lot_15pct",
        "pile_fence_40ft_upslope_of_the_pile",
        shift(bmp_type="silt_fence", practice="pile's downslope side", dy=40.0),
        "stockpile_fence",
    ),
    Case(
        "steep_lot_15pct",
        "no_stabilized_dates",
        stabilized(None),
        "inactive_stabilization_submitted",
        UNDECIDED,
    ),
    Case(
        "steep_lot_15pct",
        "no_pile_stabilization",
        drop(types=("stabilization",), pile=True),
        "stockpile_stabilization",
    ),
    # full plan A(1): the existing site map at 1 in = 100 ft, declared as a sheet the folder does not hold
    Case(
        "steep_lot_15pct",
        "declared_map_sheet_missing",
        declare(submitted_map="existing_site_map.pdf", map_scale_ft_per_in=100.0),
        "plan_content.full.A_1.map",
        (*UNDECIDED, REFUSED),
        own="not_assessed",  # no sheets rendered (maps=False): the map is not assessed on the own plan
    ),
    # full plan A(2): the plan of final conditions, declared as a sheet the folder does not hold
    Case(
        "steep_lot_15pct",
        "declared_final_conditions_sheet_missing",
        declare(final_conditions="final_conditions.pdf"),
        "plan_content.full.A_2",
        (*UNDECIDED, REFUSED),
    ),
]


@pytest.fixture(scope="module")
def plans(own_plans):
    """Each site's plan folder and its own check, analyzed once for the session (conftest ``own_plans``,
    which test_round_trip's own-check tests read too)."""

    def get(site: str):
        assert site in SITES, site
        _result, out, checked = own_plans(site)
        return out / "plan", checked

    return get


def statuses(checked, rule: str) -> list[str]:
    return [f.status for f in checked.findings if f.rule == rule]


def said(checked, rule: str) -> str:
    return "\n".join(
        f"{f.status} {f.citation} {f.rule}: {f.message}" for f in checked.findings if f.rule == rule
    )


@pytest.mark.parametrize("site", sorted(SITES))
def test_own_plan_passes_what_its_mutants_take_away(site: str, plans) -> None:
    _plan, checked = plans(site)
    assert not checked.failed, "\n".join(f"{f.citation} {f.rule}: {f.message}" for f in checked.failed)
    for rule, own in sorted({(c.rule, c.own) for c in CASES if c.site == site}):
        got = statuses(checked, rule)
        if own is None:
            assert not got, said(checked, rule)
        else:
            assert got and set(got) == {own}, said(checked, rule) or f"no {rule} finding"


def _param(case: Case):
    marks = [pytest.mark.xfail(strict=True, reason=case.bug)] if case.bug else []
    return pytest.param(case, id=case.id, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_a_plan_without_what_a_requirement_asks_never_passes_it(case: Case, plans, tmp_path: Path) -> None:
    plan, _own = plans(case.site)
    mutant = tmp_path / "plan"
    shutil.copytree(plan, mutant)
    case.mutate(mutant)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            checked = check_submission(mutant)
    except InputError as exc:  # the submission refused, with the problem named: never a pass
        assert REFUSED in case.statuses, str(exc)
        return
    got = statuses(checked, case.rule)
    assert got, f"no {case.rule} finding on the mutant"
    assert "pass" not in got and set(got) & set(case.statuses), said(checked, case.rule)
    assert checked.verdict != "pass"
