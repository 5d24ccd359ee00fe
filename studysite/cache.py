"""A content-addressed cache of parsed banks, enrichment results and rendered pages, kept between builds.

Each entry is stored under a hash of everything its value is computed from: the input bytes or model
parts it reads, and the generator's own code (every file of this package and the versions of the
libraries whose behaviour reaches the output). Equal key, equal value: an entry is never stale, only
unused, so a build can take any entry it finds, and docs/ is the same byte for byte with or without
the cache (tests/test_cache.py builds both and compares).

Above the entries, one record for the whole generation (`last-generation.pickle`): the key of every
input (each file of the banks folder as the generation left it, with the locks it wrote; the
generator's options and code), the result, the state of
every file in docs/ as that generation left it, and the key each page was rendered from. A generation
whose key and docs/ match it returns that result without reading a bank or writing a file
(`unchanged`); after an edit, a page with the key its file was written from, in a file still in that
state, is taken as it is without being read (`last_pages`).

The cache lives beside the docs folder in a hidden folder (`.docs.cache/` for `docs/`, git-ignored),
one file per shard (the model's stages, the pages of each language written by
the process that rendered them, and each language's pages as MkDocs converted them:
studysite/site/page_cache.py). A shard is a series of records: a build appends one with the
entries it added (after one edit, a few pages: not the whole site again), and writes the shard anew,
with only the entries it used, once most of it is entries no build used since; so it stays within
about twice one site's worth. Anything wrong with a record (cut short, corrupt, from another version
of the code) makes it and what follows count as empty; a shard that cannot be read is empty, one that
cannot be written (full disk, read-only folder) is left as it was. Neither ever fails or changes a build.
A process that builds again (`make serve`) keeps the shards it saved in memory, values unpickled, and
reads a file again only when another process wrote it since (`_HELD`). Beside a shard, a value put
aside (`Memo.put_aside`) is the last one of its kind, not found by a hash of its inputs: what a process
that builds again would keep in memory, for the next process to take up (the related questions'
numbers and last call); whoever reads it checks that it fits.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import io
import os
import pickle
import shutil
import sys
import threading
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, NamedTuple

from .write import FileState, file_state, wait_for_removals

SERIAL = b"studysite-cache 3\n"
"""Start of every shard file; a new layout gets a new number."""
NO_CACHE_ENV = "STUDYSITE_NO_CACHE"
"""Set to 1 to build without reading or writing the cache."""
MISSING: Any = object()
"""What `Memo.get` returns for a key it does not hold."""
Raw = bytes | memoryview
"""An entry's value as a shard holds it, pickled: a view of the bytes of the file it was read from."""


class Memo:
    """One shard: the entries the previous build stored, and those this build used or added.

    Values are kept pickled one by one until asked for: reading a shard is then a copy of its bytes,
    and each entry's size is known (how much of the file is still used decides when to write it anew).
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._old: dict[bytes, Raw] = {}
        self._size = 0  # bytes of the file as read
        self._clean = False  # the file is whole and of this code: a record can be appended to it
        self._values: dict[bytes, Any] = {}  # entries of the file this process has unpickled before
        self._read = path is None  # the file is read when first needed (`_load_once`)
        self._new: dict[bytes, Any] = {}
        self._kept: dict[bytes, Raw] = {}  # entries of the file used again, still pickled
        self._added: set[bytes] = set()
        self._aside: dict[str, Callable[[], Any]] = {}

    @property
    def enabled(self) -> bool:
        return self.path is not None

    def _load_once(self) -> None:
        """Read the file, or take what this process holds of it: on the first `get`, `holds` or `save`, not
        before (a generation that finds nothing changed asks none: at 5,000 questions its model shard
        is 25 MB)."""
        if self._read:
            return
        assert self.path is not None  # without a file, `_read` is true from the start
        self._read = True
        held = _HELD.get(os.fspath(self.path))
        if held is not None and held.identity == _identity(self.path):
            self._old, self._size, self._clean, self._values = held.raw, held.identity[0], True, held.values
        else:
            self._old, self._size, self._clean = _load(self.path)

    def key(self, *parts: bytes | str) -> bytes:
        """The key of a value computed from `parts` by this version of the code (`key`)."""
        return key(*parts)

    def get(self, key: bytes) -> Any:
        """The value stored under `key`, or MISSING."""
        if key in self._new:
            return self._new[key]
        self._load_once()
        raw = self._old.get(key)
        if raw is None:
            return MISSING
        value = self._values.get(key, MISSING)
        if value is MISSING:
            try:
                value = pickle.loads(raw)
            except Exception:  # a value that no longer loads (a class renamed): computed again
                return MISSING
        self._new[key] = value
        self._kept[key] = raw  # used again: kept for the next build
        return value

    def holds(self, key: bytes) -> bool:
        """Whether a value is stored under `key`; if so, it is kept for the next build as `get` keeps it,
        without being unpickled (`get` does that when someone needs the value: `Texts`)."""
        if key in self._new:
            return True
        self._load_once()
        raw = self._old.get(key)
        if raw is None:
            return False
        self._kept[key] = raw
        return True

    def put(self, key: bytes, value: Any) -> Any:
        if self.path is not None:
            self._new[key] = value
            self._added.add(key)
        return value

    def aside(self, name: str) -> Any:
        """The value a build of this code last put aside under `name` (`put_aside`), or None.

        Unlike an entry, a value put aside is not found by a hash of its inputs: it is the last one, as
        a process that builds again keeps something in memory (a snapshot of the related questions'
        last call, links.RelatedSnapshot). Whoever reads it checks that it fits what it builds now."""
        if self.path is None:
            return None
        try:
            with open(self._aside_path(name), "rb") as handle:
                data = handle.read()
            head = SERIAL + code_digest()
            payload = memoryview(data)[len(head) + _CHECK_BYTES :]  # not copied (see `_load`)
            if data[: len(head)] != head or data[len(head) : len(head) + _CHECK_BYTES] != _check(payload):
                return None
            return pickle.loads(payload)
        except Exception:  # missing, unreadable, damaged, of a class renamed: as if none
            return None

    def has_aside(self, name: str) -> bool:
        """Whether a value is put aside under `name` (of any code: `aside` checks that)."""
        return self.path is not None and self._aside_path(name).is_file()

    def put_aside(self, name: str, make: Callable[[], Any]) -> None:
        """Put `make()` aside under `name` when this shard is saved (`aside`), unless it returns None."""
        if self.path is not None:
            self._aside[name] = make

    def _aside_path(self, name: str) -> Path:
        assert self.path is not None
        return self.path.with_name(f"{self.path.stem}.{name}{self.path.suffix}")

    def save(self) -> None:
        """Append what this build added to the shard, or write it anew (aside, then renamed over it) when
        most of the file would be entries this build did not use; write the values put aside. Any failure
        leaves the cache out, never the build."""
        if self.path is None:
            return
        self._load_once()
        for name, make in self._aside.items():
            with contextlib.suppress(Exception):  # as a shard: a full disk, a read-only folder, no memory
                value = make()
                if value is not None:
                    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
                    _replace_file(self._aside_path(name), SERIAL + code_digest() + _check(payload) + payload)
        self._aside.clear()
        try:
            fresh = {
                k: pickle.dumps(self._new[k], protocol=pickle.HIGHEST_PROTOCOL)
                for k in self._added
                if k not in self._kept
            }
            used = sum(map(len, self._kept.values())) + sum(map(len, fresh.values()))
            if self._clean and self._size + sum(map(len, fresh.values())) <= 2 * used + _SLACK:
                if fresh:
                    self._append(_record(fresh))
                raw = {**self._old, **fresh}
            else:
                self._rewrite(_record({**self._kept, **fresh}))
                raw = {**self._kept, **fresh}
            self._hold(raw)
        except Exception:  # a full disk, a read-only folder, no memory: the build does not need it
            _HELD.pop(os.fspath(self.path), None)

    def _hold(self, raw: dict[bytes, Raw]) -> None:
        """Keep the shard's entries in this process as the file now holds them, with every value
        already unpickled, for the next build here to take instead of reading the file again."""
        assert self.path is not None
        identity = _identity(self.path)
        if identity is None:
            _HELD.pop(os.fspath(self.path), None)
            return
        values = {k: v for k, v in (*self._values.items(), *self._new.items()) if k in raw}
        # list(): a copy made in one step under the GIL, as `make serve`'s site check (the finishing
        # thread's check-lines shard) may save while the bank watcher's generation does
        for other in [p for p in list(_HELD) if os.path.dirname(p) != os.fspath(self.path.parent)]:
            _HELD.pop(other, None)  # one docs folder's: what `make serve` builds again
        _HELD[os.fspath(self.path)] = _Held(identity, raw, values)

    def _append(self, record: bytes) -> None:
        assert self.path is not None
        with open(self.path, "r+b") as handle:
            end = handle.seek(0, os.SEEK_END)
            try:
                handle.write(record)
                handle.flush()
            except BaseException:
                with contextlib.suppress(OSError):
                    handle.truncate(end)  # a torn record would hide every later one
                raise

    def _rewrite(self, record: bytes) -> None:
        assert self.path is not None
        _replace_file(self.path, SERIAL + record)


def _replace_file(path: Path, data: bytes) -> None:
    """`path` holds `data`, written aside and renamed over it: a reader finds the old file or the new one."""
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class _Held(NamedTuple):
    identity: tuple[int, int, int]  # the file's size, modification time and inode as saved
    raw: dict[bytes, Raw]
    values: dict[bytes, Any]


_HELD: dict[str, _Held] = {}
"""Each shard this process saved last, as the file then held it, with the values this process had
unpickled or computed. `make serve` generates again in its own process after each edit: a shard that
no other process wrote since is then neither read nor unpickled again (at 5,000 questions ~20,000
entries: an edit's generation took 4.94 s against 5.60 s, median of 8 each, alternated in one run).
Only the last docs folder's shards are held: at 5,000 questions ~100 MB more between builds with the
main language's two shards (measured), more when every language renders in this process. The values
are the model's frozen objects and page texts, shared as `get` already shares one value between the
stages of one build."""


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino


NULL = Memo(None)
"""No cache: every `get` misses and nothing is kept."""


class Files:
    """Whole files kept by the key of what they were made from (the Anki decks and CSV files of
    studysite/takeaway/anki.py), one folder of the cache: a build that would make the same file again
    takes the kept one instead (`place`: a hard link, or a copy across file systems).

    A kept file and the site's file may be one inode, so neither is ever written in place: `keep`
    links a file its writer renamed into place whole, and `place` renames a new link over the
    site's file. After a build, `prune` removes what it did not use: the folder holds one build's
    files. Nothing here fails a build: a file that cannot be kept is made again next time, one that
    cannot be placed is made now (a write into the site that fails is the writer's error, as ever).
    Writer threads may call `keep` at once.
    """

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._used: set[str] = set()

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    def place(self, key: bytes, dest: Path) -> bool:
        """Put the file kept under `key` at `dest`; False when there is none (make it, then `keep` it),
        or when it cannot be put there (unreadable, no room: the writer then makes it, and says why)."""
        if self.folder is None:
            return False
        name = key.hex()
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
            _link_or_copy(self.folder / name, dest)
        except OSError:
            return False
        self._used.add(name)
        return True

    def keep(self, key: bytes, made: Path) -> None:
        """Keep the file just made at `made` (renamed there whole) under `key`."""
        if self.folder is None:
            return
        name = key.hex()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            _link_or_copy(made, self.folder / name)
        except OSError:  # a full disk or a read-only cache: made again next time
            return
        self._used.add(name)

    def prune(self) -> None:
        """Remove every kept file this build did not place or keep (and what killed builds left)."""
        if self.folder is None:
            return
        try:
            names = os.listdir(self.folder)
        except OSError:
            return
        for name in names:
            if name not in self._used:
                with contextlib.suppress(OSError):
                    os.unlink(self.folder / name)


def _link_or_copy(src: Path, dest: Path) -> None:
    """`dest` holds `src`'s bytes: a hard link (a copy across file systems or where links are refused)
    made aside and renamed over it, so `dest` is never written in place; nothing is left aside on failure.
    Writer threads may call it at once."""
    tmp = dest.with_name(f".{dest.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    try:
        try:
            os.link(src, tmp)
        except FileNotFoundError:  # no `src` (nothing kept): no copy to try
            raise
        except OSError:
            shutil.copyfile(src, tmp)
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def files(docs_dir: Path | None, name: str) -> Files:
    """The folder `name` of `docs_dir`'s cache for whole files (none with STUDYSITE_NO_CACHE=1)."""
    if docs_dir is None or os.environ.get(NO_CACHE_ENV) == "1":
        return Files(None)
    return Files(folder_for(docs_dir) / name)


def folder_for(docs_dir: Path) -> Path:
    """Where the cache of a docs folder lives: `.NAME.cache/` beside it (git-ignored)."""
    return docs_dir.parent / f".{docs_dir.name}.cache"


def shard(docs_dir: Path | None, name: str) -> Memo:
    """The shard `name` of `docs_dir`'s cache (NULL without a folder or with STUDYSITE_NO_CACHE=1)."""
    if docs_dir is None or os.environ.get(NO_CACHE_ENV) == "1":
        return NULL
    return Memo(folder_for(docs_dir) / f"{name}.pickle")


LAST = "last-generation.pickle"
"""The record of the last generation into a docs folder (see the module's docstring)."""


def banks_state(banks_dir: Path) -> dict[str, bytes] | None:
    """Each regular file of `banks_dir` by name: a hash of its bytes (`file_digest`). None when a file
    cannot be read (the generation then reads it and reports why)."""
    try:
        with os.scandir(banks_dir) as found:
            names = sorted(e.name for e in found if e.is_file())  # follows links; never a FIFO
        return {name: file_digest((banks_dir / name).read_bytes()) for name in names}
    except (OSError, ValueError):
        return None


def file_digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def generation_key(state: Mapping[str, bytes], *options: object) -> bytes:
    """A hash of everything a generation reads: the banks folder's files (`banks_state`: their names and
    bytes), `options` (their repr: the generator's arguments and the language table) and the generator's
    code."""
    h = _base().copy()
    h.update(repr(options).encode())
    for name, digest in sorted(state.items()):
        h.update(name.encode() + b"\0" + digest)  # a name holds no NUL; a digest is 32 bytes
    return h.digest()


def unchanged(docs_dir: Path, key: bytes) -> tuple[Any, list[str]] | None:
    """The result of the last generation into `docs_dir` and its files' paths, when it had the inputs of
    `key` and docs/ is still exactly what it wrote (every file's size, times and inode; none added or
    removed); None otherwise, or when the record cannot be read."""
    path = folder_for(docs_dir) / LAST
    held = _HELD_RESULT.get(os.fspath(path))
    try:
        if held is not None and held.key == key and held.identity is not None and held.identity == _identity(path):
            # this process wrote (or read) the record: its result is not read and unpickled again
            return (held.result, held.paths) if held.state == tree_state(docs_dir) else None
        state, paths, _, blob = _last_record(docs_dir, key, with_result=True)
        if state != tree_state(docs_dir):
            return None
        with collection_paused():
            result = _unpickle_grouped(blob)
        _hold_result(path, key, result, paths, state)
        return result, paths
    except Exception:  # missing, unreadable, corrupt, of another layout: generate
        return None


class _HeldResult(NamedTuple):
    identity: tuple[int, int, int] | None
    """The record file's (`_identity`) when it held this."""
    key: bytes
    result: Any
    paths: list[str]
    state: list[tuple[str, int, int, int, int]]


_HELD_RESULT: dict[str, _HeldResult] = {}
"""The record this process wrote or read last, by its path, as `unchanged` returns it (see `_HELD`):
a generation that finds nothing changed in `make serve` took 0.40-0.51 s at 5,000 questions, most of it
unpickling the result and the collection of the objects that made (2026-12-06)."""


def _hold_result(
    path: Path, key: bytes, result: Any, paths: list[str], state: list[tuple[str, int, int, int, int]]
) -> None:
    _HELD_RESULT.clear()  # one docs folder's, as `_HELD`
    _HELD_RESULT[os.fspath(path)] = _HeldResult(_identity(path), key, result, paths, state)


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """No garbage collection inside: while many small objects are unpickled, collection would visit
    each as it is made, a few times the time of the load itself, for objects that are all reachable."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def last_pages(docs_dir: Path) -> dict[str, tuple[bytes, FileState]]:
    """Each page the last recorded generation into `docs_dir` rendered from a cache key (`Page.key`), by
    its path: that key and the state that generation left its file in, whatever its inputs were. Empty
    without a sound record."""
    path = folder_for(docs_dir) / LAST
    held = _HELD_PAGES.get(os.fspath(path))
    if held is not None and held[0] == _identity(path):
        return held[1]  # this process wrote the record: not read again
    try:
        state, _, pages, _ = _last_record(docs_dir, None)
        return _pages_as_left(state, pages)
    except Exception:  # missing, unreadable, corrupt, of another layout: every page is compared
        return {}


_HELD_PAGES: dict[str, tuple[tuple[int, int, int] | None, dict[str, tuple[bytes, FileState]]]] = {}
"""What `last_pages` would read from the record this process wrote last (see `_HELD`), by its path."""


def _pages_as_left(
    state: list[tuple[str, int, int, int, int]], pages: Mapping[str, bytes]
) -> dict[str, tuple[bytes, FileState]]:
    """Each page's key with the state (`tree_state`) its file was left in."""
    left = {rel: (size, mtime, ctime, ino) for rel, size, mtime, ctime, ino in state}
    return {rel: (page, left[rel]) for rel, page in pages.items() if rel in left}


Record = tuple[list[tuple[str, int, int, int, int]], list[str], dict[str, bytes], bytes | memoryview]
"""The last generation's record: docs/'s state, the paths, each page's key, the pickled result (b""
where it was not asked for)."""


def _last_record(docs_dir: Path, key: bytes | None, *, with_result: bool = False) -> Record:
    """The record's docs/ state, paths, page keys and (`with_result`) pickled result; only for inputs of
    `key` unless None. Raises when there is none, or it is damaged or of another key."""
    return _read_record(docs_dir, key, with_result=with_result)[1]


def _read_record(docs_dir: Path, key: bytes | None, *, with_result: bool = False) -> tuple[bytes, Record]:
    """`_last_record`, and the record's head (its format and key) to write it again with.

    The file: the head, then two parts, each after its length and CRC-32 (`_check`): docs/'s state, the
    paths and the page keys pickled; then the pickled result (`_pickle_grouped`). The head is read
    first: after an edit the key differs, and nothing else is read for `unchanged`. The result (19 of
    the record's 22 MB at 5,000 questions) is read only `with_result`: `last_pages` after an edit took
    0.06-0.08 s reading and unpickling it with the rest."""
    with open(folder_for(docs_dir) / LAST, "rb") as handle:
        head = handle.read(len(SERIAL) + 32)
        if head[: len(SERIAL)] != SERIAL or (key is not None and head[len(SERIAL) :] != key):
            raise ValueError("no record of these inputs")
        state, paths, pages = pickle.loads(_read_part(handle))
        blob = _read_part(handle) if with_result else b""
    return head, (state, paths, pages, blob)


def _read_part(handle: io.BufferedReader) -> memoryview:
    """The next part (`_parts`) of the record, checked; raises when it is cut short or damaged."""
    check = handle.read(_CHECK_BYTES)
    size = int.from_bytes(check[:8], "little")
    if size > os.fstat(handle.fileno()).st_size - handle.tell():  # a damaged length: not a buffer of it
        raise ValueError("a damaged record")
    payload = memoryview(handle.read(size))  # not copied again (see `_load`)
    if len(check) != _CHECK_BYTES or len(payload) != size or check != _check(payload):
        raise ValueError("a damaged record")
    return payload


def _parts(
    state: list[tuple[str, int, int, int, int]], paths: list[str], pages: dict[str, bytes], blob: bytes | memoryview
) -> bytes:
    """The record's two parts (`_read_record`), each after its length and CRC-32."""
    listing = pickle.dumps((state, paths, pages), protocol=pickle.HIGHEST_PROTOCOL)
    return b"".join([_check(listing), listing, _check(blob), blob])


def after_unlinking(docs_dir: Path, inodes: set[int]) -> None:
    """Bring the record of the last generation into `docs_dir` up to date after other links to its
    files, those with `inodes`, were removed (`make site`'s backup of docs/, hard links deleted once the
    site is in place: studysite/site/sitebuild.py). Removing a link moves a file's change time and
    nothing else, but the record holds it: without this, the next generation found docs/ changed
    after every `make site` (its unchanged-check missed, and every page was compared again). Only those
    files' change times are taken, where their size, modification time and inode are as recorded; any
    other difference, or any failure, leaves the record as it is. Call it under the docs lock."""
    try:
        head, (state, paths, pages, blob) = _read_record(docs_dir, None, with_result=True)
        now = tree_state(docs_dir)
        if [entry[0] for entry in now] != [entry[0] for entry in state]:
            return
        for was, found in zip(state, now, strict=True):
            if was != found and (was[:3] != found[:3] or was[4] != found[4] or was[4] not in inodes):
                return
        if now == state:
            return
        _replace_file(folder_for(docs_dir) / LAST, head + _parts(now, paths, pages, blob))
    except Exception:  # no record, or one that cannot be read or written: left as it is
        return


def remember(
    docs_dir: Path,
    key: bytes,
    result: Any,
    paths: list[str],
    pages: Mapping[str, bytes],
    groups: Sequence[tuple[object, ...]] = (),
    left: Mapping[str, FileState] | None = None,
    group_keys: Sequence[bytes] | None = None,
) -> None:
    """Record this generation (`unchanged` reads it) and the key of each page rendered from one, by its
    path (`last_pages`). `groups`: objects of the result pickled apart, a group at a time, and
    `group_keys` a key of each one's content (`_pickle_grouped`). `left`: the state of every file in
    docs/ as the generation left it, when its writer read them (`write_tree_in_place`); else docs/ is
    read here (`tree_state`). Any failure leaves the record out, never the build."""
    path = folder_for(docs_dir) / LAST
    try:
        blob = _pickle_grouped(result, groups, group_keys, docs_dir)  # while the old docs tree is deleted
        # Deleting the old tree's hard links to unchanged pages changes their inodes' ctime: the record
        # reads docs/ once that is over.
        wait_for_removals()
        state = tree_state(docs_dir) if left is None else sorted((rel, *st) for rel, st in left.items())
        _replace_file(path, SERIAL + key + _parts(state, paths, dict(pages), blob))
        _HELD_PAGES.clear()  # one docs folder's, as `_HELD`
        _HELD_PAGES[os.fspath(path)] = (_identity(path), _pages_as_left(state, pages))
        _hold_result(path, key, result, paths, state)
    except Exception:
        _HELD_PAGES.pop(os.fspath(path), None)
        _HELD_RESULT.pop(os.fspath(path), None)


def _pickle_grouped(
    value: Any, groups: Sequence[tuple[object, ...]], keys: Sequence[bytes] | None = None, docs_dir: Path | None = None
) -> bytes:
    """`value` pickled with the objects of each group apart: each group as one pickle, and the rest
    with references to them. A group whose objects are the very ones (not equal ones) of a group this
    process pickled last time is not pickled again: after an edit, every bank but one holds the
    questions of the generation before (the cache gives back the same objects), which were most of
    the ~20 MB, 0.4-0.5 s, a record took at 5,000 questions. `keys`: a key of each group's content
    (equal keys, equal objects); a process that has pickled no group yet (a new one, `make site`) takes
    the pickle of a group with the same key from the record of `docs_dir`, instead of pickling it."""
    held, now = _HELD_GROUPS, {}
    recorded = _recorded_groups(docs_dir) if not held and keys is not None and docs_dir is not None else {}
    place: dict[int, tuple[int, int]] = {}
    blobs = []
    for number, group in enumerate(groups):
        # The held groups keep their objects alive, so equal ids are the very same objects.
        ids = tuple(map(id, group))
        last = held.get(ids)
        data = last[1] if last is not None else recorded.get(keys[number]) if keys is not None else None
        if data is None:
            data = pickle.dumps(group, protocol=pickle.HIGHEST_PROTOCOL)
        now[ids] = (group, data)
        blobs.append(data)
        for at, obj in enumerate(group):
            place.setdefault(id(obj), (number, at))
    _HELD_GROUPS.clear()
    _HELD_GROUPS.update(now)

    def reduce(obj: Any) -> Any:  # only for the groups' types: a reference to its group, or as usual
        found = place.get(id(obj))
        return (_grouped, found) if found is not None else obj.__reduce_ex__(pickle.HIGHEST_PROTOCOL)

    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    # Not `persistent_id`, which pickle would call for every object of the value.
    pickler.dispatch_table = {kind: reduce for kind in {type(obj) for group in groups for obj in group}}
    pickler.dump(value)
    return pickle.dumps((blobs, out.getvalue(), None if keys is None else list(keys)), protocol=pickle.HIGHEST_PROTOCOL)


def _recorded_groups(docs_dir: Path) -> dict[bytes, bytes]:
    """The pickle of each group in the record of `docs_dir`, by the group's key; empty without a sound record."""
    try:
        _, _, _, blob = _last_record(docs_dir, None, with_result=True)
        blobs, _, keys = pickle.loads(blob)
        return dict(zip(keys, blobs, strict=True)) if keys is not None else {}
    except Exception:  # missing, unreadable, corrupt, of another layout: every group is pickled
        return {}


def _unpickle_grouped(blob: bytes | memoryview) -> Any:
    """What `_pickle_grouped` pickled."""
    blobs, rest, _ = pickle.loads(blob)
    groups = [pickle.loads(data) for data in blobs]

    class Unpickler(pickle.Unpickler):
        def find_class(self, module: str, name: str) -> Any:
            if (module, name) == (__name__, _grouped.__name__):
                return lambda number, at: groups[number][at]
            return super().find_class(module, name)

    return Unpickler(io.BytesIO(rest)).load()


def _grouped(number: int, at: int) -> Any:
    """Stands for object `at` of group `number` in a `_pickle_grouped` pickle (`_unpickle_grouped`)."""
    raise ValueError("a grouped object read without its groups")


_HELD_GROUPS: dict[tuple[int, ...], tuple[tuple[object, ...], bytes]] = {}
"""The groups `_pickle_grouped` pickled last in this process, by their objects' ids, with their pickles."""


def tree_state(root: Path) -> list[tuple[str, int, int, int, int]]:
    """Every file under `root`: its path, size, modification and change times, and inode."""
    out = []
    for rel, st in _walk(os.fspath(root), ""):
        out.append((rel, *file_state(st)))
    out.sort()
    return out


def _walk(folder: str, prefix: str) -> Iterator[tuple[str, os.stat_result]]:
    with os.scandir(folder) as found:
        for entry in found:
            if entry.is_dir(follow_symlinks=False):
                yield from _walk(entry.path, prefix + entry.name + "/")
            else:
                yield prefix + entry.name, entry.stat(follow_symlinks=False)


class Texts(Mapping[str, str]):
    """Texts by path: those given, and those `memo` holds (`Memo.holds`), unpickled only when asked for.

    At 5,000 questions a new process that generates again after an edit finds ~5,000 question pages of
    each language in the cache; the writer links nearly all of them as their files are (`Staging.write`)
    without their text (unpickling every one took ~0.2 s of that 3.1 s generation, 2026-12-05)."""

    def __init__(self, memo: Memo) -> None:
        self.memo = memo
        self._texts: dict[str, str | bytes] = {}  # a text, or the key `memo` holds it under

    def add(self, path: str, text: str) -> None:
        self._texts[path] = text

    def add_held(self, path: str, key: bytes) -> None:
        """`path`'s text is what `memo` holds under `key` (it said so: `Memo.holds`)."""
        self._texts[path] = key

    def __getitem__(self, path: str) -> str:
        found = self._texts[path]
        if isinstance(found, str):
            return found
        text = self.memo.get(found)
        if not isinstance(text, str):  # the shard's records are checked when read: only a bug gets here
            raise RuntimeError(f"the page cache lost {path}'s text: delete .docs.cache/ and build again")
        return text

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)


class DocsFiles(Mapping[str, str]):
    """Generated files read from docs/ when asked for: `paths`, besides those `held` in memory. What
    `Result.files` is after an unchanged generation (without keeping ~100 MB of pages in the record),
    and for the languages a forked child wrote (studysite/build.py render_and_swap)."""

    def __init__(self, docs_dir: Path, paths: list[str], held: Mapping[str, str] | None = None) -> None:
        self.held = held or {}
        self.docs_dir, self.paths = docs_dir, [*self.held, *paths]
        self._known = set(self.paths)

    def __getitem__(self, rel: str) -> str:
        if rel in self.held:
            return self.held[rel]
        if rel not in self._known:
            raise KeyError(rel)
        with open(self.docs_dir / rel, encoding="utf-8", newline="") as handle:
            return handle.read()

    def __iter__(self) -> Iterator[str]:
        return iter(self.paths)

    def __len__(self) -> int:
        return len(self.paths)


def remove_stale(folder: Path) -> None:
    """Delete half-written shards that killed builds left (call it holding the docs folder's build lock)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if ".tmp-" in name:
            with contextlib.suppress(OSError):
                os.unlink(folder / name)


def key(*parts: bytes | str) -> bytes:
    """The key of a value computed from `parts` by this version of the code: the same in every shard."""
    h = _base().copy()
    _feed(h, parts)
    return h.digest()


def key_from(*first: bytes | str) -> Callable[..., bytes]:
    """`key` of parts that begin with `first`, those hashed once: `key_from(a, b)(c)` is `key(a, b, c)`.
    For keys computed thousands of times with the same first parts (a language's question pages)."""
    h = _base().copy()
    _feed(h, first)

    def rest(*parts: bytes | str) -> bytes:
        g = h.copy()
        _feed(g, parts)
        return g.digest()

    return rest


def _feed(h: Any, parts: tuple[bytes | str, ...]) -> None:
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))  # lengths first: ("ab", "c") is not ("a", "bc")
        h.update(data)


def digest(value: object) -> bytes:
    """A hash of a value of the model (frozen dataclasses, tuples, dicts, strings, numbers).

    Pickle writes every field of every object it reaches, so equal hashes mean equal values. Its
    "fast" mode (no memo) writes a shared object out each time it occurs, so how a value's parts
    happen to be shared (a bank parsed now or loaded from the cache) does not change the hash.
    """
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True  # type: ignore[attr-defined]
    pickler.dump(value)
    return hashlib.sha256(out.getbuffer()).digest()


class Digests:
    """Digests of model objects already known in this build, found again by identity (the very object,
    not an equal one): a question parsed from a file is named by the file's parse key and its place,
    which costs a fraction of pickling it; later stages and the forked page renderer reuse them."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[object, bytes]] = {}  # holds the object: its id stays its own
        self._keys: dict[int, tuple[object, bytes]] = {}

    def remember(self, value: object, found: bytes) -> bytes:
        self._by_id[id(value)] = (value, found)
        return found

    def remember_key(self, value: object, found: bytes) -> None:
        """The cache key (not the digest) of what pages read of this very object, computed once for
        every language's pages (studysite/pages/render.py `entry_key`, `name_entries`)."""
        self._keys[id(value)] = (value, found)

    def key_of(self, value: object) -> bytes | None:
        """What `remember_key` was told for this very object, or None."""
        known = self._keys.get(id(value))
        return known[1] if known is not None and known[0] is value else None

    def of(self, value: object) -> bytes:
        """`digest(value)`, or what `remember` was told for this very object."""
        known = self._by_id.get(id(value))
        if known is not None and known[0] is value:
            return known[1]
        return self.remember(value, digest(value))


def _base() -> Any:
    """A SHA-256 that has read the code digest, copied for each key."""
    if not _hasher:
        _hasher.append(hashlib.sha256(code_digest()))
    return _hasher[0]


def code_digest() -> bytes:
    """A hash of the generator's code: every file of this package, the Python version, and the versions
    of the libraries whose results reach the pages (numbers from numpy, slugs from pymdown-extensions,
    YAML from PyYAML, converted text from OpenCC)."""
    if not _code:
        h = hashlib.sha256(sys.version.encode())
        h.update(package_digest(Path(__file__).resolve().parent))
        h.update(library_versions(_LIBRARIES))
        _code.append(h.digest())
    return _code[0]


def library_versions(dists: tuple[str, ...]) -> bytes:
    """The installed version of each distribution in `dists`, one line each ("missing" when not installed)."""
    lines = []
    for dist in dists:
        try:
            lines.append(f"{dist}=={metadata.version(dist)}\n")
        except metadata.PackageNotFoundError:
            lines.append(f"{dist} missing\n")
    return "".join(lines).encode()


def package_digest(package: Path) -> bytes:
    """A hash of every file under `package` by its path: every layer's folder (sources/, enrich/,
    pages/, ...) and the string catalogues too, since a file left out would serve pages its edit changed."""
    h = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and not path.name.endswith((".pyc", ".pyo")):
            data = path.read_bytes()
            h.update(path.relative_to(package).as_posix().encode() + b"\0" + len(data).to_bytes(8, "little") + data)
    return h.digest()


def _load(path: Path) -> tuple[dict[bytes, Raw], int, bool]:
    """A shard's entries (values still pickled: views of the file's bytes), the file's size, and whether
    the whole file is sound and of this code. A record that is damaged or cut short ends the reading (it
    and what follows count as empty); a record of other code is skipped."""
    entries: dict[bytes, Raw] = {}
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        if data[: len(SERIAL)] != SERIAL:
            return {}, len(data), False
        # A record is checked where it lies in the file's bytes, and only its index is unpickled: each
        # value stays a view of those bytes until a build asks for it (after an edit, a few of a shard's
        # ~10,000 pages at 5,000 questions). Unpickling a 48 MB page shard whole, values and all, took
        # ~50 ms a language, and slicing the record out of `data` first as long again.
        view = memoryview(data)
        at, clean = len(SERIAL), True
        while at < len(data):
            size = int.from_bytes(data[at : at + 8], "little")
            payload = view[at + _CHECK_BYTES : at + _CHECK_BYTES + size]
            if len(payload) != size or data[at : at + _CHECK_BYTES] != _check(payload):
                return entries, len(data), False
            at += _CHECK_BYTES + size
            head = int.from_bytes(payload[:8], "little")
            code, index = pickle.loads(payload[8 : 8 + head])
            if code != code_digest() or not isinstance(index, list):
                clean = False
                continue
            found, start = {}, 8 + head
            for key, length in index:
                found[key] = payload[start : start + length]
                start += length
            if start != len(payload):  # an index that does not add up to its record: as damaged
                return entries, len(data), False
            entries.update(found)
    except Exception:  # missing, unreadable, corrupt: rebuilt from the inputs
        return {}, 0, False
    return entries, len(data), clean


def _record(entries: Mapping[bytes, Raw]) -> bytes:
    """A record of a shard: its length and CRC-32 (`_check`), then the length of its index, the index
    (the code's digest, each entry's key and size) pickled, and the entries' pickled values in that order."""
    index = pickle.dumps((code_digest(), [(k, len(v)) for k, v in entries.items()]), protocol=pickle.HIGHEST_PROTOCOL)
    payload = b"".join([len(index).to_bytes(8, "little"), index, *entries.values()])
    return _check(payload) + payload


def _check(payload: bytes | memoryview) -> bytes:
    # Length and CRC-32 find a truncated or damaged record (what a crash or a bad disk leaves) at a
    # third of the cost of SHA-256 over ~90 MB of pages; the cache guards against accidents, not
    # against someone who can write into the repository anyway.
    return len(payload).to_bytes(8, "little") + zlib.crc32(payload).to_bytes(4, "little")


_CHECK_BYTES = 12
_SLACK = 1 << 20
"""Bytes a shard may hold beyond twice what the last build used before it is written anew (a small
site's shard would otherwise be rewritten for every edit of its largest page)."""
_code: list[bytes] = []
_hasher: list[Any] = []
_LIBRARIES = ("numpy", "pymdown-extensions", "PyYAML", "Markdown", "OpenCC")
