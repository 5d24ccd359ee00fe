"""Helpers the tests share: build a whole site from any banks folder, serve it, drive chromium."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from studysite.enrich.convert import convert_text
from studysite.i18n import STRINGS
from studysite.languages import LANGUAGES
from studysite.site import engine
from studysite.takeaway import pdf

ROOT = Path(__file__).resolve().parent.parent
USER_BANKS = ROOT / "banks"
"""The user's banks: only the smoke test (tests/test_golden.py) builds them, so editing them breaks no other test."""
FIXTURE_BANKS = ROOT / "tests" / "fixtures" / "banks"
"""A frozen copy of the seed banks that every other test builds: editing banks/ never breaks `make test`."""
SEED = FIXTURE_BANKS
"""What the tests call the seed: the fixture copy."""
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
"""Debian's chromium: what Lighthouse and the PDF edition run, and the benchmark measures."""
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
BROWSER = os.environ.get("QA_CHROMIUM") or (HEADLESS_SHELL if os.path.exists(HEADLESS_SHELL) else CHROMIUM)
"""The browser Playwright drives in the tests: Debian's chromium-headless-shell, the same chromium
built without the desktop browser's UI (what Playwright itself runs headless). It renders the same
pages with about a third of the CPU (30 page loads: 3.5 s against 12.5 s, measured), and the tests
are bound by chromium's CPU. QA_CHROMIUM=/usr/bin/chromium runs them in the full browser."""
CHROMIUM_ARGS = [*pdf.CHROMIUM_ARGS, "--process-per-site"]
"""The PDF edition's flags, and one renderer process per site in each profile: a test's pages share
the renderer that the profile's keeper page (_ContextPool) keeps alive between tests, where each
page would start one of its own (a reused profile and a question page: chromium CPU 429 ms a test
against 550 ms, 20 tests each, 2026-12-03). Every 127.0.0.1 server is one site (the port is not
part of it). Pages behave as in separate processes; they only share a main thread."""
MKDOCS_CLI = (
    "import signal\n"
    "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
    "from mkdocs.__main__ import cli\n"
    "cli(prog_name='mkdocs')\n"
)
"""`python -c MKDOCS_CLI serve ...`: the `mkdocs` command, stopped by SIGINT as Ctrl-C stops it (MkDocs then
deletes the site it served from a temporary folder) also where it was started from a shell that ignores
SIGINT in the jobs it runs in the background (a script's `cmd &`: Python then leaves SIGINT ignored)."""
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def _midday_zone() -> tuple[str, timezone]:
    """The whole-hour time zone where it is now between 12:00 and 13:00, by its IANA name and offset."""
    hours = 12 - datetime.now(UTC).hour  # -11 (at 23:xx UTC) to +12 (at 00:xx UTC)
    name = "Etc/GMT" + (f"{-hours:+d}" if hours else "")  # POSIX signs: Etc/GMT-8 is UTC+8
    return name, timezone(timedelta(hours=hours))


READER_ZONE, READER_TZ = _midday_zone()
"""The time zone of every profile `reader` opens (READER_TZ in Python): where the run starts at midday.
The study pages count a reader's day in local time ("due today" is due before local midnight), so in
the machine's zone a test that grades "Again" (back in minutes) at 23:59 found nothing due today
(test_study failed so at 23:59:35 UTC, 2026-12-06): a run now has eleven hours before the browser's
day ends, whenever it starts."""


def drop_requests(context: object, matches: Callable[[str], bool]) -> None:
    """Requests of `context` whose address `matches` fail, as on a network that drops them (offline,
    a flaky connection); the browser logs each as net::ERR_FAILED, which `dropped_logged` accepts
    (reader's `expected`). `context.unroute(matches)` lets them through again."""
    context.route(matches, lambda route: route.abort())  # type: ignore[attr-defined]


def dropped_logged(text: str) -> bool:
    """The console error the browser logs for a request `drop_requests` failed."""
    return "net::ERR_FAILED" in text


@contextlib.contextmanager
def reader(
    browser: object,
    *,
    viewport: dict[str, int] = DESKTOP,
    expected: Callable[[str], bool] = lambda text: False,
    timeout: float | None = None,
    **options: object,
) -> Iterator[object]:
    """A browser profile with empty storage that fails the test on any script error or console error,
    but those `expected` accepts (such as a refused request the test provoked). Without the offline
    worker unless `service_workers="allow"`: its precache of the whole site after a first visit is
    the offline tests' to check (tests/test_offline.py), and in every other test only costs time.

    Profiles are reused (see _ContextPool): a test gets one whose storage, cookies and permissions
    were cleared and whose pages were closed, and whose HTTP cache holds only files of the session's
    seed site, which never change."""
    options.setdefault("service_workers", "block")
    options.setdefault("timezone_id", READER_ZONE)
    context = CONTEXTS.take(browser, viewport=viewport, **options)
    if timeout is not None:
        context.set_default_timeout(timeout)  # type: ignore[attr-defined]
    errors: list[str] = []

    def on_error(e: object) -> None:
        errors.append(str(e.error))  # type: ignore[attr-defined]

    def on_console(m: object) -> None:
        if m.type == "error" and not expected(m.text):  # type: ignore[attr-defined]
            errors.append(m.text)  # type: ignore[attr-defined]

    context.on("weberror", on_error)  # type: ignore[attr-defined]
    context.on("console", on_console)  # type: ignore[attr-defined]
    try:
        yield context
    finally:
        CONTEXTS.give_back(context)  # removes the two listeners above with any the test added
    assert not errors, errors


@contextlib.contextmanager
def reader_pages(browser: object) -> Iterator[Callable[..., object]]:
    """`open_page(**options)`: a page in a profile of its own (`reader`, given those options); every
    profile goes back to the pool, its errors checked, when the block ends. For a fixture that hands a
    test as many pages as it asks for."""
    with contextlib.ExitStack() as stack:

        def open_page(**options: object) -> object:
            return stack.enter_context(reader(browser, **options)).new_page()  # type: ignore[attr-defined, arg-type]

        yield open_page


def published_data(site: Path) -> dict[str, dict[str, object]]:
    """The question data a built site publishes (assets/qa/questions.json), per language of the table."""
    import json

    return {
        item.lang: json.loads((site / item.root / "assets/qa/questions.json").read_text(encoding="utf-8"))
        for item in LANGUAGES.items
    }


def copy_banks(dest: Path, *, translations: bool = True, lock: bool = True, source: Path | None = None) -> Path:
    """A copy of the project's banks folder (or of `source`) to edit in a test."""
    dest.mkdir(parents=True, exist_ok=True)
    for path in (source or SEED).iterdir():
        if path.name.endswith(".en.txt") and not translations:
            continue
        if path.name == "slugs.lock" and not lock:
            continue
        if path.is_file():
            shutil.copy2(path, dest / path.name)
    return dest


def build_pages(banks: Path, out: Path, *extra: str, timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """Run scripts/build_pages.py as a maintainer would (`timeout`: seconds, for a build that could wait
    for ever, such as one that opens a FIFO)."""
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_pages.py"), "--banks", str(banks), "--out", str(out), *extra],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        timeout=timeout,
    )


def build_pages_here(banks: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """`build_pages` in this process: the same `studysite.cli.main` that scripts/build_pages.py runs,
    its output captured, an exception that escapes it written to stderr as Python would print it
    (with exit status 1). Without the interpreter's start-up (~0.5 s a run), for tests that run it
    many times; tests/test_errors.py keeps subprocess runs of the script itself."""
    import io
    import traceback

    from studysite.cli import main

    argv = ["--banks", str(banks), "--out", str(out), *extra]
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            code = main(argv, default_banks=ROOT / "banks", default_docs=ROOT / "docs")
        except Exception:
            traceback.print_exc()
            code = 1
    return subprocess.CompletedProcess(["build_pages.py", *argv], code, stdout.getvalue(), stderr.getvalue())


def prepare_work(banks: Path, work: Path, *, site_url: str | None = None) -> dict[str, str]:
    """Copy the site configs into `work` (pointing at this checkout's theme); returns the env to run in.

    The studysite plugin is the one installed in .venv (an editable install of this checkout)."""
    (work / "docs").mkdir(parents=True, exist_ok=True)  # as in a fresh clone
    for name in ("mkdocs.yml", *(item.config for item in LANGUAGES.extra)):
        text = (ROOT / name).read_text(encoding="utf-8")
        text = text.replace("custom_dir: overrides", f"custom_dir: {ROOT / 'overrides'}")
        text = re.sub(r"\nwatch:\n(  - .*\n)+", "\n", text)
        (work / name).write_text(text, encoding="utf-8")
    env = dict(os.environ, STUDYSITE_BANKS=str(banks), NO_MKDOCS_2_WARNING="1")
    # Tests build edited banks whose lock changes: under CI=true (GitHub sets it) make site would
    # refuse that; the test of that refusal sets CI itself.
    env.pop("CI", None)
    if site_url:
        env["SITE_URL"] = site_url
    return env


def build_site(
    banks: Path, work: Path, *, site_url: str | None = None, strict: bool = True, python: Path | None = None
) -> Path:
    """Build the full bilingual site from `banks` in `work` (configs copied there); returns the site folder.

    `python`: build with that interpreter instead (one of `installed_package`'s, whose package finds
    the project's overrides/ and node_modules/ in the folder it runs in: they are linked into `work`)."""
    env = prepare_work(banks, work, site_url=site_url)
    cmd = engine.current().site_command(work / "mkdocs.yml", work / "site", strict=strict)
    if python is not None:
        cmd[0] = str(python)
        for name in ("overrides", "node_modules"):
            (work / name).symlink_to(ROOT / name, target_is_directory=True)
    proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise AssertionError(f"site build failed:\n{proc.stdout}\n{proc.stderr}")
    return work / "site"


def installed_package(folder: Path) -> Path:
    """`pip install .` into a fresh venv in `folder`, without a package index (there is none here): the
    project's wheel is built from this checkout (flit_core from the lock, no build isolation) and
    installed with --no-deps; the dependencies are those .venv installed from the lock, put on the new
    venv's path by a .pth file (their folder's own .pth files, .venv's editable install of this checkout
    among them, are not run). Returns the venv's python, after checking that it imports the wheel's
    package and finds the MkDocs plugin's entry point there."""
    wheels = folder / "wheel"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(ROOT)], check=True)
    (wheel,) = wheels.glob("studysite-*.whl")
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([*pip, "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)], check=True)
    site_packages = Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))
    (site_packages / "locked-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    where = subprocess.run(
        [
            str(python),
            "-c",
            "import importlib.metadata as m, studysite;"
            "(ep,) = {e.value for e in m.entry_points(group='mkdocs.plugins') if e.name == 'studysite'};"
            "assert ep == 'studysite.site.mkdocs_plugin:StudySitePlugin', ep;"
            "print(studysite.__file__)",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(venv), f"the fresh venv imports studysite from {where}, not its wheel"
    return python


class QuietServer(http.server.ThreadingHTTPServer):
    """A threaded server that does not print a traceback when the browser drops a connection it no
    longer needs (a page closed mid-download: BrokenPipeError, ConnectionResetError); any other
    error in a handler is still printed."""

    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    max_age: int | None = None
    """Seconds the browser may reuse a file without asking again (Cache-Control), or None: no such
    header, and the browser revalidates a file once its heuristic freshness runs out (a tenth of the
    file's age when it was fetched: a few seconds for a site built a minute before)."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def end_headers(self) -> None:
        if self.max_age is not None:
            self.send_header("Cache-Control", f"max-age={self.max_age}")
        super().end_headers()


PAGES_MAX_AGE = 600
"""The Cache-Control max-age GitHub Pages sends with every file (tests/qualitykit.serve_pages with its
gzipped ones)."""


@contextlib.contextmanager
def serving(handler: Callable[..., http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """Run `handler` on a QuietServer on 127.0.0.1 (a free port) in a thread; yields
    http://127.0.0.1:PORT (no trailing slash), and shuts the server down after."""
    server = QuietServer(("127.0.0.1", 0), handler)  # type: ignore[arg-type]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def serve(directory: Path, *, max_age: int | None = None) -> Iterator[str]:
    """Serve a folder on 127.0.0.1 (a free port); yields the base URL ending in '/'. `max_age`: send
    Cache-Control max-age as GitHub Pages does (PAGES_MAX_AGE), for a folder that does not change
    while it is served; a test that rebuilds the site it serves leaves it out."""
    handler_class = type("_Handler", (_QuietHandler,), {"max_age": max_age})
    with serving(functools.partial(handler_class, directory=str(directory))) as origin:
        yield origin + "/"


def visible_text(html: str) -> str:
    """Rough visible text of a page's main content, whitespace-normalised (for text comparisons)."""
    from html.parser import HTMLParser

    class _P(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.parts: list[str] = []
            self.skip = 0

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag in ("script", "style", "template"):
                self.skip += 1

        def handle_endtag(self, tag: str) -> None:
            if tag in ("script", "style", "template") and self.skip:
                self.skip -= 1

        def handle_data(self, data: str) -> None:
            if not self.skip:
                self.parts.append(data)

    parser = _P()
    parser.feed(html)
    return re.sub(r"\s+", " ", "".join(parser.parts)).strip()


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


# --- waiting for the real condition in a browser (no fixed sleeps) ---------------------------------

SETTLE_JS = """async () => {
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
  await frame();
  await frame();
  const finite = document.getAnimations().filter((a) => a.effect && a.effect.getComputedTiming().endTime !== Infinity);
  await Promise.all(finite.map((a) => a.finished.catch(() => null)));
  await new Promise((resolve) => requestIdleCallback(() => resolve(), { timeout: 2000 }));
}"""


def settle(page: object) -> None:
    """Wait until the page has painted, its CSS transitions and animations (the theme's fades) have
    finished, and its main thread is idle: what a fixed `wait_for_timeout` used to guess at."""
    page.evaluate(SETTLE_JS)  # type: ignore[attr-defined]


_WATCH_SEARCH_JS = """() => {
  const meta = document.querySelector(".md-search-result__meta");
  const input = document.querySelector(".md-search__input");
  window.__qaSearch = [];
  new MutationObserver(() => {
    window.__qaSearch.push({ text: meta.textContent, value: input.value.trim() });
  }).observe(meta, { childList: true, characterData: true, subtree: true });
}"""
_SEARCH_DONE_JS = """({ busy, batch }) => {
  const shown = window.__qaSearch;
  const last = shown && shown[shown.length - 1];
  if (!last || !last.text || busy.includes(last.text)) return false;
  if (last.value !== document.querySelector(".md-search__input").value.trim()) return false;
  const n = parseInt((last.text.match(/[0-9]+/) || ["0"])[0], 10);
  return document.querySelectorAll(".md-search-result__list > li").length >= Math.min(n, batch);
}"""
_SEARCH_BUSY = [
    STRINGS[key][item.lang] for item in LANGUAGES.items for key in ("js.search.placeholder", "js.search.loading")
]
"""What search.js shows before a query's results, in every language (studysite/strings/)."""
_SEARCH_BATCH = 10
"""search.js's BATCH: results painted before the reader scrolls."""


def watch_search(page: object) -> None:
    """Before typing a query: note each status the search box shows (its count line) and the query it was for."""
    page.evaluate(_WATCH_SEARCH_JS)  # type: ignore[attr-defined]


def wait_for_search(page: object, timeout_ms: float = 15_000) -> None:
    """After typing (watch_search first): wait until the search of the box's final query has painted
    its first batch of results. overrides/assets/qa/search.js shows a count (or "no matching
    questions") when a query's first results are in the list, never for a query a later keystroke
    superseded; the rest of the batch follows as the texts arrive."""
    arg = {"busy": _SEARCH_BUSY, "batch": _SEARCH_BATCH}
    page.wait_for_function(_SEARCH_DONE_JS, arg=arg, timeout=timeout_ms)  # type: ignore[attr-defined]


# --- screenshots ---------------------------------------------------------------------------------

ALL_LOOKS = os.environ.get("QA_SCREENSHOTS") == "all"
"""`make screenshots` sets QA_SCREENSHOTS=all: every screenshot test then runs in every look."""
LOOKS = (
    [("desktop", "light"), ("desktop", "dark"), ("phone", "light"), ("phone", "dark")]
    if ALL_LOOKS
    else [("desktop", "light"), ("phone", "dark")]
)
"""(device, scheme) pairs a screenshot test runs in. Under `make test`, one scheme per device: every
layout check of the test (nothing overflows, the box fits) still runs at both widths and in both
schemes, and light/dark contrast is axe's check (tests/test_a11y.py and the pages' axe tests); the
other two pictures of each set come from `make screenshots`, which writes all four."""
VIEWPORTS = {"desktop": DESKTOP, "phone": PHONE}


# --- reused browser profiles -------------------------------------------------------------------------


class _ContextPool:
    """Browser contexts kept for reuse between tests (a fresh context costs a new profile and a cold
    HTTP cache, about 0.3 s per test on this machine, several hundred times a run).

    A context comes back into the pool only when it can be made indistinguishable from a new one:
    it visited nothing but origins in `stable` (the seed site's server, whose files never change, so
    its HTTP cache cannot be stale), and the test changed nothing that cannot be undone (init scripts,
    exposed functions, routes, offline mode, extra headers, a CDP session of its own). Then its pages
    are closed, the listeners the test added are removed, and its origins' storage is cleared through
    CDP (`Storage.clearDataForOrigin`, every type: local and session storage, IndexedDB, Cache
    Storage, service workers, cookies), with its permissions and default timeouts. Any other context
    is closed, as before.

    Each pooled context keeps one page open on an empty response of its own server (_keeper_url):
    it keeps the profile's renderer process alive between tests (CHROMIUM_ARGS: one per site), and
    the reset's CDP session is opened on it instead of on a new page. It is in `context.pages`; no
    test's listeners see it, as it loads before the test takes the context and never loads again."""

    _DIRTYING = (
        "add_init_script",
        "expose_binding",
        "expose_function",
        "route",
        "route_from_har",
        "route_web_socket",
        "set_offline",
        "set_extra_http_headers",
        "set_geolocation",
        "new_cdp_session",
    )

    def __init__(self) -> None:
        self.stable: set[str] = set()
        self._idle: dict[tuple[object, str], list[object]] = {}
        self._state: dict[int, _Use] = {}

    def take(self, browser: object, **options: object) -> object:
        import json

        key = (browser, json.dumps(options, sort_keys=True, default=str))
        idle = self._idle.setdefault(key, [])
        return idle.pop() if idle else self._new(browser, key, options)

    def give_back(self, context: object) -> None:
        use = self._state[id(context)]
        reusable = not use.dirty and use.origins <= self.stable and not FRESH_CONTEXTS
        if reusable:
            try:
                self._reset(context, use)
            except Exception:  # a context that cannot be reset is closed instead
                reusable = False
        if reusable:
            self._idle[use.key].append(context)
        else:
            del self._state[id(context)]
            with contextlib.suppress(Exception):
                context.close()  # type: ignore[attr-defined]

    def close_all(self) -> None:
        for idle in self._idle.values():
            for context in idle:
                with contextlib.suppress(Exception):
                    context.close()  # type: ignore[attr-defined]
        self._idle.clear()
        self._state.clear()

    def _new(self, browser: object, key: tuple[object, str], options: dict[str, object]) -> object:
        context = browser.new_context(**options)  # type: ignore[attr-defined]
        use = _Use(key)
        use.keeper = context.new_page()  # type: ignore[attr-defined]
        use.keeper.goto(_keeper_url())  # type: ignore[attr-defined]
        self._state[id(context)] = use
        context.on("request", lambda request: use.saw(request.url))  # type: ignore[attr-defined]
        for name in self._DIRTYING:
            if hasattr(context, name):  # route_web_socket is new in Playwright 1.48
                setattr(context, name, use.marking(getattr(context, name)))
        for name in ("on", "once"):
            setattr(context, name, use.tracking(getattr(context, name)))
        return context

    @staticmethod
    def _reset(context: object, use: _Use) -> None:
        for page in list(context.pages):  # type: ignore[attr-defined]
            if page is not use.keeper:
                page.close()
        for event, handler in use.listeners:
            context.remove_listener(event, handler)  # type: ignore[attr-defined]
        use.listeners.clear()
        context.clear_cookies()  # type: ignore[attr-defined]
        context.clear_permissions()  # type: ignore[attr-defined]
        context.set_default_timeout(30_000)  # type: ignore[attr-defined]
        context.set_default_navigation_timeout(30_000)  # type: ignore[attr-defined]
        if use.origins:
            cdp = type(context).new_cdp_session(context, use.keeper)  # the class's own method, not the marking one
            for origin in use.origins:
                cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
            cdp.detach()
            use.origins.clear()


class _Use:
    """What the pool knows of one context: what it visited, and what a test did to it."""

    def __init__(self, key: tuple[object, str]) -> None:
        self.key = key
        self.origins: set[str] = set()
        self.dirty = False
        self.listeners: list[tuple[str, object]] = []
        self.keeper: object = None

    def saw(self, url: str) -> None:
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        if parts.scheme in ("http", "https"):
            self.origins.add(f"{parts.scheme}://{parts.netloc}")
        elif parts.scheme not in ("data", "blob", "about"):
            self.origins.add(parts.scheme + ":")  # file: and others: never stable, so never reused

    def marking(self, method: Callable[..., object]) -> Callable[..., object]:
        def marked(*args: object, **kwargs: object) -> object:
            self.dirty = True
            return method(*args, **kwargs)

        return marked

    def tracking(self, method: Callable[..., object]) -> Callable[..., object]:
        def tracked(event: str, handler: object) -> object:
            self.listeners.append((event, handler))
            return method(event, handler)

        return tracked


_HELPER_FILES: dict[str, Path] = {}
"""The files the test process's own server serves (helper_script_url), by their path there."""


class _KeeperHandler(_QuietHandler):
    def do_GET(self) -> None:
        file = _HELPER_FILES.get(self.path)
        body = file.read_bytes() if file else b""
        self.send_response(200)
        self.send_header("Content-Type", "text/javascript" if file else "text/plain")
        self.send_header("Content-Length", str(len(body)))
        if file:  # never changes while the process runs: the profile's cache keeps it
            self.send_header("Cache-Control", "max-age=31536000, immutable")
        self.end_headers()
        self.wfile.write(body)


@functools.cache
def _keeper_url() -> str:
    """The test process's own server on 127.0.0.1 (never shut down: it lives as long as the process):
    an empty page that no test visits at /, and helper_script_url's files. What it serves never
    changes, so a profile that loaded from it can still be reused (CONTEXTS.stable)."""
    server = QuietServer(("127.0.0.1", 0), _KeeperHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    CONTEXTS.stable.add(origin)
    return origin + "/"


def helper_script_url(file: Path) -> str:
    """The address of a test helper script (such as axe-core) on the test process's own server, for
    `page.add_script_tag(url=...)`: served with a year's max-age, a profile fetches and compiles it
    once, where `add_script_tag(path=...)` sends its whole text through the driver on every call
    (axe-core's 654 KB). The 24 tests that run axe (qualitykit.axe_problems, which also loads it
    once per document) took 74.0-78.5 CPU-s of the machine against 89.2-94.5, and 57-60 s against
    70-72 s, run one at a time, two rounds alternating (2026-12-07); settling each page before its check
    then added 3.5-4.4 CPU-s and 6 s (81.4-81.6 against 77.2-78.0, two more rounds)."""
    path = "/" + file.name
    assert _HELPER_FILES.setdefault(path, file) == file, f"two helper files named {file.name}"
    return _keeper_url() + file.name


FRESH_CONTEXTS = os.environ.get("QA_FRESH_CONTEXTS") == "1"
"""QA_FRESH_CONTEXTS=1 gives every test a new context, as before the pool: to rule the pool out when
a browser test fails only in a full run."""
CONTEXTS = _ContextPool()
"""The browser profiles tests share (conftest.py closes them with the browser)."""


def write_long_bank(banks: Path, questions: int = 100) -> str:
    """A bank of `questions` long answers (about 2 KB of text each): its print edition needs 3 parts."""
    seed = [line for line in (FIXTURE_BANKS / "ai-infra-3.txt").read_text(encoding="utf-8").splitlines()[1:] if line]
    answer = [line for line in seed if not line.startswith("Q: ")][:12]
    lines = ["长题库（打印分册测试）"]
    for n in range(1, questions + 1):
        lines.append(f"Q: 第{n}道长题：如何在第{n}种场景下估算训练时间与显存？")
        lines += answer
    (banks / "long.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return "long"


def said(lang: str, zh: str, en: str) -> str:
    """What the `lang` edition says where the Chinese one says `zh` and the English one `en`: a
    converted edition says its source's words converted (its catalogue is zh.yml through OpenCC, as
    its pages are). Tests keep their own wording of the interface as an oracle; this extends it."""
    item = LANGUAGES[lang]
    if item.source == "converted":
        return convert_text(said(item.convert_from, zh, en), item.opencc)
    return zh if item.source == "bank" else en


def converted(by_lang: dict[str, Any]) -> dict[str, Any]:
    """`by_lang` (a test's wording per language: strings, or tuples, lists and dicts of them) with every
    converted language of the table added, as `said` words it."""
    out = dict(by_lang)
    for item in LANGUAGES.items:
        if item.source == "converted" and item.lang not in out:
            out[item.lang] = _convert_all(out[item.convert_from], item.opencc)
    return out


def _convert_all(value: Any, config: str) -> Any:
    if isinstance(value, str):
        return convert_text(value, config)
    if isinstance(value, (list, tuple)):
        return type(value)(_convert_all(v, config) for v in value)
    if isinstance(value, dict):
        return {_convert_all(k, config): _convert_all(v, config) for k, v in value.items()}
    return value


@contextlib.contextmanager
def time_limit(seconds: float, error: Callable[[str], BaseException] = TimeoutError) -> Iterator[None]:
    """Raise `error` in the block if it runs longer than `seconds` (a hang), instead of blocking the run.

    The same SIGALRM timer is pytest-timeout's (pyproject.toml `timeout`): it is put back afterwards
    with the time it had left, so the test as a whole stays under that limit as well."""

    def expire(signum: int, frame: object) -> None:
        raise error(f"blocked for more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    outer, _interval = signal.setitimer(signal.ITIMER_REAL, seconds)
    start = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:  # at least a moment: 0 would switch the outer limit off
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - start), 0.001))
