"""The generator's cache (studysite/cache.py): docs/ byte for byte the same with and without it, after
every kind of edit; a damaged, foreign or unwritable cache is ignored and never fails a build."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from studysite import build, cache, write
from studysite.build import generate
from studysite.enrich import convert, links
from studysite.errors import BuildError
from studysite.languages import LANGUAGES
from studysite.model import LANGS
from studysite.pages import render
from tests.sitekit import ROOT, build_pages, copy_banks

BANK = "ai-infra-3.txt"


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _answer(banks: Path) -> None:
    _replace(banks / BANK, "还需考虑通信开销", "还需考虑通信开销（含 AllReduce 与 NCCL）")


def _title(banks: Path) -> None:
    # a question that other pages link to (related questions, pager): their pages show its title
    _replace(banks / BANK, "Q: 什么是Two-batch overlap？", "Q: 什么是Two-batch overlap（TBO）？")


def _taxonomy(banks: Path) -> None:
    _replace(banks / "taxonomy.yml", "keywords: [训练, ", "keywords: [训练, 显存, ")


def _glossary(banks: Path) -> None:
    _replace(banks / "glossary.yml", "用来衡量训练效率", "用来衡量训练的效率")


def _glossary_name(banks: Path) -> None:
    # a term's Chinese name: its place on the glossary page (by pinyin) and its jump-list letter move
    _replace(banks / "glossary.yml", "zh: 模型算力利用率（MFU）", "zh: 算力利用率（MFU）")


def _glossary_uses(banks: Path) -> None:
    # which questions use a term: one more spelling gives a term more questions (the glossary page's
    # lists), and a term renamed to what no question says warns that it is unused
    _replace(banks / "glossary.yml", "zh_forms: [MFU, 模型算力利用率]", "zh_forms: [MFU, 模型算力利用率, 显存]")
    _replace(
        banks / "glossary.yml", "    zh: DualPipe\n    en: DualPipe\n", "    zh: DualPipe V2\n    en: DualPipe V2\n"
    )


def _translation(banks: Path) -> None:
    _replace(banks / "ai-infra-3.en.txt", "Estimation formula:", "Estimation formula (rough):")


def _notes(banks: Path) -> None:
    _replace(banks / "ai-infra-3.notes.yml", "kind: correction", "kind: caveat")


def _new_question(banks: Path) -> None:
    with open(banks / BANK, "a", encoding="utf-8") as handle:
        handle.write(
            "\nQ: 什么是 Ring AllReduce 的带宽最优性？\n每个 GPU 发送和接收的数据量与 GPU 数无关，约为 2(N-1)/N 倍的数据量。\n"
        )


EDITS: list[tuple[str, Callable[[Path], None]]] = [
    ("nothing (cold)", lambda banks: None),
    ("nothing (warm)", lambda banks: None),
    ("a bank answer", _answer),
    ("a question title", _title),
    ("the taxonomy", _taxonomy),
    ("the glossary", _glossary),
    ("a glossary term's name", _glossary_name),
    ("which questions use a glossary term", _glossary_uses),
    ("a translation", _translation),
    ("the editor's notes", _notes),
    ("a new question (and the lock)", _new_question),
]


def _as_a_new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a process keeps between generations, forgotten: the next one reads the cache as a new process."""
    monkeypatch.setattr(build, "_TERM_NUMBERS", links.TermNumbers())
    monkeypatch.setattr(build, "_HELD_RELATED", links.HeldRelated())
    monkeypatch.setattr(build, "_HELD_LINKS", links.HeldLinks())
    for held in (cache._HELD, cache._HELD_PAGES, cache._HELD_GROUPS, cache._HELD_RESULT):
        held.clear()


@pytest.mark.unit
def test_cached_builds_equal_uncached_ones_after_every_kind_of_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two copies of the banks get the same edits one after another; one copy is always built without a
    cache, the other with the cache its earlier builds left (the first in a process of its own). Whole
    docs/ trees, results and locks agree."""
    _as_a_new_process(monkeypatch)
    plain, cached = copy_banks(tmp_path / "plain" / "banks"), copy_banks(tmp_path / "cached" / "banks")
    for what, edit in EDITS:
        edit(plain)
        edit(cached)
        want = generate(plain, tmp_path / "plain" / "docs", use_cache=False)
        got = generate(cached, tmp_path / "cached" / "docs")
        assert _tree(tmp_path / "cached" / "docs") == _tree(tmp_path / "plain" / "docs"), what
        assert got.files == want.files, what
        assert [w.replace("/cached/", "/plain/") for w in got.warnings] == want.warnings, what
        # the model too (its banks name their files, which are in two folders here)
        assert got.site.entries == want.site.entries and got.site.inline_links == want.site.inline_links, what
        assert [b.slugs for b in got.site.banks] == [b.slugs for b in want.site.banks], what
        assert _tree(cached) == _tree(plain), what  # slugs.lock and translations.lock too
    assert not (tmp_path / "plain" / ".docs.cache").exists()
    assert sorted(p.name for p in (tmp_path / "cached" / ".docs.cache").iterdir()) == sorted(
        [
            cache.LAST,
            "model.pickle",
            *(f"model.{name}.pickle" for name in build.ASIDES),
            *(f"pages-{lang}.pickle" for lang in LANGS),
        ]
    )


@pytest.mark.unit
def test_edits_undone_build_from_the_cache_the_same(tmp_path: Path) -> None:
    """Back to an earlier state: the cache holds the edited state's entries, the build must not use them."""
    banks = copy_banks(tmp_path / "banks")
    docs = tmp_path / "docs"
    generate(banks, docs)
    before = _tree(docs)
    original = (banks / BANK).read_bytes()
    _title(banks)
    _answer(banks)
    generate(banks, docs)
    assert _tree(docs) != before
    (banks / BANK).write_bytes(original)
    generate(banks, docs)
    assert _tree(docs) == before


@pytest.mark.unit
def test_a_later_build_in_the_same_process_reads_no_shard_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`make serve` generates again in its own process after each edit: the shards it read or wrote
    itself are neither read nor unpickled again; those another process wrote since are read again.
    docs/ is the same as without the cache every time."""
    banks, docs = copy_banks(tmp_path / "banks"), tmp_path / "docs"
    generate(banks, docs)
    read: list[str] = []
    real_load, real_loads = cache._load, cache.pickle.loads
    monkeypatch.setattr(cache, "_load", lambda path: read.append(path.name) or real_load(path))
    unpickled = []
    monkeypatch.setattr(cache.pickle, "loads", lambda data: unpickled.append(len(data)) or real_loads(data))
    _answer(banks)
    generate(banks, docs)
    assert (read, unpickled) == ([], [])
    assert _tree(docs) == _tree(_plain(banks, tmp_path / "plain"))
    # another process builds another edit into the same docs/ (scripts/build_pages.py): every shard changes
    _title(banks)
    proc = build_pages(banks, docs)
    assert proc.returncode == 0, proc.stderr
    _glossary(banks)
    generate(banks, docs)
    assert sorted(read) == sorted(["model.pickle", *(f"pages-{lang}.pickle" for lang in LANGS)])
    assert _tree(docs) == _tree(_plain(banks, tmp_path / "plain"))
    generate(banks, tmp_path / "other")  # the process holds the shards of one docs folder, the last
    assert {Path(path).parent for path in cache._HELD} == {cache.folder_for(tmp_path / "other")}


def _plain(banks: Path, docs: Path) -> Path:
    generate(banks, docs, use_cache=False)
    return docs


@pytest.fixture
def rendered(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The slugs of the question pages actually rendered (not taken from the cache), in order."""
    calls: list[str] = []
    real = render.question_page

    def counting(site, entry, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(entry.slug)
        return real(site, entry, *args, **kwargs)

    monkeypatch.setattr(render, "question_page", counting)
    return calls


@pytest.mark.unit
def test_unchanged_pages_come_from_the_cache(tmp_path: Path, rendered: list[str]) -> None:
    banks = copy_banks(tmp_path / "banks")
    docs = tmp_path / "docs"
    first = generate(banks, docs)
    questions = len(first.site.entries)
    assert len(rendered) == len(LANGS) * questions  # cold: every page, in every language
    rendered.clear()
    generate(banks, docs)
    assert rendered == []  # nothing changed: nothing rendered again
    _answer(banks)
    generate(banks, docs)
    edited = "number-tokens-training-estimate-total-time"
    assert rendered.count(edited) == len(LANGS)
    assert len(rendered) < len(LANGS) * questions  # its neighbours may show its title; the rest is unchanged


@pytest.mark.unit
def test_a_shard_is_read_entry_by_entry_and_a_record_whose_index_does_not_fit_ends_it(tmp_path: Path) -> None:
    """A shard's records hold their values one after another behind an index of keys and sizes: read
    back, each value is its own bytes (pickled), unpickled only when asked for. A record whose index
    does not add up to its length (its check sum right) counts as damaged, as a torn one does: it and
    what follows are left out, what came before is kept."""
    shard = tmp_path / "shard.pickle"
    first = {b"a" * 32: cache.pickle.dumps("one"), b"b" * 32: cache.pickle.dumps(("two", 2))}
    second = {b"c" * 32: cache.pickle.dumps([3])}
    shard.write_bytes(cache.SERIAL + cache._record(first) + cache._record(second))
    entries, size, clean = cache._load(shard)
    assert (size, clean) == (shard.stat().st_size, True)
    assert {k: cache.pickle.loads(v) for k, v in entries.items()} == {
        b"a" * 32: "one",
        b"b" * 32: ("two", 2),
        b"c" * 32: [3],
    }
    memo = cache.Memo(shard)
    assert memo.get(b"b" * 32) == ("two", 2) and memo.get(b"d" * 32) is cache.MISSING

    index = cache.pickle.dumps((cache.code_digest(), [(b"c" * 32, 99)]), protocol=cache.pickle.HIGHEST_PROTOCOL)
    payload = len(index).to_bytes(8, "little") + index + second[b"c" * 32]
    shard.write_bytes(cache.SERIAL + cache._record(first) + cache._check(payload) + payload + cache._record(second))
    entries, _, clean = cache._load(shard)
    assert (sorted(entries), clean) == ([b"a" * 32, b"b" * 32], False)


@pytest.mark.unit
@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: b"", id="empty"),
        pytest.param(lambda data: data[: len(data) // 2], id="truncated"),
        pytest.param(lambda data: data[:-100] + bytes(b ^ 0xFF for b in data[-100:]), id="flipped-bytes"),
        pytest.param(lambda data: b"not a cache at all", id="garbage"),
        pytest.param(lambda data: data.replace(cache.SERIAL, b"studysite-cache 0\n", 1), id="other-layout"),
    ],
)
def test_a_damaged_cache_is_ignored(tmp_path: Path, damage: Callable[[bytes], bytes], rendered: list[str]) -> None:
    banks = copy_banks(tmp_path / "banks")
    docs = tmp_path / "docs"
    want = generate(banks, tmp_path / "plain", use_cache=False)
    generate(banks, docs)
    for shard in (tmp_path / ".docs.cache").iterdir():
        shard.write_bytes(damage(shard.read_bytes()))
    rendered.clear()
    got = generate(banks, docs)
    assert got.files == want.files and got.warnings == want.warnings
    assert len(rendered) == len(LANGS) * len(want.site.entries)  # nothing taken from the damaged shards
    rendered.clear()
    generate(banks, docs)
    assert rendered == []  # and the shards were written whole again


@pytest.mark.unit
def test_a_cache_of_other_code_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rendered: list[str]
) -> None:
    banks = copy_banks(tmp_path / "banks")
    docs = tmp_path / "docs"
    monkeypatch.setattr(cache, "_code", [b"another version of the generator".ljust(32, b".")])
    monkeypatch.setattr(cache, "_hasher", [])
    generate(banks, docs)
    monkeypatch.setattr(cache, "_code", [])
    monkeypatch.setattr(cache, "_hasher", [])
    rendered.clear()
    generate(banks, docs)
    assert len(rendered) > 0 and len(rendered) == len(set(rendered)) * len(LANGS)


@pytest.mark.unit
@given(parts=st.lists(st.one_of(st.text(max_size=6), st.binary(max_size=6)), max_size=6))
def test_a_key_from_its_first_parts_is_the_key_of_all_its_parts(parts: list[str | bytes]) -> None:
    for split in range(len(parts) + 1):
        rest = cache.key_from(*parts[:split])
        assert rest(*parts[split:]) == cache.key(*parts)
        assert rest(*parts[split:]) == cache.key(*parts)  # the first parts' hash is copied, not used up
        assert rest(*parts[split:], "more") != cache.key(*parts)


@pytest.mark.unit
def test_the_code_key_covers_every_file_of_the_package_in_every_layer(tmp_path: Path) -> None:
    package = Path(cache.__file__).resolve().parent
    copy = tmp_path / "studysite"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = cache.package_digest(copy)
    assert cache.package_digest(copy) == before
    for name in sorted({p.parent.relative_to(copy).as_posix() for p in copy.rglob("*.py")}):
        source = next(p for p in sorted((copy / name).glob("*.py")) if p.name != "__init__.py" or name == ".")
        original = source.read_bytes()
        source.write_bytes(original + b"\n# edited\n")
        assert cache.package_digest(copy) != before, f"an edit of {source.relative_to(copy)} keeps the old key"
        source.write_bytes(original)
    (copy / "pages" / "new_renderer.py").write_text("", encoding="utf-8")
    assert cache.package_digest(copy) != before, "a new module keeps the old key"


@pytest.mark.unit
def test_a_cache_that_cannot_be_written_does_not_fail_or_change_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    banks = copy_banks(tmp_path / "banks")
    want = generate(banks, tmp_path / "plain", use_cache=False)
    (tmp_path / ".docs.cache").write_text("a file where the cache folder goes", encoding="utf-8")
    got = generate(banks, tmp_path / "docs")
    assert got.files == want.files and got.warnings == want.warnings
    assert _tree(tmp_path / "docs") == _tree(tmp_path / "plain")
    (tmp_path / ".docs.cache").unlink()

    def no_space(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache.os, "replace", no_space)  # the shards' rename, as a full disk fails a write
    got = generate(banks, tmp_path / "docs")
    assert got.files == want.files
    assert [p.name for p in (tmp_path / ".docs.cache").iterdir()] == []  # no half-written shard left


@pytest.mark.unit
def test_bad_input_leaves_the_cache_as_it_was(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    docs = tmp_path / "docs"
    generate(banks, docs)
    before = _tree(tmp_path / ".docs.cache")
    _answer(banks)
    (banks / "broken.txt").write_text("标题\n\nQ: 没有答案的问题\n", encoding="utf-8")
    with pytest.raises(BuildError):
        generate(banks, docs)
    assert _tree(tmp_path / ".docs.cache") == before


@pytest.mark.unit
def test_no_cache_env_builds_without_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.NO_CACHE_ENV, "1")
    banks = copy_banks(tmp_path / "banks")
    generate(banks, tmp_path / "docs")
    assert not (tmp_path / ".docs.cache").exists()


def test_in_place_builds_use_the_cache_too(tmp_path: Path) -> None:
    """`mkdocs serve` writes docs/ file by file; the same pages, with or without the cache."""
    banks = copy_banks(tmp_path / "banks")
    generate(banks, tmp_path / "plain", use_cache=False)
    for _ in range(2):
        build.generate(banks, tmp_path / "docs", in_place=True)
        assert _tree(tmp_path / "docs") == _tree(tmp_path / "plain")
        _answer(banks)
        generate(banks, tmp_path / "plain", use_cache=False)


@pytest.mark.unit
def test_an_in_place_generation_records_docs_as_it_left_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The in-place writer hands the record each file's state as it found or wrote it (instead of a
    second walk of docs/): the same states a walk reads, stray files deleted, so that the next
    generation with nothing changed is `unchanged`, here and in a new process."""
    banks = copy_banks(tmp_path / "banks")
    docs = tmp_path / "docs"
    generate(banks, docs, in_place=True)
    (docs / "stray.md").write_text("not generated", encoding="utf-8")
    (docs / "ai-infra-3" / "stray-link.md").symlink_to(docs / "index.md")
    page = docs / "index.md"
    page.write_bytes(page.read_bytes().replace(b"#", b"=", 1))  # changed behind the generator's back
    assert generate(banks, docs, in_place=True).written == ["index.md"]
    assert not (docs / "stray.md").exists()
    state, paths, _, _ = cache._last_record(docs, None)
    assert state == cache.tree_state(docs)
    assert [s[0] for s in state] == paths
    assert generate(banks, docs, in_place=True).unchanged
    _as_a_new_process(monkeypatch)  # the record is read
    assert generate(banks, docs, in_place=True).unchanged


@pytest.mark.unit
def test_a_new_process_takes_up_related_questions_and_inline_links_where_the_last_one_left_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`make site` after an edit runs in a new process: the related questions' term numbers and last
    call, and each language's inline links, come from what the last process put aside
    (build.RELATED_ASIDE, build.LINKS_ASIDE), so only the edited question's terms are read and its
    answers searched, and docs/ is the one built without the cache. Later generations in one process
    put nothing aside unless the snapshots are gone. A snapshot cut short, damaged in a
    way only its check finds, or of other code counts as none: every question is read and searched, and
    docs/ is the same again."""
    banks, docs = copy_banks(tmp_path / "banks"), tmp_path / "docs"
    related, linked = (cache.folder_for(docs) / f"model.{name}.pickle" for name in build.ASIDES)
    asked: list[str] = []
    real = build._QuestionTerms.__getitem__
    monkeypatch.setattr(
        build._QuestionTerms, "__getitem__", lambda terms, slug: asked.append(slug) or real(terms, slug)
    )
    searched: list[str] = []
    real_search = links._answer_links
    monkeypatch.setattr(
        links,
        "_answer_links",
        lambda pattern, subjects, slug, lines: searched.append(slug) or real_search(pattern, subjects, slug, lines),
    )

    def in_a_new_process(edit: Callable[[Path], None], new: bool = True) -> tuple[set[str], list[str]]:
        """The questions whose terms a generation after `edit`, in a process of its own (or not: `new`),
        read, and those whose answers it searched (once a language)."""
        if new:
            _as_a_new_process(monkeypatch)
        asked.clear()
        searched.clear()
        edit(banks)
        site = generate(banks, docs).site
        read, found = set(asked), sorted(searched)
        assert _tree(docs) == _tree(_plain(banks, tmp_path / "plain"))
        assert read <= set(site.entries)
        return read, found

    every = in_a_new_process(lambda banks: None)[0]  # the first build: everything read, and put aside
    assert related.is_file() and linked.is_file()
    edited = "number-tokens-training-estimate-total-time"  # the question of _answer's edit
    assert in_a_new_process(_answer) == ({edited}, [edited])  # its Chinese answer: the English is as it was
    # A later generation in the same process (`make serve`) puts nothing aside: the next process takes up
    # the first generation's, and reads again what both edits changed.
    kept = related.read_bytes(), linked.read_bytes()
    overlapped = "two-batch-overlap"

    def overlap(banks: Path) -> None:  # that question's answer
        _replace(banks / BANK, "通信量很小，通信本身不是瓶颈。", "通信量很小，通信本身不是瓶颈（如单机小模型）。")

    assert in_a_new_process(overlap, new=False) == ({overlapped}, [overlapped])
    assert (related.read_bytes(), linked.read_bytes()) == kept
    assert in_a_new_process(_answer) == ({edited, overlapped}, sorted([edited, overlapped]))
    # The snapshots deleted under a running process (the cache folder cleared): its next generation
    # puts them aside again, and the process after it reads only what changed since.
    related.unlink()
    linked.unlink()
    assert in_a_new_process(_answer, new=False) == ({edited}, [edited])
    assert related.is_file() and linked.is_file()
    assert in_a_new_process(_answer) == ({edited}, [edited])
    languages = len(LANGUAGES.written)
    all_of_them = sorted(sorted(every) * languages)
    for aside in (related, linked):
        aside.write_bytes(aside.read_bytes()[:-100])  # cut short
    assert in_a_new_process(_answer) == (every, all_of_them)
    # One bit changed, of a weight and of a question's digest: the files still load and hang together,
    # their checks find it.
    snap = cache.shard(docs, "model").aside(build.RELATED_ASIDE)
    for aside, part in ((related, snap.values.tobytes()), (linked, snap.keys[0])):
        data = bytearray(aside.read_bytes())
        at = data.find(part)
        assert at > 0
        data[at] ^= 1
        aside.write_bytes(data)
    assert in_a_new_process(_answer) == (every, all_of_them)
    monkeypatch.setattr(cache, "code_digest", lambda: b"\0" * 32)  # the snapshots just saved, of other code
    assert in_a_new_process(_answer) == (every, all_of_them)


@pytest.mark.unit
@pytest.mark.parametrize("in_place", [False, True], ids=["swapped", "in place"])
def test_after_an_edit_only_files_changed_since_the_last_generation_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_place: bool
) -> None:
    """A page rendered from the key its file in docs/ was written from is taken as it is, unread, while
    that file is as the last generation left it. A file changed since, even to the same size and
    modification time, is read, compared and written again."""
    banks = copy_banks(tmp_path / "banks")
    docs = tmp_path / "docs"
    generate(banks, docs, in_place=in_place)
    before = _tree(docs)
    edited = copy_banks(tmp_path / "edited" / "banks")
    _answer(edited)
    after = _tree(_plain(edited, tmp_path / "edited" / "docs"))
    # a question page the edit leaves as it was (its key too): only its file's state can tell
    rel = next(r for r in sorted(before) if r.startswith("ai-infra-3/") and r.count("/") == 1 and before[r] == after[r])
    page = docs / rel
    was, st = page.read_bytes(), page.stat()
    page.write_bytes(was.replace(b"<h1", b"<h2", 1))  # the same size
    os.utime(page, ns=(st.st_atime_ns, st.st_mtime_ns))
    read: list[str] = []
    real = write._same
    monkeypatch.setattr(write, "_same", lambda path, data: read.append(os.fspath(path)) or real(path, data))
    _answer(banks)
    result = generate(banks, docs, in_place=in_place)
    assert _tree(docs) == _tree(_plain(banks, tmp_path / "plain"))
    read_pages = {Path(path).relative_to(Path(path).parents[1]).as_posix() for path in read if path.endswith(".md")}
    assert rel in read_pages
    questions = [e.path for e in result.site.entries.values()]
    assert len(questions) > 5 and len(read_pages & set(questions)) < len(questions) // 2, read_pages


@pytest.mark.unit
def test_the_cache_stays_within_about_two_sites_worth(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each edit adds a record with the pages it changed; old entries are dropped once they are most of a
    shard. (Without the slack a small site may keep beyond that, so the rule shows within a few edits:
    each adds ~42 KB to a ~125 KB shard.)"""
    monkeypatch.setattr(cache, "_SLACK", 0)
    banks = copy_banks(tmp_path / "banks")
    docs = tmp_path / "docs"
    generate(banks, docs)
    shards = tmp_path / ".docs.cache"
    fresh = {p.name: p.stat().st_size for p in shards.iterdir()}
    bank = banks / BANK
    sizes, shrunk = fresh, set()
    for n in range(8):
        _replace(bank, "估算公式：" if n == 0 else f"估算公式（{n}）：", f"估算公式（{n + 1}）：")
        generate(banks, docs)
        before, sizes = sizes, {p.name: p.stat().st_size for p in shards.iterdir()}
        # (a shard may hold a little more than twice its entries before it is written anew)
        assert all(sizes[name] <= 2.2 * fresh[name] for name in fresh), (n, sizes, fresh)
        shrunk |= {name for name in fresh if name.startswith("pages-") and sizes[name] < before[name]}
    assert shrunk == {f"pages-{lang}.pickle" for lang in LANGS}, "every language's shard written anew along the way"
    want = generate(banks, tmp_path / "plain", use_cache=False)
    assert generate(banks, docs).files == want.files


@pytest.mark.unit
def test_the_pages_of_the_last_generation_are_read_without_its_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record keeps docs/'s state and the page keys apart from the result: after an edit (`last_pages`)
    only that first part is read, so a record whose result is cut off or damaged still names each
    page's key, while `unchanged` finds no result in it and the generation runs (with the same files)."""
    banks = copy_banks(tmp_path / "banks")
    docs = tmp_path / "docs"
    generate(banks, docs)
    record = cache.folder_for(docs) / cache.LAST
    data = record.read_bytes()
    pages = cache.last_pages(docs)
    assert len(pages) > len(LANGS) * 14
    start = len(cache.SERIAL) + 32
    listing = int.from_bytes(data[start : start + 8], "little")
    end = start + 12 + listing  # the end of the first part: the result's length and check follow
    assert cache.unchanged(docs, data[len(cache.SERIAL) : start]) is not None
    for damaged in (data[:end], data[:-1] + bytes([data[-1] ^ 0xFF])):
        record.write_bytes(damaged)
        _as_a_new_process(monkeypatch)
        assert cache.last_pages(docs) == pages
        assert cache.unchanged(docs, data[len(cache.SERIAL) : start]) is None  # the record's own key
    record.write_bytes(data[: end - 1])  # the first part cut short: nothing is taken from it
    _as_a_new_process(monkeypatch)
    assert cache.last_pages(docs) == {}
    again = generate(banks, docs)
    assert not again.unchanged and again.files == generate(banks, tmp_path / "plain", use_cache=False).files


@pytest.mark.unit
def test_a_cut_short_last_record_keeps_the_ones_before(tmp_path: Path, rendered: list[str]) -> None:
    banks = copy_banks(tmp_path / "banks")
    docs = tmp_path / "docs"
    generate(banks, docs)
    _answer(banks)
    generate(banks, docs)  # appends the pages this edit changed
    shard = tmp_path / ".docs.cache" / "pages-zh.pickle"
    shard.write_bytes(shard.read_bytes()[:-10])
    (shard.parent / cache.LAST).unlink()  # the record of that generation too: the next one generates
    rendered.clear()
    want = generate(banks, tmp_path / "plain", use_cache=False)
    rendered.clear()
    assert generate(banks, docs).files == want.files
    # the Chinese pages of the cut record are rendered again; the first record's are still used
    assert 0 < len(rendered) < len(LANGS) * len(want.site.entries)


@pytest.mark.unit
def test_converted_questions_come_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenCC runs again only for a question whose text changed (it was most of a warm generation)."""
    converted: list[str] = []
    real = build.convert_question

    def counting(question, config):  # type: ignore[no-untyped-def]
        converted.append(question.text)
        return real(question, config)

    monkeypatch.setattr(build, "convert_question", counting)
    banks = copy_banks(tmp_path / "banks")
    docs = tmp_path / "docs"
    questions = len(generate(banks, docs).site.entries)
    assert len(converted) == questions * len(convert.converted_languages()) > 0  # cold: every question
    converted.clear()
    generate(banks, docs)
    assert converted == []  # nothing changed: nothing converted again
    _answer(banks)
    generate(banks, docs)
    assert len(converted) == len(convert.converted_languages())  # the edited question, once per converted language


def _state(docs: Path) -> list[tuple[str, int, int]]:
    return [(p.relative_to(docs).as_posix(), p.stat().st_mtime_ns, p.stat().st_ino) for p in sorted(docs.rglob("*"))]


@pytest.mark.unit
def test_nothing_changed_reads_no_bank_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inputs and docs/ as the last generation left them: its result, without parsing a bank, reading a
    shard of the cache (in a new process) or writing a file. Any change to docs/ (a file edited, removed
    or added) or to the options generates again."""
    banks = copy_banks(tmp_path / "banks")
    docs = tmp_path / "docs"
    first = generate(banks, docs)
    before = _state(docs)

    def no_reading(*args: object, **kwargs: object) -> None:
        raise AssertionError("a bank or a shard was read")

    _as_a_new_process(monkeypatch)
    with monkeypatch.context() as m:
        m.setattr(build, "load_sources", no_reading)
        m.setattr(cache, "_load", no_reading)
        again = generate(banks, docs)
    assert again.unchanged and again.written == []
    assert _state(docs) == before  # not a file written, not even renamed
    assert dict(again.files) == dict(first.files) and again.warnings == first.warnings
    assert again.site.entries == first.site.entries and again.url_changes == []
    page = docs / "ai-infra-3" / "two-batch-overlap.md"
    for change in (
        lambda: page.write_text("edited by hand", encoding="utf-8"),
        page.unlink,
        lambda: (docs / "stray.md").write_text("not generated", encoding="utf-8"),
    ):
        change()
        result = generate(banks, docs)
        assert not result.unchanged
        assert _tree(docs) == {k: v.encode("utf-8") for k, v in first.files.items()}  # generated again
        assert generate(banks, docs).unchanged
    assert not generate(banks, docs, repo_url="https://github.com/octo/ai-infra").unchanged  # other options
    assert not generate(banks, docs).unchanged  # back: the last generation had the repository's links


@pytest.mark.unit
def test_nothing_changed_again_in_the_same_process_takes_the_result_it_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process that wrote the record (or read it) holds its result: a generation there that finds
    nothing changed returns it without reading the record again (`make serve`), with lists of its
    own; a record written since by another process is read, once."""
    banks = copy_banks(tmp_path / "banks")
    (banks / "ai-infra-3.en.txt").unlink()  # a warning in the result
    docs = tmp_path / "docs"
    first = generate(banks, docs)
    assert first.warnings
    reads: list[object] = []
    real = cache._read_record
    monkeypatch.setattr(cache, "_read_record", lambda *args, **kw: reads.append(args) or real(*args, **kw))
    again = generate(banks, docs)
    assert again.unchanged and reads == [] and again.warnings == first.warnings
    assert again.site == first.site and dict(again.files) == dict(first.files)
    again.warnings.append("the caller's own")
    assert generate(banks, docs).warnings == first.warnings
    record = cache.folder_for(docs) / cache.LAST
    copy = record.with_name("record.copy")
    copy.write_bytes(record.read_bytes())
    os.replace(copy, record)  # as another process's generation replaces it
    assert generate(banks, docs).unchanged and len(reads) == 1
    assert generate(banks, docs).unchanged and len(reads) == 1  # read, then held
    (docs / "stray.md").write_text("not generated", encoding="utf-8")
    assert not generate(banks, docs).unchanged  # docs/ is still compared with what it held


@pytest.mark.unit
@pytest.mark.parametrize("new_process", [False, True], ids=["same process", "new process"])
def test_the_record_of_an_edit_pickles_only_the_edited_banks_questions_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_process: bool
) -> None:
    """The record keeps each bank's questions apart, and a generation after an edit pickles only the
    banks whose questions changed: in the process that recorded the last one, or in a new process (the
    others' pickles are taken from the last record by their content's key). What a later unchanged
    generation returns is the edited one's result, in this process and in a new one."""
    banks = copy_banks(tmp_path / "banks")
    (banks / "second.txt").write_text(
        "第二个题库\nQ: 什么是 NVLink？\nGPU 之间的高速互连。\n\nQ: 什么是 PCIe？\n主机与设备之间的总线。\n",
        encoding="utf-8",
    )
    docs = tmp_path / "docs"
    generate(banks, docs)
    _answer(banks)  # it changes the answer's line in slugs.lock too: recorded with the lock it wrote
    pickled: list[object] = []
    real = cache.pickle.dumps
    monkeypatch.setattr(cache.pickle, "dumps", lambda value, **kw: pickled.append(value) or real(value, **kw))

    def as_new() -> None:
        if new_process:
            _as_a_new_process(monkeypatch)

    as_new()
    edited = generate(banks, docs)
    groups = [v for v in pickled if isinstance(v, tuple) and v and all(hasattr(q, "blocks") for q in v)]
    assert len(groups) == 1 and len(groups[0]) == len(LANGS) * len(edited.site.bank("ai-infra-3").slugs)
    monkeypatch.setattr(cache.pickle, "dumps", real)
    as_new()
    again = generate(banks, docs)
    assert again.unchanged
    assert again.site == edited.site and again.sources == edited.sources and again.warnings == edited.warnings
    assert _tree(docs) == _tree(_plain(banks, tmp_path / "plain"))


@pytest.mark.unit
def test_a_generation_says_how_long_each_phase_took(tmp_path: Path) -> None:
    """`Result.timings` (what `make bench` prints for an edit): every phase of a generation, in order, and
    within its wall time; an unchanged generation only checked that nothing changed."""
    import time

    banks = copy_banks(tmp_path / "banks")
    docs = tmp_path / "docs"
    generate(banks, docs)
    _answer(banks)
    started = time.perf_counter()
    result = generate(banks, docs)
    wall = time.perf_counter() - started
    assert list(result.timings) == list(build.PHASES) and all(t >= 0 for t in result.timings.values())
    assert 0 < sum(result.timings.values()) <= wall
    assert result.timings["pages"] > 0 and result.timings["model"] > 0
    again = generate(banks, docs)  # recorded with the slugs.lock the edit's generation wrote
    assert again.unchanged and list(again.timings) == ["check"]
    assert list(generate(banks, docs, use_cache=False).timings) == list(build.PHASES[1:])  # nothing to check


@pytest.mark.unit
def test_a_lock_put_back_is_written_again(tmp_path: Path) -> None:
    """A generation that wrote slugs.lock is not replayed for the banks folder it started from."""
    banks = copy_banks(tmp_path / "banks")
    docs = tmp_path / "docs"
    generate(banks, docs)
    old_lock = (banks / "slugs.lock").read_bytes()
    _new_question(banks)
    generate(banks, docs)
    new_lock = (banks / "slugs.lock").read_bytes()
    assert new_lock != old_lock
    assert generate(banks, docs).unchanged  # remembered with the lock it wrote
    (banks / "slugs.lock").write_bytes(old_lock)  # as `git checkout banks/slugs.lock` would
    result = generate(banks, docs)
    assert not result.unchanged and (banks / "slugs.lock").read_bytes() == new_lock


@pytest.mark.unit
@pytest.mark.parametrize("new_process", [False, True], ids=["same process", "new process"])
def test_a_generation_that_wrote_a_lock_is_remembered_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_process: bool
) -> None:
    """Editing an answer changes its fingerprint in slugs.lock, and a title its URL: the generation writes
    the lock, and the next one with nothing changed is `unchanged` (it replays what a generation from
    the new lock finds: no URL changed against it), and after a further edit the pages the edit leaves
    as they were are linked as their files are, unread. (Remembered only under the folder it started
    from, each edit's generation was followed by a whole one, and the next edit compared every file.)"""
    banks = copy_banks(tmp_path / "banks")
    docs = tmp_path / "docs"
    generate(banks, docs)
    _title(banks)
    edited = generate(banks, docs)
    assert edited.url_changes and not edited.unchanged
    if new_process:
        _as_a_new_process(monkeypatch)
    again = generate(banks, docs)
    assert (
        again.unchanged and again.url_changes == [] == generate(banks, tmp_path / "fresh", use_cache=False).url_changes
    )
    read: list[str] = []
    real = write._same
    monkeypatch.setattr(write, "_same", lambda path, data: read.append(os.fspath(path)) or real(path, data))
    texts: list[str] = []  # pages' texts unpickled from the cache: only those a writer needs (cache.Texts)
    loads = cache.pickle.loads
    monkeypatch.setattr(
        cache.pickle, "loads", lambda data: (v := loads(data), isinstance(v, str) and texts.append(v))[0]
    )
    _answer(banks)
    if new_process:
        _as_a_new_process(monkeypatch)
    result = generate(banks, docs)
    questions = [e.path for e in result.site.entries.values()]
    read_pages = {Path(p).relative_to(Path(p).parents[1]).as_posix() for p in read if p.endswith(".md")}
    assert len(questions) > 5 and len(read_pages & set(questions)) < len(questions) // 2, read_pages
    assert len([t for t in texts if t.startswith("---")]) < len(questions) // 2
    assert _tree(docs) == _tree(_plain(banks, tmp_path / "plain"))


@pytest.mark.unit
def test_a_questions_derived_texts_are_kept_out_of_its_digest_and_pickle() -> None:
    """A question keeps its answer lines, text lines and content hash once asked for (model.py), but
    its cache digest and its pickle are its fields alone: the same whether anything asked or not."""
    import pickle

    from studysite.model import ListBlock, ListItem, Paragraph, Question, content_hash

    def fresh() -> Question:
        items = (ListItem("第一点", (3,), ("- 第一点",)), ListItem("第二点", (4,), ("- 第二点",)))
        return Question("什么是 NCCL？", (Paragraph("集合通信库。", 2), ListBlock(False, 1, items)), 1, 0)

    asked, untouched = fresh(), fresh()
    assert asked.answer_lines == ("集合通信库。", "第一点", "第二点")
    assert asked.text_lines == ("什么是 NCCL？", *asked.answer_lines)
    assert content_hash(asked) == asked.content_hash and len(asked.content_hash) == 12
    assert {"answer_lines", "text_lines", "content_hash"} <= vars(asked).keys()
    assert cache.digest(asked) == cache.digest(untouched)
    assert pickle.dumps(asked) == pickle.dumps(untouched)
    again = pickle.loads(pickle.dumps(asked))
    assert again == asked and "content_hash" not in vars(again) and again.content_hash == asked.content_hash


_RECORD_HELD_BACK = """
import os, sys
from pathlib import Path
from studysite import cache
from studysite.cli import exit_now, main

real, real_save, told = cache.remember, cache.Memo.save, []


def wait():
    if not told:
        os.read(int(sys.argv[1]), 1)  # until the test says go (or has closed its end)
        told.append(True)


def held_back(*args, **kwargs):
    wait()
    return real(*args, **kwargs)


def save_held_back(memo):
    if memo.path is not None and memo.path.name == "model.pickle":
        wait()
    return real_save(memo)


cache.remember, cache.Memo.save = held_back, save_held_back
exit_now(main(sys.argv[2:], Path("banks"), Path("docs"), exits_after=True))
"""


@pytest.mark.unit
def test_the_command_returns_before_its_record_is_written_and_the_next_generation_waits_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """scripts/build_pages.py leaves the record of its generation, and the save of the model's shard, to
    a child that goes on after it (studysite/build.py `record_in_background`): the command has
    returned, with docs/ complete and the old tree's deletion left to the child, while both are held
    back here; the docs lock stays held until they are written, so a generation started meanwhile
    waits and finds nothing changed, and the next edit takes every other question's conversion from
    the shard the child saved."""
    banks, docs = copy_banks(tmp_path / "banks"), tmp_path / "docs"
    generate(banks, docs)
    _answer(banks)
    go, held = os.pipe()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _RECORD_HELD_BACK, str(go), "--banks", str(banks), "--out", str(docs)],
            capture_output=True,  # read to its end: the child that goes on must not keep these pipes open
            text=True,
            pass_fds=(go,),
            cwd=ROOT,
            timeout=120,  # a command that waited for its record would wait here for ever
        )
        assert proc.returncode == 0, proc.stderr
        assert "build_pages: 14 questions" in proc.stdout
        assert _tree(docs) == _tree(_plain(banks, tmp_path / "plain"))  # docs/ is the edit's, complete
        with open(tmp_path / ".docs.lock", "a+b") as lock, pytest.raises(BlockingIOError):
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held by the record's writer
    finally:
        os.close(go)
        with contextlib.suppress(BrokenPipeError):  # the command was killed (timeout): nobody to tell
            os.write(held, b"x")
        os.close(held)
    again = generate(banks, docs)  # waits for the lock: the record is written when it gets it
    assert again.unchanged
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".docs.new-")] == []  # the old tree deleted
    converted: list[str] = []
    real = build.convert_question
    monkeypatch.setattr(build, "convert_question", lambda q, config: converted.append(q.text) or real(q, config))
    _title(banks)
    generate(banks, docs)
    assert len(converted) == len(convert.converted_languages())  # only the edited question


@pytest.mark.unit
def test_links_removed_elsewhere_leave_the_record_sound(tmp_path: Path) -> None:
    """`make site` keeps the docs tree a generation replaced until the site is in place, then deletes
    it: each file it shared with the new docs/ (a hard link) gets a new change time, which the record
    holds. `cache.after_unlinking` takes those change times, and only those: the next generation finds
    nothing changed. A file changed otherwise (here, one whose link was not among those removed) leaves
    the record as it was."""
    banks, docs = copy_banks(tmp_path / "banks"), tmp_path / "docs"
    generate(banks, docs, update_lock=False)
    assert generate(banks, docs, update_lock=False).unchanged
    kept = tmp_path / "kept"
    shutil.copytree(docs, kept, copy_function=os.link)
    shared = {p.stat().st_ino for p in kept.rglob("*") if p.is_file()}
    shutil.rmtree(kept)
    assert not generate(banks, docs, update_lock=False).unchanged  # the change times moved: all compared
    shutil.copytree(docs, kept, copy_function=os.link)
    shutil.rmtree(kept)
    record = cache.folder_for(docs) / cache.LAST
    before = record.read_bytes()
    page = next(p for p in sorted(docs.rglob("*.md")))
    cache.after_unlinking(docs, shared - {page.stat().st_ino})  # one file's change is not explained
    assert record.read_bytes() == before
    cache.after_unlinking(docs, shared)
    assert record.read_bytes() != before
    assert generate(banks, docs, update_lock=False).unchanged
