"""Lists of questions as bounded pages: a bank's, a tag's and a glossary term's questions, at most
PAGE_SIZE a page, so that no page grows with the corpus (issue 18). Pure functions of
(model, language) -> Markdown, like render.py.

Material's tags plugin can filter a listing by tag (`include`) and by folder (`scope`), but it cannot
page one: a tag of 1,500 questions would be one page of ~250 KB. So the tags index, the tag pages and
the chips' links are ours; the plugin still renders the chips (overrides/partials/tags.html links
each to its tag's page).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..i18n import t
from ..languages import LANGUAGES
from ..model import BankInfo, Entry, Lang, Site, Tag
from . import downloads
from .markup import clip, el, escape, front_matter, html_block, md_text, tag_anchor
from .offline_control import offline_control

PAGE_SIZE = 100
"""Questions on one page of a list; past it the list continues on page 2, 3, ..."""
PREVIEW = 3
"""Questions a glossary term shows on the glossary page before its "all N questions" link."""
PAGER_WINDOW = 2
"""Page numbers shown either side of the current one (plus the first and the last), so the pager stays
the same size however many pages a list has."""


@dataclass(frozen=True)
class ListPage:
    """One page of a list of questions."""

    path: str
    """Docs path, relative to the language folder."""
    url: str
    """Its URL relative to the language root (`tags/training/2/`)."""


def tag_url(tag: Tag) -> str:
    """A tag's page, relative to the language root: the same in both languages."""
    return f"tags/{tag.id}/"


def term_url(term_id: str) -> str:
    """A glossary term's full list of questions, relative to the language root."""
    return f"glossary/{term_id}/"


def tag_counts(site: Site) -> dict[str, list[Entry]]:
    """Each tag's questions, banks in order and each bank in its order (as the home page counts them)."""
    out: dict[str, list[Entry]] = {tag.id: [] for tag in site.tags}
    for bank in site.banks:
        for slug in bank.slugs:
            entry = site.entries[slug]
            for tag_id in entry.tags:
                out[tag_id].append(entry)
    return out


def bank_pages(site: Site, bank: BankInfo, lang: Lang) -> Iterator[tuple[str, str]]:
    """(docs path, Markdown) of each page of a bank's list: /<bank>/, then /<bank>/page/2/, ..."""
    pages = _pages(f"{bank.id}/index.md", f"{bank.id}/", f"{bank.id}/page/", len(bank.slugs))
    entries = [site.entries[slug] for slug in bank.slugs]
    n = len(entries)
    intro = t("bank.intro", lang, n=n)
    for k, page in enumerate(pages, start=1):
        extra = [el("div", {"class": "qa-progress", "data-qa-progress": "bank", "data-qa-bank": bank.id}), ""]
        if lang == LANGUAGES.translation_code and not bank.translated:
            extra += [el("p", {"class": "qa-untranslated"}, t("question.untranslated", lang)), ""]
        tail: list[str] = []
        if k == 1:
            tail = [f"## {md_text(t('downloads.title', lang))} {{ #downloads }}", ""]
            tail += [downloads.bank_block(bank, lang, downloads.site_root(lang, 1), ""), ""]
            tail += [f"## {md_text(t('home.offline', lang))} {{ #offline }}", ""]
            tail += [el("p", {"class": "qa-offline-browser"}, t("bank.offline.intro", lang)), ""]
            tail += [offline_control(lang, [f"bank:{lang}:{bank.id}"]), ""]
        yield (
            page.path,
            _list_page(
                pages,
                k,
                entries,
                lang,
                bank.titles[lang],
                f"{bank.titles[lang]} · {intro}",
                intro,
                extra,
                tail,
                qa_bank=bank.id,
            ),
        )


def tag_pages(site: Site, tag: Tag, entries: Sequence[Entry], lang: Lang) -> Iterator[tuple[str, str]]:
    """(docs path, Markdown) of each page of a tag's questions: /tags/<id>/, then /tags/<id>/2/, ..."""
    url = tag_url(tag)
    pages = _pages(f"tags/{tag.id}.md", url, url, len(entries))
    name = tag.name(lang)
    count = _count(len(entries), lang)
    progress = [el("div", {"class": "qa-progress", "data-qa-progress": "bank", "data-qa-tag": tag.id}), ""]
    up = [el("p", {"class": "qa-list-up"}, el("a", {"href": _href(url, "tags/")}, t("tags.all", lang))), ""]
    title = t("tag.title", lang, name=name)
    for k, page in enumerate(pages, start=1):
        yield page.path, _list_page(pages, k, entries, lang, title, f"{title} · {count}", count, progress, up)


def term_pages(site: Site, term_id: str, name: str, slugs: Sequence[str], lang: Lang) -> Iterator[tuple[str, str]]:
    """(docs path, Markdown) of each page of the questions that use a glossary term."""
    url = term_url(term_id)
    pages = _pages(f"glossary/{term_id}.md", url, url, len(slugs))
    entries = [site.entries[slug] for slug in slugs]
    count = _count(len(entries), lang)
    back = f"{_href(url, 'glossary/')}#{term_id}"
    up = [el("p", {"class": "qa-list-up"}, el("a", {"href": back}, t("glossary.back", lang, name=name))), ""]
    title = t("glossary.term_title", lang, name=name)
    for k, page in enumerate(pages, start=1):
        yield page.path, _list_page(pages, k, entries, lang, title, f"{title} · {count}", count, up, [])


BANKS_URL = "banks/"
"""Every bank, a page at a time, when the home page lists only the first HOME_BANKS."""
HOME_BANKS = 10
"""Banks the home page lists (and shows the downloads of); past them it links to the banks index."""


def home_banks(site: Site, lang: Lang) -> list[str]:
    """The home page's list of banks: the first HOME_BANKS, then a link to all of them."""
    lines = ['<ul class="qa-index">', *_bank_items(site.banks[:HOME_BANKS], "", lang), "</ul>", ""]
    if len(site.banks) > HOME_BANKS:
        more = t("home.banks.all", lang, n=len(site.banks))
        lines += [el("p", {"class": "qa-list-up"}, el("a", {"href": BANKS_URL}, more)), ""]
    return lines


def banks_index_pages(site: Site, lang: Lang) -> Iterator[tuple[str, str]]:
    """(docs path, Markdown) of each page of the banks index, /banks/ (only when the home page cannot
    list them all)."""
    if len(site.banks) <= HOME_BANKS:
        return
    pages = _pages("banks.md", BANKS_URL, BANKS_URL, len(site.banks))
    title = t("home.banks", lang)
    count = t("home.count.banks", lang, n=len(site.banks))
    progress = ['<div class="qa-progress" data-qa-progress="tags"></div>', ""]
    for k, page in enumerate(pages, start=1):
        yield page.path, _list_page(pages, k, [], lang, title, count, count, progress, [], banks=site.banks)


def tags_index(site: Site, lang: Lang, counts: dict[str, list[Entry]]) -> list[str]:
    """The tags index's list: each tag with its count, linking to its page. Each item keeps the anchor
    Material's listing gave the tag (`tags/#tag:训练`), so old links still land on it and lead on."""
    lines = ['<ul class="qa-index">']
    for tag in site.tags:
        n = len(counts[tag.id])
        if not n:
            continue
        anchor = "tag:" + tag_anchor(tag.name(lang))
        link = el("a", {"href": f"{tag.id}/"}, tag.name(lang))
        lines.append(str(el("li", {"id": anchor}, link, " ", el("span", {"class": "qa-count"}, _count(n, lang)))))
    lines += ["</ul>", ""]
    return lines


def term_preview(site: Site, term_id: str, slugs: Sequence[str], lang: Lang) -> list[str]:
    """A glossary term's first PREVIEW questions and, past them, a link to all of them (on its own pages)."""
    lines = ['<ul class="qa-term__list">']
    for slug in slugs[:PREVIEW]:
        entry = site.entries[slug]
        link = el("a", {"href": _href("glossary/", _question_url(entry))}, entry.text[lang].text)
        lines.append(str(el("li", None, link)))
    lines.append("</ul>")
    if len(slugs) > PREVIEW:
        more = el("a", {"href": f"{term_id}/"}, t("glossary.more", lang, n=len(slugs)))
        lines.append(str(el("p", {"class": "qa-term__more"}, more)))
    return ["\n".join(lines), ""]


def _pages(first: str, first_url: str, rest_url: str, n: int) -> list[ListPage]:
    """The pages of a list of n questions: the first at `first` (`first_url`), page k at `rest_url`k/."""
    total = max(1, -(-n // PAGE_SIZE))
    out = [ListPage(first, first_url)]
    for k in range(2, total + 1):
        url = f"{rest_url}{k}/"
        out.append(ListPage(url.removesuffix("/") + ".md", url))
    return out


def _list_page(
    pages: list[ListPage],
    k: int,
    entries: Sequence[Entry],
    lang: Lang,
    title: str,
    description: str,
    intro: str,
    before: list[str],
    after: list[str],
    banks: Sequence[BankInfo] = (),
    **meta: object,
) -> str:
    """Page k of a list of questions (or, given `banks`, of banks: the banks index)."""
    page = pages[k - 1]
    total = len(pages)
    label = t("list.page", lang, n=k, total=total)
    shown = title if total == 1 else f"{title} · {label}"
    lines = front_matter(title=shown, description=clip(description), **meta)
    lines += [f"# {md_text(title)}", "", md_text(intro + (t("punct.sep", lang) + label if total > 1 else "")), ""]
    lines += before
    start = (k - 1) * PAGE_SIZE
    attr = f' start="{start + 1}"' if start else ""
    if banks:
        lines += html_block(
            '<ul class="qa-index">', *_bank_items(banks[start : start + PAGE_SIZE], page.url, lang), "</ul>"
        )
    else:
        # _href's answer for a question outside the page's own first folder, without splitting two
        # paths per item (tag and glossary lists hold ~115,000 items at 5,000 questions); for the same
        # reason each item is an f-string with its one text escaped, not two `el` calls (measured: 0.14-0.24 s
        # against 0.9-1.2 s for 115,000 items).
        at = [p for p in page.url.split("/") if p]
        up = "../" * len(at) if "." not in at and ".." not in at else None
        items = [
            f'<li><a href="{href}">{escape(e.text[lang].text)}</a></li>'
            for e in entries[start : start + PAGE_SIZE]
            for href in (
                up + e.path[:-3] + "/"
                if up is not None and not (at and at[0] == e.bank_id)
                else _href(page.url, _question_url(e)),
            )
        ]
        lines += html_block('<div class="qa-bank-list">', f"<ol{attr}>", *items, "</ol>", "</div>")
    if total > 1:
        lines += html_block(pager(pages, k, lang))
    lines += after
    return "\n".join(lines)


def pager(pages: list[ListPage], k: int, lang: Lang) -> str:
    """First, previous, a window around the current page, next, last: the same size at any length."""
    here = pages[k - 1].url
    total = len(pages)
    shown = sorted({1, total, *range(max(1, k - PAGER_WINDOW), min(total, k + PAGER_WINDOW) + 1)})
    parts = []
    if k > 1:
        parts.append(el("a", {"href": _href(here, pages[k - 2].url), "rel": "prev"}, "← " + t("list.prev", lang)))
    last = 0
    for n in shown:
        if n > last + 1:
            parts.append(el("span", {"class": "qa-pages__gap", "aria-hidden": "true"}, "…"))
        if n == k:
            parts.append(el("span", {"aria-current": "page"}, n))
        else:
            aria = t("list.page", lang, n=n, total=total)
            parts.append(el("a", {"href": _href(here, pages[n - 1].url), "aria-label": aria}, n))
        last = n
    if k < total:
        parts.append(el("a", {"href": _href(here, pages[k].url), "rel": "next"}, t("list.next", lang) + " →"))
    return str(el("nav", {"class": "qa-pages", "aria-label": t("list.pages", lang)}, *parts))


def _bank_items(banks: Sequence[BankInfo], here: str, lang: Lang) -> list[str]:
    return [
        str(
            el(
                "li",
                None,
                el("a", {"href": _href(here, bank.id + "/")}, bank.titles[lang]),
                " ",
                el("span", {"class": "qa-count"}, _count(len(bank.slugs), lang)),
            )
        )
        for bank in banks
    ]


def _question_url(entry: Entry) -> str:
    return entry.path.removesuffix(".md") + "/"


def _href(here: str, there: str) -> str:
    """A link from the page at URL `here` to the page at `there` (both relative to the language root)."""
    to = [p for p in there.split("/") if p]
    at = [p for p in here.split("/") if p]
    if "." in to or ".." in to or "." in at or ".." in at:  # not a plain URL path: the general rule
        rel = posixpath.relpath(there.rstrip("/") or ".", here.rstrip("/") or ".")
        return "./" if rel == "." else rel + "/"
    # posixpath.relpath's answer for plain paths, without its abspath (a getcwd per call): it was a
    # fifth of the generator's time at 5,000 questions (114,000 links; measured by cProfile in gen18).
    same = 0
    for a, b in zip(to, at, strict=False):
        if a != b:
            break
        same += 1
    parts = [".."] * (len(at) - same) + to[same:]
    return "/".join(parts) + "/" if parts else "./"


def _count(n: int, lang: Lang) -> str:
    return t("home.count.one" if n == 1 else "home.count", lang, n=n)
