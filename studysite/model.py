"""The typed, immutable model every stage passes on: banks, questions, answer blocks, tags."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property

from .languages import LANGUAGES

Lang = str
"""A language code of the table (mkdocs.yml `extra.qa.languages`, studysite/languages.py)."""
LANGS: tuple[Lang, ...] = LANGUAGES.codes
"""Every language of the table, the main one first."""


@dataclass(frozen=True)
class Paragraph:
    """A line of prose in an answer."""

    text: str
    """The text exactly as written in the bank."""
    line: int
    """Source line (1-based)."""


@dataclass(frozen=True)
class LeadIn:
    """A line ending in a colon that introduces the list right after it."""

    text: str
    """The text exactly as written, colon included."""
    line: int
    """Source line (1-based)."""


@dataclass(frozen=True)
class ListItem:
    """One list item; a wrapped item spans several source lines."""

    text: str
    """Item text without its marker; wrapped lines joined."""
    lines: tuple[int, ...]
    """Every source line the item was read from."""
    source: tuple[str, ...]
    """The item's source lines without the marker (for the nothing-lost check)."""


@dataclass(frozen=True)
class ListBlock:
    """A run of bullets (`- `) or numbered items (`1. `)."""

    ordered: bool
    """True for numbered items."""
    start: int
    """Number of the first item of an ordered list."""
    items: tuple[ListItem, ...]
    """The items, in order."""

    @property
    def line(self) -> int:
        return self.items[0].lines[0]


Block = Paragraph | LeadIn | ListBlock


@dataclass(frozen=True)
class Question:
    """One question and its answer, as parsed from one bank file."""

    text: str
    """The question, without its `Q:` marker."""
    blocks: tuple[Block, ...]
    """The answer, block by block."""
    line: int
    """Line of the `Q:` marker."""
    index: int
    """0-based position in its bank."""
    key: str = ""
    """In a translation file: the slug of the Chinese question it translates (its `@slug` line)."""
    pending: tuple[int, ...] = ()
    """In a translation file: lines still marked `[zh]` (not yet translated); empty when done."""

    # The texts below are derived from the fields, once per object: a generation asks for them ~55,000
    # times at 5,000 questions (links, glossary uses, hashes, in every language), and after an edit
    # all but one question are the objects of the last generation. They are left out of pickles
    # (`__getstate__`), so a question's cache digest and its stored form are its fields alone.

    @cached_property
    def answer_lines(self) -> tuple[str, ...]:
        """The answer as text, a line per paragraph, lead-in and list item (no list markers)."""
        lines: list[str] = []
        for block in self.blocks:
            if isinstance(block, ListBlock):
                lines.extend(item.text for item in block.items)
            else:
                lines.append(block.text)
        return tuple(lines)

    @cached_property
    def text_lines(self) -> tuple[str, ...]:
        """The question, then its answer_lines: every text line of it, what search, hashes and tags read."""
        return (self.text, *self.answer_lines)

    @cached_property
    def content_hash(self) -> str:
        """Hash of the question and its answer (`content_hash`)."""
        return hashlib.sha256("\n".join(self.text_lines).encode("utf-8")).hexdigest()[:12]

    def __getstate__(self) -> dict[str, object]:
        return {name: value for name, value in self.__dict__.items() if name not in _DERIVED}


_DERIVED = frozenset(("answer_lines", "text_lines", "content_hash"))
"""Question's cached derived texts (kept in its __dict__ once asked for, never pickled)."""


def content_hash(q: Question) -> str:
    """Hash of a question and its answer, so a reader's mark can tell that the text changed since."""
    return q.content_hash


def remember_content_hash(q: Question, found: str) -> None:
    """Give `q` the `content_hash` computed for an equal question before (kept with its parse in the
    cache), as if computed here."""
    q.__dict__["content_hash"] = found  # where cached_property keeps it


@dataclass(frozen=True)
class Bank:
    """One bank file in one language."""

    id: str
    """The file stem without language suffix (`ai-infra-3`); also the URL folder."""
    lang: Lang
    """Language of the text."""
    path: str
    """Path of the file, for messages."""
    title: str
    """The first non-empty line."""
    title_line: int
    """Line of the title."""
    questions: tuple[Question, ...]
    """Questions in file order."""

    @cached_property
    def keyed(self) -> bool:
        """Whether its questions carry `@slug` keys (a translation in the keyed format; else it goes by
        position). Computed once: asked for each question, a scan each time made a bank of n
        questions cost n² (a 20,000-question bank: 176 of 208 s of generation)."""
        return any(q.key for q in self.questions)


@dataclass(frozen=True)
class Tag:
    """A topic from the taxonomy."""

    id: str
    """ASCII identifier (`inference`)."""
    names: dict[Lang, str] = field(hash=False)
    """Display name per language."""
    keywords: tuple[str, ...]
    """Lower-cased strings whose presence in a question assigns the tag."""
    line: int
    """Line in the taxonomy file."""
    implies: tuple[str, ...] = ()
    """Ids of broader tags a question with this tag also gets."""

    def name(self, lang: Lang) -> str:
        return self.names[lang]


@dataclass(frozen=True)
class GlossaryTerm:
    """A field term with its name and definition in both languages."""

    id: str
    """ASCII identifier."""
    names: dict[Lang, str] = field(hash=False)
    """The term's name per language."""
    forms: dict[Lang, tuple[str, ...]] = field(hash=False)
    """Spellings that count as a use of the term, per language (the name included)."""
    definitions: dict[Lang, str] = field(hash=False)
    """One- or two-sentence definition per language."""
    line: int
    """Line in the glossary file."""


@dataclass(frozen=True)
class FollowUp:
    """A follow-up question (追问) with its short answer, in both languages."""

    question: dict[Lang, str] = field(hash=False)
    """The follow-up question per language."""
    answer: dict[Lang, str] = field(hash=False)
    """Its short answer per language."""


@dataclass(frozen=True)
class Reference:
    """A source a note relies on: a paper, an official document or a source file."""

    title: str
    """Its title as published."""
    url: str
    """An https:// address."""


@dataclass(frozen=True)
class EditorNote:
    """Our note on one question: a correction, an update or a caveat, follow-ups and references."""

    kind: str
    """`correction`, `update` or `caveat`."""
    text: dict[Lang, tuple[str, ...]] = field(hash=False)
    """The note's paragraphs per language (may be empty when the note only adds follow-ups)."""
    followups: tuple[FollowUp, ...]
    """Follow-up questions with short answers."""
    references: tuple[Reference, ...]
    """Sources, in the order given."""
    line: int
    """Line of the note in its notes file."""


@dataclass(frozen=True)
class Entry:
    """A question as published: its text in both languages plus everything enrichment adds."""

    slug: str
    """Stable ASCII slug, unique across banks; the URL in both languages and the Anki GUID seed."""
    bank_id: str
    """Id of the bank it belongs to."""
    index: int
    """Position in its bank."""
    text: dict[Lang, Question] = field(hash=False)
    """The question per language; `en` falls back to the Chinese when untranslated."""
    translated: bool
    """False when the English side is the Chinese text shown under a notice."""
    tags: tuple[str, ...]
    """Tag ids, in taxonomy order."""
    related: tuple[str, ...] = ()
    """Slugs of up to five related questions, best first."""
    content_hash: str = ""
    """Hash of the Chinese question and answer; tells a reader their mark predates an edit."""
    translates: str = ""
    """content_hash of the Chinese the English was written for; not content_hash when it is stale."""
    notes: EditorNote | None = None
    """Our editor's note on the question (never the bank's text), from banks/NAME.notes.yml."""

    @property
    def stale(self) -> bool:
        """The Chinese was edited after its English translation was written (or last reviewed)."""
        return self.translated and self.translates != self.content_hash

    @property
    def path(self) -> str:
        """Page path inside a language's docs folder."""
        return f"{self.bank_id}/{self.slug}.md"


@dataclass(frozen=True)
class BankInfo:
    """A bank as published: titles per language and its questions' slugs in order."""

    id: str
    """Bank id (file stem)."""
    titles: dict[Lang, str] = field(hash=False)
    """Title per language."""
    slugs: tuple[str, ...]
    """Its questions, in order."""
    translated: bool
    """Whether an English translation exists and aligned."""
    source: dict[Lang, str] = field(hash=False)
    """Source file path per language (English absent when untranslated)."""


@dataclass(frozen=True)
class Tombstone:
    """A URL that once published a question: now a redirect or a 'removed' page."""

    slug: str
    """The old slug."""
    bank_id: str
    """The bank it was in."""
    moved_to: str | None
    """Slug it redirects to, or None when the question was removed."""
    title: str
    """The question's last known Chinese text."""


@dataclass(frozen=True)
class Site:
    """Everything the renderer needs, in both languages."""

    banks: tuple[BankInfo, ...]
    """Banks in file-name order."""
    entries: dict[str, Entry] = field(hash=False)
    """Published questions by slug."""
    tags: tuple[Tag, ...]
    """The taxonomy, in file order."""
    glossary: tuple[GlossaryTerm, ...]
    """Glossary terms, in file order."""
    tombstones: tuple[Tombstone, ...]
    """Old URLs that must keep working."""
    inline_links: dict[Lang, dict[str, tuple[tuple[str, str], ...]]] = field(hash=False, default_factory=dict)
    """Per language and slug: (term, target slug) pairs whose first mention links to another question."""

    def bank(self, bank_id: str) -> BankInfo:
        """The bank with this id (KeyError when there is none)."""
        return self._banks_by_id[bank_id]

    @cached_property
    def _banks_by_id(self) -> dict[str, BankInfo]:
        # Built on first use (a page per question asks for its bank: a scan each would be quadratic).
        return {bank.id: bank for bank in self.banks}
