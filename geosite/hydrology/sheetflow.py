"""TR-55 sheet flow (USDA NRCS 1986, Urban Hydrology for Small Watersheds, ch. 3): Manning's n by land
cover, travel time and mean velocity. Pure arithmetic on feet, inches and ft/ft.
"""

from __future__ import annotations

from geosite.errors import InputError

#: Maximum sheet flow length TR-55 allows, ft (USDA NRCS 1986, TR-55 ch. 3; many agencies use 100 ft).
TR55_MAX_SHEETFLOW_LENGTH_FT = 300.0

#: Manning's roughness for sheet flow, by land cover: USDA NRCS (1986) Urban Hydrology for Small
#: Watersheds, TR-55, Table 3-1 ("Roughness coefficients (Manning's n) for sheet flow"): smooth surfaces
#: (concrete, asphalt, gravel, bare soil) 0.011; fallow, no residue 0.05; cultivated soils, residue
#: cover > 20 % 0.17; short-grass prairie 0.15; dense grasses 0.24; woods, light underbrush 0.40; woods,
#: dense underbrush 0.80. ("bare_soil" takes the fallow value, as DESIGN.md does.)
MANNING_N_SHEETFLOW: dict[str, float] = {
    "pavement": 0.011,
    "bare_soil": 0.05,
    "short_grass": 0.15,
    "crops": 0.17,
    "dense_grass": 0.24,
    "light_woods": 0.40,
    "dense_woods": 0.80,
}


# ---------------------------------------------------------------------------------------------------
# TR-55 sheet flow


def manning_n(land_cover: str | float) -> float:
    """Manning's n for sheet flow: a number, or a land cover name from :data:`MANNING_N_SHEETFLOW`."""
    if isinstance(land_cover, str):
        try:
            return MANNING_N_SHEETFLOW[land_cover]
        except KeyError:
            valid = ", ".join(MANNING_N_SHEETFLOW)
            raise InputError(
                f"unknown land cover {land_cover!r} for Manning's n; use one of: {valid}"
            ) from None
    n = float(land_cover)
    if not n > 0:
        raise InputError(f"Manning's n must be positive, got {land_cover}")
    return n


def sheetflow_travel_time_hr(
    manning: str | float, length_ft: float, p2_in: float, slope_ftft: float
) -> float:
    """TR-55 sheet flow travel time, hours: Tt = 0.007 (n L)^0.8 / (P2^0.5 s^0.4), with L capped at
    300 ft (TR-55's limit for sheet flow; beyond it flow is shallow concentrated). ``p2_in`` is the
    24-hour rainfall depth, in; TR-55 uses the 2-year storm: state which depth you pass.
    """
    n = manning_n(manning)
    if not length_ft > 0 or not p2_in > 0 or not slope_ftft > 0:
        raise InputError(
            f"sheet flow needs positive length, rainfall and slope (got L={length_ft} ft, P={p2_in} in, "
            f"s={slope_ftft})"
        )
    L = min(float(length_ft), TR55_MAX_SHEETFLOW_LENGTH_FT)
    return 0.007 * (n * L) ** 0.8 / (p2_in**0.5 * slope_ftft**0.4)


def sheetflow_velocity_fps(manning: str | float, length_ft: float, p2_in: float, slope_ftft: float) -> float:
    """Mean TR-55 sheet flow velocity, ft/s: V = L / (3600 Tt), L capped at 300 ft (so the velocity is
    that of the first 300 ft of a longer sheet flow path). See :func:`sheetflow_travel_time_hr`.
    """
    L = min(float(length_ft), TR55_MAX_SHEETFLOW_LENGTH_FT)
    return L / (3600.0 * sheetflow_travel_time_hr(manning, length_ft, p2_in, slope_ftft))
