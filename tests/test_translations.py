"""Translations tied by slug: edits to the Chinese never attach English to the wrong question, stale
English is marked and warned, `make translation` writes a template that round-trips."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from studysite.build import build_site_model, generate, load_sources
from studysite.errors import BuildError, Problems
from studysite.sources import translations
from studysite.sources.parse import parse_bank
from tests.sitekit import ROOT, copy_banks

BANK = "ai-infra-3"
_SCRIPT = [sys.executable, str(ROOT / "scripts/translations.py")]
STALE_EN = "The Chinese was updated after this translation"


def _build(banks: Path, out: Path) -> tuple[list[str], dict[str, str]]:
    result = generate(banks, out)
    return result.warnings, result.files


def _en_title(files: dict[str, str], slug: str) -> str:
    """The English page's title as a reader sees it (its front matter's, which every page has)."""
    page = files[f"en/{BANK}/{slug}.md"]
    return html.unescape(json.loads(next(line[7:] for line in page.splitlines() if line.startswith("title: "))))


def _questions(text: str) -> list[tuple[int, str]]:
    return [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.startswith("Q: ")]


def test_chinese_edit_marks_english_stale_and_english_edit_clears_it(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    warnings, files = _build(banks, tmp_path / "docs")
    assert not [w for w in warnings if "stale" in w]
    assert STALE_EN not in files[f"en/{BANK}/two-batch-overlap.md"]

    zh = banks / f"{BANK}.txt"
    old = "- 通信量很小，通信本身不是瓶颈。"
    zh_line = zh.read_text(encoding="utf-8").splitlines().index(old) + 1
    zh.write_text(zh.read_text(encoding="utf-8").replace(old, "- 通信量很小（例如只有几 KB），通信本身不是瓶颈。"))
    warnings, files = _build(banks, tmp_path / "docs")
    stale = [w for w in warnings if "stale" in w]
    en_line = next(n for n, q in _questions((banks / f"{BANK}.en.txt").read_text()) if "two-batch" in q)
    assert len(stale) == 1, warnings
    assert f"{BANK}.en.txt:{en_line}: " in stale[0]
    q_line = next(n for n, q in _questions(zh.read_text()) if "Two-batch" in q)
    assert f"{BANK}.txt:{q_line}" in stale[0] and zh_line > q_line
    page = files[f"en/{BANK}/two-batch-overlap.md"]
    assert STALE_EN in page and "通信量很小（例如只有几 KB）" in page
    assert STALE_EN not in files[f"en/{BANK}/optimizations-deepseek-v3.md"]  # the others untouched
    assert "中文原文在这份英文翻译之后有过修改" not in files[f"{BANK}/two-batch-overlap.md"]

    # The next build still says so (the lock keeps the Chinese the English was written for).
    warnings, files = _build(banks, tmp_path / "docs")
    assert len([w for w in warnings if "stale" in w]) == 1

    en = banks / f"{BANK}.en.txt"
    en.write_text(
        en.read_text(encoding="utf-8").replace(
            "- The communication volume is very small,", "- The communication volume is very small (a few KB),"
        )
    )
    warnings, files = _build(banks, tmp_path / "docs")
    assert not [w for w in warnings if "stale" in w], warnings
    assert STALE_EN not in files[f"en/{BANK}/two-batch-overlap.md"]


def test_reviewed_mark_clears_a_stale_translation(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    zh = banks / f"{BANK}.txt"
    zh.write_text(zh.read_text(encoding="utf-8").replace("- Cluster：", "- Thread Block Cluster："))
    warnings, _ = _build(banks, tmp_path / "docs")
    assert len([w for w in warnings if "stale" in w]) == 1
    proc = subprocess.run(
        [
            *_SCRIPT,
            "--banks",
            str(banks),
            "reviewed",
            f"{BANK}/porting-operators-ampere-architecture-hopper-architecture",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    warnings, files = _build(banks, tmp_path / "docs")
    assert not [w for w in warnings if "stale" in w], warnings
    assert STALE_EN not in files[f"en/{BANK}/porting-operators-ampere-architecture-hopper-architecture.md"]


def test_insert_delete_reword_reorder_keep_every_untouched_translation(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    _, before = _build(banks, tmp_path / "docs")
    slugs = [line.split("\t")[0].split("/")[1] for line in (banks / "slugs.lock").read_text().splitlines()[3:]]
    titles = {s: _en_title(before, s) for s in slugs}
    zh = banks / f"{BANK}.txt"
    text = zh.read_text(encoding="utf-8")
    blocks = re.split(r"(?m)^(?=Q: )", text)
    title, questions = blocks[0], [q if q.endswith("\n") else q + "\n" for q in blocks[1:]]
    deleted = next(q for q in questions if q.startswith("Q: Muon和AdamW"))
    questions.remove(deleted)
    questions.reverse()  # every question moves
    questions.insert(0, "Q: FSDP和ZeRO-3有什么异同？\n都把参数、梯度和优化器状态切分到各卡。\n")
    reworded = [q.replace("Q: DeepSeek-V3有哪些优化点？", "Q: DeepSeek-V3有哪些主要的优化点？") for q in questions]
    zh.write_text(title + "".join(reworded), encoding="utf-8")

    warnings, after = _build(banks, tmp_path / "docs")
    lock = (banks / "slugs.lock").read_text()
    assert f"{BANK}/muon-adamw-pretraining-post-training\tremoved" in lock
    for slug, english in titles.items():
        if slug == "muon-adamw-pretraining-post-training":
            assert _en_title(after, slug) == "This question was removed"
            assert not any(english in page for page in after.values())
            continue
        assert _en_title(after, slug) == english, slug  # its own English, not a neighbour's
        assert "Not yet translated" not in after[f"en/{BANK}/{slug}.md"]
    new = [s for s in re.findall(rf"{BANK}/(\S+)\tlive", lock) if s not in titles]
    assert new == ["fsdp-zero-3"]
    assert "Not yet translated" in after[f"en/{BANK}/fsdp-zero-3.md"]
    # The English of the deleted question is kept in its file and named, never shown on another page.
    orphan = [w for w in warnings if "@muon-adamw-pretraining-post-training" in w]
    assert (len(orphan) == 1 and orphan[0].startswith(f"{BANK}.en.txt:")) or f"{BANK}.en.txt:" in orphan[0]
    # The reworded question is only stale (its Chinese changed), not dropped.
    assert [w for w in warnings if "stale" in w and "optimiz" in w.lower()]


def test_template_round_trips(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks", translations=False)
    (banks / translations.LOCK).unlink(missing_ok=True)
    script = [sys.executable, str(ROOT / "scripts/translations.py"), "--banks", str(banks)]
    proc = subprocess.run([*script, "template", BANK], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    target = banks / f"{BANK}.en.txt"
    first = target.read_text(encoding="utf-8")
    # Every line but key lines is the Chinese, marked: dropping the marks gives the bank's text back.
    zh = parse_bank(banks / f"{BANK}.txt", BANK, "zh", Problems())
    problems = Problems()
    en = translations.parse_translation(target, BANK, problems)
    assert zh is not None and en is not None and not problems.errors
    assert len(en.questions) == len(zh.questions)
    for qz, qe in zip(zh.questions, en.questions, strict=True):
        assert qe.pending and qe.text == f"[zh] {qz.text}"
        assert translations._shape(qz) != [] and [k for k, _ in translations._shape(qz)] == [
            k for k, _ in translations._shape(qe)
        ]
    # The template again, on its own output: byte-identical.
    assert subprocess.run([*script, "template", BANK], capture_output=True).returncode == 0
    assert target.read_text(encoding="utf-8") == first
    # Untranslated: the English pages show the Chinese under the notice, and the report says 14 missing.
    _, files = _build(banks, tmp_path / "docs")
    assert "Not yet translated" in files[f"en/{BANK}/two-batch-overlap.md"]
    report = subprocess.run([*script, "report"], capture_output=True, text=True).stdout
    assert f"{BANK}: 0 translated, 0 stale, 14 missing (of 14)" in report
    # A translator replaces one question's lines: that question is English, the rest still notices.
    lines = first.split("\n")
    start = lines.index("@two-batch-overlap") - 1
    end = lines.index("", start)
    lines[start:end] = [
        "Q: What is two-batch overlap? When does it hurt?",
        "@two-batch-overlap",
        "It overlaps one batch's compute with another batch's communication.",
        "It hurts when:",
        "- one batch already fills the GPU.",
        "- communication is tiny.",
        "- memory is tight.",
        "- compute and communication share bandwidth.",
    ]
    target.write_text("\n".join(lines), encoding="utf-8")
    _, files = _build(banks, tmp_path / "docs")
    assert _en_title(files, "two-batch-overlap") == "What is two-batch overlap? When does it hurt?"
    assert "Not yet translated" not in files[f"en/{BANK}/two-batch-overlap.md"]
    assert "Not yet translated" in files[f"en/{BANK}/optimizations-deepseek-v3.md"]
    report = subprocess.run([*script, "report"], capture_output=True, text=True).stdout
    assert f"{BANK}: 1 translated, 0 stale, 13 missing (of 14)" in report
    assert re.search(
        rf"missing \S*{BANK}\.txt:\d+ +optimizations-deepseek-v3 +\(template: \S*{BANK}\.en\.txt:\d+\)", report
    )


def test_template_of_the_seed_translation_is_the_file_itself(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    problems = Problems()
    sources = load_sources(banks, problems)
    site, _ = build_site_model(sources)
    zh, en = sources.banks[0]
    assert translations.template(site, zh, en) == (banks / f"{BANK}.en.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda s: s.replace("@two-batch-overlap\n", ""), "question has no `@slug` key line below it"),
        (lambda s: s.replace("\n@two-batch-overlap\n", "\nstray line\n@two-batch-overlap\n"), "is not right below"),
        (lambda s: s.replace("@two-batch-overlap", "@optimizations-deepseek-v3"), "is translated twice"),
        (
            lambda s: s.replace("- The communication volume is very small,", "The communication volume is very small,"),
            "translation of `two-batch-overlap` does not line up",
        ),
    ],
)
def test_bad_translation_files_name_file_and_line(tmp_path: Path, edit, message: str) -> None:  # type: ignore[no-untyped-def]
    banks = copy_banks(tmp_path / "banks")
    en = banks / f"{BANK}.en.txt"
    en.write_text(edit(en.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(BuildError) as info:
        generate(banks, tmp_path / "docs")
    found = [p for p in info.value.problems if message in p.message]
    assert found and found[0].path.endswith(f"{BANK}.en.txt") and found[0].line > 0, info.value


@pytest.mark.parametrize(
    ("question", "slug"),
    [
        ("FSDP和ZeRO-3有什么异同？", "fsdp-zero-3"),
        ("张量并行的通信开销有多大？", "tensor-parallelism"),
        ("为什么推理服务需要连续批处理？", "continuous-batching"),
        ("如果题库文本有错误怎么办？", "tikuwenben-cuowu"),
    ],
)
def test_new_untranslated_questions_get_slugs_from_their_terms(tmp_path: Path, question: str, slug: str) -> None:
    banks = copy_banks(tmp_path / "banks")
    zh = banks / f"{BANK}.txt"
    zh.write_text(zh.read_text(encoding="utf-8").rstrip("\n") + f"\nQ: {question}\n一行答案。\n", encoding="utf-8")
    before = (banks / "slugs.lock").read_text(encoding="utf-8").splitlines()
    generate(banks, tmp_path / "docs")
    after = (banks / "slugs.lock").read_text(encoding="utf-8").splitlines()
    # path, state, question (the fourth column is the answer's fingerprint)
    assert [line.split("\t")[:3] for line in after if line not in before] == [[f"{BANK}/{slug}", "live", question]]
    assert [line for line in before if line not in after] == []  # every published slug stays as it was


def test_a_partly_translated_bank_builds_and_passes_the_site_check(tmp_path: Path) -> None:
    """Built for real (both languages, strict off: untranslated questions are not warnings): every
    English page holds its own question's lines (English or, untranslated, Chinese), checked by verify.py;
    a line dropped from a translated English page is named at its line of the English file."""
    from studysite.site.verify import check_built_site
    from tests.sitekit import build_site

    banks = copy_banks(tmp_path / "banks", translations=False)
    script = [*_SCRIPT, "--banks", str(banks)]
    assert subprocess.run([*script, "template", BANK], capture_output=True).returncode == 0
    target = banks / f"{BANK}.en.txt"
    lines = target.read_text(encoding="utf-8").split("\n")
    start = lines.index("@two-batch-overlap") - 1
    lines[start : lines.index("", start)] = [
        "Q: What is two-batch overlap? When does it hurt?",
        "@two-batch-overlap",
        "It overlaps one batch's compute with another batch's communication.",
        "It hurts when:",
        "- one batch already fills the GPU.",
        "- communication is tiny.",
        "- memory is tight.",
        "- compute and communication share bandwidth.",
    ]
    target.write_text("\n".join(lines), encoding="utf-8")
    site_dir = build_site(banks, tmp_path / "work", strict=False)
    problems = Problems()
    sources = load_sources(banks, problems)
    site, _ = build_site_model(sources)
    assert check_built_site(sources.banks, site, site_dir) == []
    page = site_dir / "en" / BANK / "two-batch-overlap" / "index.html"
    page.write_text(page.read_text(encoding="utf-8").replace("communication is tiny.", ""), encoding="utf-8")
    found = check_built_site(sources.banks, site, site_dir)
    line = target.read_text(encoding="utf-8").split("\n").index("- communication is tiny.") + 1
    assert [(Path(p.path).name, p.line) for p in found] == [(f"{BANK}.en.txt", line)]
