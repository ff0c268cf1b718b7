"""The plan's quantities: each practice's pay item totalled over the plan's controls, per practice and per
phase, for the controls geosite proposes and the ones a submission shows, separately.

Each line is one practice in one pay unit (a practice bid in two units gives two lines: a pad's SY and
its stone's TON, a trap's storage CY and surface SF), split where the pay item says by what (inlet
protection by its type, stabilization by its method). A line sums what its controls count for
(:meth:`geosite.practices.pay.PayItem.count`); a control whose count is not assessed (a trap whose
storage is neither given nor sized by the profile) is listed with the reason, never counted as zero.
A control of a practice geosite does not know has a line with no unit: it is counted, not measured.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from geosite.practices import registry
from geosite.practices.pay import PAY_DECIMALS

if TYPE_CHECKING:
    from geosite.plan.model import Control, Plan


@dataclass(frozen=True)
class QuantityLine:
    """One pay line: ``item`` (the practice's name, the ``bmps`` type), ``title`` (in words), ``kind``
    (the value of the attribute the item is split by: an inlet protection's type; "" when not split),
    ``unit`` (a pay unit; None for a practice geosite does not know), ``amount`` (what the counted
    controls sum to in ``unit``; None when none could be counted), ``how`` it is measured, its
    ``standard``, the controls' numbers ``ids``, those not counted (``missing``) and ``why``, and the
    ``phase`` (None: every phase) and ``status`` (``proposed`` or ``submitted``) of its controls, and the
    ``part`` of the practice the unit counts where it is counted in two (a pad's ``stone``).
    """

    item: str
    title: str
    kind: str
    unit: str | None
    amount: float | None
    how: str
    standard: str
    ids: tuple[int, ...]
    missing: tuple[int, ...] = ()
    why: str = ""
    phase: str | None = None
    status: str = "proposed"
    part: str = ""

    @property
    def complete(self) -> bool:
        """Whether every control of the line was counted."""
        return self.amount is not None and not self.missing

    @property
    def rounded(self) -> float | None:
        """The amount to the decimals of its unit (:data:`~geosite.practices.pay.PAY_DECIMALS`), as bid."""
        if self.amount is None or self.unit is None:
            return None
        return round(self.amount, PAY_DECIMALS[self.unit])

    @property
    def label(self) -> str:
        """The line in words: its title, its kind where the item is split, the part a unit counts."""
        text = self.title
        if self.kind:
            text = f"{re.split(r' [(]', self.title, maxsplit=1)[0]}, {self.kind}"
        return f"{text}: {self.part}" if self.part else text

    def to_dict(self) -> dict[str, Any]:
        """The line as JSON-ready data (report.json ``quantities``)."""
        from geosite.plan.table import tag_runs

        return {
            "item": self.item,
            "kind": self.kind or None,
            "part": self.part or None,
            "label": self.label,
            "unit": self.unit,
            "quantity": self.rounded,
            "measured": None if self.amount is None else round(self.amount, 4),
            "complete": self.complete,
            "how": self.how,
            "standard": self.standard,
            "phase": self.phase,
            "tags": tag_runs(self.ids),
            "not_assessed": tag_runs(self.missing) or None,
            "why": self.why or None,
        }


@dataclass(frozen=True)
class Quantities:
    """The pay lines of one set of controls (``status``: ``proposed`` or ``submitted``): ``totals`` (per
    practice, every phase) and ``by_phase``.
    """

    status: str
    totals: tuple[QuantityLine, ...]
    by_phase: tuple[QuantityLine, ...] = ()

    def total(self, item: str, unit: str) -> float | None:
        """The measured amount of ``item`` in ``unit`` over every kind (None when nothing was counted)."""
        got = [x.amount for x in self.totals if x.item == item and x.unit == unit and x.amount is not None]
        return sum(got) if got else None

    def lines(self, item: str, unit: str) -> list[QuantityLine]:
        """The total lines of ``item`` in ``unit`` (one per kind)."""
        return [x for x in self.totals if x.item == item and x.unit == unit]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``status``, ``totals`` and ``by_phase`` lines."""
        return {
            "status": self.status,
            "totals": [x.to_dict() for x in self.totals],
            "by_phase": [x.to_dict() for x in self.by_phase],
        }


@dataclass(frozen=True)
class PlanQuantities:
    """A plan's quantities: the controls geosite proposes and the ones the submission shows (None where the
    plan has none of that status), and which of them the plan builds (``plan``: its source).
    """

    plan: str
    proposed: Quantities | None = None
    submitted: Quantities | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def built(self) -> Quantities | None:
        """The quantities of the plan's own controls (what is built: an estimate prices these)."""
        return self.proposed if self.plan == "proposed" else self.submitted


def plan_quantities(plan: Plan) -> PlanQuantities:
    """The quantities of ``plan``: its own controls (proposed or submitted, as the plan is), and, when it is
    geosite's proposal, the controls the site's ``bmps`` layer shows, separately.

    Parameters
    ----------
    plan : Plan
        The site's plan.

    Returns
    -------
    PlanQuantities
        The lines, per practice and per phase.
    """
    own = count(plan, plan.controls, plan.source)
    other = count(plan, plan.submitted, "submitted") if plan.source == "proposed" and plan.submitted else None
    return PlanQuantities(
        plan.source,
        proposed=own if plan.source == "proposed" else None,
        submitted=own if plan.source == "submitted" else other,
    )


def count(plan: Plan, controls: tuple[Control, ...] | list[Control], status: str) -> Quantities:
    """The pay lines of ``controls`` (their ``status``), per practice and per phase.

    Parameters
    ----------
    plan : Plan
        The plan (its profile gives the ``[quantities]`` numbers).
    controls : sequence of Control
        The controls counted.
    status : str
        ``proposed`` or ``submitted``.

    Returns
    -------
    Quantities
        The lines.
    """
    return Quantities(
        status,
        _lines(plan, list(controls), status, by_phase=False),
        _lines(plan, list(controls), status, by_phase=True),
    )


def _order() -> dict[str, int]:
    """Each practice's place in the table: the sheets' order."""
    return {p.name: i for i, p in enumerate(registry.PRACTICES)}


def _lines(plan: Plan, controls: list[Control], status: str, *, by_phase: bool) -> tuple[QuantityLine, ...]:
    """The lines of ``controls``, grouped by practice, kind (the pay item's split), unit and (``by_phase``)
    phase, in the sheets' order of practices.
    """
    groups: dict[tuple[Any, ...], list[Control]] = {}
    for c in controls:
        p = registry.named(c.practice)
        kind = ""
        if p is not None and p.pay is not None and p.pay.by:
            kind = str(c.get(p.pay.by) or "").strip()
        groups.setdefault((c.phase if by_phase else None, c.practice, kind), []).append(c)
    order = _order()
    out: list[QuantityLine] = []
    for (phase, name, kind), cs in sorted(
        groups.items(), key=lambda g: (str(g[0][0] or ""), order.get(g[0][1], len(order)), g[0][1], g[0][2])
    ):
        out += _item_lines(plan, name, kind, cs, phase=phase, status=status)
    return tuple(out)


def _item_lines(
    plan: Plan, name: str, kind: str, cs: list[Control], *, phase: str | None, status: str
) -> list[QuantityLine]:
    """The lines of one practice's controls ``cs`` of one kind: one per unit its pay item counts in (one
    line with no unit for a practice with no pay item).
    """
    p = registry.named(name)
    ids = tuple(c.id for c in cs)
    if p is None or p.pay is None:
        words = name.replace("_", " ") or "control with no type"
        why = (
            f"geosite knows no practice {name!r}: not measured"
            if p is None
            else f"{p.title} has no pay item: not measured"
        )
        return [QuantityLine(name, words, kind, None, None, "", "", ids, ids, why, phase, status)]
    out = []
    for pay in p.pay.units:
        counted = [(c, pay.count(c.attrs, plan.number)) for c in cs]
        got = [k.amount for _, k in counted if k.amount is not None]
        missing = tuple(c.id for c, k in counted if k.amount is None)
        why = next((f"{c.tag}: {k.why}" for c, k in counted if k.amount is None), "")
        out.append(
            QuantityLine(
                p.name,
                p.title,
                kind,
                pay.unit,
                sum(got) if got else None,
                pay.how,
                pay.standard,
                ids,
                missing,
                why,
                phase,
                status,
                pay.part,
            )
        )
    return out
