"""Nothing injected: hostile text in every input shows literally and never becomes live HTML or script.

One site is built from a banks folder where every input a maintainer controls carries hostile strings:
bank text (title, question, paragraph, lead-in, list items), its translation, tag names (zh, en) and
glossary entries. Every affected page type is then opened in chromium: no dialog may fire, no element
or attribute from the input may exist, and every hostile string must be visible literally.
To cover a new input, add one row to INPUTS.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from studysite.enrich.convert import convert_text
from studysite.languages import LANGUAGES
from tests.sitekit import PAGES_MAX_AGE, build_site, serve, settle, wait_for_search, watch_search

PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    "javascript:alert(3)",
    '"><svg onload=alert(4)>',
    "'><iframe src=javascript:alert(5)>",
    "{{ jinja }} {{ config.site_name }}",
    "{% raw %}{% endraw %}",
    "[link](javascript:alert(6))",
    "<a href=javascript:alert(7)>click</a>",
    "&lt;script&gt;alert(8)&lt;/script&gt; &amp; &#60;b&#62;",
    "| col | col |",
    "$x^2$ $$y$$",
    "<!-- comment --> <!--",
    "--- front matter? ---",
    "\u202eevil\u202c \u2066bidi\u2069 \u200f",
    "<style>body{display:none}</style>",
    "*em* _u_ `code` ~~s~~ **b** \\",
    "</title></textarea></script><script>alert(9)</script>",
    "a, image:javascript:alert(15), url:javascript:alert(16)",  # Pagefind's data-pagefind-meta syntax
]
LITERAL = {
    "zh": "实体原文：&amp; &lt;b&gt; 与 <i>斜</i> 和 a & b。",
    "en": "Literal text: &amp; &lt;b&gt; and <i>it</i> and a & b.",
}
"""An answer that looks like entities and markup: search excerpts must show it exactly (issue 13.9)."""
LITERAL_QUERY = {"zh": "实体原文", "en": "Literal"}
LITERAL_TITLE = {"zh": "实体原文的题？", "en": "A question with literal text?"}
WHOLE_LINES = ["---", "***", "```", "    <script>alert(10)</script>", "<!--", "title: x", "==="]
"""Lines that mean something on their own in Markdown or YAML; they go into one answer as paragraphs."""

TAGS = [  # (zh name, en name): every question matches them through the keyword `hostile`
    ("<script>alert('tag')</script>", "<img src=x onerror=alert('tag')>"),
    ('"><svg onload=alert(11)>', "{{ jinja }} {% raw %}"),
    ("[t](javascript:alert(12))", "&lt;b&gt; & <b>bold</b>"),
    ("../../etc", "../../../etc/passwd"),
]
TERM = {  # one glossary term, used in every answer
    "zh": "<script>alert('g')</script>恶意术语",
    "en": "<img src=x onerror=alert('g')> hostile-term",
    "zh_def": '"><svg onload=alert(13)> 定义 {{ jinja }} <b>粗</b>',
    "en_def": "[x](javascript:alert(14)) definition &lt;b&gt; 'quoted' \"double\"",
    "zh_forms": ["恶意术语"],
    "en_forms": ["hostileterm"],
}


GROUPS = [PAYLOADS[i : i + 6] for i in range(0, len(PAYLOADS), 6)]
"""Payloads go into a few questions, six to a line, so few pages cover them all."""


def zh_question(i: int, p: str) -> str:
    return f"问题{i} {p} hostile？"


def en_question(i: int, p: str) -> str:
    return f"Question {i} {p} hostile?"


def joined(group: list[str]) -> str:
    return " · ".join(group)


def bank_lines(lang: str) -> list[str]:
    """A bank whose every line kind carries each payload; zh and en line up block for block."""
    zh = lang == "zh"
    out = [("恶意题库 " if zh else "Hostile bank ") + PAYLOADS[0]]
    for i, group in enumerate(GROUPS):
        p = joined(group)
        out.append("Q: " + (zh_question(i, p) if zh else en_question(i, p)))
        out.append(("段落 恶意术语 " if zh else "Paragraph hostileterm ") + p)
        out.append(("引导 " if zh else "Lead-in ") + p + ("：" if zh else ":"))
        out.append(("- 条目 " if zh else "- Item ") + p)
        out.append(("- 第二条 " if zh else "- Second ") + p + "。")
        out.append(("1. 编号 " if zh else "1. Numbered ") + p)
    out.append("Q: " + ("整行的标记？" if zh else "Whole-line markup?"))
    out += WHOLE_LINES
    out += ["Q: " + LITERAL_TITLE[lang], LITERAL[lang]]
    return out


def write_bank_inputs(banks: Path) -> None:
    (banks / "hostile.txt").write_text("\n".join(bank_lines("zh")) + "\n", encoding="utf-8")


def write_translation_inputs(banks: Path) -> None:
    (banks / "hostile.en.txt").write_text("\n".join(bank_lines("en")) + "\n", encoding="utf-8")


def write_tag_inputs(banks: Path) -> None:
    lines = ["tags:"]
    for n, (zh, en) in enumerate(TAGS):
        lines += [f"  - id: hostile-{n}", f"    zh: {json.dumps(zh)}", f"    en: {json.dumps(en)}"]
        lines.append("    keywords: [hostile]")
    (banks / "taxonomy.yml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_glossary_inputs(banks: Path) -> None:
    lines = ["terms:", "  - id: hostile-term"]
    lines += [f"    {key}: {json.dumps(value, ensure_ascii=False)}" for key, value in TERM.items()]
    (banks / "glossary.yml").write_text("\n".join(lines) + "\n", encoding="utf-8")


@dataclass(frozen=True)
class Input:
    """One kind of input: how the test writes its hostile values, and which pages must show them."""

    name: str
    write: Callable[[Path], None]
    shown: Callable[[], dict[str, list[str]]]
    """Page path (from the site root) -> hostile strings that must be visible there."""


def _questions(prefix: str, make: Callable[[int, str], str]) -> dict[str, list[str]]:
    return {f"{prefix}hostile/#{i}": [make(i, joined(g))] for i, g in enumerate(GROUPS)}


def _answers(prefix: str, para: str, lead: str, item: str) -> dict[str, list[str]]:
    pages = {}
    for i, group in enumerate(GROUPS):
        p = joined(group)
        pages[f"{prefix}hostile/#{i}"] = [f"{para}{p}", f"{lead}{p}", f"{item}{p}"]
    pages[f"{prefix}hostile/#{len(GROUPS)}"] = WHOLE_LINES
    return pages


INPUTS = [
    Input(
        "bank text (zh)",
        write_bank_inputs,
        lambda: {
            "": ["恶意题库 " + PAYLOADS[0]],
            "hostile/": ["恶意题库 " + PAYLOADS[0], *(zh_question(i, joined(g)) for i, g in enumerate(GROUPS))],
            **_questions("", zh_question),
            **_answers("", "段落 恶意术语 ", "引导 ", "条目 "),
        },
    ),
    Input(
        "translation (en)",
        write_translation_inputs,
        lambda: {
            "en/": ["Hostile bank " + PAYLOADS[0]],
            "en/hostile/": ["Hostile bank " + PAYLOADS[0], *(en_question(i, joined(g)) for i, g in enumerate(GROUPS))],
            **_questions("en/", en_question),
            **_answers("en/", "Paragraph hostileterm ", "Lead-in ", "Item "),
        },
    ),
    Input(
        "bank text on the print editions",
        lambda banks: None,  # written by the rows above
        lambda: {
            "hostile/print/": [
                *(zh_question(i, joined(g)) for i, g in enumerate(GROUPS)),
                *(s for strings in _answers("", "段落 恶意术语 ", "引导 ", "条目 ").values() for s in strings),
            ],
            "en/hostile/print/": [
                *(en_question(i, joined(g)) for i, g in enumerate(GROUPS)),
                *(
                    s
                    for strings in _answers("", "Paragraph hostileterm ", "Lead-in ", "Item ").values()
                    for s in strings
                ),
            ],
        },
    ),
    Input(
        "tag names (zh, en)",
        write_tag_inputs,
        lambda: {
            "": [zh for zh, _ in TAGS],
            "en/": [en for _, en in TAGS],
            "tags/": [zh for zh, _ in TAGS],
            "en/tags/": [en for _, en in TAGS],
            "hostile/#0": [zh for zh, _ in TAGS],
            "en/hostile/#0": [en for _, en in TAGS],
        },
    ),
    Input(
        "glossary entries",
        write_glossary_inputs,
        lambda: {
            "glossary/": [TERM["zh"], TERM["zh_def"]],
            "en/glossary/": [TERM["en"], TERM["en_def"]],
        },
    ),
]


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The hostile banks built once for the module."""
    work = tmp_path_factory.mktemp("hostile")
    banks = work / "banks"
    banks.mkdir()
    for row in INPUTS:
        row.write(banks)
    outside_before = sorted(p.relative_to(work.parent).as_posix() for p in work.parent.iterdir())
    site = build_site(banks, work, strict=False)  # the hostile bank warns
    outside_after = sorted(p.relative_to(work.parent).as_posix() for p in work.parent.iterdir())
    lock = (banks / "slugs.lock").read_text(encoding="utf-8")
    texts = {" ".join(zh_question(i, joined(g)).split()): i for i, g in enumerate(GROUPS)}
    texts["整行的标记？"] = len(GROUPS)
    texts[LITERAL_TITLE["zh"]] = len(GROUPS) + 1
    slugs = {}  # question index -> slug, from the lock's texts
    for line in lock.splitlines():
        if line.startswith("hostile/"):
            path, _, text = line.split("\t")[:3]  # (then the answer fingerprint)
            slugs[texts[text]] = path.split("/")[1]
    assert len(slugs) == len(texts), slugs
    return {"site": site, "slugs": slugs, "outside": (outside_before, outside_after), "work": work}


def _expectations(slugs: dict[int, str]) -> dict[str, list[tuple[str, str]]]:
    """Page URL path -> [(input name, hostile string)] over every row of INPUTS."""
    pages: dict[str, list[tuple[str, str]]] = {}
    for row in INPUTS:
        for page, strings in row.shown().items():
            if "#" in page:
                base, index = page.split("#")
                page = f"{base}{slugs[int(index)]}/"
            pages.setdefault(page, []).extend((row.name, s) for s in strings)
    # A converted language (繁體中文) shows its source language's pages' strings, converted as the build does.
    for item in LANGUAGES.items:
        if item.source == "converted":
            source_root = LANGUAGES[item.convert_from].root
            others = tuple(other.root for other in LANGUAGES.extra)
            for page, wanted in list(pages.items()):
                if page.startswith(source_root) and not page.startswith(others):
                    converted = [(name, convert_text(text, item.opencc)) for name, text in wanted]
                    pages[item.root + page.removeprefix(source_root)] = converted
    return pages


FIND_INJECTED = """() => {
  const bad = [];
  const show = (el) => el.outerHTML.slice(0, 160);
  for (const el of document.querySelectorAll("*")) {
    for (const a of el.attributes) {
      if (/^on/i.test(a.name)) bad.push("event handler: " + show(el));
      if (/^(href|src|action|formaction|xlink:href|data)$/i.test(a.name) && /^\\s*(javascript|data|vbscript):/i.test(a.value))
        bad.push("script URL: " + show(el));
    }
  }
  for (const s of document.querySelectorAll("script"))
    if (/alert\\(/.test(s.textContent)) bad.push("script: " + show(s));
  for (const el of document.querySelectorAll("iframe, object, embed, img[src='x'], svg[onload], a[href^='javascript' i]"))
    bad.push("element: " + show(el));
  for (const st of document.querySelectorAll("style"))
    if (st.textContent.includes("body{display:none}")) bad.push("style: " + show(st));
  if (document.querySelector("title") && document.querySelectorAll("title").length !== 1) bad.push("extra <title>");
  return bad;
}"""


@pytest.fixture(scope="module")
def hostile_url(hostile_site: dict[str, object]) -> Iterator[str]:
    """The hostile site, served once for the module. It never changes while served, so it is served
    with GitHub Pages' max-age (sitekit.PAGES_MAX_AGE): the browser stops revalidating its files on
    each of the ~60 page loads of the first test (this file: 22.7-23.9 CPU-s of the machine against
    24.9-30.6 without, alone, three rounds alternating, 2026-12-07)."""
    with serve(hostile_site["site"], max_age=PAGES_MAX_AGE) as base:  # type: ignore[arg-type]
        yield base


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_inputs_cannot_write_outside_the_site(hostile_site: dict) -> None:
    before, after = hostile_site["outside"]
    assert before == after, "the build created files beside its work folder"
    site: Path = hostile_site["site"]
    assert not list(site.parent.parent.glob("etc")) and not (site / "etc").exists()
    assert all(p.resolve().is_relative_to(site.resolve()) for p in site.rglob("*"))


def test_hostile_text_shows_literally_and_stays_inert(hostile_site: dict, hostile_url: str, browser) -> None:  # type: ignore[no-untyped-def]
    pages = _expectations(hostile_site["slugs"])  # type: ignore[arg-type]
    site: Path = hostile_site["site"]  # type: ignore[assignment]
    for built in site.rglob("*.html"):  # every other page too: nothing may run anywhere
        rel = built.relative_to(site).as_posix()
        if not rel.startswith((*(item.root + "assets/" for item in LANGUAGES.items), "pagefind/")):
            pages.setdefault(rel.removesuffix("index.html"), [])
    failures: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        for path, wanted in sorted(pages.items()):
            response = page.goto(hostile_url + path, wait_until="domcontentloaded")
            if response is None or response.status != 200:
                failures.append(f"{path}: HTTP {response.status if response else '?'}")
                continue
            settle(page)  # the theme's bundle has run and its timers with it
            for problem in page.evaluate(FIND_INJECTED):
                failures.append(f"{path}: {problem}")
            text = _norm(page.evaluate("() => document.body.innerText"))
            title = _norm(page.evaluate("() => document.title"))
            for name, s in wanted:
                if _norm(s) not in text:
                    failures.append(f"{path}: {name}: not shown literally: {s!r}")
            if "/hostile/" in path and path.count("/") >= 2 and not path.endswith("hostile/"):
                h1 = _norm(page.locator("article.md-content__inner h1").first.inner_text())
                if not title.startswith(h1):
                    failures.append(f"{path}: <title> {title!r} does not start with the heading {h1!r}")
    finally:
        page.close()
    assert not dialogs, f"dialogs fired: {dialogs}"
    assert not failures, "\n".join(failures)


def test_search_results_show_hostile_titles_literally(hostile_url: str, browser) -> None:  # type: ignore[no-untyped-def]
    """The search box's result list (Pagefind titles and excerpts) shows hostile text as text."""
    failures: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        for prefix in ("", "en/"):
            page.goto(hostile_url + prefix + "hostile/")
            page.locator("input.md-search__input").click()
            watch_search(page)
            page.locator("input.md-search__input").fill("hostile")
            page.locator("input.md-search__input").dispatch_event("keyup")
            results = page.locator(".md-search-result__list > li")
            results.first.wait_for(timeout=15_000)
            wait_for_search(page)
            for problem in page.evaluate(FIND_INJECTED):
                failures.append(f"/{prefix} search: {problem}")
            shown = _norm(page.locator(".md-search-result__list").inner_text())
            make = en_question if prefix else zh_question
            for i, group in enumerate(GROUPS):
                title = _norm(make(i, joined(group)))
                if title not in shown:
                    failures.append(f"/{prefix} search: result list does not show {title!r} literally")
    finally:
        page.close()
    assert not dialogs, dialogs
    assert not failures, "\n".join(failures)


def test_search_excerpts_show_entity_like_text_exactly(hostile_url: str, browser) -> None:  # type: ignore[no-untyped-def]
    """Issue 13.9: `&amp; &lt;b&gt;` in an answer shows in the excerpt as exactly that (not `&amp; <b>`),
    `<i>` as text, and the typed word is still marked."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        for lang, prefix in (("zh", ""), ("en", "en/")):
            page.goto(hostile_url + prefix + "hostile/")
            page.locator("input.md-search__input").click()
            watch_search(page)
            page.locator("input.md-search__input").fill(LITERAL_QUERY[lang])
            page.locator("input.md-search__input").dispatch_event("keyup")
            wait_for_search(page)
            hits = page.evaluate(_EXCERPTS, LITERAL_QUERY[lang])
            assert hits, lang
            shown = LITERAL[lang].split(" a & b")[0].split(" 和")[0]  # the excerpt may stop before the end
            assert shown in hits[0]["text"], hits[0]["text"]
            assert LITERAL_QUERY[lang] in hits[0]["marks"]
            assert page.evaluate("document.querySelectorAll('.md-search-result b, .md-search-result i').length") == 0
    finally:
        page.close()


# The excerpt text of each result whose excerpt holds the query, and what is marked in it.
_EXCERPTS = """(query) => [...document.querySelectorAll(".md-search-result__item")]
  .map((li) => ({text: li.querySelector("p") ? li.querySelector("p").textContent : li.textContent,
                 marks: [...li.querySelectorAll("mark")].map((m) => m.textContent)}))
  .filter((e) => e.text.includes(query))"""


def test_mock_interview_shows_hostile_questions_and_answers_as_text(
    hostile_site: dict, hostile_url: str, browser
) -> None:  # type: ignore[no-untyped-def]
    """The mock interview builds its view in JavaScript from the pages: it must stay inert too."""
    failures: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        for prefix, make in (("", zh_question), ("en/", en_question)):
            page.goto(hostile_url + prefix + "study/mock/")
            page.locator("#qa-mock-count").fill(str(len(hostile_site["slugs"])))  # all of them, not 5
            page.locator("#qa-mock .qa-button--primary").click()
            shown = ""
            for _ in range(len(hostile_site["slugs"])):  # every question of the bank
                page.locator("#qa-mock .qa-button--primary").click()  # show the answer
                page.locator("#qa-mock .qa-answer").first.wait_for(timeout=10_000)
                failures += [f"/{prefix}study/mock/: {p}" for p in page.evaluate(FIND_INJECTED)]
                shown += " " + _norm(page.locator("#qa-mock").inner_text())
                page.locator("#qa-mock .qa-grade--know").click()  # next question
            for i, group in enumerate(GROUPS):
                if _norm(make(i, joined(group))) not in shown:
                    failures.append(f"/{prefix}study/mock/: question {i} not shown literally")
    finally:
        page.close()
    assert not dialogs, dialogs
    assert not failures, "\n".join(failures)
