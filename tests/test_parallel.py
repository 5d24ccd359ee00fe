"""The forked side jobs of the generator: same output as one process, failures reported, nothing lost."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from studysite import parallel
from tests.sitekit import ROOT


def test_forked_generation_in_a_fresh_process() -> None:
    """tests/forked_cases.py: the forked build writes the same files as one process, after an edit only a
    child converts, a failure in a child fails the build and keeps the old docs, and the offline zip's
    forked first part waits for the decks. Run in a process of its own: this session runs server
    threads, and with threads the generator (rightly) does not fork."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q", "tests/forked_cases.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"^7 passed", proc.stdout, re.M), proc.stdout


def test_a_child_that_dies_is_an_error_not_a_hang() -> None:
    side = parallel.Side(lambda: os._exit(3), fork=True)
    with pytest.raises(RuntimeError, match=r"died without a result \(exit status 3\)"):
        side.result()
    killed = parallel.Side(lambda: os.kill(os.getpid(), 9), fork=True)
    with pytest.raises(RuntimeError, match=r"killed by signal 9"):
        killed.result()


def test_an_error_that_does_not_pickle_arrives_with_its_traceback() -> None:
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


def test_a_generation_runs_without_garbage_collection_and_turns_it_back_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`frozen`: collections inside a generation visited every object it unpickled as it came (0.3-0.4 s
    of an edit at 5,000 questions in a new process); after it, collection is as it was before."""
    import gc

    from studysite import build
    from tests.sitekit import copy_banks

    seen: list[bool] = []
    real = build.load_sources
    monkeypatch.setattr(build, "load_sources", lambda *a, **kw: seen.append(gc.isenabled()) or real(*a, **kw))
    banks = copy_banks(tmp_path / "banks")
    assert gc.isenabled()
    build.generate(banks, tmp_path / "docs")
    assert seen == [False] and gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()
    try:
        build.generate(banks, tmp_path / "other")
        assert seen == [False, False] and not gc.isenabled()  # off before: left off
    finally:
        gc.enable()


def _program(main, tmp_path: Path, env: dict[str, str] | None = None) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    """Run `main` as a parallel.Program; its exit status and what it printed."""
    with open(tmp_path / "out", "w+b") as out:
        status = parallel.Program(main, output=out.fileno(), env=env).wait()
        out.seek(0)
        return status, out.read().decode("utf-8")


def test_a_program_prints_to_its_file_and_returns_its_status(tmp_path: Path) -> None:
    import sys

    def main() -> int:
        print("on stdout")
        print("on stderr", file=sys.stderr)
        os.write(1, b"from the file descriptor\n")  # a child process of its own would write here too
        return 3

    status, printed = _program(main, tmp_path)
    assert status == 3
    assert sorted(printed.splitlines()) == ["from the file descriptor", "on stderr", "on stdout"]


def test_a_program_that_raises_prints_the_traceback_and_fails(tmp_path: Path) -> None:
    def main() -> int:
        raise OSError(28, "No space left on device", "site/x.html")

    status, printed = _program(main, tmp_path)
    assert status == 1
    assert printed.startswith("Traceback (most recent call last):")
    # the last line, as a Python program's (site_finish._os_failure reads it)
    assert printed.splitlines()[-1] == "OSError: [Errno 28] No space left on device: 'site/x.html'"
    assert _program(lambda: exit(5), tmp_path)[0] == 5


def test_a_program_has_its_own_environment_and_a_new_processs_logging(tmp_path: Path) -> None:
    """What this process logs to stays here: the parent's handlers (MkDocs' own, a build's warning
    counter) are not the program's, which starts as a new interpreter would."""
    import logging

    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    logger = logging.getLogger("mkdocs.test-parallel")
    keep = Keep()
    logger.addHandler(keep)
    logger.propagate = False
    try:

        def main() -> int:
            logger.warning("from the program")  # no handler: Python's last resort prints it on stderr
            print(os.environ.get("ONLY"), "PATH" in os.environ)
            return len(logging.getLogger("mkdocs.test-parallel").handlers)

        status, printed = _program(main, tmp_path, env={"ONLY": "this"})
    finally:
        logger.removeHandler(keep)
        logger.propagate = True
    assert status == 0
    assert printed.splitlines() == ["from the program", "this False"]
    assert records == []


def test_a_program_is_killed_and_polled_as_a_process(tmp_path: Path) -> None:
    import signal
    import time

    with open(tmp_path / "out", "w+b") as out:
        program = parallel.Program(lambda: time.sleep(60) or 0, output=out.fileno())
        assert program.poll() is None
        program.kill()
        assert program.wait() == -signal.SIGKILL
        assert program.poll() == -signal.SIGKILL
