"""`python -m studysite site`: build the complete bilingual site (what `make site` runs), in the project folder."""

from __future__ import annotations

import sys
from pathlib import Path

from .site import sitebuild

USAGE = "usage: python -m studysite site [--site-dir DIR] [--config FILE]  (run in the project folder)"


def main(argv: list[str]) -> int:
    if argv[:1] != ["site"]:
        print(USAGE, file=sys.stderr)
        return 2
    return sitebuild.main(argv[1:], Path.cwd(), prog="python -m studysite site")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
