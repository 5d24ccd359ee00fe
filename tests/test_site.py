"""The built site: strict MkDocs build, and every bank line visible on its question page in its language."""

from __future__ import annotations

from pathlib import Path

from studysite.errors import Problems
from studysite.model import ListBlock
from studysite.parse import parse_bank
from studysite.translations import parse_translation
from tests.sitekit import SEED, normalise, visible_text


def _lines(bank_file: Path, lang: str) -> list[tuple[str, list[str]]]:
    # the English file's `@slug` lines are keys, not text (studysite/translations.py)
    read = parse_translation if lang == "en" else lambda p, i, pr: parse_bank(p, i, "zh", pr)
    bank = read(bank_file, "ai-infra-3", Problems())
    assert bank is not None
    out = []
    for q in bank.questions:
        texts = [q.text]
        for b in q.blocks:
            texts += [s for i in b.items for s in i.source] if isinstance(b, ListBlock) else [b.text]
        out.append((q.text, texts))
    return out


def _slugs() -> list[str]:
    lock = (SEED / "slugs.lock").read_text(encoding="utf-8").splitlines()
    order = {}
    for line in lock:
        if line.startswith("#") or not line:
            continue
        path, state, text = line.split("\t")[:3]  # (then the answer fingerprint)
        if state == "live":
            order[text] = path
    return [order[q] for q, _ in _lines(SEED / "ai-infra-3.txt", "zh")]


def test_every_seed_question_has_a_page_with_its_text(seed_site: Path) -> None:
    paths = _slugs()
    assert len(paths) == 14
    for lang, prefix, bank_file in (("zh", "", "ai-infra-3.txt"), ("en", "en/", "ai-infra-3.en.txt")):
        for path, (_, texts) in zip(paths, _lines(SEED / bank_file, lang), strict=False):
            html = (seed_site / prefix / path / "index.html").read_text(encoding="utf-8")
            shown = visible_text(html)
            for text in texts:
                assert normalise(text) in shown, f"{lang} {path}: missing {text!r}"


def test_pages_declare_their_language(seed_site: Path) -> None:
    assert '<html lang="zh"' in (seed_site / "index.html").read_text(encoding="utf-8")
    assert '<html lang="en"' in (seed_site / "en" / "index.html").read_text(encoding="utf-8")


def test_no_third_party_urls_in_built_pages(seed_site: Path) -> None:
    import re

    for page in list(seed_site.rglob("*.html"))[:60]:
        html = page.read_text(encoding="utf-8")
        # An editor's note links to its references (papers, docs): links a reader may follow, not requests.
        html = re.sub(r'<div role="note" class="qa-note.*?</div>', "", html, flags=re.S)
        for url in re.findall(r'(?:src|href)="(https?://[^"]+)"', html):
            assert url.startswith("http://127.0.0.1:8000/"), f"{page}: {url}"
