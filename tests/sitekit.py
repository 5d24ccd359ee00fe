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
from collections.abc import Iterator
from pathlib import Path

from studysite import pdf

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "banks"
"""The user's banks: browser, site and quality tests run on them (tests marked `unit` get FIXTURE_BANKS instead)."""
FIXTURE_BANKS = ROOT / "tests" / "fixtures" / "banks"
"""A frozen copy of the seed banks for the fast tier: editing banks/ never breaks `make unit` or the golden files."""
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = pdf.CHROMIUM_ARGS


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
