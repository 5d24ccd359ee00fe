"""Nothing lost, nothing invented: check the built site against the bank files it was built from.

Every non-empty line of every bank file must be visible on its page in its language: the title in
the bank page's heading, a question in its page's heading, every answer line inside the answer, and
each as many times as the page's lines hold it (a repeated line, or one inside a longer line, is
counted, not just found).
Lines are read again from the files, not from the parsed model, so a line the parser dropped is
caught too. Every built page holding an answer must be a question of a bank. Each built page is
read once, as bytes: one scan finds the first of the two known fragments (first `<h1>`, the answer
`<div>`), and only the fragments are decoded. The theme's header, sidebar and footer are most of a
page's bytes, so decoding whole pages or scanning them once per fragment would cost several times that.
"""

from __future__ import annotations

import html
import itertools
import json
import os
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .. import cache
from ..cache import MISSING, Memo
from ..enrich.convert import convert_text, converted_languages
from ..errors import Problem, Problems, display_path
from ..languages import BANK_LANG, LANGUAGES, TRANSLATION_LANG
from ..model import Bank, BankInfo, Site
from ..sources.parse import question_text, read_text, split_lines
from ..sources.translations import PENDING


@dataclass(frozen=True)
class Expected:
    """A source line and the page fragment it must be visible in."""

    path: str
    """Bank file."""
    line: int
    """1-based line in it."""
    text: str
    """The line's visible text (marker removed), whitespace-normalised."""
    where: str
    """`heading` or `answer`."""


def check_built_site(
    banks: tuple[tuple[Bank, Bank | None], ...], site: Site, site_dir: Path, memo: Memo = cache.NULL
) -> list[Problem]:
    """Every problem found: lines missing from their page, pages missing, question pages no bank has.

    `memo`: a cache shard (`cache.shard`) of a bank's lines converted for a generated language, by the
    lines' text; the lines are read from the bank file and converted by `convert_text` all the same,
    or taken as an earlier check converted the same text."""
    problems = Problems()
    expected: dict[str, tuple[str | None, list[Expected]]] = {}  # page file -> (slug, lines)
    infos = {b.id: b for b in site.banks}
    for zh, en in banks:
        info = infos.get(zh.id)
        if info is None:
            problems.error(zh.path, zh.title_line, "bank is missing from the site model")
            continue
        for item in converted_languages():  # generated: the bank converted as the build converts it
            _expect_bank(zh, info, item.root, expected, problems, _converting(memo, item.opencc))
        if en is not None and any(q.key for q in en.questions):  # tied by slug: see _expect_keyed
            _expect_bank(zh, info, "", expected, problems)
            _expect_keyed(zh, en, info, site, expected, problems)
            continue
        for prefix, bank in (("", zh), (_TRANSLATION_ROOT, en or zh)):  # untranslated: the Chinese on English pages
            _expect_bank(bank, info, prefix, expected, problems)
    seen: set[str] = set()
    root = os.fspath(site_dir)
    for rel in _html_pages(site_dir):
        data = _read_page(os.path.join(root, rel))
        want = expected.get(rel)
        if want is None:
            if _ANSWER in data:
                problems.error(site_dir / rel, 0, "question page that no bank holds (nothing may be invented)")
            continue
        seen.add(rel)
        slug, lines = want
        heading, answer, answer_slug = _fragments(data)
        if slug is not None and answer_slug != slug:
            problems.error(site_dir / rel, 0, f"page does not hold the answer of `{slug}`")
        for e, missing, wanted in _missing(lines, heading, answer):
            times = f" (shown {wanted - missing} of the {wanted} times the bank has it)" if wanted > 1 else ""
            page = display_path(site_dir / rel)
            problems.error(e.path, e.line, f"line not visible on its built page {page}{times}", e.text)
    for rel, (_, lines) in sorted(expected.items()):
        if rel not in seen and lines:
            first = lines[0]
            problems.error(first.path, first.line, f"its page {rel} was not built")
    return problems.errors


def check_lists(site: Site, site_dir: Path, prefixes: tuple[str, ...] | None = None) -> list[Problem]:
    """Every list reaches all it should, a page at a time: following each bank's list pages from its
    first page by their "next" links gives the bank's questions in bank order, each tag's pages give
    the tag's questions (banks in order), the banks index (when there is one) lists every bank, the
    tags index links to every tag's page, and no page holds
    more than a page's worth (studysite/pages/listings.py's PAGE_SIZE). Read from the built HTML."""
    from ..pages.listings import BANKS_URL, HOME_BANKS, PAGE_SIZE

    problems = Problems()
    if prefixes is None:  # the main language's pages and the translation's
        prefixes = ("", _TRANSLATION_ROOT)
    by_tag: dict[str, list[str]] = {tag.id: [] for tag in site.tags}
    for bank in site.banks:
        for slug in bank.slugs:
            for tag_id in site.entries[slug].tags:
                by_tag[tag_id].append(f"{bank.id}/{slug}/")
    for prefix in prefixes:
        lists = [(f"{bank.id}/", [f"{bank.id}/{slug}/" for slug in bank.slugs]) for bank in site.banks]
        lists += [(f"tags/{tag_id}/", urls) for tag_id, urls in by_tag.items() if urls]
        for start, want in lists:
            got = _walk_list(site_dir, prefix, start, PAGE_SIZE, problems)
            if got is not None and got != want:
                missing = sorted(set(want) - set(got))[:3]
                problems.error(
                    site_dir / prefix / start / "index.html",
                    0,
                    f"its pages list {len(got)} question(s), {len(want)} expected in order (missing: {missing})",
                )
        if len(site.banks) > HOME_BANKS:  # the home page lists a few; the banks index all of them
            got = _walk_list(site_dir, prefix, BANKS_URL, PAGE_SIZE, problems, '<ul class="qa-index">')
            if got is not None and got != [f"{bank.id}/" for bank in site.banks]:
                problems.error(
                    site_dir / prefix / BANKS_URL / "index.html", 0, "its pages do not list every bank in order"
                )
        index = site_dir / prefix / "tags" / "index.html"
        try:
            links = set(_HREF.findall(index.read_text(encoding="utf-8")))
        except OSError as exc:
            problems.error(index, 0, f"tags index missing ({exc.__class__.__name__})")
            continue
        for tag_id, urls in by_tag.items():
            if urls and f"{tag_id}/" not in links:
                problems.error(index, 0, f"no link to the page of tag `{tag_id}`")
    return problems.errors


def check_search(site_dir: Path, languages: list[str]) -> list[Problem]:
    """Search is there: Pagefind's script and, for every language, an index with at least one page."""
    problems = Problems()
    root = site_dir / "pagefind"
    entry_file = root / "pagefind-entry.json"
    for name in ("pagefind.js", "pagefind-worker.js"):
        if not (root / name).is_file():
            problems.error(root / name, 0, "missing: the site has no search")
    try:
        entry = json.loads(entry_file.read_text(encoding="utf-8"))
        indexes = entry["languages"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        problems.error(entry_file, 0, f"no search index ({exc.__class__.__name__}: {exc})")
        return problems.errors
    for lang in languages:
        index = indexes.get(lang) if isinstance(indexes, dict) else None
        if not isinstance(index, dict) or not index.get("page_count"):
            problems.error(
                entry_file, 0, f"no search index for language `{lang}` (pages in <html lang> {lang} indexed: 0)"
            )
        elif not (root / f"pagefind.{index.get('hash')}.pf_meta").is_file():
            problems.error(
                entry_file, 0, f"search index for `{lang}` names pagefind.{index.get('hash')}.pf_meta, which is missing"
            )
    return problems.errors


def _converting(memo: Memo, config: str) -> Callable[[list[str]], list[str]]:
    """Each of a bank's lines through OpenCC's `config` (`convert_text`), or the same bank text's lines
    as an earlier check converted them, from `memo`: a check that converts nothing does not load OpenCC
    (its dictionaries took ~150 ms of a 14-question build's ~0.3 s check)."""

    def convert(lines: list[str]) -> list[str]:
        key = memo.key("check-lines", config, "\n".join(lines)) if memo.enabled else b""  # lines hold no line break
        found: list[str] = memo.get(key) if memo.enabled else MISSING
        if found is MISSING:
            found = memo.put(key, [convert_text(line, config) for line in lines])
        return found

    return convert


def _expect_bank(
    bank: Bank,
    info: BankInfo,
    prefix: str,
    expected: dict[str, tuple[str | None, list[Expected]]],
    problems: Problems,
    convert: Callable[[list[str]], list[str]] | None = None,
) -> None:
    """Read `bank`'s file again and assign each non-empty line to the page and fragment that shows it
    (the lines through `convert` first, for a generated language)."""
    raw = read_text(Path(bank.path), problems)
    if raw is None:
        return
    lines = split_lines(raw)
    if convert is not None:
        lines = convert(lines)
    path = display_path(bank.path)
    bank_page: list[Expected] = []
    expected[f"{prefix}{info.id}/index.html"] = (None, bank_page)
    if len(bank.questions) != len(info.slugs):
        problems.error(bank.path, bank.title_line, "bank and site model disagree on its questions")
        return
    bank_page.append(Expected(path, bank.title_line, _normal(lines[bank.title_line - 1]), "heading"))
    starts = [q.line for q in bank.questions] + [len(lines) + 1]
    for q, slug, end in zip(bank.questions, info.slugs, starts[1:], strict=True):
        page: list[Expected] = []
        expected[f"{prefix}{info.id}/{slug}/index.html"] = (slug, page)
        for number in range(q.line, end):
            stripped = lines[number - 1].strip()
            if not stripped:
                continue
            if number == q.line:
                page.append(Expected(path, number, _normal(question_text(stripped) or stripped), "heading"))
            else:
                page.append(Expected(path, number, _normal(_MARKER.sub("", stripped, count=1) or stripped), "answer"))


def _expect_keyed(
    zh: Bank,
    en: Bank,
    info: BankInfo,
    site: Site,
    expected: dict[str, tuple[str | None, list[Expected]]],
    problems: Problems,
) -> None:
    """English pages of a translation tied by `@slug` keys (studysite/sources/translations.py): each page shows
    its question's lines from the English file when translated, else the Chinese file's lines. Key
    lines are not text; a question still pending, or whose key left the bank, has no page to be on."""
    files = {}
    for bank in (zh, en):
        raw = read_text(Path(bank.path), problems)
        if raw is None:
            return
        files[bank.path] = split_lines(raw)
    ranges: dict[tuple[str, int], list[tuple[int, str]]] = {}
    for bank in (zh, en):
        lines = files[bank.path]
        starts = [*sorted(q.line for q in bank.questions), len(lines) + 1]
        for start, end in itertools.pairwise(starts):
            ranges[bank.path, start] = [
                (n, s) for n in range(start, end) if (s := lines[n - 1].strip()) and not _KEY.fullmatch(s)
            ]
    bank_page: list[Expected] = []
    expected[f"{_TRANSLATION_ROOT}{info.id}/index.html"] = (None, bank_page)
    title_bank = zh if en.title.startswith(PENDING) else en  # a title still pending shows the Chinese
    title_line = files[title_bank.path][title_bank.title_line - 1]
    bank_page.append(Expected(display_path(title_bank.path), title_bank.title_line, _normal(title_line), "heading"))
    for slug in info.slugs:
        entry = site.entries[slug]
        q, path = (entry.text[TRANSLATION_LANG], en.path) if entry.translated else (entry.text[BANK_LANG], zh.path)
        page: list[Expected] = []
        expected[f"{_TRANSLATION_ROOT}{info.id}/{slug}/index.html"] = (slug, page)
        for number, stripped in ranges.get((path, q.line), []):
            if number == q.line:
                page.append(
                    Expected(display_path(path), number, _normal(question_text(stripped) or stripped), "heading")
                )
            else:
                text = _normal(_MARKER.sub("", stripped, count=1) or stripped)
                page.append(Expected(display_path(path), number, text, "answer"))


def _missing(lines: list[Expected], heading: str | None, answer: str | None) -> list[tuple[Expected, int, int]]:
    """Lines a page shows fewer times than its bank has them, with how many are missing and wanted.

    A line is wanted as many times as it occurs in the page's lines joined (each whole line, and
    inside longer lines: `要点` is in `要点甲` too), counted without overlaps; the fragment must hold
    it at least as often. Counting, not containment, so a repeated line or one that is part of
    another line cannot vanish unseen. Leftmost counting finds the most non-overlapping occurrences
    a text holds, and a fragment showing every line holds each line's occurrences apart, so a
    complete page never falls short. Longer lines are counted first and a missing one no longer
    counts for the shorter lines inside it, so the blame falls on the lines that went, the last of
    equal ones.
    """
    found: list[tuple[Expected, int, int]] = []
    for where, shown in (("heading", heading), ("answer", answer)):
        group = [e for e in lines if e.where == where]
        if shown is None:
            found += [(e, 1, 1) for e in group]
            continue
        present = list(group)
        joined = "\n".join(e.text for e in present)  # no line holds a newline: none is counted across two
        for text in sorted({e.text for e in group}, key=len, reverse=True):
            wanted = joined.count(text)
            missing = wanted - shown.count(text)
            if missing > 0:
                gone = [e for e in present if e.text == text][-missing:]
                found += [(e, missing, wanted) for e in gone]
                present = [e for e in present if e not in gone]
                joined = "\n".join(e.text for e in present)
    return found


def _walk_list(
    site_dir: Path, prefix: str, start: str, page_size: int, problems: Problems, marker: str = ""
) -> list[str] | None:
    """The question URLs (relative to the language root) of a list's pages, in order, following "next"."""
    found: list[str] = []
    url, seen = start, set()
    while url and url not in seen:
        seen.add(url)
        page = site_dir / prefix / url / "index.html"
        try:
            text = page.read_text(encoding="utf-8")
        except OSError:
            problems.error(page, 0, "list page missing")
            return None
        block = text.split(marker or _LIST, 1)[1:]
        items = _HREF.findall(re.split("</ol>|</ul>", block[0], maxsplit=1)[0]) if block else []
        if len(items) > page_size:
            problems.error(page, 0, f"{len(items)} questions on one page (at most {page_size})")
        found += [posixpath.normpath(posixpath.join(url, href)) + "/" for href in items]
        nxt = _NEXT.search(text)
        url = posixpath.normpath(posixpath.join(url, nxt.group(1))) + "/" if nxt else ""
    return found


def _html_pages(site_dir: Path) -> list[str]:
    """Every `.html` file below `site_dir` (relative, `/`-separated) outside the theme's and search's
    folders, in path order (component by component, as sorted `Path`s); symbolic links to folders
    are not followed (as `Path.rglob`)."""
    found = []
    folders = [""]
    root = os.fspath(site_dir)
    while folders:
        rel = folders.pop()
        try:
            with os.scandir(os.path.join(root, rel)) as entries:
                for entry in entries:
                    name = rel + entry.name
                    if entry.is_dir(follow_symlinks=False):
                        if name not in _SKIPPED:
                            folders.append(name + "/")
                    elif name.endswith(".html"):
                        found.append(name)
        except PermissionError:
            continue
    return sorted(found, key=lambda rel: rel.split("/"))


def _read_page(path: str) -> bytes:
    """A built page's bytes (a plain path, not a `Path`: 17,000 of them at 5,000 questions took 0.4 s
    of the check's 3.2 s of CPU)."""
    with open(path, "rb") as handle:
        return handle.read()


def _fragments(page: bytes) -> tuple[str | None, str | None, str | None]:
    """Visible, normalised text of the page's first heading and of its answer, and the answer's slug.

    The answer is one `<div>` with no `<div>` inside (answer.answer_html), so it ends at the first
    `</div>`. None for what the page does not have. The delimiters are ASCII, which UTF-8 never uses
    inside a multi-byte character, so finding them in the bytes and decoding only what lies between
    gives what the same search in the decoded page would. One scan finds whichever of the two comes
    first; the other is then looked for from there on only.
    """
    first = _FIRST.search(page)
    if first is None:
        return (None, None, None)
    heading = _first_heading(page, first.start())
    start = page.find(_ANSWER, first.start())
    if start < 0:
        return (_visible(heading) if heading is not None else None, None, None)
    open_end = page.find(b">", start) + 1
    end = page.find(b"</div>", open_end)
    slug = _SLUG.search(_decode(page[start:open_end]))
    return (
        _visible(heading) if heading is not None else None,
        _visible(_decode(page[open_end : end if end >= 0 else len(page)])),
        slug.group(1) if slug else None,
    )


def _first_heading(page: bytes, pos: int) -> str | None:
    """The inside of the first `<h1 ...>...</h1>` at or after `pos`: the first `<h1` whose tag fits,
    up to the next `</h1>`."""
    found = _H1_START.search(page, pos)
    while found is not None:
        start = found.start()
        close = page.find(b">", start)
        end = page.find(b"</h1>", close + 1) if close >= 0 else -1
        if end < 0:  # then no later `<h1` has a closing `>` and `</h1>` either
            return None
        if _H1_TAG.fullmatch(_decode(page[start : close + 1])):
            return _decode(page[close + 1 : end])
        found = _H1_START.search(page, start + 1)
    return None


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _visible(fragment: str) -> str:
    return _normal(html.unescape(_TAG.sub("", fragment)))


def _normal(text: str) -> str:
    return " ".join(text.split())  # the same as collapsing `\s+` to one space and stripping


_ANSWER = b'<div class="qa-answer"'
_FIRST = re.compile(rb'<(?:h1|div class="qa-answer")')
"""The first heading or answer, whichever comes first (`re` scans faster than `bytes.find` here)."""
_H1_START = re.compile(rb"<h1")
_H1_TAG = re.compile(r"<h1\b[^>]*>")
_LIST = '<div class="qa-bank-list">'
_HREF = re.compile(r'<a href="([^"#]+)"')
_NEXT = re.compile(r'<nav class="qa-pages"[^>]*>.*?<a href="([^"]+)" rel="next"', re.S)
_TAG = re.compile(r"<[^>]*>")
_TRANSLATION_ROOT = LANGUAGES.translation.root if LANGUAGES.translation else ""
"""The translation's folder (`en/`): its pages show the translation, or the bank's text where there is none."""
_SKIPPED = frozenset({"assets", f"{_TRANSLATION_ROOT}assets", "pagefind", "search", f"{_TRANSLATION_ROOT}search"})
"""Folders of the theme and of search: no page of ours is in them."""
_SLUG = re.compile(r'data-qa-slug="([^"]*)"')
_KEY = re.compile(r"@[a-z0-9]+(?:-[a-z0-9]+)*")
"""A translation's key line (studysite/sources/translations.py): not text, shown nowhere."""
_MARKER = re.compile(r"^(?:[-*•]\s+|\d{1,4}[.)．、]\s*(?=\S))")
