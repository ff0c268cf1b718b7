"""The numbers a test passes to a library function, read from a bundled profile (never written in the test
as if they were the library's defaults): Grantsburg's, the profile the closed-form tests were written
against.
"""

from __future__ import annotations

from typing import Any

from geosite.rules import Profile, load_profile

GRANTSBURG: Profile = load_profile("grantsburg")


def fence_kw(profile: Profile = GRANTSBURG, **overrides: Any) -> dict[str, Any]:
    """The keyword arguments of :func:`geosite.controls.filter_fence` from ``profile``, with hooks (DNR
    1056's ends turned upslope) and ``overrides`` on top.
    """
    kw: dict[str, Any] = {
        "tolerance_deg": float(profile.control("fence_sideslope_tolerance_deg")),
        "min_run_ft": float(profile.control("fence_min_run_ft")),
        "hook_ft": float(profile.control("fence_hook_ft")),
        "table": profile.control("fence_max_slope_length_ft"),
        "channel_threshold_sqft": float(profile.required("terrain", "channel_threshold_sqft")),
        "channel_offset_ft": float(profile.control("fence_channel_offset_ft")),
        "row_clearance_ft": float(profile.control("fence_row_clearance_ft")),
        "row_min_length_ft": float(profile.control("fence_row_min_length_ft")),
    }
    kw.update(overrides)
    return kw


def steep_pct(profile: Profile = GRANTSBURG) -> float:
    """The village's steep slope, percent (``[terrain] steep_slope_pct``)."""
    return float(profile.required("terrain", "steep_slope_pct"))


def state_steep_pct(profile: Profile = GRANTSBURG) -> float:
    """The state rules' steep slope, percent (``[terrain] state_steep_slope_pct``)."""
    return float(profile.required("terrain", "state_steep_slope_pct"))


def mmu_sqft(profile: Profile = GRANTSBURG) -> float:
    """The steep-slope mapping unit, sq ft (``[terrain] steep_min_area_sqft``)."""
    return float(profile.required("terrain", "steep_min_area_sqft"))


def channel_sqft(profile: Profile = GRANTSBURG) -> float:
    """The contributing area of a channel cell, sq ft (``[terrain] channel_threshold_sqft``)."""
    return float(profile.required("terrain", "channel_threshold_sqft"))
