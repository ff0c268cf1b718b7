"""Text from a submission is data: its type, and one escape function per format geosite writes.

Everything an applicant types (site.toml's names, contacts and declarations, attribute values, layer and
file names, the folder's own name) may hold markup of the format it will be written into: ``<script>`` for
report.html, ``[x](javascript:...)`` for a Markdown viewer, ``=HYPERLINK(...)`` for a spreadsheet, a
line break and group codes for a DXF, ``$...$`` for matplotlib's mathtext, a quote for TOML, a terminal
escape for the console, a lone surrogate (an undecodable file name) that no UTF-8 file can hold.

- :class:`SubmissionText` marks a text as coming from a submission (site loading marks site.toml's texts
  and the site's name); it is a ``str``, so every string operation works, and a writer can tell it apart.
- Each writer passes every text it writes through the function for its format, at the point where it
  writes it: :func:`html_text`, :func:`markdown`, :func:`csv_cell`, :func:`json_text`,
  :func:`json_in_html`, :func:`dxf_text`, :func:`mpl_text` (PDF labels), :func:`toml_string`, and
  :func:`one_line` for a console line. Each is total: any text in, safe text out, never an exception.

Hand-written: the rules are a few lines each; the standard library's ``html.escape`` does HTML's, and
``json.dumps`` (in the writers) JSON's own escaping.
"""

from __future__ import annotations

import html as _html
import re
from typing import Any

#: Characters that change how text around them is shown without being seen: bidirectional overrides and
#: isolates (a file name that reads backwards), zero-width joiners and marks, the BOM.
INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff\u2028\u2029"
)


class SubmissionText(str):
    """A text that came from a submission: data to be escaped by each writer, never markup or a path.

    Examples
    --------
    >>> name = SubmissionText("<b>Lot 7</b>")
    >>> html_text(name)
    '&lt;b&gt;Lot 7&lt;/b&gt;'
    """

    __slots__ = ()

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (SubmissionText, (str(self),))


def submission(value: Any) -> Any:
    """``value`` marked as :class:`SubmissionText` when it is a text (anything else unchanged)."""
    return (
        SubmissionText(value) if isinstance(value, str) and not isinstance(value, SubmissionText) else value
    )


def marked(obj: Any) -> Any:
    """A parsed document (site.toml's tables: dicts, lists, values) with every text value marked as
    :class:`SubmissionText` (keys stay plain: they are matched against geosite's own names).
    """
    if isinstance(obj, dict):
        return {k: marked(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [marked(v) for v in obj]
    return submission(obj)


def _surrogates(text: str) -> str:
    """Lone surrogates (the bytes of a file name that are not UTF-8) written as ``\\xNN``."""
    return re.sub(
        "[\ud800-\udfff]",
        lambda m: f"\\x{ord(m.group(0)) - 0xDC00:02x}" if ord(m.group(0)) >= 0xDC80 else "\ufffd",
        text,
    )


def _escaped(c: str) -> str:
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(
        c, f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}"
    )


def one_line(value: Any) -> str:
    """``value`` as one printable line: control characters (line breaks and tabs included), C1 controls,
    the invisible characters of :data:`INVISIBLE` and undecodable bytes written as escapes (``\\n``,
    ``\\x1b``, ``\\u202e``). For the console and any one-line message.
    """
    text = _surrogates("" if value is None else str(value))
    return "".join(_escaped(c) if _control(c) else c for c in text)


def printable(value: Any) -> str:
    """:func:`one_line` keeping line breaks and tabs: a text of several lines whose lines are geosite's."""
    text = _surrogates("" if value is None else str(value))
    return "".join(c if c in "\n\t" or not _control(c) else _escaped(c) for c in text)


def _control(c: str) -> bool:
    o = ord(c)
    return o < 32 or 127 <= o < 160 or c in INVISIBLE


def html_text(value: Any) -> str:
    """Text for HTML (element content or a quoted attribute): ``& < > " '`` as entities, controls escaped."""
    return _html.escape(printable(value), quote=True)


#: Characters that make Markdown (CommonMark, GFM) emphasis, code, links and images (``[``), tables,
#: entities, HTML, autolinks or math (GitHub's ``$``) inside a line.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&$])")


def markdown(value: Any) -> str:
    """Text for Markdown: one line (no text starts a heading, list or quote: every line starts with the
    writer's own prefix) with every character Markdown or HTML acts on backslash-escaped, so a viewer
    shows it as typed.
    """
    text = re.sub(r"[\r\n\u2028\u2029]+", " ", _surrogates("" if value is None else str(value)))
    return _MD_SPECIAL.sub(r"\\\1", one_line(text))


#: First characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection), with their
#: full-width forms (read as the same by some spreadsheets).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def csv_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: a text starting (after spaces) with a formula character gets a
    leading ``'``; undecodable bytes escaped. Anything but a text (a number) is returned unchanged.
    """
    if not isinstance(value, str):
        return value
    text = _surrogates(value)
    stripped = text.lstrip(" \u00a0\u3000")
    return "'" + text if stripped.startswith(FORMULA_STARTS) or text.startswith(FORMULA_STARTS) else text


def json_text(value: Any) -> str:
    """Text for a JSON file: as typed, undecodable bytes escaped (``json.dumps`` escapes the rest)."""
    return _surrogates("" if value is None else str(value))


_JSON_HTML = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def json_in_html(text: str) -> str:
    """JSON text (from ``json.dumps``) safe inside an HTML ``<script type="application/json">`` block:
    ``< > &`` and the JS line separators as ``\\uXXXX``, so no value can close the block or open a comment.
    """
    return re.sub("[<>&\u2028\u2029]", lambda m: _JSON_HTML[m.group(0)], text)


def dxf_text(value: Any, *, mtext: bool = False) -> str:
    """Text for a DXF TEXT, ATTRIB or XDATA string (``mtext``: an MTEXT's).

    One line (a line break would end the group's value and start group codes of the sender's choosing;
    an MTEXT's geosite-made line breaks are ``\\P``, added after this), control characters dropped, a caret
    written ``^ `` (DXF's ``^J`` is a control character), ``%%`` codes (``%%u``, ``%%c``) written as literal
    percent signs (``%%%``), and in MTEXT the format codes' backslash and braces escaped.
    """
    text = _surrogates("" if value is None else str(value))
    text = "".join(" " if c in "\r\n\u2028\u2029" else c for c in text if not _control(c) or c in "\r\n")
    text = text.replace("^", "^ ")
    if "%%" in text:
        text = text.replace("%", "%%%")
    if mtext:
        text = text.replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}")
    return text


def mpl_text(value: Any) -> str:
    """Text for a matplotlib label on geosite's sheets, which are drawn with ``text.parse_math`` off (a
    ``$`` is a dollar sign there, never mathtext): control characters and undecodable bytes escaped, the
    writer's own line breaks kept. The sheets then spell what the PDF's standard fonts lack
    (geosite.maps.printing.core_text).
    """
    return printable(value)


def toml_string(value: Any) -> str:
    """A TOML basic string (quotes included): ``"`` and ``\\`` escaped, control and invisible characters as
    ``\\uXXXX``, undecodable bytes as the text ``\\xNN`` (TOML holds no surrogates).
    """
    text = _surrogates("" if value is None else str(value))
    return '"' + "".join(f"\\u{ord(c):04x}" if _control(c) or c in '"\\' else c for c in text) + '"'
