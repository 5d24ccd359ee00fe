"""Every page bounded (issue 18): long lists (a bank's, a tag's, a glossary term's questions) are paged,
the pages together lose nothing, old tag anchors still lead somewhere, chips link to their tag's page,
and the built-site check catches a list that lost a question."""

from __future__ import annotations

import posixpath
import re
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from studysite.build import generate
from studysite.languages import LANGUAGES
from studysite.pages.listings import PAGE_SIZE, PREVIEW
from studysite.site.verify import check_lists
from tests.sitekit import FIXTURE_BANKS, ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import synthetic_banks
from synthetic_banks import write_corpus

synthetic_banks.TAXONOMY = FIXTURE_BANKS / "taxonomy.yml"  # never banks/ (tests/conftest.py says why)

LONG = 2 * PAGE_SIZE + 30
"""One bank of this many questions: three pages of its list."""
_ITEM = re.compile(r'<li><a href="([^"]+)">')
_NEXT = re.compile(r'<a href="([^"]+)" rel="next">')


@pytest.fixture(scope="module")
def long_bank(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, Path]:
    """The generated docs/ of one synthetic bank of LONG questions (generation only: no site build)."""
    work = tmp_path_factory.mktemp("long")
    write_corpus(work / "banks", LONG, per_bank=LONG, seed=0)
    shutil.copyfile(FIXTURE_BANKS / "glossary.yml", work / "banks" / "glossary.yml")  # its terms are in the text
    result = generate(work / "banks", work / "docs")
    return result.site, work / "docs"


def _walk(docs: Path, first: str) -> tuple[list[str], list[int]]:
    """Question URLs (relative to the language root) of a list's pages, following "next"; and each
    page's number of items."""
    urls: list[str] = []
    sizes: list[int] = []
    path = first
    while path:
        text = (docs / path).read_text(encoding="utf-8")
        here = path.removesuffix("index.md").removesuffix(".md").rstrip("/") + "/"
        items = _ITEM.findall(text.split('<div class="qa-bank-list">')[1].split("</ol>")[0])
        sizes.append(len(items))
        urls += [str((Path("/") / here / href).resolve()).lstrip("/") + "/" for href in items]
        nxt = _NEXT.search(text)
        path = str((Path("/") / here / nxt.group(1)).resolve()).lstrip("/") + ".md" if nxt else ""
    return urls, sizes


@pytest.mark.unit
@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_a_long_bank_and_its_tags_are_paged_and_lose_nothing(long_bank: tuple[object, Path], lang: str) -> None:
    site, docs = long_bank
    root = docs / LANGUAGES[lang].root
    bank = site.banks[0]  # type: ignore[attr-defined]
    urls, sizes = _walk(root, f"{bank.id}/index.md")
    assert urls == [f"{bank.id}/{slug}/" for slug in bank.slugs]
    assert sizes == [PAGE_SIZE, PAGE_SIZE, LONG - 2 * PAGE_SIZE]
    second = (root / f"{bank.id}/page/2.md").read_text(encoding="utf-8")
    assert f'<ol start="{PAGE_SIZE + 1}">' in second  # numbers go on from the page before
    assert 'rel="prev"' in second and 'aria-current="page">2<' in second
    paged = 0
    for tag in site.tags:  # type: ignore[attr-defined]
        members = [f"{bank.id}/{s}/" for s in bank.slugs if tag.id in site.entries[s].tags]  # type: ignore[attr-defined]
        if not members:
            assert not (root / f"tags/{tag.id}.md").exists()
            continue
        urls, sizes = _walk(root, f"tags/{tag.id}.md")
        assert urls == members, tag.id
        assert max(sizes) <= PAGE_SIZE
        paged += len(sizes) > 1
    assert paged, "no tag of the long bank ran past one page: the test shows nothing"


@pytest.mark.unit
def test_the_home_page_lists_a_few_banks_and_the_banks_index_all(tmp_path: Path) -> None:
    from studysite.pages.listings import HOME_BANKS

    n = HOME_BANKS + 2
    write_corpus(tmp_path / "banks", 3 * n, per_bank=3, seed=0)
    site = generate(tmp_path / "banks", tmp_path / "docs").site
    for prefix, more in (("", "查看全部 12 个题库"), ("en/", "All 12 banks")):
        home = (tmp_path / "docs" / prefix / "index.md").read_text(encoding="utf-8")
        listed = re.findall(r'<li><a href="(syn-\d+)/">', home.split("{ #topics }")[0])
        assert listed == [bank.id for bank in site.banks[:HOME_BANKS]]
        assert f'<a href="banks/">{more}</a>' in home
        index = (tmp_path / "docs" / prefix / "banks.md").read_text(encoding="utf-8")
        assert re.findall(r'<li><a href="../(syn-\d+)/">', index) == [bank.id for bank in site.banks]
        assert home.count('<div class="qa-downloads">') == HOME_BANKS  # the others on their own pages


@pytest.mark.unit
def test_the_pager_stays_the_same_size_however_many_pages() -> None:
    from studysite.pages.listings import _pages, pager

    def nav(n: int, k: int) -> str:
        return pager(_pages("x.md", "x/", "x/", n * PAGE_SIZE), k, "en")

    # ten times the pages: the same links (prev, first, two either side, last, next), one more digit each
    assert nav(20, 10).count("<a ") == nav(200, 100).count("<a ") == 8
    assert len(nav(200, 100)) - len(nav(20, 10)) < 80


@pytest.mark.unit
def test_a_glossary_term_shows_its_first_questions_and_links_to_all(long_bank: tuple[object, Path]) -> None:
    _, docs = long_bank
    glossary = (docs / "glossary.md").read_text(encoding="utf-8")
    more = re.findall(
        r'<p class="qa-term__more"><a href="([^"/]+)/">All (\d+) questions</a>', glossary.replace("所有", "")
    )
    zh_more = re.findall(r'<p class="qa-term__more"><a href="([^"/]+)/">查看全部 (\d+) 道题</a>', glossary)
    assert zh_more, "no term has more questions than the glossary shows: the test shows nothing"
    assert not more  # the Chinese page speaks Chinese
    for section in glossary.split('<ul class="qa-term__list">')[1:]:
        assert section.split("</ul>")[0].count("<li>") <= PREVIEW
    for term_id, n in zh_more:
        urls, sizes = _walk(docs, f"glossary/{term_id}.md")
        assert len(urls) == len(set(urls)) == int(n), term_id
        assert max(sizes) <= PAGE_SIZE


def test_tags_index_keeps_old_anchors_and_chips_link_to_the_tag_page(seed_site: Path, data: dict) -> None:
    for lang, prefix in ((item.lang, item.root) for item in LANGUAGES.items):
        index = (seed_site / prefix / "tags/index.html").read_text(encoding="utf-8")
        home = (seed_site / prefix / "index.html").read_text(encoding="utf-8")
        for tag in data[lang]["tags"]:
            page = seed_site / prefix / tag["url"] / "index.html"
            assert page.is_file(), tag["url"]
            # the anchor Material's listing gave the tag: an item that links on to the tag's page
            item = re.search(rf'<li id="tag:[^"]+"><a href="{tag["id"]}/">([^<]+)</a>', index)
            assert item and item.group(1) == tag["name"].replace("&", "&amp;"), tag["id"]
            assert f'href="{tag["url"]}"' in home
        question = next(q for q in data[lang]["questions"] if q["tags"])
        html = (seed_site / prefix / question["url"] / "index.html").read_text(encoding="utf-8")
        chips = re.findall(r'<a href="([^"]+)" class="md-tag">', html.split('class="md-tags"')[1].split("</nav>")[0])
        assert chips == [f"../../tags/{tag_id}/" for tag_id in question["tags"]]


def test_the_site_check_catches_a_list_that_lost_a_question(seed_site: Path, tmp_path: Path) -> None:
    from studysite import build as studybuild
    from studysite.errors import Problems

    sources = studybuild.load_sources(seed_site.parent / "banks", Problems())
    site, _ = studybuild.build_site_model(sources)
    copy = tmp_path / "site"
    for prefix in LANGUAGES.roots:
        for folder in ("tags", *(b.id for b in site.banks)):
            for page in (seed_site / prefix / folder).rglob("index.html"):
                target = copy / page.relative_to(seed_site)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(page, target)
    assert check_lists(site, copy) == []
    page = copy / "tags/communication/index.html"
    text = page.read_text(encoding="utf-8")
    page.write_text(re.sub(r"<li><a [^>]*>[^<]*</a></li>\n", "", text, count=1), encoding="utf-8")
    bank = copy / "en" / site.banks[0].id / "index.html"
    bank.write_text(bank.read_text(encoding="utf-8").replace("<li><a", "<li><a hidden", 1), encoding="utf-8")
    problems = [str(p) for p in check_lists(site, copy)]
    assert len(problems) == 2, problems
    assert "tags/communication/index.html" in problems[0] and "expected in order" in problems[0]
    assert f"en/{site.banks[0].id}/index.html" in problems[1]


_SEGMENT = st.sampled_from(["a", "b", "tags", "x-1", "2", "glossary"])


@pytest.mark.unit
@given(st.lists(_SEGMENT, max_size=4), st.lists(_SEGMENT, max_size=4), st.booleans(), st.booleans())
def test_links_between_pages_are_what_posixpath_relpath_gives(
    here: list[str], there: list[str], slash_here: bool, slash_there: bool
) -> None:
    """listings._href computes relpath's answer without its getcwd per call (a fifth of the generator's time)."""
    from studysite.pages.listings import _href

    a = "/".join(here) + ("/" if slash_here and here else "")
    b = "/".join(there) + ("/" if slash_there and there else "")
    rel = posixpath.relpath(b.rstrip("/") or ".", a.rstrip("/") or ".")
    assert _href(a, b) == ("./" if rel == "." else rel + "/")
