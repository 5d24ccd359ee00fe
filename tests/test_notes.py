"""Editor's notes: validated with FILE:LINE, shown below the answer in both languages, in the print
edition and on the Anki back side, hidden with the answer in quiz mode."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from studysite.build import generate
from studysite.errors import BuildError
from studysite.languages import LANGUAGES
from studysite.pages import downloads
from tests.sitekit import ARTIFACTS, LOOKS, VIEWPORTS, copy_banks, said
from tests.test_takeaway import read_apkg

BANK = "ai-infra-3"
DSA = "differences-deepseek-dsa-nsa-moba"
NOTES = f"{BANK}.notes.yml"


def test_seed_notes_on_question_pages_in_both_languages(seed_site: Path) -> None:
    for prefix, label, ours, ref_head in (
        ("", "编者更正", "不属于原题库文本", "参考资料"),
        ("en/", "Editor's correction", "not part of the question bank", "References"),
    ):
        html = (seed_site / prefix / BANK / DSA / "index.html").read_text(encoding="utf-8")
        answer_end = html.index("</div>", html.index('<div class="qa-answer"'))
        note = html.index('<div role="note" class="qa-note qa-with-answer"')
        assert note > answer_end, "the note must sit below the answer, outside the bank's text"
        box = html[note : html.index("</div>", note)].replace("&#x27;", "'").replace("&#39;", "'")
        assert label in box and ours in box and ref_head in box
        assert 'href="https://arxiv.org/abs/2502.11089"' in box and 'href="https://arxiv.org/abs/2502.13189"' in box
        assert "lightning indexer" in box
        assert box.count("<details") == 2  # the two follow-ups, answers behind a disclosure
    assert "top-k" in (seed_site / BANK / DSA / "index.html").read_text(encoding="utf-8")


def test_seed_notes_in_the_print_edition_and_on_anki_back_sides(seed_site: Path) -> None:
    for prefix, head in (("", "追问"), ("en/", "Follow-up questions")):
        page = (seed_site / prefix / BANK / "print" / "index.html").read_text(encoding="utf-8")
        section = page[page.index(f'data-qa-slug="{DSA}"') :]
        section = section[: section.index("</section>")]
        assert 'class="qa-note"' in section and head in section and "arxiv.org/abs/2502.11089" in section
        assert "<details" not in section  # on paper the follow-up answers are printed
    for variant, text in (("zh", "参考资料"), ("en", "References"), ("zh-en", "References")):
        deck = read_apkg(seed_site / downloads.bank_deck(BANK, variant))
        backs = [n.fields[1] for n in deck.notes.values() if "DSA" in n.fields[0]]
        assert len(backs) == 1 and 'class="qa-note"' in backs[0] and text in backs[0]
        assert "arxiv.org/abs/2502.13189" in backs[0]


def test_every_seed_note_reference_is_https_and_the_glossary_agrees_on_dsa() -> None:
    text = (Path(__file__).parent.parent / "banks" / NOTES).read_text(encoding="utf-8")
    urls = re.findall(r"url: (\S+)", text)
    assert len(urls) >= 15 and all(u.startswith("https://") for u in urls)
    glossary = (Path(__file__).parent.parent / "banks" / "glossary.yml").read_text(encoding="utf-8")
    dsa = glossary[glossary.index("  - id: dsa") :][:600]
    assert "DeepSeek-V3.2-Exp" in dsa and "top-k" in dsa and "lightning indexer" in dsa


@pytest.mark.parametrize(
    ("yaml_text", "line", "message"),
    [
        ("notes:\n  - slug: no-such-question\n    zh: 注\n    en: note\n", 2, "is not a question of"),
        ("notes:\n  - slug: two-batch-overlap\n    zh: 注\n", 2, "`zh` and `en` go together"),
        ("notes:\n  - slug: two-batch-overlap\n    colour: red\n    zh: 注\n    en: n\n", 3, "unknown field `colour`"),
        (
            "notes:\n  - slug: two-batch-overlap\n    references:\n      - title: T\n        url: http://x.org\n",
            5,
            "must be an https:// address",
        ),
        ("notes:\n  - slug: two-batch-overlap\n    add_tags: [no-such-tag]\n", 3, "not in the taxonomy"),
        (
            "notes:\n  - slug: two-batch-overlap\n    kind: rant\n    zh: 注\n    en: n\n",
            3,
            "field `kind` must be one of",
        ),
        (
            "notes:\n  - slug: two-batch-overlap\n    zh: 注\n    en: n\n  - slug: two-batch-overlap\n    zh: 注\n    en: n\n",
            5,
            "already has a note",
        ),
        (
            "notes:\n  - slug: two-batch-overlap\n    followups:\n      - q_zh: 问\n        q_en: q\n",
            4,
            "missing field",
        ),
        ("notes: [\n", 2, "invalid YAML"),
    ],
)
def test_bad_notes_name_file_and_line(tmp_path: Path, yaml_text: str, line: int, message: str) -> None:
    banks = copy_banks(tmp_path / "banks")
    (banks / NOTES).write_text(yaml_text, encoding="utf-8")
    with pytest.raises(BuildError) as info:
        generate(banks, tmp_path / "docs")
    found = [p for p in info.value.problems if message in p.message]
    assert found, info.value
    assert found[0].path.endswith(NOTES) and found[0].line == line, found[0]
    assert not (tmp_path / "docs").exists()  # nothing written


def test_notes_without_a_bank_are_refused(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    (banks / "gone.notes.yml").write_text("notes: []\n", encoding="utf-8")
    with pytest.raises(BuildError, match=r"gone\.notes\.yml: notes without a bank"):
        generate(banks, tmp_path / "docs")


def test_a_note_pins_and_removes_tags_for_one_question(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    before = generate(banks, tmp_path / "a").site.entries["two-batch-overlap"].tags
    assert "communication" in before and "inference" not in before
    (banks / NOTES).write_text(
        "notes:\n  - slug: two-batch-overlap\n    add_tags: [inference]\n    remove_tags: [communication]\n",
        encoding="utf-8",
    )
    site = generate(banks, tmp_path / "b").site
    after = site.entries["two-batch-overlap"].tags
    assert "inference" in after and "communication" not in after
    assert (
        site.entries["optimizations-deepseek-v3"].tags
        == generate(copy_banks(tmp_path / "c"), tmp_path / "d").site.entries["optimizations-deepseek-v3"].tags
    )


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_quiz_mode_hides_the_note_with_the_answer_and_screenshots(browser: Any, seed_url: str, lang: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    prefix = LANGUAGES[lang].root
    quiz = said(lang, "测验模式", "Quiz mode")
    for device, scheme in LOOKS:
        width = VIEWPORTS[device]["width"]
        context = browser.new_context(viewport=VIEWPORTS[device], color_scheme=scheme)
        page = context.new_page()
        page.goto(f"{seed_url}{prefix}{BANK}/{DSA}/")
        page.wait_for_selector(".qa-quiz")
        if scheme == "dark":  # Material follows its own palette toggle, not only the media query
            page.evaluate("document.body.setAttribute('data-md-color-scheme', 'slate')")
        note = page.locator(".qa-note")
        assert note.is_visible()
        note.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"note-{lang}-{scheme}-{width}.png"))
        page.locator(".qa-note").screenshot(path=str(ARTIFACTS / f"note-box-{lang}-{scheme}-{width}.png"))
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0
        page.get_by_role("switch", name=quiz).check()
        assert page.locator("#qa-answer").is_hidden() and note.is_hidden()
        page.get_by_role("switch", name=quiz).uncheck()
        assert note.is_visible()
        context.close()
