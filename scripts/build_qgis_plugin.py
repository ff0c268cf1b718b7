"""Build the geosite QGIS plugin's installable zip (Plugins > Manage and Install Plugins > Install from ZIP).

    python scripts/build_qgis_plugin.py [--out dist]
    python scripts/build_qgis_plugin.py --for-upload \
        --repository URL --tracker URL --homepage URL --email ADDR

The zip holds one folder, ``geosite_processing/``: the plugin's Python modules, ``metadata.txt``,
``icon.svg``, ``LICENSE`` (the project's) and ``CHANGELOG.md``, nothing else (no ``__pycache__``, no
tests). ``metadata.txt`` gets its ``changelog`` from the newest CHANGELOG.md section, whose version must
be metadata.txt's; ``--for-upload`` requires what plugins.qgis.org requires besides (repository, tracker,
homepage, email) and adds them. The zip is the same bytes for the same sources (entries sorted, times
fixed) and appears only when complete.
"""

from __future__ import annotations

import argparse
import configparser
import io
import os
import re
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "qgis_plugin" / "geosite_processing"
NAME = PLUGIN.name
#: The files of the plugin folder that go into the zip, besides its Python modules.
DATA_FILES = ("metadata.txt", "icon.svg", "LICENSE", "CHANGELOG.md")
#: What plugins.qgis.org requires in metadata.txt beyond what the source holds.
UPLOAD_FIELDS = ("repository", "tracker", "homepage", "email")
#: A zip entry's time: fixed, so the same sources give the same bytes.
ZIP_TIME = (2026, 1, 1, 0, 0, 0)


class BuildError(Exception):
    """The plugin's sources are inconsistent (a version, a missing file); the message says which."""


@dataclass(frozen=True)
class Release:
    """The newest CHANGELOG.md section: its version and its entries as text."""

    version: str
    notes: str


def newest_release(changelog: str) -> Release:
    """The first ``## [X.Y.Z]`` section of ``changelog``.

    Parameters
    ----------
    changelog : str
        CHANGELOG.md's text.

    Returns
    -------
    Release
        Its version and its lines (headings and entries).
    """
    heads = list(re.finditer(r"^## \[([^\]]+)\]\s*$", changelog, flags=re.MULTILINE))
    if not heads:
        raise BuildError("CHANGELOG.md has no '## [version]' section")
    end = heads[1].start() if len(heads) > 1 else len(changelog)
    body = changelog[heads[0].end() : end].strip()
    return Release(version=heads[0].group(1), notes=body)


def metadata_text(source: str, release: Release, extra: dict[str, str]) -> str:
    """metadata.txt for the zip: the source's, with ``changelog`` and ``extra`` fields added.

    Parameters
    ----------
    source : str
        The plugin folder's metadata.txt.
    release : Release
        The newest changelog section (its version must be metadata.txt's).
    extra : dict
        Fields to add (``repository``, ``email``...).

    Returns
    -------
    str
        The metadata.txt written into the zip.
    """
    meta = configparser.ConfigParser(interpolation=None)
    meta.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep their case (qgisMinimumVersion)
    meta.read_string(source)
    general = meta["general"]
    if general.get("version") != release.version:
        raise BuildError(
            f"metadata.txt version {general.get('version')!r} is not CHANGELOG.md's newest "
            f"{release.version!r}"
        )
    lines = [ln.strip() for ln in release.notes.splitlines() if ln.strip()]
    general["changelog"] = "\n".join([release.version, *lines])
    for key, value in extra.items():
        general[key] = value
    out = io.StringIO()
    meta.write(out)
    return out.getvalue()


def plugin_files(folder: Path) -> list[Path]:
    """The files that go into the zip, relative to ``folder``, sorted."""
    missing = [name for name in DATA_FILES if not (folder / name).is_file()]
    if missing:
        raise BuildError(f"{folder}: missing {', '.join(missing)}")
    modules = [p.relative_to(folder) for p in folder.glob("*.py")]
    return sorted(modules + [Path(name) for name in DATA_FILES])


def build(out_dir: Path, extra: dict[str, str], folder: Path = PLUGIN) -> Path:
    """Write ``geosite_processing-VERSION.zip`` into ``out_dir``.

    Parameters
    ----------
    out_dir : Path
        Where the zip goes (created).
    extra : dict
        metadata.txt fields to add.
    folder : Path
        The plugin's folder.

    Returns
    -------
    Path
        The zip.
    """
    release = newest_release((folder / "CHANGELOG.md").read_text(encoding="utf-8"))
    metadata = metadata_text((folder / "metadata.txt").read_text(encoding="utf-8"), release, extra)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{NAME}-{release.version}.zip"
    fd, partial = tempfile.mkstemp(prefix=f".{target.name}.", dir=out_dir)
    os.close(fd)
    try:
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for rel in plugin_files(folder):
                data = metadata.encode() if rel.name == "metadata.txt" else (folder / rel).read_bytes()
                info = zipfile.ZipInfo(f"{NAME}/{rel.as_posix()}", date_time=ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                zf.writestr(info, data)
        os.replace(partial, target)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
    return target


def main(argv: list[str] | None = None) -> int:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, default=ROOT / "dist", help="Folder for the zip (default: dist/)."
    )
    parser.add_argument(
        "--for-upload", action="store_true", help="Require the fields plugins.qgis.org requires."
    )
    for field in UPLOAD_FIELDS:
        parser.add_argument(f"--{field}", default=None, help=f"metadata.txt {field}.")
    args = parser.parse_args(argv)
    extra = {f: getattr(args, f) for f in UPLOAD_FIELDS if getattr(args, f)}
    missing = [f"--{f}" for f in UPLOAD_FIELDS if f not in extra]
    if args.for_upload and missing:
        print(f"error: --for-upload needs {', '.join(missing)}", file=sys.stderr)
        return 2
    try:
        target = build(args.out, extra)
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
