"""What every practice reads while it places and judges: the :class:`Context` of one site's controls stage.

The context holds the profile, the site's gate and the requirements decided once for the site
(:func:`geosite.rules.decide`), the measurements, the site and its submitted ``bmps`` layer, the DEM and
its flow grid (:class:`Flow`, None without a DEM), the outcomes of the practices dispatched before, and
the progress callback. :meth:`Context.finding` makes a finding whole where it is born: its requirement's
citation, section and words (the profile's, never code's), the submitted value, its place (geometry and
layer) and, for one left undecided, what would settle it; then passed through the gate.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from geosite.rules import Finding, feature_applies

if TYPE_CHECKING:
    import geopandas as gpd

    from geosite.grid import Dem
    from geosite.hydrology import FlowGrid
    from geosite.rules import Decision, Gate, Profile, Requirement, Trigger
    from geosite.site import Site, SiteMeasurements


@dataclass
class Outcome:
    """What one practice found for one requirement: its layers (site CRS), its report.json entries, its
    findings, and what later practices may read of it (``shared``: e.g. whether submitted basins serve every
    outlet, which the fences' route turns on).
    """

    practice: str
    requirement: str
    layers: dict[str, gpd.GeoDataFrame] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    shared: dict[str, Any] = field(default_factory=dict)
    #: the controls proposed, one row each (site CRS): ``type`` (the practice built), ``practice`` (what it
    #: is, in words), ``standard``, ``geometry``, and the practice's own attributes (``side``, ``pile_id``,
    #: ``drive_id``, ``drainage_acres``, ``surface_sqft``, ``stand_in_for`` ...)
    proposed: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Flow:
    """The DEM and its flow grid (both in the DEM's CRS), for the practices that need where flow goes."""

    dem: Dem
    fg: FlowGrid

    def on_site(self, site: Site) -> Any:
        """The DEM, its flow grid and the site's cells on it (what fence coverage follows).

        Parameters
        ----------
        site : Site
            The site whose boundary bounds the flow followed.

        Returns
        -------
        geosite.controls.SiteFlow
            The flow on the site.
        """
        from geosite.controls import SiteFlow

        return SiteFlow(self.dem, self.fg, site.mask_on(self.dem, "site"))


@dataclass(frozen=True)
class Catalogue:
    """What the context knows of the practices: the ``bmps`` types of each family (a requirement for a
    sediment barrier counts every barrier practice's features) and each practice's name by family.
    """

    types: Mapping[str, tuple[str, ...]]
    #: the ``bmps`` types that stay once the ground is stabilized (not temporary)
    kept: tuple[str, ...] = ()

    def of(self, *families: str) -> tuple[str, ...]:
        """The ``bmps`` types of the practices of ``families``."""
        return tuple(t for f in families for t in self.types.get(f, ()))


@dataclass
class Context:
    """One site's controls stage: what every placement reads, and the outcomes so far (see the module
    notes).
    """

    profile: Profile
    gate: Gate
    m: SiteMeasurements
    decisions: Mapping[str, Decision]
    site: Site
    catalogue: Catalogue
    flow: Flow | None = None
    bmps: gpd.GeoDataFrame | None = None
    step: Callable[[str], None] = lambda _s: None
    #: the outcomes so far, by requirement id
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    #: per-layer state the practices keep for the site (the per-feature engine's measures)
    kept: dict[str, Any] = field(default_factory=dict)

    def control(self, key: str) -> Any:
        """A ``[controls]`` number (an error naming the profile when it is missing)."""
        return self.profile.control(key)

    def requirement(self, key: str) -> Requirement | None:
        """The profile's requirement whose practice key is ``key`` (None when the chapter asks for none)."""
        return self.profile.practice(key)

    def decision(self, q: Requirement) -> Decision:
        """The site's decision on requirement ``q``."""
        return self.decisions[q.id]

    def open(self, q: Requirement | None) -> bool | None:
        """Whether the gate lets requirement ``q`` apply here (the chapter, and its scope)."""
        return self.gate.open(q.gate if q else None)

    def acres_at_once(self) -> float | None:
        """The most ground disturbed at one time, acres (None when not measured)."""
        value = self.m.values.get("disturbed.max_at_one_time_acres")
        return None if value is None else float(value)

    def submitted(self, *families: str, types: tuple[str, ...] = ()) -> gpd.GeoDataFrame | None:
        """The submitted ``bmps`` features of the practices of ``families`` (and of ``types``); None when the
        plan has no ``bmps`` layer or no ``type`` column.
        """
        from geosite.controls import bmps_of

        return bmps_of(self.bmps, self.catalogue.of(*families) + types)

    def outcome_of(self, practice: str) -> Outcome | None:
        """The outcome of the first requirement practice ``practice`` served before this one (None when it
        served none).
        """
        return next((o for o in self.outcomes.values() if o.practice == practice), None)

    def is_sliver(self, g: Any, crs: Any = None) -> bool:
        """Whether ``g`` (site CRS, or ``crs``) is a sliver by the profile's ``[submission]`` measure (under
        ``sliver_area_sqft``, or a mean width 2 x area / perimeter under ``sliver_width_ft``): what ``check``
        calls a digitizing error.
        """
        from geosite.units import feet_per_crs_unit

        fpu = self.site.ft_per_unit if crs is None else feet_per_crs_unit(crs, "stand-in")
        area, perim = g.area * fpu**2, g.length * fpu
        amin = self.profile.value("submission", "sliver_area_sqft")
        wmin = self.profile.value("submission", "sliver_width_ft")
        return (amin is not None and area < float(amin)) or (
            wmin is not None and perim > 0 and 2 * area / perim < float(wmin)
        )

    def applies_to(self, q: Requirement, values: Mapping[str, Any]) -> Trigger | None:
        """Whether requirement ``q`` (written ``for_each`` feature) applies to a feature whose measures are
        ``values``: a Trigger saying so and why, None when it has no conditions (it applies to every one).
        """
        return feature_applies(self.profile, q, values)

    def finding(self, q: Requirement | None, rule: str, status: str, message: str, **kw: Any) -> Finding:
        """A finding of requirement ``q``, born whole and passed through the gate.

        Parameters
        ----------
        q : Requirement or None
            The requirement (None: a finding of geosite's own, cited by the caller).
        rule : str
            The finding's rule name.
        status : str
            One of :data:`geosite.rules.STATUSES`.
        message : str
            What was found, in words.
        **kw
            Any other field of :class:`~geosite.rules.Finding`: ``geometry`` and ``layer`` (its place, site
            CRS), ``submitted`` (what the plan shows), ``settle`` (what would settle an undecided one),
            ``values``, ``feature_ids``, ``required``; ``requirement`` defaults to ``q``'s words.

        Returns
        -------
        Finding
            The finding, as the gate allows it.
        """
        kw.setdefault("requirement", q.requires if q else "")
        f = Finding(
            rule=rule,
            citation=q.citation if q else kw.pop("citation", ""),
            section=self.profile.section_name(q.section if q else kw.pop("section", "requirements")),
            status=status,
            message=message,
            **kw,
        )
        return self.gate.apply(f, q.gate if q else None)


def mark(gdf: gpd.GeoDataFrame, required: bool | None) -> gpd.GeoDataFrame:
    """The layer with its ``required`` column: False where it is drawn for reference only (the maps' legend
    reads it), None where that is not decided.
    """
    gdf = gdf.copy()
    gdf["required"] = required
    return gdf
