"""Every kind of bad input: a FILE:LINE message on stderr, a non-zero exit, and docs/ untouched."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.sitekit import FIXTURE_BANKS, build_pages, copy_banks

pytestmark = pytest.mark.unit

GOOD = "标题\nQ: 问题一？\n答案一。\n"

# name -> (files to write into a fresh banks folder, expected lines on stderr)
CASES: dict[str, tuple[dict[str, bytes], list[str]]] = {
    "no answer": (
        {"b.txt": "标题\nQ: 有答案？\n答案。\nQ: 没有答案？\nQ: 第三题？\n答案。\n".encode()},
        ["b.txt:4: question has no answer"],
    ),
    "duplicate question": (
        {"b.txt": "标题\nQ: 同一个问题？\n答。\nQ: 同一个问题?\n答。\n".encode()},
        ["b.txt:4: duplicate question (first at line 2)"],
    ),
    "not utf-8 (GBK)": (
        {"b.txt": "标题\nQ: 问题？\n答案。\n".encode("gbk")},
        ["b.txt:1: file is not UTF-8", "GBK"],
    ),
    "no questions": (
        {"b.txt": "只有标题\n一些文字\n".encode()},
        ["b.txt:2: text before the first question"],
    ),
    "title only": (
        {"b.txt": "只有标题\n".encode()},
        ["b.txt:1: no questions found"],
    ),
    "empty file": (
        {"b.txt": b""},
        ["b.txt:1: empty file"],
    ),
    "taxonomy unknown field": (
        {"taxonomy.yml": b"tags:\n  - id: t\n    zh: a\n    en: b\n    keywords: [x]\n    colour: red\n"},
        ["taxonomy.yml:6: tag: unknown field `colour`"],
    ),
    "taxonomy malformed entry": (
        {"taxonomy.yml": b"tags:\n  - id: t\n    zh: a\n    keywords: x\n"},
        ["taxonomy.yml:4: tag: field `keywords` must be a list", "taxonomy.yml:2: tag: missing field `en`"],
    ),
    "taxonomy bad yaml": (
        {"taxonomy.yml": b"tags:\n  - id: [unclosed\n"},
        ["taxonomy.yml:3: invalid YAML"],
    ),
    "translation misaligned": (
        {"b.txt": "标题\nQ: 问题？\n引导：\n- 一\n- 二\n".encode(), "b.en.txt": b"Title\nQ: Question?\nLead:\n- one\n"},
        ["b.en.txt:4: translation of question 1 does not line up", "b.txt:4 has a bullet list of 2 items"],
    ),
    "bad file name": (
        {"My Bank.txt": GOOD.encode()},
        ["My Bank.txt: bank file names must be lower-case"],
    ),
    "control character": (
        {"b.txt": "标题\nQ: 问题？\n答\x07案。\n".encode()},
        ["b.txt:3: control character U+0007"],
    ),
}


def tree_hash(path: Path) -> str:
    digest = hashlib.sha256()
    for f in sorted(path.rglob("*")):
        digest.update(f.relative_to(path).as_posix().encode())
        if f.is_file():
            digest.update(f.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def previous_docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    banks = copy_banks(tmp_path_factory.mktemp("good") / "banks", source=FIXTURE_BANKS)
    out = tmp_path_factory.mktemp("out") / "docs"
    assert build_pages(banks, out).returncode == 0
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_reported_and_loses_nothing(case: str, tmp_path: Path, previous_docs: Path) -> None:
    files, expected = CASES[case]
    banks = tmp_path / "banks"
    banks.mkdir()
    (banks / "taxonomy.yml").write_bytes((FIXTURE_BANKS / "taxonomy.yml").read_bytes())
    if not any(name.endswith(".txt") and "." not in name[:-4] for name in files):
        (banks / "good.txt").write_text(GOOD, encoding="utf-8")
    for name, data in files.items():
        (banks / name).write_bytes(data)
    before = tree_hash(previous_docs)
    proc = build_pages(banks, previous_docs)
    assert proc.returncode != 0
    for fragment in expected:
        assert fragment in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert tree_hash(previous_docs) == before


def test_all_problems_reported_at_once(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    (banks / "a.txt").write_text("标题\nQ: 无答案？\nQ: 有？\n答。\n", encoding="utf-8")
    (banks / "b.txt").write_text("标题\nQ: 重复？\n答。\nQ: 重复？\n答。\n", encoding="utf-8")
    proc = build_pages(banks, tmp_path / "docs")
    assert proc.returncode == 1
    assert "a.txt:2: question has no answer" in proc.stderr
    assert "b.txt:4: duplicate question" in proc.stderr
    assert not (tmp_path / "docs").exists()


def test_symlinked_bank_refused(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    (tmp_path / "outside.txt").write_text(GOOD, encoding="utf-8")
    (banks / "linked.txt").symlink_to(tmp_path / "outside.txt")
    proc = build_pages(banks, tmp_path / "docs")
    assert proc.returncode == 1
    assert "linked.txt: symbolic links are not allowed" in proc.stderr


def test_untranslated_bank_warns_and_fails_under_strict(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    (banks / "new-bank.txt").write_text(GOOD, encoding="utf-8")
    ok = build_pages(banks, tmp_path / "docs")
    assert ok.returncode == 0 and "new-bank.txt: no English translation" in ok.stderr
    pages = [p.read_text(encoding="utf-8") for p in (tmp_path / "docs" / "en" / "new-bank").glob("*.md")]
    questions = [text for text in pages if 'class="qa-answer"' in text]
    assert questions and all("Not yet translated" in text for text in questions)
    strict = build_pages(banks, tmp_path / "docs2", "--strict")
    assert strict.returncode == 1 and "(strict) no English translation" in strict.stderr
