"""The theme's compiled templates, kept between builds; under `mkdocs serve`, its file list too; and
Material's interface strings, each looked up once per build (`theme_strings`).

The first two reach into MkDocs 1.6 internals (`Theme.get_env`, and `Files.add_files_from_theme`
listing the theme's files through the Jinja environment's `list_templates`), so they switch
themselves on only for the MkDocs version they were written and measured for; tests/test_plugin.py
fails if those internals change shape, and if Material's strings stop being what its own t() gives.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2
import mkdocs

SUPPORTED = "1.6."
"""The MkDocs versions (a prefix) whose internals `remember_theme_files` relies on."""
log = logging.getLogger("mkdocs.plugins.studysite")


def remember_theme_files(
    theme: Any, listed: dict[tuple[Any, ...], list[str]] | None, version: str = mkdocs.__version__
) -> bool:
    """List the theme's static files without walking its hidden folders; under `mkdocs serve` (with
    `listed`, Session.theme_files) only once per serve, not on every rebuild of each language.

    Each build lists every file of every theme folder to find the static files: Material's holds
    14,509 files, 14,348 of them icons under `.icons/`, and MkDocs then drops every path with a
    hidden folder in it. Listing and filtering them cost about 60 ms of CPU in each language's
    process (3 ms without the hidden folders), and about a second a build under `mkdocs serve` at
    500 questions. The walk here leaves hidden folders out when MkDocs' filter would drop them anyway
    (`_walk_templates` asks the filter). The installed themes do not change while serving; our
    overrides/ may, so its file names are part of the serve cache's key (a file added there is still
    picked up). Returns whether the theme was changed (False on another MkDocs version: builds
    list every file, as MkDocs does).
    """
    if not version.startswith(SUPPORTED):
        log.debug("studysite: MkDocs %s is not %sx: the theme's files are listed on every build", version, SUPPORTED)
        return False
    make_env = theme.get_env

    def get_env() -> jinja2.Environment:
        env = make_env()
        env.list_templates = functools.partial(_list_templates, env, theme, listed)  # type: ignore[method-assign]
        return env

    theme.get_env = get_env
    return True


class TemplateCache(jinja2.BytecodeCache):
    """Compiled theme templates kept between `mkdocs serve` rebuilds, each of which loads the config
    and so a new Jinja environment afresh. Jinja checks each entry against its template's source."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


class DiskTemplateCache(jinja2.FileSystemBytecodeCache):
    """Compiled theme templates kept on disk between builds (`mkdocs build`, `make site`, each test's
    build): compiling Material's templates afresh is part of every language's process; with the
    cache a seed build took 4.1-4.4 CPU-s against 4.3-4.9 without (three alternated pairs, busy machine). Jinja names an entry by template and file and checks it against the
    template's source and the Python version, so an edited or upgraded template is compiled again.

    A cache is never a reason for a build to fail: an entry that cannot be read is compiled again, one
    that cannot be written (a full disk, a read-only home) is left out.
    """

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # a truncated or foreign file fails in pickle or marshal: compile anew
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError as exc:
            log.debug("studysite: compiled template not cached: %s", exc)


def disk_template_cache(environ: os._Environ[str] | dict[str, str] = os.environ) -> DiskTemplateCache | None:
    """The on-disk template cache: STUDYSITE_TEMPLATE_CACHE, else studysite/templates under the
    user's cache folder (XDG_CACHE_HOME, ~/.cache); None when it is switched off (an empty
    STUDYSITE_TEMPLATE_CACHE) or cannot be made."""
    where = environ.get("STUDYSITE_TEMPLATE_CACHE")
    if where is None:
        where = str(Path(environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "studysite" / "templates")
    if not where:
        return None
    try:
        os.makedirs(where, exist_ok=True)
    except OSError as exc:
        log.debug("studysite: no template cache at %s: %s", where, exc)
        return None
    return DiskTemplateCache(where)


def _list_templates(
    env: jinja2.Environment,
    theme: Any,
    listed: dict[tuple[Any, ...], list[str]] | None,
    extensions: Any = None,
    filter_func: Any = None,
) -> list[str]:
    if listed is None:
        return _walk_templates(env, extensions, filter_func)
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
    if key not in listed:
        listed[key] = _walk_templates(env, extensions, filter_func)
    return list(listed[key])


def _walk_templates(env: jinja2.Environment, extensions: Any, filter_func: Any) -> list[str]:
    """`env.list_templates(extensions, filter_func)`, without entering hidden folders when
    `filter_func` drops every path through one (as MkDocs' filter of static files does)."""
    loader = env.loader
    drops_hidden = (
        extensions is None
        and filter_func is not None
        and isinstance(loader, jinja2.FileSystemLoader)
        and not any(filter_func(probe) for probe in (".a", ".a/b", "a/.b", "a/.b/c"))
    )
    if not drops_hidden:
        return jinja2.Environment.list_templates(env, extensions, filter_func)
    assert isinstance(loader, jinja2.FileSystemLoader)
    found: set[str] = set()
    for searchpath in loader.searchpath:  # as FileSystemLoader.list_templates walks, hidden folders left out
        for dirpath, dirnames, filenames in os.walk(searchpath, followlinks=loader.followlinks):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            for filename in filenames:
                name = os.path.join(dirpath, filename)[len(searchpath) :].strip(os.path.sep).replace(os.path.sep, "/")
                found.add(name[2:] if name[:2] == "./" else name)
    return [name for name in sorted(found) if filter_func(name)]


def theme_strings(env: jinja2.Environment, language: str) -> Callable[[str], str]:
    """Material's `t(key)` (its partials/language.html) for the build's `language`, each key looked up
    once: overrides/partials/language.html calls this instead.

    Material's t() calls the language's own t() macro, then English's when that is empty: each of those
    builds a dictionary of every string (about 80) to look up one, and a page calls t() about 30 times
    (6 % of a 5,000-question build's CPU). The same macros answer here, once per key, so a page's
    HTML is the same byte for byte (tests/test_plugin.py compares the two for every key Material has)."""
    lang = env.get_template(f"partials/languages/{language}.html").module
    fallback = env.get_template("partials/languages/en.html").module

    @functools.cache
    def t(key: str) -> str:
        return str(lang.t(key)) or str(fallback.t(key)) or key  # type: ignore[attr-defined]

    return t
