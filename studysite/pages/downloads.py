"""Where the take-away files live (Anki decks, CSV, PDF) and the link blocks pages show for them.

One place names every file, so the writers (anki.py, scripts/build_pdf.py) and the pages that link
to them (render.py, print_edition.py) cannot disagree. Every file goes into downloads/ at the site
root, shared by both languages (and left out of the offline copy, studysite/site/offline.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..i18n import t
from ..languages import LANGUAGES
from ..model import BankInfo, Lang, Tag
from .markup import Markup, el

FOLDER = "downloads"
"""Folder at the site root that holds every deck and CSV file."""


def _variants() -> tuple[tuple[str, ...], dict[str, tuple[str, str]]]:
    """Every language alone, then each non-translation language with the translation below it."""
    single = LANGUAGES.codes
    t_lang = LANGUAGES.translation_code or ""
    pairs = {f"{b}-{t_lang}": (b, t_lang) for b in single if t_lang and b != t_lang}
    return (*single, *pairs), pairs


VARIANTS, BILINGUAL = _variants()
"""Deck variants: each language alone, and bilingual ones (`zh-en`: the Chinese first, English below);
BILINGUAL maps a bilingual variant to its two languages."""


def page_variants(lang: Lang) -> tuple[str, ...]:
    """The decks a page of `lang` offers: its own language (the banks' on the translation's pages), the
    translation, and the two together (zh and en pages: zh, en, zh-en; zh-Hant pages: zh-Hant, en, zh-Hant-en)."""
    first = LANGUAGES.bank.lang if lang == LANGUAGES.translation_code else lang
    second = LANGUAGES.translation_code
    return (first, second, f"{first}-{second}") if second and second != first else (first,)


PDF_ATTR = "data-qa-pdf"
"""Attribute that holds a PDF's address until scripts/build_pdf.py has built it and turns it into `href`
(and adds `download`, which HTML allows only beside an `href`)."""


def bank_deck(bank_id: str, variant: str) -> str:
    """Path of a bank's deck, relative to the site root."""
    return f"{FOLDER}/{bank_id}.{variant}.apkg"


def bank_csv(bank_id: str) -> str:
    return f"{FOLDER}/{bank_id}.csv"


def tag_deck(tag_id: str, variant: str) -> str:
    return f"{FOLDER}/tags/{tag_id}.{variant}.apkg"


def tag_csv(tag_id: str) -> str:
    return f"{FOLDER}/tags/{tag_id}.csv"


def bank_pdf(bank_id: str, lang: Lang) -> str:
    """A bank's PDF edition in one language (scripts/build_pdf.py prints it from the print page)."""
    return f"{FOLDER}/{bank_id}.{lang}.pdf"


def site_root(lang: Lang, depth: int) -> str:
    """Relative path from a page `depth` folders below its language's root up to the site root."""
    return "../" * depth + _LANG_ROOT_TO_SITE_ROOT[lang]


def bank_block(bank: BankInfo, lang: Lang, root: str, bank_href: str) -> str:
    """Deck, CSV, print and (once built) PDF links for one bank; `root` leads to the site root and
    `bank_href` to the bank's page, both relative to the page the block is on."""
    decks = _join(
        _link(root + bank_deck(bank.id, v), t(f"downloads.variant.{v}", lang), download=True, hreflang=v)
        for v in page_variants(lang)
    )
    csv = _link(root + bank_csv(bank.id), t("downloads.csv.link", lang), download=True)
    pdf = root + bank_pdf(bank.id, lang)
    pdf_link = el("span", {PDF_ATTR: pdf}, t("downloads.pdf", lang))
    printed = _link(f"{bank_href}print/", t("downloads.print.page", lang)) + el(
        "span", {"class": "qa-pdf", "hidden": True}, t("punct.sep", lang), pdf_link
    )
    rows = [
        _row(t("downloads.anki", lang), decks),
        _row(t("downloads.csv", lang), csv),
        _row(t("downloads.print", lang), printed),
    ]
    hint = el("p", {"class": "qa-downloads__hint"}, t("downloads.hint", lang))
    return "\n".join(['<div class="qa-downloads">', *rows, hint, "</div>"])


def tag_block(tags: Iterable[tuple[Tag, int]], lang: Lang, root: str) -> str:
    """One line per tag (with its question count): its decks in every variant and its CSV."""
    items = []
    for tag, count in tags:
        decks = _join(
            _link(root + tag_deck(tag.id, v), t(f"downloads.variant.{v}", lang), download=True, hreflang=v)
            for v in page_variants(lang)
        )
        csv = _link(root + tag_csv(tag.id), "CSV", download=True)
        n = t("home.count.one" if count == 1 else "home.count", lang, n=count)
        label = el("span", {"class": "qa-downloads__label"}, tag.name(lang))
        links = el("span", {"class": "qa-downloads__links"}, decks, t("punct.sep", lang), csv)
        items.append(el("li", {}, label, " ", el("span", {"class": "qa-downloads__count"}, n), " ", links))
    hint = el("p", {"class": "qa-downloads__hint"}, t("downloads.hint", lang))
    return "\n".join(['<div class="qa-downloads">', '<ul class="qa-downloads__tags">', *items, "</ul>", hint, "</div>"])


def _row(label: str, links: Markup) -> Markup:
    label_html = el("span", {"class": "qa-downloads__label"}, label)
    return el("p", {"class": "qa-downloads__row"}, label_html, " ", el("span", {"class": "qa-downloads__links"}, links))


def _link(href: str, text: str, *, download: bool = False, hreflang: str = "") -> Markup:
    return el("a", {"href": href, "download": download, "hreflang": _HREFLANG.get(hreflang)}, text)


def _join(links: Iterable[Markup]) -> Markup:
    return Markup(" · ").join(links)


_LANG_ROOT_TO_SITE_ROOT: dict[Lang, str] = {item.lang: "../" * item.root.count("/") for item in LANGUAGES.items}
_HREFLANG = {item.lang: item.hreflang for item in LANGUAGES.items}
