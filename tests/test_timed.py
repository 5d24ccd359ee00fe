"""scripts/timed.sh, the line each tier (`make unit`, `make lint`, `make test`) ends with: its verdict
and wall time, and on Linux how busy the machine was meanwhile."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sitekit import ROOT

pytestmark = pytest.mark.unit

TIMED = ROOT / "scripts" / "timed.sh"
BURN = "import time\nend = time.process_time() + 0.4\nwhile time.process_time() < end: pass\n"
LINE = re.compile(
    r"^make demo: (?P<verdict>.+?) in (?P<wall>[0-9.]+) s"
    r"(; the machine was busy for (?P<busy>[0-9.]+) of its (?P<all>[0-9.]+) core-seconds \((?P<cores>[0-9]+) cores\)"
    r"(, [0-9.]+ stolen by the host)?)?$"
)
PROC = Path("/proc/stat").is_file()
"""Linux: the line says the CPU; elsewhere only the verdict and the time."""


def _timed(*command: str) -> tuple[int, dict[str, str | None]]:
    proc = subprocess.run(["bash", str(TIMED), "demo", *command], capture_output=True, text=True, check=False)
    last = proc.stdout.splitlines()[-1]
    match = LINE.match(last)
    assert match, proc.stdout + proc.stderr
    assert (match["busy"] is not None) == PROC, last
    return proc.returncode, match.groupdict()


def test_the_cpu_of_a_grandchild_is_counted_in_the_machines() -> None:
    # the command starts a process that computes (as pytest starts workers that start chromium)
    code, said = _timed(
        sys.executable, "-c", f"import subprocess, sys; subprocess.run([sys.executable, '-c', {BURN!r}])"
    )
    assert code == 0 and said["verdict"] == "passed", said
    assert float(said["wall"] or 0) >= 0.35, said
    if not PROC:
        return  # (_timed checked that the line says no CPU there)
    busy, everything = float(said["busy"] or 0), float(said["all"] or 0)
    assert busy >= 0.35 and everything >= busy, said
    assert int(said["cores"] or 0) >= 1, said


@pytest.mark.parametrize(
    ("exit_code", "verdict"), [(5, "FAILED: no test was collected (pytest exit 5)"), (3, "FAILED (exit 3)")]
)
def test_a_failing_tier_says_so_and_keeps_its_exit_code(exit_code: int, verdict: str) -> None:
    code, said = _timed("sh", "-c", f"exit {exit_code}")
    assert (code, said["verdict"]) == (exit_code, verdict)
