"""The one verdict type: a yes, a no or not decided, and why, in words.

What a test answers (whether runoff leaves the site, whether a feature lies downslope of a pile, whether
geosite wrote an output folder) is a :class:`Verdict`, never a ``(bool, str)`` tuple. It stands on the
floor of the package (it imports nothing of geosite) so that every room can return one, the file
writers of :mod:`geosite.io` as much as the rules; :mod:`geosite.rules` re-exports it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    """A yes, a no or not decided (``value`` None), and why, in words: what a test of the site answers
    (whether runoff leaves it, whether a feature lies downslope of a pile ...).

    Attributes
    ----------
    value : bool or None
        The answer: True (yes), False (no) or None (the data cannot tell).
    why : str
        How it was decided, or what would decide it (may be empty where the answer needs no reason).
    """

    value: bool | None
    why: str

    def __bool__(self) -> bool:
        """True only for a yes (a not-decided verdict is not a yes)."""
        return self.value is True


__all__ = ["Verdict"]
