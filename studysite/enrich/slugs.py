"""Give every question a readable ASCII slug that never changes, and keep banks/slugs.lock.

The lock lists every page path (`bank/slug`) the site has ever published and what became of it:
`live`, `moved:<bank>/<slug>` (redirected) or `removed` (a page says so and links to the bank),
with the question and a fingerprint of its answer when last published.

A question keeps its slug while it is reordered, moved to another bank, or edited in ONE of its two
halves: the same question with a new answer, or the same answer under a reworded question. Question
text alone never decides: `什么是TP？` and `什么是PP？` are 0.8 similar and different questions. A
question whose text and answer both changed gets a new slug and its old URL says "removed": a lost
URL is visible and harmless, a URL that silently shows another question (and hands it the Anki note
and the reader's marks) is not. `review` lists every path whose question changed, for the reviewer.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import re
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import Problems
from ..model import Question

MAX_WORDS = 6
"""Slug words kept; enough to read what the page is about, short enough to share."""
SIMILAR = 0.5
"""Two question texts at least this similar (difflib ratio) are the same question, edited."""
RESERVED_SLUGS = frozenset({"index", "print"})
"""Slugs a question can never get: `<bank>/index` and `<bank>/print` are the bank's own pages."""


@dataclass(frozen=True)
class LockEntry:
    """One published page path and what became of it."""

    bank: str
    """Bank id."""
    slug: str
    """Question slug."""
    state: str
    """`live`, `removed` or `moved:<bank>/<slug>`."""
    text: str
    """The question (Chinese) when last published; used to recognise it again."""
    answer: str = ""
    """Fingerprint of its answer then (`answer_print`); empty in locks written before there was one."""
    line: int = 0
    """Line in the lock file."""

    @property
    def path(self) -> str:
        return f"{self.bank}/{self.slug}"


@dataclass(frozen=True)
class Candidate:
    """A question to place: where it is now and what it says."""

    bank: str
    """Bank id it is in now."""
    zh: Question
    """The Chinese question."""
    en: Question | None
    """Its English translation, when there is one (slugs read best in English)."""


def read_lock(path: Path, problems: Problems) -> list[LockEntry]:
    """Read the lock; a missing file is an empty lock, a malformed line an error with its line."""
    if not path.exists():
        return []
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        problems.error(path, 0, f"lock file is not UTF-8 (offset {exc.start}): restore it from git")
        return []
    return parse_lock(text, path, problems)


def parse_lock(text: str, path: Path, problems: Problems) -> list[LockEntry]:
    """The entries of a lock file's text (`write_lock`'s output); bad lines are errors at their line,
    reported on every call (the parse itself is remembered: `_parse_lock`)."""
    entries, errors = _parse_lock(text)
    for number, message, line in errors:
        problems.error(path, number, message, line)
    return list(entries)


@functools.lru_cache(maxsize=4)
def _parse_lock(text: str) -> tuple[tuple[LockEntry, ...], tuple[tuple[int, str, str], ...]]:
    """`parse_lock`'s entries and its errors (line, message, the line's text), for the last few texts:
    `make serve` generates again after every edit, reading the same banks/slugs.lock each time and
    parsing the lock it would write (5,000 questions: 1.5 % of an edit's generation, 2026-12-05).
    Entries are frozen, so they are shared."""
    entries = []
    errors = []
    for number, line in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) == 3:  # a lock from before answer fingerprints
            parts.append("")
        if len(parts) != 4 or "/" not in parts[0] or not _PRINT.fullmatch(parts[3]):
            message = "malformed lock line: expected `bank/slug<TAB>state<TAB>question<TAB>answer print`"
            errors.append((number, message, line))
            continue
        bank, slug = parts[0].split("/", 1)
        state = parts[1]
        if not (_SAFE.fullmatch(bank) and _SAFE.fullmatch(slug)) or not (
            state in ("live", "removed") or (state.startswith("moved:") and _MOVED.fullmatch(state[6:]))
        ):
            errors.append((number, f"malformed lock line: bad path or state {state!r}", line))
            continue
        if slug in RESERVED_SLUGS:
            errors.append((number, f"slug `{slug}` is reserved (a page of the bank itself): rename it", line))
            continue
        entries.append(LockEntry(bank, slug, state, parts[2], parts[3], number))
    return tuple(entries), tuple(errors)


def assign_slugs(
    candidates: list[Candidate],
    lock: list[LockEntry],
    terms: dict[str, str] | None = None,
    prints: list[str] | None = None,
) -> tuple[list[str], list[LockEntry]]:
    """Slugs for `candidates` (in order) and the new lock. Pure: same input, same output.

    `terms` (Chinese glossary spelling -> English slug words) names new untranslated questions;
    `prints`, when given, is each candidate's `answer_print` (the caller may have them already).
    Linear in the number of questions except for step 3, which compares only the questions left
    over after exact matches (new or edited ones) with the lock entries that share their answer.
    """
    taken = {e.slug for e in lock} | RESERVED_SLUGS
    result: list[str | None] = [None] * len(candidates)
    claimed: set[str] = set()  # lock paths already matched to a candidate
    used: set[str] = set()  # slugs already given to a candidate
    prints = prints if prints is not None else [answer_print(c.zh) for c in candidates]

    def claim(i: int, entry: LockEntry) -> None:
        result[i] = entry.slug
        claimed.add(entry.path)
        used.add(entry.slug)

    # 1. Same question text, same bank; 2. same text, another bank (banks merged or split).
    for same_bank in (True, False):
        index: dict[str, list[LockEntry]] = {}
        for e in lock:
            if e.path not in claimed and not e.state.startswith("moved:"):
                index.setdefault(_title_key(e.text), []).append(e)
        for i, cand in enumerate(candidates):
            if result[i] is not None:
                continue
            for e in index.get(_title_key(cand.zh.text), []):
                if e.path not in claimed and (e.bank == cand.bank) == same_bank and e.slug not in used:
                    claim(i, e)
                    break
    # 3. Reworded question over the same answer: question AND answer are the evidence, the answer
    # exactly, the question at least SIMILAR. Same bank first, then a move with a small reword.
    by_answer: dict[str, list[LockEntry]] = {}
    for e in lock:
        if e.answer and e.path not in claimed and not e.state.startswith("moved:"):
            by_answer.setdefault(e.answer, []).append(e)
    for same_bank in (True, False):
        pairs = []
        for i, cand in enumerate(candidates):
            if result[i] is not None or prints[i] == _EMPTY_PRINT:
                continue
            for e in by_answer.get(prints[i], []):
                if (e.bank == cand.bank) == same_bank and e.path not in claimed:
                    ratio = difflib.SequenceMatcher(None, _title_key(cand.zh.text), _title_key(e.text)).ratio()
                    if ratio >= SIMILAR:
                        pairs.append((-ratio, i, e.path, e))
        for _, i, p, e in sorted(pairs, key=lambda x: x[:3]):
            if result[i] is None and p not in claimed and e.slug not in used:
                claim(i, e)
    # 4. New questions get a fresh slug no path has ever used.
    for i, cand in enumerate(candidates):
        if result[i] is None:
            base = make_slug(cand.en.text if cand.en else cand.zh.text, terms) or f"q-{cand.bank}-{cand.zh.index + 1}"
            slug, n = base, 2
            while slug in taken:
                slug, n = f"{base}-{n}", n + 1
            taken.add(slug)
            result[i] = slug
    slugs = [s for s in result if s is not None]
    return slugs, _new_lock(candidates, slugs, prints, lock)


def answer_print(q: Question) -> str:
    """A short fingerprint of a question's answer (its text, whitespace and punctuation folded)."""
    return hashlib.sha256(_key("\n".join(q.answer_lines)).encode("utf-8")).hexdigest()[:12]


def review(old: list[LockEntry], new: list[LockEntry]) -> list[str]:
    """One line for every published path whose question changed: reworded, moved, removed, or new.

    The build prints these so that a reviewer sees each URL that now shows other text than before.
    """
    before = {e.path: e for e in old}
    lines = []
    for e in sorted(new, key=lambda e: e.path):
        was = before.get(e.path)
        if was is None:
            if e.state == "live":
                lines.append(f"{e.path}: new: {e.text}")
            continue
        if was.state == e.state and (was.text == e.text or _one_line(was.text) == _one_line(e.text)):
            continue
        if e.state == "live" and was.state == "live":
            lines.append(f"{e.path}: question reworded (same answer): {_one_line(was.text)} -> {e.text}")
        elif e.state == "live":
            lines.append(f"{e.path}: published again ({was.state} before): {e.text}")
        elif e.state.startswith("moved:") and was.state == "live":
            lines.append(f"{e.path}: moved to {e.state[6:]} (redirect): {e.text}")
        elif e.state == "removed" and was.state == "live":
            lines.append(f"{e.path}: removed (its page now says so): {e.text}")
        elif e.state != was.state:
            lines.append(f"{e.path}: {was.state} -> {e.state}: {e.text}")
    return lines


def make_slug(text: str, terms: dict[str, str] | None = None) -> str:
    """ASCII words of a question, stop words dropped: English as is; Chinese by its technical terms, or
    pinyin words where it has none (studysite/enrich/slugwords.py)."""
    words: list[str] = []
    text = unicodedata.normalize("NFKC", text)
    first = re.split(r"[?？]", text, maxsplit=1)[0]  # "What is X? When is it Y?" -> about X
    if _HAN.search(text):
        from .slugwords import chinese_slug_words

        words = chinese_slug_words(first if first.strip() else text, terms or {}, _STOP)
        return "-".join(words[:MAX_WORDS])[:60].strip("-")
    for run in _RUNS.findall(first if first.strip() else text):
        if _HAN.match(run):
            words.extend(_pinyin(run))
        else:
            ascii_run = unicodedata.normalize("NFKD", run).encode("ascii", "ignore").decode().lower()
            ascii_run = re.sub(r"(?<=[a-z])'(?=[a-z])", "", ascii_run)  # can't -> cant
            words.extend(w for w in re.split(r"[^a-z0-9]+", ascii_run) if w and w not in _STOP)
    slug = "-".join(words[:MAX_WORDS])
    return slug[:60].strip("-")


def write_lock(path: Path, entries: list[LockEntry]) -> str:
    """The lock file's text (sorted, so a change shows as a small diff in review)."""
    lines = [
        "# Every question page this site has published, and what became of it. Written by the build:",
        "# commit it with the bank change. 本站发布过的每个问题页面及其去向，由构建自动维护，请随题库改动一起提交。",
        "# bank/slug<TAB>live | removed | moved:<bank>/<slug><TAB>question<TAB>answer fingerprint",
    ]
    for e in sorted(entries, key=lambda e: e.path):
        lines.append(f"{e.path}\t{e.state}\t{_one_line(e.text)}\t{e.answer}")
    return "\n".join(lines) + "\n"


def _new_lock(
    candidates: list[Candidate], slugs: list[str], prints: list[str], lock: list[LockEntry]
) -> list[LockEntry]:
    live = {f"{c.bank}/{s}": c for c, s in zip(candidates, slugs, strict=True)}
    where = {s: f"{c.bank}/{s}" for c, s in zip(candidates, slugs, strict=True)}
    out = [
        LockEntry(c.bank, s, "live", _one_line(c.zh.text), p) for c, s, p in zip(candidates, slugs, prints, strict=True)
    ]
    for e in lock:
        if e.path in live:
            continue
        if e.slug in where:  # the same question now lives in another bank
            out.append(replace(e, state=f"moved:{where[e.slug]}", line=0))
        elif e.state.startswith("moved:"):
            target = e.state[6:]
            final = where.get(target.split("/", 1)[1]) if target not in live else target
            out.append(replace(e, state=f"moved:{final}" if final else "removed", line=0))
        else:
            out.append(replace(e, state="removed", line=0))
    return out


def _key(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"[\s?？。.!！]+", "", folded)


@functools.lru_cache(maxsize=1 << 17)
def _title_key(text: str) -> str:
    """`_key` of a question's title, remembered: `assign_slugs` folds every title of the banks and of
    the lock on each generation, and `make serve` generates again after every edit with the same titles
    (5,000 questions: 10,000 folds, 2.4 % of an edit's generation, 2026-12-05). Answers are folded
    by `answer_print`, which the generation's cache keeps instead."""
    return _key(text)


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _pinyin(run: str) -> list[str]:
    from pypinyin import lazy_pinyin  # imported only when a question has no English

    return [p for p in lazy_pinyin(run) if p.isascii() and p.isalnum()]


_RUNS = re.compile(r"[\u3400-\u9fff]+|[^\u3400-\u9fff]+")
_HAN = re.compile(r"[\u3400-\u9fff]")
_SAFE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_PRINT = re.compile(r"(?:[0-9a-f]{12})?")
_MOVED = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*/[a-z0-9]+(?:-[a-z0-9]+)*")
_STOP = frozenset(
    "a an the and or of in on at to for with by from as is are was were be been do does did how what "
    "which why when where who whom whose there their this that these those it its you your we our can "
    "could should would will shall may might must has have had than then so if not no vs versus into "
    "about each cant dont doesnt isnt arent wont given provide provides required needed need using incurs "
    "view many much some any respectively between watch out mixed".split()
)
_EMPTY_PRINT = hashlib.sha256(b"").hexdigest()[:12]
"""The fingerprint of no answer at all: never evidence that two questions are one."""
