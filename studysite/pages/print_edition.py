"""The print edition of each bank: every question, answer and tag, with a table of contents.

Pure functions of (Site, language), like render.py. The page (/<bank>/print/, /en/<bank>/print/) is
styled for paper by overrides/assets/qa/print.css; scripts/build_pdf.py prints it to a PDF.
A bank too long for one page of bounded size (issue 18: no page grows with the corpus) is split
into parts of at most PART_BYTES of bank text: part 1 at print/, part k at print/k/, each with its
own contents and the pager of studysite/listings.py. The split is the same in both languages (it
weighs both), so each part has its counterpart. Questions keep the bank's numbering across parts,
and the PDF is the whole bank: studysite/pdf.py appends parts 2.. to part 1 before printing.
Bank text is escaped raw HTML, as on the question pages. The answers deliberately do not use the
question pages' `qa-answer` markup: that marks a page as the one home of a question.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..i18n import t
from ..languages import LANGUAGES
from ..model import BankInfo, Block, Entry, Lang, ListBlock, Site
from ..sources.notes import note_html
from . import downloads, listings
from .answer import answer_blocks_html, bilingual_source, bilingual_toggle
from .markup import Page, el, front_matter, start_tag

PRINT_FOLDER = "print"
"""The print page of bank B is B/print.md (/B/print/ and /en/B/print/); part k is B/print/k.md."""
PART_BYTES = 80_000
"""Bank text (UTF-8 bytes, of both languages when translated: every page carries both for the
side-by-side view) one part holds at most; a question larger than that is a part on its own.
Measured: a part's HTML is about 20 KB of page plus 0.7 of its weight, so at most about 76 KB."""
_BLOCK_BYTES = 120
"""Markup a block of an answer adds to its text, for weighing."""


def print_pages(site: Site, lang: Lang, only: BankInfo | None = None) -> Iterator[Page]:
    """Every bank's print edition (or `only` that bank's), its parts in order."""
    for bank in site.banks if only is None else (only,):
        parts = print_parts(site, bank.id)
        pages = _part_pages(bank.id, len(parts))
        for k in range(1, len(parts) + 1):
            yield Page(f"{bank.id}/{pages[k - 1].path}", print_page(site, bank.id, lang, parts, k))


def print_parts(site: Site, bank_id: str) -> list[list[str]]:
    """The bank's slugs in parts of at most PART_BYTES of text, in bank order (the same in both languages)."""
    parts: list[list[str]] = [[]]
    size = 0
    for slug in site.bank(bank_id).slugs:
        weight = _weight(site.entries[slug])
        if parts[-1] and size + weight > PART_BYTES:
            parts.append([])
            size = 0
        parts[-1].append(slug)
        size += weight
    return parts


def print_page(site: Site, bank_id: str, lang: Lang, parts: list[list[str]] | None = None, k: int = 1) -> str:
    """Part k (1-based) of the bank's print edition; `parts` as print_parts gives them."""
    bank = site.bank(bank_id)
    parts = parts if parts is not None else print_parts(site, bank_id)
    slugs = parts[k - 1]
    first = 1 + sum(len(part) for part in parts[: k - 1])
    pages = _part_pages(bank.id, len(parts))
    title = t("print.title", lang, bank=bank.titles[lang])
    shown = title if len(parts) == 1 else f"{title} · {t('print.part', lang, n=k, total=len(parts))}"
    lines = front_matter(title=shown, hide=["navigation", "toc"], search={"exclude": True})
    sep = t("punct.sep", lang)
    bank_href = "../" if k == 1 else "../../"  # the bank's page, from B/print/ or B/print/k/
    pdf = downloads.site_root(lang, 2 if k == 1 else 3) + downloads.bank_pdf(bank.id, lang)
    # Search leaves the page out: the heading is inside the ignored part too (the questions have pages).
    print_attrs = {"class": "qa-print", "data-qa-print": bank.id, "data-qa-print-part": f"{k}/{len(parts)}"}
    out: list[str] = [start_tag("div", {**print_attrs, "data-qa-print-title": title, "data-pagefind-ignore": "all"})]
    out.append(el("h1", {"id": PRINT_FOLDER}, shown))
    out.append(el("p", {"class": "qa-print__intro"}, t("print.intro", lang, n=len(bank.slugs))))
    if len(parts) > 1:
        part = t("print.part.intro", lang, first=first, last=first + len(slugs) - 1, n=len(bank.slugs))
        out.append(el("p", {"class": "qa-print__part"}, part))
    # On screen only: the way back, and the PDF once scripts/build_pdf.py has made it.
    pdf_link = el("span", {downloads.PDF_ATTR: pdf}, t("downloads.pdf", lang))
    back = el("a", {"href": bank_href}, t("print.back", lang))
    out.append(
        el("p", {"class": "qa-print__screen"}, back, el("span", {"class": "qa-pdf", "hidden": True}, sep, pdf_link))
    )
    # On paper only: how many questions, and where the online edition is (build_pdf.py makes it absolute).
    online = el("a", {"class": "qa-print__online", "href": bank_href}, bank.titles[lang])
    count = t("print.count", lang, n=len(bank.slugs))
    out.append(
        el("p", {"class": "qa-print__meta"}, count, sep, t("print.online", lang), t("punct.colon", lang), online)
    )
    # On screen, and then on paper too: the side-by-side view, as on the question pages.
    out.append(bilingual_toggle(lang))
    out.append(start_tag("nav", {"class": "qa-print__toc", "aria-labelledby": f"qa-print-toc-{lang}"}))
    out.append(el("h2", {"id": f"qa-print-toc-{lang}"}, t("print.toc", lang)))
    out.append(start_tag("ol", {"start": first if first > 1 else None}))
    for n, slug in enumerate(slugs, start=first):
        out.append(el("li", {}, el("a", {"href": f"#q-{n}"}, site.entries[slug].text[lang].text)))
    out.append("</ol>")
    out.append("</nav>")
    tag_names = {tag.id: tag.name(lang) for tag in site.tags}
    for n, slug in enumerate(slugs, start=first):
        entry = site.entries[slug]
        q = entry.text[lang]
        shown_in = None if entry.translated or lang != LANGUAGES.translation_code else LANGUAGES.bank.html_lang
        out.append(
            start_tag("section", {"class": "qa-print__q", "id": f"q-{n}", "data-qa-slug": slug, "lang": shown_in})
        )
        number = el("span", {"class": "qa-print__num"}, f"{n}.")
        out.append(el("h2", {"class": "qa-print__title"}, number, " ", q.text))
        if entry.tags:
            names = t("punct.sep", lang).join(tag_names[tag_id] for tag_id in entry.tags)
            label = el("span", {"class": "qa-print__label"}, t("print.tags", lang), t("punct.colon", lang))
            out.append(el("p", {"class": "qa-print__tags"}, label, names))
        out.append(start_tag("div", {"class": "qa-print__answer", "id": f"q-{n}-answer"}))
        out.extend(answer_blocks_html(q))
        out.append("</div>")
        out.append(bilingual_source(entry, lang, f"q-{n}-answer"))
        if entry.notes is not None:  # ours, in a box marked as such; follow-ups with their answers
            out.append(note_html(entry.notes, lang, quiz=False))
        out.append("</section>")
    if len(parts) > 1:  # one pager, where a part's reading ends (two would be two landmarks of one name)
        out.append(listings.pager(pages, k, lang))
    out.append("</div>")
    lines += ["\n".join(out), ""]
    return "\n".join(lines)


def _part_pages(bank_id: str, total: int) -> list[listings.ListPage]:
    """Part 1 at B/print/, part k at B/print/k/ (paths and URLs relative to the bank's folder)."""
    first = listings.ListPage(f"{PRINT_FOLDER}.md", f"{bank_id}/{PRINT_FOLDER}/")
    rest = [listings.ListPage(f"{PRINT_FOLDER}/{k}.md", f"{bank_id}/{PRINT_FOLDER}/{k}/") for k in range(2, total + 1)]
    return [first, *rest]


def _weight(entry: Entry) -> int:
    """What a question adds to a part: its text in both languages, its note, and its blocks' markup."""
    size = 0
    # the written languages (converted ones split where their source does); untranslated, the Chinese once
    for lang in LANGUAGES.written if entry.translated else LANGUAGES.written[:1]:
        q = entry.text[lang]
        size += len(q.text.encode()) + sum(_block_bytes(block) for block in q.blocks)
        if entry.notes is not None:
            size += sum(len(p.encode()) for p in entry.notes.text.get(lang, ()))
        if entry.notes is not None:
            size += sum(len(f.question[lang].encode()) + len(f.answer[lang].encode()) for f in entry.notes.followups)
    return size


def _block_bytes(block: Block) -> int:
    if isinstance(block, ListBlock):
        return sum(len(item.text.encode()) + _BLOCK_BYTES for item in block.items)
    return len(block.text.encode()) + _BLOCK_BYTES
