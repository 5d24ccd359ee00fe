"""Offline reading: the service worker and manifest of one build, and the whole site as a zip for file://.

Runs last, on the finished site (both languages, Pagefind, sitemap); only the zip's first part, every
file but Pagefind's, starts earlier, beside Pagefind (begin_zip). It hashes every file,
derives the build version from those hashes (no clock: the same site gives the same bytes), and writes
  - offline-manifest.json: every file with its size, hash and precache group;
  - sw.js at the site root (overrides/sw.js with the version and its strings baked in): a new build
    changes its bytes, which is what makes browsers install the new worker;
  - downloads/ai-infra-site.zip: both languages with links rewritten to .../index.html, so pages and
    navigation work from file://; the study tools' data (the question list, each question's answer)
    shipped as scripts (file://, like each bank's nav.js, needs no fetch: overrides/assets/qa/file-fetch.js
    answers the study scripts' requests from them); the home pages say that only search needs a local
    server, and the one command that starts it.

What the worker keeps (overrides/sw.js applies it; nothing is downloaded in the background):
  - as the reader browses: each page and the files it loaded, read from the browser's HTTP cache or
    from the page's own requests, never fetched again (a first visit costs nothing beyond the page;
    overrides/assets/qa/offline.js registers the worker from the second page on);
  - when the reader asks (the "Offline reading" control: the whole site and this language on the home
    page, this bank on a bank page): every file of that scope, whose compressed size the control shows
    before it starts (SCOPE_SIZE_SLOT, filled in here).

Each file's group decides which scopes hold it:
  shell   theme assets, Pagefind's runtime, anything else a page loads (its `lang`: the language whose
          folder holds it, as each language's build has its own assets; `""` for Pagefind's runtime,
          which both share; its `bank` when in a bank's folder, as each bank's nav.js);
  search  Pagefind's index, meta and fragments of one language (a fragment's `bank`: the bank of the
          page it indexes, so a bank's download searches its own questions);
  page    HTML pages (`lang`, and `bank` below a bank's folder);
  visit   in no download, kept if visited: source maps; Material's lunr search (worker, index,
          language packs), which Pagefind replaces (overrides/partials/search.html keeps Material's
          bundle from loading it); the sitemap; Material's tags export; Pagefind's prebuilt UI
          bundles that no page or site script names.
A scope (scope_files): `site` every file but `visit`; `lang:L` Pagefind's runtime and L's shell,
search and pages; `bank:L:B` Pagefind's runtime, L's shell outside other banks, L's search index
with B's fragments, and B's pages. Compressed sizes (`gz`) are the zip's deflate sizes of the same bytes
(the zip compresses every file anyway, so measuring them costs nothing more): what a reader pays over
a gzip connection, to a few bytes (the zip's pages differ only in their links).
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import html
import json
import logging
import os
import re
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from .. import parallel
from ..i18n import t
from ..languages import holding
from ..model import Lang
from ..pages.downloads import FOLDER
from ..pages.offline_control import SCOPE_SIZE_SLOT, ZIP_PATH
from ..project import ROOT

ZIP_FOLDER = "ai-infra-site"
"""The one folder the zip unpacks into."""
MANIFEST = "offline-manifest.json"
SERVICE_WORKER = "sw.js"
SERVE_COMMAND = "python3 -m http.server -b 127.0.0.1"
"""The one command that serves the unzipped folder (search needs HTTP)."""
SERVE_URL = "http://127.0.0.1:8000/"
HASH_CHARS = 16
SW_SOURCE = ROOT / "overrides" / "sw.js"
FILE_FETCH_SOURCE = ROOT / "overrides" / "assets" / "qa" / "file-fetch.js"
FILE_DATA = "assets/qa/file-data.js"
"""In each language of the zip: the question data and the fetch stand-in every page loads first."""
FILE_ANSWERS = "assets/qa/file-answers.js"
"""In each language of the zip: every question page's answer, loaded when a study tool asks for one."""
QUESTION_DATA = "assets/qa/questions.json"

log = logging.getLogger("mkdocs.plugins.studysite")


@dataclass(frozen=True)
class Language:
    """One language of the site."""

    lang: Lang
    """Language code (`zh`, `en`)."""
    root: str
    """Its folder below the site root, `""` or ending in `/`."""
    html_lang: str = ""
    """Its pages' `<html lang>`, which names its Pagefind index (`zh-TW`: `zh-tw`)."""


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
    """Group: shell, search, page or visit (the module docstring)."""
    lang: str
    """Language of a page, search file or file in a language's folder, else `""`."""
    gz: int
    """Bytes over a gzip connection (the zip's deflate size of the same file)."""
    bank: str
    """The bank whose folder holds it (for a search fragment: the page it indexes), else `""`."""


def site_languages(config: Any) -> list[Language]:
    """The site's languages, from the MkDocs config's extra.qa."""
    return [Language(lang["lang"], lang["root"], lang["html_lang"]) for lang in config.extra["qa"]["languages"]]


def finish_offline(site_dir: Path, config: Any, zip_first: parallel.Side[ZipFirst] | None = None) -> None:
    """The mkdocs entry point; `zip_first`: the zip's part that begin_zip started."""
    write_offline(site_dir, site_languages(config), zip_first)


def refresh_offline(site_dir: Path) -> str:
    """Redo manifest, worker and zip after a later step changed the site (scripts/build_pdf.py)."""
    manifest = json.loads((site_dir / MANIFEST).read_text(encoding="utf-8"))
    languages = [Language(lang["lang"], lang["root"], lang.get("html_lang", "")) for lang in manifest["languages"]]
    return write_offline(site_dir, languages)


def write_offline(site_dir: Path, languages: list[Language], zip_first: parallel.Side[ZipFirst] | None = None) -> str:
    """Write manifest, service worker and zip for the site in `site_dir`; returns the build version.
    `zip_first`: the zip's first part, begun earlier (begin_zip)."""
    _remove_previous(site_dir, languages)
    # The zip first: its home pages drop the download link and the offline control, so they do not
    # depend on its size or the scopes' sizes; its deflate sizes are the manifest's compressed sizes.
    out, packed = write_zip(site_dir, languages, zip_first)
    size = out.stat().st_size
    for lang in languages:
        _show_zip_size(site_dir / lang.root / "index.html", size)
    files = site_files(site_dir, languages, packed)
    # The sizes the controls show include the controls' own pages: those count as they are without
    # the sizes (SCOPE_SIZE_SLOT empty, a few bytes less), so filling them in changes no size.
    shown = {p.relative_to(site_dir).as_posix() for p in _control_pages(site_dir, languages)}
    files = [_remeasured(site_dir, f) if f.path in shown else f for f in files]
    sizes = scope_sizes(files)
    for path in shown:
        _show_scope_sizes(site_dir / path, sizes)
    files = [_remeasured(site_dir, f) if f.path in shown else f for f in files]
    sw_body = SW_SOURCE.read_text(encoding="utf-8").replace("__QA_OFFLINE_TEXT__", _worker_text(languages))
    version = build_version(files, sw_body)
    (site_dir / MANIFEST).write_text(manifest_json(files, languages, version), encoding="utf-8")
    (site_dir / SERVICE_WORKER).write_text(sw_body.replace("__QA_OFFLINE_VERSION__", version), encoding="utf-8")
    return version


def site_files(site_dir: Path, languages: list[Language], packed: dict[str, int] | None = None) -> list[SiteFile]:
    """Every file a reader may request, in download order (shell, then each language's search data
    and pages from the home page down). `packed`: compressed sizes by path (write_zip's)."""
    paths = sorted(
        p.relative_to(site_dir).as_posix()
        for p in site_dir.rglob("*")
        if p.is_file() and not _offline_output(p.relative_to(site_dir).as_posix())
    )
    search_langs = _pagefind_languages(site_dir, languages)
    packed = packed or {}
    ui_named: set[str] = set()
    digests: dict[str, tuple[int, str]] = {}
    fragment_pages: dict[str, str] = {}
    for path in paths:
        data = (site_dir / path).read_bytes()
        digests[path] = (len(data), hashlib.sha256(data).hexdigest()[:HASH_CHARS])
        if path.endswith(".html") or "/assets/qa/" in "/" + path:
            ui_named.update(name for name in _PAGEFIND_UI if name.encode() in data)
        if path.startswith("pagefind/fragment/"):
            fragment_pages[path] = _fragment_page(data)
    banks = {lang.root: _banks(site_dir, lang) for lang in languages}
    files = []
    for path in paths:
        kind, lang = _group(path, languages, search_langs, ui_named)
        size, digest = digests[path]
        home = holding(fragment_pages.get(path, path), languages)
        inside = fragment_pages.get(path, path)[len(home.root) :]
        folder = inside.split("/", 1)[0] if "/" in inside else ""
        bank = folder if folder in banks[home.root] and kind != "visit" else ""
        if kind == "shell" and not path.startswith("pagefind/"):
            lang = home.lang  # each language's build has its own theme assets; Pagefind's are shared
        gz = packed.get(path)
        if gz is None:  # not in the zip (404 pages, source maps): measured here, a few small files
            gz = size if kind == "visit" else len(zlib.compress((site_dir / path).read_bytes(), 6))
        files.append(SiteFile(path, _url(path), size, digest, kind, lang, gz, bank))
    rank: dict[str, int] = {lang.lang: i for i, lang in enumerate(languages)}

    def priority(f: SiteFile) -> tuple[int, int, int, int, str]:
        if f.kind in ("shell", "visit"):
            return (0 if f.kind == "shell" else 2, 0, 0, 0, f.url)
        # per language: search data, then pages from the home page down
        return (1, rank[f.lang], 0 if f.kind == "search" else 1, f.url.count("/"), f.url)

    return sorted(files, key=priority)


def scope_files(files: list[SiteFile], scope: str) -> list[SiteFile]:
    """The files a reader's download of `scope` stores (`site`, `lang:L`, `bank:L:B`; module docstring).
    overrides/sw.js inScope() is the same rule: tests/test_offline.py checks the two agree."""
    part = scope.split(":")
    lang, bank = [*part, "", ""][1:3]

    def wanted(f: SiteFile) -> bool:
        if f.kind == "visit":
            return False
        if part[0] == "site":
            return True
        if f.lang not in ("", lang):
            return False
        if part[0] == "lang":
            return True
        if f.kind == "page":
            return f.lang == lang and f.bank == bank
        return f.bank in ("", bank)

    return [f for f in files if wanted(f)]


def scope_sizes(files: list[SiteFile]) -> dict[str, int]:
    """The compressed bytes of every scope a control offers: the site, each language, each bank.

    scope_files' rule summed in one pass over the files (not once per scope: at 5,000 questions
    there are ~600 scopes and ~34,000 files, 37 s that way): a bank's scope holds its language's
    pages of that bank and that language's (and the site-wide) other files of that bank or of none.
    tests/test_offline.py checks it against scope_files."""
    langs = sorted({f.lang for f in files if f.kind == "page"})
    banks = sorted({(f.lang, f.bank) for f in files if f.kind == "page" and f.bank})
    site = 0
    lang_total = dict.fromkeys(langs, 0)
    shared = dict.fromkeys(["", *langs], 0)  # files of no bank, by language ("": site-wide)
    of_bank: dict[tuple[str, str], int] = {}  # a bank's own files, by (language, bank)
    for f in files:
        if f.kind == "visit":
            continue
        site += f.gz
        for lang in langs if f.lang == "" else (f.lang,) if f.lang in lang_total else ():
            lang_total[lang] += f.gz
        if f.bank == "":
            if f.kind != "page":  # a page belongs to no bank's scope but its bank's
                shared[f.lang] = shared.get(f.lang, 0) + f.gz
        elif f.kind == "page" or f.lang != "":
            of_bank[f.lang, f.bank] = of_bank.get((f.lang, f.bank), 0) + f.gz
        else:  # a site-wide file of one bank (no language): in that bank's scope in every language
            for lang in langs:
                of_bank[lang, f.bank] = of_bank.get((lang, f.bank), 0) + f.gz
    sizes = {"site": site} | {f"lang:{lang}": lang_total[lang] for lang in langs}
    for lang, bank in banks:
        sizes[f"bank:{lang}:{bank}"] = shared[""] + (shared[lang] if lang else 0) + of_bank.get((lang, bank), 0)
    return sizes


def build_version(files: list[SiteFile], sw_body: str) -> str:
    """A hash of every file's path and bytes, and of the worker itself."""
    h = hashlib.sha256()
    for f in sorted(files, key=lambda f: f.path):
        h.update(f"{f.path}\t{f.hash}\n".encode())
    h.update(sw_body.encode("utf-8"))
    return h.hexdigest()[:HASH_CHARS]


def manifest_json(files: list[SiteFile], languages: list[Language], version: str) -> str:
    head = json.dumps(
        {
            "version": version,
            "languages": [{"lang": lang.lang, "root": lang.root, "html_lang": lang.html_lang} for lang in languages],
            "scopes": scope_sizes(files),
        },
        ensure_ascii=False,
    )
    rows = ",\n".join(
        json.dumps([f.url, f.size, f.hash, f.kind, f.lang, f.gz, f.bank], ensure_ascii=False) for f in files
    )
    return head[:-1] + ',\n"files": [\n' + rows + "\n]}\n"


ZIP_LAST = ("pagefind/",)
"""Pagefind's index, which Pagefind writes while the zip's first part is compressed beside it
(begin_zip): zipped last, by write_zip once Pagefind is done."""
ZIP_DECKS = FOLDER + "/"
"""The Anki/CSV decks, which may still be being written when the zip's first part starts: it takes
them after the pages and the study data scripts, once its `decks` gate opens (begin_zip)."""


@dataclass(frozen=True)
class ZipFirst:
    """The zip's first part, in its .tmp file: every file outside ZIP_LAST, with the study data scripts
    after the pages and before the decks."""

    seen: dict[str, tuple[int, int]]
    """Each file it read, by path: (mtime in ns, size) before reading (a file changed since is read again)."""


def begin_zip(
    site_dir: Path, languages: list[Language], *, fork: bool, decks: parallel.Gate | None = None
) -> parallel.Side[ZipFirst]:
    """Start the zip's first part: in a forked child (`fork`, when forking is safe) while this process
    goes on, else in this process when write_zip asks. Call it when every page is in place; `decks`:
    a gate this process opens once the decks are written (None: they are). Pagefind runs meanwhile
    and leaves part of the second core idle: at 5,000 questions the two took 45 s side by side,
    against 27 s and 30 s one after the other (a floor build, 2026-12-04). The decks' CSV files
    deflated here rather than after Pagefind (write_zip) took 1.3 s off the end of a full build at 5,000
    questions, where the child finished the pages ~7 s before Pagefind (2026-12-06)."""
    _remove_previous(site_dir, languages)
    return parallel.Side(lambda: _zip_first(site_dir, languages, decks=decks), fork=fork and parallel.can_fork())


def write_zip(
    site_dir: Path, languages: list[Language], first: parallel.Side[ZipFirst] | None = None
) -> tuple[Path, dict[str, int]]:
    """The site for file://: fixed entry order (by path: every file outside ZIP_LAST and ZIP_DECKS; the
    study data scripts; ZIP_DECKS's files; ZIP_LAST's files), timestamps and modes, so the same site
    gives the same zip.
    `first`: begin_zip's part, if begun; it is zipped again here if a file it read changed meanwhile.
    Returns the zip and the compressed size of each site file it holds, by path."""
    out = site_dir / ZIP_PATH
    tmp = out.with_name(out.name + ".tmp")
    part = first.result() if first is not None else None
    now = _zippable(site_dir)
    earlier = {path: key for path, key in now.items() if not path.startswith(ZIP_LAST)}
    if part is not None and part.seen != earlier:
        changed = sorted(set(part.seen.items()) ^ set(earlier.items()))[0][0]
        # info, not a warning: under `mkdocs serve` a newer rebuild may change files while this
        # finish runs on its thread, and a warning would abort that rebuild in strict mode
        log.info("studysite: %s changed while the offline zip was written; zipping it again", changed)
        part = None
    if part is None:
        part = _zip_first(site_dir, languages, earlier)
    with zipfile.ZipFile(tmp, "a", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for path in sorted(now.keys() - earlier.keys()):
            _add(zf, path, _zip_bytes(site_dir, path, languages))
        packed = {info.filename[len(ZIP_FOLDER) + 1 :]: info.compress_size for info in zf.infolist()}
    tmp.replace(out)
    return out, packed


def _zippable(site_dir: Path, below: str = "", *, besides: tuple[str, ...] = ()) -> dict[str, tuple[int, int]]:
    """Every file the zip holds (in the folder `below` only, if given; not in the folders `besides`,
    whose files are still being written), by path below the site root: (mtime in ns, size). A file
    gone between the listing and its stat (renamed or deleted by a writer meanwhile) is left out:
    write_zip walks again once every writer is done, and zips again whatever differs."""
    found = {}
    for folder, dirs, names in os.walk(site_dir / below):
        here = Path(folder).relative_to(site_dir).as_posix()
        dirs[:] = [d for d in dirs if not (d + "/" if here == "." else f"{here}/{d}/").startswith(besides)]
        for name in names:
            file = Path(folder, name)
            path = file.relative_to(site_dir).as_posix()
            if not _left_out_of_zip(path):
                try:
                    st = file.stat()
                except FileNotFoundError:
                    continue
                found[path] = (st.st_mtime_ns, st.st_size)
    return found


def _zip_first(
    site_dir: Path,
    languages: list[Language],
    seen: dict[str, tuple[int, int]] | None = None,
    decks: parallel.Gate | None = None,
) -> ZipFirst:
    """Write the zip's .tmp with every file outside ZIP_LAST and ZIP_DECKS, then each language's study
    data scripts (the question list and every question page's answer, gathered from the same files),
    then the decks, once the gate `decks` opens (None: they are complete). `seen`: every file outside
    ZIP_LAST as a walk just found them (_zippable's), when the caller made one."""
    out = site_dir / ZIP_PATH
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    data: dict[str, dict[str, str]] = {lang.root: {} for lang in languages}
    answers: dict[str, dict[str, str]] = {lang.root: {} for lang in languages}
    # each file's state as it was before it is read: a change after that shows in write_zip. Not the
    # folders being written meanwhile (the decks, until `decks` opens; Pagefind's index): a deck's
    # temporary file, listed and then renamed before its stat, failed the build (a full test run,
    # 2026-12-07).
    later = (*ZIP_LAST, ZIP_DECKS)
    walked = seen if seen is not None else _zippable(site_dir, besides=later)
    pages = {path: key for path, key in walked.items() if not path.startswith(later)}
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for path in sorted(pages):
            _add(zf, path, _zip_bytes(site_dir, path, languages, data, answers))
        for lang in languages:
            shim = FILE_FETCH_SOURCE.read_text(encoding="utf-8")
            _add(zf, lang.root + FILE_DATA, (_script("qaFileData", data[lang.root]) + shim).encode("utf-8"))
            _add(zf, lang.root + FILE_ANSWERS, _script("qaFileAnswers", answers[lang.root]).encode("utf-8"))
        if seen is not None:
            found = {path: key for path, key in seen.items() if path.startswith(ZIP_DECKS)}
        else:
            if decks is not None:
                decks.wait()
            found = _zippable(site_dir, ZIP_DECKS)
        for path in sorted(found):
            _add(zf, path, _zip_bytes(site_dir, path, languages))
    return ZipFirst(pages | found)


def _zip_bytes(
    site_dir: Path,
    path: str,
    languages: list[Language],
    data: dict[str, dict[str, str]] | None = None,
    answers: dict[str, dict[str, str]] | None = None,
) -> bytes:
    """A site file as the zip holds it (a page through file_page); the question data and each
    question page's answer go into `data` and `answers` by language root."""
    raw = (site_dir / path).read_bytes()
    lang = holding(path, languages)
    inside = path[len(lang.root) :]
    if inside == QUESTION_DATA and data is not None:
        data[lang.root][inside] = raw.decode("utf-8")
    if not path.endswith(".html"):
        return raw
    page = raw.decode("utf-8")
    answer = _ANSWER_DIV.search(page)
    if answer and answers is not None:
        answers[lang.root][inside.removesuffix("index.html")] = f"<!doctype html><body>{answer.group(0)}</body>"
    home = next((lang for lang in languages if path == lang.root + "index.html"), None)
    return file_page(page, home, inside.count("/")).encode("utf-8")


def _add(zf: zipfile.ZipFile, path: str, raw: bytes) -> None:
    info = zipfile.ZipInfo(f"{ZIP_FOLDER}/{path}", date_time=(1980, 1, 1, 0, 0, 0))
    info.create_system = 3
    info.external_attr = 0o644 << 16
    info.compress_type = zipfile.ZIP_STORED if path.endswith(COMPRESSED) else zipfile.ZIP_DEFLATED
    zf.writestr(info, raw, compresslevel=6)


COMPRESSED = (".apkg", ".pf_fragment", ".pf_index", ".pf_meta", ".pagefind", ".png", ".jpg", ".woff2", ".zip", ".gz")
"""Files the zip stores as they are: already compressed (Anki decks are zips, Pagefind's index files
gzip), deflating them again gains nothing (1.006x the size for Pagefind's fragments) and cost the
zip's last step, which runs after everything else, a deflate of 87 MB at 5,000 questions."""


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
    page = _CONTROL.sub("", page)
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


def _control_pages(site_dir: Path, languages: list[Language]) -> list[Path]:
    """The pages with an offline control: each language's home page and bank pages."""
    pages = [site_dir / lang.root / "index.html" for lang in languages]
    pages += [site_dir / lang.root / bank / "index.html" for lang in languages for bank in _banks(site_dir, lang)]
    return [p for p in pages if p.exists()]


def _show_scope_sizes(page: Path, sizes: dict[str, int]) -> None:
    text = page.read_text(encoding="utf-8")
    shown = _SCOPE_SIZES.sub(lambda m: _sizes_attr(m.group(1), sizes), text)
    if shown != text:
        page.write_text(shown, encoding="utf-8")


def _remeasured(site_dir: Path, f: SiteFile) -> SiteFile:
    """A page with an offline control: its bytes and hash, and its compressed size without the sizes
    (the zip's copy leaves the control out, so its deflate size is no measure of this one)."""
    data = (site_dir / f.path).read_bytes()
    digest = hashlib.sha256(data).hexdigest()[:HASH_CHARS]
    bare = _SCOPE_SIZES.sub(lambda m: f'data-qa-offline-scopes="{m.group(1)}" {SCOPE_SIZE_SLOT}', data.decode("utf-8"))
    return dataclasses.replace(f, size=len(data), hash=digest, gz=len(zlib.compress(bare.encode("utf-8"), 6)))


def _sizes_attr(scopes: str, sizes: dict[str, int]) -> str:
    value = json.dumps({s: sizes.get(s, 0) for s in html.unescape(scopes).split()}, separators=(",", ":"))
    return f'data-qa-offline-scopes="{scopes}" data-qa-offline-sizes="{html.escape(value)}"'


def _banks(site_dir: Path, lang: Language) -> set[str]:
    """The banks of a language: the folders of its root with a nav.js (studysite/pages/render.py nav_json)."""
    return {p.parent.name for p in (site_dir / lang.root).glob("*/nav.js")}


def _fragment_page(data: bytes) -> str:
    """The site path of the page a Pagefind fragment indexes (its gzip'd JSON's `url`), or `""`."""
    try:
        text = gzip.decompress(data)
        m = re.search(rb'"url":"([^"]*)"', text[:2000])
    except (OSError, EOFError):
        return ""
    return unquote(m.group(1).decode("utf-8")).lstrip("/") if m else ""


def _group(path: str, languages: list[Language], search_langs: dict[str, str], ui_named: set[str]) -> tuple[str, str]:
    if path.endswith(".html"):
        return "page", holding(path, languages).lang
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


def _pagefind_languages(site_dir: Path, languages: list[Language]) -> dict[str, str]:
    """Pagefind's language keys -> the site's language codes. Pagefind names each index by the pages'
    `<html lang>`, lowercased (`zh`, `en`, `zh-tw` for 繁體中文's `zh-TW`): matched whole first, so that
    `zh-tw` is 繁體中文's and not 中文's; a key no language's `<html lang>` gives (`zh-cn` for a page
    that says so) goes to the language whose code its first part is."""
    entry = site_dir / "pagefind" / "pagefind-entry.json"
    if not entry.exists():
        return {}
    keys = json.loads(entry.read_text(encoding="utf-8")).get("languages", {})
    by_html = {lang.html_lang.lower(): lang.lang for lang in languages if lang.html_lang}
    codes = {lang.lang for lang in languages}
    out = {}
    for key in keys:
        if key in by_html:
            out[key] = by_html[key]
        elif key.split("-")[0] in codes:
            out[key] = key.split("-")[0]
    return out


def _url(path: str) -> str:
    url = path[: -len("index.html")] if path == "index.html" or path.endswith("/index.html") else path
    return quote(url, safe="/")


def _offline_output(path: str) -> bool:
    return path in (MANIFEST, SERVICE_WORKER) or path.startswith(ZIP_DECKS)


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
    """The worker's only reader-visible strings (offline: a page never saved; an address never there)."""
    strings = {
        lang.lang: {
            key: {part: t(f"offline.{key}.{part}", lang.lang) for part in ("title", "body", "home")}
            for key in ("missing", "gone")
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
"""The page's bundle (studysite/site/bundles.yml), which the study scripts are in: the zip's data goes first."""
_ANSWER_DIV = re.compile(r'<div class="qa-answer".*?</div>', re.DOTALL)
"""A question page's answer: one `<div>` with none inside (answer.answer_html), as verify.py reads it."""
_ZIP_SIZE = re.compile(r"<span data-qa-zip-size>[^<]*</span>")
_SCOPE_SIZES = re.compile(r'data-qa-offline-scopes="([^"]*)" data-qa-offline-sizes="[^"]*"')
_CONTROL = re.compile(r'<div class="qa-offline-control".*?</div>\n?', re.DOTALL)
"""The offline control (studysite/pages/offline_control.py: no <div> inside): the zip's copy has no worker."""
