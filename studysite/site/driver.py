"""The site's steps in order, outside any engine callback: what `python -m studysite site` (`make site`) runs.

1. generate docs/ from the banks (studysite/build.py), in this process;
2. render every language with the site engine (engine.current()), one child process each, all
   started at once; once the main language's is written, a forked child writes the Anki decks and
   CSV files (they come from the model, not from the pages) while the others finish;
3. finish the built folder: the front-end bundles, then site_finish.finish_site (the check against
   the banks, Pagefind, sitemap, search terms, offline files).

Each language's build runs with settings.DRIVEN_ENV set, so the studysite plugin inside it only
renders. Under `mkdocs build` and `mkdocs serve` the plugin calls these same steps from MkDocs'
events instead (studysite/site/mkdocs_plugin.py). sitebuild.py stages the folder this writes and
swaps it in; this module only builds.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator
from pathlib import Path

from ..build import generate
from ..errors import SiteError
from . import engine, site_finish
from .settings import DRIVEN_ENV, LOCKED_ENV, LOG_FORMAT

log = site_finish.log


def build(
    config_file: Path, site_dir: Path, env: dict[str, str], *, strict: bool = True, keep_old: Path | None = None
) -> list[str]:
    """Build the whole site of `config_file` into `site_dir` (created; it should be new or empty).

    `env` is the environment the builds run in (settings.build_env: dated from the last commit,
    locked in CI). Returns the URL changes the generator made to banks/slugs.lock. Raises
    BuildError (problems in the banks, nothing written), SiteError (a later step failed; what it
    logged is on stderr) or OSError (the system refused a write). `keep_old`: where the generation
    puts the docs tree it replaced (generate's `keep_old`).
    """
    with _log_to_stderr():
        return _build(config_file, site_dir, env, strict=strict, keep_old=keep_old)


def _build(config_file: Path, site_dir: Path, env: dict[str, str], *, strict: bool, keep_old: Path | None) -> list[str]:
    settings = engine.current().settings(config_file, site_dir, strict=strict)
    result = generate(
        settings.banks,
        Path(settings.docs_dir),
        repo_url=settings.extra["qa"].get("repo_url") or "",
        site_url=settings.site_url,
        locked=env.get(LOCKED_ENV) == "1",
        keep_old=keep_old,
    )
    for warning in result.warnings:
        log.warning(warning)
    if strict and result.warnings:  # as MkDocs' --strict does, but before minutes of rendering
        raise SiteError(f"{len(result.warnings)} warning(s) in strict mode (above)")
    site_finish.step("docs/ generated from the banks")
    site_dir.mkdir(parents=True, exist_ok=True)
    languages = site_finish.languages_of(settings)
    renders = site_finish.LanguageBuilds(settings, languages.items, {**env, DRIVEN_ENV: "1"})
    downloads = None
    try:
        # The main language's build empties the site folder before it writes (MkDocs keeps only hidden
        # entries): the decks and CSV files go in once it is done, while the others may still run.
        renders.builds[0].finish()
        downloads = site_finish.start_downloads(site_dir, settings, result, fork=True)
        renders.finish()
        site_finish.step("every language's pages written")
    except BaseException:
        renders.cancel()
        if downloads is not None:
            downloads.cancel()
        raise
    site_finish.write_language_bundles(site_dir, settings)
    site_finish.finish_site(site_dir, settings, result, downloads)
    site_finish.step("site finished")
    return result.url_changes


@contextlib.contextmanager
def _log_to_stderr() -> Iterator[None]:
    """The site steps' log (warnings and errors) on stderr, in the engine's format (`WARNING -  ...`)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    handler.setLevel(logging.WARNING)
    before = log.propagate, log.level
    log.addHandler(handler)
    log.propagate = False
    log.setLevel(logging.WARNING)
    try:
        yield
    finally:
        log.removeHandler(handler)
        log.propagate, log.level = before
