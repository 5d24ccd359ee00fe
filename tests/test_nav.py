"""Navigation: the HTML sidebar is the same few site-wide links on every page, at any size of site,
and the bank's questions appear in it in the browser from the bank's nav.js."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urljoin

from tests.sitekit import SEED
from tests.test_site import _lines, _slugs

PRIMARY = re.compile(r'<nav class="md-nav md-nav--primary".*?</nav>', re.S)
HREF = re.compile(r'href="([^"]+)"')
LANGS = (("zh", "", "ai-infra-3.txt"), ("en", "en/", "ai-infra-3.en.txt"))


def _sidebar_targets(site: Path, page: str) -> set[str]:
    """Where the links of a built page's primary sidebar lead, as paths below the site root (links
    within the page left out: Material repeats the current page's table of contents there for phones)."""
    html = (site / page).read_text(encoding="utf-8")
    nav = PRIMARY.search(html)
    assert nav, f"{page}: no primary navigation"
    base = "http://x/" + page
    return {urljoin(base, href).removeprefix("http://x/") for href in HREF.findall(nav.group(0)) if "#" not in href}


def test_sidebar_html_is_site_wide_only(seed_site: Path) -> None:
    for _lang, prefix, _bank in LANGS:
        # (bank and question pages are outside the navigation: no current page's contents nested in it)
        site_wide = {prefix, f"{prefix}tags/", f"{prefix}glossary/", f"{prefix}study/review/", f"{prefix}study/mock/"}
        for slug in _slugs():
            assert _sidebar_targets(seed_site, f"{prefix}{slug}/index.html") == site_wide, slug
        assert _sidebar_targets(seed_site, f"{prefix}ai-infra-3/index.html") == site_wide


def test_sidebar_lists_the_bank_in_the_browser(seed_url: str, browser) -> None:  # type: ignore[no-untyped-def]
    slugs = _slugs()
    for lang, prefix, bank_file in LANGS:
        titles = [q for q, _ in _lines(SEED / bank_file, lang)]
        context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
        page = context.new_page()
        page.goto(f"{seed_url}{prefix}{slugs[4]}/", wait_until="load")
        links = page.locator(".md-nav--primary .qa-banknav__list a")
        links.first.wait_for()
        assert links.all_inner_texts() == titles, lang
        assert [a.get_attribute("href") for a in links.all()] == [f"{seed_url}{prefix}{s}/" for s in slugs]
        current = page.locator('.md-nav--primary [aria-current="page"]')
        assert current.count() == 1 and current.inner_text() == titles[4]
        assert (
            page.locator(".md-nav--primary .qa-banknav__bank").get_attribute("href") == f"{seed_url}{prefix}ai-infra-3/"
        )
        links.nth(5).click()
        page.wait_for_url(f"{seed_url}{prefix}{slugs[5]}/")
        assert page.locator('.md-nav--primary [aria-current="page"]').inner_text() == titles[5]
        page.goto(f"{seed_url}{prefix}ai-infra-3/", wait_until="load")
        bank = page.locator('.md-nav--primary .qa-banknav__bank[aria-current="page"]')
        bank.wait_for()
        assert page.locator(".md-nav--primary .qa-banknav__list a").count() == len(titles)
        context.close()
