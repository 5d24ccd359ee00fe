"""Parser fixtures: each tests/fixtures/parse/NAME.txt has NAME.expected, a readable dump of its blocks
(and of the parser's warnings, by line).

Run with UPDATE_GOLDEN=1 to rewrite the .expected files after a deliberate change.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from studysite.build import generate
from studysite.errors import Problems
from studysite.model import LeadIn, ListBlock, Paragraph
from studysite.sources.parse import parse_bank, parse_text
from tests.sitekit import FIXTURE_BANKS

FIXTURES = Path(__file__).parent / "fixtures" / "parse"


def dump(path: Path) -> str:
    problems = Problems()
    bank = parse_bank(path, "x", "zh", problems)
    assert not problems.errors, problems.errors
    assert bank is not None
    out = [f"TITLE@{bank.title_line} {bank.title}"]
    for q in bank.questions:
        out.append(f"Q@{q.line} {q.text}")
        for b in q.blocks:
            if isinstance(b, Paragraph):
                out.append(f"  P@{b.line} {b.text}")
            elif isinstance(b, LeadIn):
                out.append(f"  L@{b.line} {b.text}")
            elif isinstance(b, ListBlock):
                out.append(f"  {'OL' if b.ordered else 'UL'} start={b.start}")
                out += [f"    I@{','.join(map(str, i.lines))} {i.text}" for i in b.items]
    out += [f"WARNING@{w.line} {w.message.split(':')[0]}: {w.excerpt}" for w in problems.warnings]
    return "\n".join(out) + "\n"


@pytest.mark.unit
@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("*.txt")))
def test_parse_fixture(name: str) -> None:
    got = dump(FIXTURES / f"{name}.txt")
    expected_file = FIXTURES / f"{name}.expected"
    if os.environ.get("UPDATE_GOLDEN") or not expected_file.exists():
        expected_file.write_text(got, encoding="utf-8")
    assert got == expected_file.read_text(encoding="utf-8")


def test_seed_bank_shape() -> None:
    """The user's bank: 14 questions; the wrapped item of the last question is one item on two lines."""
    problems = Problems()
    bank = parse_bank(FIXTURE_BANKS / "ai-infra-3.txt", "ai-infra-3", "zh", problems)
    assert bank is not None and not problems.errors and not problems.warnings
    assert bank.title == "AI Infra 综合面经题库 (3)"
    assert len(bank.questions) == 14
    last = bank.questions[-1].blocks[-1]
    assert isinstance(last, ListBlock)
    item = last.items[-1]
    assert item.text == "异步屏障：用cp.async.bulk和mbarrier替代传统同步方式。"
    assert item.lines == (86, 87)
    lead = bank.questions[1].blocks[0]
    assert isinstance(lead, LeadIn) and lead.text == "Prefill优化（计算密集型）："


PROS_CONS = {
    "zh": "题库\nQ: 量化的优缺点？\n优点：\n- 速度快\n- 显存占用小\n缺点：\n- 精度损失\n总的来说值得使用。\n",
    "en": "Bank\nQ: Pros and cons of quantization?\nPros:\n- Fast\n- Small memory footprint\nCons:\n- Precision loss\n"
    "On the whole it is worth it.\n",
}


def test_pros_and_cons_build_two_lists_each_with_its_lead_in(tmp_path: Path) -> None:
    """Through the whole generator, in both languages: two lead-ins, two lists, the closing paragraph apart."""
    banks = tmp_path / "banks"
    banks.mkdir()
    (banks / "taxonomy.yml").write_bytes((FIXTURE_BANKS / "taxonomy.yml").read_bytes())
    (banks / "quant.txt").write_text(PROS_CONS["zh"], encoding="utf-8")
    (banks / "quant.en.txt").write_text(PROS_CONS["en"], encoding="utf-8")
    site = generate(banks, tmp_path / "docs").site
    (entry,) = site.entries.values()
    for prefix, (lead1, a, b, lead2, c, last) in (
        ("", ("优点：", "速度快", "显存占用小", "缺点：", "精度损失", "总的来说值得使用。")),
        ("en/", ("Pros:", "Fast", "Small memory footprint", "Cons:", "Precision loss", "On the whole it is worth it.")),
    ):
        page = (tmp_path / "docs" / prefix / entry.path).read_text(encoding="utf-8")
        answer = page[page.index('<div class="qa-answer"') : page.index("</div>", page.index('<div class="qa-answer"'))]
        body = answer.partition(">\n")[2]
        assert body.split("\n") == [
            f'<p class="qa-lead">{lead1}</p>',
            "<ul>",
            f"<li>{a}</li>",
            f"<li>{b}</li>",
            "</ul>",
            f'<p class="qa-lead">{lead2}</p>',
            "<ul>",
            f"<li>{c}</li>",
            "</ul>",
            f"<p>{last}</p>",
            "",
        ], body


def test_continuation_rule_costs_the_same_at_any_answer_length() -> None:
    """Deciding whether a line continues an item counts the answer's items once, not at every line:
    an answer of alternating items and lines parses in work linear in its length.

    Work is counted, not timed: the Python lines the parser executes (a trace), the same on a busy
    machine as on a quiet one. Recounting the answer's items at every line (the bug this guards)
    executes a line per earlier item at each line: 20x the answer, ~400x the lines executed."""

    def lines_executed(pairs: int) -> int:
        text = "标题\nQ: 问题？\n" + "- 甲\n乙\n- 丙\n丁。\n注意：\n" * pairs
        count = 0

        def tracer(frame: Any, event: str, arg: Any) -> Any:
            nonlocal count
            if event == "line":
                count += 1
            return tracer

        sys.settrace(tracer)
        try:
            bank = parse_text(text, "x.txt", "x", "zh", Problems())
        finally:
            sys.settrace(None)
        assert bank is not None
        return count

    small, large = lines_executed(100), lines_executed(2_000)
    # Linear: 20x (plus a constant); quadratic: ~400x. 25x leaves room for the constant part.
    assert large < 25 * small, f"20x the answer executed {large / small:.1f}x the lines"
