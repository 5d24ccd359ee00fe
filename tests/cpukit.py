"""What each test costs the machine in CPU: where `make test`'s time goes, test by test.

Under pytest-xdist a test's wall time says little (three workers share two cores) and most of a
browser test's CPU is spent in chromium, not in the worker. With `QA_CPU_BY_TEST=FILE` set
(tests/conftest.py then takes the hook below), each test is charged the growth of its worker's
whole process tree over the test, setup and teardown included: the worker, the Playwright driver and
the chromium it started, builds, servers and Lighthouse, as each process's own CPU plus that of the
children it waited for (qualitykit.processes: the reading of /proc that others_yield uses too). A
module's fixtures (a built site) are charged to its first test. Each worker appends one JSON line
per test to FILE.

    QA_CPU_BY_TEST=/tmp/cpu.jsonl make test
    .venv/bin/python -m tests.cpukit /tmp/cpu.jsonl

A process that nobody in the tree waits for would leave it with its CPU: Lighthouse's chromium is
killed by its launcher without a wait, and its helpers outlive it. So each worker becomes its
processes' subreaper (prctl PR_SET_CHILD_SUBREAPER): an orphan below it is adopted by the worker
instead of by init, and stays in the tree, as a zombie once it ended, until the worker exits
(test_lighthouse.py alone, 2026-12-07: 19.9 CPU-s seen without it, the machine busy for 56
core-seconds; 53.8 with it, the machine busy for 54). A test that shows a negative figure lost a
process the tree could not keep; the report says how much went missing so.
"""

from __future__ import annotations

import collections
import ctypes
import functools
import json
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.qualitykit import descendants, processes

OUT_VARIABLE = "QA_CPU_BY_TEST"


def tree_cpu(root: int) -> float:
    """CPU seconds spent so far by process `root` and every process below it that is still running
    or that its parent waited for."""
    children, ticks = processes()
    return sum(ticks.get(pid, 0) for pid in descendants(root, children)) / _TICKS


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    ledger = _ledger()
    before, started = tree_cpu(os.getpid()), time.monotonic()
    yield
    line = {
        "test": item.nodeid,
        "cpu": round(tree_cpu(os.getpid()) - before, 3),
        "wall": round(time.monotonic() - started, 3),
        "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
    }
    with open(ledger, "a", encoding="utf-8") as out:  # one short line: one atomic append
        out.write(json.dumps(line) + "\n")


def report(lines: list[dict[str, Any]], top: int = 25) -> str:
    """The CPU of `lines` (one per test) by file, and by test function (its parameters together)."""
    charged = [(str(line["test"]), float(line["cpu"])) for line in lines]
    by_file: dict[str, list[float]] = collections.defaultdict(list)
    by_function: dict[str, list[float]] = collections.defaultdict(list)
    for test, cpu in charged:
        by_file[test.split("::")[0]].append(cpu)
        by_function[re.sub(r"\[.*\]$", "", test)].append(cpu)
    missing = -sum(cpu for _, cpu in charged if cpu < 0)
    out = [
        f"{len(charged)} tests, {sum(max(cpu, 0) for _, cpu in charged):.1f} CPU-s"
        + (f" ({missing:.1f} CPU-s went missing with processes the tree could not keep)" if missing else ""),
        "",
        "   CPU-s  tests  per test  file",
    ]
    out += _rows(by_file)
    out += ["", f"   CPU-s  tests  per test  the {top} costliest test functions"]
    out += _rows(by_function)[:top]
    return "\n".join(out)


def _rows(groups: dict[str, list[float]]) -> list[str]:
    """One line per group, costliest first: its CPU-s, its tests, their mean, its name."""
    return [
        f"{sum(c):8.1f} {len(c):6d} {sum(c) / len(c):9.2f}  {name}"
        for name, c in sorted(groups.items(), key=lambda kv: -sum(kv[1]))
    ]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(f"usage: python -m tests.cpukit FILE (written by a run with {OUT_VARIABLE}=FILE)", file=sys.stderr)
        return 2
    path = Path(argv[0])
    lines = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            lines.append(json.loads(text))
        except json.JSONDecodeError as e:
            print(f"{path}:{number}: not a line this plugin wrote ({e})", file=sys.stderr)
            return 1
    print(report(lines))
    return 0


@functools.cache
def _ledger() -> str:
    """The file to append to, taken out of the environment once: a pytest that a test runs inside its
    own test (tests/forked_cases.py) is part of that test's CPU, not a test of its own. And this
    process made the subreaper of every process below it (Linux 3.4+)."""
    ledger = os.environ.pop(OUT_VARIABLE)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")
    return ledger


_PR_SET_CHILD_SUBREAPER = 36
_TICKS = os.sysconf("SC_CLK_TCK")

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
