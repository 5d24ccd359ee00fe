#!/usr/bin/env python3
"""Generate the site's Markdown pages from the question banks: `python scripts/build_pages.py`."""

from __future__ import annotations

import sys
from pathlib import Path

from studysite.cli import exit_now, main

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    exit_now(main(sys.argv[1:], default_banks=ROOT / "banks", default_docs=ROOT / "docs", exits_after=True))
