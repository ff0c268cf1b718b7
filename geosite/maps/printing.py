"""Putting a drawn sheet on paper at the least cost: text in the PDF's standard fonts, measured by
their own metrics, and the PNG preview rasterised from the PDF (one drawing pass).

Why (issue 25, measured on Lot 7's three sheets): embedding TrueType fonts made the PDF backend subset
11 fonts with fontTools on every run (about 37 % of the sheets' time), and drawing each figure a
second time with Agg for its PNG preview took about 26 %. Here:

- Text is set in two of the PDF's 14 standard fonts (Helvetica, Courier: ``pdf.use14corefonts``),
  which every PDF reader supplies: nothing is embedded, nothing subset, and the text stays text a
  reader can search and copy.
- Label placement measures text by the same Adobe font metrics (AFM files shipped with matplotlib)
  that the PDF backend lays it out with (:class:`CoreFontCanvas`), so a box measured clear of the
  others is the box printed, whatever TrueType fonts the machine has.
- The PNG preview is the PDF rasterised by PDFium (pypdfium2) when it is installed: the preview is
  then exactly the print. Without it, matplotlib's Agg draws the figure again (the old way).
- The standard fonts encode text in Windows-1252: :func:`core_text` writes the few characters beyond
  it the sheets might carry (``≥``, ``→``, ...) in ASCII, and any other one as ``?``, before anything
  is measured.
"""

from __future__ import annotations

import dataclasses
import logging
import unicodedata
from pathlib import Path
from typing import Any

import matplotlib as mpl
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg

from geosite.maps.preview import PngWriter, pdf_to_png

log = logging.getLogger(__name__)

#: Characters outside Windows-1252 that sheets may hold, written with characters inside it.
ASCII_FOR = {
    "≥": ">=",
    "≤": "<=",
    "→": "->",
    "←": "<-",
    "↑": "^",
    "↓": "v",
    "≈": "~",
    "−": "-",
    "‐": "-",
    "‑": "-",
    "∆": "delta ",
    "Δ": "delta ",
    "√": "sqrt",
    "∞": "inf",
    "≠": "!=",
    "\u2009": " ",
    "\u202f": " ",
    "\u2002": " ",
    "\u2003": " ",
}
#: TrueType faces metric-compatible with the standard fonts, first found first: matplotlib draws a
#: label's white halo as the outline of these glyphs (and Agg, without PDFium, the preview's text).
TRUETYPE_FOR = {
    "Helvetica": ("Liberation Sans", "Nimbus Sans", "Arimo", "DejaVu Sans"),
    "Courier": ("Liberation Mono", "Nimbus Mono PS", "Cousine", "DejaVu Sans Mono"),
}


def core_text(text: str) -> str:
    """``text`` in characters the PDF standard fonts can show (Windows-1252): a few symbols spelled in
    ASCII (:data:`ASCII_FOR`), accents kept where 1252 has them, else dropped, anything else ``?``.
    """
    from geosite.io.text import mpl_text

    out = []
    for ch in mpl_text(text):  # control characters escaped first (the text may be the applicant's)
        try:
            ch.encode("cp1252")
            out.append(ch)
            continue
        except UnicodeEncodeError:
            pass
        if ch in ASCII_FOR:
            out.append(ASCII_FOR[ch])
            continue
        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
        try:
            out.append(base.encode("cp1252").decode("cp1252") if base else "?")
        except UnicodeEncodeError:
            out.append("?")
    return "".join(out)


def core_texts(fig: Any) -> None:
    """Every text of ``fig`` made printable in the standard fonts (:func:`core_text`), in place."""
    texts = list(fig.texts)
    for ax in fig.axes:  # the axes' own texts (findobj would walk, and make, every tick too)
        texts += ax.texts
    for t in texts:
        s = t.get_text()
        if s and not (s.isascii() and s.isprintable()):
            fixed = core_text(s)
            if fixed != s:
                t.set_text(fixed)


def _afm(prop: Any) -> Any:
    """The Adobe font metrics of the standard font the PDF backend sets ``prop`` in."""
    from matplotlib import font_manager
    from matplotlib.backends._backend_pdf_ps import _cached_get_afm_from_fname
    from matplotlib.backends.backend_pdf import RendererPdf

    return _cached_get_afm_from_fname(
        font_manager.findfont(prop, fontext="afm", directory=RendererPdf._afm_font_dir)
    )


class CoreFontRenderer(RendererAgg):
    """Agg, measuring text as the PDF backend sets it in the standard fonts (same AFM metrics, same
    arithmetic, in pixels at this renderer's dpi); what it draws is Agg's own.
    """

    def get_text_width_height_descent(self, s: str, prop: Any, ismath: Any) -> tuple[float, float, float]:
        """Width, height and descent of ``s`` in pixels, by the standard font's metrics."""
        if ismath or not mpl.rcParams["pdf.use14corefonts"]:
            return super().get_text_width_height_descent(s, prop, ismath)
        _, _, w, h, d = _afm(prop).get_str_bbox_and_descent(s)
        scale = prop.get_size_in_points() / 1000 * self.dpi / 72
        return w * scale, h * scale, d * scale


class CoreFontCanvas(FigureCanvasAgg):
    """A figure's canvas whose renderer measures text by the standard fonts' metrics (label placement
    asks the canvas for its renderer).
    """

    def get_renderer(self) -> RendererAgg:
        """The canvas' :class:`CoreFontRenderer`, made again when the size or dpi changed."""
        w, h = self.get_width_height(physical=True)
        key = w, h, self.figure.dpi
        if getattr(self, "_core_key", None) != key:
            self.renderer = CoreFontRenderer(w, h, self.figure.dpi)
            self._core_key = key
        return self.renderer


_aliased: set[str] = set()


def _quiet_core_weight(record: logging.LogRecord) -> bool:
    """False (drop it) for matplotlib's notice that a standard font's normal weight is its Medium."""
    msg = record.getMessage()
    return not (
        msg.startswith("findfont: Failed to find font weight")
        and any(f" for {c}," in msg for c in TRUETYPE_FOR)
    )


def alias_core_fonts() -> None:
    """Let matplotlib find a TrueType face for each standard font (:data:`TRUETYPE_FOR`, the first
    installed), for the glyph outlines it draws as label halos; once per process. Where none is
    installed matplotlib falls back to its own DejaVu Sans, as before. Also quiets matplotlib's notice
    that Helvetica's normal weight is its Medium.
    """
    from matplotlib import font_manager

    if not _aliased:  # the standard fonts' AFM files say "Medium" where a text asks "normal": the same face
        logging.getLogger(font_manager.__name__).addFilter(_quiet_core_weight)
    fm = font_manager.fontManager
    for core, candidates in TRUETYPE_FOR.items():
        if core in _aliased:
            continue
        _aliased.add(core)
        if any(e.name == core for e in fm.ttflist):
            continue
        for name in candidates:
            faces = [e for e in fm.ttflist if e.name == name]
            if faces:
                fm.ttflist.extend(dataclasses.replace(e, name=core) for e in faces)
                fm._findfont_cached.cache_clear()  # type: ignore[attr-defined]
                break


def preview_png(pdf: Path, png: Path, dpi: int, fig: Any, writer: PngWriter | None = None) -> Path:
    """The PNG preview of a one-page ``pdf`` at ``dpi`` (dots per inch): the PDF rasterised by PDFium
    (pypdfium2) on white, encoded by ``writer`` when given (the file is complete when the writer is
    closed), else here; without pypdfium2, ``fig`` drawn again by Agg.
    """
    if not pdf_to_png(pdf, png, dpi, writer):
        fig.savefig(png, format="png", dpi=dpi, facecolor="white")
    return png


__all__ = [
    "CoreFontCanvas",
    "CoreFontRenderer",
    "PngWriter",
    "alias_core_fonts",
    "core_text",
    "core_texts",
    "preview_png",
]
