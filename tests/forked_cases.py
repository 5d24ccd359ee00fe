"""Cases of the forked generator that need a process with no other threads (forking there is safe, so
the generator does fork). Not collected on their own: tests/test_parallel.py runs this file in a fresh
pytest process, because the test session itself runs server threads."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from studysite import build, parallel
from studysite.build import generate
from studysite.enrich import convert
from studysite.errors import BuildError, Problems
from studysite.languages import LANGUAGES
from studysite.model import LANGS
from studysite.sources import glossary
from tests.sitekit import copy_banks

CHILDREN = 4 + len(LANGS) - 1
"""Forked children of a generation with nothing cached: the glossary's unused terms, tags, inline links,
the converted languages' questions (繁體中文, OpenCC), and each language's pages but the main one's
(English, 繁體中文)."""


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Fork even for the 14-question seed, and count the children."""
    if not parallel.can_fork():
        pytest.fail("this machine cannot run the forked path (one core, or threads running): the test needs two cores")
    monkeypatch.setattr(build, "PARALLEL_FROM", 1)
    children: list[int] = []
    real_fork = os.fork

    def counting_fork() -> int:
        pid = real_fork()
        if pid:
            children.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", counting_fork)
    return children


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_forked_build_writes_the_same_files(tmp_path: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    banks = copy_banks(tmp_path / "banks")
    forked = generate(banks, tmp_path / "forked", update_lock=False)
    assert len(forks) == CHILDREN, "nothing cached yet"
    monkeypatch.setenv(parallel.SERIAL_ENV, "1")
    serial = generate(banks, tmp_path / "serial", update_lock=False)
    assert len(forks) == CHILDREN
    assert forked.files == serial.files
    assert forked.site == serial.site
    tree = _tree(tmp_path / "forked")
    assert tree == _tree(tmp_path / "serial")
    assert set(tree) == set(forked.files)
    assert any(name.startswith("en/") for name in tree)


def test_forked_builds_from_the_cache_write_the_same_files(
    tmp_path: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cold, warm and after an edit: the forked build with its cache (the English pages' shard written
    by the child) writes what one process without a cache writes. The warm one, nothing changed, is
    the last generation's result (cache.unchanged): nothing rendered, nothing forked."""
    banks = copy_banks(tmp_path / "banks")
    bank = banks / "ai-infra-3.txt"
    for step in range(3):
        if step == 2:
            bank.write_text(
                bank.read_text(encoding="utf-8").replace("MFU", "MFU（模型算力利用率）", 1), encoding="utf-8"
            )
        forks.clear()
        result = generate(banks, tmp_path / "forked", update_lock=False)
        assert result.unchanged == (step == 1)
        assert bool(forks) == (step != 1), "the other languages' pages at least were rendered in children"
        with monkeypatch.context() as serial:
            serial.setenv(parallel.SERIAL_ENV, "1")
            generate(banks, tmp_path / "serial", update_lock=False, use_cache=False)
        assert _tree(tmp_path / "forked") == _tree(tmp_path / "serial"), step
    assert all((tmp_path / ".forked.cache" / f"pages-{lang}.pickle").is_file() for lang in LANGS)


def test_after_an_edit_only_a_child_converts(tmp_path: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """A forked generation after an edit, in a process that has not converted anything yet (a new one:
    `make pages`): the edited question is converted to 繁體中文 by a child, and every other text the
    converted language needs (bank titles, tag names, the glossary, the inline links' words) is taken
    from the cache: this process starts no OpenCC converter. The pages are those of one process
    without the cache."""
    banks = copy_banks(tmp_path / "banks")
    generate(banks, tmp_path / "forked", update_lock=False)
    bank = banks / "ai-infra-3.txt"
    text = bank.read_text(encoding="utf-8")
    answer = next(line for line in text.splitlines()[2:] if line and not line.startswith("Q:"))
    bank.write_text(text.replace(answer, answer + "（又及：见下文。）", 1), encoding="utf-8")
    started_in = tmp_path / "started-in"
    real = convert._converter

    def noted(config: str):  # type: ignore[no-untyped-def]
        with started_in.open("a", encoding="utf-8") as out:
            out.write(f"{os.getpid()}\n")
        return real(config)

    monkeypatch.setattr(convert, "_converter", noted)  # not cached: every conversion is noted
    monkeypatch.setattr(build, "PARALLEL_FROM", 2)  # a large site (14 questions) with one question to convert
    generate(banks, tmp_path / "forked", update_lock=False)
    pids = set(map(int, started_in.read_text(encoding="utf-8").split()))
    assert pids and os.getpid() not in pids, "the edited question converted in a child, nothing here"
    with monkeypatch.context() as serial:
        serial.setenv(parallel.SERIAL_ENV, "1")
        generate(banks, tmp_path / "serial", update_lock=False, use_cache=False)
    assert _tree(tmp_path / "forked") == _tree(tmp_path / "serial")


def test_unused_terms_searched_in_a_child_warn_where_one_process_warns(
    tmp_path: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The glossary's check for unused terms, forked while the model is built (build.load_sources): the
    same warnings as one process, in the same place among the others (a bank without a translation
    warns before it, a question no tag fits after it); with --strict, the build stops with the same
    problems, the term's among them; and the terms it found serve the glossary pages as if found here."""
    only_the_term = copy_banks(tmp_path / "only-the-term")
    banks = copy_banks(tmp_path / "banks")
    for folder in (only_the_term, banks):
        with (folder / "glossary.yml").open("a", encoding="utf-8") as terms:
            terms.write(
                "  - id: never-used-here\n    zh: 从未出现的术语\n    zh_def: 没有问题用到它。\n"
                "    en: Never Used Here\n    en_def: No question uses it.\n"
            )
    (banks / "ai-infra-3.en.txt").unlink()  # a warning made before the check
    bank = banks / "ai-infra-3.txt"  # a question no tag fits: a warning made after the check
    bank.write_text(bank.read_text(encoding="utf-8") + "\nQ: 今天吃什么？\n随便。\n", encoding="utf-8")
    searched_in = tmp_path / "searched-in"
    real_search = glossary.UnusedCheck._search

    def noted_search(self: glossary.UnusedCheck) -> list[list[frozenset[str]]]:
        with searched_in.open("a", encoding="utf-8") as out:
            out.write(f"{os.getpid()}\n")
        return real_search(self)

    monkeypatch.setattr(glossary.UnusedCheck, "_search", noted_search)
    # Every Chinese text searched for terms in this process (the glossary pages of the main language
    # are rendered here): by the check when it runs here, never again by the pages.
    searched_here: dict[str, list[str]] = {}
    real_term_ids = glossary.TermFinder.term_ids

    def noted_term_ids(self: glossary.TermFinder, text: str) -> frozenset[str]:
        if self.lang == LANGUAGES.bank.lang and not self.knows(text):
            searched_here[how].append(text)
        return real_term_ids(self, text)

    monkeypatch.setattr(glossary.TermFinder, "term_ids", noted_term_ids)
    results = {}
    for how in ("forked", "serial"):
        searched_here[how] = []
        with monkeypatch.context() as env:
            if how == "serial":
                env.setenv(parallel.SERIAL_ENV, "1")
            searched_in.unlink(missing_ok=True)
            glossary.term_finder.cache_clear()  # nothing found by the run before
            glossary._ids_found_by.cache_clear()
            results[how] = generate(banks, tmp_path / how, update_lock=False, use_cache=how == "forked")
            (pid,) = map(int, searched_in.read_text(encoding="utf-8").split())
            assert (pid != os.getpid()) == (how == "forked"), how
    texts = {"\n".join(e.text[LANGUAGES.bank.lang].text_lines) for e in results["serial"].site.entries.values()}
    assert searched_here["forked"] == []
    assert sorted(searched_here["serial"]) == sorted(texts)
    warnings = results["forked"].warnings
    assert warnings == results["serial"].warnings
    unused = next(i for i, w in enumerate(warnings) if "`never-used-here` is used by no question" in w)
    assert "no English translation" in warnings[unused - 1], warnings
    assert "no tag fits this question" in warnings[-1], warnings
    assert _tree(tmp_path / "forked") == _tree(tmp_path / "serial")
    # --strict: stopped after the read (the translation's warning and the term's; the tags are not
    # checked yet), or, with the term's warning alone, once the model is built
    for folder, count in ((banks, 2), (only_the_term, 1)):
        stopped = {}
        for how in ("forked", "serial"):
            with monkeypatch.context() as env:
                if how == "serial":
                    env.setenv(parallel.SERIAL_ENV, "1")
                with pytest.raises(BuildError) as failed:
                    generate(folder, tmp_path / f"strict-{how}", strict=True, update_lock=False, use_cache=False)
                stopped[how] = [str(problem) for problem in failed.value.problems]
        assert stopped["forked"] == stopped["serial"]
        assert len(stopped["forked"]) == count, stopped["forked"]
        assert any("`never-used-here` is used by no question" in problem for problem in stopped["forked"])
    # A warning made while the child searches goes after the term's, as it would have come after it.
    sources = build.load_sources(only_the_term, Problems())
    problems = Problems()
    check = glossary.warn_unused(
        sources.glossary, [bank for bank, _ in sources.banks], only_the_term / "glossary.yml", problems, fork_from=1
    )
    problems.warn("later.txt", 1, "a later stage's warning")
    check.finish()
    assert [w.message.split(":")[0] for w in problems.warnings] == [
        "glossary term `never-used-here` is used by no question",
        "a later stage's warning",
    ]


def test_a_failure_in_the_child_fails_the_build_and_keeps_the_old_docs(
    tmp_path: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    banks = copy_banks(tmp_path / "banks")
    docs = tmp_path / "docs"
    # without the cache: with it, tags and links would come from it and only the English pages fork
    generate(banks, docs, update_lock=False, use_cache=False)
    before = _tree(docs)
    real = build.render_language

    def english_breaks(site, lang, *args):  # type: ignore[no-untyped-def]
        if lang == "en":
            raise ValueError("two generated pages would be served at /en/x/")
        return real(site, lang, *args)

    monkeypatch.setattr(build, "render_language", english_breaks)
    forks.clear()
    with pytest.raises(ValueError, match="would be served at /en/x/"):
        generate(banks, docs, update_lock=False, use_cache=False)
    assert len(forks) == CHILDREN  # the English pages failed in a child, and the error reached this process
    assert _tree(docs) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [".docs.lock", "banks", "docs"]  # no half-written tree


def test_forked_language_builds_write_the_same_site_as_child_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`make site`'s steps (studysite/site/driver.py): every language's MkDocs build in a forked child
    (parallel.Program) writes, byte for byte, the site that a new Python process each writes."""
    from studysite.site import driver, settings
    from tests.sitekit import prepare_work

    banks = copy_banks(tmp_path / "banks")
    env = settings.build_env(prepare_work(banks, tmp_path / "work"), banks)
    monkeypatch.setenv(settings.BANKS_ENV, str(banks))
    programs: list[object] = []

    class Counted(parallel.Program):
        def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
            super().__init__(*args, **kwargs)
            programs.append(self)

    monkeypatch.setattr(parallel, "Program", Counted)
    driver.build(tmp_path / "work" / "mkdocs.yml", tmp_path / "forked", env, strict=False)
    assert len(programs) == len(LANGS), "every language's build is a forked program"
    monkeypatch.setenv(parallel.SERIAL_ENV, "1")
    driver.build(tmp_path / "work" / "mkdocs.yml", tmp_path / "started", env, strict=False)
    assert len(programs) == len(LANGS), "with STUDYSITE_SERIAL=1, new processes"
    forked = _tree(tmp_path / "forked")
    assert forked == _tree(tmp_path / "started")
    assert any(name.startswith("en/") for name in forked) and "index.html" in forked


def test_the_zips_first_part_takes_the_decks_once_their_gate_opens(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The zip's first part is compressed by a forked child beside Pagefind (offline.begin_zip) while
    the build may still be writing the decks: the child zips the pages, then waits at the gate, and
    takes the decks as the build left them once it opens. The zip holds them whole, in the order of a
    zip written in one go, and write_zip has nothing to zip again."""
    from studysite.site import offline

    if not parallel.can_fork():
        pytest.fail("this machine cannot run the forked path (one core, or threads running): the test needs two cores")
    site = tmp_path / "site"
    for path, text in {"index.html": "<!doctype html><p>home</p>", "pagefind/x.pf_index": "index"}.items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text(text, encoding="utf-8")
    # A deck being written as the child starts: its temporary file, which the writer renames before
    # the child could stat it (a link to nothing stands for that). The child leaves the decks'
    # folder alone until the gate opens (a full test run failed the build on such a file).
    (site / "downloads").mkdir()
    (site / "downloads" / ".bank.csv.tmp-1").symlink_to(site / "renamed")
    languages = [offline.Language(LANGUAGES.main.lang, "", LANGUAGES.main.html_lang)]
    decks = parallel.Gate()
    first = offline.begin_zip(site, languages, fork=True, decks=decks)
    wchan = Path(f"/proc/{first._pid}/wchan")
    while "pipe_read" not in wchan.read_text():  # the child blocked reading the gate's pipe
        assert os.waitpid(first._pid, os.WNOHANG) == (0, 0), "the child ended without waiting for the decks"
    csv = "q,a\n" * 5000
    (site / "downloads" / ".bank.csv.tmp-1").unlink()
    (site / "downloads" / "bank.csv").write_text(csv, encoding="utf-8")
    (site / "downloads" / "bank.zh.apkg").write_bytes(b"deck")
    decks.open()
    with caplog.at_level("INFO"):
        out, packed = offline.write_zip(site, languages, first)
    assert not caplog.text  # nothing the child read changed afterwards
    forked = out.read_bytes()
    with zipfile.ZipFile(out) as zf:
        assert zf.read(f"{offline.ZIP_FOLDER}/downloads/bank.csv").decode() == csv
        names = [n.split("/", 1)[1] for n in zf.namelist()]
    assert names[0] == "index.html" and names[-3:] == [
        "downloads/bank.csv",
        "downloads/bank.zh.apkg",
        "pagefind/x.pf_index",
    ]
    assert {"downloads/bank.csv", "pagefind/x.pf_index"} <= set(packed)
    assert offline.write_zip(site, languages)[0].read_bytes() == forked
