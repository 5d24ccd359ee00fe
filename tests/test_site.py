"""The built site: strict MkDocs build, and every bank line visible on its question page in its language."""

from __future__ import annotations

from pathlib import Path

import pytest

from studysite.errors import Problems
from studysite.languages import LANGUAGES
from studysite.model import ListBlock
from studysite.sources.parse import parse_bank
from studysite.sources.translations import parse_translation
from tests.sitekit import ROOT, SEED, build_site, copy_banks, normalise, visible_text


def _lines(bank_file: Path, lang: str) -> list[tuple[str, list[str]]]:
    # the English file's `@slug` lines are keys, not text (studysite/sources/translations.py)
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


def test_built_site_has_search_in_every_language(seed_site: Path) -> None:
    """Pagefind ran through its npm launcher and indexed the question pages of each language (its index
    named by the pages' `<html lang>`, lowercased: 繁體中文's is `zh-tw`)."""
    import json

    from studysite.languages import LANGUAGES
    from studysite.site.verify import check_search

    indexes = [item.html_lang.lower() for item in LANGUAGES.items]
    assert indexes == ["zh", "en", "zh-tw"]
    assert check_search(seed_site, indexes) == []
    entry = json.loads((seed_site / "pagefind" / "pagefind-entry.json").read_text(encoding="utf-8"))
    # the 14 question pages and the glossary (each term a result of its own)
    assert {key: entry["languages"][key]["page_count"] for key in indexes} == {"zh": 15, "en": 15, "zh-tw": 15}


def test_search_check_fails_when_an_index_or_the_script_is_missing(seed_site: Path, tmp_path: Path) -> None:
    import json
    import shutil

    from studysite.site.verify import check_search

    site = tmp_path / "site"
    shutil.copytree(seed_site / "pagefind", site / "pagefind")
    entry_file = site / "pagefind" / "pagefind-entry.json"
    entry = json.loads(entry_file.read_text(encoding="utf-8"))
    del entry["languages"]["en"]
    entry_file.write_text(json.dumps(entry), encoding="utf-8")
    (site / "pagefind" / "pagefind.js").unlink()
    problems = [str(p) for p in check_search(site, ["zh", "en"])]
    assert any("pagefind.js: missing" in p for p in problems), problems
    assert any("no search index for language `en`" in p for p in problems), problems
    shutil.rmtree(site / "pagefind")
    assert any("no search index" in str(p) for p in check_search(site, ["zh"]))


def test_a_build_without_pagefind_fails_instead_of_shipping_no_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAGEFIND_BINARY", str(tmp_path / "no-such-pagefind"))
    with pytest.raises(AssertionError) as failed:
        build_site(copy_banks(tmp_path / "banks"), tmp_path)
    assert "Pagefind is not installed" in str(failed.value)
    assert "Traceback" not in str(failed.value)


def _our_assets(html: str) -> tuple[list[str], list[str]]:
    """The scripts and stylesheets of ours a page loads (assets/qa/); not the theme's, not bank data (nav.js)."""
    import re

    scripts = re.findall(r'<script\b[^>]*\bsrc="([^"]*assets/qa/[^"]+)"', html)
    sheets = re.findall(r'<link\b[^>]*rel="stylesheet"[^>]*href="([^"]*assets/qa/[^"]+)"', html)
    return scripts, sheets


def test_a_question_page_loads_at_most_two_of_our_scripts_and_two_stylesheets(seed_site: Path) -> None:
    import re

    for prefix in LANGUAGES.roots:
        for path in _slugs():
            html = (seed_site / prefix / path / "index.html").read_text(encoding="utf-8")
            scripts, sheets = _our_assets(html)
            assert len(scripts) <= 2 and len(sheets) <= 2, (prefix + path, scripts, sheets)
            assert [s.rsplit("/", 1)[1] for s in scripts] == ["question.min.js", "offline.js"]
            assert [s.rsplit("/", 1)[1] for s in sheets] == ["site.min.css"]
            # the bundle is deferred (it runs once the page is parsed) and holds the first paint until
            # it has run, so what it adds is there when the page first shows (nothing moves: CLS)
            head = html[: html.index("</head>")]
            assert re.search(r'<script src="[^"]*question\.min\.js" defer blocking="render">', head), prefix + path
        home = (seed_site / prefix / "index.html").read_text(encoding="utf-8")
        assert [s.rsplit("/", 1)[1] for s in _our_assets(home)[0]] == ["page.min.js", "offline.js"]


def test_bundles_are_minified_with_source_maps_of_every_member(seed_site: Path) -> None:
    """What studysite/site/bundles.yml lists is in its bundle (in order, minified), and only there."""
    import json

    from studysite.site.bundles import load_alone, load_bundles

    alone = load_alone()

    for item in LANGUAGES.items:
        prefix = item.root
        page = (seed_site / prefix / "ai-infra-3" / "two-batch-overlap" / "index.html").read_text(encoding="utf-8")
        assert "data-qa-strings" not in page, "a page carries its scripts' strings: they belong in the bundle"
        out = seed_site / prefix / "assets" / "qa"
        for bundle in load_bundles():
            for ext, members in (("js", bundle.js), ("css", bundle.css)):
                if not members:  # a kind of page with a script but no stylesheet of its own
                    assert not (out / f"{bundle.kind}.min.{ext}").exists()
                    continue
                code = (out / f"{bundle.kind}.min.{ext}").read_text(encoding="utf-8")
                source_map = json.loads((out / f"{bundle.kind}.min.{ext}.map").read_text(encoding="utf-8"))
                sources = [s for s in source_map["sources"] if s.startswith("overrides/")]
                assert sources == [f"overrides/assets/qa/{name}" for name in members], (bundle.kind, ext)
                strings = 0
                if ext == "js":  # the language's strings come first, from its catalogue, and only its
                    assert source_map["sources"][0] == f"studysite/strings/{item.lang}.yml", source_map["sources"]
                    strings = len(source_map["sourcesContent"][0])
                    assert f'lang:"{item.lang}"' in code and f'root:"{item.root}"' in code  # minified: keys unquoted
                    others = [o for o in LANGUAGES.items if o is not item]
                    assert not any(f'lang:"{o.lang}"' in code for o in others), (prefix, bundle.kind)
                assert all((ROOT / s).is_file() for s in sources)
                assert code.rstrip().endswith(
                    f"sourceMappingURL={bundle.kind}.min.{ext}.map */"
                    if ext == "css"
                    else f"sourceMappingURL={bundle.kind}.min.{ext}.map"
                )
                longest = max(len(line) for line in code.splitlines())
                size = sum((ROOT / s).stat().st_size for s in sources)
                assert len(code) < 0.75 * size + strings and longest > 1000, "not minified"
                for name in members:  # the theme's copy of a bundled file is not published
                    if name in alone:  # ...but for those published alone too, minified
                        assert (out / name).stat().st_size < (ROOT / "overrides/assets/qa" / name).stat().st_size
                    else:
                        assert not (out / name).exists(), prefix + name
