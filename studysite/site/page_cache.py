"""Each page's Markdown converted once: MkDocs' `Page.render` (Python-Markdown and its extensions)
kept in the generator's cache (studysite/cache.py) by what it reads, for every build after the first.

The conversion was 35 % of the Python time of a 5,000-question build with nothing changed (py-spy,
2026-12-05); a build that finds every page's HTML here skips it. A page's HTML, table of contents,
title, anchors and links to anchors are a function of its Markdown, its source path and address,
the site's files (a relative link resolves against them), the configuration files, and the code:
our package and the libraries whose output reaches the page (`cache.key`), MkDocs and Material here.
What is logged while a page converts (a link to no page, an anchor MkDocs cannot find) is kept with
it and logged again when the kept HTML is used, so a strict build counts the same warnings.

The plugin (mkdocs_plugin.py) opens one per language build (`for_build`), gives each page to it
before MkDocs renders the page (`install`), and saves it after the build (`save`).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import threading
from pathlib import Path
from typing import Any

from .. import cache
from ..cache import MISSING
from .siteconfig import inherit_chain

_PAGES_LOG = logging.getLogger("mkdocs.structure.pages")

_VERSIONS = ("mkdocs", "mkdocs-material", "Markdown", "pymdown-extensions")
"""The libraries a page's conversion runs (besides `cache.code_digest`'s): their versions are in every key."""


class PageCache:
    """One language build's kept conversions (a shard of the cache beside the main docs folder)."""

    def __init__(self, memo: cache.Memo, config_key: bytes) -> None:
        self.memo = memo
        self.config_key = config_key
        self._files: tuple[int, bytes] | None = None  # id of the build's Files, and their digest
        self.converted = 0
        self.kept = 0

    def install(self, page: Any) -> None:
        """Have MkDocs' next `page.render(config, files)` take the page's conversion from here, or
        convert it and keep the result."""
        if self.memo.enabled:
            page.render = functools.partial(self._render, page, page.render)

    def save(self) -> None:
        self.memo.save()

    def _render(self, page: Any, render: Any, config: Any, files: Any) -> None:
        key = self.memo.key(
            "page-html",
            self.config_key,
            self._files_key(files),
            page.file.src_uri,
            page.url,
            page.markdown,
            # MkDocs keeps a page's links to anchors for checking unless its log is at DEBUG (-v)
            str(_PAGES_LOG.getEffectiveLevel() > logging.DEBUG),
        )
        found = self.memo.get(key)
        if found is not MISSING and _restore(page, found, files):
            self.kept += 1
            return
        with _Recorder() as records:
            render(config, files)
        self.converted += 1
        self.memo.put(key, _kept(page, records.logged))

    def _files_key(self, files: Any) -> bytes:
        """The digest of every file's source path and address (a relative link resolves against them),
        once per build."""
        if self._files is None or self._files[0] != id(files):
            h = hashlib.sha256()
            for f in sorted(files, key=lambda f: f.src_uri):
                h.update(f"{f.src_uri}\0{f.dest_uri}\0{f.url}\0{f.is_documentation_page()}\n".encode())
            self._files = (id(files), h.digest())
        return self._files[1]


def for_build(config: Any, docs_root: Path, lang: str) -> PageCache:
    """The kept conversions of language `lang`'s pages, in the cache of the main docs folder `docs_root`."""
    return PageCache(cache.shard(docs_root, f"page-html-{lang}"), _config_key(config))


def _config_key(config: Any) -> bytes:
    """What a page's conversion reads of the configuration: the config file and those it inherits,
    which name the Markdown extensions and their options, and MkDocs' validation settings."""
    h = hashlib.sha256()
    for path, _ in inherit_chain(Path(config.config_file_path)):
        h.update(path.read_bytes())
    h.update(repr(config.validation).encode())
    h.update(repr(config.use_directory_urls).encode())
    h.update(cache.library_versions(_VERSIONS))
    return h.digest()


def _kept(page: Any, logged: list[tuple[str, int, str]]) -> tuple[Any, ...]:
    anchors = getattr(page, "links_to_anchors", None)
    by_path = None if anchors is None else {f.src_uri: links for f, links in anchors.items()}
    return (page.content, page.toc, page._title_from_render, page.present_anchor_ids, by_path, logged)


def _restore(page: Any, kept: tuple[Any, ...], files: Any) -> bool:
    """Put a kept conversion on `page` (False, changing nothing, when a file it links to is gone)."""
    content, toc, title, anchor_ids, by_path, logged = kept
    anchors = None
    if by_path is not None:
        anchors = {}
        for src_uri, links in by_path.items():
            target = files.get_file_from_path(src_uri)
            if target is None:
                return False
            anchors[target] = links
    page.content, page.toc, page._title_from_render, page.present_anchor_ids = content, toc, title, anchor_ids
    if anchors is not None:
        page.links_to_anchors = anchors
    for name, level, message in logged:
        logging.getLogger(name).log(level, message)
    return True


class _Recorder(logging.Handler):
    """What this thread logs while a page converts, as (logger, level, message): through the root
    logger and MkDocs' (which does not pass its records on to the root), each record once."""

    _LOGGERS = ("", "mkdocs")

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.logged: list[tuple[str, int, str]] = []
        self._seen: dict[int, logging.LogRecord] = {}  # holds each record: its id stays its own
        self._thread = threading.get_ident()

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self._thread and id(record) not in self._seen:
            self._seen[id(record)] = record
            self.logged.append((record.name, record.levelno, record.getMessage()))

    def __enter__(self) -> _Recorder:
        for name in self._LOGGERS:
            logging.getLogger(name).addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        for name in self._LOGGERS:
            logging.getLogger(name).removeHandler(self)
