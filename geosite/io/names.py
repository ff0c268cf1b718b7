"""File names made from names someone else chose (a submission folder's name): bounded, sanitized, unique.

An applicant names the folder; geosite names its outputs after it (``geosite-out/<name>-check``,
``OUT/<name>/`` in a batch, a staging folder ``<name>-<32 hex>``). Such a name is data: it may be 255
bytes long (the file system's limit, leaving no room for a suffix), hold a line break, an escape, a
bidirectional override, a backslash, a leading dot or dash, or bytes that are not UTF-8.
:func:`safe_name` makes a file name of it that is always valid and never over :data:`NAME_MAX_BYTES`:

- characters that are control, invisible or format characters, path separators or reserved on another
  system (``< > : " / \\ | ? *``) become ``_``; a leading dot or dash becomes ``_`` (no hidden file, no
  option), trailing dots and spaces are dropped; the text is NFC-normalized;
- when anything was changed, or the name is cut to fit, a hash of the original (16 hex digits of its
  SHA-256) is appended, so two names that differ only in what was replaced still get two folders;
- it is cut at a character boundary, never inside a UTF-8 sequence.

Hand-written: the rules are a few lines, and the libraries that do this (``pathvalidate``) answer a
different question (valid on a platform) without the bound and the hash.
"""

from __future__ import annotations

import hashlib
import unicodedata

#: A file name's length limit, bytes (Linux ext4, xfs, btrfs, tmpfs; macOS APFS counts UTF-8 bytes too).
NAME_MAX_BYTES = 255
#: An output folder's name, at most, bytes: its temporary and previous siblings add ``.NAME.tmp-PID-XXXXXXXX``
#: and ``.NAME.old-PID`` (up to 33 bytes with a 7-digit process id), and batch's staging ``NAME-<32 hex>``.
OUTPUT_NAME_MAX_BYTES = 200
#: Hex digits of the original name's SHA-256 appended to a changed or cut name.
HASH_HEX = 16
_RESERVED = frozenset('<>:"/\\|?*')


def _bad(c: str) -> bool:
    cat = unicodedata.category(c)
    return c in _RESERVED or cat in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


def name_digest(name: str) -> str:
    """:data:`HASH_HEX` hex digits of the SHA-256 of ``name``'s bytes (undecodable bytes as they were)."""
    raw = name.encode("utf-8", "surrogateescape")
    return hashlib.sha256(raw).hexdigest()[:HASH_HEX]


def _fit(text: str, max_bytes: int) -> str:
    """``text`` cut to at most ``max_bytes`` UTF-8 bytes at a character boundary."""
    raw = text.encode("utf-8")
    if len(raw) <= max_bytes:
        return text
    return raw[:max_bytes].decode("utf-8", "ignore")


def safe_name(
    name: str, max_bytes: int = OUTPUT_NAME_MAX_BYTES, *, suffix: str = "", fallback: str = "site"
) -> str:
    """A valid file name of at most ``max_bytes`` bytes made from ``name``, ending with ``suffix``.

    Parameters
    ----------
    name : str
        The name someone chose (a folder's name as the file system gives it).
    max_bytes : int
        The longest result, in UTF-8 bytes (at most :data:`NAME_MAX_BYTES`).
    suffix : str
        The ending geosite adds (``"-check"``), kept whole.
    fallback : str
        The name used when nothing of ``name`` is left (``""``, ``"..."``).

    Returns
    -------
    str
        ``name`` itself plus ``suffix`` when it is already a plain name that fits; else its sanitized form,
        cut to fit, with ``-`` and :data:`HASH_HEX` hex digits of the original's SHA-256 before ``suffix``.

    Examples
    --------
    >>> safe_name("lot 7")
    'lot 7'
    >>> safe_name("a\\nb").startswith("a_b-")
    True
    """
    max_bytes = min(max_bytes, NAME_MAX_BYTES)
    clean = unicodedata.normalize("NFC", "".join("_" if _bad(c) else c for c in name))
    if clean[:1] in (".", "-"):
        clean = "_" + clean[1:]
    clean = clean.rstrip(". ") or fallback
    room = max_bytes - len(suffix.encode("utf-8"))
    if clean == name and len(clean.encode("utf-8")) <= room:
        return clean + suffix
    tag = "-" + name_digest(name)
    return _fit(clean, room - len(tag)) + tag + suffix
