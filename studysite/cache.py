"""A content-addressed cache of parsed banks, enrichment results and rendered pages, kept between builds.

Each entry is stored under a hash of everything its value is computed from: the input bytes or model
parts it reads, and the generator's own code (every file of this package and the versions of the
libraries whose behaviour reaches the output). Equal key, equal value: an entry is never stale, only
unused, so a build can take any entry it finds, and docs/ is the same byte for byte with or without
the cache (tests/test_cache.py builds both and compares).

The cache lives beside the docs folder in a hidden folder (`.docs.cache/` for `docs/`, git-ignored),
one file per shard (the model's stages; the pages of each language, written by the process that
rendered them). A shard holds only the entries the last build used, so it never grows past one
site's worth. Anything wrong with a shard (missing, truncated, corrupt, from another version of the
code, unreadable) makes it count as empty; a shard that cannot be written (full disk, read-only
folder) is left out. Neither ever fails or changes a build.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
import sys
import zlib
from importlib import metadata
from pathlib import Path
from typing import Any

SERIAL = b"studysite-cache 1\n"
"""Start of every shard file; a new layout gets a new number."""
NO_CACHE_ENV = "STUDYSITE_NO_CACHE"
"""Set to 1 to build without reading or writing the cache."""
MISSING: Any = object()
"""What `Memo.get` returns for a key it does not hold."""


class Memo:
    """One shard: the entries the previous build stored, and those this build used or added."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._old: dict[bytes, Any] = _load(path) if path is not None else {}
        self._new: dict[bytes, Any] = {}
        self._added = False

    @property
    def enabled(self) -> bool:
        return self.path is not None

    def key(self, *parts: bytes | str) -> bytes:
        """The key of a value computed from `parts` by this version of the code."""
        h = hashlib.sha256(code_digest())
        for part in parts:
            data = part.encode("utf-8") if isinstance(part, str) else part
            h.update(len(data).to_bytes(8, "little"))  # lengths first: ("ab", "c") is not ("a", "bc")
            h.update(data)
        return h.digest()

    def get(self, key: bytes) -> Any:
        """The value stored under `key`, or MISSING."""
        if key in self._new:
            return self._new[key]
        value = self._old.get(key, MISSING)
        if value is not MISSING:
            self._new[key] = value  # used again: kept for the next build
        return value

    def put(self, key: bytes, value: Any) -> Any:
        if self.path is not None:
            self._new[key] = value
            self._added = True
        return value

    def fresh(self) -> dict[bytes, Any]:
        """What this build used or added (for a forked process to send back)."""
        return self._new

    def merge(self, entries: dict[bytes, Any]) -> None:
        if self.path is not None:
            for key, value in entries.items():
                self._added = self._added or key not in self._old
                self._new[key] = value

    def save(self) -> None:
        """Write the shard (written aside, then renamed over the old one); any failure leaves it out."""
        if self.path is None or (not self._added and len(self._new) == len(self._old)):
            return  # the file holds exactly these entries already
        tmp = self.path.with_name(f"{self.path.name}.tmp-{os.getpid()}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            payload = pickle.dumps((code_digest(), self._new), protocol=pickle.HIGHEST_PROTOCOL)
            with open(tmp, "wb") as handle:
                handle.write(SERIAL + _check(payload) + payload)
            os.replace(tmp, self.path)
        except Exception:  # a full disk, a read-only folder, no memory: the build does not need it
            with contextlib.suppress(OSError):
                os.unlink(tmp)


NULL = Memo(None)
"""No cache: every `get` misses and nothing is kept."""


def folder_for(docs_dir: Path) -> Path:
    """Where the cache of a docs folder lives: `.NAME.cache/` beside it (git-ignored)."""
    return docs_dir.parent / f".{docs_dir.name}.cache"


def shard(docs_dir: Path | None, name: str) -> Memo:
    """The shard `name` of `docs_dir`'s cache (NULL without a folder or with STUDYSITE_NO_CACHE=1)."""
    if docs_dir is None or os.environ.get(NO_CACHE_ENV) == "1":
        return NULL
    return Memo(folder_for(docs_dir) / f"{name}.pickle")


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


def code_digest() -> bytes:
    """A hash of the generator's code: every file of this package, the Python version, and the versions
    of the libraries whose results reach the pages (numbers from numpy, slugs from pymdown-extensions,
    YAML from PyYAML)."""
    if not _code:
        h = hashlib.sha256(sys.version.encode())
        package = Path(__file__).resolve().parent
        for path in sorted(package.iterdir()):
            if path.is_file() and not path.name.endswith((".pyc", ".pyo")):
                data = path.read_bytes()
                h.update(path.name.encode() + b"\0" + len(data).to_bytes(8, "little") + data)
        for dist in _LIBRARIES:
            try:
                h.update(f"{dist}=={metadata.version(dist)}\n".encode())
            except metadata.PackageNotFoundError:
                h.update(f"{dist} missing\n".encode())
        _code.append(h.digest())
    return _code[0]


def _load(path: Path) -> dict[bytes, Any]:
    """A shard's entries; empty when the file is missing or anything about it is wrong."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        start = len(SERIAL) + _CHECK_BYTES
        payload = data[start:]
        if data[: len(SERIAL)] != SERIAL or data[len(SERIAL) : start] != _check(payload):
            return {}
        code, entries = pickle.loads(payload)
        if code != code_digest() or not isinstance(entries, dict):
            return {}
        return entries
    except Exception:  # unreadable, truncated, corrupt: rebuilt from the inputs
        return {}


def _check(payload: bytes) -> bytes:
    # Length and CRC-32 find a truncated or damaged file (what a crash or a bad disk leaves) at a
    # third of the cost of SHA-256 over ~90 MB of pages; the cache guards against accidents, not
    # against someone who can write into the repository anyway.
    return len(payload).to_bytes(8, "little") + zlib.crc32(payload).to_bytes(4, "little")


_CHECK_BYTES = 12
_code: list[bytes] = []
_LIBRARIES = ("numpy", "pymdown-extensions", "PyYAML", "Markdown")
