"""The print edition of each bank: one page with a table of contents and every question, answer and tag.

Pure functions of (Site, language), like render.py. The page (/<bank>/print/, /en/<bank>/print/) is
styled for paper by overrides/assets/qa/print.css; scripts/build_pdf.py prints it to a PDF.
Bank text is escaped raw HTML, as on the question pages. The answers deliberately do not use the
question pages' `qa-answer` markup: that marks a page as the one home of a question.
"""

from __future__ import annotations

import html
from collections.abc import Iterator

from . import downloads
from .i18n import t
from .model import Lang, Site
from .notes import note_html
from .render import Page, _front_matter, answer_blocks_html, bilingual_source, bilingual_toggle

PRINT_FOLDER = "print"
"""The print page of bank B is B/print.md (/B/print/ and /en/B/print/)."""


def print_pages(site: Site, lang: Lang) -> Iterator[Page]:
    for bank in site.banks:
        yield Page(f"{bank.id}/{PRINT_FOLDER}.md", print_page(site, bank.id, lang))


def print_page(site: Site, bank_id: str, lang: Lang) -> str:
    bank = site.bank(bank_id)
    title = t("print.title", lang, bank=bank.titles[lang])
    lines = _front_matter(title=title, hide=["navigation", "toc"], search={"exclude": True})
    sep = html.escape(t("punct.sep", lang))
    pdf = downloads.site_root(lang, 2) + downloads.bank_pdf(bank.id, lang)
    # Search leaves the page out: the heading is inside the ignored part too (the questions have pages).
    out = [f'<div class="qa-print" data-qa-print="{bank.id}" data-pagefind-ignore="all">']
    out.append(f'<h1 id="{PRINT_FOLDER}">{html.escape(title)}</h1>')
    out.append(f'<p class="qa-print__intro">{html.escape(t("print.intro", lang, n=len(bank.slugs)))}</p>')
    # On screen only: the way back, and the PDF once scripts/build_pdf.py has made it.
    out.append(
        f'<p class="qa-print__screen"><a href="../">{html.escape(t("print.back", lang))}</a>'
        f'<span class="qa-pdf" hidden>{sep}<span {downloads.PDF_ATTR}="{html.escape(pdf)}">'
        f"{html.escape(t('downloads.pdf', lang))}</span></span></p>"
    )
    # On paper only: how many questions, and where the online edition is (build_pdf.py makes it absolute).
    out.append(
        f'<p class="qa-print__meta">{html.escape(t("print.count", lang, n=len(bank.slugs)))}{sep}'
        f"{html.escape(t('print.online', lang))}{html.escape(t('punct.colon', lang))}"
        f'<a class="qa-print__online" href="../">{html.escape(bank.titles[lang])}</a></p>'
    )
    # On screen, and then on paper too: the side-by-side view, as on the question pages.
    out.append(bilingual_toggle(lang))
    out.append(f'<nav class="qa-print__toc" aria-labelledby="qa-print-toc-{lang}">')
    out.append(f'<h2 id="qa-print-toc-{lang}">{html.escape(t("print.toc", lang))}</h2>')
    out.append("<ol>")
    for n, slug in enumerate(bank.slugs, start=1):
        out.append(f'<li><a href="#q-{n}">{html.escape(site.entries[slug].text[lang].text)}</a></li>')
    out.append("</ol>")
    out.append("</nav>")
    tag_names = {tag.id: tag.name(lang) for tag in site.tags}
    for n, slug in enumerate(bank.slugs, start=1):
        entry = site.entries[slug]
        q = entry.text[lang]
        shown_in = "" if entry.translated or lang == "zh" else ' lang="zh"'
        out.append(f'<section class="qa-print__q" id="q-{n}" data-qa-slug="{slug}"{shown_in}>')
        out.append(f'<h2 class="qa-print__title"><span class="qa-print__num">{n}.</span> {html.escape(q.text)}</h2>')
        if entry.tags:
            names = t("punct.sep", lang).join(tag_names[tag_id] for tag_id in entry.tags)
            out.append(
                f'<p class="qa-print__tags"><span class="qa-print__label">{html.escape(t("print.tags", lang))}'
                f"{html.escape(t('punct.colon', lang))}</span>{html.escape(names)}</p>"
            )
        out.append(f'<div class="qa-print__answer" id="q-{n}-answer">')
        out.extend(answer_blocks_html(q))
        out.append("</div>")
        out.append(bilingual_source(entry, lang, f"q-{n}-answer"))
        if entry.notes is not None:  # ours, in a box marked as such; follow-ups with their answers
            out.append(note_html(entry.notes, lang, quiz=False))
        out.append("</section>")
    out.append("</div>")
    lines += ["\n".join(out), ""]
    return "\n".join(lines)
