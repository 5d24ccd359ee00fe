"""Golden files: the fixture banks (tests/fixtures/banks) must generate exactly tests/golden/** (UPDATE_GOLDEN=1
rewrites them); and one smoke test that the user's banks/ build."""

from __future__ import annotations

import difflib
import os
import shutil
from pathlib import Path

import pytest

from tests.sitekit import build_pages, build_pages_here, copy_banks

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.unit
def test_seed_bank_generates_golden_pages(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    out = tmp_path / "docs"
    proc = build_pages(banks, out, "--strict")
    assert proc.returncode == 0, proc.stderr
    if os.environ.get("UPDATE_GOLDEN"):
        shutil.rmtree(GOLDEN, ignore_errors=True)
        # docs/.gitignore ignores everything beside it: in tests/golden it would hide the golden files
        shutil.copytree(out, GOLDEN, ignore=shutil.ignore_patterns(".gitignore"))
    got = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and p.name != ".gitignore"}
    want = {p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*") if p.is_file()}
    assert got == want, f"missing: {sorted(want - got)}; unexpected: {sorted(got - want)}"
    diffs = []
    for rel in sorted(got):
        a = (GOLDEN / rel).read_text(encoding="utf-8").splitlines(keepends=True)
        b = (out / rel).read_text(encoding="utf-8").splitlines(keepends=True)
        if a != b:
            diffs.append("".join(difflib.unified_diff(a, b, f"golden/{rel}", f"generated/{rel}")))
    assert not diffs, "generated pages differ from tests/golden (UPDATE_GOLDEN=1 to accept):\n" + "\n".join(diffs)


@pytest.mark.unit
def test_two_builds_are_byte_identical(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    assert build_pages(banks, tmp_path / "a").returncode == 0
    assert build_pages(banks, tmp_path / "b").returncode == 0
    files_a = {p.relative_to(tmp_path / "a"): p.read_bytes() for p in (tmp_path / "a").rglob("*") if p.is_file()}
    files_b = {p.relative_to(tmp_path / "b"): p.read_bytes() for p in (tmp_path / "b").rglob("*") if p.is_file()}
    assert files_a == files_b


@pytest.mark.unit
def test_dropping_in_a_bank_adds_its_pages(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    (banks / "extra-bank.txt").write_text("额外题库\nQ: 什么是NCCL？\nNCCL是通信库。\n", encoding="utf-8")
    (banks / "extra-bank.en.txt").write_text(
        "Extra bank\nQ: What is NCCL?\nNCCL is a communication library.\n", encoding="utf-8"
    )
    proc = build_pages_here(banks, tmp_path / "docs")
    assert proc.returncode == 0, proc.stderr
    for lang in ("", "en"):
        assert (tmp_path / "docs" / lang / "extra-bank" / "nccl.md").exists()
        assert 'href="extra-bank/"' in (tmp_path / "docs" / lang / "index.md").read_text(encoding="utf-8")


@pytest.mark.unit
def test_deleted_question_page_disappears(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    out = tmp_path / "docs"
    assert build_pages_here(banks, out).returncode == 0
    text = (banks / "ai-infra-3.txt").read_text(encoding="utf-8")
    start = text.index("Q: DeepSeek-V3")
    end = text.index("Q: DeepSeek-DSA")
    (banks / "ai-infra-3.txt").write_text(text[:start] + text[end:], encoding="utf-8")
    en = (banks / "ai-infra-3.en.txt").read_text(encoding="utf-8")
    s, e = en.index("Q: What are the optimizations in DeepSeek-V3"), en.index("Q: What are the differences")
    (banks / "ai-infra-3.en.txt").write_text(en[:s] + en[e:], encoding="utf-8")
    assert build_pages_here(banks, out).returncode == 0
    page = (out / "ai-infra-3" / "optimizations-deepseek-v3.md").read_text(encoding="utf-8")
    assert "该问题已删除" in page  # the URL stays, as a 'removed' page
    nav = (out / ".nav.json").read_text(encoding="utf-8")
    assert "optimizations-deepseek-v3" not in nav


def test_the_users_banks_build_strict(tmp_path: Path) -> None:
    """Smoke test on the real banks/ (the golden files above come from tests/fixtures/banks): every
    bank there generates its pages in both languages with no problem, not even a warning."""
    from tests.sitekit import USER_BANKS

    # --locked, as CI builds: a bank edit committed without its updated locks fails here, not on GitHub
    banks = copy_banks(tmp_path / "banks", source=USER_BANKS)
    proc = build_pages(banks, tmp_path / "docs", "--strict", "--locked")
    assert proc.returncode == 0, proc.stderr
    for bank in sorted(p.name.removesuffix(".txt") for p in USER_BANKS.glob("*.txt") if not p.name.endswith(".en.txt")):
        for lang in ("", "en"):
            assert (tmp_path / "docs" / lang / bank / "index.md").is_file(), (lang, bank)
