"""The forked side jobs of the generator: same output as one process, failures reported, nothing lost."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from studysite import build, parallel
from studysite.build import generate
from tests.sitekit import copy_banks


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
    assert len(forks) == 3, "tags, inline links and the English pages each in a child"
    monkeypatch.setenv(parallel.SERIAL_ENV, "1")
    serial = generate(banks, tmp_path / "serial", update_lock=False)
    assert len(forks) == 3
    assert forked.files == serial.files
    assert forked.site == serial.site
    tree = _tree(tmp_path / "forked")
    assert tree == _tree(tmp_path / "serial")
    assert set(tree) == set(forked.files)
    assert any(name.startswith("en/") for name in tree)


def test_a_failure_in_the_child_fails_the_build_and_keeps_the_old_docs(
    tmp_path: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    banks = copy_banks(tmp_path / "banks")
    docs = tmp_path / "docs"
    generate(banks, docs, update_lock=False)
    before = _tree(docs)
    real = build.render_language

    def english_breaks(site, lang, repo_url=""):  # type: ignore[no-untyped-def]
        if lang == "en":
            raise ValueError("two generated pages would be served at /en/x/")
        return real(site, lang, repo_url)

    monkeypatch.setattr(build, "render_language", english_breaks)
    forks.clear()
    with pytest.raises(ValueError, match="would be served at /en/x/"):
        generate(banks, docs, update_lock=False)
    assert len(forks) == 3  # the English pages failed in a child, and the error reached this process
    assert _tree(docs) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [".docs.lock", "banks", "docs"]  # no half-written tree


def test_a_child_that_dies_is_an_error_not_a_hang(forks: list[int]) -> None:
    side = parallel.Side(lambda: os._exit(3), fork=True)
    with pytest.raises(RuntimeError, match=r"died without a result \(exit status 3\)"):
        side.result()
    killed = parallel.Side(lambda: os.kill(os.getpid(), 9), fork=True)
    with pytest.raises(RuntimeError, match=r"killed by signal 9"):
        killed.result()


def test_an_error_that_does_not_pickle_arrives_with_its_traceback(forks: list[int]) -> None:
    class Local(Exception):  # a class defined in a function cannot be pickled
        pass

    def fail() -> None:
        raise Local("the child's own words")

    side = parallel.Side(fail, fork=True)
    with pytest.raises(RuntimeError, match=r"(?s)in a build process:.*Local: the child's own words"):
        side.result()


def test_no_fork_while_other_threads_run() -> None:
    import threading

    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not parallel.can_fork()
    finally:
        stop.set()
        thread.join()


def test_when_fork_fails_the_work_runs_here(monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    def no_fork() -> int:
        raise BlockingIOError("Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    pid = os.getpid()
    side = parallel.Side(lambda: os.getpid(), fork=True)
    assert side.result() == pid
    assert gc.get_freeze_count() == 0


def test_a_child_dies_with_its_killed_parent() -> None:
    """`make site` killed: its side process must not write on into the folder the next build cleans."""
    import signal
    import time

    read, write = os.pipe()
    build = os.fork()
    if build == 0:  # stands for the build process
        os.close(read)

        def child() -> None:
            os.write(write, str(os.getpid()).encode())
            time.sleep(60)

        parallel.Side(child, fork=True)
        time.sleep(60)
        os._exit(0)
    os.close(write)
    side = int(os.read(read, 100))
    os.close(read)
    os.kill(build, signal.SIGKILL)
    os.waitpid(build, 0)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{side}/status", encoding="utf-8") as status:
                if "\nState:\tZ" in status.read():
                    return  # dead; its new parent (init) has not reaped it yet
        except FileNotFoundError:
            return
        time.sleep(0.05)
    os.kill(side, signal.SIGKILL)
    pytest.fail("the side process outlived its killed parent")
