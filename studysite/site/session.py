"""What the MkDocs plugin remembers from one build to the next of the same `mkdocs` process.

MkDocs 1.6 keeps one instance of a plugin that has `on_startup` for the whole process (every
`mkdocs serve` rebuild loads the config afresh but reuses the instance, and so does the English
build of a --dirty rebuild, which runs in process): a `Session` on that instance lives as long.
tests/test_plugin.py checks that MkDocs still does so.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import jinja2

from ..build import Result
from .site_finish import LanguageBuilds

Fingerprint = tuple[str, str, tuple[tuple[str, int, int], ...]]
"""The generated docs folder, the repository URL, and the name, size and modification time of each bank input file."""
FinishArgs = tuple[Path, Any, Result | None, Any]
"""The arguments of site_finish.finish_site: site folder, config, generation result, downloads."""


class FinishJob(NamedTuple):
    """A --dirty rebuild to finish in the background, and what it was built from."""

    build: int
    """Its count in `Session.builds`."""
    inputs: Fingerprint | None
    """The bank files its pages were generated from (`Session.built_from`)."""
    args: FinishArgs


@dataclass
class Session:
    """State of one `mkdocs build` or `mkdocs serve` process, shared by every build it runs."""

    command: str | None = None
    """`build` or `serve`, from the first `on_startup` (the in-process English build calls it again)."""
    dirty: bool = False
    """`--dirty`: after the first build, MkDocs renders only the pages whose Markdown changed."""
    repo_url: str = ""
    """The site's repository (extra.qa.repo_url): "report an error" / "edit" links on question pages."""
    site_url: str = ""
    """The site's address (site_url): a page's address in an error report."""
    generated: Result | None = None
    """The latest generation of docs/ from the banks: what finish_site checks the built site against."""
    inputs: Fingerprint | None = None
    """The inputs `generated` came from; a serve rebuild with the same inputs does not generate again."""
    banks: Path | None = None
    """The banks folder of the main language's build (on_config)."""
    built_from: Fingerprint | None = None
    """The inputs of the docs/ the current build renders (`inputs` as on_config left it: the bank
    watcher may generate again from a newer save while the build runs)."""
    generating: threading.Lock = field(default_factory=threading.Lock)
    """Held while docs/ is generated from the banks: the bank watcher and a rebuild's on_config never
    generate at once (one would read the bank the other is about to make stale, and a rebuild that
    starts halfway through the watcher's writes waits for them instead of generating again)."""
    watcher: Any = None
    """Under `mkdocs serve`: the watchdog observer that regenerates docs/ when a bank changes."""
    request_rebuild: Callable[[], None] | None = None
    """Under `mkdocs serve`: asks MkDocs' server for a rebuild (bank_watch.serve_from_banks), called by
    the bank watcher once it has written docs/; None while MkDocs polls docs/ itself."""
    finished_once: bool = False
    """A whole site has been finished (search, downloads, offline files) in this process."""
    others: LanguageBuilds | None = None
    """The other languages' builds running in child processes during the main one (on_pre_build to on_post_build)."""
    theme_files: dict[tuple[Any, ...], list[str]] = field(default_factory=dict)
    """Under `mkdocs serve`: the theme's file list per theme (studysite/site/theme_cache.py)."""
    templates: jinja2.BytecodeCache | None = None
    """Under `mkdocs serve`: compiled theme templates kept between rebuilds (studysite/site/theme_cache.py)."""
    finish_guard: threading.Lock = field(default_factory=threading.Lock)
    """Guards `builds`, `finish_next` and `finisher` between a rebuild and the background finisher."""
    builds: int = 0
    """The main language's builds started in this process (counted in on_config, the first event of a
    build): a background finish whose build is no longer the latest was superseded by a newer one."""
    finish_next: FinishJob | None = None
    """The latest --dirty rebuild still to finish in the background (earlier ones are dropped)."""
    finisher: threading.Thread | None = None
    """The background thread finishing --dirty rebuilds, while it runs."""
