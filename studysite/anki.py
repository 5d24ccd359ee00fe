"""Anki decks (.apkg, with genanki) and CSV files of every bank and tag, written after the site is built.

Re-importing a newer deck must update cards, never duplicate them. Anki recognises a note by its
GUID, so each note's GUID comes from the question's stable slug and the deck variant alone; deck and
note-type ids come from fixed names, never from chance. Anki updates an existing note only when the
imported one is newer, so notes carry the banks' modification time (or SOURCE_DATE_EPOCH) as their
`mod`: the same sources give byte-identical files, and an edited bank gives newer notes.
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import itertools
import os
import sqlite3
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import genanki

from . import downloads
from .i18n import t
from .model import Entry, Lang, ListBlock, Question, Site
from .render import answer_blocks_html

MODEL_NAME = "AI Infra Q&A (studysite)"
"""The note type every deck uses; its id is derived from this name."""
FIELDS = ("Question", "Answer", "Tags", "Source")
"""Note fields, in order: question HTML, answer HTML, tag names, link to the question's page."""
CSV_COLUMNS = (
    "id",
    "bank",
    "tags",
    "question_zh",
    "answer_zh",
    "question_en",
    "answer_en",
    "answer_zh_html",
    "answer_en_html",
    "url_zh",
    "url_en",
)
"""One row per question: both languages as plain text (lists as `- ` lines) and as HTML."""


@dataclass(frozen=True)
class DeckSpec:
    """One deck to write: which questions, in which variant, under which name and file."""

    key: str
    """Stable identity (`bank:ai-infra-3`, `tag:training`): the deck id is derived from it and the variant."""
    variant: str
    """`zh`, `en` or `zh-en` (Chinese with the English below)."""
    name: str
    """Deck name in Anki (`::` separates parent decks)."""
    slugs: tuple[str, ...]
    """Its questions, in order."""
    path: str
    """File path relative to the site root."""


def write_decks(site: Site, site_dir: Path, site_url: str, timestamp: int) -> list[str]:
    """Write every deck and CSV file below `site_dir`; returns their paths relative to it."""
    written = []
    for spec in deck_specs(site):
        _write_atomic(site_dir / spec.path, apkg_bytes(build_deck(site, spec, site_url), timestamp))
        written.append(spec.path)
    for rel, slugs in csv_specs(site):
        _write_atomic(site_dir / rel, csv_bytes(site, slugs, site_url))
        written.append(rel)
    return written


def deck_specs(site: Site) -> list[DeckSpec]:
    """Every deck: each bank and each tag with questions, in every variant."""
    specs = []
    for variant in downloads.VARIANTS:
        lang = _label_lang(variant)
        top = _deck_name(t("anki.deck.zh-en" if variant == "zh-en" else "anki.deck", lang))
        for bank in site.banks:
            name = f"{top}::{_deck_name(bank.titles[lang])}"
            specs.append(DeckSpec(f"bank:{bank.id}", variant, name, bank.slugs, downloads.bank_deck(bank.id, variant)))
        for tag in site.tags:
            slugs = _tag_slugs(site, tag.id)
            if slugs:
                name = f"{top}::{_deck_name(t('tags.title', lang))}::{_deck_name(tag.name(lang))}"
                specs.append(DeckSpec(f"tag:{tag.id}", variant, name, slugs, downloads.tag_deck(tag.id, variant)))
    return specs


def csv_specs(site: Site) -> list[tuple[str, tuple[str, ...]]]:
    """Every CSV file (path, questions): one per bank and per tag with questions."""
    specs = [(downloads.bank_csv(bank.id), bank.slugs) for bank in site.banks]
    specs += [(downloads.tag_csv(tag.id), _tag_slugs(site, tag.id)) for tag in site.tags if _tag_slugs(site, tag.id)]
    return specs


def build_deck(site: Site, spec: DeckSpec, site_url: str) -> genanki.Deck:
    lang = _label_lang(spec.variant)
    deck = genanki.Deck(
        stable_id(f"deck {spec.key} {spec.variant}"),
        spec.name,
        description=html.escape(t("anki.description", lang, url=_absolute(site_url, ""))),
    )
    for slug in spec.slugs:
        deck.add_note(build_note(site, site.entries[slug], spec.variant, site_url))
    return deck


def build_note(site: Site, entry: Entry, variant: str, site_url: str) -> genanki.Note:
    """One question as a note of `variant`; its GUID depends on nothing but the slug and the variant."""
    lang = _label_lang(variant)
    if variant == "zh-en":
        langs: list[Lang] = ["zh", "en"] if entry.translated else ["zh"]
    else:
        langs = [variant]  # type: ignore[list-item]
    question = "".join(_div(entry, other, html.escape(entry.text[other].text), i) for i, other in enumerate(langs))
    answer = '<hr class="qa-sep">'.join(
        _div(entry, other, "\n".join(answer_blocks_html(entry.text[other])), i) for i, other in enumerate(langs)
    )
    names = {tag.id: tag.name(lang) for tag in site.tags}
    tag_line = t("punct.sep", lang).join(names[tag_id] for tag_id in entry.tags)
    tags = f"{html.escape(t('anki.tags', lang))}{html.escape(t('punct.colon', lang))}{html.escape(tag_line)}"
    sources = [
        f'<a href="{html.escape(page_url(site_url, entry, other))}">{html.escape(t("anki.source", other))}</a>'
        for other in langs
    ]
    return genanki.Note(
        model=note_model(),
        fields=[question, answer, tags if entry.tags else "", " · ".join(sources)],
        tags=list(entry.tags),
        guid=genanki.guid_for(entry.slug, variant),
        due=entry.index,
    )


def note_model() -> genanki.Model:
    return genanki.Model(
        stable_id(MODEL_NAME),
        MODEL_NAME,
        fields=[{"name": name} for name in FIELDS],
        templates=[{"name": "Card 1", "qfmt": _FRONT, "afmt": _BACK}],
        css=_CSS,
    )


def apkg_bytes(deck: genanki.Deck, timestamp: int) -> bytes:
    """The deck as an .apkg: genanki's SQLite collection in a zip whose entries carry a fixed date.

    genanki's own writer stamps the zip with the temporary file's time; this one depends on its
    input only, so two builds from the same sources give identical bytes.
    """
    conn = sqlite3.connect(":memory:")  # in memory: a file would cost an fsync per schema statement
    try:
        genanki.Package(deck).write_to_db(conn.cursor(), timestamp, itertools.count(timestamp * 1000))
        conn.commit()
        data = conn.serialize()  # the same bytes a database file would hold
    finally:
        conn.close()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, content in (("collection.anki2", data), ("media", b"{}")):
            info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, content)
    return out.getvalue()


def csv_bytes(site: Site, slugs: Iterable[str], site_url: str) -> bytes:
    """RFC 4180 CSV (comma, CRLF, fields with commas, quotes or line breaks quoted) in UTF-8 with a BOM.

    The BOM is what makes Excel, above all on Chinese Windows, read UTF-8 instead of the local code
    page; LibreOffice, Google Sheets, Anki and Python's `utf-8-sig` all skip it.
    """
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(CSV_COLUMNS)
    for slug in slugs:
        entry = site.entries[slug]
        zh, en = entry.text["zh"], entry.text["en"] if entry.translated else None
        writer.writerow(
            [
                entry.slug,
                entry.bank_id,
                " ".join(entry.tags),
                zh.text,
                answer_text(zh),
                en.text if en else "",
                answer_text(en) if en else "",
                "\n".join(answer_blocks_html(zh)),
                "\n".join(answer_blocks_html(en)) if en else "",
                page_url(site_url, entry, "zh"),
                page_url(site_url, entry, "en"),
            ]
        )
    return buf.getvalue().encode("utf-8-sig")


def answer_text(q: Question) -> str:
    """An answer as plain text: one line per paragraph, `- ` or `1. ` before list items."""
    lines = []
    for block in q.blocks:
        if isinstance(block, ListBlock):
            for n, item in enumerate(block.items, start=block.start):
                lines.append(f"{n}. {item.text}" if block.ordered else f"- {item.text}")
        else:  # a paragraph or a lead-in
            lines.append(block.text)
    return "\n".join(lines)


def page_url(site_url: str, entry: Entry, lang: Lang) -> str:
    """The question page's address in `lang` (absolute when the site's address is known)."""
    return _absolute(site_url, f"{_LANG_PATH[lang]}{entry.bank_id}/{entry.slug}/")


def stable_id(name: str) -> int:
    """A deck or note-type id derived from a name: the same every build, in genanki's suggested range."""
    digest = int(hashlib.sha256(name.encode("utf-8")).hexdigest()[:15], 16)
    return (1 << 30) + digest % (1 << 30)


def source_date(paths: Iterable[Path]) -> int:
    """When the sources last changed: SOURCE_DATE_EPOCH if set, else the newest file's modification time."""
    env = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if env.isdigit():
        return int(env)
    times = [int(p.stat().st_mtime) for p in paths if p.exists()]
    return max(times, default=_EPOCH_FALLBACK)


def _tag_slugs(site: Site, tag_id: str) -> tuple[str, ...]:
    return tuple(slug for bank in site.banks for slug in bank.slugs if tag_id in site.entries[slug].tags)


def _div(entry: Entry, lang: Lang, inner: str, position: int) -> str:
    shown = lang if entry.translated else "zh"
    css = ' class="qa-other"' if position else ""
    return f'<div{css} lang="{shown}">{inner}</div>'


def _label_lang(variant: str) -> Lang:
    """The language of a deck's labels and names: English for the English deck, else Chinese."""
    return "en" if variant == "en" else "zh"


def _deck_name(text: str) -> str:
    return text.replace("::", ":").strip()


def _absolute(site_url: str, path: str) -> str:
    root = site_url.rstrip("/") + "/" if site_url else "/"
    return root + path


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_bytes(data)
    tmp.replace(path)


_LANG_PATH: dict[Lang, str] = {"zh": "", "en": "en/"}
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
_EPOCH_FALLBACK = 1_700_000_000
_FRONT = '<div class="qa-q">{{Question}}</div>'
_BACK = (
    '{{FrontSide}}\n<hr id="answer">\n<div class="qa-a">{{Answer}}</div>\n'
    '<div class="qa-meta">{{#Tags}}<div class="qa-tags">{{Tags}}</div>{{/Tags}}'
    '<div class="qa-src">{{Source}}</div></div>'
)
_CSS = """\
.card {
  font-family: -apple-system, "Segoe UI", "PingFang SC", "Noto Sans CJK SC", "Microsoft YaHei", sans-serif;
  font-size: 18px; line-height: 1.6; text-align: left; color: #1f1f1f; background: #fff;
  max-width: 42em; margin: 0 auto; padding: 0 0.6em;
}
.nightMode.card, .night_mode .card { color: #e3e3e3; background: #2c2c2e; }
.qa-q { font-weight: 600; font-size: 1.1em; }
.qa-other { color: #5f6368; margin-top: 0.5em; font-size: 0.95em; }
.nightMode .qa-other, .night_mode .qa-other { color: #b0b0b0; }
.qa-q .qa-other { font-weight: 500; }
.qa-lead { font-weight: 600; margin: 0.6em 0 0.2em; }
p { margin: 0.4em 0; }
ul, ol { margin: 0.3em 0 0.7em; padding-left: 1.4em; }
li { margin: 0.2em 0; }
hr.qa-sep { border: 0; border-top: 1px dashed #bbb; margin: 1em 0; }
.qa-meta { margin-top: 1.4em; font-size: 0.8em; color: #777; }
.qa-meta a { color: inherit; }
"""
