#!/usr/bin/env python3
"""Translation tools (`make translation BANK=NAME`, `make translations`): see studysite/translate_cli.py."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from studysite.translate_cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], default_banks=ROOT / "banks"))
