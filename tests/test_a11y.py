"""Accessibility: axe-core finds nothing on the pages a reader meets, in both languages and both colour schemes.

Light is checked at desktop width, dark at phone width (390 px), so both layouts are covered too.
Fixes for what the theme gets wrong live in overrides/assets/qa/theme-fixes.css and overrides/partials/.
"""

from __future__ import annotations

import pytest

from studysite.languages import LANGUAGES
from tests.qualitykit import axe_problems, open_search
from tests.sitekit import reader

PAGES = {
    "home": "",
    "question": "ai-infra-3/two-batch-overlap/",
    "bank": "ai-infra-3/",
    "tags": "tags/",
    "tag": "tags/communication/",
    "glossary": "glossary/",
}
LAYOUTS = {"light": {"width": 1280, "height": 900}, "dark": {"width": 390, "height": 844}}
SCHEME = {"light": "default", "dark": "slate"}  # Material's name for each scheme (body data-md-color-scheme)


# Every language in both schemes; a converted language (繁體中文) shares its source's markup and
# styles, so one scheme checks its own text, lang attributes and notice.
@pytest.mark.parametrize(
    ("lang", "scheme"),
    [
        (item.lang, scheme)
        for item in LANGUAGES.items
        for scheme in ("light", "dark")
        if item.source != "converted" or scheme == "light"
    ],
)
def test_axe_finds_no_violations(browser: object, seed_url: str, lang: str, scheme: str) -> None:
    root = seed_url + LANGUAGES[lang].root
    problems: list[str] = []
    with reader(browser, viewport=LAYOUTS[scheme], color_scheme=scheme) as context:
        page = context.new_page()  # type: ignore[attr-defined]
        for name, path in PAGES.items():
            page.goto(root + path)
            # the palette follows the system setting: make sure the scheme under test is the one shown
            assert page.evaluate("document.body.dataset.mdColorScheme") == SCHEME[scheme], name
            problems += axe_problems(page, name)
        page.goto(root + PAGES["question"])
        assert open_search(page, "AllReduce"), "the search found nothing"
        problems += axe_problems(page, "search dialog with results")
        page.goto(root + "404.html")  # the not-found page (the plain test server does not serve it for 404s)
        problems += axe_problems(page, "404 page")
    assert problems == [], f"axe, {lang}, {scheme}:\n" + "\n".join(problems)
