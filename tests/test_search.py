"""Search as a reader uses it: Pagefind in Material's search box, per language, fast, silent until used.

The queries live in tests/search_queries.yml. Pages are loaded with service workers blocked: the
offline worker (overrides/sw.js) keeps what pages load and downloads what the reader asks for; these
tests are about what the pages and the search box fetch.
"""

from __future__ import annotations

import gzip
import html
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from studysite.build import build_site_model, load_sources
from studysite.enrich.convert import convert_text
from studysite.errors import Problems
from studysite.i18n import STRINGS
from studysite.languages import LANGUAGES
from studysite.site.search_terms import search_terms
from tests.qualitykit import axe_problems, serve_pages
from tests.sitekit import (
    ARTIFACTS,
    LOOKS,
    ROOT,
    SEED,
    VIEWPORTS,
    drop_requests,
    dropped_logged,
    reader,
    reader_pages,
    said,
    settle,
    wait_for_search,
    watch_search,
)


def _converted(case: dict[str, Any], config: str) -> dict[str, Any]:
    out = {**case, "query": convert_text(case["query"], config)}
    if "contains" in case:
        out["contains"] = [convert_text(word, config) for word in case["contains"]]
    return out


QUERIES = yaml.safe_load((ROOT / "tests" / "search_queries.yml").read_text(encoding="utf-8"))
# A converted language (繁體中文) is searched with its source's queries, converted as its pages are.
QUERIES.update(
    {
        item.lang: [_converted(case, item.opencc) for case in QUERIES[item.convert_from]]
        for item in LANGUAGES.items
        if item.source == "converted"
    }
)
PREFIX = {item.lang: item.root for item in LANGUAGES.items}
QUESTION = "ai-infra-3/two-batch-overlap/"
NewPage = Callable[..., Any]
"""new_page(width=1280, scheme="light"): a page in a profile of its own (the `new_page` fixture)."""
SEARCH_FILES = re.compile(r"/pagefind/|search_index\.json|/workers/search\.|search-terms\.json")

_RESULTS = """() => [...document.querySelectorAll(".md-search-result__link")].map((a) => a.getAttribute("href"))"""


@pytest.fixture(scope="module")
def page_text(seed_site: Path) -> dict[str, str]:
    """Title and answer of every built question page, by URL path (/bank/slug/, /en/bank/slug/)."""
    texts = {}
    for index in seed_site.rglob("index.html"):
        source = index.read_text(encoding="utf-8")
        answer = re.search(r'<div class="qa-answer".*?</div>', source, re.DOTALL)
        title = re.search(r"<h1[^>]*>(.*?)</h1>", source, re.DOTALL)
        if answer and title:
            text = re.sub(r"<[^>]+>", " ", title.group(1) + " " + answer.group(0))
            texts["/" + index.parent.relative_to(seed_site).as_posix() + "/"] = html.unescape(text)
    return texts


@pytest.fixture
def new_page(browser: Any) -> Iterator[NewPage]:
    """A page in a profile of its own (sitekit.reader: empty storage, any script or console error fails
    the test): new_page(width=1280, scheme="light")."""
    with reader_pages(browser) as open_page:

        def make(width: int = 1280, scheme: str = "light") -> Any:
            return open_page(viewport={"width": width, "height": 844 if width < 600 else 800}, color_scheme=scheme)

        yield make


# Types a query the way an IME commits it (value set, then input and keyup: fill() fires no keyup for
# Chinese), as search.js reads it.
_TYPE = """(query) => {
  const input = document.querySelector(".md-search__input");
  input.focus();
  input.value = query;
  input.dispatchEvent(new Event("input", {bubbles: true}));
  input.dispatchEvent(new KeyboardEvent("keyup", {bubbles: true, key: query.slice(-1)}));
}"""


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_queries_find_their_questions(seed_url: str, new_page: NewPage, page_text: dict[str, str], lang: str) -> None:
    """Every query of tests/search_queries.yml, typed in turn into one search box of its language (the
    first one into a box never opened, so it waits for Pagefind and the index to load): its question
    is among the first 3 results, and only pages of that language are listed. How soon the first
    results come is `make bench`'s to measure (search: first result ms), on runs it can compare."""
    page = new_page()
    page.goto(seed_url + PREFIX[lang])
    watch_search(page)
    failures = []
    for case in QUERIES[lang]:
        page.evaluate(_TYPE, case["query"])
        wait_for_search(page)
        links = page.evaluate(_RESULTS)
        top3 = links[:3]
        if not links:
            failures.append(f"{case['query']!r}: no results ({page.inner_text('.md-search-result__meta')!r})")
        elif "expect" in case and f"/{PREFIX[lang]}{case['expect']}/" not in top3:
            failures.append(f"{case['query']!r}: {case['expect']} not in top 3: {top3}")
        elif "contains" in case:
            words = [w.lower() for w in case["contains"]]
            if not [link for link in top3 if all(w in page_text[link].lower() for w in words)]:
                failures.append(f"{case['query']!r}: no page with all of {words} in top 3: {top3}")
        # Only this language's pages: the Chinese index under /, the others under their roots.
        foreign = [link for link in links if _lang_of(link) != lang]
        if foreign:
            failures.append(f"{case['query']!r}: pages of the other language listed: {foreign}")
    assert QUERIES[lang] and not failures, "\n".join(failures)


def _lang_of(link: str) -> str:
    """The language whose root a result's path is under."""
    return next((item.lang for item in LANGUAGES.extra if link.startswith("/" + item.root)), LANGUAGES.main.lang)


@pytest.mark.parametrize("path", [item.root + rel for item in LANGUAGES.items for rel in ("", QUESTION)])
def test_search_data_loads_only_when_the_reader_searches(seed_url: str, new_page: NewPage, path: str) -> None:
    page = new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(seed_url + path)
    page.wait_for_load_state("networkidle")
    settle(page)  # the page's own scripts have run and gone idle: a search download would have started
    assert requests and not [url for url in requests if SEARCH_FILES.search(url)], requests
    page.keyboard.press("/")
    page.keyboard.type("AllReduce")
    page.wait_for_function("() => document.querySelectorAll('.md-search-result__link').length > 0")
    fetched = [url for url in requests if "/pagefind/" in url]
    assert any(url.endswith("/pagefind/pagefind.js") for url in fetched), fetched
    assert any(".pf_index" in url for url in fetched) and any(".pf_fragment" in url for url in fetched), fetched
    assert not [url for url in requests if "search_index.json" in url or "/workers/search." in url]
    assert not [url for url in requests if "search-terms.json" in url], (
        "the closest terms load only when nothing is found"
    )


@pytest.mark.parametrize("key", ["/", "s", "f"])
def test_keys_open_search_and_escape_closes_it(seed_url: str, new_page: NewPage, key: str) -> None:
    page = new_page()
    page.goto(seed_url + QUESTION)
    assert page.evaluate("() => document.activeElement === document.body")
    page.keyboard.press(key)
    assert page.evaluate("() => document.getElementById('__search').checked")
    assert page.evaluate("() => document.activeElement.matches('.md-search__input')")
    assert page.input_value(".md-search__input") == "", "the key itself must not be typed into the box"
    page.keyboard.press("Escape")
    assert not page.evaluate("() => document.getElementById('__search').checked")
    assert not page.evaluate("() => document.activeElement.matches('.md-search__input')")
    # Esc before the page's timers ran (the browser runs input first under load): still closed once
    # they have (timers of the same delay run in order: the page's first, then this one's)
    assert not page.evaluate(
        """async (key) => {
            for (const k of [key, "Escape"]) window.dispatchEvent(new KeyboardEvent("keydown", {key: k, bubbles: true}));
            await new Promise((done) => setTimeout(done));
            return document.getElementById("__search").checked;
        }""",
        key,
    )


def test_keys_do_nothing_while_typing_elsewhere(seed_url: str, new_page: NewPage) -> None:
    page = new_page()
    page.goto(seed_url + QUESTION)
    page.evaluate("() => { const i = document.createElement('input'); i.id = 'other'; document.body.prepend(i); }")
    page.focus("#other")
    page.keyboard.type("s/f")
    assert page.input_value("#other") == "s/f"
    assert not page.evaluate("() => document.getElementById('__search').checked")


def test_an_input_method_searches_what_it_commits(seed_url: str, new_page: NewPage) -> None:
    """Typing Chinese with an IME: no search for the pinyin while it composes, one for the committed text."""
    page = new_page()
    page.goto(seed_url)
    page.keyboard.press("/")
    ime = page.context.new_cdp_session(page)
    ime.send("Input.imeSetComposition", {"text": "tongxin", "selectionStart": 7, "selectionEnd": 7})
    page.wait_for_function("() => document.querySelector('.md-search__input').value === 'tongxin'")
    settle(page)  # the composition's input events have been handled
    assert page.input_value(".md-search__input") == "tongxin"
    assert page.inner_text(".md-search-result__meta") == "键入以开始搜索"
    ime.send("Input.insertText", {"text": "通信"})
    page.wait_for_function("() => document.querySelectorAll('.md-search-result__link').length > 0")
    assert re.fullmatch(r"找到 \d+ 条结果", page.inner_text(".md-search-result__meta"))


def test_arrows_walk_the_results_and_enter_opens_one(seed_url: str, new_page: NewPage) -> None:
    page = new_page()
    page.goto(seed_url + "en/")
    page.keyboard.press("/")
    watch_search(page)
    page.keyboard.type("AllReduce")
    wait_for_search(page)  # the results of "AllReduce", not of a prefix typed on the way ("AllRed")
    links = page.evaluate(_RESULTS)
    assert len(links) >= 2, links
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert page.evaluate("() => document.activeElement.getAttribute('href')") == links[1]
    page.keyboard.press("ArrowUp")
    assert page.evaluate("() => document.activeElement.getAttribute('href')") == links[0]
    page.keyboard.press("ArrowUp")
    assert page.evaluate("() => document.activeElement.matches('.md-search__input')")
    with page.expect_navigation():
        page.keyboard.press("Enter")  # in the box: the first result
    assert page.url == seed_url + links[0].lstrip("/")
    assert not page.evaluate("() => document.getElementById('__search').checked")


def test_status_line_speaks_the_page_language(seed_url: str, new_page: NewPage) -> None:
    expected = {
        "zh": ("键入以开始搜索", "没有找到与“zzqxv”相关的内容", re.compile(r"找到 \d+ 条结果")),
        "en": ("Type to start searching", "Nothing found for “zzqxv”", re.compile(r"\d+ results?")),
    }
    for lang, (idle, none, some) in expected.items():
        page = new_page()
        page.goto(seed_url + PREFIX[lang])
        page.keyboard.press("/")
        meta = page.locator(".md-search-result__meta")
        assert meta.inner_text() == idle
        page.keyboard.type("zzqxv")
        page.wait_for_function(
            "(none) => document.querySelector('.md-search-result__meta').textContent === none", arg=none
        )
        page.fill(".md-search__input", "AllReduce")
        page.wait_for_function("() => document.querySelectorAll('.md-search-result__link').length > 0")
        assert some.fullmatch(meta.inner_text()), meta.inner_text()
        page.click(".md-search__options button[type=reset]")
        page.wait_for_function(
            "(idle) => document.querySelector('.md-search-result__meta').textContent === idle", arg=idle
        )
        assert page.evaluate(_RESULTS) == []


def test_search_works_under_a_github_pages_subpath(seed_site: Path, new_page: NewPage) -> None:
    with serve_pages(seed_site) as base:  # http://127.0.0.1:PORT/ai-infra/
        for lang in LANGUAGES.codes:
            page = new_page()
            page.goto(base + PREFIX[lang] + QUESTION)
            watch_search(page)
            page.evaluate(_TYPE, "NVSHMEM")
            wait_for_search(page)
            links = page.evaluate(_RESULTS)
            prefix = "/ai-infra/" + PREFIX[lang]
            assert links and all(link.startswith(prefix) for link in links), links
            with page.expect_navigation():
                page.click(".md-search-result__link")
            assert page.url.startswith(base + PREFIX[lang]) and page.title(), page.url


def test_result_text_is_shown_literally(seed_url: str, new_page: NewPage) -> None:
    """Page text that looks like markup (in the title and in the answer) shows as text and never runs."""
    hostile = '<img src=x onerror="window.__pwned=1"><b>&amp;</b>'

    def poison(route: Any) -> None:
        body = route.fetch().body()
        raw = body if body.startswith(b"pagefind_dcd") else gzip.decompress(body)
        fragment = json.loads(raw[len(b"pagefind_dcd") :])
        answers = [a["location"] for a in fragment["anchors"] if a["id"] == "qa-answer"]
        if not answers:  # the glossary
            route.fulfill(body=raw)
            return
        fragment["meta"]["title"] = hostile + fragment["meta"]["title"]
        words = fragment["content"].split("\u200b")
        answer = answers[0]
        words[answer] = hostile + words[answer]  # same word count: match locations stay right
        fragment["content"] = "\u200b".join(words)
        route.fulfill(body=b"pagefind_dcd" + json.dumps(fragment, ensure_ascii=False).encode())

    page = new_page()
    page.route("**/pagefind/fragment/*", poison)
    page.goto(seed_url + QUESTION)
    page.keyboard.press("/")
    watch_search(page)
    page.keyboard.type("overlap")
    page.wait_for_function("() => document.querySelectorAll('.md-search-result__link').length > 0")
    wait_for_search(page)
    first = page.locator(".md-search-result__item").first
    assert first.locator("h1").inner_text().startswith('<img src=x onerror="window.__pwned=1"><b>&amp;</b>')
    assert hostile in first.locator("p").inner_text()
    assert page.evaluate("() => document.querySelectorAll('.md-search-result img, .md-search-result b').length") == 0
    assert page.evaluate("() => window.__pwned") is None


# --- what the results show ---------------------------------------------------------------------------

# Types a query as an IME commits it (value, then input and keyup), as _SEARCH_TIMED does.
_TYPE = """(query) => {
  const input = document.querySelector(".md-search__input");
  input.focus();
  input.value = query;
  input.dispatchEvent(new Event("input", {bubbles: true}));
  input.dispatchEvent(new KeyboardEvent("keyup", {bubbles: true, key: query.slice(-1)}));
}"""
_SETTLED = """(query) => document.querySelector(".md-search__input").value === query
  && document.querySelector(".md-search-result").getAttribute("aria-busy") === "false" """
# Every entry of the list: its link, the text of its title and of its excerpt, and what is marked in each.
_ENTRIES = """() => [...document.querySelectorAll(".md-search-result__item")].map((li) => ({
  href: li.querySelector("a") ? li.querySelector("a").getAttribute("href") : null,
  title: li.querySelector("h1") ? li.querySelector("h1").textContent : "",
  text: li.querySelector("p") ? li.querySelector("p").textContent : li.textContent,
  marks: [...li.querySelectorAll("mark")].map((m) => m.textContent),
  offers: [...li.querySelectorAll("button.qa-search-term")].map((b) => b.textContent),
}))"""


def _search(page: Any, query: str) -> list[dict[str, Any]]:
    """Type `query` into the search box and wait until the list is filled (aria-busy false)."""
    page.evaluate(_TYPE, query)
    page.wait_for_function(_SETTLED, arg=query)
    return page.evaluate(_ENTRIES)  # type: ignore[no-any-return]


HIGHLIGHTS = [
    ("负优化", "ai-infra-3/two-batch-overlap/"),
    ("显存", None),
    ("显存 流水线并行", None),
]


@pytest.mark.parametrize(("query", "question"), HIGHLIGHTS, ids=[q for q, _ in HIGHLIGHTS])
def test_highlights_mark_the_words_as_typed(seed_url: str, new_page: NewPage, query: str, question: str | None) -> None:
    """Issue 19.3: titles and excerpts mark the typed words whole (负优化, not 优, 化 or 负载; 显存, not the
    存 of 访存; 流水线并行 in one piece), and nothing else."""
    page = new_page()
    page.goto(seed_url)
    entries = _search(page, query)
    typed = query.split()
    marked = [m for e in entries for m in e["marks"]]
    assert marked, entries
    assert set(marked) <= set(typed), f"{query!r} marked {sorted(set(marked) - set(typed))}"
    for word in typed:
        assert word in marked, f"{word!r} never marked whole: {marked}"
    if question:
        (entry,) = [e for e in entries if e["href"] == "/" + question]
        assert entry["marks"] and set(entry["marks"]) == {query}, entry


@pytest.mark.parametrize(
    ("lang", "query"),
    [("zh", "模型算力利用率"), ("en", "Model FLOPs Utilization"), ("zh-Hant", said("zh-Hant", "模型算力利用率", ""))],
)
def test_glossary_terms_are_found(seed_url: str, new_page: NewPage, lang: str, query: str) -> None:
    """Issue 19.3: a glossary term is a result of its own, and leads to its anchor on the glossary page."""
    page = new_page()
    page.goto(seed_url + PREFIX[lang])
    entries = _search(page, query)
    target = f"/{PREFIX[lang]}glossary/#mfu"
    (term,) = [e for e in entries if e["href"] == target]
    assert term["title"].endswith(said(lang, "（MFU）", "(MFU)")), term
    assert query.split()[0] in term["marks"], term
    assert [e for e in entries if e["href"] and "/glossary/" not in e["href"]], "the question that uses it too"
    with page.expect_navigation():
        page.click(f'.md-search-result__link[href="{target}"]')
    assert page.url == seed_url + target.lstrip("/")
    assert page.locator("h2#mfu").is_visible()


def test_search_terms_are_the_sites_names_each_once(seed_site: Path) -> None:
    """The closest-term list: glossary names split at their bracketed abbreviation, spellings and tag
    names, each once in any case, in file order; the file is each language's, small."""
    problems = Problems()
    site = build_site_model(load_sources(SEED, problems))[0]
    zh, en = search_terms(site, "zh"), search_terms(site, "en")
    assert zh[:3] == ["模型算力利用率", "MFU", "数据并行"]
    assert "模型算力利用率（MFU）" not in zh and "通信" in zh  # a tag name
    assert en[:3] == ["Model FLOPs Utilization", "MFU", "Data Parallelism"]
    for terms in (zh, en):
        assert len({t.casefold() for t in terms}) == len(terms)
    for lang, prefix in PREFIX.items():
        written = json.loads((seed_site / prefix / "search-terms.json").read_text(encoding="utf-8"))
        assert written == {"terms": search_terms(site, lang)}  # type: ignore[arg-type]
        assert (seed_site / prefix / "search-terms.json").stat().st_size < 8000


@pytest.mark.parametrize(
    ("lang", "typo", "meant"), [("zh", "模型算利用率", "模型算力利用率"), ("en", "allredcue", "AllReduce")]
)
def test_a_typo_is_offered_the_closest_terms(
    seed_url: str, new_page: NewPage, lang: str, typo: str, meant: str
) -> None:
    """Issue 19.3: a query that the site does not have as typed offers the closest glossary and tag names
    (loaded only then); choosing one searches it."""
    page = new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(seed_url + PREFIX[lang])
    entries = _search(page, "AllReduce")
    assert not [e for e in entries if e["offers"]]
    assert not [u for u in requests if u.endswith("search-terms.json")]
    entries = _search(page, typo)
    offers = [o for e in entries for o in e["offers"]]
    assert meant in offers, entries
    assert axe_problems(page, "search with the closest terms", ".md-search") == []
    assert [u for u in requests if u == seed_url + PREFIX[lang] + "search-terms.json"]
    page.click(f'button.qa-search-term:text-is("{meant}")')
    page.wait_for_function(_SETTLED, arg=meant)
    assert not [e for e in page.evaluate(_ENTRIES) if e["offers"]]
    assert meant in [m for e in page.evaluate(_ENTRIES) for m in e["marks"]]


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_nothing_found_says_so(seed_url: str, new_page: NewPage, lang: str) -> None:
    none = said(lang, "没有找到与“zzqxv”相关的内容", "Nothing found for “zzqxv”")
    page = new_page()
    page.goto(seed_url + PREFIX[lang])
    assert _search(page, "zzqxv") == []  # nothing close to it either
    assert page.inner_text(".md-search-result__meta") == none


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_search_that_cannot_load_says_so_and_works_once_it_can(browser: Any, seed_url: str, lang: str) -> None:
    """Offline or on a flaky network when the reader first searches: the status line says search could
    not load, with no script error; once the files come, the next query finds its questions."""

    def index(url: str) -> bool:
        return "/pagefind/" in url

    with reader(browser, expected=dropped_logged) as context:
        drop_requests(context, index)
        page = context.new_page()
        page.goto(seed_url + PREFIX[lang])
        assert _search(page, "AllReduce") == []
        assert page.inner_text(".md-search-result__meta") == STRINGS["js.search.error"][lang]
        context.unroute(index)
        found = _search(page, "NCCL")
        assert found and all(entry["href"] for entry in found), found


SHOT_QUERIES = {
    "zh": [("glossary", "模型算力利用率"), ("typo", "模型算利用率")],
    "en": [("glossary", "Model FLOPs Utilization"), ("typo", "allredcue")],
}
_OVERFLOW = """() => [...document.querySelectorAll('.md-search-result__item *')]
    .filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5).length"""
SHOTS = [(lang, scheme, VIEWPORTS[device]["width"]) for lang in ("zh", "en") for device, scheme in LOOKS]


@pytest.mark.parametrize(("lang", "scheme", "width"), SHOTS, ids=[f"{a}-{b}-{c}" for a, b, c in SHOTS])
def test_screenshot_of_open_search(seed_url: str, new_page: NewPage, lang: str, scheme: str, width: int) -> None:
    """Open search with results, as a reader sees it; the PNGs go to tests/artifacts/search-*.png."""
    page = new_page(width=width, scheme=scheme)
    page.goto(seed_url + PREFIX[lang] + QUESTION)
    if width < 600:
        page.click(".md-header__button[for=__search]")  # the phone header shows only the magnifier
    else:
        page.click(".md-search__input")
    assert page.evaluate("() => document.activeElement.matches('.md-search__input')")
    page.keyboard.type("AllReduce" if lang == "en" else "通信")
    page.wait_for_function("() => document.querySelectorAll('.md-search-result__link').length >= 3")
    page.mouse.move(width / 2, 65)  # over the status line: no hover tooltip or highlighted result
    settle(page)  # Material's opening transition
    scheme_attr = page.evaluate("() => document.body.getAttribute('data-md-color-scheme')")
    assert scheme_attr == ("slate" if scheme == "dark" else "default")
    box = page.locator(".md-search__inner").bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, box
    assert page.evaluate(_OVERFLOW) == 0
    if width < 600:  # full screen, as Material's
        assert box["width"] >= width - 1 and box["height"] >= 800
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"search-{lang}-{scheme}-{width}.png"))
    for name, query in SHOT_QUERIES[lang]:  # a glossary term; a typo with the closest terms offered
        page.evaluate(_TYPE, query)
        page.wait_for_function(_SETTLED, arg=query)
        assert page.evaluate(_OVERFLOW) == 0
        page.screenshot(path=str(ARTIFACTS / f"search-{name}-{lang}-{scheme}-{width}.png"))
