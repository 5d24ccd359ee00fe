"""`mkdocs serve` regenerates the pages when a bank changes, and serves both languages."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from tests.sitekit import copy_banks, prepare_work


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return str(response.read().decode("utf-8"))
    except OSError:
        return ""


def _wait_for(url: str, text: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if text in _get(url):
            return True
        time.sleep(0.3)
    return False


def _log_tail(tmp_path: Path) -> str:
    """The end of the server's log, for an assertion message: what it did instead."""
    lines = (tmp_path / "serve.log").read_text(encoding="utf-8", errors="replace").splitlines()
    return "\n--- serve.log (last 40 lines) ---\n" + "\n".join(line[:300] for line in lines[-40:])


@contextlib.contextmanager
def _serving(tmp_path: Path, *options: str) -> Iterator[tuple[Path, str]]:
    """`mkdocs serve` of a copy of the seed banks: (the banks folder, the site's base URL)."""
    banks = copy_banks(tmp_path / "banks")
    env = prepare_work(banks, tmp_path)
    port = _free_port()
    # Its log goes to a file: a pipe nobody reads would stall the server once full.
    with open(tmp_path / "serve.log", "wb") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", *options, "-a", f"127.0.0.1:{port}", "-f", "mkdocs.yml"],
            cwd=tmp_path,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            yield banks, f"http://127.0.0.1:{port}/"
        finally:
            server.terminate()
            server.wait(timeout=20)


def test_serve_rebuilds_when_a_bank_changes(tmp_path: Path) -> None:
    with _serving(tmp_path) as (banks, base):
        page = base + "ai-infra-3/two-batch-overlap/"
        assert _wait_for(page, "Two-batch overlap", 90), "mkdocs serve did not come up" + _log_tail(tmp_path)
        assert "two-batch overlap" in _get(base + "en/ai-infra-3/two-batch-overlap/")
        bank = banks / "ai-infra-3.txt"
        bank.write_text(
            bank.read_text(encoding="utf-8").replace("通信量很小，通信本身不是瓶颈。", "通信量极小（已修改）。"),
            encoding="utf-8",
        )
        assert _wait_for(page, "通信量极小（已修改）。", 60), "page not regenerated after the bank changed" + _log_tail(
            tmp_path
        )


def test_dirty_serve_updates_the_tags_page_after_a_title_edit(tmp_path: Path) -> None:
    """`make serve` (--dirty) renders only pages whose Markdown changed; a title edit reaches the
    tag pages that list the question (their Markdown is generated with the title in it)."""
    with _serving(tmp_path, "--dirty") as (banks, base):
        assert _wait_for(base + "tags/communication/", "什么是Two-batch overlap？", 90), (
            "mkdocs serve did not come up" + _log_tail(tmp_path)
        )
        bank = banks / "ai-infra-3.txt"
        bank.write_text(
            bank.read_text(encoding="utf-8").replace(
                "Q: 什么是Two-batch overlap？", "Q: 什么是Two-batch overlap（修订）？"
            ),
            encoding="utf-8",
        )
        assert _wait_for(base + "ai-infra-3/two-batch-overlap/", "Two-batch overlap（修订）", 60), (
            "page not rebuilt" + _log_tail(tmp_path)
        )
        assert _wait_for(base + "tags/communication/", "什么是Two-batch overlap（修订）？", 30), (
            "tag page shows the old title" + _log_tail(tmp_path)
        )
