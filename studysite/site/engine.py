"""The one interface between the site and the engine that renders its HTML (MkDocs today, engine_mkdocs.py).

Everything that starts an engine build goes through `current()`: the other languages' builds
(site_finish.py: in this process, or in a child process each) and `make site`'s whole-site build
(sitebuild.py). What happens before (generating docs/ from the banks) and after (check, downloads,
Pagefind, sitemap, offline files: site_finish.finish_site) is engine-free; the MkDocs plugin, which
MkDocs itself calls, is the other MkDocs-only part. CONTRIBUTING.md, "The site engine", says what
a Zensical adapter would implement against this.

An engine's log, from a child process, is one record per line led by its level name and indented
continuation lines (MkDocs' `WARNING -  message`): LanguageBuild passes WARNING and ERROR lines on
as warnings, and `make site` drops INFO records from what it shows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from .settings import SiteSettings


class SiteEngine(Protocol):
    """Builds a site from one of our config files (mkdocs.yml, or a language's, extra.qa.languages)."""

    name: str
    """The engine's name in messages (`mkdocs`)."""

    def build(self, config_file: Path, site_dir: Path, *, site_url: str, strict: bool, dirty: bool) -> None:
        """Render one language's config into `site_dir`, in this process.

        `site_url` is that language's address ("" for the config's own); `strict` makes warnings a
        failure; `dirty` renders only the pages whose Markdown changed (`mkdocs serve --dirty`).
        A failed build raises (MkDocs: its MkDocsException, whose message is the reason)."""
        ...

    def build_command(self, config_file: Path, site_dir: Path, *, site_url: str, strict: bool) -> list[str]:
        """The command line of a child process doing what `build` does (not dirty): exit status 0
        when the site is written, its log on stdout/stderr in the format above."""
        ...

    def child_build(self, config_file: Path, site_dir: Path, *, site_url: str, strict: bool) -> int:
        """What `build_command`'s child process does, done in this process (a forked child of the
        build, parallel.Program, which sends stdout and stderr where the child's would go): the build,
        its log in the format above on stderr; returns the exit status."""
        ...

    def settings(self, config_file: Path, site_dir: Path, *, strict: bool) -> SiteSettings:
        """The main config, loaded; raises SiteError naming FILE:LINE of each problem in it."""
        ...

    def site_command(self, config_file: Path, site_dir: Path, *, strict: bool) -> list[str]:
        """The command line that builds the whole site from the main language's config into
        `site_dir`: docs/ generated from the banks, every language, the finished site (`make site`).
        Its log goes to stderr in the format above; a Python traceback's last line is its failure."""
        ...


def current() -> SiteEngine:
    """The engine that builds the site: MkDocs, the only one there is an adapter for.

    Not a setting yet: with one adapter a choice would have one allowed value. A second adapter
    would add it where both the driver and the plugin can read it (extra.qa.engine in mkdocs.yml).
    """
    from .engine_mkdocs import MkDocsEngine

    return MkDocsEngine()
