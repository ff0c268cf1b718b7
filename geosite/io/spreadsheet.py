"""Cells a spreadsheet will not run: OWASP's rule against CSV injection, for every CSV geosite writes.

A text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read by Excel,
LibreOffice and Google Sheets as a formula (``=HYPERLINK(...)``, ``=cmd|' /C calc'!A0``, ``@SUM(...)``).
:func:`safe_cell` prefixes such a text with a single quote, which the spreadsheet shows as text; numbers
are left as they are (a negative number is a number, not a formula). A site or file name is the
applicant's text, so every text cell of summary.csv passes through it.
"""

from __future__ import annotations

from typing import Any

from geosite.io.text import FORMULA_STARTS as FORMULA_STARTS
from geosite.io.text import csv_cell


def safe_cell(value: Any) -> Any:
    """``value`` as a cell a spreadsheet shows as text (:func:`geosite.io.text.csv_cell`: a leading ``'``
    before a formula character, also after spaces or a line break, full-width forms included); anything
    that is not a text unchanged.
    """
    return csv_cell(value)


def safe_frame(df: Any) -> Any:
    """A copy of the pandas DataFrame ``df`` with :func:`safe_cell` applied to every text column."""
    from pandas.api.types import is_object_dtype, is_string_dtype

    out = df.copy()
    for col in out.columns:
        if is_object_dtype(out[col]) or is_string_dtype(out[col]):
            out[col] = out[col].map(safe_cell).astype(object)
    return out
