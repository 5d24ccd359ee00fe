"""Search at scale (issue 3): scripts/search_eval.py on a synthetic 1,000-question bilingual site.

The script builds the corpus and the site, types 50 Chinese and 30 English queries into the search
box in chromium and checks the results against the pages' text; its report is saved to
tests/artifacts/search-eval.txt.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.sitekit import ARTIFACTS, ROOT

TARGETS = {"zh": 0.90, "en": 0.80}
"""Share of queries whose first result is the page where the phrase is most prominent."""


def test_search_finds_every_page_and_ranks_the_right_one_first(tmp_path: Path) -> None:
    figures_file = tmp_path / "search-eval.json"
    script = ROOT / "scripts" / "search_eval.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--work", str(tmp_path / "work"), "--json", str(figures_file)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    report = proc.stdout + proc.stderr
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "search-eval.txt").write_text(report, encoding="utf-8")
    assert figures_file.exists(), report
    payload = json.loads(figures_file.read_text(encoding="utf-8"))
    assert payload["strays"] == [], report  # every result is a page of the site
    figures = payload["figures"]
    assert (figures["zh"]["queries"], figures["en"]["queries"]) == (50, 30), report
    for lang, target in TARGETS.items():
        assert figures[lang]["recall"] == 1.0, report
        assert figures[lang]["top1"] >= target, report
    assert proc.returncode == 0, report
