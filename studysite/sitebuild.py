"""Build the complete site into a fresh folder, then swap it in: an interrupted build leaves site/ whole."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from .write import build_lock, remove_stale_staging, swap_dirs


def main(argv: list[str], root: Path) -> int:
    parser = argparse.ArgumentParser(prog="build_site.py", description=__doc__)
    parser.add_argument("--site-dir", type=Path, default=root / "site")
    parser.add_argument("--config", type=Path, default=root / "mkdocs.yml")
    args = parser.parse_args(argv)
    site = args.site_dir.resolve()
    with build_lock(site.parent / f".{site.name}.lock"):
        remove_stale_staging(site)  # left by a build that was killed
        staging = site.parent / f".{site.name}.new-{os.getpid()}"
        cmd = [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--quiet",
            "-f",
            str(args.config),
            "-d",
            str(staging),
        ]
        proc = subprocess.run(cmd, cwd=root, check=False)
        if proc.returncode != 0:
            shutil.rmtree(staging, ignore_errors=True)
            print(f"build_site: mkdocs failed; {site} left unchanged", file=sys.stderr)
            return proc.returncode
        swap_dirs(staging, site)
        shutil.rmtree(staging, ignore_errors=True)
    print(f"build_site: site built into {site}")
    return 0
