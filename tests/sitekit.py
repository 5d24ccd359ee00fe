"""Helpers the tests share: build a whole site from any banks folder, serve it, drive chromium."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from studysite import pdf

ROOT = Path(__file__).resolve().parent.parent
USER_BANKS = ROOT / "banks"
"""The user's banks: only the smoke test (tests/test_golden.py) builds them, so editing them breaks no other test."""
FIXTURE_BANKS = ROOT / "tests" / "fixtures" / "banks"
"""A frozen copy of the seed banks that every other test builds: editing banks/ never breaks `make test`."""
SEED = FIXTURE_BANKS
"""What the tests call the seed: the fixture copy."""
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = pdf.CHROMIUM_ARGS
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


@contextlib.contextmanager
def reader(
    browser: object,
    *,
    viewport: dict[str, int] = DESKTOP,
    expected: Callable[[str], bool] = lambda text: False,
    timeout: float | None = None,
    **options: object,
) -> Iterator[object]:
    """A fresh browser profile (its own storage) that fails the test on any script error or console
    error, but those `expected` accepts (such as a refused request the test provoked)."""
    context = browser.new_context(viewport=viewport, **options)  # type: ignore[attr-defined]
    if timeout is not None:
        context.set_default_timeout(timeout)
    errors: list[str] = []
    context.on("weberror", lambda e: errors.append(str(e.error)))
    context.on("console", lambda m: errors.append(m.text) if m.type == "error" and not expected(m.text) else None)
    try:
        yield context
    finally:
        context.close()
    assert not errors, errors


def published_data(site: Path) -> dict[str, dict[str, object]]:
    """The question data a built site publishes (assets/qa/questions.json), per language."""
    import json

    return {
        lang: json.loads((site / prefix / "assets/qa/questions.json").read_text(encoding="utf-8"))
        for lang, prefix in (("zh", ""), ("en", "en"))
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


def build_pages(banks: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """Run scripts/build_pages.py as a maintainer would."""
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_pages.py"), "--banks", str(banks), "--out", str(out), *extra],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )


def prepare_work(banks: Path, work: Path, *, site_url: str | None = None) -> dict[str, str]:
    """Copy the site configs into `work` (pointing at this checkout's hook and theme); returns the env to run in."""
    (work / "docs").mkdir(parents=True, exist_ok=True)  # as in a fresh clone
    for name in ("mkdocs.yml", "mkdocs.en.yml"):
        text = (ROOT / name).read_text(encoding="utf-8")
        text = text.replace("custom_dir: overrides", f"custom_dir: {ROOT / 'overrides'}")
        text = text.replace("  - studysite/mkdocs_hook.py", f"  - {ROOT / 'studysite' / 'mkdocs_hook.py'}")
        text = re.sub(r"\nwatch:\n(  - .*\n)+", "\n", text)
        (work / name).write_text(text, encoding="utf-8")
    env = dict(os.environ, STUDYSITE_BANKS=str(banks), NO_MKDOCS_2_WARNING="1")
    # Tests build edited banks whose lock changes: under CI=true (GitHub sets it) make site would
    # refuse that; the test of that refusal sets CI itself.
    env.pop("CI", None)
    if site_url:
        env["SITE_URL"] = site_url
    return env


def build_site(banks: Path, work: Path, *, site_url: str | None = None, strict: bool = True) -> Path:
    """Build the full bilingual site from `banks` in `work` (configs copied there); returns the site folder."""
    env = prepare_work(banks, work, site_url=site_url)
    cmd = [sys.executable, "-m", "mkdocs", "build", "--quiet", "-f", str(work / "mkdocs.yml")]
    if strict:
        cmd.append("--strict")
    proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise AssertionError(f"site build failed:\n{proc.stdout}\n{proc.stderr}")
    return work / "site"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve a folder on 127.0.0.1 (a free port); yields the base URL ending in '/'."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


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
_SEARCH_BUSY = ["键入以开始搜索", "正在加载搜索索引…", "Type to start searching", "Loading the search index…"]
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
