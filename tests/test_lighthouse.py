"""Lighthouse (mobile settings, Debian's chromium): accessibility, best practices and SEO all score
100, and performance at least 90 on the home, bank, question and tags pages (PERFORMANCE_RUNS).

Those four and the glossary in Chinese and English, and the 繁體中文 home and question pages: twelve
runs, one at a time (two at once on the machine's
two cores cost each other 5-10 points of performance) in one chromium (scripts/lighthouse_runs.mjs:
43 s for six pages here, against 79 s with a `lighthouse` command per page; a run costs as much as a
few browser tests; the study pages, review and stats, are checked by axe in tests/test_review.py
and tests/test_stats.py instead), served as GitHub Pages serves the site
(gzip, under /REPO/: tests/qualitykit.serve_pages), in the browser the other tests drive: Debian's
chromium-headless-shell, the same Blink without the desktop browser's shell. Four pages took 28-34 s
there against 38-42 s in the full chromium, run alternately on this 2-core machine, with performance
93-99 against 92-97. Performance moves with the machine's load, and load only ever makes a page
slower: a page under PERFORMANCE gets up to RETRIES more runs, and its best run counts, and while the
runs go on the run's other test workers yield the CPU to them (tests/qualitykit.others_yield: nice 10). The
benchmark (`make bench`) measures the 97 target in the full chromium: median of 3, home, bank,
question and tags pages, one run at a time.

Each run's CPU slowdown is calibrated to the host as Lighthouse's docs ask (scripts/lighthouse_runs.mjs
takes the host's BenchmarkIndex that Lighthouse measured in the run before, or measures it before the
first run): with the fixed default of 4x, CI's loaded host (load average 5 on 2 cores) measured
313-920 and scored 83-89 on pages that score 96-98 on the same host when it is quiet, because 4x of
a host that is already four times slower emulates a phone four times slower than Lighthouse's
mid-tier one. It is never more than the default 4x: on a host the benchmark finds fast (2,000-2,300
here on a quiet afternoon) the calculator's 6-7.5x, applied while the page shared the two cores with
the other test worker, scored question and tags pages 82-90.
Every report says what it used (`studysiteCalibration`, with the calculator's own value), and a
failure prints it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.qualitykit import LIGHTHOUSE_QUIET_MS, lighthouse, others_yield, serve_pages
from tests.sitekit import ARTIFACTS, BROWSER, ROOT

QUESTION = "ai-infra-3/two-batch-overlap/"
BANK = "ai-infra-3/"
RUNS = {
    "zh-home": "",
    "zh-bank": BANK,
    "zh-question": QUESTION,
    "zh-tags": "tags/",
    "en-home": "en/",
    "en-bank": "en/" + BANK,
    "en-question": "en/" + QUESTION,
    "en-tags": "en/tags/",
    "zh-glossary": "glossary/",
    "en-glossary": "en/glossary/",
    # 繁體中文: the same templates, scripts and styles as the Chinese pages, its text converted; its
    # home and question pages (the pages most readers land on) rather than all five: each run costs
    # ~11 s of the suite's longest file.
    "zh-Hant-home": "zh-Hant/",
    "zh-Hant-question": "zh-Hant/" + QUESTION,
}
CATEGORIES = ["accessibility", "best-practices", "seo"]
PERFORMANCE = 90
"""Lighthouse mobile performance score (0-100) every page must reach (issue 18)."""
RETRIES = 2
"""More runs, one at a time, for a page under PERFORMANCE; its best run counts."""
PERFORMANCE_RUNS = tuple(name for name in RUNS if not name.endswith("glossary"))
"""The runs whose performance must reach PERFORMANCE: issue 18's page kinds (home, bank, question
and tags) in Chinese and English, as the bench measures them, and the 繁體中文 home and question pages.
The glossary's performance is not held to 90: on this 2-core machine it scored 82-92 while the other
tests ran, Material's bundle spending 400-480 ms (simulated) on its large page at start-up. Its runs
leave the performance category out (no trace, no simulation): 2.4 s less each, measured alternately
(2026-12-03, 20 s against 15 s for the two glossary pages, two rounds); its accessibility, best
practices and SEO are held to 100 as every page's."""


def _lighthouse(base: str, names: list[str], suffix: str = "") -> dict[str, dict]:
    """Run Lighthouse on the pages `names` (RUNS), one after another in one chromium
    (scripts/lighthouse_runs.mjs); their reports, saved as tests/artifacts/lighthouse-NAME[SUFFIX].json.
    Only the audits that score run (--scored-only), and accessibility's: each category's score is the
    weighted mean of its audits, and the diagnostics of weight 0 (unused JavaScript, long tasks, ...)
    cost each run ~0.5 s of CPU (4 pages, 3 rounds alternating, 2026-12-06: 16.6-17.1 CPU-s
    against 18.4-19.4, the same scores within their spread; `make bench` keeps them)."""
    proc = lighthouse(
        ARTIFACTS,
        {f"{name}{suffix}": base + RUNS[name] for name in names},
        chrome=BROWSER,
        without_performance=[f"{name}{suffix}" for name in names if name not in PERFORMANCE_RUNS],
        scored_only=True,
    )
    assert proc.returncode == 0, f"lighthouse failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return {
        name: json.loads((ARTIFACTS / f"lighthouse-{name}{suffix}.json").read_text(encoding="utf-8")) for name in names
    }


@pytest.fixture(scope="module")
def reports(seed_site: Path) -> dict[str, dict]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with serve_pages(seed_site, compress=True) as base, others_yield():
        done = _lighthouse(base, list(RUNS))
        for again in range(1, RETRIES + 1):
            low = [name for name in PERFORMANCE_RUNS if _performance(done[name]) < PERFORMANCE]
            if not low:
                break
            for name, report in _lighthouse(base, low, f"-again{again}").items():
                if _performance(report) > _performance(done[name]):
                    done[name] = report
    return done


def _performance(report: dict) -> float:
    return round((report["categories"]["performance"]["score"] or 0) * 100)


def _failing(report: dict, category: str) -> list[str]:
    out = []
    for ref in report["categories"][category]["auditRefs"]:
        audit = report["audits"][ref["id"]]
        if ref["weight"] > 0 and audit["score"] is not None and audit["score"] < 1:
            items = audit.get("details", {}).get("items", [])[:3]
            out.append(f"{ref['id']}: {audit['title']} {json.dumps(items, ensure_ascii=False)[:600]}")
    return out


@pytest.mark.parametrize("category", CATEGORIES)
@pytest.mark.parametrize("name", list(RUNS))
def test_lighthouse_scores_100(reports: dict[str, dict], name: str, category: str) -> None:
    report = reports[name]
    assert report["configSettings"]["formFactor"] == "mobile"
    assert report["configSettings"]["cpuQuietThresholdMs"] == LIGHTHOUSE_QUIET_MS
    assert report["finalDisplayedUrl"].endswith(RUNS[name])
    score = report["categories"][category]["score"]
    assert score == 1, f"{name} {category}: {score}\n" + "\n".join(_failing(report, category))


@pytest.mark.parametrize("name", PERFORMANCE_RUNS)
def test_lighthouse_performance_at_least_90(reports: dict[str, dict], name: str) -> None:
    report = reports[name]
    audits = report["audits"]
    metrics = {
        key: round(audits[key]["numericValue"], 3)
        for key in (
            "first-contentful-paint",
            "largest-contentful-paint",
            "total-blocking-time",
            "cumulative-layout-shift",
            "speed-index",
        )
    }
    calibration = report["studysiteCalibration"]
    assert report["configSettings"]["throttling"]["cpuSlowdownMultiplier"] == calibration["cpuSlowdownMultiplier"]
    assert _performance(report) >= PERFORMANCE, (
        f"{name} performance {_performance(report)}: {metrics}, calibration {calibration}, load {os.getloadavg()}"
    )


# --- the other workers yield while Lighthouse runs (qualitykit.others_yield) -------------------------

_YIELDING_WORKER = """
import json, os, sys
from tests.qualitykit import others_yield
nice, pids = int(sys.argv[1]), [int(pid) for pid in sys.argv[2:]]
now = lambda pid: os.getpriority(os.PRIO_PROCESS, pid)
with others_yield(nice):
    during, mine = [now(pid) for pid in pids], now(0)
print(json.dumps({"during": during, "mine": mine, "after": [now(pid) for pid in pids], "mine_after": now(0)}))
"""
_CONTROLLER = """
import os, subprocess, sys
# a run in miniature: another worker that has started a process of its own, and the worker that yields
other = subprocess.Popen(
    [sys.executable, "-c", "import subprocess, sys; c = subprocess.Popen(['sleep', '60']); print(c.pid, flush=True); sys.stdin.read(); c.kill()"],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
)
started = other.stdout.readline().strip()
env = dict(os.environ, PYTEST_XDIST_WORKER="gw1")
proc = subprocess.run([sys.executable, "-c", sys.argv[1], sys.argv[2], str(other.pid), started], env=env, capture_output=True, text=True)
other.stdin.close()
other.wait()
sys.stdout.write(proc.stdout)
sys.stderr.write(proc.stderr)
"""


@pytest.mark.unit
@pytest.mark.parametrize("privileged", [True, False] if os.geteuid() == 0 else [False])
def test_other_workers_yield_while_lighthouse_runs_and_are_put_back(privileged: bool) -> None:
    """The other worker and the process it started run at the nice value given while the block runs,
    this worker at its own; after it, they are put back, or, where that needs a privilege the run does
    not have (root without CAP_SYS_NICE here, through setpriv), this worker takes their value."""
    base = os.getpriority(os.PRIO_PROCESS, 0)
    nice = min(base + 5, 19)
    drop = (
        [] if privileged or os.geteuid() != 0 else ["setpriv", "--bounding-set", "-sys_nice", "--inh-caps", "-sys_nice"]
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_XDIST_WORKER"} | {"PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [*drop, sys.executable, "-c", _CONTROLLER, _YIELDING_WORKER, str(nice)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout, proc.stderr
    seen = json.loads(proc.stdout)
    assert seen["during"] == [nice, nice] and seen["mine"] == base, seen
    if privileged:
        assert seen["after"] == [base, base] and seen["mine_after"] == base, seen
    else:
        assert seen["after"] == [nice, nice] and seen["mine_after"] == nice, seen
