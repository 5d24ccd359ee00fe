"""Read a bank file (UTF-8, BOM or not, LF or CRLF) into a `Bank`, blaming FILE:LINE for every problem.

The format, line by line (surrounding spaces never matter):

- A question starts with `Q:`: the `Q` half- or full-width (`Ｑ`, what a Chinese IME types), the
  colon `:` or `：`, optionally a number between (`Q1:`, `Q 12：`, dropped: the site numbers its
  own pages), and invisible zero-width characters before it ignored. A line that looks like a
  question but is not one (`q:`, `Q1.`, `Q1、`, `**Q:**`, `# Q:`) stays answer text and is a FILE:LINE
  warning (a failure under --strict), since `q: query` can be answer text but is more likely a typo.
- `- `, `* `, `• ` start a bullet item, `1. `, `1)`, `1、` a numbered one.
- A line ending in `：`/`:` whose next non-empty line is an item is a lead-in of that list.
- A line right after an item (no blank line between) continues that item, joined to it, only when
  the item stops mid-sentence and the line does not end in `：`/`:` (a line ending so introduces
  what follows: it is a lead-in or a paragraph, never the tail of an item). An item stops
  mid-sentence when it ends in `，`/`,`/`、`/`：`/`:`, or when it ends without end punctuation
  (`。.！!？?；;` or a closing bracket or quote) where the answer's items end with it. Where its
  list, or the answer's items so far, are written without end punctuation (two or more earlier
  items end bare, no fewer than end with it, as in `- 速度快` / `- 显存占用小`), an item ending bare
  is complete and the next line starts a new block. The seed's
  one wrapped item (`- 异步屏障：用` / `cp.async.bulk和mbarrier替代传统同步方式。`) follows
  items that end in `。`; no line after a list in it is a continuation otherwise.
- Any other line is a paragraph; a blank line ends a list.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from ..errors import Problems
from ..model import Bank, Block, Lang, LeadIn, ListBlock, ListItem, Paragraph, Question
from .inputs import read_regular

MAX_LINE_CHARS = 20_000
"""A longer line is almost certainly not a bank line (a pasted binary, a minified file)."""


def read_text(path: Path, problems: Problems, raw: bytes | None = None) -> str | None:
    """Decode a bank file as UTF-8, naming the likely encoding when it is not. `raw`: its bytes, when
    already read."""
    try:
        raw = read_regular(path) if raw is None else raw
    except OSError as exc:
        problems.error(path, 0, f"cannot read file: {exc.strerror or exc}")
        return None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        problems.error(
            path,
            line,
            f"file is not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
            f"it looks like {_guess_encoding(raw)}: re-save it as UTF-8",
        )
        return None
    return text


def split_lines(text: str) -> list[str]:
    """Lines without their endings; CRLF, lone CR and LF all end a line; stray BOMs are dropped."""
    return text.replace("\ufeff", "").replace("\r\n", "\n").replace("\r", "\n").split("\n")


def parse_bank(path: Path, bank_id: str, lang: Lang, problems: Problems, raw: bytes | None = None) -> Bank | None:
    """Parse one bank file (or `raw`, its bytes); problems go to `problems`, and None is returned when
    it is unusable."""
    text = read_text(path, problems, raw)
    if text is None:
        return None
    return parse_text(text, path, bank_id, lang, problems)


def parse_text(text: str, path: Path | str, bank_id: str, lang: Lang, problems: Problems) -> Bank | None:
    """Parse bank text already decoded; see `parse_bank`."""
    lines = split_lines(text)
    errors_before = len(problems.errors)
    title, title_line = "", 0
    questions: list[Question] = []
    current: tuple[str, int] | None = None
    body: list[tuple[int, str]] = []
    seen: dict[str, int] = {}

    def finish() -> None:
        if current is None:
            return
        qtext, qline = current
        blocks = _parse_answer(body, path, problems)
        if not blocks:
            problems.error(path, qline, "question has no answer: add its answer on the lines after it", qtext)
        key = _normal(qtext)
        if key in seen:
            problems.error(path, qline, f"duplicate question (first at line {seen[key]})", qtext)
        else:
            seen[key] = qline
        questions.append(Question(qtext, tuple(blocks), qline, len(questions)))

    # Most files hold no suspicious line: one search of the whole text spares a test per line.
    suspicious = _FORBIDDEN_IN_TEXT.search(text) is not None or max(map(len, lines)) > MAX_LINE_CHARS
    for number, raw in enumerate(lines, start=1):
        line = _clean(raw, path, number, problems) if suspicious else raw
        if line is None:
            continue
        stripped = line.strip()
        if not title:
            if stripped:
                if question_text(stripped) is not None:
                    problems.error(
                        path,
                        number,
                        "bank has no title: its first non-empty line must be the title, before the first `Q:`",
                        stripped,
                    )
                    title, title_line = "?", number
                else:
                    title, title_line = stripped, number
                    continue
            else:
                continue
        qtext = question_text(stripped)
        if qtext is not None:
            finish()
            if not qtext:
                problems.error(path, number, "empty question: write the question after `Q:`", stripped)
            current, body = (qtext, number), []
        elif current is None:
            if stripped:
                problems.error(path, number, "text before the first question: start questions with `Q: `", stripped)
        else:
            if stripped[:1] in _NEAR_START and _NEAR_QUESTION.match(stripped):
                problems.warn(
                    path,
                    number,
                    "looks like a question but is read as answer text: start a question with `Q:` (or `Q1:`); "
                    "if it is answer text, begin the line otherwise (e.g. as a list item `- `)",
                    stripped,
                )
            body.append((number, line))
    finish()

    if not title:
        problems.error(path, 1, "empty file: a bank needs a title line and at least one `Q: ` question")
    elif not questions and len(problems.errors) == errors_before:
        problems.error(path, title_line, "no questions found: each question starts with `Q: ` (or `Q：`)", title)
    if len(problems.errors) > errors_before:
        return None
    return Bank(bank_id, lang, str(path), title, title_line, tuple(questions))


def question_text(stripped: str) -> str | None:
    """The question a stripped line starts (after `Q:`, `Ｑ：`, `Q1:` …), or None when it starts none."""
    if stripped[:1] not in _NEAR_START:  # most lines: one set lookup instead of a regex
        return None
    match = _QUESTION.match(stripped)
    return match.group(1) if match else None


def _parse_answer(body: list[tuple[int, str]], path: Path | str, problems: Problems) -> list[Block]:
    """Group answer lines into paragraphs, lead-ins and lists."""
    blocks: list[Block] = []
    items: list[ListItem] = []
    ordered = False
    start = 1
    # (items ending bare, items) among the current list's items but its last, and in the answer's
    # closed lists: kept as counts so that deciding a continuation costs the same at any length.
    in_list = [0, 0]
    in_answer = [0, 0]

    def close_list() -> None:
        nonlocal items
        if items:
            blocks.append(ListBlock(ordered, start, tuple(items)))
            in_answer[0] += in_list[0] + _ends_bare(items[-1].text)
            in_answer[1] += in_list[1] + 1
            in_list[:] = [0, 0]
            items = []

    lines = [(n, s.strip()) for n, s in body]
    for i, (number, text) in enumerate(lines):
        if not text:
            close_list()
            continue
        bullet = _BULLET.match(text)
        numbered = None if bullet else _NUMBERED.match(text)
        if bullet or numbered:
            is_ordered = numbered is not None
            content = (numbered.group(2) if numbered else bullet.group(1)).strip()  # type: ignore[union-attr]
            if items and is_ordered != ordered:
                close_list()
            if not items:
                ordered = is_ordered
                start = int(numbered.group(1)) if numbered else 1
            else:
                in_list[0] += _ends_bare(items[-1].text)
                in_list[1] += 1
            items.append(ListItem(content, (number,), (content,)))
            continue
        if items and _continues(items[-1].text, text, in_list, (in_list[0] + in_answer[0], in_list[1] + in_answer[1])):
            last = items[-1]
            joined = last.text + _joiner(last.text, text) + text
            items[-1] = ListItem(joined, (*last.lines, number), (*last.source, text))
            continue
        close_list()
        if text.endswith((":", "：")) and _starts_list(_next_text(lines, i)):
            blocks.append(LeadIn(text, number))
        else:
            blocks.append(Paragraph(text, number))
    close_list()
    return blocks


def _next_text(lines: list[tuple[int, str]], i: int) -> str:
    """The next non-empty line after line `i` ("" at the end), looking no further than that."""
    j = i + 1
    while j < len(lines) and not lines[j][1]:
        j += 1
    return lines[j][1] if j < len(lines) else ""


def _starts_list(text: str) -> bool:
    return bool(_BULLET.match(text) or _NUMBERED.match(text))


def _continues(last: str, text: str, in_list: Sequence[int], in_answer: Sequence[int]) -> bool:
    """A line right after the item `last` continues it when that item visibly stops mid-sentence
    (the rule in the module docstring); `in_list` and `in_answer` are (items ending bare, items)
    before it in its list and in the answer."""
    if not last or text.endswith((":", "：")) or last[-1] in _SENTENCE_END:
        return False
    if last[-1] in _MID_SENTENCE:
        return True
    return not (_bare_style(*in_list) or _bare_style(*in_answer))


def _bare_style(bare: int, total: int) -> bool:
    """Items written without end punctuation: two or more end bare, and no fewer than end with it."""
    return bare >= 2 and bare >= total - bare


def _ends_bare(text: str) -> int:
    return int(text[-1:] not in _SENTENCE_END)


def _joiner(left: str, right: str) -> str:
    """Wrapped Chinese joins with nothing; wrapped English words need a space."""
    if left[-1].isascii() and left[-1].isalnum() and right[0].isascii() and right[0].isalnum():
        return " "
    if left[-1] in ",;" and right[0].isascii():
        return " "
    return ""


def _clean(raw: str, path: Path | str, number: int, problems: Problems) -> str | None:
    """Reject lines no bank should hold; keep everything else verbatim."""
    if len(raw) > MAX_LINE_CHARS:
        problems.error(
            path,
            number,
            f"line is {len(raw):,} characters long (limit {MAX_LINE_CHARS:,}): is this really a bank file?",
            raw,
        )
        return None
    found = _FORBIDDEN.search(raw)
    if found is not None:
        problems.error(path, number, f"control character U+{ord(found.group()):04X} in text: delete it", raw)
        return None
    return raw


# Tabs are fine; other C0/C1 controls (Unicode category Cc: U+0000-001F, U+007F-009F) are
# invisible corruption from copy-paste. One regex instead of a per-character test: 10x faster.
_FORBIDDEN = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")
_FORBIDDEN_IN_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
"""_FORBIDDEN less the line endings (LF, CR), which split_lines takes out of every line."""


def _normal(text: str) -> str:
    """Key for duplicate detection: width-folded, case-folded, spaces and end punctuation ignored."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"[\s?？。.!！]+", "", folded)


def _guess_encoding(raw: bytes) -> str:
    for name in ("gb18030", "big5", "utf-16", "shift_jis", "cp1252"):
        try:
            decoded = raw.decode(name)
        except UnicodeDecodeError:
            continue
        if name == "gb18030":
            return "GBK/GB18030 (Simplified Chinese)"
        if name == "utf-16" and not raw.startswith((b"\xff\xfe", b"\xfe\xff")):
            continue
        if decoded:
            return {
                "big5": "Big5 (Traditional Chinese)",
                "utf-16": "UTF-16",
                "shift_jis": "Shift-JIS",
                "cp1252": "Windows-1252",
            }[name]
    return "an unknown encoding"


_ZERO_WIDTH = "\u200b\u200c\u200d\u2060"
"""Invisible in an editor; BOMs (U+FEFF) are already gone (split_lines)."""
_QUESTION = re.compile(
    rf"^[{_ZERO_WIDTH}]*[QＱ]\s*(?:[0-9０-９]{{1,4}}\s*)?[:：][\s{_ZERO_WIDTH}]*(.*?)[\s{_ZERO_WIDTH}]*$", re.S
)
_NEAR_QUESTION = re.compile(
    rf"^[{_ZERO_WIDTH}]*(?:[qｑ]\s*[0-9０-９]{{0,4}}\s*[:：]|[QＱ]\s*[0-9０-９]{{1,4}}\s*[.．、)）]|[*#>]+\s*[QＱqｑ]\s*[0-9０-９]{{0,4}}\s*[:：*])"
)
"""Lines a maintainer probably meant as a question: lower-case `q:`, `Q1.`/`Q1、`, Markdown `**Q:**`/`# Q:`."""
_NEAR_START = frozenset(_ZERO_WIDTH + "QＱqｑ*#>")
_MID_SENTENCE = set("，,、：:")
_BULLET = re.compile(r"^[-*•]\s+(.*)$")
_NUMBERED = re.compile(r"^(\d{1,4})[.)．、]\s*(\S.*)$")
_SENTENCE_END = set("。．.！!？?；;）)」』】\"”'’…")
