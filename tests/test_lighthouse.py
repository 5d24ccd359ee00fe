"""Lighthouse (mobile settings, Debian's chromium): accessibility, best practices and SEO all score 100.

Home, a question page and the glossary in each language: six runs, two at a time (a run costs as
much as a dozen browser tests; the study pages, review and stats, are checked by axe in
tests/test_review.py and tests/test_stats.py instead). Performance is left out here:
it moves with the machine's load, so the benchmark (`make bench`) measures and prints it instead.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.qualitykit import LIGHTHOUSE
from tests.sitekit import ARTIFACTS, CHROMIUM

QUESTION = "ai-infra-3/two-batch-overlap/"
RUNS = {
    "zh-home": "",
    "zh-question": QUESTION,
    "en-home": "en/",
    "en-question": "en/" + QUESTION,
    "zh-glossary": "glossary/",
    "en-glossary": "en/glossary/",
}
CATEGORIES = ["accessibility", "best-practices", "seo"]
AT_ONCE = 2  # the machine has 2 cores


def _lighthouse(url: str, out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            str(LIGHTHOUSE),
            url,
            "--quiet",
            f"--only-categories={','.join(CATEGORIES)}",
            "--form-factor=mobile",
            "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
            "--output=json",
            f"--output-path={out}",
        ],
        env=dict(os.environ, CHROME_PATH=CHROMIUM),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@pytest.fixture(scope="module")
def reports(seed_url: str) -> dict[str, dict]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    done: dict[str, dict] = {}
    names = list(RUNS)
    for start in range(0, len(names), AT_ONCE):
        running = {}
        for name in names[start : start + AT_ONCE]:
            running[name] = _lighthouse(seed_url + RUNS[name], ARTIFACTS / f"lighthouse-{name}.json")
        for name, proc in running.items():
            output, _ = proc.communicate(timeout=240)
            assert proc.returncode == 0, f"lighthouse {name} failed:\n{output[-3000:]}"
            done[name] = json.loads((ARTIFACTS / f"lighthouse-{name}.json").read_text(encoding="utf-8"))
    return done


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
    assert report["finalDisplayedUrl"].endswith(RUNS[name])
    score = report["categories"][category]["score"]
    assert score == 1, f"{name} {category}: {score}\n" + "\n".join(_failing(report, category))
