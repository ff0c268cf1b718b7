"""Which ``geosite`` command the plugin runs, and the environment it runs in.

geosite runs in its own Python environment (a venv, conda or pip install), never inside QGIS's Python:
QGIS's GDAL and PROJ and geosite's (its wheels' own) never share a process. The user names the command
in the provider's setting (Settings > Options > Processing > Providers > geosite): the ``geosite``
executable itself, or the environment's folder (``.venv``: its ``bin/geosite`` or ``Scripts\\geosite.exe``);
left empty, ``geosite`` on the PATH QGIS was started with.

This module imports nothing from QGIS, so its rules are tested with the project's own Python.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

#: The provider setting naming the geosite command (ProcessingConfig; QgsSettings key
#: ``Processing/Configuration/GEOSITE_EXECUTABLE``).
SETTING = "GEOSITE_EXECUTABLE"

#: Environment variables of QGIS's own libraries, which the geosite child must not inherit: its Python
#: (a QGIS started with PYTHONPATH/PYTHONHOME pointing at its bundled site-packages), GDAL's and PROJ's
#: data and plugins (a proj.db of QGIS's PROJ is refused by another PROJ), and the dynamic loader's
#: paths (an AppImage's or a bundle's libraries would be loaded in place of the wheels' own).
_CLEARED_PREFIXES = ("PYTHON", "GDAL_", "CPL_", "OGR_", "PROJ_", "DYLD_")
_CLEARED_NAMES = ("LD_LIBRARY_PATH", "LD_PRELOAD", "PROJ_LIB", "PROJ_DATA", "GDAL_DATA")

#: Seconds a geosite probe (``--version``, ``profile list``) may take before it is given up.
PROBE_TIMEOUT_S = 60.0


class EngineNotFound(Exception):
    """No runnable geosite command where the setting (or PATH) points; the message says what to set."""


@dataclass(frozen=True)
class Engine:
    """A geosite command that answered: its path, its version and the profiles it ships."""

    executable: str
    version: str
    profiles: tuple[tuple[str, str], ...]  # (id, jurisdiction's name), e.g. ("grantsburg", "Village of ...")

    def describe(self) -> str:
        """One line for the log and the settings: ``geosite 0.1.0 at /path/to/bin/geosite``."""
        return f"geosite {self.version} at {self.executable}"


def _executables_in(folder: Path) -> list:
    """Where an environment folder keeps its geosite command (POSIX venv/conda, Windows venv/conda)."""
    names = ("geosite.exe", "geosite") if os.name == "nt" else ("geosite",)
    return [folder / sub / name for sub in ("bin", "Scripts", "") for name in names]


def candidates(configured: str) -> list:
    """The paths the setting ``configured`` names, in the order they are tried.

    Parameters
    ----------
    configured : str
        The setting's text: an executable, an environment's folder, or empty (``geosite`` on PATH).

    Returns
    -------
    list of Path
        Candidate executables (existing or not).
    """
    text = (configured or "").strip().strip('"')
    if not text:
        found = shutil.which("geosite")
        return [Path(found)] if found else []
    path = Path(os.path.expanduser(text))
    return _executables_in(path) if path.is_dir() else [path]


def locate(configured: str) -> str:
    """The geosite executable the setting names (or ``geosite`` on PATH).

    Parameters
    ----------
    configured : str
        The setting's text.

    Returns
    -------
    str
        The absolute path of an executable file.

    Raises
    ------
    EngineNotFound
        Nothing runnable there; the message names what was tried and where to set it.
    """
    tried = candidates(configured)
    for path in tried:
        if path.is_file() and os.access(path, os.X_OK):
            return str(path.resolve())
    where = ", ".join(str(p) for p in tried) or "no 'geosite' on PATH"
    raise EngineNotFound(
        f"geosite was not found ({where}). Install geosite in its own Python environment and set its "
        "command (e.g. /path/to/.venv/bin/geosite, or the environment's folder) in Settings > Options > "
        "Processing > Providers > geosite."
    )


def child_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment geosite runs in: QGIS's own library settings removed (:data:`_CLEARED_PREFIXES`),
    output unbuffered and in UTF-8 so each line reaches the log as it is written.

    Parameters
    ----------
    base : mapping, optional
        The environment to start from (default: this process's).

    Returns
    -------
    dict
        The child's environment.
    """
    env = dict(os.environ if base is None else base)
    for key in list(env):
        if key.upper().startswith(_CLEARED_PREFIXES) or key.upper() in _CLEARED_NAMES:
            del env[key]
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"
    if sys.platform == "win32":
        env["PYTHONUTF8"] = "1"
    return env


def _ask(executable: str, args: list) -> str:
    """The stdout of ``geosite ARGS`` (a probe: quick, no input); EngineNotFound when it fails."""
    try:
        run = subprocess.run(
            [executable, *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            env=child_env(),
            timeout=PROBE_TIMEOUT_S,
            check=False,
            **hidden_window(),
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise EngineNotFound(f"{executable} could not be run: {exc}") from exc
    if run.returncode != 0:
        said = (run.stderr or run.stdout).strip().splitlines()
        raise EngineNotFound(
            f"{executable} {' '.join(args)} failed (exit {run.returncode}): {said[-1] if said else ''}"
        )
    return run.stdout


def hidden_window() -> dict:
    """subprocess options that keep a console window from flashing up on Windows (none elsewhere)."""
    if sys.platform == "win32":
        return {"creationflags": getattr(subprocess, "CREATE_NO_WINDOW", 0)}
    return {}


_PROBED: dict[tuple[str, float, int], Engine] = {}


def probe(executable: str) -> Engine:
    """Ask ``executable`` its version and installed profiles (asked once per file: path, time, size).

    Parameters
    ----------
    executable : str
        A geosite executable (:func:`locate`).

    Returns
    -------
    Engine
        What it answered.

    Raises
    ------
    EngineNotFound
        It is not geosite, or too old to list its profiles (``geosite profile list`` and
        ``--progress-json`` are what the plugin needs).
    """
    stat = os.stat(executable)
    key = (executable, stat.st_mtime, stat.st_size)
    if key not in _PROBED:
        version_text = _ask(executable, ["--version"]).strip()
        if not version_text.startswith("geosite"):
            raise EngineNotFound(f"{executable} is not geosite (--version said {version_text!r})")
        version = version_text.rsplit(" ", 1)[-1]
        try:
            rows = json.loads(_ask(executable, ["profile", "list", "--json"]))
        except (ValueError, EngineNotFound) as exc:
            raise EngineNotFound(
                f"{executable} (geosite {version}) cannot list its profiles: the plugin needs a geosite "
                "with `geosite profile list` and `--progress-json`"
            ) from exc
        profiles = tuple((str(r["id"]), str(r["name"])) for r in rows)
        _PROBED[key] = Engine(executable=executable, version=version, profiles=profiles)
    return _PROBED[key]


def find_engine(configured: str) -> Engine:
    """The geosite the setting names, asked its version and profiles.

    Parameters
    ----------
    configured : str
        The setting's text (empty: ``geosite`` on PATH).

    Returns
    -------
    Engine
        The engine found.
    """
    return probe(locate(configured))
