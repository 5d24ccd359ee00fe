"""The MkDocs adapter of engine.SiteEngine: the only module that runs a MkDocs build (the plugin is MkDocs' side)."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from ..errors import SiteError
from .settings import BANKS_ENV, LOG_FORMAT, SiteSettings


class MkDocsEngine:
    """MkDocs 1.6 with Material: a config's plugins (ours, `studysite`) run inside its build."""

    name = "mkdocs"

    def build(self, config_file: Path, site_dir: Path, *, site_url: str, strict: bool, dirty: bool) -> None:
        from mkdocs.commands.build import build
        from mkdocs.config import load_config

        conf = load_config(str(config_file), site_dir=str(site_dir), site_url=site_url or None, strict=strict)
        # `mkdocs build` calls these around a build; our plugin's on_startup keeps the first call's command.
        conf.plugins.on_startup(command="build", dirty=dirty)
        try:
            build(conf, dirty=dirty)
        finally:
            conf.plugins.on_shutdown()

    def build_command(self, config_file: Path, site_dir: Path, *, site_url: str, strict: bool) -> list[str]:
        # The same Python: it imports the installed package and finds the plugin by its entry point, as
        # the MkDocs of the calling process did. Not `-m mkdocs build`: it cannot be given the site_url.
        code = "import sys, studysite.site.engine_mkdocs as e; e._child(sys.argv[1:])"
        return [sys.executable, "-c", code, str(config_file), str(site_dir), site_url, "1" if strict else ""]

    def child_build(self, config_file: Path, site_dir: Path, *, site_url: str, strict: bool) -> int:
        # MkDocs' own logging format, on stderr
        from mkdocs.exceptions import MkDocsException

        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter(LOG_FORMAT))
        logging.getLogger("mkdocs").addHandler(handler)
        logging.getLogger("mkdocs").setLevel(logging.WARNING)
        try:
            self.build(config_file, site_dir, site_url=site_url, strict=strict, dirty=False)
        except MkDocsException as exc:
            print(f"ERROR   -  {exc}", file=sys.stderr)
            return 1
        return 0

    def settings(self, config_file: Path, site_dir: Path, *, strict: bool) -> SiteSettings:
        from mkdocs.config import load_config
        from mkdocs.exceptions import ConfigurationError

        from .siteconfig import check_qa

        try:
            conf = load_config(str(config_file), site_dir=str(site_dir), strict=strict)
        except ConfigurationError as exc:
            raise SiteError(f"{config_file}: {exc}") from None
        problems = check_qa(conf.extra.get("qa"), conf.config_file_path)
        if problems:
            raise SiteError("\n".join(str(p) for p in problems))
        plugin = conf.plugins.get("studysite")
        if plugin is None:
            raise SiteError(f"{config_file}: no `studysite` under `plugins:`: nothing would generate the pages")
        return SiteSettings(
            config_file_path=str(conf.config_file_path),
            site_dir=str(conf.site_dir),
            site_url=conf.site_url or "",
            docs_dir=str(conf.docs_dir),
            strict=bool(conf.strict),
            extra=dict(conf.extra),
            banks=Path(os.environ.get(BANKS_ENV) or plugin.config.banks),
        )

    def site_command(self, config_file: Path, site_dir: Path, *, strict: bool) -> list[str]:
        # Not --quiet: it drops warnings before MkDocs counts them, and --strict then fails on none
        # (a glossary term no question uses built "strictly" that way). sitebuild leaves its INFO lines out.
        mode = "--strict" if strict else "--no-strict"
        return [sys.executable, "-m", "mkdocs", "build", mode, "-f", str(config_file), "-d", str(site_dir)]


def _child(argv: list[str]) -> None:
    """Entry point of `build_command`'s child process."""
    conf_file, site_dir, site_url, strict = argv
    raise SystemExit(
        MkDocsEngine().child_build(Path(conf_file), Path(site_dir), site_url=site_url, strict=bool(strict))
    )
