#!/usr/bin/env python3
"""`make pdf`: print each bank's print edition in each language to an A4 PDF (site/downloads/*.pdf)."""

from __future__ import annotations

import sys
from pathlib import Path

from studysite.takeaway.pdf import main

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], ROOT))
