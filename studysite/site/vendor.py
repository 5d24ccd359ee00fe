"""Third-party browser libraries shipped inside the built site: copied from node_modules with their licences.

This is the one list of them. Each entry is loaded by the site's own scripts from
`assets/qa/vendor/` at the site root (shared by every language); nothing is fetched from another host.
Add a library here (and to package.json, pinned) rather than copying it anywhere else.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from ..errors import SiteError
from ..project import ROOT

VENDOR_DIR = "assets/qa/vendor"
"""Where the libraries go, relative to the site root."""


@dataclass(frozen=True)
class Vendored:
    """One file of an npm package, shipped as `name` with the package's licence beside it."""

    package: str
    """The npm package (pinned in package.json)."""
    source: str
    """The file to ship, relative to the package folder."""
    name: str
    """Its name under VENDOR_DIR."""
    licence: str = "LICENSE"
    """The package's licence file, shipped as `<name>.LICENSE.txt` ("": the licence heads the file itself)."""


VENDOR: tuple[Vendored, ...] = (
    # FSRS scheduling for the daily review (study-store.js loads it on the pages that schedule).
    Vendored("ts-fsrs", "dist/index.umd.js", "ts-fsrs.js"),
    # Plots on the stats page (study-stats.js loads them there only).
    Vendored("uplot", "dist/uPlot.iife.min.js", "uPlot.iife.min.js"),
    Vendored("uplot", "dist/uPlot.min.css", "uPlot.min.css"),
    # The progress link as a QR code (study-link.js loads it when the reader asks for one). The
    # package ships no licence file: its MIT notice heads the file itself, which is shipped whole.
    Vendored("qrcode-generator", "dist/qrcode.js", "qrcode.js", licence=""),
)
"""Every library the built site ships."""


def copy_vendor(site_dir: Path, node_modules: Path = ROOT / "node_modules") -> list[str]:
    """Copy every VENDOR file and its licence into `site_dir`/VENDOR_DIR; returns the paths written."""
    missing = [
        str(node_modules / v.package / rel)
        for v in VENDOR
        for rel in (v.source, v.licence)
        if rel and not (node_modules / v.package / rel).is_file()
    ]
    if missing:
        raise SiteError("missing front-end libraries (run `npm ci`): " + ", ".join(missing))
    out = site_dir / VENDOR_DIR
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for v in VENDOR:
        shutil.copyfile(node_modules / v.package / v.source, out / v.name)
        written.append(f"{VENDOR_DIR}/{v.name}")
        if v.licence:
            shutil.copyfile(node_modules / v.package / v.licence, out / f"{v.name}.LICENSE.txt")
            written.append(f"{VENDOR_DIR}/{v.name}.LICENSE.txt")
    return written
