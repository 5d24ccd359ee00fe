"""The theme's compiled templates, kept between builds; under `mkdocs serve`, its file list too.

Both reach into MkDocs 1.6 internals (`Theme.get_env`, and `Files.add_files_from_theme` listing the
theme's files through the Jinja environment's `list_templates`), so they switch themselves on only
for the MkDocs version they were written and measured for; tests/test_plugin.py fails if those
internals change shape.
"""

from __future__ import annotations

import functools
import logging
import os
from pathlib import Path
from typing import Any

import jinja2
import mkdocs

SUPPORTED = "1.6."
"""The MkDocs versions (a prefix) whose internals `remember_theme_files` relies on."""
log = logging.getLogger("mkdocs.plugins.studysite")


def remember_theme_files(
    theme: Any, listed: dict[tuple[Any, ...], list[str]], version: str = mkdocs.__version__
) -> bool:
    """List the theme's files once per `mkdocs serve`, not on every rebuild of each language.

    Each build walks every theme folder to find its static files: Material's holds ~29,000 files
    (mostly icons), about a second per build here, half of a --dirty rebuild at 500 questions. The
    installed themes do not change while serving; our overrides/ may, so its file names are part of
    the key (a file added there is still picked up). `listed` is the cache (Session.theme_files).
    Returns whether the theme was changed (False on another MkDocs version: builds just list again).
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
    build): compiling Material's templates afresh cost about 0.9 s of each language's process, a
    sixth of a seed build's CPU. Jinja names an entry by template and file and checks it against the
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
    listed: dict[tuple[Any, ...], list[str]],
    extensions: Any = None,
    filter_func: Any = None,
) -> list[str]:
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
        listed[key] = jinja2.Environment.list_templates(env, extensions, filter_func)
    return list(listed[key])
