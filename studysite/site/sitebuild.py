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

from ..errors import Problems, os_error
from ..write import PendingFile, build_lock, remove_stale_staging, swap_dirs, sync_dir, sync_tree
from . import engine

LOCKED_ENV = "STUDYSITE_LOCKED"
"""Set to 1 for the MkDocs plugin: a slugs.lock that would change fails the build (CI)."""


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
        with build_lock(site.parent / f".{site.name}.lock"):
            return _build(args.config, site, docs, lock, env, root)
    except OSError as exc:
        print(f"error: {os_error(exc)}", file=sys.stderr)
        print(f"build_site: {site}, {docs} and {lock} left unchanged", file=sys.stderr)
        return 1


def build_env(environ: os._Environ[str] | dict[str, str], banks: Path) -> dict[str, str]:
    """The environment MkDocs builds in: dated from the last commit (`source_epoch`), locked in CI."""
    env = dict(environ)
    stamp = source_epoch(banks, env)
    if stamp:
        env["SOURCE_DATE_EPOCH"] = stamp
    if in_ci(env):
        env[LOCKED_ENV] = "1"
    return env


def source_epoch(banks: Path, env: os._Environ[str] | dict[str, str] = os.environ) -> str:
    """What the downloads are dated from: SOURCE_DATE_EPOCH if set, else the last commit's time
    when `banks` is in a git checkout without uncommitted changes there ("" otherwise: the files' times).

    A clone sets every file's time to now, so file times differ from clone to clone; the last
    commit's time is the same in every clone, also a shallow one. Uncommitted edits keep their
    files' (newer) times: Anki updates an imported note only when it is newer than the one it has.
    """
    explicit = env.get("SOURCE_DATE_EPOCH", "").strip()
    if explicit:
        return explicit
    # (not the locks: the build itself may rewrite them, and no download depends on them)
    status = _git(banks, "status", "--porcelain", "--", ".", ":(exclude)slugs.lock", ":(exclude)translations.lock")
    if status is None or status.strip():
        return ""
    stamp = _git(banks, "log", "-1", "--format=%ct") or ""
    return stamp.strip() if stamp.strip().isdigit() else ""


def in_ci(env: os._Environ[str] | dict[str, str]) -> bool:
    """Whether this is a CI build (GitHub Actions and most CI services set CI=true)."""
    return env.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _without_info(log: str) -> str:
    """The engine's log without its INFO records (each a line "INFO    -  ..." and the indented lines after)."""
    kept: list[str] = []
    info = False
    for line in log.splitlines(keepends=True):
        if line.startswith("INFO"):
            info = True
        elif not line[:1].isspace():
            info = False
        if not info:
            kept.append(line)
    return "".join(kept)


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
        site_engine = engine.current()
        cmd = site_engine.site_command(config, staging, strict=True)
        proc = subprocess.run(cmd, cwd=root, env=env, check=False, stderr=subprocess.PIPE, text=True)
        proc.stderr = _without_info(proc.stderr)
        if proc.returncode != 0:
            _restore(docs, before, lock, old_lock)
            # The engine reports an operating-system failure of its own (a full disk while it writes the
            # site) as a traceback: the reader gets its one line instead.
            failure = _os_failure(proc.stderr)
            if failure is not None and not failure.filename:
                failure.filename = str(site)  # what the engine was writing when the system refused
            print(
                f"error: {os_error(failure)}" if failure else proc.stderr,
                end="" if not failure else "\n",
                file=sys.stderr,
            )
            print(f"build_site: {site_engine.name} failed; {site}, {docs} and {lock} left unchanged", file=sys.stderr)
            return proc.returncode
        sys.stderr.write(proc.stderr)
        try:
            sync_tree(staging)  # on disk before it is swapped in
            swap_dirs(staging, site)
            sync_dir(site.parent)
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


def _os_failure(stderr: str) -> OSError | None:
    """The OSError that ended a traceback (its last line, `OSError: [Errno 28] No space left on device: 'x'`)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    match = _OS_ERROR_LINE.match(lines[-1]) if lines and "Traceback" in stderr else None
    if match is None:
        return None
    number, message, path = int(match["errno"]), match["message"], match["path"]
    return OSError(number, message, path) if path is not None else OSError(number, message)


_OS_ERROR_LINE = re.compile(
    r"^(?:\w+\.)*\w*(?:Error|Exception): \[Errno (?P<errno>\d+)\] (?P<message>[^:]+?)(?:: '(?P<path>.*)')?$"
)


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


def _git(folder: Path, *args: str) -> str | None:
    """git's output in `folder`, None when it fails (no git, not a checkout)."""
    if not folder.is_dir():
        return None
    try:
        proc = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, check=False)
    except OSError:
        return None
    return proc.stdout if proc.returncode == 0 else None
