"""`mkdocs serve` regenerates the pages when a bank changes, and serves both languages."""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

from tests.sitekit import MKDOCS_CLI, copy_banks, prepare_work


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


def _until(check: Callable[[], bool], seconds: float) -> bool:
    """Whether `check()` came true within `seconds` (asked every 0.1 s)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return False


def _wait_for(url: str, text: str, seconds: float) -> bool:
    return _until(lambda: text in _get(url), seconds)


def _log_tail(tmp_path: Path, count: int = 40) -> str:
    """The end of the server's log, for an assertion message: what it did instead."""
    lines = (tmp_path / "serve.log").read_text(encoding="utf-8", errors="replace").splitlines()
    return f"\n--- serve.log (last {count} lines) ---\n" + "\n".join(line[:300] for line in lines[-count:])


@contextlib.contextmanager
def _serving(
    tmp_path: Path, *options: str, patch: str = "", prepare: Callable[[Path], None] | None = None
) -> Iterator[tuple[Path, str]]:
    """`mkdocs serve` of a copy of the seed banks: (the banks folder, the site's base URL).

    `patch`: Python run in the server's process before MkDocs starts; `prepare`: run on the banks
    folder before that."""
    banks = copy_banks(tmp_path / "banks")
    if prepare is not None:
        prepare(banks)
    env = prepare_work(banks, tmp_path)
    # its temporary files (the site `mkdocs serve` builds into a folder of its own) go here, where
    # `_leftovers` finds what the server did not delete
    (tmp_path / "tmp").mkdir()
    env["TMPDIR"] = str(tmp_path / "tmp")
    port = _free_port()
    # Its log goes to a file: a pipe nobody reads would stall the server once full.
    with open(tmp_path / "serve.log", "wb") as log:
        server = subprocess.Popen(
            [
                sys.executable,
                "-c",
                patch + "\n" + MKDOCS_CLI,
                "serve",
                *options,
                "-a",
                f"127.0.0.1:{port}",
                "-f",
                "mkdocs.yml",
            ],
            cwd=tmp_path,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            yield banks, f"http://127.0.0.1:{port}/"
        finally:
            # Ctrl-C, as a reader stops `make serve`: MkDocs then deletes the site it served from a
            # temporary folder (a SIGTERM ends Python without that: every run left ~10 MB in /tmp)
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
                raise


def _leftovers(tmp_path: Path) -> list[str]:
    """What a server `_serving` ran left in its temporary folder."""
    return sorted(p.name for p in (tmp_path / "tmp").iterdir())


def _edit_answer(bank: Path, old: str, new: str) -> None:
    text = bank.read_text(encoding="utf-8")
    assert old in text
    bank.write_text(text.replace(old, new), encoding="utf-8")


def test_serve_rebuilds_when_a_bank_changes(tmp_path: Path) -> None:
    """It starts although an edit left a translation stale (a warning, which strict mode would make
    fatal): `make site` refuses that, the server that shows the edit must not."""
    first = "ai-infra-3/number-tokens-training-estimate-total-time/"

    def stale(banks: Path) -> None:
        _edit_answer(banks / "ai-infra-3.txt", "估算公式：训练时间", "估算公式（启动前修改）：训练时间")

    with _serving(tmp_path, prepare=stale) as (banks, base):
        assert _wait_for(base + first, "估算公式（启动前修改）", 90), "mkdocs serve did not come up" + _log_tail(
            tmp_path
        )
        log = (tmp_path / "serve.log").read_text(encoding="utf-8")
        assert "INFO    -  studysite: warning: banks/ai-infra-3.en.txt:3: translation is stale" in log, _log_tail(
            tmp_path
        )
        # MkDocs no longer polls docs/: the bank watcher asks for the rebuild that serves the edit below
        watching = next(line for line in log.splitlines() if "Watching paths for changes:" in line)
        assert "'mkdocs.yml'" in watching and "'docs'" not in watching, watching
        page = base + "ai-infra-3/two-batch-overlap/"
        assert _wait_for(page, "Two-batch overlap", 10)
        assert "two-batch overlap" in _get(base + "en/ai-infra-3/two-batch-overlap/")
        bank = banks / "ai-infra-3.txt"
        bank.write_text(
            bank.read_text(encoding="utf-8").replace("通信量很小，通信本身不是瓶颈。", "通信量极小（已修改）。"),
            encoding="utf-8",
        )
        assert _wait_for(page, "通信量极小（已修改）。", 60), "page not regenerated after the bank changed" + _log_tail(
            tmp_path
        )
    # stopped as Ctrl-C stops it: the site it served from a temporary folder is gone
    assert _leftovers(tmp_path) == [], _log_tail(tmp_path)


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


# The background finishes of --dirty rebuilds (mkdocs_plugin._finisher), taken in turn:
# 1. waits until the bank holds the second edit, then runs for real while no other generation can
#    start: its check reads that newer bank against the older pages and fails;
# 2. waits for the next rebuild to begin and fails in the middle of it (as when that rebuild writes
#    the site folder under it), which waits until the failure is logged;
# 3. fails with no rebuild running: a real error;
# 4. and later ones finish the site.
_FAILING_FINISH = """
import logging, pathlib, threading, time
import mkdocs.utils
from studysite.site import mkdocs_plugin, site_finish
real_finish, real_pre_build = site_finish.finish_site, mkdocs_plugin.StudySitePlugin.on_pre_build
calls, plugins, waiting, newer_build, logged = [], [], threading.Event(), threading.Event(), threading.Event()

def finish_site(*args, **kwargs):
    if threading.current_thread().name != "studysite-finish":
        return real_finish(*args, **kwargs)
    calls.append(1)
    pathlib.Path(f"finish-{len(calls)}").touch()
    if len(calls) == 1:
        while SECOND not in pathlib.Path(BANK).read_text(encoding="utf-8"):
            time.sleep(0.05)
        with plugins[0].session.generating:
            return real_finish(*args, **kwargs)
    if len(calls) == 2:
        logged.clear()
        waiting.set()
        assert newer_build.wait(120)
        raise FileNotFoundError("test: the next rebuild removed assets/qa/banknav.js")
    if len(calls) == 3:
        while any(isinstance(h, mkdocs.utils.CountHandler) for h in logging.getLogger("mkdocs").handlers):
            time.sleep(0.05)  # until the build that queued this finish has ended
        raise FileNotFoundError("test: a file the finish needs is missing")
    return real_finish(*args, **kwargs)

def on_pre_build(self, *, config):
    plugins.append(self)
    if mkdocs_plugin._leads(config) and waiting.is_set() and not newer_build.is_set():
        newer_build.set()
        assert logged.wait(60)
    return real_pre_build(self, config=config)

class Logged(logging.Handler):
    def emit(self, record):
        if record.threadName == "studysite-finish":
            logged.set()

logging.getLogger("mkdocs.plugins.studysite").addHandler(Logged())
site_finish.finish_site, mkdocs_plugin.StudySitePlugin.on_pre_build = finish_site, on_pre_build
"""


def test_dirty_serve_survives_finishes_that_fail(tmp_path: Path) -> None:
    """Saves in quick succession under `make serve`: a background finish whose banks change under
    its check, and one that fails while the next rebuild runs, were superseded (said at info level);
    every rebuild is served. A finish that fails with nothing newer is reported as an error. The
    generator's warnings are shown and never stop a rebuild (MkDocs' strict mode would)."""
    edits = ["通信量很小，通信本身不是瓶颈。", *(f"通信量极小（第{n}次修改）。" for n in "一二三四")]
    bank = tmp_path / "banks" / "ai-infra-3.txt"
    patch = f"BANK, SECOND = {str(bank)!r}, {edits[2]!r}\n" + _FAILING_FINISH
    with _serving(tmp_path, "--dirty", patch=patch) as (_banks, base):
        page = base + "ai-infra-3/two-batch-overlap/"
        assert _wait_for(page, "Two-batch overlap", 90), "mkdocs serve did not come up" + _log_tail(tmp_path)
        for n in range(1, 5):
            _edit_answer(bank, edits[n - 1], edits[n])
            assert _wait_for(page, edits[n], 60), f"edit {n} was not served" + _log_tail(tmp_path)
            if n < 3:  # the next edit comes while this rebuild's finish runs
                assert _until((tmp_path / f"finish-{n}").exists, 60), f"edit {n} not finished" + _log_tail(tmp_path)
            elif n == 3:  # and after this one has failed
                assert _wait_for_log(tmp_path, "finishing the site failed", 60), _log_tail(tmp_path)
        assert _wait_for_log(tmp_path, "search index, downloads and offline files updated", 60), _log_tail(tmp_path)
        log = (tmp_path / "serve.log").read_text(encoding="utf-8")
    assert "the banks changed while the site was being finished; left to the newer build (" in log, _log_tail(tmp_path)
    assert "a newer rebuild started while the site was being finished; left to the newer build (" in log, _log_tail(
        tmp_path
    )
    errors = [line.split(" -  ", 1)[-1] for line in log.splitlines() if line.startswith("ERROR")]
    assert errors == ["studysite: finishing the site failed: test: a file the finish needs is missing"], _log_tail(
        tmp_path, 120
    )
    assert "Aborted" not in log, _log_tail(tmp_path)
    # The edited Chinese leaves its English stale: said on every regeneration, without stopping the server.
    assert "INFO    -  studysite: warning: banks/ai-infra-3.en.txt:22: translation is stale" in log, _log_tail(tmp_path)
    assert not [line for line in log.splitlines() if line.startswith("WARNING")], _log_tail(tmp_path, 120)


def _wait_for_log(tmp_path: Path, text: str, seconds: float) -> bool:
    return _until(lambda: text in (tmp_path / "serve.log").read_text(encoding="utf-8", errors="replace"), seconds)
