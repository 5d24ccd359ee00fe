"""Run one piece of the build in a forked child while this process does another: two cores, one build.

Most of the generator is pure Python, so threads would take turns on one core. A forked child
starts with the parent's memory (the whole site model, nothing pickled on the way in) and sends back
only its result through a pipe. Used for work that needs nothing from what this process does
meanwhile: tagging and inline links (studysite/build.py), each other language's pages, the Anki/CSV decks
(studysite/site/site_finish.py). Below a few hundred questions, or with threads running, the call runs in
this process instead.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import pickle
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")

_frozen = [0]
"""Side jobs running and `frozen` blocks open now: the last to end lets garbage collection see the old
objects again."""

SERIAL_ENV = "STUDYSITE_SERIAL"
"""Set to 1 to run everything in one process (debugging, profiling)."""


def can_fork() -> bool:
    """Whether a child would run on a core of its own, and forking is safe here.

    Not with other threads running (under `mkdocs serve`): a fork copies only the calling thread,
    and a lock another thread held at that moment would stay locked in the child forever.
    """
    if os.environ.get(SERIAL_ENV) == "1" or not hasattr(os, "fork"):
        return False
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores >= 2 and threading.active_count() == 1


class Side(Generic[T]):
    """`fn()` started now (in a forked child when `fork` is true), its value collected by `result()`.

    An exception in the child is raised again by `result()`: the same exception when it pickles,
    otherwise a RuntimeError carrying the child's traceback.
    """

    def __init__(self, fn: Callable[[], T], *, fork: bool) -> None:
        self._fn: Callable[[], T] | None = fn
        self._pid = 0
        if not fork:
            return
        read, write = os.pipe()
        # Objects that exist now are left out of garbage collection until `result()`: a collection
        # writes into every object it visits, and each memory page written after the fork is
        # copied, in the child and here.
        gc.freeze()
        parent = os.getpid()
        try:
            pid = os.fork()
        except OSError:  # no memory or process slot for a child: the work runs here at result()
            os.close(read)
            os.close(write)
            if not _frozen[0]:
                gc.unfreeze()
            return
        if pid == 0:  # the child: never returns into the caller's frames (their `finally` blocks are the parent's)
            status = 1
            try:
                die_with(parent)
                os.close(read)
                try:
                    payload = pickle.dumps((True, fn()), protocol=pickle.HIGHEST_PROTOCOL)
                except BaseException as exc:  # every failure goes back to the parent
                    payload = _error_payload(exc)
                with os.fdopen(write, "wb") as out:
                    out.write(payload)
                status = 0
            finally:
                os._exit(status)
        os.close(write)
        self._pid, self._read, self._fn = pid, read, None
        _frozen[0] += 1

    def result(self) -> T:
        if self._fn is not None:
            return self._fn()
        with os.fdopen(self._read, "rb") as pipe:
            payload = pipe.read()
        status = self._reap()
        if not payload:
            raise RuntimeError(f"a build process died without a result ({_describe(status)})")
        ok, value = pickle.loads(payload)
        if ok:
            return value  # type: ignore[no-any-return]
        raise value

    def _reap(self) -> int:
        _, status = os.waitpid(self._pid, 0)
        self._pid = 0
        _frozen[0] -= 1
        if not _frozen[0]:
            gc.unfreeze()
        return status

    def cancel(self) -> None:
        """Stop the child (the caller failed and will not collect the result)."""
        if self._fn is None and self._pid:
            try:
                os.kill(self._pid, 9)
                os.close(self._read)
            except OSError:
                pass
            self._reap()


class Gate:
    """A one-shot signal from this process to a Side child forked while the gate is shut: the child's
    `wait()` returns once this process has called `open()` (or has died). Where nothing was forked (the
    Side's work runs in this process at `result()`, after `open()`), `wait()` returns at once.
    `open()` is safe to call more than once; call it in a `finally` (it closes the pipe's ends here)."""

    def __init__(self) -> None:
        self._read, self._write = os.pipe()
        self._opened = False

    def open(self) -> None:
        if self._opened:
            return
        self._opened = True
        try:
            os.write(self._write, b"\0")  # a child blocked in wait() reads it; the pipe holds it otherwise
        finally:
            os.close(self._write)
            os.close(self._read)

    def wait(self) -> None:
        if self._opened:
            return
        # In a forked child: its copy of the write end is closed first, so that the parent's death
        # (its copy closed by the kernel) ends the read with nothing instead of blocking it forever.
        self._opened = True
        os.close(self._write)
        try:
            os.read(self._read, 1)
        finally:
            os.close(self._read)


class Program:
    """`main()` run as if it were a program of its own, in a forked child: what it prints (stdout and
    stderr) goes to the file `output`, its return value is the exit status, and an exception that
    leaves it is printed as Python prints it (a traceback, its last line the error) with status 1.
    `env`: the child's environment (None: this process's). The child dies with this process.

    Popen's `wait`, `poll` and `kill`, for a child that starts with this process's memory instead of
    a new interpreter: no start-up, no imports, nothing read again (a language's MkDocs build from
    site_finish.LanguageBuild: ~0.3 s of CPU less each). Only where `can_fork()`: no other threads."""

    def __init__(self, main: Callable[[], int], *, output: int, env: dict[str, str] | None = None) -> None:
        for stream in (sys.stdout, sys.stderr):  # what this process has not written yet is not the child's
            with contextlib.suppress(Exception):
                stream.flush()
        parent = os.getpid()
        self.pid = os.fork()
        self.returncode: int | None = None
        if self.pid == 0:  # the child: never returns into the caller's frames
            status = 1
            try:
                die_with(parent)
                gc.freeze()  # the parent's objects: never visited (copied) by this child's collections
                os.dup2(output, 1)
                os.dup2(output, 2)
                sys.stdout = open(1, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
                sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
                if env is not None:
                    os.environ.clear()
                    os.environ.update(env)
                _fresh_logging()
                status = main()
            except SystemExit as exc:
                status = exc.code if isinstance(exc.code, int) else 1
            except BaseException:
                traceback.print_exc()
            finally:
                with contextlib.suppress(BaseException):
                    sys.stdout.flush()
                    sys.stderr.flush()
                os._exit(status)

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self) -> int:
        if self.returncode is None:
            _, status = os.waitpid(self.pid, 0)
            self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


def detach(fn: Callable[[], object]) -> bool:
    """Run `fn` in a forked child that this process neither waits for nor takes down with it: the
    child goes on after this process has exited, in a session of its own, with /dev/null for stdin,
    stdout and stderr (a caller reading this process's output to its end is not kept waiting), and
    exits when `fn` returns (status 1 if it raised). For work whose result nobody waits for: the
    generator's record of a generation (studysite/build.py), written after scripts/build_pages.py has
    returned, under the build lock the child inherits. False, with nothing run, where `can_fork()` is
    not true or the fork fails: the caller runs `fn` itself."""
    if not can_fork():
        return False
    for stream in (sys.stdout, sys.stderr):  # what this process has not written yet is not the child's
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        pid = os.fork()
    except OSError:
        return False
    if pid:
        return True
    status = 1
    try:
        os.setsid()  # not in the terminal's process group: a Ctrl-C for what runs next is not for it
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        gc.freeze()  # the parent's objects: never visited (copied) by this child's collections
        fn()
        status = 0
    finally:
        os._exit(status)


def _fresh_logging() -> None:
    """Logging as a new interpreter has it (no handler, every level unset, the root's WARNING): the
    parent's handlers (MkDocs' own on `mkdocs`, a build's warning counter) write to its streams."""
    import logging

    root = logging.getLogger()
    for logger in [root, *logging.Logger.manager.loggerDict.values()]:
        if isinstance(logger, logging.Logger):
            for handler in list(logger.handlers):
                logger.removeHandler(handler)
            logger.setLevel(logging.NOTSET)
            logger.propagate = True
            logger.disabled = False
    root.setLevel(logging.WARNING)


@contextlib.contextmanager
def frozen() -> Iterator[None]:
    """No garbage collection inside the block, and the objects that exist now left out of it until the
    block ends (and every side job started in it is collected).

    A generation under `make serve` or the benchmark starts with the last one's model and the cache's
    values in memory, most of the heap, and makes about as many new objects, which set off collections
    of the oldest generation: each visited every old object again (0.3-0.4 s of an edit at 5,000
    questions). A new process makes those objects as it unpickles them from the cache, and collections
    visited them as they came: an edit at 5,000 questions took 3.00-3.11 s with them, 2.58-2.79 s
    without (2026-12-05). Nearly everything a generation makes is freed by reference counting: its peak
    memory was the same without collection (410-424 MB after an edit, 565 MB cold). What is left in
    cycles is collected after the block."""
    gc.freeze()
    _frozen[0] += 1
    paused = gc.isenabled()  # the outermost block turns collection back on
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()
        _frozen[0] -= 1
        if not _frozen[0]:
            gc.unfreeze()


def die_with(parent: int) -> None:
    """Have the kernel kill this child when its parent dies (Linux): a killed build must not leave a
    child writing into the folder the next build cleans up."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


_PR_SET_PDEATHSIG = 1


def _error_payload(exc: BaseException) -> bytes:
    try:
        payload = pickle.dumps((False, exc), protocol=pickle.HIGHEST_PROTOCOL)
        pickle.loads(payload)  # an exception class whose arguments do not round-trip fails here
        return payload
    except Exception:
        trace = "".join(traceback.format_exception(exc))
        return pickle.dumps((False, RuntimeError(f"in a build process:\n{trace}")))


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"
