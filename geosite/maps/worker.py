"""The plan maps drawn on a second core, beside the rest of a run.

``geosite analyze`` starts a :class:`MapWorker` before it reads the site: a child process (forked, so
it starts in milliseconds) that imports matplotlib and the sheets' code and warms their caches while
the parent measures the site. When the analysis is done the parent sends it the result
(:meth:`MapWorker.submit`) and goes on writing report.json, the GeoPackage and the DXF; the child draws
the three sheets into the same temporary output folder and names each PDF as it is written, and the
parent, its own files written, makes their PNG previews (PDFium, :mod:`geosite.maps.preview`) while
the child draws the next. Once the sheets are drawn, before any is written, the child sends the
construction plan's labels as placed (:class:`geosite.symbols.PlacedLabel`, model space), which the
parent hands to ``wait``'s ``on_labels`` (the DXF writes its text there) while the child writes the
PDFs. :meth:`PendingMaps.wait` collects the files, or raises the error the child
met (the same exception, with the child's traceback as a note), so a failed sheet still fails the run,
whose output folder is then never made (it is written atomically).

The sheets are the same as drawn in one process: the child runs :func:`geosite.maps.render_plan_maps`
on a copy of the same result. Where a copy cannot be made (a result that will not pickle), on one CPU,
or where ``fork`` is not available, the sheets are drawn in the calling process as before.

This module imports no matplotlib: the parent never loads it.
"""

from __future__ import annotations

import gc
import logging
import os
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from geosite.errors import GeositeError

log = logging.getLogger(__name__)
#: the map whose placed labels :meth:`PendingMaps.wait` hands on (the DXF's text): the construction plan's
LABELS_FROM = "construction"
LabelsTo = Callable[[tuple[Any, ...]], None]


@dataclass(frozen=True)
class MapJob:
    """What the child draws: the analysis result, the folder and :func:`render_plan_maps` options.

    Attributes
    ----------
    result : geosite.pipeline.AnalysisResult
        The analysis whose sheets are drawn.
    out_dir : pathlib.Path
        The folder the sheets are written into (the run's temporary output folder).
    options : dict of str to object
        Keyword options of :func:`geosite.maps.render_plan_maps` (``sheet``, ``scale_ft`` in feet per
        inch).
    previews_dpi : int or None
        Set: the child draws no previews but names each PDF as it is written, and the parent
        rasterises them at this resolution (dots per inch) once its own files are written.
    """

    result: Any
    out_dir: Path
    options: dict[str, Any] = field(default_factory=dict)
    previews_dpi: int | None = None


def _warm() -> None:
    """Import what drawing needs and fill the caches a first sheet fills: a small sheet with text in
    each face, a hatch and a halo, written as PDF (to memory) and rasterised. Nothing here changes what
    a sheet prints: only caches (fonts found and parsed, modules loaded). What a result unpickles into
    (geosite.pipeline) the parent has loaded before it forked (``geosite analyze`` imports it first).
    """
    import io

    from matplotlib import patheffects, rc_context
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    import geosite.maps.planset  # noqa: F401  # every drawing module
    from geosite.maps.layout import FONT, MONO, RC
    from geosite.maps.printing import CoreFontCanvas, alias_core_fonts, preview_png

    alias_core_fonts()
    with rc_context(RC):
        fig = Figure(figsize=(2, 1), dpi=100)
        CoreFontCanvas(fig)
        ax = fig.add_axes((0.1, 0.1, 0.8, 0.8))
        ax.set_xticks([])
        ax.set_yticks([])
        ax.add_patch(Rectangle((0.1, 0.1), 0.3, 0.3, hatch="//", fc="none", ec="k"))
        halo = [patheffects.Stroke(linewidth=2, foreground="white")]
        for k, (family, weight, style) in enumerate(
            (
                (FONT, "normal", "normal"),
                (FONT, "bold", "normal"),
                (FONT, "normal", "italic"),
                (MONO, "normal", "normal"),
            )
        ):
            kw: dict[str, Any] = {"family": family, "fontweight": weight, "style": style}
            ax.text(0.5, 0.2 * k, "Warm 1.5 ft", path_effects=halo, **kw)
            ax.text(0.5, 0.2 * k, "Warm 1.5 ft", **kw).get_window_extent()
        pdf = io.BytesIO()
        fig.savefig(pdf, format="pdf")
    import tempfile

    with tempfile.TemporaryDirectory() as td:
        path = Path(td) / "warm.pdf"
        path.write_bytes(pdf.getvalue())
        preview_png(path, path.with_suffix(".png"), 10, fig)


def _serve(conn: Any) -> None:
    """The child: warm up, wait for one :class:`MapJob`, draw it, send back the files or the error."""
    try:
        _warm()
    except Exception:  # warming is only a head start; the job says what really fails
        log.debug("map worker warm-up failed", exc_info=True)
    try:
        job = conn.recv()
    except (EOFError, OSError):
        return  # the parent finished (or failed) without maps
    if job is None:
        return
    gc.freeze()  # the result and the imports are kept to the end: never traversed again
    gc.disable()  # a short-lived process: its few cycles are freed when it exits
    from geosite.maps.planset import render_plan_maps

    def written(pdf: Path) -> None:
        """Name a finished PDF to the parent, which makes its preview."""
        conn.send(("pdf", pdf))

    def placed(by_map: dict[str, list[Any]]) -> None:
        """Send the parent the construction plan's labels as placed."""
        conn.send(("labels", tuple(by_map.get(LABELS_FROM, ()))))

    try:
        files = render_plan_maps(
            job.result,
            job.out_dir,
            **job.options,
            on_pdf=written if job.previews_dpi else None,
            on_labels=placed,
        )
        conn.send(("done", files))
    except BaseException as exc:  # every failure goes back to the parent, which raises it
        text = traceback.format_exc()
        try:
            conn.send(("failed", exc, text))
        except Exception:  # an exception that will not pickle: its type and message
            conn.send(("failed", None, text))
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(0)  # at once: tearing down a process holding a whole analysis costs the run time for nothing


class MapWorker:
    """A child process, started early, that draws one plan set when :meth:`submit` sends it the result.

    Use :func:`map_worker` (a context manager) rather than this class directly: it starts the worker
    only where it can help, and always ends it.
    """

    def __init__(self) -> None:
        import multiprocessing

        mp = multiprocessing.get_context("fork")
        for stream in (sys.stdout, sys.stderr):  # nothing buffered is written twice, by both processes
            stream.flush()
        self._conn, child = mp.Pipe()
        self._proc = mp.Process(target=_serve, args=(child,), name="geosite-maps", daemon=True)
        self._proc.start()
        child.close()
        self._state = "idle"  # then "busy" (a job sent), "done" (its reply read)
        self._previews_dpi: int | None = None

    def submit(self, result: Any, out_dir: Path, options: dict[str, Any]) -> bool:
        """Send the child a job; False (and the child ended) when the result cannot be sent.

        Parameters
        ----------
        result : geosite.pipeline.AnalysisResult
            The analysis whose sheets are drawn.
        out_dir : pathlib.Path
            The folder the sheets are written into.
        options : dict of str to object
            Keyword options of :func:`geosite.maps.render_plan_maps`.

        Returns
        -------
        bool
            Whether the child has the job.
        """
        if self._state != "idle" or not self._proc.is_alive():
            return False
        options = dict(options)
        previews = _previews_here(options)
        if previews:
            options["png_dpi"] = None  # the PDFs only: the previews are made here (see wait)
        try:
            self._conn.send(MapJob(result, Path(out_dir), options, previews))
        except Exception as exc:  # pickled before anything is written: the pipe holds no partial job
            log.debug("plan maps drawn in this process: the result could not be sent (%s)", exc)
            self.close()
            return False
        self._state = "busy"
        self._previews_dpi = previews
        return True

    def wait(self, on_labels: LabelsTo | None = None) -> list[Path]:
        """The files the child wrote; raises the error it met.

        Parameters
        ----------
        on_labels : callable, optional
            Called with the construction plan's placed labels (a tuple of
            :class:`geosite.symbols.PlacedLabel`) as soon as the child sends them, while it writes the PDFs.

        Returns
        -------
        list of pathlib.Path
            The sheets' PDF and PNG files, as :func:`geosite.maps.render_plan_maps` returns them.
        """
        from geosite.maps.preview import PngWriter, pdf_to_png

        pngs: dict[Path, Path] = {}
        with PngWriter() as writer:  # the previews of the PDFs the child names, as they come
            reply = self._reply()
            while reply[0] in ("pdf", "labels"):
                if reply[0] == "labels":
                    if on_labels is not None:
                        on_labels(reply[1])
                    reply = self._reply()
                    continue
                pdf = Path(reply[1])
                pngs[pdf] = pdf.with_suffix(".png")
                pdf_to_png(pdf, pngs[pdf], self._previews_dpi or 0, writer)
                reply = self._reply()
        self._state = "done"
        if reply[0] == "done":
            return [f for p in reply[1] for f in ([Path(p), pngs[Path(p)]] if Path(p) in pngs else [p])]
        _, exc, text = reply
        if isinstance(exc, BaseException):
            exc.add_note("(raised drawing the plan maps, in their worker process:)\n" + text)
            raise exc
        raise GeositeError(f"the plan maps were not drawn:\n{text}")

    def _reply(self) -> tuple[Any, ...]:
        """The child's next message: ``("pdf", path)``, ``("done", files)`` or ``("failed", exc, text)``."""
        try:
            return tuple(self._conn.recv())
        except (EOFError, OSError):
            self._proc.join(timeout=5)
            raise GeositeError(
                f"the plan maps were not drawn: their worker process ended (exit code {self._proc.exitcode})"
            ) from None

    def close(self) -> None:
        """End the child: at once unless it has sent its reply (a run that failed, or drew no maps,
        does not wait for it); a child that replied exits by itself.
        """
        self._conn.close()
        if self._state == "done":
            return  # it is exiting; multiprocessing reaps it when this process ends
        self._proc.terminate()
        self._proc.join(timeout=5)
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join()


def _previews_here(options: dict[str, Any]) -> int | None:
    """The PNG previews' resolution (dots per inch) when the parent makes them from the child's PDFs:
    previews asked for, no SVG, and PDFium installed (without it a preview is the figure drawn again,
    which only the child holds). None: the child makes its own.
    """
    import importlib.util

    from geosite.maps.preview import PNG_DPI

    dpi = options.get("png_dpi", PNG_DPI)
    if not dpi or options.get("svg") or importlib.util.find_spec("pypdfium2") is None:
        return None
    return int(dpi)


def _can_fork() -> bool:
    """Whether a worker can help: ``fork`` exists and the process may run on two CPUs or more."""
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        return False
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cpus >= 2


@contextmanager
def map_worker(enabled: bool = True) -> Iterator[MapWorker | None]:
    """A :class:`MapWorker` started now, ended on leaving; None when disabled or it cannot help.

    Parameters
    ----------
    enabled : bool
        False (the run draws no maps): no worker.

    Yields
    ------
    MapWorker or None
        The worker to pass to :func:`start_plan_maps`.
    """
    worker = None
    if enabled and _can_fork():
        try:
            worker = MapWorker()
        except (AssertionError, OSError) as exc:  # a daemonic process may not start one; out of processes
            log.debug("plan maps drawn in this process: no worker (%s)", exc)
    try:
        yield worker
    finally:
        if worker is not None:
            worker.close()


@dataclass
class PendingMaps:
    """Plan maps being drawn: in a worker, or (``worker`` None) when :meth:`wait` is called.

    Attributes
    ----------
    job : MapJob or None
        The sheets to draw; None draws none.
    worker : MapWorker or None
        The worker drawing them; None draws them in this process.
    """

    job: MapJob | None
    worker: MapWorker | None = None

    def wait(self, on_labels: LabelsTo | None = None) -> list[Path]:
        """The sheets' files, once written.

        Parameters
        ----------
        on_labels : callable, optional
            Called with the construction plan's placed labels (a tuple of
            :class:`geosite.symbols.PlacedLabel`) once the sheets are drawn, before they are written; not
            called when no maps are drawn.

        Returns
        -------
        list of pathlib.Path
            The PDF and PNG files written (empty when no maps were asked for).
        """
        if self.job is None:
            return []
        if self.worker is not None:
            return self.worker.wait(on_labels)
        from geosite.maps.planset import render_plan_maps

        def placed(by_map: dict[str, list[Any]]) -> None:
            """Hand on the construction plan's labels as placed."""
            if on_labels is not None:
                on_labels(tuple(by_map.get(LABELS_FROM, ())))

        return render_plan_maps(self.job.result, self.job.out_dir, **self.job.options, on_labels=placed)

    def cancel(self) -> None:
        """Stop a worker still drawing (the run failed before :meth:`wait`): nothing more is written."""
        if self.worker is not None:
            self.worker.close()


def start_plan_maps(
    result: Any, out_dir: Path, *, enabled: bool = True, worker: MapWorker | None = None, **options: Any
) -> PendingMaps:
    """Begin drawing the plan maps into ``out_dir``: on ``worker`` when given (and the result can be
    sent to it), else in this process when the result's :meth:`PendingMaps.wait` is called.

    Parameters
    ----------
    result : geosite.pipeline.AnalysisResult
        The analysis whose sheets are drawn.
    out_dir : pathlib.Path
        The folder the sheets are written into.
    enabled : bool
        False: no maps (:meth:`PendingMaps.wait` returns no files).
    worker : MapWorker or None
        A worker started by :func:`map_worker`.
    **options : object
        Keyword options of :func:`geosite.maps.render_plan_maps` (``sheet``, ``scale_ft`` in feet per
        inch).

    Returns
    -------
    PendingMaps
        The sheets being drawn; :meth:`PendingMaps.wait` gives their files.
    """
    if not enabled:
        return PendingMaps(None)
    job = MapJob(result, Path(out_dir), dict(options))
    if worker is not None and worker.submit(result, job.out_dir, job.options):
        return PendingMaps(job, worker)
    return PendingMaps(job)


__all__ = ["MapJob", "MapWorker", "PendingMaps", "map_worker", "start_plan_maps"]
