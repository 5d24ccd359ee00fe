"""Tags that hold on new banks: measured on 33 questions that are not the seed's, with the tags a
reader would give them (tests/fixtures/tagging/), and a warning for a question no tag fits."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from studysite.build import generate
from studysite.enrich.tags import assign_tags, load_taxonomy
from studysite.errors import BuildError, Problems
from studysite.sources.parse import parse_bank
from tests.sitekit import ROOT, copy_banks

FIXTURES = Path(__file__).parent / "fixtures" / "tagging"
MIN_PRECISION = 0.85
MIN_RECALL = 0.85
"""Measured 0.94 / 0.96 (65 right, 4 extra, 3 missed); the seed-only taxonomy scored 0.69 / 0.43 here.
The margin lets one keyword move without failing; a taxonomy that loses a topic falls below it."""


HELD_OUT_MIN_PRECISION = 0.8
HELD_OUT_MIN_RECALL = 0.6
"""held-out.txt was written after the taxonomy was tuned on ai-infra-new.txt and the taxonomy was not
changed afterwards: measured 0.88 / 0.65 (15 right, 2 extra, 8 missed; the seed-only taxonomy: 0.83 /
0.43). Only 23 reader tags, so one tag moves recall by 4 points: the bound sits one to two tags below."""


def measure(
    taxonomy: Path, bank_file: str = "ai-infra-new.txt", gold_file: str = "gold.yml"
) -> tuple[float, float, list[str]]:
    problems = Problems()
    tags = load_taxonomy(taxonomy, problems)
    bank = parse_bank(FIXTURES / bank_file, "new", "zh", problems)
    assert bank is not None and not problems.errors, problems.errors
    gold = yaml.safe_load((FIXTURES / gold_file).read_text(encoding="utf-8"))
    assert [g["q"] for g in gold] == [q.text for q in bank.questions]
    right = extra = missed = 0
    misses = []
    for q, g in zip(bank.questions, gold, strict=True):
        got, want = set(assign_tags(tags, [q])), set(g["tags"])
        right, extra, missed = right + len(got & want), extra + len(got - want), missed + len(want - got)
        if got != want:
            misses.append(f"{q.text}: got {sorted(got)}, a reader gives {sorted(want)}")
    return right / (right + extra), right / (right + missed), misses


def test_tags_of_a_new_bank_have_high_precision_and_recall() -> None:
    assert len(yaml.safe_load((FIXTURES / "gold.yml").read_text(encoding="utf-8"))) >= 30
    precision, recall, misses = measure(ROOT / "banks" / "taxonomy.yml")
    print(f"tags on the new bank: precision {precision:.2f}, recall {recall:.2f}", *misses, sep="\n  ")
    assert precision >= MIN_PRECISION and recall >= MIN_RECALL, misses


def test_tags_of_held_out_questions_written_after_the_tuning() -> None:
    precision, recall, misses = measure(ROOT / "banks" / "taxonomy.yml", "held-out.txt", "held-out.gold.yml")
    print(f"tags on the held-out questions: precision {precision:.2f}, recall {recall:.2f}", *misses, sep="\n  ")
    assert precision >= HELD_OUT_MIN_PRECISION and recall >= HELD_OUT_MIN_RECALL, misses


def test_a_question_no_tag_fits_warns_with_its_line_and_fails_under_strict(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    zh = banks / "ai-infra-3.txt"
    text = (
        zh.read_text(encoding="utf-8").rstrip("\n")
        + "\nQ: 面试时如何介绍自己的项目？\n先讲背景，再讲你的贡献和结果。\n"
    )
    zh.write_text(text, encoding="utf-8")
    line = text.splitlines().index("Q: 面试时如何介绍自己的项目？") + 1
    warnings = generate(banks, tmp_path / "docs").warnings
    found = [w for w in warnings if "no tag fits this question" in w]
    assert (len(found) == 1 and found[0].startswith(f"{zh}:{line}: ")) or f"ai-infra-3.txt:{line}: " in found[0]
    with pytest.raises(BuildError, match=r"\(strict\) no tag fits"):
        generate(banks, tmp_path / "docs2", strict=True)


def test_implies_must_name_another_tag(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    tax = banks / "taxonomy.yml"
    text = tax.read_text(encoding="utf-8").replace("implies: [inference]", "implies: [inferense]")
    tax.write_text(text, encoding="utf-8")
    line = text.splitlines().index("    implies: [inferense]") + 1
    with pytest.raises(BuildError) as info:
        generate(banks, tmp_path / "docs")
    assert any(p.line == line and "`inferense`" in p.message for p in info.value.problems), info.value
