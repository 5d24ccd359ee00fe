"""Locked builds: CI never rewrites banks/slugs.lock, and two fresh clones build the same bytes."""

from __future__ import annotations

import errno
import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from studysite.build import generate
from studysite.site import sitebuild
from studysite.site.settings import LOCKED_ENV, build_env, source_epoch
from tests.sitekit import ROOT, copy_banks, prepare_work
from tests.test_disk import add_question
from tests.test_reliability import differing_files, tree_digest

BUILD_SITE = [sys.executable, str(ROOT / "scripts" / "build_site.py")]
COMMIT_MESSAGE = "run `make site` locally and commit banks/slugs.lock"


def git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def clone(repo: Path, dest: Path, when: int) -> Path:
    """A shallow clone, as CI makes, its files dated `when` (a clone dates them now)."""
    git("clone", "--quiet", "--depth", "1", f"file://{repo}", str(dest), cwd=repo.parent)
    for path in (dest / "banks").iterdir():
        os.utime(path, (when, when))
    return dest


def locked(path: Path) -> bool:
    """Whether someone holds the build lock `path` (studysite/write.py build_lock)."""
    with open(path, "a+b") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def repository(where: Path) -> Path:
    """A git repository holding a copy of the seed banks plus one question the lock lacks."""
    banks = copy_banks(where / "banks")
    add_question(banks)
    for args in (("init", "--quiet"), ("add", "banks"), ("commit", "--quiet", "-m", "banks")):
        git("-c", "user.name=t", "-c", "user.email=t@t", *args, cwd=where)
    return where


def test_builds_are_dated_from_the_last_commit_and_locked_in_ci(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    banks = clone(repo, tmp_path / "clone", 1_000_000_000) / "banks"
    assert git("rev-parse", "--is-shallow-repository", cwd=banks.parent) == "true"
    head = git("log", "-1", "--format=%ct", cwd=banks.parent)
    assert build_env({"CI": "true"}, banks) == {"CI": "true", "SOURCE_DATE_EPOCH": head, LOCKED_ENV: "1"}
    assert build_env({}, banks) == {"SOURCE_DATE_EPOCH": head}  # locally: dated, not locked
    assert build_env({"SOURCE_DATE_EPOCH": "86400", "CI": "false"}, banks) == {
        "SOURCE_DATE_EPOCH": "86400",
        "CI": "false",
    }
    (banks / "slugs.lock").write_text("", encoding="utf-8")  # the build rewrites the lock: still the commit's date
    assert source_epoch(banks, {}) == head
    add_question(banks)  # an uncommitted edit: its files' (newer) times, so Anki takes the new notes
    assert source_epoch(banks, {}) == ""
    assert source_epoch(tmp_path, {}) == ""  # not a checkout: the files' times, as before


def test_dating_a_build_leaves_the_repositorys_index_alone(tmp_path: Path) -> None:
    """Every build (each `make serve` rebuild too) asks git whether the banks are committed. A plain
    `git status` refreshes the index when the files' times moved, and takes .git/index.lock to write
    it: a maintainer's own `git commit` at that moment failed with "index.lock': File exists". Ours
    reads without that optional lock (`git --no-optional-locks`), so the index stays as it was."""
    repo = repository(tmp_path / "repo")
    for path in (repo / "banks").iterdir():
        os.utime(path, (1_000_000_000, 1_000_000_000))  # the index's times are stale: status would refresh it
    index = repo / ".git" / "index"
    before = (index.stat().st_ino, index.stat().st_mtime_ns, index.read_bytes())
    assert source_epoch(repo / "banks", {}) == git("log", "-1", "--format=%ct", cwd=repo)
    assert (index.stat().st_ino, index.stat().st_mtime_ns, index.read_bytes()) == before


def test_a_ci_build_with_a_stale_lock_fails_with_the_message_and_changes_nothing(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    env = prepare_work(banks, tmp_path)
    generate(banks, tmp_path / "docs")  # the previous build's docs
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("previous site", encoding="utf-8")
    add_question(banks)  # committed without its lock line
    before = (tree_digest(tmp_path / "docs"), tree_digest(tmp_path / "site"), (banks / "slugs.lock").read_bytes())
    cmd = [*BUILD_SITE, "--site-dir", str(tmp_path / "site"), "--config", str(tmp_path / "mkdocs.yml")]
    proc = subprocess.run(cmd, env={**env, "CI": "true"}, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert COMMIT_MESSAGE in proc.stderr and "slugs.lock" in proc.stderr and "Traceback" not in proc.stderr
    assert "new: 新增的问题：什么是MFU？" in proc.stderr  # which path would change
    after = (tree_digest(tmp_path / "docs"), tree_digest(tmp_path / "site"), (banks / "slugs.lock").read_bytes())
    assert after == before


def test_two_fresh_clones_build_identical_sites(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two clones, their files dated differently (as two clones at different times would be). Locally
    the lock is updated; a site that cannot be swapped in leaves docs/ and the lock as they were."""
    repo = repository(tmp_path / "repo")
    sites = []
    for n, when in enumerate((1_000_000_000, 1_700_000_000)):
        work = clone(repo, tmp_path / f"clone{n}", when)
        banks = work / "banks"
        env = prepare_work(banks, work)
        env.pop("SOURCE_DATE_EPOCH", None)
        cmd = ["--site-dir", str(work / "site"), "--config", str(work / "mkdocs.yml")]
        lock_before = (banks / "slugs.lock").read_bytes()
        if n == 1:  # first a build whose site cannot be swapped in (EBUSY): docs/ and lock stay old
            for key, value in env.items():
                monkeypatch.setenv(key, value)
            monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
            monkeypatch.delenv("CI", raising=False)
            docs_before = tree_digest(work / "docs")
            real_swap = sitebuild.swap_dirs
            site = (work / "site").resolve()

            docs = (work / "docs").resolve()
            put_back: list[bool] = []  # for each swap of docs/: whether the docs lock was held (by this build)

            def busy(new: Path, dest: Path, real_swap=real_swap, site=site, docs=docs, put_back=put_back) -> None:  # type: ignore[no-untyped-def]
                if dest == site:
                    raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), str(dest))
                if dest == docs:
                    put_back.append(locked(docs.parent / ".docs.lock"))
                real_swap(new, dest)

            monkeypatch.setattr(sitebuild, "swap_dirs", busy)
            assert sitebuild.main(cmd, ROOT) == 1
            err = capsys.readouterr().err
            assert err.startswith(f"error: {site}: device or resource busy (EBUSY)"), err
            assert "Traceback" not in err
            assert (banks / "slugs.lock").read_bytes() == lock_before
            assert tree_digest(work / "docs") == docs_before
            # put back under the docs lock: not while a generation (or the record of one) writes there
            assert put_back == [True]
            assert not (work / "site").exists()
            monkeypatch.setattr(sitebuild, "swap_dirs", real_swap)
        proc = subprocess.run([*BUILD_SITE, *cmd], env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        assert "新增的问题：什么是MFU？" in (banks / "slugs.lock").read_text(encoding="utf-8")  # locally: updated
        assert "new: 新增的问题：什么是MFU？" in proc.stdout  # and the new path listed
        sites.append(work / "site")
    assert differing_files(*sites) == []
