"""The benchmark's own helpers (scripts/bench.py) on the fixture banks: `make bench` is not part of
`make test`, so what it reads from the repository's formats is checked here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.sitekit import FIXTURE_BANKS, ROOT

pytestmark = pytest.mark.unit


def _bench() -> object:
    spec = importlib.util.spec_from_file_location("bench", ROOT / "scripts" / "bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_edit_benchmark_finds_a_question_and_its_first_answer_line(tmp_path: Path) -> None:
    """The "after an edit" rows edit one answer line: the question's slug comes from slugs.lock (the
    benchmark failed when the lock gained a column) and the line is that question's first answer line."""
    bench = _bench()
    corpus = bench.Corpus("seed", 14, FIXTURE_BANKS, tmp_path)  # type: ignore[attr-defined]
    bank_id, slug, line = bench._editable_line(corpus)  # type: ignore[attr-defined]
    lines = (FIXTURE_BANKS / f"{bank_id}.txt").read_text(encoding="utf-8").split("\n")
    question = lines[line - 1]
    assert question.startswith("Q:") and lines[line].strip() and not lines[line].startswith("Q:")
    rows = [row.split("\t") for row in (FIXTURE_BANKS / "slugs.lock").read_text(encoding="utf-8").split("\n")]
    assert [f"{bank_id}/{slug}", "live", question[2:].strip()] in [row[:3] for row in rows]


def test_settle_waits_for_the_open_requests_and_then_for_quiet(tmp_path: Path) -> None:
    """The search and offline rows end a page's window when the logging server has answered every
    request and none began for QUIET (`_Log.settle`), instead of after a fixed sleep."""
    import threading
    import time
    import urllib.request

    bench = _bench()
    log = bench._Log()  # type: ignore[attr-defined]
    log.begin()
    done = threading.Event()
    waiter = threading.Thread(target=lambda: (log.settle(quiet=0.05, limit=30), done.set()), daemon=True)
    waiter.start()
    assert not done.wait(timeout=0.3)  # a request is open: still waiting
    ended = time.perf_counter()
    log.end()
    assert done.wait(timeout=10)
    assert time.perf_counter() - ended >= 0.05  # and then for the quiet time after it
    (tmp_path / "a.txt").write_text("x" * 100, encoding="utf-8")
    with bench.logging_server(tmp_path) as (base, served):  # type: ignore[attr-defined]
        asked = time.perf_counter()
        with urllib.request.urlopen(base + "a.txt") as answer:
            assert answer.read() == b"x" * 100
        served.settle(quiet=0, limit=10)  # the server closes the request it opened
        assert served.last > asked  # the request was counted open, then closed
        assert served.busy == 0 and [(p, n) for _, p, n in served.entries] == [("/a.txt", 100)]


def test_a_whole_run_says_whether_the_bench_took_at_most_15_minutes() -> None:
    bench = _bench()
    assert bench.target_lines([])[-1] == "- **n/a** `make bench` takes <= 15 min: not measured"  # type: ignore[attr-defined]
    bench.WHOLE_RUN.update(minutes=14.2, load=0.4)  # type: ignore[attr-defined]
    assert bench.target_lines([])[-1].startswith("- **PASS** `make bench` takes <= 15 min: 14.2 min")  # type: ignore[attr-defined]
    bench.WHOLE_RUN.update(minutes=15.5)  # type: ignore[attr-defined]
    assert bench.target_lines([])[-1].startswith("- **FAIL** `make bench` takes <= 15 min: 15.5 min")  # type: ignore[attr-defined]


def test_work_folders_in_memory_are_deleted_and_chosen_ones_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run's work folders on tmpfs hold the machine's memory until they are deleted: `release_memory`
    (called however the run ends) deletes them; a folder the caller chose (`--work`) stays."""
    bench = _bench()
    memory, chosen = tmp_path / "studysite-bench", tmp_path / "chosen"
    for folder in (memory, chosen):
        (folder / "syn-500" / "docs").mkdir(parents=True)
        (folder / "syn-500" / "docs" / "index.md").write_text("x", encoding="utf-8")
    monkeypatch.setattr(bench, "TMPFS_WORK", memory)
    monkeypatch.setattr(bench, "work_folder", lambda choice: memory if choice == "auto" else Path(choice))
    for choice in (str(chosen), str(memory)):  # chosen with --work, even the memory folder: kept
        bench.use_work_folder(choice)  # type: ignore[attr-defined]
        bench.release_memory()  # type: ignore[attr-defined]
        assert memory.exists() and chosen.exists()
    bench.use_work_folder("auto")  # type: ignore[attr-defined]
    assert memory == bench.OUT  # type: ignore[attr-defined]
    bench.release_memory()  # type: ignore[attr-defined]
    assert not memory.exists() and chosen.exists()
