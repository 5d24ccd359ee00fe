"""Render the site model to Markdown pages: pure functions of (model, language) -> str.

Bank text never reaches Markdown as Markdown: answers are emitted as raw HTML blocks with every
character escaped, and titles in headings and links use numeric character references, so no
extension can turn a user's `*`, `<`, `$` or `|` into markup.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections import Counter
from collections.abc import Iterator
from urllib.parse import quote, urlencode

from .. import cache
from ..cache import MISSING, Memo
from ..i18n import t
from ..languages import LANGUAGES
from ..model import LANGS, BankInfo, Entry, Lang, Question, Site
from ..sources.glossary import TermFinder, term_finder, text_lang
from ..sources.notes import note_html
from . import downloads, listings
from .answer import answer_blocks_html, answer_html, bilingual_source, bilingual_toggle
from .downloads import site_root
from .glossary_page import GLOSSARY_PATH, glossary_order, glossary_page, glossary_term_pages, glossary_uses
from .markup import HTML_LANG, Markup, Page, clip, el, escape, front_matter, html_block, md_text
from .offline_control import ZIP_PATH, ZIP_SIZE_SLOT, offline_control
from .print_edition import print_pages
from .render_study import REVIEW_PATH, bank_questions_json, study_pages

REPORT_FORM = "report-error.yml"
"""The issue form "report an error" opens (.github/ISSUE_TEMPLATE/); its field ids are the URL's keys."""
LONG_TITLE = 90
"""Columns (a Chinese character is two) above which a question title gets the phone's smaller heading."""


def render_site(
    site: Site,
    lang: Lang,
    repo_url: str = "",
    site_url: str = "",
    memo: Memo = cache.NULL,
    known: cache.Digests | None = None,
) -> Iterator[Page]:
    """Every generated page of one language. `repo_url` (a GitHub repository) adds "report an error"
    and "edit the source" links to question pages. Question pages, print editions and the lists of a
    bank's, a tag's or a glossary term's questions whose inputs `memo` has seen are taken from it
    (`PageKeys` says what each is rendered from); the other pages are few and are rendered every time."""
    keys = PageKeys(site, lang, memo, repo_url, site_url, known)

    def bank_json(bank: BankInfo) -> str:
        key = keys.bank_json(bank)
        found: str = memo.get(key) if memo.enabled else MISSING
        if found is MISSING:
            found = memo.put(key, bank_questions_json(site, bank, lang))
        return found

    study = list(study_pages(site, lang, bank_json))
    review = next((_page_url(p.path) for p in study if p.path == REVIEW_PATH), "")
    yield Page("index.md", home_page(site, lang, review))
    yield Page("tags.md", tags_page(lang, site))
    for path, text in listings.banks_index_pages(site, lang):
        yield Page(path, text)
    members = listings.tag_counts(site)
    for tag in site.tags:
        if members[tag.id]:
            key = keys.listing("tag", tag, members[tag.id])
            pages = memo.get(key) if memo.enabled else MISSING
            if pages is MISSING:
                pages = memo.put(key, list(listings.tag_pages(site, tag, members[tag.id], lang)))
            for path, text in pages:
                yield Page(path, text, key)
    # The glossary finders, looked up once (their cache key hashes every glossary term).
    finders = {text: term_finder(site.glossary, text) for text in LANGS} if site.glossary else {}
    for bank in site.banks:
        key = keys.listing("bank", bank, [site.entries[slug] for slug in bank.slugs])
        pages = memo.get(key) if memo.enabled else MISSING
        if pages is MISSING:
            nav = (f"{bank.id}/{BANK_NAV}", bank_nav_js(site, bank, lang))
            pages = memo.put(key, [*listings.bank_pages(site, bank, lang), nav])
        for path, text in pages:
            yield Page(path, text, key)
        for slug in bank.slugs:
            entry = site.entries[slug]
            key = keys.question(entry)
            if memo.enabled and memo.holds(key):  # read only if needed: after an edit, hardly ever
                yield Page(entry.path, "", key, held=True)
                continue
            finder = finders.get(text_lang(entry, lang))
            text = memo.put(key, question_page(site, entry, lang, repo_url, finder, site_url))
            yield Page(entry.path, text, key)
    for bank in site.banks:
        key = keys.print_edition(bank)
        pages = memo.get(key) if memo.enabled else MISSING
        if pages is MISSING:
            pages = memo.put(key, list(print_pages(site, lang, bank)))
        for page in pages:
            yield Page(page.path, page.text, key)
    if site.glossary:
        uses = glossary_uses(site, lang, memo, keys.known)
        order = None
        if memo.enabled:  # it depends on the terms' names alone
            order_key = memo.key("glossary-order", lang, keys.glossary)
            order = memo.get(order_key)
            if order is MISSING:
                order = memo.put(order_key, glossary_order(site.glossary, lang))
        yield Page(GLOSSARY_PATH, glossary_page(site, lang, uses, order))
        for term in site.glossary:
            key = keys.listing("term", (term.id, term.names[lang]), [site.entries[s] for s in uses[term.id]])
            pages = memo.get(key) if memo.enabled else MISSING
            if pages is MISSING:
                pages = memo.put(key, list(glossary_term_pages(site, lang, uses, term)))
            for path, text in pages:
                yield Page(path, text, key)
    for stone in site.tombstones:
        if stone.moved_to is None:
            yield Page(f"{stone.bank_id}/{stone.slug}.md", removed_page(site, stone.bank_id, stone.title, lang))
        else:  # a static page MkDocs copies as is: /<old bank>/<slug>/ -> /<new bank>/<slug>/
            yield Page(f"{stone.bank_id}/{stone.slug}/index.html", redirect_page(f"../../{stone.moved_to}/", lang))
    for bank_id, target in _gone_banks(site):
        yield Page(f"{bank_id}/index.html", redirect_page(target, lang))
    yield from study
    yield Page(".nav.json", nav_json(site, lang))


class PageKeys:
    """The cache keys of one language's question pages, print editions, bank pages (with the bank's
    nav.js) and tag and term lists: hashes of what `question_page`, `print_pages`, `bank_pages`,
    `bank_nav_js`, `tag_pages`, `term_pages` and `bank_questions_json` read (the code is part of every
    key, studysite/cache.py). Change what one of them reads, and its key here must change with it
    (tests/test_cache.py edits each input and compares with a build without the cache)."""

    def __init__(
        self, site: Site, lang: Lang, memo: Memo, repo_url: str, site_url: str, known: cache.Digests | None = None
    ) -> None:
        self.site, self.lang, self.memo = site, lang, memo
        self.urls = (repo_url, site_url)
        self.known = known if known is not None else cache.Digests()
        self._banks: dict[str, bytes] = {}
        if memo.enabled:
            self.tags = cache.digest(site.tags)  # tag names
            self.glossary = cache.digest(site.glossary)  # tooltips
            # Where each question is, and that and its title in this language, as the pages that link to
            # it show them: a few bytes each, joined into a page's key (cheaper than pickling the tuples).
            self._where = {slug: _field(slug) + _field(e.bank_id) for slug, e in site.entries.items()}
            self._places = {slug: at + _field(site.entries[slug].text[lang].text) for slug, at in self._where.items()}
            # what every question page of this language reads alike, hashed once (`question`)
            self._question_key = cache.key_from("question", lang, *self.urls, self.tags, self.glossary)

    def question(self, entry: Entry) -> bytes:
        """A question page reads its entry, bank and inline links, the titles (and places) of its related
        and neighbouring questions, the tags' names, the glossary, the report and edit links' URLs."""
        if not self.memo.enabled:
            return b""
        site, lang = self.site, self.lang
        bank = site.bank(entry.bank_id)
        at = entry.index if bank.slugs[entry.index : entry.index + 1] == (entry.slug,) else bank.slugs.index(entry.slug)
        shown = [*entry.related, *bank.slugs[max(0, at - 1) : at], *bank.slugs[at + 1 : at + 2]]
        places, where = self._places, self._where
        others = b"".join([places[s] for s in shown])
        linked = b"".join([_field(term) + where[s] for term, s in site.inline_links.get(lang, {}).get(entry.slug, ())])
        return self._question_key(self._bank(entry.bank_id), self._entry(entry), others, linked)

    def print_edition(self, bank: BankInfo) -> bytes:
        """A bank's print edition reads the bank, its questions and the tags' names."""
        if not self.memo.enabled:
            return b""
        entries = b"".join(self._entry(self.site.entries[s]) for s in bank.slugs)
        return self.memo.key("print", self.lang, self.tags, self._bank(bank.id), entries)

    def listing(self, kind: str, subject: object, entries: list[Entry]) -> bytes:
        """A list of questions (a bank's pages and nav.js, a tag's pages, a glossary term's) reads what
        it lists them under (the bank; the tag; the term's id and name) and each question's place and title."""
        if not self.memo.enabled:
            return b""
        places = self._places
        shown = b"".join([places[e.slug] for e in entries])
        return self.memo.key("list", kind, self.lang, cache.digest(subject), shown)

    def bank_json(self, bank: BankInfo) -> bytes:
        """A bank's part of the study data (`bank_questions_json`) reads its questions."""
        if not self.memo.enabled:
            return b""
        entries = b"".join(self._entry(self.site.entries[s]) for s in bank.slugs)
        return self.memo.key("bank-json", self.lang, entries)

    def _entry(self, entry: Entry) -> bytes:
        found = self.known.key_of(entry)  # `name_entries` computed it already, for every language
        if found is None:
            found = entry_key(entry, self.known)
            self.known.remember_key(entry, found)
        return found

    def _bank(self, bank_id: str) -> bytes:
        found = self._banks.get(bank_id)
        if found is None:
            found = self._banks[bank_id] = cache.digest(self.site.bank(bank_id))
        return found


_ENTRY_FIELDS = tuple(f.name for f in dataclasses.fields(Entry) if f.name != "text")


def entry_key(entry: Entry, known: cache.Digests) -> bytes:
    """What every page that shows a question reads of its entry, as part of a cache key (`PageKeys`):
    every field, the texts by their known digests, the rest (small) pickled. The same in every language."""
    rest = [getattr(entry, name) for name in _ENTRY_FIELDS]
    return cache.key("entry", *(known.of(entry.text[lang]) for lang in LANGS), cache.digest(rest))


def name_entries(site: Site, known: cache.Digests, held: dict[Entry, bytes]) -> None:
    """Each entry's `entry_key`, told to `known` (`remember_key`) for the pages of every language:
    computed once a build rather than once a language (in each forked renderer), and not at all for
    an entry equal to one of the last build's, which `held` (the caller's, kept between builds in one
    process) maps to its key; `held` is left holding this build's. An equal entry has the same key:
    equal fields, equal texts, equal digests (at 5,000 questions an edit's pages computed 15,000 keys,
    ~0.4 s of each language's renderer)."""
    last = dict(held)
    held.clear()
    for entry in site.entries.values():
        found = last.get(entry)
        if found is None:
            found = entry_key(entry, known)
        held[entry] = found
        known.remember_key(entry, found)


def question_page(
    site: Site, entry: Entry, lang: Lang, repo_url: str = "", finder: TermFinder | None = None, site_url: str = ""
) -> str:
    """A question's page. `finder` is the glossary's finder for the language of the text shown (looked
    up here when not given)."""
    q = entry.text[lang]
    bank = site.bank(entry.bank_id)
    tag_names = [_tag_name(site, tag_id, lang) for tag_id in entry.tags]
    lines = front_matter(
        title=q.text,
        description=_description(q),
        tags=tag_names,
        qa={
            "slug": entry.slug,
            "bank": entry.bank_id,
            "hash": entry.content_hash,
            "file": _source_file(bank, lang, entry),
            "line": q.line,
        },
    )
    lines += [f"# {md_text(q.text)}" + (" { .qa-title--long }" if _long_title(q.text) else ""), ""]
    untranslated = lang == _TRANSLATION and not entry.translated
    links = {
        term: f"../../{site.entries[slug].path[:-3]}/"
        for term, slug in site.inline_links.get(lang, {}).get(entry.slug, ())
    }
    shown_in: Lang | None = _BANK if untranslated else None
    if site.glossary and finder is None:
        finder = term_finder(site.glossary, text_lang(entry, lang))
    terms = (finder, lang) if finder is not None else None
    lines += html_block(
        el("p", {"class": "qa-untranslated", "lang": HTML_LANG[lang]}, t("question.untranslated", lang))
        if untranslated
        else "",
        bilingual_toggle(lang),
        answer_html(q, entry.slug, entry.content_hash, links, shown_in, terms),
        bilingual_source(entry, lang, "qa-answer"),
        *_after_answer(entry, lang),
        _source_links(entry, bank, lang, repo_url, site_url),
    )
    if entry.related:
        lines += [f"## {md_text(t('question.related', lang))} {{ #related }}", ""]
        for slug in entry.related:
            other = site.entries[slug]
            lines.append(f"- [{md_text(other.text[lang].text)}]({_rel(entry, other)})")
        lines.append("")
    lines += [
        f"{md_text(t('question.bank', lang) + t('punct.colon', lang))}[{md_text(bank.titles[lang])}](index.md)",
        "",
    ]
    lines += html_block(_pager(site, entry, bank, lang))
    return "\n".join(lines)


def bank_page(site: Site, bank_id: str, lang: Lang) -> str:
    """A bank's page (the first, when its list runs to several: studysite/listings.py)."""
    return next(listings.bank_pages(site, site.bank(bank_id), lang))[1]


def home_page(site: Site, lang: Lang, review: str = "") -> str:
    """The home page: what the site is, how many questions, and the ways in (a review, a random
    question, a mock interview, the topics) on a phone's first screen; banks, topics, progress,
    downloads and the offline copy below. `review`: the path of the study engine's daily review page
    (relative to the language root), when the site has one."""
    lines = front_matter(
        title=t("home.title", lang), description=clip(t("home.intro", lang)), hide=["navigation", "toc"]
    )
    counts = {tag.id: 0 for tag in site.tags}
    for entry in site.entries.values():
        for tag_id in entry.tags:
            counts[tag_id] += 1
    used = [tag for tag in site.tags if counts[tag.id]]
    n = len(site.entries)
    lines += [f"# {md_text(t('home.title', lang))}", "", md_text(t("home.intro", lang)), ""]
    summary = t("punct.sep", lang).join(
        t(key + (".one" if k == 1 else ""), lang, n=k)
        for key, k in (("home.count", n), ("home.count.banks", len(site.banks)), ("home.count.tags", len(used)))
    )
    lines += [el("p", {"class": "qa-home-count"}, summary), ""]
    lines += [_home_ways(lang, review), ""]
    # a hint for keyboards only (reader.css hides it on touch screens)
    lines += [el("p", {"class": "qa-keyhint"}, t("home.search", lang)), ""]
    lines += [f"## {md_text(t('home.banks', lang))}", ""]
    lines += listings.home_banks(site, lang)
    lines += [f"## {md_text(t('home.tags', lang))} {{ #topics }}", ""]
    for tag in used:
        # Markdown still runs inside inline HTML, so the name needs md_text (a name like
        # `[t](javascript:x)` would otherwise become a live link), not just html.escape.
        count = t("home.count.one" if counts[tag.id] == 1 else "home.count", lang, n=counts[tag.id])
        lines.append(
            f'- <a href="{listings.tag_url(tag)}">{md_text(tag.name(lang))}</a> '
            f'<span class="qa-count">{md_text(count)}</span>'
        )
    lines.append("")
    lines += _home_study(lang)
    lines += _home_takeaway(site, lang)
    lines += _home_offline(lang)
    return "\n".join(lines)


def _home_ways(lang: Lang, review: str) -> str:
    """The ways into a study session, as buttons: links that work without JavaScript, and the random
    question (overrides/assets/qa/reader.js shows it: it needs the study scripts)."""
    ways = []
    if review:  # study-progress.js writes how many are due above it and the count into the button
        start = {"class": "md-button md-button--primary qa-today__start", "href": review}
        ways.append(el("a", start, t("home.way.review", lang)))
    primary = "" if review else " md-button--primary"
    random = {"type": "button", "class": f"md-button{primary} qa-ways__random", "data-qa-random": True, "hidden": True}
    ways.append(el("button", random, t("home.way.random", lang)))
    ways.append(el("a", {"class": "md-button", "href": "study/mock/"}, t("home.mock", lang)))
    ways.append(el("a", {"class": "md-button", "href": "#topics"}, t("home.way.topics", lang)))
    nav = el("nav", {"class": "qa-ways", "aria-label": t("home.ways", lang)}, *ways)
    return el("div", {"class": "qa-today", "data-qa-today": True}, nav) if review else nav


def tags_page(lang: Lang, site: Site | None = None) -> str:
    """The tags index: each tag with its count, linking to the tag's own pages (studysite/listings.py)."""
    lines = front_matter(title=t("tags.title", lang), description=clip(t("tags.intro", lang)))
    lines += [
        f"# {md_text(t('tags.title', lang))}",
        "",
        md_text(t("tags.intro", lang)),
        "",
        '<div class="qa-progress" data-qa-progress="tags"></div>',
        "",
    ]
    if site is not None:
        lines += listings.tags_index(site, lang, listings.tag_counts(site))
        lines += _tag_downloads(site, lang)
    return "\n".join(lines)


def removed_page(site: Site, bank_id: str, title: str, lang: Lang) -> str:
    """What a removed question's URL shows: that it was removed, what it said, and the way back."""
    bank = next((b for b in site.banks if b.id == bank_id), None)
    lines = front_matter(title=t("removed.title", lang), search={"exclude": True}, robots="noindex")
    # Written as HTML, not Markdown inside HTML: md_in_html, which that would need, parses every raw
    # HTML block of every page again (7-8 % of a build's CPU). Pagefind indexes no page whose whole
    # content it is told to ignore. The page is bank/slug/, so its bank is ../ and the home ../../.
    if bank is not None:
        back = el("p", {}, t("removed.back", lang), " ", el("a", {"href": "../"}, bank.titles[lang]))
    else:  # the whole bank is gone
        back = el("p", {}, t("removed.home", lang), " ", el("a", {"href": "../../"}, t("nav.home", lang)))
    body = el(
        "div",
        {"class": "qa-removed-page", "data-pagefind-ignore": "all"},
        el("h1", {}, t("removed.title", lang)),
        el("p", {}, t("removed.body", lang)),
        # The title as the lock kept it: in the banks' language, tagged with its locale (zh-CN: the
        # script too, which the bare html lang does not say beside a converted edition)
        el("blockquote", {"class": "qa-removed", "lang": t("locale", _BANK)}, el("p", {}, title)),
        back,
    )
    return "\n".join([*lines, *html_block(body)])


def redirect_page(target: str, lang: Lang) -> str:
    """A complete HTML page that sends the reader on to `target` (relative), keeping query and anchor.

    Written by hand rather than by mkdocs-redirects, whose page drops the query string and is
    English only. Without JavaScript the meta refresh still redirects (without query or anchor).
    """
    if not _SAFE_URL.fullmatch(target):
        raise ValueError(f"unsafe redirect target {target!r}")
    return "\n".join(
        [
            "<!doctype html>",
            f'<html lang="{HTML_LANG[lang]}">',
            "<head>",
            '<meta charset="utf-8">',
            el("title", {}, t("redirect.title", lang)),
            '<meta name="robots" content="noindex">',
            el("link", {"rel": "canonical", "href": target}),
            f"<script>location.replace({json.dumps(target)} + location.search + location.hash)</script>",
            el("meta", {"http-equiv": "refresh", "content": f"0; url={target}"}),
            "</head>",
            '<body data-pagefind-ignore="all">',
            el("p", {}, t("redirect.body", lang), " ", el("a", {"href": target}, t("redirect.link", lang))),
            "</body>",
            "</html>",
            "",
        ]
    )


def nav_json(site: Site, lang: Lang) -> str:
    """The navigation the studysite plugin installs: the same few site-wide pages for every size of site.

    Banks and questions are not in it. Material writes the whole navigation into every page, so a
    bank section per bank made each page grow with the corpus (175 KB a question page at 5,000
    questions, 154 KB of it sidebar links). Bank pages list their questions, the home page lists the
    banks, and on bank and question pages the sidebar shows the bank's questions from the bank's own
    small script (`bank_nav_js`), which the browser fetches once per bank and caches.
    """
    nav: list[object] = [{t("nav.home", lang): "index.md"}, {t("nav.tags", lang): "tags.md"}]
    if site.glossary:
        nav.append({t("nav.glossary", lang): "glossary.md"})
    nav.append({t("nav.review", lang): "study/review.md"})
    nav.append({t("nav.mock", lang): "study/mock.md"})
    nav.append({t("nav.stats", lang): "study/stats.md"})
    return json.dumps(nav, ensure_ascii=False, indent=1) + "\n"


def _page_url(path: str) -> str:
    """A page's URL relative to its language root (`review.md` -> `review/`)."""
    return path.removesuffix("index.md").removesuffix(".md") + ("/" if not path.endswith("index.md") else "")


BANK_NAV = "nav.js"
"""In each bank's folder: the bank's title and questions for the sidebar (overrides/assets/qa/banknav.js)."""


def bank_nav_js(site: Site, bank: BankInfo, lang: Lang) -> str:
    """The bank's question list as a script: slugs and plain-text titles, in bank order."""
    items = [[slug, site.entries[slug].text[lang].text] for slug in bank.slugs]
    data = {"title": bank.titles[lang], "items": items}
    return "window.qaBankNav = " + json.dumps(data, ensure_ascii=False, separators=(",", ":")) + ";\n"


def _long_title(text: str) -> bool:
    """A title too long for a phone's heading size (reader.css sets it smaller there): wider than
    LONG_TITLE columns, a Chinese character counting two."""
    return sum(2 if ord(c) > 0x2E7F else 1 for c in text) > LONG_TITLE


def _pager(site: Site, entry: Entry, bank: BankInfo, lang: Lang) -> str:
    # The entry's index is its place in the bank; a search for it would make the site quadratic.
    i = entry.index if bank.slugs[entry.index : entry.index + 1] == (entry.slug,) else bank.slugs.index(entry.slug)
    parts = []
    if i > 0:
        prev = site.entries[bank.slugs[i - 1]]
        direction = el("span", {"class": "qa-pager__dir"}, "← ", t("question.prev", lang))
        title = el("span", {"class": "qa-pager__title"}, prev.text[lang].text)
        attrs = {"class": "qa-pager__prev", "href": f"../{prev.slug}/", "rel": "prev", "data-qa-key": "prev"}
        parts.append(el("a", attrs, direction, title))
    if i + 1 < len(bank.slugs):
        nxt = site.entries[bank.slugs[i + 1]]
        direction = el("span", {"class": "qa-pager__dir"}, t("question.next", lang), " →")
        title = el("span", {"class": "qa-pager__title"}, nxt.text[lang].text)
        attrs = {"class": "qa-pager__next", "href": f"../{nxt.slug}/", "rel": "next", "data-qa-key": "next"}
        parts.append(el("a", attrs, direction, title))
    if not parts:
        return ""
    return el("nav", {"class": "qa-pager", "aria-label": t("question.pager", lang)}, *parts)


def _rel(source: Entry, target: Entry) -> str:
    return f"{target.slug}.md" if source.bank_id == target.bank_id else f"../{target.bank_id}/{target.slug}.md"


def _description(q: Question) -> str:
    return clip(" ".join(q.answer_lines))


def _gone_banks(site: Site) -> list[tuple[str, str]]:
    """Banks that published questions once but exist no more, each with where its page now leads:
    the bank that took most of its questions (banks merged), or the home page."""
    live = {b.id for b in site.banks}
    moved: dict[str, Counter[str]] = {}
    for stone in site.tombstones:
        if stone.bank_id not in live:
            counts = moved.setdefault(stone.bank_id, Counter())
            if stone.moved_to:
                counts[stone.moved_to.split("/", 1)[0]] += 1
    out = []
    for bank_id, counts in sorted(moved.items()):
        best = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        out.append((bank_id, f"../{best[0][0]}/" if best else "../"))
    return out


def _home_takeaway(site: Site, lang: Lang) -> list[str]:
    """The home page's glossary link and the first HOME_BANKS banks' decks, CSV and print edition
    (each bank's page has its own: a block per bank made the home page grow with the site, 213 KB at
    100 banks)."""
    lines = []
    if site.glossary:
        lines += [f"[{md_text(t('home.glossary', lang, n=len(site.glossary)))}](glossary.md)", ""]
    lines += [f"## {md_text(t('home.downloads', lang))} {{ #downloads }}", ""]
    for bank in site.banks[: listings.HOME_BANKS]:
        lines += [f"### {md_text(bank.titles[lang])}", ""]
        lines += [downloads.bank_block(bank, lang, downloads.site_root(lang, 0), f"{bank.id}/"), ""]
    if len(site.banks) > listings.HOME_BANKS:
        more = t("home.downloads.more", lang, n=len(site.banks) - listings.HOME_BANKS)
        lines += [el("p", {"class": "qa-downloads__more"}, more), ""]
    return lines


def _tag_downloads(site: Site, lang: Lang) -> list[str]:
    """The tags page's decks: one per tag that has questions (the listing above is Material's)."""
    counts = {tag.id: 0 for tag in site.tags}
    for entry in site.entries.values():
        for tag_id in entry.tags:
            counts[tag_id] += 1
    used = [(tag, counts[tag.id]) for tag in site.tags if counts[tag.id]]
    if not used:
        return []
    return [
        f"## {md_text(t('downloads.tags.title', lang))} {{ #downloads }}",
        "",
        downloads.tag_block(used, lang, downloads.site_root(lang, 1)),
        "",
    ]


def _source_file(bank: BankInfo, lang: Lang, entry: Entry | None = None) -> str:
    """The bank file a `lang` page shows, as a path in the repository (untranslated: the Chinese one)."""
    if entry is not None and not entry.translated:
        lang = _BANK
    return "banks/" + os.path.basename(bank.source.get(lang, bank.source[_BANK]))


def _after_answer(entry: Entry, lang: Lang) -> list[str]:
    """Below the answer, outside the bank's text: the current Chinese when the English is stale, and
    our editor's note. Both carry `qa-with-answer`, which quiz mode hides with the answer."""
    out: list[str] = []
    if lang == _TRANSLATION and entry.stale:
        zh = entry.text[_BANK]
        notice = el("p", {"class": "qa-stale__notice", "lang": HTML_LANG[lang]}, t("translation.stale", lang))
        label = el("p", {"class": "qa-stale__label"}, t("translation.current", lang))
        current = el(
            "div",
            {"class": "qa-stale__zh", "lang": HTML_LANG[_BANK]},
            el("p", {"class": "qa-stale__q"}, zh.text),
            Markup("".join(answer_blocks_html(zh))),  # escaped by answer_blocks_html
        )
        stale = {"class": "qa-stale qa-with-answer", "data-pagefind-ignore": "all"}
        out.append(el("div", stale, notice, label, current))
    if entry.notes is not None:
        out.append(note_html(entry.notes, lang))
    return out


def _source_links(entry: Entry, bank: BankInfo, lang: Lang, repo_url: str, site_url: str = "") -> str:
    """Links to report an error (the repository's issue form, .github/ISSUE_TEMPLATE/report-error.yml,
    filled through its field ids) and to edit the source (the bank file at the question's line);
    nothing without a repository."""
    if not repo_url:
        return ""
    repo = repo_url.rstrip("/").removesuffix(".git")
    q = entry.text[lang]
    file = _source_file(bank, lang, entry)
    path = LANGUAGES[lang].root + f"{entry.bank_id}/{entry.slug}/"
    fields = {
        "template": REPORT_FORM,
        "title": f"[{entry.bank_id}/{entry.slug}] {q.text}",
        "question": q.text,
        "page": (site_url.rstrip("/") + "/" if site_url else "/") + path,
        "source": f"{file}:{q.line}",
        "language": t("question.report.language", lang),
    }
    issue = f"{repo}/issues/new?" + urlencode(fields, quote_via=quote)
    edit = f"{repo}/blob/main/{quote(file)}#L{q.line}"
    report = el("a", {"class": "qa-actions__report", "href": issue, **_NEW_TAB}, t("question.report", lang))
    edit_link = el("a", {"class": "qa-actions__edit", "href": edit, **_NEW_TAB}, t("question.edit", lang, line=q.line))
    actions = {"class": "qa-actions", "role": "group", "aria-label": t("question.actions", lang)}
    return el("p", actions, report, edit_link)


def _home_study(lang: Lang) -> list[str]:
    """The home page's study section: what self-testing offers, the progress panel, the mock interview."""
    return [
        f"## {md_text(t('home.study', lang))} {{ #study }}",
        "",
        md_text(t("home.study.intro", lang)),
        "",
        '<div class="qa-progress" data-qa-progress="home"></div>',
        "",
        f"{md_text(t('home.mock.about', lang))}",
        "",
        f"[{md_text(t('home.mock', lang))}](study/mock.md){{ .md-button .md-button--primary }}",
        "",
        '<div class="qa-backup" data-qa-backup></div>',
        "",
    ]


def _home_offline(lang: Lang) -> list[str]:
    """The home page's offline section: the browser copy, and the zip (studysite/offline.py builds both)."""
    zip_link = el("a", {"href": f"{site_root(lang, 0)}{ZIP_PATH}", "download": True}, t("home.offline.zip", lang))
    # the slot is markup (studysite/site/offline.py fills it in), the text around it is not
    about = escape(t("home.offline.zip.about", lang, size="{size}")).format(size=ZIP_SIZE_SLOT)
    return [
        f"## {md_text(t('home.offline', lang))} {{ #offline }}",
        "",
        # class qa-offline-browser: the zip's copy leaves out this promise of the browser's own copy
        el("p", {"class": "qa-offline-browser"}, t("home.offline.intro", lang)),
        "",
        offline_control(lang, ["site", f"lang:{lang}"]),
        "",
        # class qa-download: the zip's own copy of this page replaces it with how to serve the folder
        el("p", {"class": "qa-download"}, zip_link, Markup(about)),
        "",
    ]


def _tag_name(site: Site, tag_id: str, lang: Lang) -> str:
    return next(tag.name(lang) for tag in site.tags if tag.id == tag_id)


_NEW_TAB = {"target": "_blank", "rel": "noopener"}
_BANK = LANGUAGES.bank.lang
"""The language the banks are written in."""
_TRANSLATION = LANGUAGES.translation.lang if LANGUAGES.translation else None
"""The language with its own translated files (its pages say when a question is not translated yet)."""
_SAFE_URL = re.compile(r"(?:\.\./)+(?:[a-z0-9-]+/)*")


def _field(text: str) -> bytes:
    """`text` as one field of a key's part: its length, then its bytes (no text can pass for two)."""
    data = text.encode("utf-8")
    return len(data).to_bytes(4, "little") + data
