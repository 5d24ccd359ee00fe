"""MkDocs hook: generate pages from the banks, install the nav, and finish the bilingual site.

Listed under `hooks:` in mkdocs.yml (the Chinese site). On every build it regenerates docs/ from
banks/, and after the Chinese site is written it builds the English one into site/en/ and runs
Pagefind over both, so `mkdocs build` and `mkdocs serve` always produce the whole site.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # mkdocs loads hooks by file path
    sys.path.insert(0, str(ROOT))

import studysite  # noqa: E402
from studysite import site_finish  # noqa: E402
from studysite.build import generate  # noqa: E402
from studysite.errors import BuildError  # noqa: E402

BANKS = Path(os.environ.get("STUDYSITE_BANKS", ROOT / "banks"))
"""The banks folder; tests point it elsewhere."""
log = logging.getLogger("mkdocs.hooks.studysite")
# mkdocs executes this file afresh for every config it loads (each `serve` rebuild, the nested
# English build), so state that must outlive one build lives on the imported package instead.
_state: dict[str, Any] = studysite.__dict__.setdefault(
    "_hook_state", {"command": None, "dirty": False, "watcher": None}
)


def on_startup(command: str, dirty: bool) -> None:
    if _state["command"] is None:  # first call wins: the nested English build calls it again
        _state["command"], _state["dirty"] = command, dirty


def on_config(config: Any) -> Any:
    qa = config.extra["qa"]
    lang = qa["lang"]
    docs_root = Path(config.docs_dir)
    if lang == "zh":
        _generate(docs_root, in_place=_state["command"] == "serve")
        if _state["command"] == "serve" and _state["watcher"] is None:
            _state["watcher"] = _watch_banks(docs_root)
    nav_file = Path(config.docs_dir) / ".nav.json"
    config.nav = json.loads(nav_file.read_text(encoding="utf-8"))
    return config


def on_page_context(context: dict[str, Any], page: Any, config: Any, nav: Any) -> dict[str, Any]:
    site_finish.page_context(context, page, config)
    return context


def on_post_build(config: Any) -> None:
    if config.extra["qa"]["lang"] != "zh":
        return
    site_finish.build_english(config, dirty=_state["dirty"])
    site_finish.finish_site(Path(config.site_dir), config)


def _generate(docs_root: Path, in_place: bool) -> None:
    try:
        result = generate(BANKS, docs_root, in_place=in_place)
    except BuildError as exc:
        for problem in exc.problems:
            log.error(str(problem))
        raise SystemExit(f"{len(exc.problems)} problem(s) in banks/; docs/ left unchanged") from None
    for warning in result.warnings:
        log.warning(warning)


def _watch_banks(docs_root: Path) -> Any:
    """With `mkdocs serve`, regenerate docs/ when a bank changes; mkdocs then rebuilds what changed."""
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    timer: list[threading.Timer] = []

    def regenerate() -> None:
        try:
            result = generate(BANKS, docs_root, in_place=True)
            if result.written:
                log.info("studysite: regenerated %d page(s) from banks/", len(result.written))
        except BuildError as exc:
            for problem in exc.problems:
                log.error(str(problem))
        except Exception:  # a serve session must survive a half-saved bank
            log.exception("studysite: regeneration failed")

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: Any) -> None:
            if str(event.src_path).endswith("slugs.lock") or "/." in str(event.src_path):
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
