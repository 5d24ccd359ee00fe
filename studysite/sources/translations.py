"""Tie each English question to its Chinese question by slug, and tell when a translation is stale.

A translation file (`banks/NAME.en.txt`) is a bank file whose every question carries, on the line
right below its `Q:`, the slug of the Chinese question it translates (`@two-batch-overlap`): inside
the question, so cutting or moving a question from its `Q:` to the next takes its key along. The
maintainer never types it: `make translation BANK=NAME` writes the file (and the keys). Because the
key is the slug, which survives rewording, reordering, inserting and deleting Chinese questions,
English can never attach to the wrong question, and a bank can be translated question by question.
A line still marked `[zh]` (as the template writes it) is not translated yet: its question shows
the Chinese under the "not yet translated" notice.

Why the key lives in the translation file and the hashes in `banks/translations.lock`: the key has to
travel with the English text it names (a translator may move, split or paste questions), while
"which Chinese did this English translate" is state the build owns, like `slugs.lock`. The lock
holds, per translated question, the hash of the Chinese it was written for and the hash of the
English; when the Chinese hash moves on and the English hash does not, the translation is stale.
Editing the English (or `make translation-reviewed Q=bank/slug`) records the current Chinese again.

A file with no `@` key at all is the older format, tied by position (kept so such files still build).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import Problems
from ..languages import BANK_LANG, TRANSLATION_LANG
from ..model import Bank, LeadIn, ListBlock, Paragraph, Question, Site, content_hash
from .inputs import read_regular
from .parse import parse_text, read_text, split_lines

LOCK = "translations.lock"
PENDING = f"[{BANK_LANG}]"
"""What the template puts before every line still in Chinese; a translator replaces the whole line."""


@dataclass(frozen=True)
class Record:
    """What the lock remembers of one translated question."""

    path: str
    """`bank/slug`."""
    zh_hash: str
    """content_hash of the Chinese the English translates."""
    en_hash: str
    """content_hash of that English, to tell an English edit from none."""
    line: int = 0
    """Line in the lock file."""


def is_keyed(bank: Bank) -> bool:
    """Whether a translation ties its questions by `@slug` keys (else: by position, the older format)."""
    return bank.keyed


def parse_translation(path: Path, bank_id: str, problems: Problems, data: bytes | None = None) -> Bank | None:
    """Parse an English file (or `data`, its bytes): its `@slug` key lines bind each question; `[zh]`
    lines are pending."""
    text = read_text(path, problems, data)
    if text is None:
        return None
    lines = split_lines(text)
    keys: dict[int, str] = {}  # line of the `Q:` -> key right below it
    question = 0  # line of a `Q:` still waiting for its key line
    for number, raw in enumerate(lines, start=1):
        stripped = raw.strip()
        found = _KEY.fullmatch(stripped)
        if found:
            if question:
                keys[question] = found.group(1)
            else:
                problems.error(path, number, f"key line `@{found.group(1)}` is not right below a `Q:` line", raw)
            lines[number - 1] = ""  # keep line numbers: the parser sees a blank line
            question = 0
        elif stripped:
            question = number if _QUESTION.match(stripped) else 0
    bank = parse_text("\n".join(lines), path, bank_id, TRANSLATION_LANG, problems)
    if bank is None or not keys:
        return bank
    questions, seen = [], dict[str, int]()
    for q in bank.questions:
        key = keys.get(q.line, "")
        if not key:
            problems.error(
                path,
                q.line,
                f"question has no `@slug` key line below it: run `make translation BANK={bank_id}` to add "
                "the questions the bank has (it keeps what is translated)",
                q.text,
            )
        elif key in seen:
            problems.error(path, q.line, f"`@{key}` is translated twice (first at line {seen[key]})", q.text)
        seen.setdefault(key, q.line)
        questions.append(replace(q, key=key, pending=_pending_lines(q)))
    return replace(bank, questions=tuple(questions))


def attach(
    banks: Sequence[tuple[Bank, Bank | None]], slugs_of: dict[str, list[str]], lock: dict[str, Record]
) -> dict[str, tuple[Question, str]]:
    """For each translated slug: its English question and the hash of the Chinese it translates.

    `slugs_of` gives each bank's slugs in Chinese order. Pending questions are left out (untranslated).
    """
    out: dict[str, tuple[Question, str]] = {}
    for zh, en in banks:
        if en is None:
            continue
        slugs = slugs_of[zh.id]
        if is_keyed(en):
            by_key = {q.key: q for q in en.questions if q.key}
            pairs = [(slug, zq, by_key.get(slug)) for slug, zq in zip(slugs, zh.questions, strict=True)]
        else:
            pairs = [(slug, zq, en.questions[zq.index]) for slug, zq in zip(slugs, zh.questions, strict=True)]
        for slug, zq, eq in pairs:
            if eq is None or eq.pending:
                continue
            record = lock.get(f"{zh.id}/{slug}")
            en_hash = content_hash(eq)
            translates = record.zh_hash if record and record.en_hash == en_hash else content_hash(zq)
            out[slug] = (eq, translates)
    return out


def english_title(zh: Bank, en: Bank | None) -> str:
    """The English title, or the Chinese one while the title line is still marked `[zh]`."""
    if en is None or en.title.startswith(PENDING):
        return zh.title
    return en.title


def check(site: Site, banks: Sequence[tuple[Bank, Bank | None]], problems: Problems) -> None:
    """Stale translations and orphaned keys warn; an English answer that does not line up is an error."""
    for zh, en in banks:
        if en is None:
            continue
        info = site.bank(zh.id)
        live = set(info.slugs)
        if is_keyed(en):
            for q in en.questions:
                if q.key and q.key not in live:
                    problems.warn(
                        en.path,
                        q.line,
                        f"translates `@{q.key}`, which is no longer a question of {zh.path}: delete it "
                        "or move it under the question it now belongs to",
                        q.text,
                    )
        for slug in info.slugs:
            entry = site.entries[slug]
            if not entry.translated or (not is_keyed(en) and not entry.stale):
                continue
            qz, qe = entry.text[BANK_LANG], entry.text[TRANSLATION_LANG]
            if entry.stale:
                problems.warn(
                    en.path,
                    qe.line,
                    f"translation is stale: the Chinese at {zh.path}:{qz.line} changed after it was written; "
                    f"update the English (or `make translation-reviewed Q={zh.id}/{slug}` if it still holds)",
                    qe.text,
                )
                continue
            mismatch = first_mismatch(qz, qe)
            if mismatch is not None:
                line_e, what_e, where_z, what_z = mismatch
                problems.error(
                    en.path,
                    line_e,
                    f"translation of `{slug}` does not line up: here it has {what_e}, where "
                    f"{zh.path}:{where_z} has {what_z}",
                )


def read_lock(path: Path, problems: Problems) -> dict[str, Record]:
    """The translation lock; missing is empty, a malformed line an error with its line."""
    if not path.exists():
        return {}
    try:
        text = read_regular(path).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        problems.error(path, 0, f"lock file is not UTF-8 (offset {exc.start}): restore it from git")
        return {}
    except OSError as exc:
        problems.error(path, 0, f"cannot read the lock file: {exc.strerror or exc}")
        return {}
    out: dict[str, Record] = {}
    for number, line in enumerate(split_lines(text), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3 or not _LOCK_PATH.fullmatch(parts[0]) or not all(map(_HASH.fullmatch, parts[1:])):
            problems.error(path, number, "malformed line: expected `bank/slug<TAB>chinese-hash<TAB>english-hash`", line)
            continue
        out[parts[0]] = Record(parts[0], parts[1], parts[2], number)
    return out


def lock_text(site: Site) -> str:
    """The translation lock for `site` (sorted by path, so a change is a small diff)."""
    lines = [
        "# Which Chinese text each English question translates (hashes), written by the build: commit it",
        "# with the translation. 每道英文题所翻译的中文版本（哈希），由构建维护，请随翻译一起提交。",
        "# bank/slug<TAB>hash of the Chinese it translates<TAB>hash of the English",
    ]
    for entry in sorted(site.entries.values(), key=lambda e: (e.bank_id, e.slug)):
        if entry.translated and entry.text[TRANSLATION_LANG].key:
            english = content_hash(entry.text[TRANSLATION_LANG])
            lines.append(f"{entry.bank_id}/{entry.slug}\t{entry.translates}\t{english}")
    return "\n".join(lines) + "\n"


def reviewed(lock_path: Path, site: Site, paths: Iterable[str]) -> list[str]:
    """Record that the English of `paths` (bank/slug) still holds for the current Chinese; returns the
    paths that are not translated questions (nothing is written for those)."""
    text = lock_text(site)
    unknown = []
    for p in paths:
        entry = site.entries.get(p.split("/", 1)[-1])
        if entry is None or f"{entry.bank_id}/{entry.slug}" != p or not entry.translated:
            unknown.append(p)
            continue
        old = f"{p}\t{entry.translates}\t"
        text = text.replace(old, f"{p}\t{content_hash(entry.text[BANK_LANG])}\t")
    if not unknown:
        tmp = lock_path.with_name(f".{lock_path.name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(lock_path)
    return unknown


def template(site: Site, zh: Bank, en: Bank | None) -> str:
    """`banks/NAME.en.txt` for a bank: every question in Chinese order under its `@slug` key; what is
    translated already is kept line for line, the rest is the Chinese with each line marked `[zh]`.
    Keys no longer in the bank are kept at the end (the build warns about them)."""
    info = site.bank(zh.id)
    en_lines = split_lines(read_text(Path(en.path), Problems()) or "") if en is not None else []
    existing = {q.key: q for q in en.questions if q.key} if en is not None and is_keyed(en) else {}
    title = en.title if en is not None and not en.title.startswith(PENDING) else f"{PENDING} {zh.title}"
    out = [title, ""]
    for slug in info.slugs:
        entry = site.entries[slug]
        kept = existing.pop(slug, None)
        if kept is None and en is not None and not is_keyed(en) and entry.translated:
            kept = entry.text[TRANSLATION_LANG]  # migrating a file tied by position
        lines = _source_of(kept, en, en_lines) if kept is not None else _pending_copy(entry.text[BANK_LANG])
        out += [lines[0], f"@{slug}", *lines[1:], ""]
    for key, q in existing.items():  # orphans: a translator decides
        lines = _source_of(q, en, en_lines)
        out += [lines[0], f"@{key}", *lines[1:], ""]
    return "\n".join(out).rstrip("\n") + "\n"


def report(site: Site, banks: Sequence[tuple[Bank, Bank | None]]) -> str:
    """Per bank: translated / stale / missing counts, then the lines to look at."""
    out = []
    for zh, en in banks:
        info = site.bank(zh.id)
        entries = [site.entries[s] for s in info.slugs]
        stale = [e for e in entries if e.stale]
        missing = [e for e in entries if not e.translated]
        done = len(entries) - len(missing)
        out.append(f"{zh.id}: {done} translated, {len(stale)} stale, {len(missing)} missing (of {len(entries)})")
        if en is not None and not is_keyed(en):
            out.append(f"  {en.path}: tied by position; `make translation BANK={zh.id}` keys it by slug")
        for e in stale:
            where_en, where_zh = e.text[TRANSLATION_LANG].line, e.text[BANK_LANG].line
            out.append(f"  stale   {en.path if en else ''}:{where_en}  <- {zh.path}:{where_zh}")
        pending = {q.key: q for q in en.questions if q.key} if en is not None else {}
        for e in missing:
            where = f"  (template: {en.path}:{pending[e.slug].line})" if en and e.slug in pending else ""
            out.append(f"  missing {zh.path}:{e.text[BANK_LANG].line}  {e.slug}{where}")
        if en is not None and is_keyed(en):
            for q in en.questions:
                if q.key and q.key not in info.slugs:
                    out.append(f"  orphan  {en.path}:{q.line}  @{q.key} is no longer in the bank")
    return "\n".join(out) + "\n"


def _pending_lines(q: Question) -> tuple[int, ...]:
    lines = [q.line] if q.text.startswith(PENDING) else []
    for block in q.blocks:
        if isinstance(block, ListBlock):
            lines += [item.lines[0] for item in block.items if item.text.startswith(PENDING)]
        elif block.text.startswith(PENDING):
            lines.append(block.line)
    return tuple(lines)


def _pending_copy(q: Question) -> list[str]:
    """A Chinese question as template lines: same blocks, each line marked `[zh]` (wrapped items joined)."""
    out = [f"Q: {PENDING} {q.text}"]
    previous_list = False
    for block in q.blocks:
        if isinstance(block, ListBlock):
            if previous_list:
                out.append("")  # two lists in a row stay two lists
            for n, item in enumerate(block.items, start=block.start):
                marker = f"{n}." if block.ordered else "-"
                out.append(f"{marker} {PENDING} {item.text}")
        else:
            out.append(f"{PENDING} {block.text}")
        previous_list = isinstance(block, ListBlock)
    return out


def _source_of(q: Question, en: Bank | None, en_lines: list[str]) -> list[str]:
    """A question's own lines from the English file, as the translator wrote them."""
    assert en is not None
    starts = sorted(x.line for x in en.questions)
    after = [s for s in starts if s > q.line]
    end = after[0] if after else len(en_lines) + 1
    lines = [line for line in en_lines[q.line - 1 : end - 1] if not _KEY.fullmatch(line.strip())]
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def first_mismatch(qz: Question, qe: Question) -> tuple[int, str, int | str, str] | None:
    """Where the English answer's blocks first differ in kind from the Chinese ones, or None."""
    shape_z, shape_e = _shape(qz), _shape(qe)
    if [kind for kind, _ in shape_z] == [kind for kind, _ in shape_e]:
        return None
    k = next(
        (i for i, (a, b) in enumerate(zip(shape_z, shape_e, strict=False)) if a[0] != b[0]),
        min(len(shape_z), len(shape_e)),
    )
    where_z: int | str = shape_z[k][1] if k < len(shape_z) else f"{qz.line} (answer ends)"
    what_z = shape_z[k][0] if k < len(shape_z) else "nothing"
    line_e = shape_e[k][1] if k < len(shape_e) else qe.line
    what_e = shape_e[k][0] if k < len(shape_e) else "nothing"
    return line_e, what_e, where_z, what_z


def _shape(q: Question) -> list[tuple[str, int]]:
    shape = []
    for block in q.blocks:
        if isinstance(block, Paragraph):
            shape.append(("a paragraph", block.line))
        elif isinstance(block, LeadIn):
            shape.append(("a lead-in line", block.line))
        else:
            kind = "a numbered list" if block.ordered else "a bullet list"
            shape.append((f"{kind} of {len(block.items)} items", block.line))
    return shape


_KEY = re.compile(r"@([a-z0-9]+(?:-[a-z0-9]+)*)")
_QUESTION = re.compile(r"^Q\s*[:：]")
_LOCK_PATH = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*/[a-z0-9]+(?:-[a-z0-9]+)*")
_HASH = re.compile(r"[0-9a-f]{12}")
