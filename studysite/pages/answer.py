"""An answer as HTML: its blocks with the text escaped, the first mentions of other questions' terms
linked and of glossary terms explained, and the side-by-side view's other language. The question
pages and the print editions show answers through it; takeaway/anki.py writes its cards' backs with it."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..enrich.links import MAX_MARKS_PER_ANSWER, MAX_MARKS_PER_PARAGRAPH, stands_alone
from ..i18n import t
from ..languages import LANGUAGES
from ..model import Entry, Lang, LeadIn, ListBlock, Paragraph, Question
from ..sources.glossary import TermFinder, tooltip
from .markup import HTML_LANG, el, escape


def answer_html(
    q: Question,
    slug: str,
    content_hash: str,
    links: dict[str, str],
    shown_in: Lang | None,
    terms: tuple[TermFinder, Lang] | None = None,
) -> str:
    """The answer as one raw HTML block: escaped text, real lists, first mentions linked.

    `shown_in` marks text in another language than the page (an untranslated answer). `terms` (a
    glossary finder for the text's language, and the page's language) marks each glossary term's
    first use with its translation and definition as a tooltip.
    """
    annotate = _Annotator(links, terms)
    attrs = f'class="qa-answer" id="qa-answer" data-qa-slug="{slug}" data-qa-hash="{content_hash}"'
    if shown_in:
        attrs += f' lang="{HTML_LANG[shown_in]}"'
    return "\n".join([f"<div {attrs}>", *answer_blocks_html(q, annotate), "</div>"])


def answer_blocks_html(q: Question, annotate: Callable[[str, int], str] | None = None) -> list[str]:
    """The answer's blocks as HTML lines (paragraphs, lead-ins, real lists), text through `annotate`
    (text, most marks it may get), or only escaped."""
    annotate = annotate or _plain
    out = []
    for block in q.blocks:
        if isinstance(block, Paragraph):
            out.append(f"<p>{annotate(block.text, MAX_MARKS_PER_PARAGRAPH)}</p>")
        elif isinstance(block, LeadIn):
            out.append(f'<p class="qa-lead">{annotate(block.text, MAX_MARKS_PER_PARAGRAPH)}</p>')
        elif isinstance(block, ListBlock):
            if block.ordered:
                start = f' start="{block.start}"' if block.start != 1 else ""
                out.append(f"<ol{start}>")
            else:
                out.append("<ul>")
            out.extend(f"<li>{annotate(item.text, 1)}</li>" for item in block.items)
            out.append("</ol>" if block.ordered else "</ul>")
    return out


def bilingual_toggle(lang: Lang) -> str:
    """The "side by side" switch (overrides/assets/qa/bilingual.js shows it; without JavaScript it stays hidden)."""
    button = el(
        "button", {"type": "button", "class": "qa-bi-toggle", "aria-pressed": "false"}, t("bilingual.toggle", lang)
    )
    status = el("span", {"class": "qa-bi-status", "role": "status", "data-qa-unsaved": t("bilingual.unsaved", lang)})
    return el("p", {"class": "qa-bi-bar", "hidden": True}, button, status)


def bilingual_source(entry: Entry, lang: Lang, answer_id: str) -> str:
    """The other language's answer, block for block, for the side-by-side view: hidden, left out of
    search, and outside the answer `<div>` (which holds only this page's language, so the built-site
    check reads each language on its own pages). bilingual.js puts each block under its original.

    An untranslated question ships a notice instead (on English pages the Chinese is already shown).
    """
    other: Lang = LANGUAGES.beside(lang)
    attrs = f'class="qa-bi-source" hidden data-pagefind-ignore="all" data-qa-bi-for="{answer_id}"'
    if not entry.translated:
        note = escape(t("bilingual.missing", lang))
        return f'<div {attrs} data-qa-bi-missing><p class="qa-bi-line qa-bi-missing">{note}</p></div>'
    blocks = answer_blocks_html(entry.text[other])
    return "\n".join([f'<div {attrs} lang="{HTML_LANG[other]}">', *blocks, "</div>"])


class _Annotator:
    """Escapes an answer's texts and marks a few whole terms in them: a link from a term to the
    question about it, or a glossary tooltip (translation and definition). The rule (whole terms,
    once per answer, a few per answer, links first) is in studysite/links.py's docstring."""

    def __init__(self, links: dict[str, str], terms: tuple[TermFinder, Lang] | None = None) -> None:
        self.pending = dict(links)
        self.terms = terms
        self.marked: set[str] = set()  # glossary terms already marked (or linked) in this answer
        self.budget = MAX_MARKS_PER_ANSWER

    def __call__(self, text: str, cap: int = MAX_MARKS_PER_PARAGRAPH) -> str:
        cap = min(cap, self.budget)
        if cap <= 0:
            return escape(text)
        # (start, end, html) of each candidate: first the links (they lead on), then the tooltips.
        chosen: list[tuple[int, int, str]] = []
        linked = sorted(self.pending, key=len, reverse=True)
        for start, term in _whole_terms(text, linked) if linked else ():
            if len(chosen) == cap:
                break
            end = start + len(term)
            if term not in self.pending or not stands_alone(text, start, end):  # linked earlier, or part of a name
                continue
            href = self.pending.pop(term)
            chosen.append((start, end, f'<a class="qa-xref" href="{escape(href)}">{escape(term)}</a>'))
            if self.terms is not None:  # a linked term is not explained again by a tooltip
                self.marked.update(used.id for _, _, used in self.terms[0].finditer(term))
        if self.terms is not None and len(chosen) < cap:
            finder, page_lang = self.terms
            for start, end, found in finder.finditer(text):
                if len(chosen) == cap:
                    break
                if found.id in self.marked or not stands_alone(text, start, end):
                    continue
                if any(start < b and a < end for a, b, _ in chosen):
                    continue
                self.marked.add(found.id)
                # tabindex: a phone has no hover; a tap focuses the term, and focus shows the tooltip too.
                chosen.append(
                    (
                        start,
                        end,
                        f'<abbr class="qa-term" title="{escape(tooltip(found, page_lang))}" tabindex="0">'
                        f"{escape(text[start:end])}</abbr>",
                    )
                )
        self.budget -= len(chosen)
        out, pos = [], 0
        for start, end, markup in sorted(chosen):
            out += [escape(text[pos:start]), markup]
            pos = end
        out.append(escape(text[pos:]))
        return "".join(out)


def _whole_terms(text: str, terms: list[str]) -> Iterator[tuple[int, str]]:
    """(start, term) of each mention of `terms` in `text` not inside a longer word, left to right, never
    overlapping; at one position the earlier term in `terms` wins.

    What a regex alternation of the terms between `(?<![A-Za-z0-9-])` and `(?![A-Za-z0-9-])` finds,
    without compiling a pattern for every answer (str.find does the searching).
    """
    pos = 0
    while True:
        found = [(at, k) for k, term in enumerate(terms) if (at := _find_whole(text, term, pos)) >= 0]
        if not found:
            return
        at, k = min(found)
        yield at, terms[k]
        pos = at + len(terms[k])


def _find_whole(text: str, term: str, pos: int) -> int:
    """The first mention of `term` at or after `pos` with no letter, digit or hyphen on either side; -1 if none."""
    at = text.find(term, pos)
    while at >= 0:
        end = at + len(term)
        if (at == 0 or text[at - 1] not in _WORD_CHARS) and (end == len(text) or text[end] not in _WORD_CHARS):
            return at
        at = text.find(term, at + 1)
    return -1


def _plain(text: str, cap: int) -> str:
    return escape(text)


_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-")
"""A linked term must not continue into one of these (it would be part of a longer name)."""
