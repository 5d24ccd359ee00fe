"""Offline reading: the service worker and manifest of one build, and the whole site as a zip for file://.

Runs last, on the finished site (both languages, Pagefind, sitemap). It hashes every file, derives the
build version from those hashes (no clock: the same site gives the same bytes), and writes
  - offline-manifest.json: every file with its size, hash and precache group;
  - sw.js at the site root (overrides/sw.js with the version and its strings baked in): a new build
    changes its bytes, which is what makes browsers install the new worker;
  - downloads/ai-infra-site.zip: both languages with links rewritten to .../index.html, so pages and
    navigation work from file://; the study tools' data (the question list, each question's answer)
    shipped as scripts (file://, like each bank's nav.js, needs no fetch: overrides/assets/qa/file-fetch.js
    answers the study scripts' requests from them); the home pages say that only search needs a local
    server, and the one command that starts it.

Precache policy (the worker applies it; sizes for the seed site in the report of tests/test_offline.py):
  shell   theme assets, Pagefind's runtime, anything else a page loads: always (identical files of the
          two languages are fetched once);
  search  Pagefind's index and fragments, per language: always for the reader's language;
  page    HTML pages: the reader's language first, then the other language's search data and pages,
          up to the worker's PAGE_BUDGET (6 MiB); the rest is kept as it is visited;
  visit   never precached, kept if visited: source maps; Material's lunr search (worker, index,
          language packs), which Pagefind replaces (overrides/partials/search.html keeps Material's
          bundle from loading it); the sitemap; Material's tags export; Pagefind's prebuilt UI
          bundles that no page or site script names.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .i18n import t
from .model import Lang

ZIP_PATH = "downloads/ai-infra-site.zip"
"""The download, relative to the site root (the home page of each language links to it)."""
ZIP_SIZE_SLOT = "<span data-qa-zip-size></span>"
"""Where the home pages show the zip's size; filled in once the zip is built."""
ZIP_FOLDER = "ai-infra-site"
"""The one folder the zip unpacks into."""
MANIFEST = "offline-manifest.json"
SERVICE_WORKER = "sw.js"
SERVE_COMMAND = "python3 -m http.server -b 127.0.0.1"
"""The one command that serves the unzipped folder (search needs HTTP)."""
SERVE_URL = "http://127.0.0.1:8000/"
HASH_CHARS = 16
ROOT = Path(__file__).resolve().parent.parent
SW_SOURCE = ROOT / "overrides" / "sw.js"
FILE_FETCH_SOURCE = ROOT / "overrides" / "assets" / "qa" / "file-fetch.js"
FILE_DATA = "assets/qa/file-data.js"
"""In each language of the zip: the question data and the fetch stand-in every page loads first."""
FILE_ANSWERS = "assets/qa/file-answers.js"
"""In each language of the zip: every question page's answer, loaded when a study tool asks for one."""
QUESTION_DATA = "assets/qa/questions.json"


@dataclass(frozen=True)
class Language:
    """One language of the site."""

    lang: Lang
    """Language code (`zh`, `en`)."""
    root: str
    """Its folder below the site root, `""` or ending in `/`."""


@dataclass(frozen=True)
class SiteFile:
    """One file of the built site, as the manifest lists it."""

    path: str
    """Path below the site root, `/`-separated."""
    url: str
    """URL below the site root the reader requests (`foo/` for foo/index.html), percent-encoded."""
    size: int
    """Bytes."""
    hash: str
    """First HASH_CHARS hex digits of its SHA-256: the worker checks every byte it stores against it."""
    kind: str
    """Precache group: shell, search, page or visit."""
    lang: str
    """Language of a page or search file, else `""`."""


def finish_offline(site_dir: Path, config: Any) -> None:
    """The mkdocs entry point: the site's languages come from config.extra.qa."""
    languages = [Language(lang["lang"], lang["root"]) for lang in config.extra["qa"]["languages"]]
    write_offline(site_dir, languages)


def refresh_offline(site_dir: Path) -> str:
    """Redo manifest, worker and zip after a later step changed the site (scripts/build_pdf.py)."""
    manifest = json.loads((site_dir / MANIFEST).read_text(encoding="utf-8"))
    return write_offline(site_dir, [Language(lang["lang"], lang["root"]) for lang in manifest["languages"]])


def write_offline(site_dir: Path, languages: list[Language]) -> str:
    """Write manifest, service worker and zip for the site in `site_dir`; returns the build version."""
    _remove_previous(site_dir, languages)
    # The zip first: its home pages drop the download link, so they do not depend on its size.
    size = write_zip(site_dir, languages).stat().st_size
    for lang in languages:
        _show_zip_size(site_dir / lang.root / "index.html", size)
    files = site_files(site_dir, languages)
    sw_body = SW_SOURCE.read_text(encoding="utf-8").replace("__QA_OFFLINE_TEXT__", _worker_text(languages))
    version = build_version(files, sw_body)
    (site_dir / MANIFEST).write_text(manifest_json(files, languages, version), encoding="utf-8")
    (site_dir / SERVICE_WORKER).write_text(sw_body.replace("__QA_OFFLINE_VERSION__", version), encoding="utf-8")
    return version


def site_files(site_dir: Path, languages: list[Language]) -> list[SiteFile]:
    """Every file a reader may request, in precache priority order (see the module docstring)."""
    paths = sorted(
        p.relative_to(site_dir).as_posix()
        for p in site_dir.rglob("*")
        if p.is_file() and not _offline_output(p.relative_to(site_dir).as_posix())
    )
    search_langs = _pagefind_languages(site_dir, languages)
    ui_named: set[str] = set()
    digests: dict[str, tuple[int, str]] = {}
    for path in paths:
        data = (site_dir / path).read_bytes()
        digests[path] = (len(data), hashlib.sha256(data).hexdigest()[:HASH_CHARS])
        if path.endswith(".html") or "/assets/qa/" in "/" + path:
            ui_named.update(name for name in _PAGEFIND_UI if name.encode() in data)
    files = []
    for path in paths:
        kind, lang = _group(path, languages, search_langs, ui_named)
        size, digest = digests[path]
        files.append(SiteFile(path, _url(path), size, digest, kind, lang))
    rank: dict[str, int] = {lang.lang: i for i, lang in enumerate(languages)}

    def priority(f: SiteFile) -> tuple[int, int, int, int, str]:
        if f.kind in ("shell", "visit"):
            return (0 if f.kind == "shell" else 2, 0, 0, 0, f.url)
        # per language: search data, then pages from the home page down
        return (1, rank[f.lang], 0 if f.kind == "search" else 1, f.url.count("/"), f.url)

    return sorted(files, key=priority)


def build_version(files: list[SiteFile], sw_body: str) -> str:
    """A hash of every file's path and bytes, and of the worker itself."""
    h = hashlib.sha256()
    for f in sorted(files, key=lambda f: f.path):
        h.update(f"{f.path}\t{f.hash}\n".encode())
    h.update(sw_body.encode("utf-8"))
    return h.hexdigest()[:HASH_CHARS]


def manifest_json(files: list[SiteFile], languages: list[Language], version: str) -> str:
    head = json.dumps(
        {"version": version, "languages": [{"lang": lang.lang, "root": lang.root} for lang in languages]},
        ensure_ascii=False,
    )
    rows = ",\n".join(json.dumps([f.url, f.size, f.hash, f.kind, f.lang], ensure_ascii=False) for f in files)
    return head[:-1] + ',\n"files": [\n' + rows + "\n]}\n"


def write_zip(site_dir: Path, languages: list[Language]) -> Path:
    """The site for file://: sorted entries, fixed timestamps and modes, so the same site gives the same zip."""
    out = site_dir / ZIP_PATH
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    homes = {lang.root + "index.html": lang for lang in languages}
    paths = sorted(
        p.relative_to(site_dir).as_posix()
        for p in site_dir.rglob("*")
        if p.is_file() and not _left_out_of_zip(p.relative_to(site_dir).as_posix())
    )
    data: dict[str, dict[str, str]] = {lang.root: {} for lang in languages}
    answers: dict[str, dict[str, str]] = {lang.root: {} for lang in languages}
    entries: list[tuple[str, bytes]] = []
    for path in paths:
        raw = (site_dir / path).read_bytes()
        lang = _language_of(path, languages)
        inside = path[len(lang.root) :]
        if inside == QUESTION_DATA:
            data[lang.root][inside] = raw.decode("utf-8")
        if path.endswith(".html"):
            page = raw.decode("utf-8")
            answer = _ANSWER_DIV.search(page)
            if answer:
                answers[lang.root][inside.removesuffix("index.html")] = f"<!doctype html><body>{answer.group(0)}</body>"
            raw = file_page(page, homes.get(path), inside.count("/")).encode("utf-8")
        entries.append((path, raw))
    for lang in languages:
        shim = FILE_FETCH_SOURCE.read_text(encoding="utf-8")
        entries.append((lang.root + FILE_DATA, (_script("qaFileData", data[lang.root]) + shim).encode("utf-8")))
        entries.append((lang.root + FILE_ANSWERS, _script("qaFileAnswers", answers[lang.root]).encode("utf-8")))
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for path, raw in sorted(entries):
            info = zipfile.ZipInfo(f"{ZIP_FOLDER}/{path}", date_time=(1980, 1, 1, 0, 0, 0))
            info.create_system = 3
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, raw, compresslevel=6)
    tmp.replace(out)
    return out


def file_page(page: str, home: Language | None, depth: int = 0) -> str:
    """A page as the zip holds it: folder links end in index.html, no service worker, no zip link, and
    the study data's script (FILE_DATA) before the study scripts. `depth`: folders below its language root.

    On a home page (`home` is its language) the download link and the promise of offline reading in
    the browser give way to what works from the files, and how to serve the folder for search.
    """
    page = _ATTR_URL.sub(lambda m: m.group(1) + _file_url(m.group(2)) + '"', page)
    page = _OFFLINE_SCRIPT.sub("", page)
    page = _DOWNLOAD.sub("", page)
    page = _BROWSER_OFFLINE.sub("", page)
    data = "../" * depth + FILE_DATA
    page = _STUDY_CORE.sub(lambda m: f'<script src="{data}"></script>\n' + m.group(0), page, count=1)
    if home is not None:
        page = _FIRST_H1_END.sub(lambda m: m.group(0) + zip_notice(home), page, count=1)
    return page


def zip_notice(home: Language) -> str:
    """How to get search in the unzipped copy: one command, then a local address."""
    url = SERVE_URL + home.root
    body = html.escape(t("zip.notice", home.lang, command="{command}", url="{url}"), quote=False).format(
        command=f"<code>{html.escape(SERVE_COMMAND)}</code>", url=f'<a href="{url}">{url}</a>'
    )
    title = html.escape(t("zip.notice.title", home.lang))
    return f'<div class="admonition info qa-zip-notice"><p class="admonition-title">{title}</p><p>{body}</p></div>'


def _file_url(url: str) -> str:
    """A relative link that works from file://: a folder (`../foo/`, `..`, `./`) gets its index.html."""
    if not url or url.startswith(("#", "/", "?")) or _SCHEME.match(url):
        return url
    path, tail = re.match(r"([^?#]*)(.*)", url, re.DOTALL).groups()  # type: ignore[union-attr]
    if path in (".", "..") or path.endswith(("/.", "/..")):
        path += "/"
    return path + "index.html" + tail if path.endswith("/") else url


def _script(name: str, value: dict[str, str]) -> str:
    """`window.NAME = {...};` (sorted keys, so the same site gives the same bytes; `</` escaped for <script>)."""
    body = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")).replace("</", "<\\/")
    return f"window.{name} = {body};\n"


def _show_zip_size(home: Path, size: int) -> None:
    if not home.exists():
        return
    page = home.read_text(encoding="utf-8")
    shown = _ZIP_SIZE.sub(f"<span data-qa-zip-size>{size / 2**20:.1f} MB</span>", page)
    if shown != page:
        home.write_text(shown, encoding="utf-8")


def _group(path: str, languages: list[Language], search_langs: dict[str, str], ui_named: set[str]) -> tuple[str, str]:
    if path.endswith(".html"):
        return "page", _language_of(path, languages).lang
    if path.startswith("pagefind/"):
        name = path[len("pagefind/") :]
        m = _PAGEFIND_DATA.match(name)
        if m and m.group(1) in search_langs:
            return "search", search_langs[m.group(1)]
        if name in _PAGEFIND_UI:
            return ("shell" if name in ui_named else "visit"), ""
        return "shell", ""
    if any(rule.search(path) for rule in _VISIT_ONLY):
        return "visit", ""
    return "shell", ""


def _language_of(path: str, languages: list[Language]) -> Language:
    return max((lang for lang in languages if path.startswith(lang.root)), key=lambda lang: len(lang.root))


def _pagefind_languages(site_dir: Path, languages: list[Language]) -> dict[str, str]:
    """Pagefind's language keys (`zh`, `zh-cn`, `en`) -> the site's language codes."""
    entry = site_dir / "pagefind" / "pagefind-entry.json"
    if not entry.exists():
        return {}
    keys = json.loads(entry.read_text(encoding="utf-8")).get("languages", {})
    codes = {lang.lang for lang in languages}
    return {key: key.split("-")[0] for key in keys if key.split("-")[0] in codes}


def _url(path: str) -> str:
    url = path[: -len("index.html")] if path == "index.html" or path.endswith("/index.html") else path
    return quote(url, safe="/")


def _offline_output(path: str) -> bool:
    return path in (MANIFEST, SERVICE_WORKER) or path.startswith("downloads/")


def _left_out_of_zip(path: str) -> bool:
    # The zip itself and the worker's files; source maps (debugging only); 404 pages, which link from
    # the server's root (absolute paths) and which only a server shows.
    return (
        path.startswith(ZIP_PATH)  # and a .tmp a crashed build left
        or path in (MANIFEST, SERVICE_WORKER)
        or path.endswith(".map")
        or path == "404.html"
        or path.endswith("/404.html")
    )


def _remove_previous(site_dir: Path, languages: list[Language]) -> None:
    """mkdocs copies overrides/sw.js into every language's folder; only the root one is a worker."""
    for lang in languages:
        if lang.root:
            (site_dir / lang.root / SERVICE_WORKER).unlink(missing_ok=True)
    (site_dir / ZIP_PATH).unlink(missing_ok=True)


def _worker_text(languages: list[Language]) -> str:
    """The worker's only reader-visible strings (a page that was never saved, opened offline)."""
    strings = {
        lang.lang: {
            "title": t("offline.missing.title", lang.lang),
            "body": t("offline.missing.body", lang.lang),
            "home": t("offline.missing.home", lang.lang),
        }
        for lang in languages
    }
    text = {"languages": [{"lang": lang.lang, "root": lang.root} for lang in languages], "strings": strings}
    return json.dumps(text, ensure_ascii=False, sort_keys=True)


_PAGEFIND_DATA = re.compile(r"(?:index/|fragment/|pagefind\.)([A-Za-z0-9-]+)_[0-9a-f]+\.pf_(?:index|fragment|meta)$")
_PAGEFIND_UI = frozenset(
    f"pagefind-{part}"
    for part in (
        "ui.js",
        "ui.css",
        "component-ui.js",
        "component-ui.css",
        "modular-ui.js",
        "modular-ui.css",
        "highlight.js",
    )
)
_VISIT_ONLY = (
    re.compile(r"\.map$"),
    re.compile(r"(^|/)assets/javascripts/(lunr/|workers/search\.)"),
    re.compile(r"(^|/)search/search_index\.json$"),
    re.compile(r"(^|/)sitemap\.xml(\.gz)?$"),
    re.compile(r"(^|/)tags\.json$"),
)
_ATTR_URL = re.compile(r'(\s(?:href|src)=")([^"]*)"')
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_OFFLINE_SCRIPT = re.compile(r'<script src="[^"]*assets/qa/offline\.js"[^>]*></script>\n?')
_DOWNLOAD = re.compile(r'<p class="qa-download">.*?</p>', re.DOTALL)
_FIRST_H1_END = re.compile(r"</h1>")
_BROWSER_OFFLINE = re.compile(r'<p class="qa-offline-browser">.*?</p>', re.DOTALL)
_STUDY_CORE = re.compile(r'<script src="[^"]*assets/qa/[a-z]+\.min\.js"[^>]*></script>')
"""The page's bundle (studysite/bundles.yml), which the study scripts are in: the zip's data goes first."""
_ANSWER_DIV = re.compile(r'<div class="qa-answer".*?</div>', re.DOTALL)
"""A question page's answer: one `<div>` with none inside (render.answer_html), as verify.py reads it."""
_ZIP_SIZE = re.compile(r"<span data-qa-zip-size>[^<]*</span>")
