"""Nothing lost, nothing invented: check the built site against the bank files it was built from.

Every non-empty line of every bank file must be visible on its page in its language: the title in
the bank page's heading, a question in its page's heading, every answer line inside the answer.
Lines are read again from the files, not from the parsed model, so a line the parser dropped is
caught too. Every built page holding an answer must be a question of a bank. Each built page is
read once and only the two known fragments (first `<h1>`, the answer `<div>`) are examined, so the
check stays linear and fast: about a second for 10,000 pages.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import Problem, Problems, display_path
from .model import Bank, BankInfo, Site
from .parse import read_text, split_lines


@dataclass(frozen=True)
class Expected:
    """A source line and the page fragment it must be visible in."""

    path: str
    """Bank file."""
    line: int
    """1-based line in it."""
    text: str
    """The line's visible text (marker removed), whitespace-normalised."""
    where: str
    """`heading` or `answer`."""


def check_built_site(banks: tuple[tuple[Bank, Bank | None], ...], site: Site, site_dir: Path) -> list[Problem]:
    """Every problem found: lines missing from their page, pages missing, question pages no bank has."""
    problems = Problems()
    expected: dict[str, tuple[str | None, list[Expected]]] = {}  # page file -> (slug, lines)
    infos = {b.id: b for b in site.banks}
    for zh, en in banks:
        info = infos.get(zh.id)
        if info is None:
            problems.error(zh.path, zh.title_line, "bank is missing from the site model")
            continue
        for prefix, bank in (("", zh), ("en/", en or zh)):  # untranslated: the Chinese on English pages
            _expect_bank(bank, info, prefix, expected, problems)
    seen: set[str] = set()
    for page in sorted(site_dir.rglob("*.html")):
        rel = page.relative_to(site_dir).as_posix()
        if rel.startswith(("assets/", "en/assets/", "pagefind/", "search/", "en/search/")):
            continue
        data = page.read_bytes()
        want = expected.get(rel)
        if want is None:
            if _ANSWER in data:
                problems.error(page, 0, "question page that no bank holds (nothing may be invented)")
            continue
        seen.add(rel)
        slug, lines = want
        text = data.decode("utf-8", errors="replace")
        heading, answer, answer_slug = _fragments(text)
        if slug is not None and answer_slug != slug:
            problems.error(page, 0, f"page does not hold the answer of `{slug}`")
        for e in lines:
            shown = heading if e.where == "heading" else answer
            if shown is None or e.text not in shown:
                problems.error(e.path, e.line, f"line not visible on its built page {display_path(page)}", e.text)
    for rel, (_, lines) in sorted(expected.items()):
        if rel not in seen and lines:
            first = lines[0]
            problems.error(first.path, first.line, f"its page {rel} was not built")
    return problems.errors


def _expect_bank(
    bank: Bank,
    info: BankInfo,
    prefix: str,
    expected: dict[str, tuple[str | None, list[Expected]]],
    problems: Problems,
) -> None:
    """Read `bank`'s file again and assign each non-empty line to the page and fragment that shows it."""
    raw = read_text(Path(bank.path), problems)
    if raw is None:
        return
    lines = split_lines(raw)
    path = display_path(bank.path)
    bank_page: list[Expected] = []
    expected[f"{prefix}{info.id}/index.html"] = (None, bank_page)
    if len(bank.questions) != len(info.slugs):
        problems.error(bank.path, bank.title_line, "bank and site model disagree on its questions")
        return
    bank_page.append(Expected(path, bank.title_line, _normal(lines[bank.title_line - 1]), "heading"))
    starts = [q.line for q in bank.questions] + [len(lines) + 1]
    for q, slug, end in zip(bank.questions, info.slugs, starts[1:], strict=True):
        page: list[Expected] = []
        expected[f"{prefix}{info.id}/{slug}/index.html"] = (slug, page)
        for number in range(q.line, end):
            stripped = lines[number - 1].strip()
            if not stripped:
                continue
            if number == q.line:
                page.append(Expected(path, number, _normal(_QUESTION.sub("", stripped, count=1)), "heading"))
            else:
                page.append(Expected(path, number, _normal(_MARKER.sub("", stripped, count=1) or stripped), "answer"))


def _fragments(page: str) -> tuple[str | None, str | None, str | None]:
    """Visible, normalised text of the page's first heading and of its answer, and the answer's slug.

    The answer is one `<div>` with no `<div>` inside (render.answer_html), so it ends at the first
    `</div>`. None for what the page does not have.
    """
    heading = _H1.search(page)
    start = page.find('<div class="qa-answer"')
    if start < 0:
        return (_visible(heading.group(1)) if heading else None, None, None)
    open_end = page.find(">", start) + 1
    end = page.find("</div>", open_end)
    slug = _SLUG.search(page[start:open_end])
    return (
        _visible(heading.group(1)) if heading else None,
        _visible(page[open_end : end if end >= 0 else len(page)]),
        slug.group(1) if slug else None,
    )


def _visible(fragment: str) -> str:
    return _normal(html.unescape(_TAG.sub("", fragment)))


def _normal(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


_ANSWER = b'<div class="qa-answer"'
_H1 = re.compile(r"<h1\b[^>]*>(.*?)</h1>", re.S)
_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")
_SLUG = re.compile(r'data-qa-slug="([^"]*)"')
_QUESTION = re.compile(r"^Q\s*[:：]\s*")
_MARKER = re.compile(r"^(?:[-*•]\s+|\d{1,4}[.)．、]\s*(?=\S))")
