"""Load the bilingual term base (banks/glossary.yml) and find where bank text uses its terms."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from .. import cache, parallel
from ..cache import MISSING, Memo
from ..errors import Problems
from ..i18n import t
from ..languages import LANGUAGES
from ..model import LANGS, Bank, Entry, GlossaryTerm, Lang
from .yamlfile import check_fields, load_yaml

MIN_FORM = 2
"""A spelling shorter than this would match inside ordinary words."""


def load_glossary(path: Path, problems: Problems) -> tuple[GlossaryTerm, ...]:
    """Validate the glossary file into GlossaryTerms; every malformed entry is reported with its line and field."""
    doc = load_yaml(path, problems)
    if doc is None:
        return ()
    if not isinstance(doc.value, dict):
        problems.error(path, doc.line, "glossary must be a mapping with a `terms:` list")
        return ()
    top = check_fields(doc, {"terms": tuple}, {"terms"}, path, "glossary", problems)
    if top is None:
        return ()
    terms: list[GlossaryTerm] = []
    seen: dict[tuple[str, str], int] = {}
    owners: dict[tuple[str, str], tuple[str, int]] = {}  # (language, spelling) -> (term id, line)
    for item in top["terms"].value:
        fields = check_fields(item, _FIELDS, _REQUIRED, path, "term", problems)
        if fields is None:
            continue
        term_id = fields["id"].value.strip()
        if not _ID.fullmatch(term_id):
            problems.error(
                path,
                fields["id"].line,
                f"term: field `id` must be lower-case ASCII letters, digits and hyphens (got {term_id!r})",
            )
            continue
        ok = True
        for key in ("id", *LANGUAGES.written):
            value = fields[key].value.strip().casefold()
            if (key, value) in seen:
                problems.error(path, fields[key].line, f"term: {key} {value!r} already used at line {seen[key, value]}")
                ok = False
            seen[key, value] = fields[key].line
        names = {lang: fields[lang].value.strip() for lang in LANGUAGES.written}
        forms: dict[Lang, tuple[str, ...]] = {}
        for lang in LANGUAGES.written:
            extra = fields.get(f"{lang}_forms")
            spellings = [names[lang]] + [f.value.strip() for f in (extra.value if extra else [])]
            for spelling in spellings:
                where = extra.line if extra and spelling != names[lang] else fields[lang].line
                if len(spelling) < MIN_FORM:
                    problems.error(path, where, f"term: {lang} spelling {spelling!r} is too short to find reliably")
                    ok = False
                owner, owner_line = owners.setdefault((lang, spelling.casefold()), (term_id, item.line))
                if owner != term_id:
                    problems.error(
                        path,
                        where,
                        f"term: {lang} spelling {spelling!r} already belongs to the term at line {owner_line}",
                    )
                    ok = False
            forms[lang] = tuple(dict.fromkeys(spellings))
        if not ok:
            continue
        definitions = {lang: " ".join(fields[f"{lang}_def"].value.split()) for lang in LANGUAGES.written}
        terms.append(GlossaryTerm(term_id, names, forms, definitions, item.line))
    return tuple(terms)


def warn_unused(
    glossary: tuple[GlossaryTerm, ...],
    banks: Iterable[Bank],
    path: Path,
    problems: Problems,
    memo: Memo = cache.NULL,
    digests: Mapping[str, tuple[bytes, ...]] | None = None,
    *,
    fork_from: int | None = None,
) -> UnusedCheck:
    """A term that no question uses, in either language, is a warning at the term's line.

    The terms a bank's questions use are kept in `memo` by the glossary and its questions' digests
    (`digests`, by the bank's path: build.load_sources computes them with the parse) and taken from it
    by the next build: after an edit one bank's questions are searched again (looking up each question's
    text took 0.14 s at 5,000 questions). Without its digests, each question's terms are kept by its text.

    Without `fork_from` the check is done when this returns. With it, when the banks `memo` does not
    hold have at least that many questions (and a fork is safe), they are searched by a forked side
    process while the caller goes on (a cold generation at 5,000 questions: ~0.5 s of the read phase,
    while the second core was idle), and the check is done by the returned UnusedCheck's `finish`,
    which the caller calls before it reports any problem.
    """
    check = UnusedCheck(glossary, list(banks), path, problems, memo, digests, fork_from)
    if fork_from is None:
        check.finish()
    return check


class UnusedCheck:
    """`warn_unused`'s check, begun (see there) and finished by `finish`; `cancel` stops its side process."""

    def __init__(
        self,
        glossary: tuple[GlossaryTerm, ...],
        banks: list[Bank],
        path: Path,
        problems: Problems,
        memo: Memo,
        digests: Mapping[str, tuple[bytes, ...]] | None,
        fork_from: int | None,
    ) -> None:
        self._glossary, self._path, self._problems, self._memo = glossary, path, problems, memo
        self._at = len(problems.warnings)  # where its warnings go: before those of later stages, as if made now
        self._terms = cache.digest(glossary) if memo.enabled else b""
        self._used: set[str] = set()
        self._todo: list[tuple[Bank, bytes, list[str]]] = []  # (bank, its key in memo or b"", its texts)
        for bank in banks:
            named = digests.get(bank.path) if digests is not None and memo.enabled else None
            key = memo.key("bank-terms", bank.lang, self._terms, *named) if named is not None else b""
            found = memo.get(key) if key else MISSING
            if found is MISSING:
                self._todo.append((bank, key, ["\n".join(q.text_lines) for q in bank.questions]))
            else:
                self._used.update(found)
        searched = sum(len(texts) for _, _, texts in self._todo)
        self._forked = fork_from is not None and searched >= fork_from and parallel.can_fork()
        self._side: parallel.Side[list[list[frozenset[str]]]] | None = parallel.Side(self._search, fork=self._forked)

    def _search(self) -> list[list[frozenset[str]]]:
        """Each question's terms, bank by bank (in a forked child, `memo` is only read: its new entries
        are made by `finish`, here)."""
        found = []
        for bank, _, texts in self._todo:
            finder = term_finder(self._glossary, bank.lang)  # once a bank: the lookup hashes every term
            found.append([_term_ids(finder, text, self._memo) for text in texts])
        return found

    def finish(self) -> None:
        """Collect the search (once), and put a warning for each unused term in its place."""
        if self._side is None:
            return
        found_by_bank, self._side = self._side.result(), None
        for (bank, key, texts), found in zip(self._todo, found_by_bank, strict=True):
            if self._forked:  # what the child found, taken as if found here (`_term_ids`)
                finder = term_finder(self._glossary, bank.lang)
                for text, ids in zip(texts, found, strict=True):
                    finder.remember(text, ids)
                    if self._memo.enabled:
                        text_key = finder.memo_key(self._memo, text)
                        if not self._memo.holds(text_key):
                            self._memo.put(text_key, ids)
            in_bank = frozenset().union(*found)
            if key:
                self._memo.put(key, in_bank)
            self._used.update(in_bank)
        unused = Problems()
        for term in self._glossary:
            if term.id not in self._used:
                unused.warn(
                    self._path,
                    term.line,
                    f"glossary term `{term.id}` is used by no question: remove it or add the spelling the banks "
                    f"use to {' / '.join(f'`{lang}_forms`' for lang in LANGUAGES.written)}",
                )
        self._problems.warnings[self._at : self._at] = unused.warnings
        self._todo = []  # the texts are not needed any more

    def cancel(self) -> None:
        if self._side is not None:
            self._side.cancel()
            self._side = None


def term_uses(
    glossary: tuple[GlossaryTerm, ...],
    groups: Iterable[Sequence[Entry]],
    lang: Lang,
    memo: Memo = cache.NULL,
    known: cache.Digests | None = None,
) -> dict[str, tuple[str, ...]]:
    """Term id -> slugs of the questions whose text (as shown in `lang`) uses it, in the order given
    (`groups`: each bank's questions, banks in order). With `memo` and `known`, a group's terms are
    kept there by its questions' texts (their digests in `known`) and taken from it by the next build:
    after an edit, one bank's questions are searched, not 5,000 (each looked up in `memo` by its text
    took ~0.06 s a language). A text's terms are kept by the text too (`_term_ids`: a generated
    language's texts are not among those `warn_unused` looked at)."""
    uses: dict[str, list[str]] = {term.id: [] for term in glossary}
    finders = {text: term_finder(glossary, text) for text in LANGS}  # looked up once: the key hashes every term
    terms = cache.digest(glossary) if memo.enabled else b""

    def used_by(e: Entry) -> tuple[str, ...]:
        return tuple(sorted(_term_ids(finders[text_lang(e, lang)], "\n".join(e.text[lang].text_lines), memo)))

    for group in groups:
        key = b""
        if memo.enabled and known is not None:
            parts = [part for e in group for part in (e.slug, text_lang(e, lang), known.of(e.text[lang]))]
            key = memo.key("term-uses", lang, terms, *parts)
        found = memo.get(key) if key else MISSING
        if found is MISSING:
            found = tuple((e.slug, used_by(e)) for e in group)
            if key:
                memo.put(key, found)
        for slug, term_ids in found:
            for term_id in term_ids:
                uses[term_id].append(slug)
    return {term_id: tuple(slugs) for term_id, slugs in uses.items()}


def _term_ids(finder: TermFinder, text: str, memo: Memo) -> frozenset[str]:
    """`finder.term_ids(text)`; with `memo`, kept there by the finder's spellings and the text
    (`TermFinder.memo_key`), and taken from it by the next build."""
    if not memo.enabled or finder.knows(text):
        return finder.term_ids(text)
    key = finder.memo_key(memo, text)
    ids = memo.get(key)
    if ids is MISSING:
        return memo.put(key, finder.term_ids(text))
    finder.remember(text, ids)
    return ids


def text_lang(entry: Entry, lang: Lang) -> Lang:
    """The language of the text a `lang` page shows: Chinese on English pages of an untranslated question."""
    return LANGUAGES.bank.lang if not entry.translated and LANGUAGES[lang].source == "translation" else lang


def tooltip(term: GlossaryTerm, lang: Lang) -> str:
    """The tooltip text for a `lang` page: the term's names (this language first) and its definition."""
    names = list(dict.fromkeys([term.names[lang], term.names[LANGUAGES.beside(lang)]]))
    return f"{' · '.join(names)}{t('punct.colon', lang)}{term.definitions[lang]}"


class TermFinder:
    """Finds the spellings of glossary terms in text of one language: longest spelling first, whole ASCII words."""

    def __init__(self, glossary: tuple[GlossaryTerm, ...], lang: Lang) -> None:
        self.lang = lang
        self.spelled = tuple((term.id, tuple(term.forms[lang])) for term in glossary)
        """What it finds by: each term's id and its spellings in `lang`, in the glossary's order."""
        # What it found in each text, shared with every finder of the same spellings: the site's glossary
        # has the generated languages' names beside those of the glossary file, and a page's finder of
        # it finds the same ids in a Chinese or English text as the check for unused terms did with
        # the file's (a cold generation at 5,000 questions searched each of those 10,000 texts twice).
        self._ids = _ids_found_by(self.spelled)
        self._key: bytes | None = None
        self.by_form: dict[str, GlossaryTerm] = {}
        for term in glossary:
            for form in term.forms[lang]:
                self.by_form.setdefault(form.casefold(), term)
        spellings = [
            next(f for f in self.by_form[form].forms[lang] if f.casefold() == form)
            for form in sorted(self.by_form, key=lambda f: (-len(f), f))
        ]
        # A use can only start at one of these characters (at a word start, for a spelling that
        # starts with an ASCII letter or digit). One alternation of every spelling would be tried
        # spelling by spelling at each such position; instead each character gets the spellings
        # that can start with it, in the same order, and the search jumps from one to the next.
        firsts = {c for form in self.by_form for c in (form[0], form[0].upper(), form[0].lower())}
        # Each character's pattern is compiled on first use: most pages use few of them, and compiling
        # all (hundreds of alternations) cost more than a small site's whole generation.
        self._spellings: dict[str, list[str]] = {}
        self._compiled: dict[str, re.Pattern[str]] = {}
        start_of = {f: (f[0], _has_lower(f)) for f in spellings}
        starts = set(start_of.values())
        word_starts = []  # characters all of whose spellings must begin a word
        for c in sorted(firsts):
            can = {key for key in starts if _can_start(key, c)}
            mine = [f for f in spellings if start_of[f] in can]
            if mine:
                self._spellings[c] = mine
            if mine and all(_is_word_char(f[0]) for f in mine):
                word_starts.append(c)
        anywhere = [c for c in sorted(firsts) if c in self._spellings and c not in word_starts]
        branches = [f"(?<![A-Za-z0-9])[{_chars(word_starts)}]"] if word_starts else []
        branches += [f"[{_chars(anywhere)}]"] if anywhere else []
        self.lead = re.compile(f"(?=[{_chars(firsts)}])(?:{'|'.join(branches)})") if branches else None

    def finditer(self, text: str) -> Iterator[tuple[int, int, GlossaryTerm]]:
        """(start, end, term) of every use, left to right, never overlapping."""
        if self.lead is None:
            return
        pos = 0
        while (lead := self.lead.search(text, pos)) is not None:
            start = lead.start()
            pattern = self._pattern(text[start])
            found = pattern.match(text, start) if pattern is not None else None
            if found is None:
                pos = start + 1
                continue
            yield start, found.end(), self.by_form[found.group(0).casefold()]
            pos = found.end()

    def term_ids(self, text: str) -> frozenset[str]:
        """The ids of the terms `text` uses. Remembered per text: the check for unused terms and both
        languages' glossary pages ask about the same question texts (three searches of 5,000 answers)."""
        found = self._ids.get(text)
        if found is None:
            found = self._ids[text] = frozenset(term.id for _, _, term in self.finditer(text))
        return found

    def knows(self, text: str) -> bool:
        """`term_ids(text)` is already known (asked before, or remembered)."""
        return text in self._ids

    def remember(self, text: str, ids: frozenset[str]) -> None:
        """Take `ids` as what `term_ids(text)` returns (found by an earlier build with the same glossary
        and code, studysite/cache.py)."""
        self._ids[text] = ids

    def memo_key(self, memo: Memo, text: str) -> bytes:
        """The key `term_ids(text)` is kept under in a cache: of the spellings it finds by, and the text."""
        if self._key is None:
            self._key = cache.digest(self.spelled)
        return memo.key("term-ids", self._key, text)

    def _pattern(self, char: str) -> re.Pattern[str] | None:
        pattern = self._compiled.get(char)
        if pattern is None and char in self._spellings:
            pattern = self._compiled[char] = re.compile("|".join(map(_form_pattern, self._spellings[char])))
        return pattern


@functools.lru_cache(maxsize=16)
def term_finder(glossary: tuple[GlossaryTerm, ...], lang: Lang) -> TermFinder:
    """The (cached) finder for a glossary and a language: one compiled pattern serves every page."""
    return TermFinder(glossary, lang)


@functools.lru_cache(maxsize=16)
def _ids_found_by(spelled: tuple[tuple[str, tuple[str, ...]], ...]) -> dict[str, frozenset[str]]:
    """The term ids found so far in each text by the finders of these spellings (one dict for them all)."""
    return {}


def _chars(chars: Iterable[str]) -> str:
    return "".join(re.escape(c) for c in sorted(chars))


def _is_word_char(char: str) -> bool:
    """A spelling starting with one of these only matches at the start of a word (see `_form_pattern`)."""
    return char.isascii() and char.isalnum()


def _can_start(start: tuple[str, bool], char: str) -> bool:
    """Whether a use of a spelling that starts with `start[0]` (and has lower-case letters: `start[1]`,
    so `_form_pattern` matches it in any case) can begin with `char`, one of that letter's cases."""
    first, any_case = start
    return char == first or (any_case and (char.lower() == first.lower() or char.upper() == first.upper()))


def _has_lower(form: str) -> bool:
    return any(c.islower() for c in form)


def _form_pattern(form: str) -> str:
    # A spelling with lower-case letters matches in any case ("KV cache", "KV Cache"); an acronym
    # (TP, SM, IB) only as written. ASCII letters or digits at either end must not continue a word.
    body = re.escape(form)
    if _has_lower(form):
        body = f"(?i:{body})"
    before = r"(?<![A-Za-z0-9])" if form[0].isascii() and form[0].isalnum() else ""
    after = r"(?![A-Za-z0-9])" if form[-1].isascii() and form[-1].isalnum() else ""
    return before + body + after


# Each written language (the table's bank and translation languages) has a name, a definition and
# optional other spellings: `zh`, `zh_def`, `zh_forms`, `en`, `en_def`, `en_forms`.
_FIELDS: dict[str, type] = {
    "id": str,
    **{lang: str for lang in LANGUAGES.written},
    **{f"{lang}_def": str for lang in LANGUAGES.written},
    **{f"{lang}_forms": list for lang in LANGUAGES.written},
}
_REQUIRED = {"id", *LANGUAGES.written, *(f"{lang}_def" for lang in LANGUAGES.written)}
_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
