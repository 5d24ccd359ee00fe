"""Every kind of bad input: a FILE:LINE message on stderr, a non-zero exit, and docs/ untouched.

The cases run the command line of scripts/build_pages.py in this process (sitekit.build_pages_here:
the same `studysite.cli.main`, without ~0.5 s of interpreter start-up each); the script itself, as a
maintainer runs it, exits 1 with its messages in test_all_problems_reported_at_once,
test_symlinked_bank_refused and the YAML bomb's test."""

from __future__ import annotations

import hashlib
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.sitekit import FIXTURE_BANKS, ROOT, build_pages, build_pages_here, copy_banks

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
    "taxonomy nested 3,000 deep": (
        {"taxonomy.yml": b"tags: " + b"[" * 3000 + b"]" * 3000 + b"\n"},
        ["taxonomy.yml:1: YAML nested more than 32 levels deep"],
    ),
    "taxonomy alias": (
        {"taxonomy.yml": b"tags:\n  - id: t\n    zh: &n a\n    en: *n\n    keywords: [x]\n"},
        ["taxonomy.yml:4: YAML alias `*n` is not allowed"],
    ),
    "taxonomy tag name with an escaped control character": (
        {"taxonomy.yml": b'tags:\n  - id: t\n    zh: "a\\x1fb"\n    en: b\n    keywords: [x]\n'},
        ["taxonomy.yml:3: control character U+001F in text"],
    ),
    "taxonomy tag name with a line break": (
        {"taxonomy.yml": b'tags:\n  - id: t\n    zh: a\n    en: "b\\n\\n# c"\n    keywords: [x]\n'},
        ["taxonomy.yml:4: control character U+000A in text: delete it (write the value on one line)"],
    ),
    "taxonomy raw control character": (
        {"taxonomy.yml": b"tags:\n  - id: t\n    zh: a\n    en: b\x1f\n    keywords: [x]\n"},
        ["taxonomy.yml:4: invalid YAML: character U+001F is not allowed"],
    ),
    "glossary term with a control character": (
        {
            "glossary.yml": 'terms:\n  - id: t\n    zh: 术语\n    en: "te\\u0085rm"\n    zh_def: 定义。\n'
            "    en_def: Definition.\n".encode()
        },
        ["glossary.yml:4: control character U+0085 in text"],
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
    proc = build_pages_here(banks, previous_docs)
    assert proc.returncode != 0
    for fragment in expected:
        assert fragment in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert tree_hash(previous_docs) == before


BILLION_LAUGHS = "tags: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi", strict=True)
)


def test_billion_laughs_taxonomy_fails_fast_and_small(tmp_path: Path) -> None:
    """Nested aliases (9**9 values from a few hundred bytes) are refused at once: no hang, no memory blow-up."""
    banks = copy_banks(tmp_path / "banks")
    (banks / "taxonomy.yml").write_text(BILLION_LAUGHS, encoding="utf-8")
    assert len(BILLION_LAUGHS.encode()) < 500
    limit = 1 << 31  # 2 GB of address space: the build needs a fraction, the expansion far more

    def small() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_pages.py"), "--banks", str(banks), "--out", str(tmp_path / "d")],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        timeout=60,
        preexec_fn=small,
    )
    assert time.monotonic() - start < 20
    assert proc.returncode == 1, proc.stderr
    assert "taxonomy.yml:2: YAML alias `*a` is not allowed in a data file" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


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


def test_near_miss_question_line_warns_and_fails_under_strict(tmp_path: Path) -> None:
    """`q:` (lower case) stays answer text, with a FILE:LINE warning that --strict turns into a failure;
    `Ｑ：` (full-width, as a Chinese IME types it) is a question."""
    banks = copy_banks(tmp_path / "banks")
    bank = "近似问题\nＱ：全角问题？\n答。\nq: 小写的问题？\n答。\n"
    (banks / "near.txt").write_text(bank, encoding="utf-8")
    (banks / "near.en.txt").write_text(
        "Near misses\nQ: Full width?\nAnswer.\nq: lower case?\nAnswer.\n", encoding="utf-8"
    )
    ok = build_pages_here(banks, tmp_path / "docs")
    assert ok.returncode == 0, ok.stderr
    assert "near.txt:4: looks like a question but is read as answer text" in ok.stderr, ok.stderr
    assert "near.en.txt:4: looks like a question" in ok.stderr
    pages = [p.read_text(encoding="utf-8") for p in (tmp_path / "docs" / "near").glob("*.md")]
    assert sum('class="qa-answer"' in text for text in pages) == 1  # one question, `q:` inside its answer
    strict = build_pages_here(banks, tmp_path / "docs2", "--strict")
    assert strict.returncode == 1 and "near.txt:4: (strict) looks like a question" in strict.stderr, strict.stderr
    assert "Traceback" not in strict.stderr and not (tmp_path / "docs2").exists()


def test_untranslated_bank_warns_and_fails_under_strict(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    (banks / "new-bank.txt").write_text(GOOD, encoding="utf-8")
    ok = build_pages_here(banks, tmp_path / "docs")
    assert ok.returncode == 0 and "new-bank.txt: no English translation" in ok.stderr
    pages = [p.read_text(encoding="utf-8") for p in (tmp_path / "docs" / "en" / "new-bank").glob("*.md")]
    questions = [text for text in pages if 'class="qa-answer"' in text]
    assert questions and all("Not yet translated" in text for text in questions)
    strict = build_pages_here(banks, tmp_path / "docs2", "--strict")
    assert strict.returncode == 1 and "(strict) no English translation" in strict.stderr


def test_a_lock_read_again_gives_the_same_entries_and_a_bad_line_is_reported_every_time(tmp_path: Path) -> None:
    """A process remembers the locks it parsed (`make serve` reads the same lock after every edit:
    slugs._parse_lock): the same text gives equal entries in a list of its own, and a lock with a bad
    line has its line reported on every read."""
    from studysite.enrich import slugs
    from studysite.errors import Problems

    lock = tmp_path / "slugs.lock"
    lock.write_text("# a lock\nai/first\tlive\t问题一\t\nai/second\tremoved\t问题二\t\n", encoding="utf-8")
    for _ in range(3):
        entries = slugs.read_lock(lock, Problems())
        assert [(e.path, e.state, e.text, e.line) for e in entries] == [
            ("ai/first", "live", "问题一", 2),
            ("ai/second", "removed", "问题二", 3),
        ]
        entries.append(entries[0])  # the caller's own list: changing it changes nothing remembered
    lock.write_text(lock.read_text(encoding="utf-8") + "garbage line\n", encoding="utf-8")
    for _ in range(2):
        problems = Problems()
        assert [e.path for e in slugs.read_lock(lock, problems)] == ["ai/first", "ai/second"]
        assert [(p.line, p.message.split(":")[0]) for p in problems.errors] == [(4, "malformed lock line")]
