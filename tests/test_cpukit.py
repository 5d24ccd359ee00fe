"""tests/cpukit.py charges each test the CPU of its process tree: a test whose child process computes
costs that CPU, a test that waits costs next to nothing, and the report sums them by file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sitekit import ROOT

pytestmark = pytest.mark.unit

_TESTS = """
import subprocess, sys, time

BURN = "import sys, time\\nend = time.process_time() + 0.3\\nwhile time.process_time() < end: pass\\n"
MARK = "open(sys.argv[1], 'w').close()\\n"
ORPHAN = "import subprocess, sys\\nsubprocess.Popen([sys.executable, '-c', sys.argv[1], sys.argv[2]])\\n"
LIVE = []

def test_a_child_computes():
    subprocess.run([sys.executable, "-c", BURN], check=True)

def test_a_child_that_goes_on_computes():
    # still running when the test ends (as the browser is): its CPU so far is read from it, not from a wait
    LIVE.append(subprocess.Popen([sys.executable, "-c", BURN + "print('done', flush=True)\\nsys.stdin.read()"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
    assert LIVE[0].stdout.readline() == "done\\n"

def test_an_orphan_computes(tmp_path):
    # a child starts a process and ends without waiting for it (as Lighthouse's launcher leaves its chromium)
    done = tmp_path / "done"
    subprocess.run([sys.executable, "-c", ORPHAN, BURN + MARK, str(done)], check=True)
    while not done.exists():
        time.sleep(0.01)

def test_waits():
    time.sleep(0.3)
    LIVE[0].stdin.close()  # reaped here: its CPU moves into this process's count of its children
    LIVE[0].wait()
"""

_PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]


def test_a_test_is_charged_its_childrens_cpu_and_not_its_waits(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(_TESTS, encoding="utf-8")
    ledger = tmp_path / "cpu.jsonl"
    env = os.environ | {"QA_CPU_BY_TEST": str(ledger), "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [*_PYTEST, "-p", "tests.cpukit", "--rootdir", str(tmp_path), str(tmp_path / "test_sample.py")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    charged = {line["test"]: line for line in map(json.loads, ledger.read_text(encoding="utf-8").splitlines())}
    assert set(charged) == {
        f"test_sample.py::test_{name}"
        for name in ("a_child_computes", "a_child_that_goes_on_computes", "an_orphan_computes", "waits")
    }, charged
    assert charged["test_sample.py::test_a_child_computes"]["cpu"] >= 0.25, charged
    assert charged["test_sample.py::test_a_child_that_goes_on_computes"]["cpu"] >= 0.25, charged
    assert charged["test_sample.py::test_an_orphan_computes"]["cpu"] >= 0.25, charged
    assert charged["test_sample.py::test_waits"]["cpu"] < 0.1, charged
    assert charged["test_sample.py::test_waits"]["wall"] >= 0.3, charged

    summary = subprocess.run(
        [sys.executable, "-m", "tests.cpukit", str(ledger)], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert summary.startswith("4 tests, "), summary
    assert "test_sample.py::test_a_child_computes" in summary and "test_sample.py::test_waits" in summary, summary


def test_a_line_it_did_not_write_is_named_by_file_and_line(tmp_path: Path) -> None:
    ledger = tmp_path / "cpu.jsonl"
    ledger.write_text('{"test": "a.py::t", "cpu": 1.0, "wall": 1.0, "worker": "gw0"}\nnot json\n', encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "tests.cpukit", str(ledger)], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert run.returncode == 1 and f"{ledger}:2: not a line this plugin wrote" in run.stderr, run
