"""`make pdf`: print every bank's print page to an A4 PDF with headless chromium, then show the PDF links.

Runs on a built site (site/). The pages carry each PDF link hidden and without an address
(`<span class="qa-pdf" hidden><span data-qa-pdf="...">PDF</span></span>`); once a PDF exists, its links get their `href`
and are shown. So a site built without chromium is complete, with no link to a missing file.
"""

from __future__ import annotations

import argparse
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
from dataclasses import dataclass
from pathlib import Path

from ..languages import LANGUAGES
from ..pages import downloads

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
"""Headless Debian chromium on a machine whose only network is loopback (the tests use these too)."""
INSTALL_HINT = "sudo apt-get install chromium fonts-noto-cjk"


@dataclass(frozen=True)
class PrintPage:
    """A built print page and the PDF to make of it."""

    html: Path
    """The page's index.html in the site folder."""
    url_path: str
    """Its address relative to the site root (`ai-infra-3/print/`, `en/ai-infra-3/print/`)."""
    bank_id: str
    lang: str
    pdf: Path
    """Where its PDF goes."""


def main(argv: list[str], root: Path) -> int:
    parser = argparse.ArgumentParser(prog="build_pdf.py", description=__doc__.splitlines()[0])
    parser.add_argument("--site-dir", type=Path, default=root / "site", help="the built site (default: site/)")
    parser.add_argument("--chromium", help="browser to print with (default: $CHROMIUM, /usr/bin/chromium, PATH)")
    args = parser.parse_args(argv)
    site = args.site_dir.resolve()
    chromium = args.chromium or find_chromium()
    missing = missing_tools(chromium)
    if missing:
        print("build_pdf: cannot print the PDF editions; missing:", file=sys.stderr)
        for what in missing:
            print(f"  - {what}", file=sys.stderr)
        print(f"Install with:\n  {INSTALL_HINT}", file=sys.stderr)
        if any("playwright" in m for m in missing):
            print("  .venv/bin/python -m pip install -r requirements-dev.txt", file=sys.stderr)
        print(
            "(or point CHROMIUM at another Chromium or Chrome.) The site is complete without the PDFs:", file=sys.stderr
        )
        print("its pages show no PDF link until the PDF exists.", file=sys.stderr)
        return 2
    pages = find_print_pages(site)
    if not pages:
        print(f"build_pdf: no print pages in {site}: build the site first (make site)", file=sys.stderr)
        return 1
    assert chromium is not None
    for page, size, count in print_pdfs(pages, site, chromium):
        print(f"build_pdf: {page.pdf.relative_to(site)} ({count} pages, {size // 1024} KB)")
    shown = show_pdf_links(site)
    print(f"build_pdf: PDF links shown on {shown} page(s)")
    _refresh_offline(site)
    return 0


def find_chromium() -> str | None:
    """The browser to print with: $CHROMIUM, Debian's /usr/bin/chromium, else one on PATH."""
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium"):
        if candidate and Path(candidate).exists():
            return candidate
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def missing_tools(chromium: str | None) -> list[str]:
    """What printing needs and this machine lacks, each said in words a reader can act on."""
    missing = []
    if chromium is None or not Path(chromium).is_file():
        missing.append("chromium (the headless browser that prints the pages): apt package `chromium`")
    if not _has_cjk_font():
        missing.append("a Chinese font (without one, Chinese prints as empty boxes): apt package `fonts-noto-cjk`")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("the playwright Python package (drives chromium): pip install -r requirements-dev.txt")
    return missing


def find_print_pages(site: Path) -> list[PrintPage]:
    """Every built print page, found by its marker (`data-qa-print="<bank>"`), with its language."""
    pages = []
    for html_file in sorted(site.glob("*/print/index.html")) + sorted(site.glob("*/*/print/index.html")):
        text = html_file.read_text(encoding="utf-8")
        bank = _PRINT_MARK.search(text)
        if not bank:
            continue
        rel = html_file.parent.relative_to(site).as_posix() + "/"
        # The edition is where the page is, not its <html lang>: 繁體中文 pages say zh-TW, and reading two
        # letters of it printed them over the Simplified PDF.
        lang = LANGUAGES.holding(rel)
        pdf = site / downloads.bank_pdf(bank.group(1), lang.lang)
        pages.append(PrintPage(html_file, rel, bank.group(1), lang.lang, pdf))
    return pages


def print_pdfs(pages: list[PrintPage], site: Path, chromium: str) -> Iterator[tuple[PrintPage, int, int]]:
    """Print each page (served over HTTP, as a reader sees it) to its PDF: A4, tagged, with an outline."""
    from playwright.sync_api import sync_playwright

    with _serve(site) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        # No service worker: the offline copy's precaching would only race the printing.
        context = browser.new_context(service_workers="block")
        try:
            for page in pages:
                tab = context.new_page()
                tab.goto(base + page.url_path, wait_until="load")
                tab.evaluate(_WHOLE_BANK)
                tab.evaluate("document.fonts.ready")
                tab.evaluate(_PUBLIC_LINKS)
                data = tab.pdf(format="A4", prefer_css_page_size=True, outline=True, tagged=True)
                tab.close()
                page.pdf.parent.mkdir(parents=True, exist_ok=True)
                tmp = page.pdf.with_name(f".{page.pdf.name}.tmp")
                tmp.write_bytes(data)
                tmp.replace(page.pdf)
                yield page, len(data), count_pages(data)
        finally:
            browser.close()


def show_pdf_links(site: Path) -> int:
    """Give every hidden PDF link whose file exists its address, and show it; returns pages changed."""
    changed = 0
    for html_file in sorted(site.rglob("*.html")):
        text = html_file.read_text(encoding="utf-8")
        if downloads.PDF_ATTR not in text:
            continue

        def reveal(m: re.Match[str], here: Path = html_file.parent) -> str:
            target = (here / m.group(2)).resolve()
            if not target.is_file():
                return m.group(0)
            return f'<span class="qa-pdf">{m.group(1)}<a href="{m.group(2)}" download>{m.group(3)}</a>'

        new = _HIDDEN_PDF.sub(reveal, text)
        if new != text:
            html_file.write_text(new, encoding="utf-8")
            changed += 1
    return changed


def count_pages(pdf: bytes) -> int:
    """Pages of a PDF, from its page objects (`/Type /Page`, not `/Pages`)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


def _has_cjk_font() -> bool:
    if not shutil.which("fc-list"):
        return False
    out = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True, check=False).stdout
    return bool(out.strip())


def _refresh_offline(site: Path) -> None:
    """Pages changed after the build: the offline copy's manifest, worker and zip must follow."""
    try:
        from ..site.offline import MANIFEST, refresh_offline  # type: ignore[attr-defined]
    except ImportError:
        return
    if (site / MANIFEST).exists():
        refresh_offline(site)
        print("build_pdf: offline copy refreshed")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # the browser closing a connection mid-response once a page is printed is normal


@contextlib.contextmanager
def _serve(directory: Path) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


# A bank's print edition comes in parts (studysite/pages/print_edition.py); its PDF is the whole bank:
# parts 2.. (at print/k/) are fetched and their contents and questions appended to part 1's, and
# what belongs to a part on screen (its pager, its "this part holds" line, "part 1 of n") goes.
_WHOLE_BANK = """async () => {
  const root = document.querySelector("[data-qa-print-part]");
  if (!root) return;
  const total = Number(root.dataset.qaPrintPart.split("/")[1]);
  const toc = root.querySelector(".qa-print__toc ol");
  for (let k = 2; k <= total; k++) {
    const response = await fetch(new URL(k + "/", location.href));
    if (!response.ok) throw new Error("print part " + k + ": HTTP " + response.status);
    const doc = new DOMParser().parseFromString(await response.text(), "text/html");
    const part = doc.querySelector("[data-qa-print-part]");
    for (const item of part.querySelectorAll(".qa-print__toc li")) toc.append(document.adoptNode(item));
    for (const q of part.querySelectorAll(".qa-print__q")) root.append(document.adoptNode(q));
  }
  for (const el of root.querySelectorAll(".qa-pages, .qa-print__part")) el.remove();
  const heading = root.querySelector("h1");
  document.title = document.title.replace(heading.textContent, root.dataset.qaPrintTitle);
  heading.textContent = root.dataset.qaPrintTitle;
}"""
# Links in the PDF must lead to the published site, not to the local server that printed it: the
# page's canonical address (from site_url) is the base; without one, links lose their address.
_PUBLIC_LINKS = """() => {
  const canonical = document.querySelector('link[rel="canonical"]');
  const base = canonical ? canonical.href : null;
  for (const a of document.querySelectorAll("a[href]")) {
    const raw = a.getAttribute("href");
    if (raw.startsWith("#")) continue;
    if (base) a.href = new URL(raw, base).href; else a.removeAttribute("href");
  }
  const online = document.querySelector(".qa-print__online");
  if (online && online.href) online.textContent = online.href;
}"""
_PRINT_MARK = re.compile(r'data-qa-print="([a-z0-9-]+)"')
# Until its PDF exists the link is a plain <span> (a link with no address is not crawlable).
_HIDDEN_PDF = re.compile(
    r'<span class="qa-pdf" hidden>([^<]*)<span ' + downloads.PDF_ATTR + r'="([^"]+)">([^<]*)</span>'
)
