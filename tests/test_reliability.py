"""Reliability: nothing lost or invented (verify.py), safe paths, deterministic and atomic builds, clear config errors."""

from __future__ import annotations

import collections
import hashlib
import html
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studysite import cache
from studysite.build import ASIDES, build_site_model, generate, load_sources
from studysite.enrich.convert import convert_text
from studysite.errors import BuildError, Problems
from studysite.languages import LANGUAGES, Language
from studysite.model import LANGS, Bank, BankInfo, ListBlock, Site
from studysite.site import verify
from studysite.site.verify import check_built_site
from studysite.sources.parse import parse_text
from studysite.write import FileState, UnsafePath, check_path, staged_tree, write_tree_in_place
from tests.sitekit import ROOT, SEED, build_site, copy_banks, installed_package, prepare_work

BUILD_SITE = [sys.executable, str(ROOT / "scripts" / "build_site.py")]


def tree_digest(root: Path) -> str:
    """One hash over every path and every byte under `root` (symlinks not followed)."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        if path.is_file() and not path.is_symlink():
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def differing_files(a: Path, b: Path) -> list[str]:
    names_a = {p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file()}
    names_b = {p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file()}
    out = sorted(names_a ^ names_b)
    out += sorted(n for n in names_a & names_b if (a / n).read_bytes() != (b / n).read_bytes())
    return out


def seed_model(banks: Path) -> tuple:  # type: ignore[type-arg]
    problems = Problems()
    sources = load_sources(banks, problems)
    site, _ = build_site_model(sources)
    return sources, site


# --- nothing lost, nothing invented ----------------------------------------------------------


def _seed_line(needle: str) -> tuple[int, str]:
    for number, line in enumerate((SEED / "ai-infra-3.txt").read_text(encoding="utf-8").split("\n"), start=1):
        if needle in line:
            return number, line
    raise AssertionError(needle)


def _question_page(site_dir: Path, site: Site, text: str, prefix: str = "") -> Path:
    entry = next(e for e in site.entries.values() if text in e.text["zh"].text)
    return site_dir / prefix / entry.bank_id / entry.slug / "index.html"


@pytest.fixture
def seed_copy(seed_site: Path, tmp_path: Path) -> tuple[Path, Path, object, Site]:
    """A private copy of the built seed site, with the banks and model it was built from."""
    site_dir = tmp_path / "site"
    shutil.copytree(seed_site, site_dir)
    banks = seed_site.parent / "banks"
    sources, site = seed_model(banks)
    return site_dir, banks, sources, site


def test_verify_passes_on_the_seed_site(seed_copy: tuple) -> None:
    site_dir, _, sources, site = seed_copy
    assert check_built_site(sources.banks, site, site_dir) == []


def test_verify_names_file_and_line_of_a_dropped_line(seed_copy: tuple) -> None:
    site_dir, banks, sources, site = seed_copy
    number, _ = _seed_line("PagedAttention减少内存碎片")
    page = _question_page(site_dir, site, "Prefill和Decode阶段")
    text = page.read_text(encoding="utf-8")
    sabotaged = re.sub(DROP, "", text, count=1)  # the item's words go; its glossary markup stays
    assert sabotaged != text
    page.write_text(sabotaged, encoding="utf-8")
    problems = check_built_site(sources.banks, site, site_dir)
    assert [(p.line, p.message.split(" page")[0]) for p in problems] == [(number, "line not visible on its built")]
    assert str(problems[0]).startswith(f"{banks / 'ai-infra-3.txt'}:{number}: line not visible")


def test_verify_checks_the_converted_pages_against_the_converted_bank_lines(seed_copy: tuple) -> None:
    """繁體中文 pages hold each bank line converted (site/verify.py converts the file's lines itself): a
    line the Traditional page lost, or left unconverted, is named by the Chinese bank's FILE:LINE."""
    site_dir, banks, sources, site = seed_copy
    item = next(item for item in LANGUAGES.items if item.source == "converted")
    number, _ = _seed_line("PagedAttention减少内存碎片")
    page = _question_page(site_dir, site, "Prefill和Decode阶段", item.root)
    text = page.read_text(encoding="utf-8")
    converted = convert_text("减少内存碎片", item.opencc)
    assert converted != "减少内存碎片" and converted in text  # 減少記憶體碎片
    page.write_text(text.replace(converted, "减少内存碎片", 1), encoding="utf-8")  # back to Simplified
    problems = check_built_site(sources.banks, site, site_dir)
    assert [p.line for p in problems] == [number], problems
    assert str(problems[0]).startswith(f"{banks / 'ai-infra-3.txt'}:{number}: line not visible"), problems
    assert f"{item.root}ai-infra-3/" in problems[0].message


def test_verify_keeps_converted_bank_lines_by_their_text_and_still_finds_a_lost_line(
    seed_copy: tuple, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check keeps each bank's lines as it converted them (a shard beside docs/, by the lines'
    text): the next check converts none of an unchanged bank's lines, loads no OpenCC, and finds the
    same line lost from a 繁體中文 page as a check that converts them."""
    site_dir, _, sources, site = seed_copy
    docs = tmp_path / "docs"
    lines = cache.shard(docs, "check-lines")
    assert check_built_site(sources.banks, site, site_dir, lines) == []
    lines.save()
    item = next(item for item in LANGUAGES.items if item.source == "converted")
    page = _question_page(site_dir, site, "Prefill和Decode阶段", item.root)
    converted = convert_text("减少内存碎片", item.opencc)
    page.write_text(page.read_text(encoding="utf-8").replace(converted, "减少内存碎片", 1), encoding="utf-8")
    converting = check_built_site(sources.banks, site, site_dir)

    def no_conversion(text: str, config: str) -> str:
        raise AssertionError(f"converted again: {text!r}")

    monkeypatch.setattr(verify, "convert_text", no_conversion)
    kept = check_built_site(sources.banks, site, site_dir, cache.shard(docs, "check-lines"))  # a new build's
    assert [str(p) for p in kept] == [str(p) for p in converting] and len(kept) == 1, kept


def test_verify_catches_a_dropped_title_question_and_page(seed_copy: tuple) -> None:
    site_dir, _, sources, site = seed_copy
    # The bank title vanishes from the English bank page, a question from its English heading,
    # and one Chinese question page is not built at all.
    _replace_heading(site_dir / "en" / "ai-infra-3" / "index.html", "X")
    _replace_heading(_question_page(site_dir, site, "Two-batch overlap", "en/"), "?")
    entry = next(e for e in site.entries.values() if "Two-batch overlap" in e.text["zh"].text)
    gone = _question_page(site_dir, site, "Megatron-LM中通信优化")
    shutil.rmtree(gone.parent)
    found = {(Path(p.path).name, p.line) for p in check_built_site(sources.banks, site, site_dir)}
    zh_line = next(e for e in site.entries.values() if "Megatron-LM中通信优化" in e.text["zh"].text).text["zh"].line
    assert ("ai-infra-3.en.txt", 1) in found
    assert ("ai-infra-3.en.txt", entry.text["en"].line) in found
    assert ("ai-infra-3.txt", zh_line) in found


def _replace_heading(page: Path, text: str) -> None:
    source = page.read_text(encoding="utf-8")
    changed = re.sub(r"(<h1\b[^>]*>).*?(</h1>)", lambda m: m.group(1) + text + m.group(2), source, count=1, flags=re.S)
    assert changed != source
    page.write_text(changed, encoding="utf-8")


def test_verify_catches_an_invented_question_page(seed_copy: tuple) -> None:
    site_dir, _, sources, site = seed_copy
    real = _question_page(site_dir, site, "Two-batch overlap")
    fake = site_dir / "ai-infra-3" / "not-in-any-bank" / "index.html"
    fake.parent.mkdir()
    shutil.copy(real, fake)
    problems = check_built_site(sources.banks, site, site_dir)
    assert [p.message for p in problems] == ["question page that no bank holds (nothing may be invented)"]
    assert problems[0].path.endswith("ai-infra-3/not-in-any-bank/index.html")


# What the check reads of a page: the first `<h1>` and the first answer `<div>`, as a regex over the
# decoded page finds them, however the page's bytes are arranged (verify.py works on the bytes).
_PAGE_PIECES = [
    "<h1",
    "<h1>",
    '<h1 id="x">',
    "<h1x>",
    "<h1\u00e9>",
    "<h1\t>",
    '<h1 title="</h1>">',
    "</h1>",
    ">",
    "<",
    '<div class="qa-answer"',
    '<div class="qa-answer">',
    ' data-qa-slug="s"',
    "</div>",
    "<div>",
    "<b>",
    "</b>",
    "&amp;",
    " ",
    "\n",
    "\u3000",
    "中文",
    "abc",
    '"',
    "\udcc3",
    "\udce4\udcb8",
]


def _reference_fragments(page: str) -> tuple[str | None, str | None, str | None]:
    def visible(fragment: str) -> str:
        return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]*>", "", fragment))).strip()

    heading = re.search(r"<h1\b[^>]*>(.*?)</h1>", page, re.S)
    shown = visible(heading.group(1)) if heading else None
    start = page.find('<div class="qa-answer"')
    if start < 0:
        return (shown, None, None)
    open_end = page.find(">", start) + 1
    end = page.find("</div>", open_end)
    slug = re.search(r'data-qa-slug="([^"]*)"', page[start:open_end])
    return (shown, visible(page[open_end : end if end >= 0 else len(page)]), slug.group(1) if slug else None)


@given(st.lists(st.sampled_from(_PAGE_PIECES), max_size=16))
@settings(max_examples=3000, deadline=None)
def test_verify_reads_the_first_heading_and_answer_of_any_page(pieces: list[str]) -> None:
    data = "".join(pieces).encode("utf-8", errors="surrogateescape")  # "\udcc3": a stray byte, not UTF-8
    assert verify._fragments(data) == _reference_fragments(data.decode("utf-8", errors="replace"))


DROP = r"减少内存碎片(?=。</li>)"
"""Part of one list item of the seed bank (banks/ai-infra-3.txt), as rendered."""

SABOTAGE = """
import re

import studysite.pages.render as render

_render_site = render.render_site

def render_site(site, lang, *args, **kwargs):
    for page in _render_site(site, lang, *args, **kwargs):
        if page.path.endswith(".md") and "Prefill和Decode" in page.text:
            page = render.Page(page.path, re.sub(r"减少内存碎片(?=。</li>)", "", page.text, count=1))
        yield page

render.render_site = render_site
"""


def test_a_renderer_that_drops_a_line_fails_the_build(tmp_path: Path) -> None:
    """End to end: a sabotaged renderer (loaded before the build) makes `mkdocs build` fail with FILE:LINE."""
    banks = copy_banks(tmp_path / "banks")
    env = prepare_work(banks, tmp_path / "work")
    (tmp_path / "sabotage").mkdir()
    (tmp_path / "sabotage" / "sitecustomize.py").write_text(SABOTAGE, encoding="utf-8")
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "sabotage"), str(ROOT)])
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(tmp_path / "work" / "mkdocs.yml")],
        cwd=tmp_path / "work",
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    number, _ = _seed_line("PagedAttention减少内存碎片")
    assert proc.returncode != 0
    assert f"{banks / 'ai-infra-3.txt'}:{number}: line not visible on its built page" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_verify_reads_each_page_once_at_1000_questions(
    tmp_path: Path, seed_site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2,000 question pages of the real page's size check clean, each page read once (what keeps the check
    linear; its time at 5,000 questions is `make bench`'s "site check" row, not a timed test here)."""
    n = 1000
    lines = ["大题库"]
    for i in range(n):
        lines += [
            f"Q: 第{i}题：如何估计训练时间？",
            f"答案{i}：训练时间 = 6 * N * D。",
            "要点：",
            f"- 要点{i}甲",
            f"- 要点{i}乙。",
        ]
    bank_file = tmp_path / "big.txt"
    bank_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    bank = parse_text(bank_file.read_text(encoding="utf-8"), str(bank_file), "big", "zh", Problems())
    assert bank is not None and len(bank.questions) == n
    slugs = tuple(f"q{i}" for i in range(n))
    site = _one_bank_site(bank, slugs)
    out = tmp_path / "site"
    _hand_built_pages(bank, slugs, seed_site, out)
    reads: collections.Counter[str] = collections.Counter()
    read_page = verify._read_page

    def counted(path: str) -> bytes:
        reads[path] += 1
        return read_page(path)

    monkeypatch.setattr(verify, "_read_page", counted)
    start = time.process_time()
    problems = check_built_site(((bank, None),), site, out)
    spent = time.process_time() - start
    monkeypatch.undo()
    assert problems == []
    pages = {str(p) for p in out.rglob("*.html")}
    assert set(reads) == pages and set(reads.values()) == {1}, reads.most_common(3)
    print(f"verify: {len(pages)} pages, {spent:.2f} s CPU")


REPEATS = """重复行题库
Q: 哪些行会重复？
要点：
- 同上
- 同上
- 同上，但更长。
要点：
- 最后一项。
"""


def test_verify_counts_repeated_and_contained_lines(tmp_path: Path, seed_site: Path) -> None:
    """A line the bank has twice (or inside a longer line) must be shown as often: one dropped copy is named."""
    bank_file = tmp_path / "repeats.txt"
    bank_file.write_text(REPEATS, encoding="utf-8")
    bank = parse_text(REPEATS, str(bank_file), "repeats", "zh", Problems())
    assert bank is not None
    site = _one_bank_site(bank, ("q",))
    whole = tmp_path / "whole"
    _hand_built_pages(bank, ("q",), seed_site, whole)
    assert check_built_site(((bank, None),), site, whole) == []
    # `同上` is the whole of two items and part of a third; `要点：` is two lead-ins.
    for dropped, blamed, times in (
        ("同上", 5, "shown 2 of the 3 times"),
        ("要点：", 7, "shown 1 of the 2 times"),
        ("同上，但更长。", 6, ""),
    ):
        out = tmp_path / f"without-{blamed}"
        _hand_built_pages(bank, ("q",), seed_site, out, drop=dropped)
        problems = check_built_site(((bank, None),), site, out)
        # once per language: the untranslated bank's Chinese is on the English page too, and a
        # converted language's check names the line as converted
        want = [
            (blamed, convert_text(dropped, item.opencc) if item.source == "converted" else dropped)
            for item in LANGUAGES.items
        ]
        assert sorted((p.line, p.excerpt) for p in problems) == sorted(want), problems
        assert all(p.message.startswith("line not visible on its built page") and times in p.message for p in problems)


def _one_bank_site(bank: Bank, slugs: tuple[str, ...]) -> Site:
    return Site(
        banks=(BankInfo(bank.id, {"zh": bank.title, "en": bank.title}, slugs, False, {"zh": bank.path}),),
        entries={},
        tags=(),
        glossary=(),
        tombstones=(),
    )


def _hand_built_pages(bank: Bank, slugs: tuple[str, ...], seed_site: Path, out: Path, drop: str = "") -> None:
    """Pages of the seed's size for `bank` in every language, each block a `<p>` or `<li>`; the last block
    whose text is `drop` is left out (the sabotage a renderer could do)."""
    template = next((seed_site / "ai-infra-3").glob("*/index.html")).read_text(encoding="utf-8")
    head, _, rest = template.partition("<h1")
    rest = rest.partition("</h1>")[2]
    middle, _, rest = rest.partition('<div class="qa-answer"')
    tail = rest.partition("</div>")[2]
    for item in LANGUAGES.items:  # a converted language's pages hold the text converted, as the build writes it
        prefix = item.root

        def conv(text: str, item: Language = item) -> str:
            return convert_text(text, item.opencc) if item.source == "converted" else text

        (out / prefix / bank.id).mkdir(parents=True)
        (out / prefix / bank.id / "index.html").write_text(
            f"{head}<h1>{conv(bank.title)}</h1>{middle}{tail}", encoding="utf-8"
        )
        for q, slug in zip(bank.questions, slugs, strict=True):
            body: list[str] = []
            for b in q.blocks:
                if isinstance(b, ListBlock):
                    body += ["<ul>", *(f"<li>{html.escape(conv(i.text))}</li>" for i in b.items), "</ul>"]
                else:
                    body.append(f"<p>{html.escape(conv(b.text))}</p>")
            if drop:
                last = max(i for i, part in enumerate(body) if html.unescape(re.sub("<[^>]*>", "", part)) == conv(drop))
                del body[last]
            page = (
                f'{head}<h1 id="x">{html.escape(conv(q.text))}</h1>{middle}'
                f'<div class="qa-answer" id="qa-answer" data-qa-slug="{slug}">{"".join(body)}</div>{tail}'
            )
            (out / prefix / bank.id / slug).mkdir()
            (out / prefix / bank.id / slug / "index.html").write_text(page, encoding="utf-8")


# --- paths -----------------------------------------------------------------------------------


@pytest.mark.unit
@pytest.mark.parametrize(
    "path", ["../x.md", "/etc/passwd", "a/../../x.md", "a//b.md", "./a.md", "a/b\\c.md", "a/b c.md", "", "a/\0.md"]
)
def test_writer_refuses_unsafe_paths(path: str) -> None:
    with pytest.raises(UnsafePath):
        check_path(path)


@pytest.mark.unit
def test_in_place_writer_touches_only_what_changed(tmp_path: Path) -> None:
    """`mkdocs serve`'s writer: new and changed files written, unchanged ones left alone (their
    modification time is what --dirty rebuilds go by), everything else under the folder removed."""
    docs = tmp_path / "docs"
    first = {".gitignore": "*\n", "a/one.md": "1", "a/two.md": "2", "b/three.md": "3"}
    assert sorted(write_tree_in_place(docs, first)) == sorted(first)
    old = {rel: (docs / rel).stat().st_mtime_ns for rel in first}
    (docs / "stray.md").write_text("not generated", encoding="utf-8")
    (docs / "c" / "d").mkdir(parents=True)
    (docs / "c" / "d" / "old.md").write_text("gone", encoding="utf-8")
    (docs / "link.md").symlink_to(docs / "a" / "one.md")
    (docs / "dirlink").symlink_to(docs / "a", target_is_directory=True)
    (docs / "a" / ".two.md.tmp-99999").write_text("a killed write", encoding="utf-8")
    # Until the file system's clock has moved past the first write, a rewrite would keep the mtime.
    probe = tmp_path / "clock"
    while probe.write_text("x", encoding="utf-8") and probe.stat().st_mtime_ns <= max(old.values()):
        pass
    second = {".gitignore": "*\n", "a/one.md": "1", "a/two.md": "2, changed", "e/new.md": "new"}
    left: dict[str, FileState] = {}
    assert write_tree_in_place(docs, second, left=left) == ["a/two.md", "e/new.md"]
    tree = {p.relative_to(docs).as_posix() for p in docs.rglob("*")}
    assert tree == {".gitignore", "a", "a/one.md", "a/two.md", "e", "e/new.md"}
    assert (docs / "a" / "one.md").stat().st_mtime_ns == old["a/one.md"]
    assert (docs / "a" / "two.md").read_text(encoding="utf-8") == "2, changed"
    # `left`: each file's state as the writer left it, which is what the generation's record keeps
    assert sorted((rel, *st) for rel, st in left.items()) == cache.tree_state(docs)


@pytest.mark.unit
def test_in_place_writer_leaves_out_a_file_it_cannot_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file gone right after the writer put it in place (someone else deleted it) is left out of
    `left` instead of failing the generation; the generation then records docs/ by reading it."""
    docs = tmp_path / "docs"
    replace = os.replace

    def replace_then_lose(src: str, dst: str) -> None:
        replace(src, dst)
        if dst.endswith("gone.md"):
            os.unlink(dst)

    monkeypatch.setattr(os, "replace", replace_then_lose)
    left: dict[str, FileState] = {}
    assert write_tree_in_place(docs, {"a/kept.md": "1", "a/gone.md": "2"}, left=left) == ["a/gone.md", "a/kept.md"]
    assert sorted(left) == ["a/kept.md"]


@pytest.mark.unit
@pytest.mark.parametrize("name", ["tags", "banks", "assets", "en", "index", "404", "search", "pagefind", "glossary"])
def test_bank_named_like_a_site_page_is_refused(tmp_path: Path, name: str) -> None:
    banks = copy_banks(tmp_path / "banks")
    (banks / f"{name}.txt").write_text("标题\nQ: 问题？\n答案。\n", encoding="utf-8")
    with pytest.raises(BuildError) as caught:
        generate(banks, tmp_path / "docs")
    assert any(f"`{name}` is reserved" in p.message and p.path.endswith(f"{name}.txt") for p in caught.value.problems)
    assert not (tmp_path / "docs").exists()


@pytest.mark.unit
def test_lock_cannot_publish_over_site_pages_or_outside(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    with open(banks / "slugs.lock", "a", encoding="utf-8") as lock:
        lock.write("tags/x\tremoved\t问题\n../../etc/passwd\tremoved\t问题\nai-infra-3/index\tremoved\t问题\n")
        lock.write("ai-infra-3/two-batch-overlap\tremoved\t重复\n")
    with pytest.raises(BuildError) as caught:
        generate(banks, tmp_path / "docs")
    messages = sorted((p.line, p.message) for p in caught.value.problems)
    assert [m for _, m in messages] == [
        "`tags` is reserved for the site's own pages",
        "malformed lock line: bad path or state 'removed'",
        "slug `index` is reserved (a page of the bank itself): rename it",
        f"path listed twice (first at line {_lock_line(banks, 'ai-infra-3/two-batch-overlap')})",
    ]


def _lock_line(banks: Path, path: str) -> int:
    lines = (banks / "slugs.lock").read_text(encoding="utf-8").split("\n")
    return next(n for n, line in enumerate(lines, start=1) if line.startswith(path + "\t"))


@pytest.mark.unit
def test_tag_names_never_become_paths(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    taxonomy = (banks / "taxonomy.yml").read_text(encoding="utf-8")
    taxonomy = taxonomy.replace("zh: 训练", 'zh: "../../etc"').replace("en: Training", 'en: "../../../tmp/x"')
    (banks / "taxonomy.yml").write_text(taxonomy, encoding="utf-8")
    result = generate(banks, tmp_path / "out" / "docs")
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    # the cache's shards have fixed names (studysite/cache.py): nothing of the input names a file there
    names = ("model", *(f"model.{name}" for name in ASIDES), "last-generation", *(f"pages-{lang}" for lang in LANGS))
    cache = {f"out/.docs.cache/{name}.pickle" for name in names}
    assert all(p.startswith(("banks/", "out/docs/", "out/.docs.lock")) or p in cache for p in written), written
    assert set(result.files) == {p.removeprefix("out/docs/") for p in written if p.startswith("out/docs/")}


def _staged(dest: Path, *, then: object = None, keep_old: Path | None = None) -> None:
    """A new tree holding new.md written into `dest` by `staged_tree`."""
    with staged_tree(dest, then, keep_old) as stage:  # type: ignore[arg-type]
        stage.write({"new.md": "new"})


def _fail() -> None:
    raise RuntimeError("the lock could not be put in place")


@pytest.mark.unit
@pytest.mark.parametrize("keep", [False, True], ids=["old-tree-deleted", "old-tree-kept"])
@pytest.mark.parametrize("old", [False, True], ids=["first-tree", "tree-before"])
def test_a_staged_tree_whose_next_step_fails_leaves_the_folder_as_it_was(tmp_path: Path, old: bool, keep: bool) -> None:
    """`then` (the locks put in place) fails after the swap: the old tree is back, or no tree where there
    was none; nothing is left beside it, the tree to keep included, and the error is `then`'s."""
    dest = tmp_path / "docs"
    if old:
        dest.mkdir()
        (dest / "old.md").write_text("old", encoding="utf-8")
    keep_old = tmp_path / ".docs.before-1" if keep else None
    with pytest.raises(RuntimeError, match="could not be put"):
        _staged(dest, then=_fail, keep_old=keep_old)
    assert sorted(p.name for p in tmp_path.iterdir()) == (["docs"] if old else [])
    if old:
        assert [p.name for p in dest.iterdir()] == ["old.md"]


@pytest.mark.unit
def test_a_tree_that_cannot_be_kept_leaves_the_old_one_in_place(tmp_path: Path) -> None:
    """`make site` keeps the tree a generation replaced (keep_old): where it cannot go, the old tree is
    swapped back before the locks are touched (`then` never runs)."""
    dest = tmp_path / "docs"
    dest.mkdir()
    (dest / "old.md").write_text("old", encoding="utf-8")
    taken = tmp_path / ".docs.before-1"  # a non-empty folder where the old tree should go
    taken.mkdir()
    (taken / "other").write_text("x", encoding="utf-8")
    called: list[bool] = []
    with pytest.raises(OSError):
        _staged(dest, then=lambda: called.append(True), keep_old=taken)
    assert called == []
    assert [p.name for p in dest.iterdir()] == ["old.md"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".docs.before-1", "docs"]
    assert [p.name for p in taken.iterdir()] == ["other"]
    _staged(dest, keep_old=tmp_path / ".docs.before-2")  # and where it can, it goes there
    assert [p.name for p in dest.iterdir()] == ["new.md"]
    assert [p.name for p in (tmp_path / ".docs.before-2").iterdir()] == ["old.md"]


@pytest.mark.unit
def test_two_pages_at_one_url_is_an_error_not_an_overwrite(tmp_path: Path) -> None:
    """A tombstone and a live page at the same URL (a corrupted lock) must never silently replace each other."""
    from dataclasses import replace

    from studysite.build import render_files
    from studysite.model import Tombstone

    banks = copy_banks(tmp_path / "banks")
    _, site = seed_model(banks)
    entry = next(iter(site.entries.values()))
    clash = replace(site, tombstones=(Tombstone(entry.slug, entry.bank_id, f"{entry.bank_id}/other", "x"),))
    with pytest.raises(ValueError, match="two generated pages would be served at"):
        render_files(clash)


# --- deterministic, atomic, one build at a time ----------------------------------------------


def v2_banks(banks: Path) -> None:
    """Edit the seed banks: a question added (both languages) and the title changed."""
    for name, title, extra in (
        ("ai-infra-3.txt", "AI Infra 综合面经题库（修订版）", "Q: 新增的问题：什么是 MFU？\nMFU 是模型算力利用率。\n"),
        (
            "ai-infra-3.en.txt",
            "AI Infra interview questions (revised)",
            "Q: Added: what is MFU?\n@mfu\nModel FLOPs utilisation.\n",  # @slug: which question it translates
        ),
    ):
        lines = (banks / name).read_text(encoding="utf-8").split("\n")
        lines[0] = title
        (banks / name).write_text("\n".join(lines).rstrip("\n") + "\n" + extra, encoding="utf-8")


def snapshot(work: Path, banks: Path) -> dict[str, object]:
    return {
        "site": tree_digest(work / "site"),
        "docs": tree_digest(work / "docs"),
        "lock": (banks / "slugs.lock").read_bytes(),
    }


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory: pytest.TempPathFactory, seed_site: Path) -> dict[str, object]:
    """The seed site, then builds from edited banks that are killed three times, then two at once."""
    work = tmp_path_factory.mktemp("atomic")
    banks = copy_banks(work / "banks")
    env = prepare_work(banks, work)
    # The previous build: the seed site (same code, same banks) and its docs.
    shutil.copytree(seed_site, work / "site")
    generate(banks, work / "docs")
    old = snapshot(work, banks)
    v2_banks(banks)
    ref_banks = work / "ref" / "banks"
    shutil.copytree(banks, ref_banks)
    # The same edited banks, built once, undisturbed, by `mkdocs build` as a MkDocs user runs it: the
    # package installed from its wheel into a fresh venv (issue 16), the project's files in the folder.
    python = installed_package(work / "installed")
    started = time.monotonic()
    reference = build_site(ref_banks, work / "ref", python=python)
    duration = time.monotonic() - started
    cmd = [*BUILD_SITE, "--site-dir", str(work / "site"), "--config", str(work / "mkdocs.yml")]
    # A killed build leaves its temporary folders (the front-end bundles' work folder): in the
    # test's own folder, not in the run's TMPDIR, where each run left three.
    (work / "tmp").mkdir()
    env = dict(env, TMPDIR=str(work / "tmp"))
    seed = int(os.environ.get("STUDYSITE_KILL_SEED", str(random.randrange(10**6))))
    rng = random.Random(seed)
    seen = []
    # Kill points: early (pages being generated), while MkDocs writes the Chinese pages, and while
    # the English site, search index and downloads are being finished.
    for moment in ("early", "zh pages", "finishing"):
        proc = subprocess.Popen(
            cmd, env=env, cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        staging = work / f".site.new-{proc.pid}"
        if moment == "early":
            time.sleep(rng.uniform(0.05, 0.25) * duration)
        elif moment == "zh pages":
            _wait_for(lambda staging=staging, proc=proc: (staging / "index.html").exists() or proc.poll() is not None)
            time.sleep(rng.uniform(0, 0.05) * duration)
        else:
            _wait_for(
                lambda staging=staging, proc=proc: (staging / "en" / "index.html").exists() or proc.poll() is not None
            )
            # (the English site, built alongside the Chinese one, moves in when the Chinese is written:
            # what follows, the check, downloads, Pagefind and offline files, is a short window)
            time.sleep(rng.uniform(0, 0.05) * duration)
        os.killpg(proc.pid, signal.SIGKILL)  # the script, MkDocs and Pagefind, all at once
        proc.wait()
        seen.append(snapshot(work, banks))
    leftovers = sorted(p.name for p in work.iterdir() if ".new-" in p.name)
    for name in (".site.new-999999", ".docs.new-999999"):  # as a build killed while writing would leave
        (work / name / "en").mkdir(parents=True, exist_ok=True)
        (work / name / "en" / "index.html").write_text("half", encoding="utf-8")
    # `make site` twice at once: both against the same site and docs folders.
    procs = [
        subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    results = [(p.wait(timeout=900), p.communicate()) for p in procs]
    return {
        "work": work,
        "old": old,
        "new": snapshot(work, banks),
        "seen": seen,
        "leftovers_after_kills": leftovers,
        "results": results,
        "reference": reference,
        "kill_seed": seed,
    }


def test_two_builds_of_the_same_input_are_byte_identical(interrupted: dict) -> None:
    """The undisturbed reference build (`mkdocs build` of the package installed from its wheel into a fresh
    venv) and the final build (`make site`'s driver, in another folder) match byte for byte."""
    # every language's pages are among what is compared (繁體中文 too)
    assert all((interrupted["reference"] / item.root / "index.html").is_file() for item in LANGUAGES.items)
    differ = differing_files(interrupted["reference"], interrupted["work"] / "site")
    assert differ == [], f"files that differ between two builds of the same input: {differ[:20]}"
    assert tree_digest(interrupted["reference"].parent / "docs") == interrupted["new"]["docs"]
    sitemap = (interrupted["reference"] / "sitemap.xml").read_text(encoding="utf-8")
    assert "<lastmod>" not in sitemap  # no build dates


def test_after_make_site_the_generators_record_still_describes_docs(interrupted: dict) -> None:
    """`make site` keeps the docs tree its generation replaced until the site is in place (to put it
    back on failure), then deletes it, which moves the change time of every file the two trees shared;
    the record of the generation is brought up to date (cache.after_unlinking), so the next generation
    finds nothing changed. It used to back docs/ up with hard links before generating, which moved
    them too: every `make site` generated and compared every page again."""
    docs = interrupted["work"] / "docs"
    assert cache._last_record(docs, None)[0] == cache.tree_state(docs)


def test_killed_builds_leave_the_previous_or_the_new_output_whole(interrupted: dict) -> None:
    old, new = interrupted["old"], interrupted["new"]
    seed = interrupted["kill_seed"]
    for n, state in enumerate(interrupted["seen"]):
        for part in ("site", "docs", "lock"):
            assert state[part] in (old[part], new[part]), (
                f"kill {n} (STUDYSITE_KILL_SEED={seed}) left {part} half-built"
            )
    assert interrupted["seen"][0]["site"] == old["site"]  # the early kill really interrupted a build
    assert old["site"] != new["site"] and old["docs"] != new["docs"]
    phases = [
        {part: "old" if state[part] == old[part] else "new" for part in ("site", "docs")}
        for state in interrupted["seen"]
    ]
    # At least one kill landed mid-build: the pages were regenerated, the site not yet swapped.
    assert {"site": "old", "docs": "new"} in phases, phases
    assert interrupted["leftovers_after_kills"], "a build killed mid-way leaves its staging folder (cleaned up later)"


def test_two_builds_at_once_both_succeed_and_leave_one_whole_site(interrupted: dict) -> None:
    for code, (out, err) in interrupted["results"]:
        assert code == 0, out + err
    work: Path = interrupted["work"]
    assert interrupted["new"]["site"] == tree_digest(interrupted["reference"])
    assert sorted(p.name for p in work.iterdir() if ".new-" in p.name) == []  # killed builds' leftovers gone


def _wait_for(ready, timeout: float = 300) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while not ready() and time.monotonic() < end:
        time.sleep(0.02)


# --- configuration errors --------------------------------------------------------------------


def _mkdocs_build(work: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(work / "mkdocs.yml")],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def _line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1) if needle in line)


@pytest.mark.parametrize(
    ("file", "old", "new", "field"),
    [
        ("mkdocs.yml", "    lang: zh", "    lang: fr", "extra.qa.lang: must be one of zh, en, zh-Hant (got 'fr')"),
        ("mkdocs.yml", 'root: "en/",', 'root: "../x",', "extra.qa.languages[1].root: must be"),
        ("mkdocs.yml", "source: translation}", "source: copied}", "extra.qa.languages[1].source: must be one of"),
        (
            "mkdocs.yml",
            "{lang: en, name: English,",
            "{lang: en, name: '',",
            "extra.qa.languages[1].name: must be a non-empty",
        ),
        (
            "mkdocs.yml",
            'repo_url: !ENV [STUDYSITE_REPO_URL, ""]',
            'repo_url: "javascript:alert(1)"',
            "extra.qa.repo_url: must be",
        ),
        ("mkdocs.en.yml", "    lang: en", "    lang: 42", "extra.qa.lang: must be one of zh, en, zh-Hant (got 42)"),
    ],
)
def test_bad_site_config_names_file_line_and_field(tmp_path: Path, file: str, old: str, new: str, field: str) -> None:
    banks = copy_banks(tmp_path / "banks")
    work = tmp_path / "work"
    env = prepare_work(banks, work)
    text = (work / file).read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {file}"
    (work / file).write_text(text.replace(old, new, 1), encoding="utf-8")
    line = _line_of(work / file, new)
    proc = _mkdocs_build(work, env)
    assert proc.returncode != 0
    assert f"{file}:{line}: {field}" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_missing_qa_settings_are_named(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    work = tmp_path / "work"
    env = prepare_work(banks, work)
    text = (work / "mkdocs.yml").read_text(encoding="utf-8")
    (work / "mkdocs.yml").write_text(text.replace("\n  qa:\n", "\n  qb:\n", 1), encoding="utf-8")
    proc = _mkdocs_build(work, env)
    assert proc.returncode != 0
    assert "mkdocs.yml" in proc.stderr and "extra.qa: missing or not a mapping" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_broken_yaml_in_mkdocs_yml_names_the_line(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    work = tmp_path / "work"
    env = prepare_work(banks, work)
    text = (work / "mkdocs.yml").read_text(encoding="utf-8")
    (work / "mkdocs.yml").write_text(text.replace("strict: true", "strict: [true", 1), encoding="utf-8")
    proc = _mkdocs_build(work, env)
    assert proc.returncode != 0
    assert "mkdocs.yml" in proc.stderr and "line" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("name", "change", "expected"),
    [
        (
            "taxonomy.yml",
            lambda t: t.replace("    en: Inference\n", "    en: Inference\n    colour: red\n", 1),
            "tag: unknown field `colour`",
        ),
        (
            "glossary.yml",
            lambda t: t.replace("  - id: mfu\n", "  - id: mfu\n    colour: red\n", 1),
            "term: unknown field `colour`",
        ),
        ("ai-infra-3.en.txt", lambda t: t.replace("\n- ", "\n", 1), "does not line up"),
        ("slugs.lock", lambda t: t + "garbage line\n", "malformed lock line"),
    ],
)
def test_bad_data_files_name_file_and_line_through_the_site_build(
    tmp_path: Path, name: str, change, expected: str
) -> None:  # type: ignore[no-untyped-def]
    banks = copy_banks(tmp_path / "banks")
    if not (banks / name).exists():
        pytest.fail(f"banks/{name} is missing from the seed banks")
    (banks / name).write_text(change((banks / name).read_text(encoding="utf-8")), encoding="utf-8")
    work = tmp_path / "work"
    env = prepare_work(banks, work)
    proc = _mkdocs_build(work, env)
    assert proc.returncode != 0
    located = [line for line in proc.stderr.splitlines() if f"{name}:" in line and expected in line]
    assert located, proc.stderr
    assert all(line.split(f"{name}:", 1)[1].split(":", 1)[0].isdigit() for line in located)
    assert "Traceback" not in proc.stderr


def test_translation_with_other_blank_lines_still_lines_up(tmp_path: Path) -> None:
    """Alignment compares blocks, not line numbers: an extra blank line in a translation is fine."""
    banks = tmp_path / "banks"
    banks.mkdir()
    (banks / "taxonomy.yml").write_bytes((SEED / "taxonomy.yml").read_bytes())
    (banks / "b.txt").write_text("标题\nQ: 问题一？\n答案一。\n引导：\n- 甲\n- 乙", encoding="utf-8")
    (banks / "b.en.txt").write_text("Title\n\nQ: Question one?\n\nAnswer one.\nLead:\n\n- a\n- b\n\n", encoding="utf-8")
    site = generate(banks, tmp_path / "docs").site
    (entry,) = site.entries.values()
    assert entry.translated


def test_a_warning_fails_the_site_build_and_the_previous_site_stays(tmp_path: Path, seed_site: Path) -> None:
    """`make site` is strict: a warning (a glossary term no question uses) fails it with its FILE:LINE,
    and the site built before stays whole. It used to pass MkDocs `--quiet` too, which drops warnings
    before strict mode counts them: this build then succeeded."""
    banks = copy_banks(tmp_path / "banks")
    env = prepare_work(banks, tmp_path)
    shutil.copytree(seed_site, tmp_path / "site")
    before = tree_digest(tmp_path / "site")
    glossary = banks / "glossary.yml"
    text = glossary.read_text(encoding="utf-8")
    line = text.count("\n") + 1  # the new entry's first line
    glossary.write_text(
        text + "  - id: unused-term\n    zh: 无人使用\n    en: Used by nobody\n"
        "    zh_def: 没有题目用到的术语。\n    en_def: A term no question uses.\n",
        encoding="utf-8",
    )
    cmd = [*BUILD_SITE, "--site-dir", str(tmp_path / "site"), "--config", str(tmp_path / "mkdocs.yml")]
    proc = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert f"glossary.yml:{line}: glossary term `unused-term` is used by no question" in proc.stderr, proc.stderr
    assert "INFO" not in proc.stderr  # MkDocs' progress lines are left out
    assert tree_digest(tmp_path / "site") == before
