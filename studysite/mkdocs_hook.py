"""MkDocs hook: generate pages from the banks, install the nav, and finish the bilingual site.

Listed under `hooks:` in mkdocs.yml (the Chinese site). On every build it regenerates docs/ from
banks/, and after the Chinese site is written it builds the English one into site/en/ and runs
Pagefind over both, so `mkdocs build` and `mkdocs serve` always produce the whole site.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Any

import jinja2

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # mkdocs loads hooks by file path
    sys.path.insert(0, str(ROOT))

import studysite  # noqa: E402
from studysite import site_finish, tag_order  # noqa: E402
from studysite.build import generate  # noqa: E402
from studysite.bundles import write_bundles  # noqa: E402
from studysite.errors import BuildError, os_error  # noqa: E402
from studysite.sitebuild import LOCKED_ENV  # noqa: E402
from studysite.siteconfig import check_qa  # noqa: E402

BANKS = Path(os.environ.get("STUDYSITE_BANKS", ROOT / "banks"))
"""The banks folder; tests point it elsewhere."""
log = logging.getLogger("mkdocs.hooks.studysite")
# mkdocs executes this file afresh for every config it loads (each `serve` rebuild, the nested
# English build), so state that must outlive one build lives on the imported package instead.
_state: dict[str, Any] = studysite.__dict__.setdefault(
    "_hook_state", {"command": None, "dirty": False, "watcher": None, "generated": None}
)


def on_startup(command: str, dirty: bool) -> None:
    if _state["command"] is None:  # first call wins: the nested English build calls it again
        _state["command"], _state["dirty"] = command, dirty
        if command == "serve" and dirty:
            # `mkdocs serve --dirty` (fast rebuilds) warns on every build that dirty builds can leave
            # stale navigation; with `strict: true` that warning would abort every build.
            logging.getLogger("mkdocs.commands.build").addFilter(_DirtyWarningFilter())


class _DirtyWarningFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("A 'dirty' build is being performed")


def on_config(config: Any) -> Any:
    problems = check_qa(config.extra.get("qa"), config.config_file_path)
    if problems:
        for problem in problems:
            log.error(str(problem))
        raise SystemExit(f"{len(problems)} problem(s) in the site configuration")
    qa = config.extra["qa"]
    lang = qa["lang"]
    docs_root = Path(config.docs_dir)
    # STUDYSITE_SKIP_GENERATE=1 builds docs/ as it is (scripts/bench.py times MkDocs alone with it).
    if lang == "zh" and os.environ.get("STUDYSITE_SKIP_GENERATE") != "1":
        _state["repo_url"] = qa.get("repo_url") or ""  # "report an error" / "edit" links on question pages
        _state["site_url"] = config.site_url or ""  # the page's address in an error report
        serving = _state["command"] == "serve"
        inputs = (str(docs_root), _state["repo_url"], _inputs_fingerprint())
        # Under `mkdocs serve` the bank watcher has usually just regenerated docs/ (that is what
        # triggered this rebuild): generating again from the same inputs would only cost time.
        if not (serving and _state["generated"] is not None and _state.get("inputs") == inputs):
            _generate(docs_root, in_place=serving)
            site_finish.step("docs/ generated from the banks")
            _state["inputs"] = inputs
        if _state["command"] == "serve" and _state["watcher"] is None:
            _state["watcher"] = _watch_banks(docs_root)
    nav_file = Path(config.docs_dir) / ".nav.json"
    config.nav = json.loads(nav_file.read_text(encoding="utf-8"))
    tag_order.install(config, Path(config.docs_dir))  # chips in taxonomy order, linked to their tag's page
    # finish_site writes the sitemap of both languages with their hreflang links: MkDocs' own would
    # only be overwritten (a template rendered over every page of the site, on every build).
    config.theme.static_templates.discard("sitemap.xml")
    if _state["dirty"] and _state.get("finished_once"):
        config.theme.static_templates.discard("404.html")  # a --dirty rebuild: the first build wrote it
    if _state["command"] == "serve":
        _remember_theme_files(config.theme)
    return config


def _remember_theme_files(theme: Any) -> None:
    """Under `mkdocs serve`, list the theme's files once, not on every rebuild of each language.

    Each build walks every theme folder to find its static files: Material's holds ~29,000 files
    (mostly icons), about a second per build here, half of a --dirty rebuild at 500 questions. The
    installed themes do not change while serving; our overrides/ may, so its file names are part of
    the key (a file added there is still picked up).
    """
    make_env = theme.get_env

    def get_env() -> jinja2.Environment:
        env = make_env()
        env.list_templates = functools.partial(_list_templates, env, theme)  # type: ignore[method-assign]
        return env

    theme.get_env = get_env


def _list_templates(env: jinja2.Environment, theme: Any, extensions: Any = None, filter_func: Any = None) -> list[str]:
    own = tuple(
        (d, tuple(sorted(str(p.relative_to(d)) for p in Path(d).rglob("*"))))
        for d in theme.dirs
        if "site-packages" not in Path(d).parts
    )
    key = (
        tuple(theme.dirs),
        own,
        tuple(sorted(theme.static_templates)),
        tuple(extensions or ()),
        getattr(filter_func, "__code__", filter_func),  # add_files_from_theme's filter: a new closure each build
    )
    listed = _state.setdefault("theme_files", {})
    if key not in listed:
        listed[key] = jinja2.Environment.list_templates(env, extensions, filter_func)
    return list(listed[key])


class _TemplateCache(jinja2.BytecodeCache):
    """Compiled theme templates kept between `mkdocs serve` rebuilds, each of which loads the config
    and so a new Jinja environment afresh. Jinja checks each entry against its template's source."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


def on_env(env: jinja2.Environment, config: Any, files: Any) -> jinja2.Environment:
    if _state["command"] == "serve":
        env.bytecode_cache = _state.setdefault("templates", _TemplateCache())
    return env


def on_template_context(context: dict[str, Any], template_name: str, config: Any) -> dict[str, Any]:
    # The root 404 page answers for every language (GitHub Pages serves it for /en/... too).
    context["qa_site_names"] = site_finish.STRINGS["home.title"]
    return context


def on_page_context(context: dict[str, Any], page: Any, config: Any, nav: Any) -> dict[str, Any]:
    site_finish.page_context(context, page, config)
    return context


def on_pre_build(config: Any) -> None:
    # A whole build (not a --dirty rebuild after the first, which renders only the few changed pages
    # in process): the English site builds in a child process alongside this one.
    if config.extra["qa"]["lang"] == "zh" and not (_state["dirty"] and _state.get("finished_once")):
        site_finish.step("MkDocs renders the Chinese pages, a child process the English ones")
        _state["english"] = site_finish.EnglishBuild(config)


def on_build_error(error: Exception) -> None:
    english = _state.pop("english", None)
    if english is not None:
        english.cancel()


def on_post_build(config: Any) -> None:
    if config.extra["qa"]["lang"] != "zh":
        return
    site_finish.step("Chinese pages written")
    site_dir, generated = Path(config.site_dir), _state.get("generated")
    english = _state.pop("english", None)
    downloads = None
    if english is not None:
        # The English build in its child process usually has a while to go: the decks (from the site
        # model, not from pages) use this process's core meanwhile.
        if generated is not None and english.running():
            downloads = site_finish.start_downloads(site_dir, config, generated, fork=True)
        try:
            english.finish()
        except BaseException:
            if downloads is not None:
                downloads.cancel()
            raise
        site_finish.step("English pages in place")
    else:
        site_finish.build_english(config, dirty=_state["dirty"])
    # The front-end bundles into each language's folder (both are in place now); ~0.1 s, and before
    # finish_site, whose offline step hashes every file.
    write_bundles([site_dir / item["root"] for item in config.extra["qa"]["languages"]])
    site_finish.step("front-end bundles written (esbuild)")
    args = (site_dir, config, generated, downloads)
    if _state["command"] == "serve" and _state["dirty"] and _state.get("finished_once"):
        # A `mkdocs serve --dirty` rebuild: MkDocs holds every request until this hook returns, and
        # the site-wide steps (check, downloads, Pagefind, sitemap, offline files) take seconds at a
        # few hundred questions, so they run in the background and the edited page is served at once.
        # (Not in a plain `serve`: each of its rebuilds empties the site folder first, under them.)
        _finish_in_background(args)
    else:
        site_finish.finish_site(*args)
        site_finish.step("site finished")
        _state["finished_once"] = True


def _finish_in_background(args: tuple[Path, Any, Any, Any]) -> None:
    """Finish the site on a worker thread; saves in quick succession finish once, with the latest build."""
    guard = _state.setdefault("finish_guard", threading.Lock())
    with guard:
        _state["finish_next"] = args
        if _state.get("finisher") is None:
            _state["finisher"] = threading.Thread(target=_finisher, name="studysite-finish", daemon=True)
            _state["finisher"].start()


def _finisher() -> None:
    guard = _state["finish_guard"]
    while True:
        with guard:
            args = _state.pop("finish_next", None)
            if args is None:
                _state["finisher"] = None
                return
        try:
            site_finish.finish_site(*args)
            log.info("studysite: search index, downloads and offline files updated")
        except BaseException as exc:  # a serve session survives this; the next save retries
            log.error("studysite: finishing the site failed: %s", exc)


def _generate(docs_root: Path, in_place: bool) -> None:
    try:
        result = generate(
            BANKS,
            docs_root,
            in_place=in_place,
            repo_url=_state.get("repo_url", ""),
            site_url=_state.get("site_url", ""),
            locked=os.environ.get(LOCKED_ENV) == "1",
        )
    except BuildError as exc:
        for problem in exc.problems:
            log.error(str(problem))
        raise SystemExit(f"{len(exc.problems)} problem(s) in banks/; docs/ left unchanged") from None
    except OSError as exc:
        log.error(os_error(exc))
        raise SystemExit("docs/ and banks/slugs.lock left unchanged") from None
    for change in result.url_changes:
        log.info("studysite: url %s", change)
    _state["generated"] = result  # what finish_site checks the built site against
    for warning in result.warnings:
        log.warning(warning)


def _inputs_fingerprint() -> tuple[tuple[str, int, int], ...]:
    """Name, size and modification time of each input file the bank watcher follows."""
    found = []
    for path in sorted(BANKS.iterdir()) if BANKS.is_dir() else ():
        if path.name.endswith((".txt", ".yml")) and not path.name.startswith("."):
            st = path.stat()
            found.append((path.name, st.st_size, st.st_mtime_ns))
    return tuple(found)


def _watch_banks(docs_root: Path) -> Any:
    """With `mkdocs serve`, regenerate docs/ when a bank changes; mkdocs then rebuilds what changed."""
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    timer: list[threading.Timer] = []

    def regenerate() -> None:
        try:
            inputs = (str(docs_root), _state.get("repo_url", ""), _inputs_fingerprint())
            result = generate(
                BANKS,
                docs_root,
                in_place=True,
                repo_url=_state.get("repo_url", ""),
                site_url=_state.get("site_url", ""),
            )
            _state["generated"], _state["inputs"] = result, inputs
            if result.written:
                log.info("studysite: regenerated %d page(s) from banks/", len(result.written))
            for change in result.url_changes:
                log.info("studysite: url %s", change)
        except BuildError as exc:
            for problem in exc.problems:
                log.error(str(problem))
        except OSError as exc:  # a full disk: say so in one line, keep serving the previous pages
            log.error("studysite: %s", os_error(exc))
        except Exception:  # a serve session must survive a half-saved bank
            log.exception("studysite: regeneration failed")

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: Any) -> None:
            # Only a written, created, renamed or deleted bank/taxonomy file counts. Reading one (as
            # generate() does) emits opened/closed_no_write events, which would regenerate forever;
            # an editor that saves by renaming a hidden temp file over the bank names it in dest_path.
            if event.is_directory or event.event_type not in ("created", "modified", "moved", "deleted", "closed"):
                return
            paths = (str(event.src_path), str(getattr(event, "dest_path", "") or ""))
            if not any(p.endswith((".txt", ".yml")) and "/." not in p for p in paths):
                return
            for t in timer:
                t.cancel()
            timer[:] = [threading.Timer(0.2, regenerate)]
            timer[0].start()

    observer = Observer()
    observer.schedule(Handler(), str(BANKS), recursive=False)
    observer.daemon = True
    observer.start()
    return observer
