#!/usr/bin/env python3
"""`make site`: build the whole bilingual site into site/, atomically and one build at a time."""

from __future__ import annotations

import sys
from pathlib import Path

from studysite.site.sitebuild import main

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], ROOT))
