"""The MkDocs plugin: generate pages from the banks, install the nav, and finish the site.

Named `studysite` under `plugins:` in mkdocs.yml (the main language's site; every other language's
config inherits it) and registered by pyproject.toml's `mkdocs.plugins` entry point. Under
`mkdocs build` and `mkdocs serve` the main language's build calls the same steps as the driver
(`python -m studysite site`, studysite/site/driver.py): it regenerates docs/ from the banks, builds
every other language (site_finish.LanguageBuilds) and finishes the site (site_finish.finish_site),
so both always produce the whole site. In a build the driver starts (settings.DRIVEN_ENV) it only
renders. Glue only: the work is done by studysite/build.py (pages), site_finish.py (the other
languages, search, sitemap, downloads, offline files), bank_watch.py and theme_cache.py (`mkdocs serve`).
Errors leave as PluginError, after every problem has been logged as FILE:LINE.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

import jinja2
from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin

from ..build import generate
from ..errors import BuildError, Problem, SiteError, os_error
from ..i18n import STRINGS, catalogues
from . import page_cache, site_finish, tag_order
from .bank_watch import inputs_fingerprint, log_warnings, serve_from_banks, watch_banks
from .session import FinishArgs, FinishJob, Session
from .settings import BANKS_ENV, DRIVEN_ENV, LOCKED_ENV
from .siteconfig import check_qa
from .theme_cache import TemplateCache, disk_template_cache, remember_theme_files, theme_strings

log = logging.getLogger("mkdocs.plugins.studysite")


class StudySiteConfig(Config):
    """The plugin's options in mkdocs.yml (`plugins: - studysite: {banks: ...}`)."""

    banks = c.Dir(exists=False, default="banks")
    """The folder of bank files, relative to mkdocs.yml; the environment variable STUDYSITE_BANKS overrides it."""
    finish = c.Choice(("all", "search"), default="all")
    """`search`: after both languages are built, only the front-end bundles and the search index
    (scripts/search_eval.py: the check against the banks, downloads, sitemap and offline files add
    minutes on 1,000 questions and nothing a search sees)."""


class StudySitePlugin(BasePlugin[StudySiteConfig]):
    """Generates docs/ from the banks before MkDocs reads it, and finishes the site after it is written."""

    def __init__(self) -> None:
        # MkDocs 1.6 keeps this instance for the whole process (see studysite/site/session.py).
        self.session = Session()
        # Each build's kept page conversions, by its config (an in-process language build nests in another).
        self.page_caches: dict[int, page_cache.PageCache] = {}

    def on_startup(self, *, command: str, dirty: bool) -> None:
        session = self.session
        if session.command is None:  # first call wins: the in-process English build calls it again
            session.command, session.dirty = command, dirty
            if command == "serve" and dirty:
                # `mkdocs serve --dirty` (fast rebuilds) warns on every build that dirty builds can leave
                # stale navigation; with `strict: true` that warning would abort every build.
                logging.getLogger("mkdocs.commands.build").addFilter(_DirtyWarningFilter())

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        session = self.session
        problems = check_qa(config.extra.get("qa"), config.config_file_path)
        if problems:
            for problem in problems:
                log.error(str(problem))
            raise PluginError(f"{len(problems)} problem(s) in the site configuration")
        qa = config.extra["qa"]
        docs_root = Path(config.docs_dir)
        if _leads(config):
            with session.finish_guard:
                session.builds += 1
        # STUDYSITE_SKIP_GENERATE=1 builds docs/ as it is (scripts/bench.py times MkDocs alone with it).
        if _leads(config) and os.environ.get("STUDYSITE_SKIP_GENERATE") != "1":
            banks = Path(os.environ.get(BANKS_ENV) or self.config.banks)
            session.repo_url = qa.get("repo_url") or ""
            session.site_url = config.site_url or ""
            serving = session.command == "serve"
            # Under `mkdocs serve` the bank watcher has usually just regenerated docs/ (that is what
            # triggered this rebuild), or is still writing it (then this waits for it): generating
            # again from the same inputs would only cost time.
            with session.generating:
                inputs = inputs_fingerprint(banks, docs_root, session.repo_url)
                if not (serving and session.generated is not None and session.inputs == inputs):
                    self._generate(banks, docs_root, in_place=serving)
                    site_finish.step("docs/ generated from the banks")
                    session.inputs = inputs
                session.banks, session.built_from = banks, session.inputs
        config.nav = _read_nav(docs_root / ".nav.json")
        tag_order.install(config, docs_root)  # chips in taxonomy order, linked to their tag's page
        # finish_site writes the sitemap of both languages with their hreflang links: MkDocs' own would
        # only be overwritten (a template rendered over every page of the site, on every build).
        config.theme.static_templates.discard("sitemap.xml")
        if session.dirty and session.finished_once:
            config.theme.static_templates.discard("404.html")  # a --dirty rebuild: the first build wrote it
        remember_theme_files(config.theme, session.theme_files if session.command == "serve" else None)
        return config

    def on_serve(self, server: Any, /, *, config: MkDocsConfig, builder: Any) -> Any:
        if self.session.watcher is not None:  # on_config started the bank watcher: it asks for the rebuilds
            serve_from_banks(server, config.docs_dir, self.session)
        return server

    def on_env(self, env: jinja2.Environment, /, *, config: MkDocsConfig, files: Any) -> jinja2.Environment:
        env.globals["qa_theme_t"] = theme_strings(env, config.theme["language"])  # overrides/partials/language.html
        if self.session.command == "serve":
            if self.session.templates is None:
                self.session.templates = TemplateCache()
            env.bytecode_cache = self.session.templates
        else:
            env.bytecode_cache = disk_template_cache()
        return env

    def on_template_context(self, context: Any, /, *, template_name: str, config: MkDocsConfig) -> Any:
        # The root 404 page answers for every language (GitHub Pages serves it for /en/... too).
        context["qa_site_names"] = STRINGS["home.title"]
        # ... and every language's catalogue: MkDocs renders it before any page, without a page context.
        context["qa_strings"] = catalogues()
        return context

    def on_page_context(self, context: Any, /, *, page: Any, config: MkDocsConfig, nav: Any) -> Any:
        site_finish.page_context(context, page, config)
        return context

    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        session = self.session
        # A --dirty rebuild after the first renders only the few changed pages, in process.
        rebuild = session.dirty and session.finished_once
        self.page_caches.pop(id(config), None)
        languages = site_finish.languages_of(config)
        if not rebuild:  # saving the shard with only the changed pages in use would prune all others
            item = languages[config.extra["qa"]["lang"]]
            docs_root = Path(config.docs_dir)
            if item.root and docs_root.name == item.root.rstrip("/"):
                docs_root = docs_root.parent  # docs/en: its pages' conversions are kept in docs/'s cache
            self.page_caches[id(config)] = page_cache.for_build(config, docs_root, item.lang)
        # A whole build: every other language builds in a child process alongside this one.
        if _leads(config) and not rebuild:
            site_finish.step("MkDocs renders the main language's pages, a child process each other language's")
            session.others = site_finish.LanguageBuilds(config, languages.extra)
        # `mkdocs serve`'s bank watcher starts once the first build's other languages have: its thread
        # would have made them new processes instead of forks (parallel.can_fork), ~0.5 s more to start.
        if session.command == "serve" and session.watcher is None and session.banks is not None and _leads(config):
            session.watcher = watch_banks(session.banks, Path(config.docs_dir), session)

    def on_pre_page(self, page: Any, /, *, config: MkDocsConfig, files: Any) -> Any:
        kept = self.page_caches.get(id(config))
        if kept is not None:
            kept.install(page)
        return page

    def on_build_error(self, *, error: Exception) -> None:
        others, self.session.others = self.session.others, None
        if others is not None:
            others.cancel()

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        kept = self.page_caches.pop(id(config), None)
        if kept is not None:
            kept.save()
        if not _leads(config):
            return
        try:
            self._finish(config)
        except SiteError as exc:
            raise PluginError(str(exc)) from None

    def _finish(self, config: MkDocsConfig) -> None:
        session = self.session
        site_finish.step("main language's pages written")
        site_dir, generated = Path(config.site_dir), session.generated
        others, session.others = session.others, None
        downloads = None
        if others is not None:
            # The other builds in their child processes usually have a while to go: the decks (from the
            # site model, not from pages) use this process's core meanwhile.
            if generated is not None and others.running() and self.config.finish == "all":
                downloads = site_finish.start_downloads(site_dir, config, generated, fork=True)
            try:
                others.finish()
            except BaseException:
                if downloads is not None:
                    downloads.cancel()
                raise
            site_finish.step("other languages' pages in place")
        else:
            site_finish.build_others(config, dirty=session.dirty)
        site_finish.write_language_bundles(site_dir, config)
        if self.config.finish == "search":
            site_finish.run_pagefind(site_dir, config)
            return
        args: FinishArgs = (site_dir, config, generated, downloads)
        if session.command == "serve" and session.dirty and session.finished_once:
            # A `mkdocs serve --dirty` rebuild: MkDocs holds every request until this event returns, and
            # the site-wide steps (check, downloads, Pagefind, sitemap, offline files) take seconds at a
            # few hundred questions, so they run in the background and the edited page is served at once.
            # (Not in a plain `serve`: each of its rebuilds empties the site folder first, under them.)
            self._finish_in_background(args)
        else:
            site_finish.finish_site(*args)
            site_finish.step("site finished")
            session.finished_once = True

    def _generate(self, banks: Path, docs_root: Path, in_place: bool) -> None:
        session = self.session
        try:
            result = generate(
                banks,
                docs_root,
                in_place=in_place,
                repo_url=session.repo_url,
                site_url=session.site_url,
                locked=os.environ.get(LOCKED_ENV) == "1",
            )
        except BuildError as exc:
            for problem in exc.problems:
                log.error(str(problem))
            raise PluginError(f"{len(exc.problems)} problem(s) in banks/; docs/ left unchanged") from None
        except OSError as exc:
            log.error(os_error(exc))
            raise PluginError("docs/ and banks/slugs.lock left unchanged") from None
        except ValueError as exc:  # the generator's own invariants (two pages at one URL, an unsafe redirect)
            raise PluginError(f"{exc}; docs/ and banks/slugs.lock left unchanged") from None
        for change in result.url_changes:
            log.info("studysite: url %s", change)
        session.generated = result  # what finish_site checks the built site against
        log_warnings(result.warnings, serving=session.command == "serve")

    def _finish_in_background(self, args: FinishArgs) -> None:
        """Finish the site on a worker thread; saves in quick succession finish once, with the latest build."""
        session = self.session
        with session.finish_guard:
            session.finish_next = FinishJob(session.builds, session.built_from, args)
            if session.finisher is None:
                session.finisher = threading.Thread(target=self._finisher, name="studysite-finish", daemon=True)
                session.finisher.start()

    def _finisher(self) -> None:
        session = self.session
        while True:
            with session.finish_guard:
                job, session.finish_next = session.finish_next, None
                if job is None:
                    session.finisher = None
                    return
            problems: list[Problem] = []
            try:
                site_finish.finish_site(*job.args, report=problems.append)
                log.info("studysite: search index, downloads and offline files updated")
            except BaseException as exc:  # a serve session survives this; the next save retries
                with session.finish_guard:
                    # Superseded: a newer save or rebuild changed what this finish reads under it (the
                    # check reads the banks again; a rebuild rewrites the site folder), and that one
                    # is finished in its turn. Its errors would be false, and MkDocs counts an error
                    # logged during a build against that build: strict mode would abort it, and
                    # `mkdocs serve` would hold every request until the next save that changes a page.
                    superseded = self._superseded(job)
                    if superseded:
                        detail = f"{len(problems)} problem(s) against the changed files" if problems else exc
                        log.info(
                            "studysite: %s while the site was being finished; left to the newer build (%s)",
                            superseded,
                            detail,
                        )
                    else:
                        for problem in problems:
                            site_finish.log_problem(problem)
                        log.error("studysite: finishing the site failed: %s", exc)

    def _superseded(self, job: FinishJob) -> str:
        """What superseded `job` ("" if nothing did): a newer build started since its own, or the bank
        files changed since its pages were generated."""
        session = self.session
        if session.builds != job.build:
            return "a newer rebuild started"
        if job.inputs is None or session.banks is None:
            return ""
        docs_root, repo_url = job.inputs[0], job.inputs[1]
        try:
            changed = inputs_fingerprint(session.banks, Path(docs_root), repo_url) != job.inputs
        except OSError:  # the banks folder is being replaced: that is a change too
            changed = True
        return "the banks changed" if changed else ""


def _leads(config: MkDocsConfig) -> bool:
    """Whether this build does the site's other steps: the main language's (at the site root), unless
    the driver started it (then the driver does them)."""
    main = config.extra["qa"]["lang"] == site_finish.languages_of(config).main.lang
    return main and os.environ.get(DRIVEN_ENV) != "1"


def _read_nav(nav_file: Path) -> Any:
    """The navigation the generator wrote beside the pages (render.nav_json)."""
    try:
        return json.loads(nav_file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PluginError(f"{os_error(exc)} (the pages are generated from the banks: `make pages`)") from None
    except ValueError as exc:
        raise PluginError(f"{nav_file}: not the generator's JSON ({exc}): regenerate it with `make pages`") from None


class _DirtyWarningFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("A 'dirty' build is being performed")
