"""Small CSV tables read as untrusted text: a unit-price file, a submitted estimate.

A table is read with Python's :mod:`csv` (no formula is evaluated: a cell is its text), within
``max_table_bytes`` and ``max_table_rows`` (:class:`geosite.io.limits.Limits`), as UTF-8 (a byte-order mark
allowed). Its header must name every required column, and no column twice or unknown; a number cell is a
plain decimal (a ``$`` and thousands commas allowed), never a formula (``=SUM(...)``, ``+1``, ``@A1``).
Every problem names the file and its line (the header is line 1); a reader collects them and raises them
together.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from geosite.errors import InputError, MissingInputError
from geosite.io.limits import Limits
from geosite.io.spreadsheet import FORMULA_STARTS

#: a CSV field larger than this is refused (csv's own limit, lowered: no cell of a price table is long)
MAX_FIELD_CHARS = 10_000


@dataclass(frozen=True)
class CsvTable:
    """A CSV table read: its ``path``, its ``columns`` (as the header names them, lower case) and its
    ``rows``, each (its line in the file, {column: text}); blank lines are left out.
    """

    path: Path
    columns: tuple[str, ...]
    rows: tuple[tuple[int, dict[str, str]], ...]


def read_table(
    path: str | Path,
    what: str,
    *,
    required: tuple[str, ...],
    optional: tuple[str, ...] = (),
    limits: Limits | None = None,
) -> CsvTable:
    """The CSV table at ``path`` (``what`` names it in messages: "unit-price file").

    Parameters
    ----------
    path : str or Path
        The file.
    what : str
        What the table is, for messages.
    required : tuple of str
        The columns it must have.
    optional : tuple of str
        The columns it may have.
    limits : Limits, optional
        ``max_table_bytes`` and ``max_table_rows``.

    Returns
    -------
    CsvTable
        The header and the rows.

    Raises
    ------
    InputError
        Naming the file and the problem: missing, too large, not UTF-8, not CSV, a bad header, too many rows.
    """
    limits = limits or Limits()
    path = Path(path)
    if not path.is_file():
        raise MissingInputError(f"{what} {path}: not found (or not a regular file)")
    limits.check_file_size(f"{what} {path}", path.stat().st_size, "max_table_bytes")
    try:
        text = path.read_bytes()[: limits.max_table_bytes + 1].decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} {path}: not UTF-8 text (byte {exc.start}); save it as UTF-8 CSV") from exc
    old = csv.field_size_limit(MAX_FIELD_CHARS)
    try:
        return _parse(path, what, text, required=required, optional=optional, max_rows=limits.max_table_rows)
    except csv.Error as exc:
        raise InputError(f"{what} {path}: not a CSV table geosite can read ({exc})") from exc
    finally:
        csv.field_size_limit(old)


def _parse(
    path: Path, what: str, text: str, *, required: tuple[str, ...], optional: tuple[str, ...], max_rows: int
) -> CsvTable:
    """The header checked and the rows read (see :func:`read_table`)."""
    reader = csv.reader(io.StringIO(text, newline=""))
    header = [h.strip().lower() for h in next(reader, [])]
    known = (*required, *optional)
    problems = [f"column {h!r} is not one of {', '.join(known)}" for h in header if h not in known]
    problems += [f"column {h!r} appears twice" for h in sorted({h for h in header if header.count(h) > 1})]
    problems += [f"no column {c!r}" for c in required if c not in header]
    if problems:
        raise InputError(f"{what} {path}: line 1 (the header): " + "; ".join(problems))
    rows: list[tuple[int, dict[str, str]]] = []
    for line, cells in enumerate(reader, start=2):
        if not any(c.strip() for c in cells):
            continue
        if len(rows) >= max_rows:
            raise InputError(
                f"{what} {path}: more than max_table_rows {max_rows:,} rows; refused. Raise with --limit "
                "max_table_rows=N"
            )
        if len(cells) > len(header):
            raise InputError(
                f"{what} {path}: line {line}: {len(cells)} cells, the header names {len(header)}"
            )
        rows.append((line, {h: (cells[i].strip() if i < len(cells) else "") for i, h in enumerate(header)}))
    return CsvTable(path, tuple(header), tuple(rows))


def decimal_cell(text: str, column: str, problems: list[str], where: str) -> Decimal | None:
    """The cell ``text`` of ``column`` as a positive finite decimal (``$`` and thousands commas allowed);
    None, and a problem naming ``where`` (``line 4``), when it is empty, a formula or not such a number.

    Parameters
    ----------
    text : str
        The cell.
    column : str
        Its column, for the message.
    problems : list of str
        Where a problem is added.
    where : str
        The cell's line, for the message.

    Returns
    -------
    Decimal or None
        The number.
    """
    raw = text.strip()
    if not raw:
        problems.append(f"{where}: {column} is empty")
        return None
    if raw.startswith(FORMULA_STARTS[:4]) and not _signed_number(raw):
        problems.append(
            f"{where}: {column} {raw[:40]!r} is a formula, not a number (formulas are not evaluated)"
        )
        return None
    plain = raw.removeprefix("$").replace(",", "")
    try:
        value = Decimal(plain)
    except InvalidOperation:
        problems.append(f"{where}: {column} {raw[:40]!r} is not a number")
        return None
    if not value.is_finite() or value <= 0:
        problems.append(f"{where}: {column} {raw[:40]!r} must be a positive number")
        return None
    return value


def _signed_number(raw: str) -> bool:
    """Whether ``raw`` is a plain signed decimal (``-5``, ``+2.5``): a sign, not a formula."""
    try:
        Decimal(raw.replace(",", ""))
    except InvalidOperation:
        return False
    return raw[0] in "+-"


def date_cell(text: str, column: str, problems: list[str], where: str) -> dt.date | None:
    """The cell ``text`` of ``column`` as an ISO date (YYYY-MM-DD); None, and a problem, when it is not one.

    Parameters
    ----------
    text : str
        The cell.
    column : str
        Its column, for the message.
    problems : list of str
        Where a problem is added.
    where : str
        The cell's line, for the message.

    Returns
    -------
    datetime.date or None
        The date.
    """
    try:
        return dt.date.fromisoformat(text.strip())
    except ValueError:
        problems.append(f"{where}: {column} {text.strip()[:40]!r} is not a date (YYYY-MM-DD)")
        return None
