"""Pages for study mode: the question data the browser scripts read, the mock interview and stats pages.

Pure functions of (Site, language), like render.py. Progress itself lives in the reader's browser
(overrides/assets/qa/study-*.js); the build only publishes what every question is, where it is and
a hash of its text, so a mark made before an edit can be flagged.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

from ..i18n import t
from ..model import BankInfo, Lang, Site
from .listings import tag_url
from .markup import Page, el, front_matter, md_text

DATA_PATH = "assets/qa/questions.json"
"""Where each language's question data goes (relative to the language's docs folder)."""
MOCK_PATH = "study/mock.md"
"""The mock interview page."""
REVIEW_PATH = "study/review.md"
"""The daily review page."""
STATS_PATH = "study/stats.md"
"""The stats page: plots of the reader's reviews, notes search, progress link and QR code, GitHub sync."""
DATA_VERSION = 1
"""Bumped when the JSON's shape changes in a way the scripts must know about."""


def study_pages(site: Site, lang: Lang, bank_json: Callable[[BankInfo], str] | None = None) -> Iterator[Page]:
    """Every study-mode file of one language. `bank_json`: `bank_questions_json` of a bank in this
    language, or the same text from a cache (render.py's)."""
    yield Page(DATA_PATH, questions_json(site, lang, bank_json))
    yield Page(MOCK_PATH, mock_page(lang))
    yield Page(REVIEW_PATH, review_page(lang))
    yield Page(STATS_PATH, stats_page(lang))


def questions_json(site: Site, lang: Lang, bank_json: Callable[[BankInfo], str] | None = None) -> str:
    """Banks, tags and questions with URLs relative to the language root; compact, deterministic: what
    `json.dumps` writes of {"version", "lang", "banks", "tags", "questions"}, the questions' list
    joined from each bank's part (`bank_questions_json`, or `bank_json`, which may take it from a cache)."""
    used = {tag_id for entry in site.entries.values() for tag_id in entry.tags}
    head = {
        "version": DATA_VERSION,
        "lang": lang,
        "banks": [
            {"id": bank.id, "title": bank.titles[lang], "url": f"{bank.id}/", "count": len(bank.slugs)}
            for bank in site.banks
        ],
        "tags": [{"id": tag.id, "name": tag.name(lang), "url": tag_url(tag)} for tag in site.tags if tag.id in used],
    }
    part_of = bank_json or (lambda bank: bank_questions_json(site, bank, lang))
    parts = [part_of(bank) for bank in site.banks]
    questions = ",".join(part for part in parts if part)
    return _dumps(head)[:-1] + ',"questions":[' + questions + "]}\n"


def bank_questions_json(site: Site, bank: BankInfo, lang: Lang) -> str:
    """A bank's questions in the questions list of `questions_json`, comma-separated (empty: none)."""
    return ",".join(
        _dumps(
            {
                "slug": entry.slug,
                "bank": entry.bank_id,
                "title": entry.text[lang].text,
                "url": entry.path[: -len(".md")] + "/",
                "tags": list(entry.tags),
                "hash": entry.content_hash,
            }
        )
        for entry in (site.entries[slug] for slug in bank.slugs)
    )


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def review_page(lang: Lang) -> str:
    """The daily review: a heading, how it works, and the element study-review.js fills in."""
    return _study_page(lang, "review", '<div class="qa-review" id="qa-review" data-qa-review></div>')


def mock_page(lang: Lang) -> str:
    """The mock interview: a heading, how it works, and the element study-mock.js fills in."""
    return _study_page(lang, "mock", '<div class="qa-mock" id="qa-mock" data-qa-mock></div>')


def _study_page(lang: Lang, kind: str, widget: str) -> str:
    """A page of one study widget: title, intro, the widget's element, a note for readers without JS."""
    lines = [
        *front_matter(title=t(kind + ".title", lang), hide=["toc"]),
        f"# {md_text(t(kind + '.title', lang))}",
        "",
        md_text(t(kind + ".intro", lang)),
        "",
        widget,
        "",
        el("noscript", None, el("p", {"class": "qa-noscript"}, t(kind + ".noscript", lang))),
        "",
    ]
    return "\n".join(lines)


def stats_page(lang: Lang) -> str:
    """The stats page: one section per tool, each an element its script fills in (main.html loads the
    scripts only on this page). Headings and explanations are here so they read without JavaScript."""
    lines = [
        *front_matter(title=t("stats.title", lang), hide=["toc"]),
        f"# {md_text(t('stats.title', lang))}",
        "",
        md_text(t("stats.intro", lang)),
        "",
        '<div class="qa-stats" id="qa-stats" data-qa-stats></div>',
        "",
        f"## {md_text(t('stats.notes', lang))} {{ #notes }}",
        "",
        '<div class="qa-notes-search" data-qa-notes-search></div>',
        "",
        f"## {md_text(t('stats.move', lang))} {{ #move }}",
        "",
        md_text(t("stats.move.intro", lang)),
        "",
        '<div class="qa-move" data-qa-progress-link></div>',
        "",
        f"## {md_text(t('stats.sync', lang))} {{ #sync }}",
        "",
        md_text(t("stats.sync.intro", lang)),
        "",
        '<div class="qa-sync" data-qa-sync></div>',
        "",
        el("noscript", None, el("p", {"class": "qa-noscript"}, t("stats.noscript", lang))),
        "",
    ]
    return "\n".join(lines)
