"""Staging a submission: a private, read-only copy of its regular files, the only copy anything reads.

``geosite check`` never lets GDAL, PROJ or SQLite open the applicant's folder. :func:`stage_submission`
walks it first (without following any link) and refuses, before a byte of data is copied:

- a symbolic link, FIFO, socket or device anywhere in it (a submission holds the files themselves), a
  file with more than one hard link (it may be an outside file under another name), a mount point;
- a name that is not UTF-8, holds a control character (NUL, newline, escape ...) or a backslash, or is
  ``.`` / ``..``;
- more than :attr:`~geosite.io.limits.Limits.max_staged_files` files or
  :attr:`~geosite.io.limits.Limits.max_staged_folders` folders (counted as the folder is listed: a folder
  of a million entries is refused after the first few thousand, not listed whole), or folders nested
  deeper than :data:`MAX_DEPTH`;
- a file over its size limit (:func:`size_limit_key`: vector files ``max_vector_file_bytes``,
  site.toml and the small text side files ``.prj`` / ``.cpg`` ``max_toml_bytes``, anything else
  ``max_staged_file_bytes``), or a total over ``max_staged_total_bytes``; sizes are taken from the
  folder entry, so a sparse 3 GB ``.prj`` is refused without reading it.

The walk and the copy keep to a deadline (the sandboxed ``check``'s ``check_seconds``, shared with the
child that reads the copy): past it, :class:`~geosite.errors.LimitError`. A path the file system refuses
(too long once inside the stage) is refused too; every message names the path printably
(:func:`geosite.io.text.one_line`: a name holding a line break is one line).

Then each file is opened without following links and without blocking (``O_NOFOLLOW | O_NONBLOCK``),
checked to be the same regular file the walk saw, copied with at most its size read, hashed (SHA-256)
as it is copied (not even its access time changed where the system allows ``O_NOATIME``) and made
read-only. What was hashed is what is read: a file swapped after the walk is
either refused (another file) or never seen. SQLite journals beside a GeoPackage (``-wal``, ``-shm``,
``-journal``) are not staged: a GeoPackage is read as its main file holds it, and nothing merges or
deletes the applicant's journal.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from geosite.errors import LimitError, UnsafeInputError
from geosite.io.limits import Limits
from geosite.io.text import one_line

#: Folders may nest this deep inside a submission.
MAX_DEPTH = 16
#: Suffixes of SQLite journals: never staged (a GeoPackage is read from its main file alone).
JOURNALS = ("-wal", "-shm", "-journal")
#: Suffixes checked against ``max_vector_file_bytes`` (a layer file and its data side files).
VECTOR_SUFFIXES = (".gpkg", ".shp", ".shx", ".dbf", ".geojson", ".json", ".dxf")
#: Small text files (site.toml, a shapefile's projection and code page) checked against ``max_toml_bytes``.
TEXT_SUFFIXES = (".toml", ".prj", ".cpg", ".qpj")
_CHUNK = 1 << 20


@dataclass(frozen=True)
class StagedFile:
    """One staged file: its path relative to the submission, its size (bytes) and SHA-256."""

    path: str
    size: int
    sha256: str


@dataclass
class Staged:
    """A staged submission: where the copy is (``root``), the files copied and those left out (with why)."""

    source: Path
    root: Path
    files: list[StagedFile] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def total_bytes(self) -> int:
        """The bytes of the files copied."""
        return sum(f.size for f in self.files)

    def to_dict(self) -> dict[str, object]:
        """The staged files, those left out and the total bytes, for the report."""
        return {
            "files": [{"path": f.path, "bytes": f.size, "sha256": f.sha256} for f in self.files],
            "not_staged": list(self.skipped),
            "total_bytes": self.total_bytes,
        }


def size_limit_key(name: str) -> str:
    """The :class:`~geosite.io.limits.Limits` field that caps a file called ``name``."""
    low = name.lower()
    if low.endswith(VECTOR_SUFFIXES):
        return "max_vector_file_bytes"
    if low.endswith(TEXT_SUFFIXES):
        return "max_toml_bytes"
    return "max_staged_file_bytes"


def check_name(name: str, where: str) -> None:
    """Refuse a file or folder name geosite will not stage (:class:`~geosite.errors.UnsafeInputError`)."""
    where = one_line(where)
    if name in (".", ".."):
        raise UnsafeInputError(f"{where}: the name {name!r} is refused in a submission")
    if any(0xDC80 <= ord(c) <= 0xDCFF for c in name):
        raise UnsafeInputError(f"{where}: a file name that is not UTF-8 text; rename it")
    bad = [c for c in name if ord(c) < 32 or 127 <= ord(c) < 160 or c == "\\"]
    if bad:
        raise UnsafeInputError(
            f"{where}: a file name holding a control character or backslash ({bad[0]!r}); rename it"
        )


@dataclass
class _Entry:
    rel: str
    size: int
    dev: int
    ino: int


class _Deadline:
    """The time staging may take: ``LimitError`` once ``at`` (time.monotonic()) has passed."""

    def __init__(self, at: float | None, folder: Path, limits: Limits) -> None:
        self.at, self.folder, self.limits = at, folder, limits

    def check(self) -> None:
        """Raise :class:`~geosite.errors.LimitError` when the time is up."""
        if self.at is not None and time.monotonic() > self.at:
            raise LimitError(
                f"{one_line(self.folder)}: staging the submission took over check_seconds "
                f"{self.limits.check_seconds:,} s; stopped, nothing written. "
                "Raise with --limit check_seconds=N"
            )


@dataclass
class _Walk:
    """The walk of one submission folder: what it found so far (the files to copy, the journals left out,
    the folders as relative paths) and the folders still to list.
    """

    folder: Path
    limits: Limits
    root_dev: int
    entries: list[_Entry] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)
    stack: list[tuple[str, int]] = field(default_factory=lambda: [("", 0)])

    def listing(self, path: Path) -> list[os.DirEntry]:
        """The entries of folder ``path``, sorted by name; refused past the room the limits leave."""
        limits = self.limits
        room = limits.max_staged_files + limits.max_staged_folders - len(self.entries) - len(self.dirs)
        items = []
        try:
            with os.scandir(path) as it:
                for e in it:
                    items.append(e)
                    if len(items) > room:
                        raise UnsafeInputError(
                            f"{one_line(path)}: more entries than a submission may hold (max_staged_files "
                            f"{limits.max_staged_files:,} files, max_staged_folders "
                            f"{limits.max_staged_folders:,} folders); refused. Raise with --limit "
                            "max_staged_files=N or max_staged_folders=N"
                        )
        except OSError as exc:
            raise UnsafeInputError(f"{one_line(path)}: cannot be listed ({exc.strerror}); refused") from exc
        return sorted(items, key=lambda e: e.name)

    def entry(self, rel_dir: str, depth: int, e: os.DirEntry) -> None:
        """One entry: a folder queued, a file recorded (or a journal left out), anything else refused."""
        rel = f"{rel_dir}/{e.name}" if rel_dir else e.name
        where = one_line(self.folder / rel)
        check_name(e.name, where)
        try:
            st = e.stat(follow_symlinks=False)
        except OSError as exc:
            raise UnsafeInputError(f"{where}: cannot be examined ({exc.strerror}); refused") from exc
        if stat.S_ISLNK(st.st_mode):
            raise UnsafeInputError(
                f"{where}: a symbolic link; a submission must hold the files themselves "
                "(refused without following it)"
            )
        if stat.S_ISDIR(st.st_mode):
            self.dirs.append(rel)
            self._count(len(self.dirs), "max_staged_folders", "folders")
            self.stack.append((rel, depth + 1))
            return
        _check_plain_file(where, st, self.root_dev)
        if e.name.lower().endswith(JOURNALS):
            self.skipped.append(
                f"{rel}: a SQLite journal; not read (a GeoPackage is read as its main file holds it)"
            )
            return
        self.limits.check_file_size(where, st.st_size, size_limit_key(e.name))
        self.entries.append(_Entry(rel, st.st_size, st.st_dev, st.st_ino))
        self._count(len(self.entries), "max_staged_files", "files")

    def _count(self, n: int, key: str, what: str) -> None:
        limit = getattr(self.limits, key)
        if n > limit:
            raise UnsafeInputError(
                f"{one_line(self.folder)}: more than {key} {limit:,} {what}; refused. "
                f"Raise with --limit {key}=N"
            )


def _scan(folder: Path, limits: Limits, deadline: _Deadline) -> _Walk:
    """Every regular file under ``folder`` (links never followed), the journals left out, and the
    folders; refusals as UnsafeInputError / LimitError, before anything is copied.
    """
    walk = _Walk(folder, limits, os.stat(folder).st_dev)
    while walk.stack:
        rel_dir, depth = walk.stack.pop()
        if depth > MAX_DEPTH:
            raise UnsafeInputError(
                f"{one_line(folder / rel_dir)}: folders nested deeper than {MAX_DEPTH}; refused"
            )
        for e in walk.listing(folder / rel_dir if rel_dir else folder):
            deadline.check()
            walk.entry(rel_dir, depth, e)
    total = sum(e.size for e in walk.entries)
    limits.check_file_size(f"submission {one_line(folder)} (all its files)", total, "max_staged_total_bytes")
    return walk


def _check_plain_file(where: str, st: os.stat_result, root_dev: int) -> None:
    """UnsafeInputError unless ``st`` (not followed) is a regular file with one link on the submission's
    own file system (``root_dev``).
    """
    if st.st_dev != root_dev:
        raise UnsafeInputError(
            f"{where}: on another file system than the submission (a mount point); refused"
        )
    if not stat.S_ISREG(st.st_mode):
        kind = (
            "a FIFO (named pipe)"
            if stat.S_ISFIFO(st.st_mode)
            else "a socket"
            if stat.S_ISSOCK(st.st_mode)
            else "a device file"
            if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
            else "not a regular file"
        )
        raise UnsafeInputError(
            f"{where}: {kind}; a submission holds regular files only; refused without opening it"
        )
    if st.st_nlink > 1:
        raise UnsafeInputError(
            f"{where}: a file with {st.st_nlink} hard links (the same file may lie outside the "
            "submission under another name); refused: copy it into the folder"
        )


def _open_source(where: Path) -> int:
    """The scanned file opened without following a link or blocking (an UnsafeInputError if it cannot be)."""
    flags = (
        os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    )
    try:
        try:  # not even its access time changes (the file's owner, or root)
            return os.open(where, flags | getattr(os, "O_NOATIME", 0))
        except PermissionError:
            return os.open(where, flags)
    except OSError as exc:
        why = "it became a symbolic link" if exc.errno == errno.ELOOP else exc.strerror
        raise UnsafeInputError(
            f"{one_line(where)}: changed while it was being staged ({why}); refused"
        ) from exc


def _copy(src_root: Path, dst_root: Path, entry: _Entry, deadline: _Deadline) -> StagedFile:
    """Copy one scanned file (the same one: device and inode checked on the open descriptor), at most its
    scanned size, hashing it; the copy made read-only.
    """
    where = src_root / entry.rel
    fd = _open_source(where)
    digest = hashlib.sha256()
    dst = dst_root / entry.rel
    try:
        st = os.fstat(fd)
        if (
            not stat.S_ISREG(st.st_mode)
            or (st.st_dev, st.st_ino) != (entry.dev, entry.ino)
            or st.st_size != entry.size
        ):
            raise UnsafeInputError(
                f"{one_line(where)}: changed while it was being staged (replaced or resized); refused"
            )
        left = entry.size
        with open(dst, "xb") as out:
            while left > 0:
                deadline.check()
                chunk = os.read(fd, min(_CHUNK, left))
                if not chunk:
                    raise UnsafeInputError(f"{one_line(where)}: shrank while it was being staged; refused")
                digest.update(chunk)
                out.write(chunk)
                left -= len(chunk)
    finally:
        os.close(fd)
    os.chmod(dst, 0o444)
    return StagedFile(entry.rel, entry.size, digest.hexdigest())


def stage_submission(
    folder: str | Path, dest: str | Path, limits: Limits | None = None, *, deadline: float | None = None
) -> Staged:
    """Copy the submission ``folder`` into the new folder ``dest`` (which must not exist; its parent
    should be private to this run): regular files only, names, sizes and the total checked before any
    copy. Returns the :class:`Staged` copy with every file's SHA-256.

    Parameters
    ----------
    folder : str or Path
        The applicant's submission folder (the inspector's argument: it may itself be a link).
    dest : str or Path
        The staged copy's folder, created here.
    limits : Limits, optional
        Resource limits (:class:`~geosite.io.limits.Limits`: sizes in bytes, the number of files).
    deadline : float, optional
        The time, s on ``time.monotonic()``'s clock, after which staging stops with a LimitError (None:
        no deadline).

    Returns
    -------
    Staged
        The staged copy, with every file's SHA-256.
    """
    limits = limits or Limits()
    src = Path(folder)
    if not src.is_dir():
        from geosite.errors import MissingInputError

        raise MissingInputError(f"{one_line(src)}: site folder not found")
    src = src.resolve()
    clock = _Deadline(deadline, src, limits)
    walk = _scan(src, limits, clock)
    dst = Path(dest)
    dst.mkdir(mode=0o700)
    staged = Staged(src, dst, skipped=walk.skipped)
    try:
        for rel in sorted(walk.dirs, key=lambda r: r.count("/")):
            (dst / rel).mkdir(mode=0o700)
        for e in walk.entries:
            staged.files.append(_copy(src, dst, e, clock))
    except OSError as exc:  # a path the stage's file system refuses (too long under the stage's folder)
        raise UnsafeInputError(
            f"{one_line(src)}: a file of the submission cannot be staged ({exc.strerror}: "
            f"{one_line(exc.filename)}); refused"
        ) from exc
    return staged
