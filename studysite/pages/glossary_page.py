"""The glossary page of one language: every term with both names, both definitions, and the questions
that use it, in the order of a jump list (English terms by letter, Chinese ones by the pinyin initial
of their first character), with a filter box (overrides/assets/qa/glossary.js). Each term shows its
first few questions and links to the rest on the term's own pages, so the page stays the same size as
the banks grow. A pure function of (Site, language), like render.py."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby

from .. import cache
from ..cache import Memo
from ..i18n import t
from ..languages import LANGUAGES
from ..model import GlossaryTerm, Lang, Site
from ..sources.glossary import term_uses
from .listings import PREVIEW, term_pages, term_preview
from .markup import el, front_matter, md_text

GLOSSARY_PATH = "glossary.md"
"""The page, relative to a language's docs folder (/glossary/ and /en/glossary/)."""


def glossary_uses(
    site: Site, lang: Lang, memo: Memo = cache.NULL, known: cache.Digests | None = None
) -> dict[str, tuple[str, ...]]:
    """Term id -> the questions that use it (as shown in `lang`), banks in order (each bank's from `memo`
    where an earlier build found them for the same texts: `term_uses`)."""
    return term_uses(
        site.glossary, [[site.entries[slug] for slug in bank.slugs] for bank in site.banks], lang, memo, known
    )


def glossary_order(glossary: tuple[GlossaryTerm, ...], lang: Lang) -> list[tuple[str, str]]:
    """(term id, jump-list group) of every term, in the page's order: by group, then name (pinyin for
    Chinese names: pypinyin, whose import alone took 0.15 s of a generation)."""
    ordered = sorted(glossary, key=lambda term: (jump_key(term, lang), _sort_name(term, lang)))
    return [(term.id, jump_key(term, lang)) for term in ordered]


def glossary_page(
    site: Site,
    lang: Lang,
    uses: dict[str, tuple[str, ...]] | None = None,
    order: list[tuple[str, str]] | None = None,
) -> str:
    """Terms by jump-list group, then name; each an `h2` whose anchor is the term id (`glossary/#kv-cache`).
    `uses`: glossary_uses, `order`: glossary_order (each computed here when not given)."""
    others = [LANGUAGES.beside(lang)]
    uses = glossary_uses(site, lang) if uses is None else uses
    order = glossary_order(site.glossary, lang) if order is None else order
    n = len(site.glossary)
    # No table of contents: Material writes it twice (sidebar and phone menu), a link per term, 24 KB of
    # the page's 113 KB at 5,000 questions; the jump list and the filter box find a term instead.
    lines = front_matter(title=t("glossary.title", lang), description=t("home.glossary", lang, n=n), hide=["toc"])
    lines += [f"# {md_text(t('glossary.title', lang))}", "", md_text(t("glossary.intro", lang, n=n)), ""]
    by_id = {term.id: term for term in site.glossary}
    ordered = [by_id[term_id] for term_id, _ in order]
    groups = [(key, [term_id for term_id, _ in pairs]) for key, pairs in groupby(order, key=lambda pair: pair[1])]
    lines += [_tools(groups, lang), ""]
    firsts = {ids[0]: key for key, ids in groups}
    for term in ordered:
        if term.id in firsts:
            key = firsts[term.id]
            lines += [el("p", {"class": "qa-gl-letter", "id": _group_id(key), "aria-hidden": "true"}, key), ""]
        lines += [f"## {md_text(term.names[lang])} {{ #{term.id} }}", ""]
        body = ['<div class="qa-term">']
        for other in others:
            if term.names[other] != term.names[lang]:
                label = el("span", {"class": "qa-term__label"}, t("glossary.other_name", lang))
                name = el("span", {"lang": other}, term.names[other])
                body.append(el("p", {"class": "qa-term__other"}, label, " ", name))
        body.append(el("p", {"class": "qa-term__def"}, term.definitions[lang]))
        for other in others:
            body.append(el("p", {"class": "qa-term__def qa-term__def--other", "lang": other}, term.definitions[other]))
        body.append("</div>")
        lines += ["\n".join(body), ""]
        slugs = uses[term.id]
        if not slugs:
            lines += [el("p", {"class": "qa-term__uses"}, t("glossary.unused", lang)), ""]
            continue
        lines += [el("p", {"class": "qa-term__uses"}, t("glossary.used_in", lang)), ""]
        lines += term_preview(site, term.id, slugs, lang)
    return "\n".join(lines)


def glossary_term_pages(
    site: Site, lang: Lang, uses: dict[str, tuple[str, ...]], only: GlossaryTerm | None = None
) -> Iterator[tuple[str, str]]:
    """(docs path, Markdown) of every page of each term's full list (or `only` that term's), for the
    terms that have more questions than the glossary page shows (studysite/pages/listings.py pages them)."""
    for term in site.glossary if only is None else (only,):
        if len(uses[term.id]) > PREVIEW:
            yield from term_pages(site, term.id, term.names[lang], uses[term.id], lang)


def jump_key(term: GlossaryTerm, lang: Lang) -> str:
    """The jump-list group of a term: the first letter of its name (English), or of the pinyin of its
    first character (Chinese; a name that starts with a Latin letter, such as "KV Cache", by that letter);
    "#" for a digit or anything else."""
    first = term.names[lang].strip()[:1]
    if LANGUAGES.base(lang) == _PINYIN and first and not first.isascii():
        from pypinyin import Style, lazy_pinyin  # here: its import is 0.2 s, in every build process

        first = lazy_pinyin(first, style=Style.FIRST_LETTER, errors="ignore")[0][:1] if first else ""
    first = first.upper()
    return first if "A" <= first <= "Z" else "#"


def _sort_name(term: GlossaryTerm, lang: Lang) -> str:
    name = term.names[lang]
    if LANGUAGES.base(lang) != _PINYIN:
        return name.casefold()
    from pypinyin import lazy_pinyin

    return " ".join(lazy_pinyin(name)).casefold()


_PINYIN = LANGUAGES.bank.lang
"""Names in the banks' language (Chinese) and its conversions sort and group by their pinyin."""


def _group_id(key: str) -> str:
    return "gl-" + ("num" if key == "#" else key.lower())


def _tools(groups: list[tuple[str, list[str]]], lang: Lang) -> str:
    """The filter box (shown by glossary.js; without JavaScript the page reads whole) and the jump list."""
    count = t("glossary.count", lang, n="{n}", total="{total}")  # glossary.js fills in the numbers
    status = el(
        "span",
        {"class": "qa-gl-count", "role": "status", "data-qa-count": count, "data-qa-none": t("glossary.none", lang)},
    )
    search = el("input", {"type": "search", "id": "qa-gl-filter", "autocomplete": "off", "spellcheck": "false"})
    filter_box = el(
        "p",
        {"class": "qa-gl-filter", "hidden": True},
        el("label", {"for": "qa-gl-filter"}, t("glossary.filter", lang)),
        search,
        status,
    )
    links = [el("a", {"href": f"#{_group_id(key)}"}, key) for key, _ in groups]
    return el(
        "div",
        {"class": "qa-gl-tools"},
        filter_box,
        el("nav", {"class": "qa-gl-jump", "aria-label": t("glossary.jump", lang)}, *links),
    )
