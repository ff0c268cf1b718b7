"""The ``geosite`` click group: one place for what every command shares.

- ``-v/-q`` (before or after the command: ``geosite analyze SITE -q``) set the log level, whether
  warnings and progress (:class:`Steps`, on a terminal only) are printed, and :class:`CliState`, which
  each command reads;
- ``--progress-json`` is for a program running geosite (the QGIS plugin): each stage, warning and bad
  input becomes one JSON object on a line of stderr (:class:`JsonSteps`), whatever stderr is;
- :meth:`Geosite.invoke` is the one error handler: :class:`~geosite.errors.InputError` and
  :class:`~geosite.errors.OutputError` from any command print ``error: ...`` and exit 2;
- commands live one per module in this package and are imported only when used, so ``geosite --help``
  stays fast.

Exit codes: 0 done; 1 findings (``check``) or failed sites (``batch``); 2 bad input (a usage error, a
site that fails validation, an output that exists without --overwrite).
"""

from __future__ import annotations

import importlib
import json
import logging
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

import click

from geosite._version import __version__

if TYPE_CHECKING:
    from geosite.io.limits import Limits

log = logging.getLogger("geosite")

#: command name -> the module of this package defining it, and the click command's name there.
COMMANDS = {
    "analyze": ("analyze", "analyze"),
    "map": ("map", "map_cmd"),
    "check": ("check", "check"),
    "schedule": ("schedule", "schedule"),
    "batch": ("batch", "batch"),
    "profile": ("profile", "profile"),
}
VERBOSITY = ("-q", "--quiet", "-v", "-vv", "-vvv", "--verbose", "--progress-json")

F = TypeVar("F", bound=Callable[..., Any])


class Steps:
    """The run's progress on stderr: one line, redrawn by tqdm, naming the stage running, how many have
    run and the time since the first. Silent under -q and wherever stderr is not a terminal (a log
    file, a pipe, a test: tqdm draws nothing there). The pipeline only calls it with each stage's name
    (it never imports the CLI); close it (or use it as a context manager) before printing results.
    """

    def __init__(self, quiet: bool, file: TextIO | None = None) -> None:  # a text stream, default stderr
        self.quiet = quiet
        self.file = file
        self._bar: Any = None

    def __call__(self, name: str) -> None:
        """Show that the stage ``name`` runs now.

        Parameters
        ----------
        name : str
            The stage, as the user reads it ("loading and validating the site").
        """
        if self.quiet:
            return
        if self._bar is None:
            from tqdm import tqdm

            # a redraw per stage (mininterval 0): a run has some fifteen, each worth seeing
            self._bar = tqdm(
                total=None,
                initial=1,
                desc=name,
                file=self.file or sys.stderr,
                disable=None,
                leave=False,
                mininterval=0,
                dynamic_ncols=True,
                bar_format="geosite: {desc} (stage {n_fmt}, {elapsed})",
            )
        else:
            self._bar.set_description_str(name, refresh=False)
            self._bar.update(1)

    def close(self) -> None:
        """Erase the progress line (a run's printed results follow it)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Steps:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class JsonSteps(Steps):
    """The run's progress for a program (``--progress-json``): one line of JSON on stderr per stage,
    ``{"step": 1, "name": "loading and validating the site", "elapsed_s": 0.0}``, numbered from 1, the
    seconds counted from the first stage; written under -q too and whatever stderr is, each line flushed
    as its stage begins.
    """

    def __init__(self, file: TextIO | None = None) -> None:  # a text stream, default stderr
        super().__init__(quiet=False, file=file)
        self._count = 0
        self._t0 = 0.0

    def __call__(self, name: str) -> None:
        """Write the line of the stage ``name``, which runs now.

        Parameters
        ----------
        name : str
            The stage, as the user reads it ("loading and validating the site").
        """
        now = time.perf_counter()
        if self._count == 0:
            self._t0 = now
        self._count += 1
        event = {"step": self._count, "name": name, "elapsed_s": round(now - self._t0, 3)}
        json_line(event, self.file)


def json_line(event: dict[str, Any], file: TextIO | None = None) -> None:
    """Write ``event`` as one line of JSON on ``file`` (default stderr), flushed.

    Parameters
    ----------
    event : dict
        The object written (``{"step": ...}``, ``{"warning": ...}``, ``{"error": ...}``).
    file : text stream, optional
        Where it goes; stderr when not given.
    """
    stream = file or sys.stderr
    stream.write(json.dumps(event, ensure_ascii=False) + "\n")
    stream.flush()


@dataclass(frozen=True)
class CliState:
    """What the group's options decided, for every command (``ctx.find_object(CliState)``)."""

    quiet: bool = False
    verbose: int = 0
    progress_json: bool = False

    def steps(self) -> Steps:
        """The progress of this run: a line on a terminal (silent under -q), or JSON lines
        (``--progress-json``).

        Returns
        -------
        Steps
            Called with each stage's name; close it before printing results.
        """
        return JsonSteps() if self.progress_json else Steps(self.quiet)


def output_folder(out: Path, inputs: Sequence[Path], overwrite: bool, container: bool = False) -> Path:
    """The output folder, refused before any work when it exists (without --overwrite, or not written
    by geosite), overlaps an input or cannot be written (:func:`geosite.io.output.check_output_dir`).

    Parameters
    ----------
    out : Path
        The output folder asked for.
    inputs : sequence of Path
        The input folders and files it must not overlap.
    overwrite : bool
        Whether an existing folder written by geosite may be replaced.
    container : bool
        Whether ``out`` holds one folder per site (``geosite batch``).

    Returns
    -------
    Path
        The checked output folder.
    """
    from geosite.errors import OutputError
    from geosite.io.names import OUTPUT_NAME_MAX_BYTES
    from geosite.io.output import check_output_dir
    from geosite.io.text import one_line

    size = len(Path(out).name.encode("utf-8", "surrogateescape"))
    if size > OUTPUT_NAME_MAX_BYTES:
        raise OutputError(
            f"--out {one_line(out)}: a folder name of {size} bytes; geosite's temporary folders beside it "
            f"need room, so it may have at most {OUTPUT_NAME_MAX_BYTES}: choose a shorter --out"
        )
    return check_output_dir(out, inputs, overwrite, container)


def default_out(folder: Path, suffix: str = "") -> Path:
    """The output folder when ``--out`` is not given: ``geosite-out/<folder's name><suffix>``, the name
    bounded and sanitized (:func:`geosite.io.names.safe_name`: a submission's folder name is the applicant's).

    Parameters
    ----------
    folder : Path
        The site or submission folder.
    suffix : str
        The ending geosite adds (``"-check"``, ``"-maps"``).

    Returns
    -------
    Path
        The default output folder.
    """
    from geosite.io.names import safe_name

    return Path("geosite-out") / safe_name(Path(folder).resolve().name, suffix=suffix)


#: The options several commands share, each written once (``--help`` reads the same in each).
SITE_DIR = click.argument("site_dir", type=click.Path(path_type=Path))
JURISDICTION = click.option(
    "--jurisdiction", default=None, help="Profile name; overrides site.toml (e.g. grantsburg, belgium)."
)
OVERWRITE = click.option("--overwrite", is_flag=True, help="Replace an existing output folder.")


def out_option(default: str) -> Callable[[F], F]:
    """The ``--out`` folder option, ``default`` saying where it goes when not given.

    Parameters
    ----------
    default : str
        The default folder as the help text names it.

    Returns
    -------
    callable
        The click option.
    """
    return click.option(
        "--out",
        "out",
        type=click.Path(path_type=Path),
        default=None,
        help=f"Output folder (default: {default}). Never inside the site folder.",
    )


def options(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    """One decorator applying a command's click arguments and options in the order listed.

    The order is that of decorators stacked top to bottom, so ``--help`` lists them as written.

    Parameters
    ----------
    *decorators : callable
        ``click.argument(...)`` and ``click.option(...)`` decorators, first shown first.

    Returns
    -------
    callable
        A decorator applying them all.
    """

    def _apply(f: F) -> F:
        for decorator in reversed(decorators):
            f = decorator(f)
        return f

    return _apply


def limit_option(f: F) -> F:
    """``--limit KEY=VALUE`` (repeatable): raise or lower one of geosite.io.limits.Limits."""
    return click.option(
        "--limit",
        "limit",
        multiple=True,
        metavar="KEY=VALUE",
        help="Change a resource limit (repeatable), e.g. --limit max_vertices_total=5000000; "
        "the limits and their defaults: docs/security.md.",
    )(f)


def limits_from(items: tuple[str, ...]) -> Limits:
    """The :class:`geosite.io.limits.Limits` the ``--limit`` options ask for."""
    from geosite.io.limits import parse_limits

    return parse_limits(items)


def state(ctx: click.Context) -> CliState:
    """The group's :class:`CliState` (defaults when a command is invoked on its own, as in tests)."""
    return ctx.find_object(CliState) or CliState()


class Geosite(click.Group):
    """The group: lazy commands, verbosity flags anywhere, and the one error handler."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Accept -q/-v after the command too (``geosite analyze SITE -q``): they are the group's."""
        end = args.index("--") if "--" in args else len(args)
        flags = [a for a in args[:end] if a in VERBOSITY]
        rest = [a for a in args[:end] if a not in VERBOSITY] + args[end:]
        return super().parse_args(ctx, flags + rest)

    def list_commands(self, ctx: click.Context) -> list[str]:
        """The command names, sorted (for ``--help``)."""
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        """The command ``name``, imported from its module on first use (None when there is none)."""
        if name not in COMMANDS:
            return None
        module, attr = COMMANDS[name]
        return getattr(importlib.import_module(f"geosite.cli.{module}"), attr)

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; a bad input or output prints ``error: ...`` (``{"error": ...}`` under
        ``--progress-json``) and exits 2.
        """
        from geosite.errors import InputError, OutputError

        try:
            return super().invoke(ctx)
        except (InputError, OutputError) as exc:
            if state(ctx).progress_json:
                json_line({"error": str(exc)})
            else:
                click.echo(f"error: {error_text(exc)}", err=True)
            sys.exit(2)


#: How geosite lists several problems in one error (geosite.errors.SiteValidationError, a rain file's rows).
PROBLEM_SEPARATOR = "\n  - "


def error_text(exc: BaseException) -> str:
    """An error's message for the console: each line printable (a name holding a line break or a terminal
    escape cannot add a line or move the cursor), several problems one per line.

    Parameters
    ----------
    exc : BaseException
        The error (its ``problems``, when it lists several, else its message).

    Returns
    -------
    str
        The message: one line per problem, each escaped (:func:`geosite.io.text.one_line`).
    """
    from geosite.io.text import one_line

    problems = getattr(exc, "problems", None)
    if isinstance(problems, list) and problems:
        head = str(exc).split(PROBLEM_SEPARATOR, 1)[0]
        parts = [head, *problems]
    else:
        parts = str(exc).split(PROBLEM_SEPARATOR)
    return PROBLEM_SEPARATOR.join(one_line(p) for p in parts)


def _setup_logging(verbose: int, quiet: bool) -> None:
    level = (
        logging.WARNING
        if quiet
        else (logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING)
    )
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    # the level on the handler too: libraries that set their own loggers' levels (distributed logs its
    # scheduler and workers at INFO) would otherwise print through the root handler under -q
    for handler in logging.getLogger().handlers:
        handler.setLevel(level)


def _show_warnings(quiet: bool, as_json: bool) -> None:
    def _show(
        message: Warning | str, category: type[Warning], filename: str, lineno: int, *rest: Any, **kw: Any
    ) -> None:
        """Print ``warning: message`` on stderr unless -q, or ``{"warning": message}`` under
        --progress-json (warnings.showwarning's signature: the place and the source line, in ``rest`` or
        ``kw``, are not printed).
        """
        if as_json:
            json_line({"warning": str(message)})
        elif not quiet:
            from geosite.io.text import one_line

            click.echo(f"warning: {one_line(message)}", err=True)

    warnings.showwarning = _show


@click.group(cls=Geosite, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="geosite")
@click.option("-v", "--verbose", count=True, help="More log output (-vv for debug).")
@click.option("-q", "--quiet", is_flag=True, help="Only errors.")
@click.option(
    "--progress-json",
    is_flag=True,
    help="For programs running geosite: each stage, warning and bad input as one line of JSON on stderr "
    '({"step": 1, "name": ..., "elapsed_s": ...}, {"warning": ...}, {"error": ...}).',
)
@click.pass_context
def cli(ctx: click.Context, verbose: int, quiet: bool, progress_json: bool) -> None:
    """Erosion control plans for construction sites (Wisconsin village ordinances)."""
    _setup_logging(verbose, quiet)
    _show_warnings(quiet, progress_json)
    ctx.obj = CliState(quiet=quiet, verbose=verbose, progress_json=progress_json)


def main() -> None:
    """The ``geosite`` console script. For ``geosite check`` the sandbox's server is started first, before
    the command line is even parsed: it imports what a check runs while this process starts.
    """
    words = [a for a in sys.argv[1:] if not a.startswith("-")]
    if words[:1] == ["check"]:
        from geosite.review.sandbox import start_early

        start_early()
    cli(prog_name="geosite")
