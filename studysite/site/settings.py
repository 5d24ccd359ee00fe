"""What every site step reads of the main configuration, and the environment a build runs in.

`SiteSettings` is the loaded main config; `build_env` the environment of a whole-site build (dated
from the last commit, locked in CI), passed on to each language's build with the variables below.
Engine-free: the driver (driver.py), the engine interface (engine.py) and its adapters, the site
steps and the MkDocs plugin all read these.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BANKS_ENV = "STUDYSITE_BANKS"
"""Overrides the plugin's `banks` option for one build (the tests build copies of the banks)."""
LOCKED_ENV = "STUDYSITE_LOCKED"
"""Set to 1 for CI builds (build_env): a slugs.lock that would change fails the build."""
LOG_FORMAT = "%(levelname)-7s -  %(message)s"
"""A line of an engine's log (engine.py): MkDocs' own, `WARNING -  message`; the driver's log too."""
DRIVEN_ENV = "STUDYSITE_DRIVEN"
"""Set to 1 in the environment of a language's build started by the driver (studysite/site/driver.py):
that build only renders its pages; the driver generated docs/ before it and finishes the site after."""


@dataclass(frozen=True)
class SiteSettings:
    """What the driver and the site steps read from the main config, loaded and checked by the engine.

    The attributes carry MkDocs' names, so the site steps (site_finish, offline, search_terms) take
    either this or a loaded MkDocs config."""

    config_file_path: str
    """The main language's config file (mkdocs.yml); every other language's sits beside it."""
    site_dir: str
    """Where the whole site is written."""
    site_url: str
    """Where the site is published ("" when not set)."""
    docs_dir: str
    """The generated pages of the main language (docs/)."""
    strict: bool
    """Warnings fail the build."""
    extra: dict[str, Any]
    """The config's `extra` (`extra.qa`: the language table, the repository)."""
    banks: Path
    """The folder of bank files (the studysite plugin's `banks`, or STUDYSITE_BANKS)."""


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


def _git(folder: Path, *args: str) -> str | None:
    """git's output in `folder`, None when it fails (no git, not a checkout). Without git's optional
    locks: a `git status` here would otherwise rewrite the index, holding .git/index.lock, whenever
    the files' times moved, and a maintainer's own git command at that moment (beside `make serve`,
    which dates every rebuild) would fail on the lock."""
    if not folder.is_dir():
        return None
    try:
        cmd = ["git", "--no-optional-locks", "-C", str(folder), *args]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError:
        return None
    return proc.stdout if proc.returncode == 0 else None
