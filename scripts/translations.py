#!/usr/bin/env python3
"""Translation tools (`make translation BANK=NAME`, `make translations`): see studysite/translate_cli.py."""

from __future__ import annotations

import sys
from pathlib import Path

from studysite.translate_cli import main

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], default_banks=ROOT / "banks"))
