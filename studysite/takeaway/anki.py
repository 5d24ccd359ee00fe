"""Anki decks (.apkg, with genanki) and CSV files of every bank and tag, written after the site is built.

Re-importing a newer deck must update cards, never duplicate them. Anki recognises a note by its
GUID, so each note's GUID comes from the question's stable slug and the deck variant alone; deck and
note-type ids come from fixed names, never from chance. Anki updates an existing note only when the
imported one is newer, so notes carry the banks' modification time (or SOURCE_DATE_EPOCH) as their
`mod`: the same sources give byte-identical files, and an edited bank gives newer notes.
"""

from __future__ import annotations

import collections
import csv
import hashlib
import html
import io
import itertools
import os
import sqlite3
import zipfile
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import genanki

from .. import cache
from ..i18n import t
from ..languages import BANK_LANG, LANGUAGES, TRANSLATION_LANG
from ..model import Entry, Lang, ListBlock, Question, Site
from ..pages import downloads
from ..pages.answer import answer_blocks_html
from ..sources.glossary import text_lang
from ..sources.notes import note_html

MODEL_NAME = "AI Infra Q&A (studysite)"
"""The note type every deck uses; its id is derived from this name."""
FIELDS = ("Question", "Answer", "Tags", "Source")
"""Note fields, in order: question HTML, answer HTML, tag names, link to the question's page."""
CSV_COLUMNS = (
    "id",
    "bank",
    "tags",
    f"question_{BANK_LANG}",
    f"answer_{BANK_LANG}",
    f"question_{TRANSLATION_LANG}",
    f"answer_{TRANSLATION_LANG}",
    f"answer_{BANK_LANG}_html",
    f"answer_{TRANSLATION_LANG}_html",
    f"url_{BANK_LANG}",
    f"url_{TRANSLATION_LANG}",
)
"""One row per question: the bank language's and the translation's text (`question_zh`, `question_en`...),
as plain text (lists as `- ` lines) and as HTML."""


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


def write_decks(
    site: Site, site_dir: Path, site_url: str, timestamp: int, kept: cache.Files | None = None
) -> list[str]:
    """Write every deck and CSV file below `site_dir`; returns their paths relative to it.

    A question is in its bank's decks and in those of each of its tags, so its notes and CSV row are
    built once (`_Shared`) and reused. Zipping a deck (zlib, the largest part of the time, runs
    without the GIL) and writing the files happen in writer threads while the next deck is built.
    `kept`: the files a build made before, by the key of what each is made from (`_Shared.deck_key`,
    `csv_key`): a file whose key is there is placed, not made (at 5,000 questions the 702 files took
    0.4 s placed against 7.3 s made); the rest are made and kept for the next build.
    """
    shared = _Shared(site, site_url)
    kept = kept or cache.Files(None)
    written = []
    with _Background() as background:
        for spec in deck_specs(site):
            key = shared.deck_key(spec, timestamp) if kept.enabled else b""
            if not kept.place(key, site_dir / spec.path):
                collection = collection_bytes(build_deck(site, spec, site_url, shared), timestamp)
                background.run(_write_apkg, kept, key, site_dir / spec.path, collection)
            written.append(spec.path)
        for rel, slugs in csv_specs(site):
            key = shared.csv_key(rel, slugs) if kept.enabled else b""
            if not kept.place(key, site_dir / rel):
                background.run(_write_kept, kept, key, site_dir / rel, csv_bytes(site, slugs, site_url, shared))
            written.append(rel)
    kept.prune()
    return written


def deck_specs(site: Site) -> list[DeckSpec]:
    """Every deck: each bank and each tag with questions, in every variant."""
    tagged = _tag_slugs(site)
    specs = []
    for variant in downloads.VARIANTS:
        lang = _label_lang(variant)
        top = _deck_name(t(_BILINGUAL_DECK if variant in downloads.BILINGUAL else "anki.deck", lang))
        for bank in site.banks:
            name = f"{top}::{_deck_name(bank.titles[lang])}"
            specs.append(DeckSpec(f"bank:{bank.id}", variant, name, bank.slugs, downloads.bank_deck(bank.id, variant)))
        for tag in site.tags:
            slugs = tagged[tag.id]
            if slugs:
                name = f"{top}::{_deck_name(t('tags.title', lang))}::{_deck_name(tag.name(lang))}"
                specs.append(DeckSpec(f"tag:{tag.id}", variant, name, slugs, downloads.tag_deck(tag.id, variant)))
    return specs


def csv_specs(site: Site) -> list[tuple[str, tuple[str, ...]]]:
    """Every CSV file (path, questions): one per bank and per tag with questions."""
    tagged = _tag_slugs(site)
    specs = [(downloads.bank_csv(bank.id), bank.slugs) for bank in site.banks]
    specs += [(downloads.tag_csv(tag.id), tagged[tag.id]) for tag in site.tags if tagged[tag.id]]
    return specs


def build_deck(site: Site, spec: DeckSpec, site_url: str, shared: _Shared | None = None) -> genanki.Deck:
    shared = shared or _Shared(site, site_url)
    lang = _label_lang(spec.variant)
    deck = genanki.Deck(
        stable_id(f"deck {spec.key} {spec.variant}"),
        spec.name,
        description=html.escape(t("anki.description", lang, url=_absolute(site_url, ""))),
    )
    for slug in spec.slugs:
        deck.add_note(shared.note(slug, spec.variant))
    return deck


def build_note(site: Site, entry: Entry, variant: str, site_url: str, shared: _Shared | None = None) -> genanki.Note:
    """One question as a note of `variant`; its GUID depends on nothing but the slug and the variant."""
    shared = shared or _Shared(site, site_url)
    lang = _label_lang(variant)
    if variant in downloads.BILINGUAL:
        first, second = downloads.BILINGUAL[variant]
        langs: list[Lang] = [first, second] if entry.translated else [first]
    else:
        langs = [variant]
    question = "".join(_div(entry, other, html.escape(entry.text[other].text), i) for i, other in enumerate(langs))
    answer = '<hr class="qa-sep">'.join(
        _div(entry, other, shared.answer_html(entry, other) + _note(entry, other), i) for i, other in enumerate(langs)
    )
    names = shared.tag_names[lang]
    tag_line = t("punct.sep", lang).join(names[tag_id] for tag_id in entry.tags)
    tags = f"{html.escape(t('anki.tags', lang))}{html.escape(t('punct.colon', lang))}{html.escape(tag_line)}"
    sources = [
        f'<a href="{html.escape(page_url(site_url, entry, other))}">{html.escape(t("anki.source", other))}</a>'
        for other in langs
    ]
    return genanki.Note(
        model=shared.model,
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


def collection_bytes(deck: genanki.Deck, timestamp: int) -> bytes:
    """The deck as an Anki collection (`collection.anki2`), the bytes an SQLite file would hold.

    These are the bytes of genanki's `Package.write_to_db` (tests/test_takeaway.py compares them):
    genanki writes the schema, the collection, the deck and the note type; the note and card rows
    are the ones its `Note.write_to_db` inserts, in the same order, but inserted here, because
    genanki's per-note checks and look-ups, repeated for each deck a note is in, cost as much as
    SQLite itself. (Copying a prepared empty collection in with `deserialize` would save the
    schema statements, but a deserialized database stamps a change counter into its header.)
    """
    conn = sqlite3.connect(":memory:")  # in memory: a file would cost an fsync per statement
    try:
        cursor = conn.cursor()
        ids = itertools.count(timestamp * 1000)
        frame = genanki.Deck(deck.deck_id, deck.name, deck.description)
        for note in deck.notes:
            frame.add_model(note.model)
        genanki.Package(frame).write_to_db(cursor, timestamp, ids)  # schema, collection, deck, note types
        for note in deck.notes:
            note_id = next(ids)
            cursor.execute(
                _INSERT_NOTE,
                (
                    note_id,
                    note.guid,
                    note.model.model_id,
                    timestamp,
                    -1,
                    " " + " ".join(note.tags) + " ",
                    "\x1f".join(note.fields),
                    note.sort_field,
                    0,
                    0,
                    "",
                ),
            )
            for card in note.cards:
                queue = -1 if card.suspend else 0
                cursor.execute(
                    _INSERT_CARD,
                    (next(ids), note_id, deck.deck_id, card.ord, timestamp, -1, 0, queue, note.due, *_CARD_ZEROS, ""),
                )
        conn.commit()
        return conn.serialize()
    finally:
        conn.close()


def csv_bytes(site: Site, slugs: Iterable[str], site_url: str, shared: _Shared | None = None) -> bytes:
    """RFC 4180 CSV (comma, CRLF, fields with commas, quotes or line breaks quoted) in UTF-8 with a BOM.

    The BOM is what makes Excel, above all on Chinese Windows, read UTF-8 instead of the local code
    page; LibreOffice, Google Sheets, Anki and Python's `utf-8-sig` all skip it. Cells a spreadsheet
    would run as a formula are guarded (`spreadsheet_text`).
    """
    shared = shared or _Shared(site, site_url)
    return _BOM + shared.csv_header + b"".join(shared.csv_row(slug) for slug in slugs)


def spreadsheet_text(cell: str) -> str:
    """A CSV cell that spreadsheets show as text, never run as a formula (OWASP, CSV injection).

    Excel, LibreOffice and Google Sheets read a cell starting with `=`, `+`, `-`, `@`, a tab or a
    carriage return as a formula (`=HYPERLINK(...)`, DDE); a leading `'` makes them show it as
    text and is itself hidden.
    """
    return "'" + cell if cell.startswith(_FORMULA_START) else cell


def answer_text(q: Question) -> str:
    """An answer as plain text: one line per paragraph, `• ` or `1. ` before list items.

    A bullet rather than the bank's `- `: a cell starting with `-` is a formula to a spreadsheet
    (`spreadsheet_text` would have to prefix it with a visible `'` in every other tool).
    """
    lines = []
    for block in q.blocks:
        if isinstance(block, ListBlock):
            for n, item in enumerate(block.items, start=block.start):
                lines.append(f"{n}. {item.text}" if block.ordered else f"• {item.text}")
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


class _Shared:
    """What the decks and CSV files of one site have in common, each piece built once on first use:
    the note type, tag names, and per question its answer HTML, its notes and its CSV row."""

    def __init__(self, site: Site, site_url: str) -> None:
        self.site = site
        self.site_url = site_url
        self.model = note_model()  # one instance: genanki works out its required fields once per instance
        self.tag_names: dict[Lang, dict[str, str]] = {
            lang: {tag.id: tag.name(lang) for tag in site.tags} for lang in _LANG_PATH
        }
        self.csv_header = self._csv_line(CSV_COLUMNS)
        self._answers: dict[tuple[str, Lang], str] = {}
        self._notes: dict[tuple[str, str], genanki.Note] = {}
        self._rows: dict[str, bytes] = {}
        self._digests: dict[str, bytes] = {}
        self._names_digest = b""  # the tag names' digest, on the first deck_key

    def deck_key(self, spec: DeckSpec, timestamp: int) -> bytes:
        """The key of a deck's file: everything `build_deck` and `collection_bytes` read (the code and
        genanki's version aside, which cache.key and _GENANKI add), its questions by `entry_digest`."""
        parts = (spec.key, spec.variant, spec.name, spec.path, self.site_url, str(timestamp), _GENANKI)
        self._names_digest = self._names_digest or cache.digest(self.tag_names)
        return cache.key("anki deck", *parts, self._names_digest, *map(self.entry_digest, spec.slugs))

    def csv_key(self, rel: str, slugs: Iterable[str]) -> bytes:
        """The key of a CSV file: its path, the site's address and its questions (`csv_row` reads nothing else)."""
        return cache.key("csv", rel, self.site_url, *map(self.entry_digest, slugs))

    def entry_digest(self, slug: str) -> bytes:
        """A digest of every part of a question that its notes and CSV row show: not its related
        questions, which an edit elsewhere changes and no deck holds."""
        if slug not in self._digests:
            e = self.site.entries[slug]
            self._digests[slug] = cache.digest((e.slug, e.bank_id, e.index, e.text, e.translated, e.tags, e.notes))
        return self._digests[slug]

    def answer_html(self, entry: Entry, lang: Lang) -> str:
        key = (entry.slug, lang)
        if key not in self._answers:
            self._answers[key] = "\n".join(answer_blocks_html(entry.text[lang]))
        return self._answers[key]

    def note(self, slug: str, variant: str) -> genanki.Note:
        """The note of `slug` in `variant`; the same object in every deck (genanki writes it per deck)."""
        key = (slug, variant)
        if key not in self._notes:
            self._notes[key] = build_note(self.site, self.site.entries[slug], variant, self.site_url, self)
        return self._notes[key]

    def csv_row(self, slug: str) -> bytes:
        """The question's CSV record in UTF-8, line end included."""
        if slug not in self._rows:
            entry = self.site.entries[slug]
            zh, en = entry.text[BANK_LANG], entry.text[TRANSLATION_LANG] if entry.translated else None
            self._rows[slug] = self._csv_line(
                [
                    entry.slug,
                    entry.bank_id,
                    " ".join(entry.tags),
                    zh.text,
                    answer_text(zh),
                    en.text if en else "",
                    answer_text(en) if en else "",
                    self.answer_html(entry, BANK_LANG),
                    self.answer_html(entry, TRANSLATION_LANG) if en else "",
                    page_url(self.site_url, entry, BANK_LANG),
                    page_url(self.site_url, entry, TRANSLATION_LANG),
                ]
            )
        return self._rows[slug]

    @staticmethod
    def _csv_line(cells: Iterable[str]) -> bytes:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL).writerow(map(spreadsheet_text, cells))
        return buf.getvalue().encode("utf-8")


class _Background:
    """Runs writes in worker threads, at most a few queued, and re-raises their errors here."""

    def __enter__(self) -> _Background:
        self._pool = ThreadPoolExecutor(max_workers=_WRITERS, thread_name_prefix="studysite-downloads")
        self._pending: collections.deque[Future[None]] = collections.deque()
        return self

    def run(self, write: Callable[..., None], *args: Any, **kwargs: Any) -> None:
        self._pending.append(self._pool.submit(write, *args, **kwargs))
        while len(self._pending) > _QUEUED:  # bounds the memory held by waiting files
            self._pending.popleft().result()

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        try:
            while self._pending and exc_type is None:  # else the error under way is the one to see
                self._pending.popleft().result()
        finally:
            self._pool.shutdown(wait=True, cancel_futures=True)


def _tag_slugs(site: Site) -> dict[str, tuple[str, ...]]:
    """Each tag's questions, in bank order."""
    found: dict[str, list[str]] = {tag.id: [] for tag in site.tags}
    for bank in site.banks:
        for slug in bank.slugs:
            for tag_id in dict.fromkeys(site.entries[slug].tags):
                if tag_id in found:
                    found[tag_id].append(slug)
    return {tag_id: tuple(slugs) for tag_id, slugs in found.items()}


def _div(entry: Entry, lang: Lang, inner: str, position: int) -> str:
    shown = text_lang(entry, lang)
    css = ' class="qa-other"' if position else ""
    return f'<div{css} lang="{_HTML_LANG[shown]}">{inner}</div>'


def _note(entry: Entry, lang: Lang) -> str:
    """Our editor's note on the back side, below the answer (in the card's language)."""
    return "\n" + note_html(entry.notes, lang, quiz=False) if entry.notes is not None else ""


def _label_lang(variant: str) -> Lang:
    """The language of a deck's labels and names: its own, or a bilingual deck's first language's."""
    return downloads.BILINGUAL[variant][0] if variant in downloads.BILINGUAL else variant


def _deck_name(text: str) -> str:
    return text.replace("::", ":").strip()


def _absolute(site_url: str, path: str) -> str:
    root = site_url.rstrip("/") + "/" if site_url else "/"
    return root + path


def _write_apkg(kept: cache.Files, key: bytes, path: Path, collection: bytes) -> None:
    """Zip the collection into `path` (in a writer thread: zlib runs without the GIL), kept under `key`."""
    _write_kept(kept, key, path, _zip_collection(collection))


def _write_kept(kept: cache.Files, key: bytes, path: Path, data: bytes) -> None:
    _write_atomic(path, data)
    kept.keep(key, path)


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_bytes(data)
    tmp.replace(path)


def _zip_collection(collection: bytes) -> bytes:
    """The .apkg zip; its entries carry a fixed date (genanki's own writer stamps the temporary
    file's time), so two builds from the same sources give identical bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, content in (("collection.anki2", collection), ("media", b"{}")):
            info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, content)
    return out.getvalue()


_LANG_PATH: dict[Lang, str] = {item.lang: item.root for item in LANGUAGES.items}
_GENANKI = f"genanki {metadata.version('genanki')}"
"""genanki writes the collection's schema, deck and note type: its version is part of a deck's key."""
_HTML_LANG = {item.lang: item.html_lang for item in LANGUAGES.items}
_BILINGUAL_DECK = "anki.deck.zh-en"
"""The catalogue key of a bilingual deck's name (every bilingual variant's, in its first language)."""
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
_BOM = "\ufeff".encode()
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_WRITERS = 2
"""Writer threads: zlib compresses without the GIL, so two keep two cores busy when building waits."""
_QUEUED = 4
"""Files waiting for a writer thread before the builder waits for them."""
_INSERT_NOTE = "INSERT INTO notes VALUES(?,?,?,?,?,?,?,?,?,?,?);"
_INSERT_CARD = "INSERT INTO cards VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?);"
_CARD_ZEROS = (0,) * 8
"""A new card's ivl, factor, reps, lapses, left, odue, odid and flags."""
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
.qa-note { margin: 0.8em 0; padding: 0.4em 0.7em; border: 1px dashed #888; border-left: 4px solid #888; font-size: 0.92em; }
.qa-note__ours { display: block; font-size: 0.85em; color: #777; }
.qa-note__head { font-weight: 600; margin: 0.6em 0 0.2em; }
.qa-note__url { font-size: 0.85em; color: #777; }
hr.qa-sep { border: 0; border-top: 1px dashed #bbb; margin: 1em 0; }
.qa-meta { margin-top: 1.4em; font-size: 0.8em; color: #777; }
.qa-meta a { color: inherit; }
"""
