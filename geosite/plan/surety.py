"""The surety as the chapter words it: whether the village requires one (its profile's ``[permit]
surety``: Grantsburg D(2) "shall", Belgium D(2) "may"), in what forms, who sets the amount
(``surety_amount_by``), and the estimate as its basis.

An amount is computed only where the Village publishes a rule for it (``surety_percent_of_estimate``,
``surety_minimum_usd``, each with its source) and the estimate is complete; otherwise the report gives
the estimate as the basis and says the amount is the Village's to set. Where the chapter recovers the
Village's own cost of doing the work beyond the deposit (Grantsburg Enforcement F:
``[enforcement] village_cost_recovery``), the report says so: it is why the quantities matter.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from geosite.plan.estimate import Estimate
    from geosite.rules import Profile


@dataclass(frozen=True)
class Surety:
    """The chapter's surety for one plan: ``required`` (``shall``, ``may``; None where the profile says
    nothing), its ``words`` (what the report prints), the ``basis`` (the estimate's total, None without
    one), and the ``amount`` (None unless the Village publishes a rule and the estimate is complete).
    """

    required: str | None
    words: str
    basis: Decimal | None
    amount: Decimal | None
    citation: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: required, citation, basis, amount and the words."""
        return {
            "required": self.required,
            "citation": self.citation,
            "basis_usd": None if self.basis is None else float(self.basis),
            "amount_usd": None if self.amount is None else float(self.amount),
            "words": self.words,
        }


def surety_of(profile: Profile, est: Estimate | None) -> Surety:
    """The surety of a plan under ``profile`` with the estimate ``est`` (None: no prices were given).

    Parameters
    ----------
    profile : Profile
        The village's profile.
    est : Estimate or None
        The plan's estimate.

    Returns
    -------
    Surety
        What the chapter requires, the basis and, where the Village publishes a rule, the amount.
    """
    s = profile.entry("permit", "surety")
    if s is None or not s.value:
        return Surety(None, "Surety: the chapter's profile says nothing of a surety.", None, None, "")
    cite = profile.cite(s.citation, s.section)
    verb = "shall require" if s.value == "shall" else "may require"
    parts = [f"Surety ({cite}): {s.by or 'the village'} {verb} {s.text}."]
    parts.append(_amount_words(profile))
    basis = est.total if est is not None else None
    amount, rule_words = _rule_amount(profile, est)
    if est is None:
        parts.append(
            "No unit prices were given, so there is no estimate: the quantities above are the basis for it."
        )
    else:
        whole = "" if est.complete else " (incomplete: see the lines not priced or not wholly measured)"
        parts.append(f"Basis: the estimate of the plan's quantities, ${est.total:,.2f}{whole}.")
    if rule_words:
        parts.append(rule_words)
    rec = profile.entry("enforcement", "village_cost_recovery")
    if rec is not None and rec.value:
        parts.append(
            f"Where the Village does the work itself ({profile.cite(rec.citation, rec.section)}): {rec.text}."
        )
    return Surety(str(s.value), " ".join(parts), basis, amount, cite)


def _amount_words(profile: Profile) -> str:
    """Who sets the amount, as the chapter says it."""
    by = profile.entry("permit", "surety_amount_by")
    if by is None:
        return "The chapter's profile does not say who sets the amount."
    if by.note:
        return f"Amount: set by {by.value}: {by.note}."
    cite = profile.cite(by.citation, by.section) if by.citation else by.source
    return f"Amount: set by {by.value} ({cite})."


def _rule_amount(profile: Profile, est: Estimate | None) -> tuple[Decimal | None, str]:
    """The amount by the Village's published rule (a share of the estimate, a minimum), and its words;
    (None, "") where it publishes none.
    """
    pct = profile.entry("permit", "surety_percent_of_estimate")
    low = profile.entry("permit", "surety_minimum_usd")
    if pct is None and low is None:
        return None, ""
    rule = " and ".join(
        t
        for t in (
            f"{pct.value:g} % of the estimate ({pct.citation or pct.source})" if pct is not None else "",
            f"at least ${low.value:,.2f} ({low.citation or low.source})" if low is not None else "",
        )
        if t
    )
    if pct is not None and (est is None or not est.complete):
        return None, f"The Village's rule: {rule}; it needs a complete estimate, which this is not."
    share = Decimal(str(pct.value)) / 100 * est.total if pct is not None and est is not None else Decimal(0)
    amount = max(share, Decimal(str(low.value)) if low is not None else Decimal(0))
    amount = amount.quantize(Decimal("0.01"), ROUND_HALF_UP)
    return amount, f"By the Village's rule ({rule}): ${amount:,.2f}."
