"""PNG previews rasterised from the finished PDFs by PDFium (pypdfium2), encoded on a background thread.

No matplotlib here: the main process of a run whose sheets are drawn in a worker
(:mod:`geosite.maps.worker`) makes the previews of the PDFs the worker writes, without loading it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Self

#: The PNG previews' resolution: the screen's (the CSS reference pixel), not the print's.
PNG_DPI = 96

#: zlib level of the PNG previews: 1 writes a 22 x 17 in sheet in 0.064 s against level 6's 0.093 s
#: (Lot 7's existing site map), for a file 13 % larger (545 against 481 kB).
PNG_COMPRESS_LEVEL = 1


class PngWriter:
    """PNG previews encoded on one background thread while the next sheet is drawn (Pillow's encoder
    releases the GIL, so the zlib work runs beside matplotlib's on a second core). A context manager:
    leaving it waits for every file and raises the first error.
    """

    def __init__(self) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="geosite-png")
        self._futures: list[Any] = []

    def submit(self, image: Any, png: Path, dpi: int) -> None:
        """Encode ``image`` (a PIL image it alone holds) into ``png`` at ``dpi``, later."""
        self._futures.append(self._pool.submit(_write_png, image, png, dpi))

    def close(self) -> None:
        """Wait for every preview; the first error is raised."""
        try:
            for f in self._futures:
                f.result()
        finally:
            self._pool.shutdown(wait=True)
            self._futures = []

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _write_png(image: Any, png: Path, dpi: int) -> None:
    image.save(png, format="png", dpi=(dpi, dpi), compress_level=PNG_COMPRESS_LEVEL)


def pdf_to_png(pdf: Path, png: Path, dpi: int, writer: PngWriter | None = None) -> bool:
    """The PNG preview of a one-page ``pdf``: the PDF rasterised by PDFium on white at ``dpi``.

    Parameters
    ----------
    pdf : pathlib.Path
        The PDF.
    png : pathlib.Path
        The PNG to write.
    dpi : int
        The preview's resolution, dots per inch.
    writer : PngWriter or None
        Encodes the PNG on its thread (the file is complete when it is closed); None: encoded here.

    Returns
    -------
    bool
        False (nothing written) when pypdfium2 is not installed.
    """
    try:
        import pypdfium2 as pdfium
    except ImportError:
        return False
    doc = pdfium.PdfDocument(str(pdf))
    try:
        image = doc[0].render(scale=dpi / 72, fill_color=(255, 255, 255, 255)).to_pil()
        if getattr(image, "readonly", 0):  # a view of PDFium's buffer: a copy outlives the document
            image = image.copy()
    finally:
        doc.close()
    if writer is None:
        _write_png(image, png, dpi)
    else:
        writer.submit(image, png, dpi)
    return True


__all__ = ["PNG_COMPRESS_LEVEL", "PNG_DPI", "PngWriter", "pdf_to_png"]
