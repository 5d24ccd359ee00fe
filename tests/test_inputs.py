"""Every entry of banks/ is accounted for: read, or named in a warning or an error; FIFOs never opened."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from pathlib import Path

import pytest

from studysite.build import load_sources
from studysite.errors import Problems
from studysite.sources.parse import parse_bank
from studysite.sources.yamlfile import load_yaml
from tests.sitekit import ROOT, build_pages, copy_banks, time_limit

GOOD = "标题\nQ: 问题一？\n答案一。\n"


def problems_of(banks: Path) -> tuple[list[str], list[str]]:
    problems = Problems()
    load_sources(banks, problems)
    return [str(p) for p in problems.errors], [str(p) for p in problems.warnings]


def build(banks: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """scripts/build_pages.py with a time limit: a build that opens a FIFO would wait for ever."""
    return build_pages(banks, out, *extra, timeout=60)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("extra.TXT", "`extra.TXT` is not read as written: rename it to `extra.txt`"),
        ("Taxonomy.yml", "`Taxonomy.yml` is not read as written: rename it to `taxonomy.yml`"),
        ("glossary.yaml", "`glossary.yaml` is not read as written: rename it to `glossary.yml`"),
        ("extra.txt ", "file name 'extra.txt ' has leading or trailing spaces: rename it to 'extra.txt'"),
        ("\u3000extra.md", "has leading or trailing spaces"),
    ],
)
def test_surely_mistaken_names_are_errors(tmp_path: Path, name: str, message: str) -> None:
    banks = copy_banks(tmp_path / "banks")
    (banks / name).write_text(GOOD, encoding="utf-8")
    errors, _ = problems_of(banks)
    assert [e for e in errors if message in e and name in e], errors


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda b: (b / "sub").mkdir() or (b / "sub" / "extra.txt").write_text(GOOD), "sub: folder not read"),
        (lambda b: (b / "notes.md").write_text("x"), "notes.md: file not read"),
        (lambda b: (b / "extra.txt~").write_text(GOOD), "extra.txt~: file not read"),
        (lambda b: (b / "extra.txt.bak").write_text(GOOD), "extra.txt.bak: file not read"),
        (lambda b: os.mkfifo(b / "pipe"), "pipe: a FIFO not read"),
        (lambda b: (b / "link").symlink_to(b / "taxonomy.yml"), "link: a symbolic link not read"),
    ],
)
def test_unread_entries_are_warnings_that_fail_under_strict(tmp_path: Path, make: object, message: str) -> None:
    banks = copy_banks(tmp_path / "banks")
    make(banks)  # type: ignore[operator]
    errors, warnings = problems_of(banks)
    assert errors == []
    assert [w for w in warnings if message in w], warnings
    strict = build(banks, tmp_path / "docs", "--strict")
    assert strict.returncode == 1 and f"{message.split(':')[0]}: (strict)" in strict.stderr, strict.stderr
    assert "Traceback" not in strict.stderr


@pytest.mark.parametrize("name", ["extra.txt", "taxonomy.yml", "glossary.yml", "slugs.lock", "x.en.txt"])
def test_a_fifo_named_like_an_input_is_an_error_and_never_opened(tmp_path: Path, name: str) -> None:
    banks = copy_banks(tmp_path / "banks")
    if name.endswith(".en.txt"):
        (banks / "x.txt").write_text(GOOD, encoding="utf-8")
    (banks / name).unlink(missing_ok=True)
    os.mkfifo(banks / name)
    proc = build(banks, tmp_path / "docs")  # no writer ever opens the FIFO: opening it would block
    assert proc.returncode == 1, proc.stderr
    assert f"{name}: not a regular file (a FIFO)" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "docs").exists()


def test_a_socket_or_folder_named_like_a_bank_is_an_error(tmp_path: Path) -> None:
    banks = copy_banks(tmp_path / "banks")
    (banks / "folder.txt").mkdir()
    server = socket.socket(socket.AF_UNIX)
    try:
        os.chdir(banks)  # a socket path must be short; relative to the folder it is
        server.bind("sock.txt")
    finally:
        os.chdir(ROOT)
    try:
        errors, _ = problems_of(banks)
    finally:
        server.close()
    assert any("folder.txt: not a regular file (a folder)" in e for e in errors), errors
    assert any("sock.txt: not a regular file (a socket)" in e for e in errors), errors


@pytest.mark.parametrize("name", ["ai-infra-3.txt", "ai-infra-3.en.txt", "taxonomy.yml", "glossary.yml", "slugs.lock"])
def test_symlinks_are_refused_alike_for_every_data_file(tmp_path: Path, name: str) -> None:
    banks = copy_banks(tmp_path / "banks")
    outside = tmp_path / "outside" / name
    outside.parent.mkdir()
    (banks / name).rename(outside)
    (banks / name).symlink_to(outside)
    errors, _ = problems_of(banks)
    assert [
        e
        for e in errors
        if e.endswith(f"{name}: symbolic links are not allowed in the banks folder: copy the file instead")
    ], errors


def test_read_entries_and_dot_files_are_not_reported(tmp_path: Path) -> None:
    """The seed folder, plus the tools' own dot-files, gives no warning about its entries."""
    banks = copy_banks(tmp_path / "banks")
    (banks / ".DS_Store").write_bytes(b"\0")
    (banks / ".slugs.lock.tmp").write_text("", encoding="utf-8")
    (banks / ".git").mkdir()
    errors, warnings = problems_of(banks)
    assert errors == [] and not [w for w in warnings if "not read" in w], warnings


def test_reads_refuse_fifos_and_devices_without_blocking(tmp_path: Path) -> None:
    """Should a FIFO or device take a file's place after the scan, every reader refuses it at once."""
    fifo = tmp_path / "late.txt"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/null")):
        problems = Problems()
        with time_limit(5, Hang):  # a blocking open of the FIFO would end here with Hang
            assert parse_bank(path, "late", "zh", problems) is None
        with time_limit(5, Hang):
            assert load_yaml(path, problems) is None
        assert [p.message for p in problems.errors] == [
            "cannot read file: not a regular file (a FIFO, device, socket or folder)"
        ] * 2, problems.errors


def test_a_time_limit_ends_a_hang_and_gives_the_outer_limit_back() -> None:
    """tests/sitekit.time_limit, which the tests above rely on: it ends a block that blocks, and when it
    ends, the limit around it (pytest-timeout's for the whole test, here another time_limit) runs on
    with the time it had left, instead of being switched off."""
    with time_limit(60, Hang):
        before = signal.getitimer(signal.ITIMER_REAL)[0]
        handler = signal.getsignal(signal.SIGALRM)
        with pytest.raises(Hang, match=r"more than 0\.05 s"), time_limit(0.05, Hang):
            signal.pause()  # blocks until a signal comes: here, the inner limit's
        after = signal.getitimer(signal.ITIMER_REAL)[0]
        assert 0 < after <= before <= 60
        assert signal.getsignal(signal.SIGALRM) is handler


class Hang(BaseException):
    """Not an OSError (as TimeoutError is), so no reader's `except OSError` can swallow it."""
