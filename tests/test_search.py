"""Search as a reader uses it: Pagefind in Material's search box, per language, fast, silent until used.

The queries live in tests/search_queries.yml. Pages are loaded with service workers blocked: the
offline worker (overrides/sw.js) precaches the site by design; these tests are about what the pages
and the search box fetch.
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

from tests.qualitykit import serve_pages
from tests.sitekit import ARTIFACTS, ROOT, settle, wait_for_search, watch_search

QUERIES = yaml.safe_load((ROOT / "tests" / "search_queries.yml").read_text(encoding="utf-8"))
PREFIX = {"zh": "", "en": "en/"}
BUDGET_MS = 500
"""Keyup to the first results, on a page whose search box was never opened (Pagefind and the index load)."""
ATTEMPTS = 3
"""Cold starts allowed per query: the best must be within BUDGET_MS (other processes can slow one)."""
QUESTION = "ai-infra-3/two-batch-overlap/"
NewPage = Callable[..., Any]
"""new_page(width=1280, scheme="light"): a page in a fresh browser context."""
SEARCH_FILES = re.compile(r"/pagefind/|search_index\.json|/workers/search\.")

# Types the query the way an IME commits it (value set, then input and keyup: fill() fires no keyup
# for Chinese) into a box that was never opened, so the time includes loading Pagefind and the index.
# Resolves when the result list first shows results (or the box says there are none).
_SEARCH_TIMED = """async (query) => {
  const input = document.querySelector(".md-search__input");
  const list = document.querySelector(".md-search-result__list");
  const meta = document.querySelector(".md-search-result__meta");
  const before = meta.textContent;
  input.focus();
  input.value = query;
  const start = performance.now();
  input.dispatchEvent(new Event("input", {bubbles: true}));
  input.dispatchEvent(new KeyboardEvent("keyup", {bubbles: true, key: query.slice(-1)}));
  return await new Promise((resolve) => {
    const done = () => {
      const settled = list.children.length > 0 || (meta.textContent !== before && !/…/.test(meta.textContent));
      if (!settled) return false;
      observer.disconnect();
      resolve({
        ms: performance.now() - start,
        links: [...list.querySelectorAll("a.md-search-result__link")].map((a) => a.getAttribute("href")),
        meta: meta.textContent,
      });
      return true;
    };
    const observer = new MutationObserver(done);
    observer.observe(list, {childList: true});
    observer.observe(meta, {childList: true, characterData: true, subtree: true});
    setTimeout(() => done() || (observer.disconnect(), resolve({ms: Infinity, links: [], meta: meta.textContent})), 10000);
  });
}"""

_RESULTS = """() => [...document.querySelectorAll(".md-search-result__link")].map((a) => a.getAttribute("href"))"""


def _cases() -> list[object]:
    return [pytest.param(lang, case, id=f"{lang}-{case['query']}") for lang in ("zh", "en") for case in QUERIES[lang]]


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
    """A page in a fresh browser context (empty cache): new_page(width=1280, scheme="light")."""
    contexts = []

    def make(width: int = 1280, scheme: str = "light") -> Any:
        context = browser.new_context(
            viewport={"width": width, "height": 844 if width < 600 else 800},
            color_scheme=scheme,
            service_workers="block",
        )
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.mark.parametrize(("lang", "case"), _cases())
def test_query_finds_its_question_in_time(
    seed_url: str, new_page: NewPage, page_text: dict[str, str], lang: str, case: dict
) -> None:
    page = new_page()
    page.goto(seed_url + PREFIX[lang])
    found = page.evaluate(_SEARCH_TIMED, case["query"])
    times = [found["ms"]]
    while times[-1] > BUDGET_MS and len(times) < ATTEMPTS:  # another cold start: a busy machine, not search
        again = new_page()
        again.goto(seed_url + PREFIX[lang])
        times.append(again.evaluate(_SEARCH_TIMED, case["query"])["ms"])
    links, top3 = found["links"], found["links"][:3]
    assert links, f"{case['query']!r}: no results ({found['meta']!r})"
    if "expect" in case:
        assert f"/{PREFIX[lang]}{case['expect']}/" in top3, f"{case['query']!r}: {case['expect']} not in top 3: {top3}"
    else:
        words = [w.lower() for w in case["contains"]]
        holding = [link for link in top3 if all(w in page_text[link].lower() for w in words)]
        assert holding, f"{case['query']!r}: no page with all of {words} in top 3: {top3}"
    # Only this language's pages: the Chinese index under /, the English one under /en/.
    if lang == "en":
        assert all(link.startswith("/en/") for link in links), links
    else:
        assert not any(link.startswith("/en/") for link in links), links
    assert min(times) <= BUDGET_MS, f"{case['query']!r}: first results after {', '.join(f'{t:.0f}' for t in times)} ms"


@pytest.mark.parametrize("path", ["", QUESTION, "en/", "en/" + QUESTION])
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
    assert re.fullmatch(r"找到 \d+ 道相关题目", page.inner_text(".md-search-result__meta"))


def test_arrows_walk_the_results_and_enter_opens_one(seed_url: str, new_page: NewPage) -> None:
    page = new_page()
    page.goto(seed_url + "en/")
    page.keyboard.press("/")
    page.keyboard.type("AllReduce")
    page.wait_for_function("() => document.querySelectorAll('.md-search-result__link').length >= 2")
    links = page.evaluate(_RESULTS)
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
        "zh": ("键入以开始搜索", "没有找到相关的题目", re.compile(r"找到 \d+ 道相关题目")),
        "en": ("Type to start searching", "No matching questions", re.compile(r"\d+ matching questions?")),
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
        for lang in ("zh", "en"):
            page = new_page()
            page.goto(base + PREFIX[lang] + QUESTION)
            found = page.evaluate(_SEARCH_TIMED, "NVSHMEM")
            prefix = "/ai-infra/" + PREFIX[lang]
            assert found["links"] and all(link.startswith(prefix) for link in found["links"]), found
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
        fragment["meta"]["title"] = hostile + fragment["meta"]["title"]
        words = fragment["content"].split("\u200b")
        answer = next(a["location"] for a in fragment["anchors"] if a["id"] == "qa-answer")
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


SHOTS = [(lang, scheme, width) for lang in ("zh", "en") for scheme in ("light", "dark") for width in (1280, 390)]


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
    overflow = page.evaluate(
        """() => [...document.querySelectorAll('.md-search-result__item *')]
             .filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5).length"""
    )
    assert overflow == 0
    if width < 600:  # full screen, as Material's
        assert box["width"] >= width - 1 and box["height"] >= 800
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"search-{lang}-{scheme}-{width}.png"))
