"""Operating-system failures: a full, busy, read-only or forbidden folder is one line naming the path,
and docs/, site/ and banks/slugs.lock stay all old (or become all new)."""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from studysite import build, cli, write
from studysite.build import generate
from tests.sitekit import ROOT, copy_banks, prepare_work
from tests.test_reliability import tree_digest

BUILD_SITE = [sys.executable, str(ROOT / "scripts" / "build_site.py")]
NEW_QUESTION = {
    "ai-infra-3.txt": "\nQ: 新增的问题：什么是MFU？\n模型FLOPs利用率。\n",
    "ai-infra-3.en.txt": "\nQ: Added: what is MFU?\n@mfu\nModel FLOPs utilisation.\n",  # @slug: the question it translates
}


def add_question(banks: Path) -> None:
    """An edit that changes docs/ and the lock."""
    for name, text in NEW_QUESTION.items():
        with open(banks / name, "a", encoding="utf-8") as bank:
            bank.write(text)


@contextlib.contextmanager
def tmpfs(where: Path, size: str) -> Iterator[Path]:
    """A small memory file system mounted at `where` (needs root; the test is skipped without it)."""
    where.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(folder: Path) -> None:
    """Fill the file system of `folder` to the last byte."""
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        for size in (65536, 1):
            with contextlib.suppress(OSError):
                while os.write(fd, b"\0" * size):
                    pass
    finally:
        os.close(fd)


def state(banks: Path, docs: Path) -> tuple[str, bytes]:
    return tree_digest(docs), (banks / "slugs.lock").read_bytes()


def run_cli(banks: Path, docs: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(["--banks", str(banks), "--out", str(docs)], banks, docs)
    return code, capsys.readouterr().err


def assert_one_line(err: str, path: Path, name: str) -> None:
    """An `error:` line naming the path and the system's reason, and no traceback."""
    assert "Traceback" not in err
    first = err.splitlines()[0]
    assert first.startswith("error: ") and str(path) in first and f"({name})" in first, err


def test_full_disk_under_docs_is_one_line_and_leaves_docs_and_lock_old(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    banks = copy_banks(tmp_path / "banks")
    with tmpfs(tmp_path / "mnt", "2m") as mnt:
        docs = mnt / "docs"
        generate(banks, docs)
        add_question(banks)
        before = state(banks, docs)
        fill(mnt)
        code, err = run_cli(banks, docs, capsys)
        assert code == 1
        assert_one_line(err, mnt, "ENOSPC")
        assert state(banks, docs) == before
        # no half-written tree, and no half-written cache shard (the cache is the first build's)
        assert sorted(p.name for p in mnt.iterdir()) == [".docs.cache", ".docs.lock", "docs", "filler"]
        assert not [p for p in (mnt / ".docs.cache").iterdir() if ".tmp-" in p.name]


def test_full_disk_under_banks_leaves_docs_old_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's case: the new lock cannot be written. Before, docs/ was already new by then."""
    docs = tmp_path / "docs"
    with tmpfs(tmp_path / "mnt", "1m") as mnt:
        banks = copy_banks(mnt / "banks")
        generate(banks, docs)
        add_question(banks)
        before = state(banks, docs)
        fill(mnt)
        code, err = run_cli(banks, docs, capsys)
        assert code == 1
        assert_one_line(err, banks, "ENOSPC")
        assert state(banks, docs) == before
        assert not [p for p in banks.iterdir() if p.name.startswith(".")]  # no temporary lock left


def test_docs_as_a_mount_point_is_one_line_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder that is a mount point cannot be swapped (EBUSY)."""
    banks = copy_banks(tmp_path / "banks")
    with tmpfs(tmp_path / "docs", "4m") as docs:
        generate(banks, docs, in_place=True)  # (the in-place writer fills it without swapping)
        add_question(banks)
        before = state(banks, docs)
        code, err = run_cli(banks, docs, capsys)
        assert code == 1
        assert_one_line(err, docs, "EBUSY")
        assert state(banks, docs) == before


def test_site_as_a_mount_point_fails_at_once_and_changes_nothing(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    add_question(banks)
    env = prepare_work(banks, tmp_path)
    lock = (banks / "slugs.lock").read_bytes()
    with tmpfs(tmp_path / "site", "1m") as site:
        (site / "old.html").write_text("old", encoding="utf-8")
        proc = subprocess.run(
            [*BUILD_SITE, "--site-dir", str(site), "--config", str(tmp_path / "mkdocs.yml")],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 1
        assert "Traceback" not in proc.stderr
        assert proc.stderr.startswith(f"error: {site}: is a mount point (EBUSY)"), proc.stderr
        assert [p.name for p in site.iterdir()] == ["old.html"]
    assert (banks / "slugs.lock").read_bytes() == lock
    assert [p.name for p in (tmp_path / "docs").iterdir()] == []  # nothing generated


def test_full_disk_under_site_is_one_line_and_leaves_docs_and_lock_old(tmp_path: Path) -> None:
    """MkDocs itself runs out of space while it writes the site (under the site's parent, where the
    new site is staged): one line naming the file, no traceback, and docs/, site/ and the lock old."""
    banks = copy_banks(tmp_path / "banks")
    env = prepare_work(banks, tmp_path)
    config = str(tmp_path / "mkdocs.yml")
    with tmpfs(tmp_path / "out", "3m") as out:
        site = out / "site"
        site.mkdir()
        (site / "old.html").write_text("old", encoding="utf-8")
        generate(banks, tmp_path / "docs")  # first docs/ and the lock, outside the small disk
        add_question(banks)
        before = state(banks, tmp_path / "docs")
        proc = subprocess.run(
            [*BUILD_SITE, "--site-dir", str(site), "--config", config],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode != 0
        assert "Traceback" not in proc.stderr, proc.stderr
        first = proc.stderr.splitlines()[0]
        assert first.startswith(f"error: {out}/") and "(ENOSPC)" in first, proc.stderr
        assert [p.name for p in site.iterdir()] == ["old.html"]
        assert state(banks, tmp_path / "docs") == before


@pytest.mark.parametrize(("code", "name"), [(errno.EROFS, "EROFS"), (errno.EACCES, "EACCES"), (errno.ENOSPC, "ENOSPC")])
def test_a_failing_write_is_one_line_and_leaves_docs_and_lock_old(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, code: int, name: str
) -> None:
    """Injected: the system refuses the 20th file written (root ignores permissions, so no real EACCES)."""
    banks = copy_banks(tmp_path / "banks")
    docs = tmp_path / "docs"
    generate(banks, docs)
    add_question(banks)
    before = state(banks, docs)
    real, calls = write._write, []

    def failing(path: str, data: bytes) -> None:
        calls.append(path)
        if len(calls) == 20:
            raise OSError(code, os.strerror(code), path)
        real(path, data)

    monkeypatch.setattr(write, "_write", failing)
    status, err = run_cli(banks, docs, capsys)
    assert status == 1
    assert_one_line(err, tmp_path, name)
    assert state(banks, docs) == before


def test_a_lock_that_cannot_be_put_in_place_swaps_the_old_docs_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    banks = copy_banks(tmp_path / "banks")
    docs = tmp_path / "docs"
    generate(banks, docs)
    add_question(banks)
    before = state(banks, docs)

    def refuse(self: write.PendingFile) -> None:
        raise OSError(errno.EACCES, os.strerror(errno.EACCES), str(self.path))

    monkeypatch.setattr(write.PendingFile, "commit", refuse)
    status, err = run_cli(banks, docs, capsys)
    assert status == 1
    assert_one_line(err, banks / "slugs.lock", "EACCES")
    assert state(banks, docs) == before


def test_the_new_tree_and_lock_are_synced_before_the_swap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Order of events around the swap: the tree and the new lock reach the disk first."""
    banks = copy_banks(tmp_path / "banks")
    add_question(banks)
    events: list[str] = []
    for name in ("sync_tree", "swap_dirs", "sync_dir"):
        real = getattr(write, name)
        monkeypatch.setattr(write, name, lambda *a, real=real, name=name: (events.append(name), real(*a))[1])
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (events.append("fsync"), real_fsync(fd))[1])
    real_replace = os.replace

    def replace(src: str | Path, dst: str | Path) -> None:
        events.append(f"replace {Path(dst).name}")
        real_replace(src, dst)

    monkeypatch.setattr(build, "PendingFile", write.PendingFile)
    monkeypatch.setattr(os, "replace", replace)
    generate(banks, tmp_path / "docs")  # the first build: a new docs tree
    generate(banks, tmp_path / "docs")  # (unchanged lock: nothing pending)
    assert events[:1] == ["fsync"]  # the new lock, written beside the old one
    swap = events.index("swap_dirs")
    assert events[swap - 1] == "sync_tree" and events[swap + 1] == "replace slugs.lock"
    assert "sync_dir" in events[swap + 1 :]
