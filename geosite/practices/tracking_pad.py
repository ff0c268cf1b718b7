"""Stone tracking pad (DNR technical standard 1057): clear or washed stone at each entrance where an access
drive meets a road, along the drive from the road, as wide as the drive and as long as the standard asks
where space allows (Grantsburg B(3): "graveled roads, access drives and parking areas of sufficient width
and length to prevent sediment from being tracked onto public or private roadways").

``place`` draws the pad each entrance needs (:func:`geosite.controls.tracking_pads`, the one measure ``check``
reads a pad by: length along the drive from the road, width across it); ``judge`` holds the submitted pad
at each entrance against it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from geosite import controls
from geosite.io.output import py_scalar
from geosite.practices.base import Outcome, OutputLayer, PayItem, Practice
from geosite.practices.context import mark
from geosite.symbols import CadLook, Style

if TYPE_CHECKING:
    from geosite.practices.context import Context
    from geosite.rules import Finding, Requirement

_PAD = {"face": "#d5d8dc", "hatch": "oo"}


class TrackingPad(Practice):
    """A stone pad at an entrance (DNR 1057)."""

    name = "tracking_pad"
    title = "Stone tracking pad"
    standard = "DNR 1057"
    family = "pad"
    drawn: ClassVar[dict[str, str]] = {"polygon": "tracking_pads"}
    serves = ("tracking_pad",)
    controls = ("tracking_pad_min_length_ft", "tracking_pad_min_width_ft", "tracking_pad_search_ft")
    looks: ClassVar[dict[str, Style]] = {
        "tracking_pads": Style(
            "polygon",
            "Tracking pads (stone)",
            face="#d5d8dc",
            edge="#1a1a1a",
            lw=0.8,
            hatch="oo",
            z=7,
            clear="footprint",
        ),
    }
    layers = (
        OutputLayer(
            "tracking_pads",
            "MultiPolygon",
            (("drive_id", "int"), ("length_ft", "float"), ("required", "bool")),
            (("Tracking pads (stone)", "tracking_pads", None),),
            {"": CadLook("C-ESCP-TRAK", 8, "CONTINUOUS", "stone tracking pads")},
            label=lambda row: (
                "STONE TRACKING PAD" + (f" {float(row['length_ft']):.0f} FT" if row.get("length_ft") else "")
            ),
        ),
    )
    submitted: ClassVar[dict[str, dict[str, Any]]] = {"polygon": _PAD}
    stands_at = ("roads", "access_drives")
    cad = CadLook("C-ESCP-TRAK", 8, "CONTINUOUS", "stone tracking pads")
    pay = PayItem(
        "SY",
        "area",
        "the pad's area",
        "DNR 1057",
        also=(
            PayItem(
                "TON",
                "stone",
                "its stone: the area at the profile's stone depth and density",
                "DNR 1057",
                keys=("tracking_pad_stone_depth_in", "tracking_pad_stone_tons_per_cy"),
                part="stone",
            ),
        ),
    )

    def place(self, ctx: Context, q: Requirement) -> Outcome:
        """The pad each entrance needs, and the submitted pad measured there."""
        out = Outcome(self.name, q.id)
        drives, roads = ctx.site.layer("access_drives"), ctx.site.layer("roads")
        if roads is None:
            out.report["tracking"] = {"entrances": [], "why": "no roads layer"}
            return out
        if drives is None:
            out.report["tracking"] = {"entrances": [], "why": "no access_drives layer"}
            out.shared["no_drives"] = True
            return out
        ctx.step("placing tracking pads")
        rule = controls.PadRule(
            min_length_ft=float(ctx.control("tracking_pad_min_length_ft")),
            min_width_ft=float(ctx.control("tracking_pad_min_width_ft")),
            search_ft=float(ctx.control("tracking_pad_search_ft")),
        )
        found = controls.tracking_pads(drives, roads, rule, ctx.submitted(self.family))
        ent, pads = found.entrances, found.pads
        out.layers["tracking_pads"] = mark(pads, ctx.open(q))
        out.report["tracking"] = {"entrances": ent, "min_pad_length_ft": rule.min_length_ft}
        out.shared["entrances"] = ent
        out.proposed = [
            {
                "type": self.name,
                "practice": f"stone tracking pad, {float(ln):,.0f} ft along the drive from the road, "
                f"{float(w):,.0f} ft wide (the drive's width)",
                "standard": self.standard,
                "geometry": g,
                "drive_id": py_scalar(d),
            }
            for g, d, ln, w in zip(
                pads.geometry, pads["drive_id"], pads["length_ft"], pads["width_ft"], strict=True
            )
        ]
        return out

    def judge(self, ctx: Context, q: Requirement, placed: Outcome) -> list[Finding]:
        """The submitted pad at each entrance, against the standard as the requirement reads it."""
        if placed.shared.get("no_drives"):
            return _without_drives(ctx, q)
        kinds = {True: "public", False: "private", None: "public or private"}
        drives = ctx.site.layer("access_drives")
        found = []
        for e in placed.shared.get("entrances", []):
            geom = None
            if drives is not None and "id" in drives.columns:
                hit = drives[[py_scalar(i) == e["drive_id"] for i in drives["id"]]]
                geom = hit.geometry.iloc[0] if len(hit) else None
            found.append(
                ctx.finding(
                    q,
                    "tracking_pad",
                    "pass" if e["submitted_pad"] else "fail",
                    _message(e, kinds[e["road_public"]]),
                    required=True,
                    values={
                        k: e[k]
                        for k in (
                            "required_length_ft",
                            "drive_width_ft",
                            "drawn_pad_length_ft",
                            "drawn_pad_width_ft",
                        )
                    },
                    feature_ids=[] if e["submitted_pad"] else [e["drive_id"]],
                    submitted=_got(e),
                    geometry=geom,
                    layer="access_drives",
                )
            )
        return found


def _without_drives(ctx: Context, q: Requirement) -> list[Finding]:
    """No access_drives layer: where the disturbed area meets a road, the entrances are not assessed."""
    site, roads = ctx.site, ctx.site.layer("roads")
    touch = (
        roads is not None
        and site.disturbed is not None
        and bool(site.disturbed.buffer(1.0 / site.ft_per_unit).intersects(roads.geometry.union_all()))
    )
    if not touch:
        return []
    return [
        ctx.finding(
            q,
            "tracking_pad",
            "not_assessed",
            "The disturbed area meets a road but no access_drives layer says where vehicles leave the site: "
            "each "
            f"entrance needs a tracking pad ({q.citation}, DNR 1057).",
            required=True,
            settle="an access_drives layer (where vehicles leave the site)",
        )
    ]


def _extent(e: controls.Entrance) -> str:
    """The pad submitted at entrance ``e`` as measured (or declared), in words; "" for none."""
    if e["drawn_pad_length_ft"] is not None:
        return f"{e['drawn_pad_length_ft']:,.0f} ft along the drive, {e['drawn_pad_width_ft']:,.0f} ft wide"
    if e["submitted_pad"]:
        return f"{e['pad_length_ft']:,.0f} ft declared on the drive"
    return ""


def _got(e: controls.Entrance) -> str:
    """The pad submitted at entrance ``e``, in words."""
    return f"a pad {_extent(e)}" if _extent(e) else "no pad"


def _message(e: controls.Entrance, kind: str) -> str:
    """What the plan's pad at one entrance is, against DNR 1057 as the requirement reads it."""
    drive = e.get("drive_name") or f"drive {e['drive_id']}"
    road = e.get("road_name") or f"road {e['road_id']}"  # a road's id becomes its name (rules.words)
    where = f"{str(drive)[:1].upper()}{str(drive)[1:]} onto {road} ({kind})"
    need = (
        f"{e['required_length_ft']:,.0f} ft along the drive from the road and {e['drive_width_ft']:,.0f} ft "
        "wide "
        "(the drive's width)"
    )
    if e["submitted_pad"]:
        return f"{where}: tracking pad {_extent(e)}; DNR 1057 asks {need}."
    if e["drawn_pad_length_ft"] is None:
        return f"{where}: no tracking pad; DNR 1057 asks {need}."
    return (
        f"{where}: the drawn pad runs {e['drawn_pad_length_ft']:,.0f} ft along the drive and is "
        f"{e['drawn_pad_width_ft']:,.0f} ft wide; DNR 1057 asks {need}."
    )
