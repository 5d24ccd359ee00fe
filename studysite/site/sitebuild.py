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
import sys
from pathlib import Path

from .. import cache
from ..errors import BuildError, Problems, SiteError, os_error
from ..write import PendingFile, build_lock, remove_stale_staging, swap_dirs, sync_dir, sync_tree
from . import driver
from .settings import build_env


def main(argv: list[str], root: Path, prog: str = "build_site.py") -> int:
    """Build `root`'s site (site/ from mkdocs.yml and banks/ by default); returns the exit status."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    parser.add_argument("--site-dir", type=Path, default=root / "site")
    parser.add_argument("--config", type=Path, default=root / "mkdocs.yml")
    args = parser.parse_args(argv)
    site = args.site_dir.resolve()
    docs = _docs_dir(args.config.resolve())
    lock = Path(os.environ.get("STUDYSITE_BANKS", root / "banks")).resolve() / "slugs.lock"
    env = build_env(os.environ, lock.parent)
    for folder in (site, docs):
        if os.path.ismount(folder):  # found now, not after minutes of building: a mount point cannot be swapped
            print(
                f"error: {folder}: is a mount point (EBUSY): a build replaces the whole folder; "
                "mount its parent instead, or build into a folder inside it with --site-dir",
                file=sys.stderr,
            )
            return 1
    try:
        with build_lock(site):
            return _build(args.config, site, docs, lock, env)
    except OSError as exc:
        print(f"error: {os_error(exc)}", file=sys.stderr)
        print(f"build_site: {site}, {docs} and {lock} left unchanged", file=sys.stderr)
        return 1


def _build(config: Path, site: Path, docs: Path, lock: Path, env: dict[str, str]) -> int:
    remove_stale_staging(site)  # left by a build that was killed
    for stale in sorted(docs.parent.glob(f".{docs.name}.before-*")):
        shutil.rmtree(stale, ignore_errors=True)
    staging = site.parent / f".{site.name}.new-{os.getpid()}"
    # The previous docs/ (the tree the generation replaces, kept by it: its unchanged files are the new
    # tree's too) and lock, to put back if the build fails. Not a copy made before the generation: even
    # hard links move every file's change time, and the generator's unchanged-check then always missed.
    before = docs.parent / f".{docs.name}.before-{os.getpid()}"
    old_lock = lock.read_bytes() if lock.exists() else None
    built = False
    try:
        try:
            driver.build(config, staging, env, keep_old=before)
            sync_tree(staging)  # on disk before it is swapped in
            swap_dirs(staging, site)
            sync_dir(site.parent)
            built = True
        except (BuildError, SiteError) as exc:
            _restore(docs, before, lock, old_lock)
            problems = exc.problems if isinstance(exc, BuildError) else [str(exc)]
            for problem in problems:
                print(f"error: {problem}", file=sys.stderr)
            print(f"build_site: {site}, {docs} and {lock} left unchanged", file=sys.stderr)
            return 1
        except BaseException:
            _restore(docs, before, lock, old_lock)
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        shared = _inodes(before) if built else set()
        shutil.rmtree(before, ignore_errors=True)
    if shared:  # deleting the old tree moved the change time of the files it shared with docs/
        with build_lock(docs):
            cache.after_unlinking(docs, shared)
    for change in _lock_review(lock, old_lock):
        print(f"url: {change}")
    print(f"build_site: site built into {site}")
    return 0


def _restore(docs: Path, before: Path, lock: Path, old_lock: bytes | None) -> None:
    """Put the previous docs/ and slugs.lock back after a failed build, once no generation is writing
    into docs/ (another `make pages`, or the record of one that has returned: build.generate)."""
    with build_lock(docs):
        _put_back(docs, before, lock, old_lock)


def _put_back(docs: Path, before: Path, lock: Path, old_lock: bytes | None) -> None:
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


def _inodes(folder: Path) -> set[int]:
    """The inodes of every file under `folder`; none if it cannot be read (the record is then left as
    it is: the next generation compares its pages, as before)."""
    try:
        return {inode for *_, inode in cache.tree_state(folder)}
    except OSError:
        return set()


def _lock_review(lock: Path, old_lock: bytes | None) -> list[str]:
    """What this build changed in the lock, path by path (the generator's review of URLs)."""
    from ..enrich.slugs import parse_lock, review

    new_lock = lock.read_bytes() if lock.exists() else None
    if new_lock is None or new_lock == old_lock:
        return []
    old = parse_lock(old_lock.decode("utf-8", "replace"), lock, Problems()) if old_lock else []
    return review(old, parse_lock(new_lock.decode("utf-8", "replace"), lock, Problems()))


def _docs_dir(config: Path) -> Path:
    """The config's docs_dir (MkDocs' default `docs`), without loading the whole config."""
    found = re.search(r"^docs_dir:\s*(\S+)\s*$", config.read_text(encoding="utf-8"), re.MULTILINE)
    return (config.parent / (found.group(1) if found else "docs")).resolve()
