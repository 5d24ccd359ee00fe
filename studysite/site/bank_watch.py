"""Under `mkdocs serve`: regenerate docs/ when a bank changes, then ask MkDocs for a rebuild of what changed."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from ..build import generate
from ..errors import BuildError, os_error
from .session import Fingerprint, Session

log = logging.getLogger("mkdocs.plugins.studysite")


def inputs_fingerprint(banks: Path, docs_root: Path, repo_url: str) -> Fingerprint:
    """The docs folder, the repository, and the name, size and modification time of each input file the watcher follows."""
    found = []
    for path in sorted(banks.iterdir()) if banks.is_dir() else ():
        if path.name.endswith((".txt", ".yml")) and not path.name.startswith("."):
            st = path.stat()
            found.append((path.name, st.st_size, st.st_mtime_ns))
    return str(docs_root), repo_url, tuple(found)


def regenerate(banks: Path, docs_root: Path, session: Session) -> None:
    """Generate `docs_root` from `banks` into `session.generated`, logging what went wrong.

    One run at a time (a save can fire two timers whose runs would overlap, and a rebuild's
    on_config generates under the same lock), and again while the inputs changed during a run: an
    editor that truncates and then writes the bank can be read half-saved, and the run after the
    last write must be the one whose pages stay.
    """
    wrote = False
    with session.generating:
        for _ in range(5):
            inputs = inputs_fingerprint(banks, docs_root, session.repo_url)
            if not _generate_once(banks, docs_root, session, inputs):
                break
            wrote = wrote or bool(session.generated and session.generated.written)
            if inputs_fingerprint(banks, docs_root, session.repo_url) == inputs:
                break
        else:
            log.warning("studysite: banks/ kept changing while the pages were generated; save again to regenerate")
    if wrote and session.request_rebuild is not None:
        session.request_rebuild()  # after the lock: the rebuild's on_config takes it


def serve_from_banks(server: Any, docs_dir: str, session: Session) -> None:
    """Under `mkdocs serve`: rebuild when the bank watcher has regenerated docs/, instead of when MkDocs'
    own watcher notices docs/ changed.

    MkDocs polls every folder it watches (a PollingObserver, every 0.5 s): at 500 questions it
    called stat() on the 1,900 files of docs/ twice a second (1.19 s of CPU in 20 idle seconds; 0.03 s
    without), and an edit's 9 pages, seen across two polls, were built twice: the page was served
    after the first rebuild, 0 to 0.5 s after docs/ changed, and the second (1.5-3.9 s) ran beside
    the site's finishing and the next edit (edit to page served: 2.3-4.3 s; now 1.8-2.2 s,
    2026-12-04). docs/ is generated from the banks only (its .gitignore says so), so MkDocs stops
    watching it and the bank watcher asks for one rebuild when it has written pages, as MkDocs' own
    watcher does (the server's `_want_rebuild` under `_rebuild_cond`, MkDocs 1.6; a server without
    them keeps watching docs/). tests/test_plugin.py checks both against MkDocs' server,
    tests/test_serve.py that an edit is served so.
    """
    cond = getattr(server, "_rebuild_cond", None)
    if cond is None or not hasattr(server, "_want_rebuild") or not hasattr(server, "unwatch"):
        log.info("studysite: this MkDocs server cannot be asked for a rebuild; it keeps watching docs/")
        return

    def request_rebuild() -> None:
        with cond:
            server._want_rebuild = True
            cond.notify_all()

    server.unwatch(docs_dir)
    session.request_rebuild = request_rebuild


def _generate_once(banks: Path, docs_root: Path, session: Session, inputs: Fingerprint) -> bool:
    """Generate docs/ from the banks as they are now; False if they have an error (it is logged)."""
    try:
        result = generate(banks, docs_root, in_place=True, repo_url=session.repo_url, site_url=session.site_url)
    except BuildError as exc:
        for problem in exc.problems:
            log.error(str(problem))
        return False
    except OSError as exc:  # a full disk: say so in one line, keep serving the previous pages
        log.error("studysite: %s", os_error(exc))
        return False
    except Exception:  # a serve session must survive a half-saved bank
        log.exception("studysite: regeneration failed")
        return False
    session.generated, session.inputs = result, inputs
    if result.written:
        log.info("studysite: regenerated %d page(s) from banks/", len(result.written))
    for change in result.url_changes:
        log.info("studysite: url %s", change)
    log_warnings(result.warnings, serving=True)
    return True


def log_warnings(warnings: list[str], *, serving: bool) -> None:
    """The generator's warnings (a translation left stale by an edit, a question no tag fits). Under
    `mkdocs serve` they are shown at info level: MkDocs counts a warning logged during a build against
    that build, and `strict: true` would stop serving the pages being edited (this watcher's thread
    logs while a rebuild may run). `make site` and CI, which are strict, still fail on them."""
    for warning in warnings:
        if serving:
            log.info("studysite: warning: %s", warning)
        else:
            log.warning(warning)


def watch_banks(banks: Path, docs_root: Path, session: Session) -> Any:
    """Start a watchdog observer on `banks`; each change regenerates `docs_root` into `session.generated`."""
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    timer: list[threading.Timer] = []

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
            timer[:] = [threading.Timer(0.2, regenerate, (banks, docs_root, session))]
            timer[0].start()

    observer = Observer()
    observer.schedule(Handler(), str(banks), recursive=False)
    observer.daemon = True
    observer.start()
    return observer
