"""`make site`: build the complete site into a fresh folder and swap it in, with docs/ and the lock.

One build at a time (a lock file beside site/). docs/, site/ and banks/slugs.lock end all old or all
new: a build that fails, or whose site cannot be swapped in, puts the previous docs/ and lock back.
In CI (`CI=true`, as GitHub Actions sets) the committed lock must already match the banks, and
builds are dated from the last commit, so two fresh clones give the same bytes.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from .errors import Problems, os_error
from .write import PendingFile, build_lock, remove_stale_staging, swap_dirs

LOCKED_ENV = "STUDYSITE_LOCKED"
"""Set to 1 for the MkDocs hook: a slugs.lock that would change fails the build (CI)."""


def main(argv: list[str], root: Path) -> int:
    parser = argparse.ArgumentParser(prog="build_site.py", description=__doc__)
    parser.add_argument("--site-dir", type=Path, default=root / "site")
    parser.add_argument("--config", type=Path, default=root / "mkdocs.yml")
    args = parser.parse_args(argv)
    site = args.site_dir.resolve()
    docs = _docs_dir(args.config.resolve())
    lock = Path(os.environ.get("STUDYSITE_BANKS", root / "banks")).resolve() / "slugs.lock"
    env = build_env(os.environ, root)
    for folder in (site, docs):
        if os.path.ismount(folder):  # found now, not after minutes of building: a mount point cannot be swapped
            print(
                f"error: {folder}: is a mount point (EBUSY): a build replaces the whole folder; "
                "mount its parent instead, or build into a folder inside it with --site-dir",
                file=sys.stderr,
            )
            return 1
    try:
        with build_lock(site.parent / f".{site.name}.lock"):
            return _build(args.config, site, docs, lock, env, root)
    except OSError as exc:
        print(f"error: {os_error(exc)}", file=sys.stderr)
        print(f"build_site: {site}, {docs} and {lock} left unchanged", file=sys.stderr)
        return 1


def build_env(environ: os._Environ[str] | dict[str, str], root: Path) -> dict[str, str]:
    """The environment MkDocs builds in: dated from the last commit, and locked in CI."""
    env = dict(environ)
    if not env.get("SOURCE_DATE_EPOCH", "").strip():
        # A clone sets every file's time to now, and decks are dated from the files' times: the
        # last commit's time is the same in every clone (also a shallow one).
        stamp = _last_commit_time(root)
        if stamp:
            env["SOURCE_DATE_EPOCH"] = stamp
    if in_ci(env):
        env[LOCKED_ENV] = "1"
    return env


def in_ci(env: os._Environ[str] | dict[str, str]) -> bool:
    """Whether this is a CI build (GitHub Actions and most CI services set CI=true)."""
    return env.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _build(config: Path, site: Path, docs: Path, lock: Path, env: dict[str, str], root: Path) -> int:
    remove_stale_staging(site)  # left by a build that was killed
    for stale in sorted(docs.parent.glob(f".{docs.name}.before-*")):
        shutil.rmtree(stale, ignore_errors=True)
    staging = site.parent / f".{site.name}.new-{os.getpid()}"
    # The previous docs/ (hard links: no copy of the data) and lock, to put back if the build fails.
    before = docs.parent / f".{docs.name}.before-{os.getpid()}"
    if docs.is_dir():
        shutil.copytree(docs, before, symlinks=True, copy_function=os.link)
    old_lock = lock.read_bytes() if lock.exists() else None
    try:
        cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(config), "-d", str(staging)]
        proc = subprocess.run(cmd, cwd=root, env=env, check=False)
        if proc.returncode != 0:
            _restore(docs, before, lock, old_lock)
            print(f"build_site: mkdocs failed; {site}, {docs} and {lock} left unchanged", file=sys.stderr)
            return proc.returncode
        try:
            swap_dirs(staging, site)
        except OSError:
            _restore(docs, before, lock, old_lock)
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(before, ignore_errors=True)
    for change in _lock_review(lock, old_lock):
        print(f"url: {change}")
    print(f"build_site: site built into {site}")
    return 0


def _restore(docs: Path, before: Path, lock: Path, old_lock: bytes | None) -> None:
    """Put the previous docs/ and slugs.lock back after a failed build."""
    if before.is_dir():
        if docs.exists():
            swap_dirs(before, docs)
        else:
            os.rename(before, docs)
    new_lock = lock.read_bytes() if lock.exists() else None
    if new_lock != old_lock:
        if old_lock is None:
            lock.unlink()
        else:
            pending = PendingFile(lock, old_lock)
            try:
                pending.commit()
            finally:
                pending.discard()


def _lock_review(lock: Path, old_lock: bytes | None) -> list[str]:
    """What this build changed in the lock, path by path (the generator's review of URLs)."""
    from .slugs import parse_lock, review

    new_lock = lock.read_bytes() if lock.exists() else None
    if new_lock is None or new_lock == old_lock:
        return []
    old = parse_lock(old_lock.decode("utf-8", "replace"), lock, Problems()) if old_lock else []
    return review(old, parse_lock(new_lock.decode("utf-8", "replace"), lock, Problems()))


def _docs_dir(config: Path) -> Path:
    """The config's docs_dir (MkDocs' default `docs`), without loading the whole config."""
    found = re.search(r"^docs_dir:\s*(\S+)\s*$", config.read_text(encoding="utf-8"), re.MULTILINE)
    return (config.parent / (found.group(1) if found else "docs")).resolve()


def _last_commit_time(root: Path) -> str:
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), "log", "-1", "--format=%ct"], capture_output=True, text=True, check=False
        )
    except OSError:  # no git
        return ""
    stamp = proc.stdout.strip()
    return stamp if proc.returncode == 0 and stamp.isdigit() else ""
