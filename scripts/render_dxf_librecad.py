"""Render geosite's DXF as LibreCAD draws it: each site folder analysed (``geosite analyze``, no maps unless
``--maps``), or each DXF given, printed to PDF by LibreCAD's ``dxf2pdf`` (headless, Qt's offscreen
platform) and rasterised to PNG (PDFium), for a person to look at and for tests/test_dxf_plan.py.

    python scripts/render_dxf_librecad.py --out out/librecad --maps \\
        data/sample_sites/grantsburg_lot7 data/sample_sites/belgium_commons

writes ``<name>.dxf``, ``<name>.pdf`` and ``<name>.png`` per input into ``--out`` and prints one line per
input: the DXF's entity counts and the PNG's size. LibreCAD (Debian ``librecad``) must be installed;
``dxf2pdf`` writes each PDF beside its DXF, so the DXF is copied into ``--out`` first.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

#: LibreCAD's page for dxf2pdf: ANSI D landscape (34 x 22 in), millimetres, the drawing fitted to it
PAPER_MM = "864x559"


def librecad() -> str | None:
    """The LibreCAD executable, or None where it is not installed."""
    return shutil.which("librecad")


def render(dxfs: list[Path], out: Path, dpi: int = 150) -> list[tuple[Path, Path]]:
    """Print each of ``dxfs`` to PDF with LibreCAD (one run, each fitted to :data:`PAPER_MM`) and rasterise
    it at ``dpi`` dots per inch; returns (pdf, png) of each, in ``out``.
    """
    exe = librecad()
    if exe is None:
        raise SystemExit("LibreCAD is not installed (Debian: apt-get install librecad)")
    out.mkdir(parents=True, exist_ok=True)
    targets = []
    for dxf in dxfs:
        target = out / dxf.name
        if target.resolve() != dxf.resolve():
            shutil.copyfile(dxf, target)
        target.with_suffix(".pdf").unlink(missing_ok=True)
        targets.append(target)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    run = subprocess.run(
        [exe, "dxf2pdf", "-a", "-p", PAPER_MM, "-t", str(out), *map(str, targets)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    missing = [t for t in targets if not t.with_suffix(".pdf").is_file()]
    if run.returncode != 0 or missing:
        raise SystemExit(f"LibreCAD did not print {missing}: exit {run.returncode}\n{run.stdout}{run.stderr}")
    import pypdfium2 as pdfium

    done = []
    for target in targets:
        pdf, png = target.with_suffix(".pdf"), target.with_suffix(".png")
        doc = pdfium.PdfDocument(str(pdf))
        try:
            doc[0].render(scale=dpi / 72.0).to_pil().save(png)
        finally:
            doc.close()
        done.append((pdf, png))
    return done


def site_dxf(site: Path, work: Path, maps: bool) -> Path:
    """``geosite analyze`` of a site folder into ``work``; its derived.dxf."""
    out = work / site.name
    cmd = [sys.executable, "-m", "geosite.cli", "analyze", str(site), "--out", str(out), "--overwrite"]
    if not maps:
        cmd.append("--no-maps")
    subprocess.run(cmd, check=True, capture_output=True, timeout=900)
    return out / "derived.dxf"


def counts(dxf: Path) -> str:
    """The DXF's entities by type, in words."""
    import ezdxf

    c = Counter(e.dxftype() for e in ezdxf.readfile(dxf).modelspace())
    return ", ".join(f"{n} {t}" for t, n in sorted(c.items()))


def main(argv: list[str] | None = None) -> int:
    """Render each input (see the module notes)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", type=Path, help="site folders or DXF files")
    ap.add_argument("--out", type=Path, required=True, help="folder for the DXF, PDF and PNG of each")
    ap.add_argument("--maps", action="store_true", help="draw the sheets too (the DXF takes their labels)")
    ap.add_argument("--dpi", type=int, default=150, help="PNG resolution, dots per inch")
    ap.add_argument(
        "--no-counts", dest="counts", action="store_false", help="do not count each DXF's entities"
    )
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    named = []
    with tempfile.TemporaryDirectory() as td:
        for src in args.inputs:
            dxf = site_dxf(src, Path(td), args.maps) if src.is_dir() else src
            named.append(args.out / f"{src.name if src.is_dir() else src.stem}.dxf")
            if dxf.resolve() != named[-1].resolve():
                shutil.copyfile(dxf, named[-1])
    for src, dxf, (_, png) in zip(args.inputs, named, render(named, args.out, args.dpi), strict=True):
        print(f"{src}: {png} ({counts(dxf) if args.counts else 'rendered'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
