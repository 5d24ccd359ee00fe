"""The benchmark's own helpers (scripts/bench.py) on the fixture banks: `make bench` is not part of
`make test`, so what it reads from the repository's formats is checked here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.sitekit import FIXTURE_BANKS, ROOT

pytestmark = pytest.mark.unit


def _bench() -> object:
    spec = importlib.util.spec_from_file_location("bench", ROOT / "scripts" / "bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_edit_benchmark_finds_a_question_and_its_first_answer_line(tmp_path: Path) -> None:
    """The "after an edit" rows edit one answer line: the question's slug comes from slugs.lock (the
    benchmark failed when the lock gained a column) and the line is that question's first answer line."""
    bench = _bench()
    corpus = bench.Corpus("seed", 14, FIXTURE_BANKS, tmp_path)  # type: ignore[attr-defined]
    bank_id, slug, line = bench._editable_line(corpus)  # type: ignore[attr-defined]
    lines = (FIXTURE_BANKS / f"{bank_id}.txt").read_text(encoding="utf-8").split("\n")
    question = lines[line - 1]
    assert question.startswith("Q:") and lines[line].strip() and not lines[line].startswith("Q:")
    rows = [row.split("\t") for row in (FIXTURE_BANKS / "slugs.lock").read_text(encoding="utf-8").split("\n")]
    assert [f"{bank_id}/{slug}", "live", question[2:].strip()] in [row[:3] for row in rows]
