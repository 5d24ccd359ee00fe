"""Generated languages: the bank language's text converted with OpenCC (`source: converted` in the table).

Only prose is converted: code spans (`...`) and web addresses stay as written, and so do slugs (the
converted pages sit at the same paths under their own root). The site check (site/verify.py) converts
the bank files with the same function and looks for the result on the converted pages.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import replace

from ..languages import LANGUAGES, Language
from ..model import Bank, Block, EditorNote, FollowUp, GlossaryTerm, LeadIn, ListBlock, Paragraph, Question, Site


def converted_languages() -> tuple[Language, ...]:
    """The table's converted languages, in its order."""
    return tuple(item for item in LANGUAGES.items if item.source == "converted")


def convert_text(text: str, config: str) -> str:
    """`text` through OpenCC's `config` (`s2twp`), code spans and web addresses untouched."""
    if not text:
        return text
    converter = _converter(config)
    parts = _KEEP.split(text)
    return "".join(part if i % 2 else converter.convert(part) for i, part in enumerate(parts))


def convert_question(q: Question, config: str) -> Question:
    """The question and every block of its answer converted; lines, index and key kept."""
    return replace(q, text=convert_text(q.text, config), blocks=tuple(_block(b, config) for b in q.blocks))


def convert_bank(bank: Bank, item: Language) -> Bank:
    """A bank file as the converted language `item` shows it (for the site check)."""
    return replace(
        bank,
        lang=item.lang,
        title=convert_text(bank.title, item.opencc),
        questions=tuple(convert_question(q, item.opencc) for q in bank.questions),
    )


Converter = Callable[[str, str], str]
"""Converts a text with an OpenCC configuration: `convert_text`, or a cached way to its result."""


def add_converted(
    site: Site,
    question: Callable[[Question, str], Question] = convert_question,
    text: Converter = convert_text,
) -> Site:
    """The site model with every converted language's text beside the language it comes from.

    `question` converts one question (convert_question, or the generator's cached way to the same
    result: the questions are nearly all of the conversion's time), `text` every other text (bank
    titles, tag names, glossary terms, editor's notes, inline links' words)."""
    for item in converted_languages():
        site = _add(site, item, question, text)
    return site


def _add(site: Site, item: Language, question: Callable[[Question, str], Question], text: Converter) -> Site:
    lang, source, config = item.lang, item.convert_from, item.opencc

    def conv(words: str) -> str:
        return text(words, config)

    entries = {
        slug: replace(
            e,
            text={**e.text, lang: question(e.text[source], config)},
            notes=_note(e.notes, source, lang, conv) if e.notes is not None else None,
        )
        for slug, e in site.entries.items()
    }
    banks = tuple(
        replace(
            b,
            titles={**b.titles, lang: conv(b.titles[source])},
            source={**b.source, lang: b.source[source]},
        )
        for b in site.banks
    )
    tags = tuple(replace(t, names={**t.names, lang: conv(t.names[source])}) for t in site.tags)
    glossary = tuple(_term(term, source, lang, conv) for term in site.glossary)
    inline = {**site.inline_links, lang: _links(site.inline_links.get(source, {}), conv)}
    return replace(site, entries=entries, banks=banks, tags=tags, glossary=glossary, inline_links=inline)


def _block(block: Block, config: str) -> Block:
    if isinstance(block, (Paragraph, LeadIn)):
        return replace(block, text=convert_text(block.text, config))
    items = tuple(
        replace(i, text=convert_text(i.text, config), source=tuple(convert_text(s, config) for s in i.source))
        for i in block.items
    )
    return replace(block, items=items) if isinstance(block, ListBlock) else block


def _note(note: EditorNote, source: str, lang: str, conv: Callable[[str], str]) -> EditorNote:
    return replace(
        note,
        text={**note.text, lang: tuple(conv(p) for p in note.text.get(source, ()))},
        followups=tuple(
            FollowUp(
                question={**f.question, lang: conv(f.question[source])},
                answer={**f.answer, lang: conv(f.answer[source])},
            )
            for f in note.followups
        ),
    )


def _term(term: GlossaryTerm, source: str, lang: str, conv: Callable[[str], str]) -> GlossaryTerm:
    return replace(
        term,
        names={**term.names, lang: conv(term.names[source])},
        forms={**term.forms, lang: tuple(dict.fromkeys(conv(f) for f in term.forms[source]))},
        definitions={**term.definitions, lang: conv(term.definitions[source])},
    )


def _links(
    links: dict[str, tuple[tuple[str, str], ...]], conv: Callable[[str], str]
) -> dict[str, tuple[tuple[str, str], ...]]:
    return {slug: tuple((conv(term), target) for term, target in pairs) for slug, pairs in links.items()}


@functools.cache
def _converter(config: str):  # type: ignore[no-untyped-def]  # opencc has no type hints
    import opencc

    return opencc.OpenCC(config)


_KEEP = re.compile(r"(`[^`\n]*`|https?://[^\s)）\]】>\"']+)")
"""Code spans and web addresses: kept as written (split keeps them at the odd positions)."""
