"""The only module that writes generated files: safe paths, whole-tree swaps, unchanged files untouched."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import fcntl
import os
import re
import select
import shutil
import stat
import subprocess
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import NamedTuple


class UnsafePath(ValueError):
    """A generated path that could escape the output folder or is not a plain relative name."""


def check_path(rel: str) -> str:
    """Refuse any generated path that is absolute, climbs out, or uses characters outside a safe set."""
    parts = rel.split("/")
    if not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts) or not _SAFE.fullmatch(rel):
        raise UnsafePath(f"refusing to write unsafe path {rel!r}")
    return rel


FileState = tuple[int, int, int, int]
"""A file's size, modification and change times (ns) and inode: while all four are as they were, it is
the same file with the same content (only the kernel sets the change time)."""


def file_state(st: os.stat_result) -> FileState:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


class Staging:
    """A new tree being written beside `dest`; files equal to the old tree's are hard-linked to them."""

    def __init__(self, root: str, old_root: str | None) -> None:
        self.root, self.old_root = root, old_root
        self._made: set[str] = set()

    def write(self, files: Mapping[str, str], known: Mapping[str, FileState] | None = None) -> None:
        """Write these files into the new tree. Two processes may write disjoint sets at once.

        `known`: files whose text is the one the old tree's file held when it was in this state: a file
        still in it is linked without being read (`build._as_last`)."""
        for rel in files:
            check_path(rel)
        # Plain string paths: pathlib objects cost more than the system calls for 10,000 small files.
        new_root, old_root, made = self.root, self.old_root, self._made
        known = known or {}
        for rel in sorted(files):  # a text is looked up only when the file is written (cache.Texts)
            target = os.path.join(new_root, rel)
            parent = os.path.dirname(target)
            if parent not in made:
                os.makedirs(parent, exist_ok=True)
                made.add(parent)
            old = os.path.join(old_root, rel) if old_root else None
            state = known.get(rel)
            if old and state is not None and _in_state(old, state):
                with suppress(OSError):
                    os.link(old, target)
                    continue
            data = files[rel].encode("utf-8")
            if old and _same(old, data):
                # Unchanged: the new tree shares the old file (a hard link keeps its content and mtime).
                # Creating a file costs ~30x more than linking one: a rebuild of 10,000 unchanged
                # pages takes a fraction of a second instead of seconds.
                try:
                    os.link(old, target)
                    continue
                except OSError:  # a file system without hard links: copy, keeping the old mtime
                    _write(target, data)
                    st = os.stat(old)
                    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
                    continue
            _write(target, data)


@contextmanager
def staged_tree(dest: Path, then: Callable[[], None] | None = None, keep_old: Path | None = None) -> Iterator[Staging]:
    """A new tree for `dest`, exchanged with it in one step when the block succeeds.

    Files whose content is unchanged keep their old modification time (so `mkdocs serve --dirty`
    rebuilds only what changed). A build that fails or is killed at any moment leaves either the
    old or the new tree; a failed one removes its half-written tree. The new tree is on disk
    (synced) before the swap, so a power cut cannot swap in empty files. `then` runs right after
    the swap (e.g. putting the new slugs.lock in place): if it fails, the old tree is swapped back.
    `keep_old`: where the old tree goes once the new one is in place, before `then`, instead of being
    deleted (its files that are unchanged are the new tree's too: hard links); if it cannot go there,
    the old tree is swapped back as when `then` fails. Without an old tree, nothing goes there.
    """
    dest.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_staging(dest)
    staging = dest.parent / f".{dest.name}.new-{os.getpid()}"
    try:
        yield Staging(os.fspath(staging), os.fspath(dest) if dest.is_dir() else None)
        sync_tree(staging)
        swap_dirs(staging, dest)
        moved: Path | None = None  # where the old tree (at `staging` since the swap) went
        try:
            if keep_old is not None and staging.exists():  # none when `dest` was new
                os.rename(staging, keep_old)
                moved = keep_old
            if then is not None:
                then()
        except BaseException:
            if moved is not None:
                os.rename(moved, staging)
            if staging.exists():
                swap_dirs(staging, dest)  # the old tree back in place, the new one at `staging`
            else:
                os.rename(dest, staging)  # `dest` was new: it is not there again
            raise
        sync_dir(dest.parent)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if keep_old is None:
        # The old tree (at `staging` since the swap) is deleted by another process while this one goes on.
        remove_later(staging)


class _Removal(NamedTuple):
    proc: subprocess.Popen[bytes]
    owner: int
    """The process that started it (its parent, the only one that can wait for it as a child)."""
    pidfd: int | None
    """A descriptor of the very process (Linux), by which a forked child of `owner` waits for it too."""


_REMOVING: list[_Removal] = []
"""Deletions `remove_later` started and `wait_for_removals` has not waited for."""
_HANDED_OVER: list[subprocess.Popen[bytes]] = []
"""Deletions left to a forked child (`BuildLock.hand_over`), kept until they are seen to have ended."""


def remove_later(folder: Path) -> None:
    """Delete `folder` (as `rm -rf`) in a process of its own while this one goes on: `wait_for_removals()`
    waits for it. A rebuild's old docs tree at 5,000 questions is 17,800 files and 800 folders: 0.3-0.6 s
    of unlinking that now runs on the second core while the generator records its result. Where no
    `rm` can be started, it is deleted here and now. A deletion that fails leaves a staging folder,
    which the next build removes (`remove_stale_staging`), as after a killed build."""
    _HANDED_OVER[:] = [proc for proc in _HANDED_OVER if proc.poll() is None]
    try:
        proc = subprocess.Popen(
            ["rm", "-rf", "--", os.fspath(folder)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        return
    try:
        pidfd: int | None = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # not Linux, or a kernel before 5.3
        pidfd = None
    _REMOVING.append(_Removal(proc, os.getpid(), pidfd))


def wait_for_removals() -> None:
    """Wait until every deletion `remove_later` started has finished: in a child forked after they
    started (`BuildLock.hand_over`) as well as in the process that started them."""
    while _REMOVING:
        removal = _REMOVING.pop()
        try:
            if removal.owner == os.getpid():
                removal.proc.wait()
            elif removal.pidfd is not None:
                select.select([removal.pidfd], [], [])  # readable once the process has ended
        finally:
            if removal.pidfd is not None:
                os.close(removal.pidfd)


def removals_can_be_handed_over() -> bool:
    """Whether a forked child could wait for every deletion running now (`wait_for_removals`)."""
    return all(removal.pidfd is not None for removal in _REMOVING)


class PendingFile:
    """A file's new content, written and synced beside it, put in place by `commit` (or dropped).

    Writing it before a tree swap means a full disk fails the build before anything changed; the
    rename in `commit` needs no space.
    """

    def __init__(self, path: Path, data: bytes) -> None:
        self.path = path
        self.tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        try:
            with open(self.tmp, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            self.discard()
            raise _named(exc, self.tmp) from None
        except BaseException:
            self.discard()
            raise

    def commit(self) -> None:
        os.replace(self.tmp, self.path)
        sync_dir(self.path.parent)

    def discard(self) -> None:
        with suppress(FileNotFoundError):
            os.unlink(self.tmp)


def sync_tree(root: Path) -> None:
    """Flush a freshly written tree to disk: one syncfs of its file system, not an fsync per file
    (10,000 fsyncs take seconds; syncfs writes the same data once). Elsewhere: os.sync()."""
    if _syncfs is not None:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            if _syncfs(fd) == 0:
                return
        finally:
            os.close(fd)
    os.sync()


def sync_dir(folder: Path) -> None:
    """Make the renames inside `folder` durable (its entry list is on disk)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    except OSError:  # some file systems refuse fsync on a folder; the data itself is synced
        pass
    finally:
        os.close(fd)


def write_tree_in_place(
    dest: Path,
    files: dict[str, str],
    known: Mapping[str, FileState] | None = None,
    left: dict[str, FileState] | None = None,
) -> list[str]:
    """Update `dest` file by file (each atomically), deleting files no longer generated.

    Used by `mkdocs serve`, whose watcher follows the folder itself and would lose track of a
    swapped one. Returns the paths written. Plain string paths, as in `Staging.write`: at 10,000
    unchanged pages pathlib objects cost more than the reads that compare them. `known` as in
    `Staging.write`: a file still in that state is left as it is without being read. `left`, when
    given, gets the state each file was found in or written to (what `cache.tree_state` would read of
    it right after: the files not generated are deleted below), from the status this loop reads anyway;
    a file whose status cannot be read after writing it is left out of `left`.
    """
    for rel in files:
        check_path(rel)
    root = os.fspath(dest)
    written = []
    known = known or {}
    for rel, text in sorted(files.items()):
        target = os.path.join(root, rel)
        state = known.get(rel)
        if state is not None and _in_state(target, state):
            if left is not None:
                left[rel] = state
            continue
        data = text.encode("utf-8")
        if not _same(target, data):
            folder, name = os.path.split(target)
            os.makedirs(folder, exist_ok=True)
            tmp = os.path.join(folder, f".{name}.tmp-{os.getpid()}")
            _write(tmp, data)
            os.replace(tmp, target)
            written.append(rel)
        if left is not None:
            with contextlib.suppress(OSError):  # gone already (not ours to delete): left out, so not recorded
                left[rel] = file_state(os.lstat(target))
    if os.path.isdir(root):
        for folder, dirs, names in os.walk(root, topdown=False):
            rel_folder = os.path.relpath(folder, root)
            prefix = "" if rel_folder == "." else rel_folder.replace(os.sep, "/") + "/"
            for name in names:
                if prefix + name not in files:
                    os.unlink(os.path.join(folder, name))
            for name in dirs:
                path = os.path.join(folder, name)
                if os.path.islink(path):
                    if prefix + name not in files:
                        os.unlink(path)
                elif not os.listdir(path):
                    os.rmdir(path)
    return written


def remove_stale_staging(dest: Path) -> None:
    """Delete staging folders that killed builds left beside `dest` (`.NAME.new-PID`, `...old`).

    Call it only while holding `build_lock` for `dest`: any build still writing one would hold it too.
    """
    prefix = f".{dest.name}.new-"
    wait_for_removals()  # this process's own deletions first: two at once would race for the same files
    if dest.parent.is_dir():
        for stale in sorted(dest.parent.iterdir()):
            if stale.name.startswith(prefix) and stale.is_dir() and not stale.is_symlink():
                if stale.name.endswith(".old") and not dest.exists():  # killed mid-way through swap_dirs' fallback
                    os.rename(stale, dest)
                else:
                    shutil.rmtree(stale, ignore_errors=True)


def swap_dirs(new: Path, dest: Path) -> None:
    """Make `new` appear at `dest` in one step; the old `dest` ends up at `new`."""
    if not dest.exists():
        os.rename(new, dest)
        return
    if _renameat2 is not None:
        rc = _renameat2(_AT_FDCWD, os.fsencode(new), _AT_FDCWD, os.fsencode(dest), _RENAME_EXCHANGE)
        if rc == 0:
            return
        err = ctypes.get_errno()
        if err not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):  # a real failure (EBUSY, EACCES ...)
            raise OSError(err, os.strerror(err), os.fspath(dest))
    # No atomic exchange here (not Linux, or a file system without it): two renames, old one kept.
    old = new.with_name(new.name + ".old")
    os.rename(dest, old)
    os.rename(new, dest)
    os.rename(old, new)


class BuildLock:
    """What `build_lock` yields: the lock on an output folder, held until the block ends."""

    def __init__(self) -> None:
        self.handed_over = False

    def hand_over(self) -> None:
        """Leave the lock, and the deletions this process started, to a child forked right after: the
        lock belongs to the descriptor the child shares, so it is held until the child exits (or
        unlocks it). This process then leaves the block without unlocking or waiting for deletions.
        Only where `removals_can_be_handed_over()`."""
        self.handed_over = True


@contextmanager
def build_lock(folder: Path) -> Iterator[BuildLock]:
    """Serialise builds that share an output folder (two `make site` at once wait for each other): a
    lock on the file `.NAME.lock` beside `folder`. Deletions the build left running (`remove_later`)
    finish before the lock is released."""
    path = folder.parent / f".{folder.name}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        lock = BuildLock()
        try:
            yield lock
        finally:
            if lock.handed_over:
                _forget_removals()
            else:
                try:
                    wait_for_removals()
                finally:
                    fcntl.flock(handle, fcntl.LOCK_UN)


def _forget_removals() -> None:
    """Leave the deletions running to the child a lock was handed to: their processes are reaped once
    this one exits (or by the next `remove_later`), their descriptors closed here."""
    while _REMOVING:
        removal = _REMOVING.pop()
        _HANDED_OVER.append(removal.proc)
        if removal.pidfd is not None:
            os.close(removal.pidfd)


def _in_state(path: str, state: FileState) -> bool:
    """Whether `path` is a regular file (not a symbolic link) in `state`."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and file_state(st) == state


def _same(path: str | Path, data: bytes) -> bool:
    """Whether `path` is a regular file (not a symbolic link) holding exactly `data`."""
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size != len(data):
            return False
        with open(path, "rb", buffering=0) as handle:
            return handle.read() == data
    except OSError:
        return False


def _write(path: str, data: bytes) -> None:
    try:
        with open(path, "wb") as handle:  # buffered: a raw write may be short
            handle.write(data)
    except OSError as exc:
        raise _named(exc, path) from None


def _named(exc: OSError, path: str | Path) -> OSError:
    """The error with the path it concerns (a failed write() or close() carries none)."""
    if exc.filename is None:
        return OSError(exc.errno, exc.strerror, os.fspath(path))
    return exc


def _load_renameat2():  # type: ignore[no-untyped-def]
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


def _load_syncfs():  # type: ignore[no-untyped-def]
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        fn = libc.syncfs
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int]
    fn.restype = ctypes.c_int
    return fn


_renameat2 = _load_renameat2()
_syncfs = _load_syncfs()
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_SAFE = re.compile(r"[A-Za-z0-9._/-]+")
