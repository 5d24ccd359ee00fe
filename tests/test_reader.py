"""The reader's side as a reader meets it (issue 19): the side-by-side view, the offline zip from file://,
links and tooltips that help, the glossary on a phone, phone and keyboard, the home page's ways in,
and the small things a first visit finds. Chromium, both languages, phone and desktop."""

from __future__ import annotations

import re
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from studysite.build import build_site_model, load_sources
from studysite.errors import Problems
from studysite.languages import LANGUAGES
from studysite.site import verify
from tests import sitekit
from tests.sitekit import DESKTOP, PHONE, SEED, build_site, converted, copy_banks, normalise, said, visible_text

LAYOUTS = {"desktop": DESKTOP, "phone": PHONE}
QUESTION = "ai-infra-3/two-batch-overlap/"
BI_KEY = "qa-reader:bilingual"
QUIZ_KEY = "qa-study:quiz-mode"
TOGGLE = converted({"zh": "中英对照", "en": "Side by side with Chinese"})
OTHER = {item.lang: LANGUAGES.beside(item.lang) for item in LANGUAGES.items}


def reader(browser: Any, *, allow: str = "", **options: Any) -> Any:
    """A fresh browser profile without the offline worker; fails the test on any script error (but a
    console error naming `allow`, such as the network error the browser logs for a request made offline)."""
    options.setdefault("service_workers", "block")
    return sitekit.reader(browser, timeout=10_000, expected=lambda text: bool(allow) and allow in text, **options)


def root(base: str, lang: str) -> str:
    return base + LANGUAGES[lang].root


# --- 1. the side-by-side view --------------------------------------------------------------------------


def _answer_shape(page: Any) -> dict[str, int]:
    """How many blocks and list items the answer has, and how many translations are shown, with which lang."""
    return page.evaluate(
        """() => {
          const a = document.getElementById("qa-answer");
          const lines = [...a.querySelectorAll(".qa-bi-line")];
          const shown = lines.filter((l) => l.offsetParent !== null);
          return {
            paragraphs: a.querySelectorAll(":scope > p:not(.qa-bi-line)").length,
            items: a.querySelectorAll(":scope > ul > li, :scope > ol > li").length,
            lines: lines.length,
            shown: shown.length,
            langs: [...new Set(shown.map((l) => l.lang))].join(","),
          };
        }"""
    )


@pytest.mark.parametrize("layout", ["desktop", "phone"])
def test_side_by_side_is_off_by_default_then_remembered_across_pages_and_languages(
    browser: Any, seed_url: str, layout: str
) -> None:
    with reader(browser, viewport=LAYOUTS[layout]) as context:
        page = context.new_page()
        page.goto(seed_url + QUESTION)
        toggle = page.get_by_role("button", name=TOGGLE["zh"])
        toggle.wait_for()
        assert toggle.get_attribute("aria-pressed") == "false"
        assert _answer_shape(page)["shown"] == 0  # off by default: the page reads as before
        toggle.click()
        shape = _answer_shape(page)
        # every paragraph and every list item has its English right under it
        assert shape["shown"] == shape["paragraphs"] + shape["items"] > 0, shape
        assert shape["langs"] == "en"
        first = page.locator("#qa-answer > p").first
        assert first.locator("xpath=following-sibling::*[1]").get_attribute("class") == "qa-bi-line"
        # subordinate: smaller than the original
        sizes = page.evaluate(
            """() => [getComputedStyle(document.querySelector('#qa-answer > p:not(.qa-bi-line)')).fontSize,
                      getComputedStyle(document.querySelector('#qa-answer .qa-bi-line')).fontSize].map(parseFloat)"""
        )
        assert sizes[1] < sizes[0], sizes
        # the next page, and the same question in English: still on, with the Chinese under the English
        here = page.url
        with page.expect_navigation():  # else the check may run on this page, or between the two
            page.locator(".qa-pager__next").click()
        assert page.url != here
        page.wait_for_function("document.documentElement.classList.contains('qa-bi-on')")
        page.goto(seed_url + "en/" + QUESTION)
        en_toggle = page.get_by_role("button", name=TOGGLE["en"])
        en_toggle.wait_for()
        assert en_toggle.get_attribute("aria-pressed") == "true"
        shape = _answer_shape(page)
        assert shape["shown"] == shape["paragraphs"] + shape["items"] > 0 and shape["langs"] == "zh", shape
        en_toggle.click()  # off in English is off in Chinese too
        page.goto(seed_url + QUESTION)
        page.get_by_role("button", name=TOGGLE["zh"]).wait_for()
        assert _answer_shape(page)["shown"] == 0


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_quiz_mode_hides_the_answer_and_its_translation(browser: Any, seed_url: str, lang: str) -> None:
    with reader(browser, viewport=PHONE) as context:
        context.add_init_script(
            f"if (location.protocol === 'http:') {{ localStorage.setItem('{BI_KEY}', '1');"
            f" localStorage.setItem('{QUIZ_KEY}', '1') }}"
        )
        page = context.new_page()
        for layout in ("phone", "desktop"):
            page.set_viewport_size(LAYOUTS[layout])
            page.goto(root(seed_url, lang) + QUESTION)
            page.wait_for_function("document.documentElement.classList.contains('qa-bi-on')")
            assert page.locator("#qa-answer .qa-bi-line").count() > 0, layout
            assert page.locator("#qa-answer").is_hidden(), layout
            assert page.locator(".qa-bi-line:visible").count() == 0, layout


@pytest.fixture(scope="module")
def untranslated_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The seed banks without their English translation, built and served."""
    from tests.sitekit import serve

    work = tmp_path_factory.mktemp("untranslated")
    site = build_site(copy_banks(work / "banks", translations=False), work, strict=False)
    with serve(site) as url:
        yield url


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_side_by_side_says_when_there_is_no_translation(browser: Any, untranslated_url: str, lang: str) -> None:
    with reader(browser) as context:
        page = context.new_page()
        page.goto(root(untranslated_url, lang) + QUESTION)
        page.get_by_role("button", name=TOGGLE[lang]).click()
        note = page.locator("#qa-answer .qa-bi-missing")
        assert note.is_visible()
        assert said(lang, "还没有英文翻译", "no English translation yet") in note.inner_text()


def test_other_language_blocks_are_hidden_tagged_and_left_out_of_search(seed_site: Path) -> None:
    for lang in LANGUAGES.codes:
        page = (seed_site / LANGUAGES[lang].root / QUESTION / "index.html").read_text(encoding="utf-8")
        source = re.search(r'<div class="qa-bi-source"[^>]*>', page)
        assert source, lang
        tag = source.group(0)
        assert " hidden" in tag and 'data-pagefind-ignore="all"' in tag and f'lang="{OTHER[lang]}"' in tag, tag


def test_question_pages_stay_under_60_kb_with_the_other_language(seed_site: Path) -> None:
    pages = [p for p in seed_site.rglob("index.html") if 'class="qa-answer"' in p.read_text(encoding="utf-8")]
    assert len(pages) >= 28
    largest = max(p.stat().st_size for p in pages)
    assert largest <= 60 * 1024, largest


def test_site_check_reads_each_language_on_its_own_pages(seed_site: Path, tmp_path: Path) -> None:
    """A line that a renderer put only into the hidden other-language copy is still missing from its page."""
    site = tmp_path / "site"
    shutil.copytree(seed_site, site)
    problems_ = Problems()
    sources = load_sources(seed_site.parent / "banks", problems_)
    model, _ = build_site_model(sources)
    banks = sources.banks
    assert verify.check_built_site(banks, model, site) == []
    page = site / "en" / QUESTION / "index.html"
    text = page.read_text(encoding="utf-8")
    answer = re.search(r'<div class="qa-answer".*?</div>', text, re.S).group(0)  # type: ignore[union-attr]
    item = re.findall(r"<li>.*?</li>", answer)[0]
    # the English item leaves the English answer and turns up, whole, in the page's hidden Chinese copy
    moved = text.replace(answer, answer.replace(item, "", 1)).replace(
        '<div class="qa-bi-source"', f'<div class="qa-bi-source"><ul>{item}</ul></div><div class="qa-bi-source"', 1
    )
    page.write_text(moved, encoding="utf-8")
    problems = verify.check_built_site(banks, model, site)
    assert len(problems) == 1 and "not visible on its built page" in problems[0].message, problems


def _unzip(seed_site: Path, dest: Path) -> Path:
    with zipfile.ZipFile(seed_site / "downloads" / "ai-infra-site.zip") as zf:
        zf.extractall(dest)
    return dest / "ai-infra-site"


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_print_edition_offers_the_side_by_side_view(browser: Any, seed_url: str, lang: str) -> None:
    with reader(browser) as context:
        page = context.new_page()
        for layout in ("desktop", "phone"):
            page.set_viewport_size(LAYOUTS[layout])
            page.emulate_media(media="screen")
            page.goto(root(seed_url, lang) + "ai-infra-3/print/")
            toggle = page.get_by_role("button", name=TOGGLE[lang])
            if toggle.get_attribute("aria-pressed") != "true":  # on from the first round: remembered
                toggle.click()
            counts = page.evaluate(
                """() => [...document.querySelectorAll('.qa-print__answer')].map((a) =>
                     [a.querySelectorAll(':scope > p:not(.qa-bi-line), :scope > ul > li, :scope > ol > li').length,
                      [...a.querySelectorAll('.qa-bi-line')].filter((l) => l.offsetParent !== null).length])"""
            )
            assert len(counts) == 14 and all(blocks == shown > 0 for blocks, shown in counts), (layout, counts)
            page.emulate_media(media="print")
            assert page.locator(".qa-bi-bar").is_hidden()  # the switch stays off the paper
            assert page.locator(".qa-bi-line:visible").count() == sum(shown for _, shown in counts)


# --- 4. links and tooltips that help -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "term", "alone"),
    [
        ("跨block的共享内存访问（Distributed Shared Memory）。", "Shared Memory", False),
        ("(Distributed Shared Memory)", "Memory", False),
        ("用Shared Memory做归约", "Shared Memory", True),
        ("Ring AllReduce分为两个阶段", "AllReduce", False),
        ("In Megatron-LM, TP is", "Megatron-LM", True),
        ("the CUDA global memory", "global memory", True),
        ("调用NCCL API。", "NCCL", True),
        ("HTTP", "TP", False),
        ("Reduce-Scatter", "Scatter", False),
    ],
)
def test_a_mark_only_where_a_whole_term_stands(text: str, term: str, alone: bool) -> None:
    from studysite.enrich.links import stands_alone

    start = text.index(term)
    assert stands_alone(text, start, start + len(term)) is alone


@pytest.fixture(scope="module")
def seed_pages() -> dict[str, str]:
    from studysite.build import render_files

    problems = Problems()
    model, _ = build_site_model(load_sources(SEED, problems))
    return render_files(model)


def _marks(answer: str) -> list[tuple[str, str, str]]:
    """(block, kind, text) of every link and tooltip in an answer's HTML."""
    out = []
    for block in re.findall(r"<(?:p|li)[^>]*>.*?</(?:p|li)>", answer):
        for kind, text in re.findall(r'<(a|abbr) class="qa-(?:xref|term)"[^>]*>(.*?)</(?:a|abbr)>', block):
            out.append((block, kind, text))
    return out


def test_marks_are_few_once_per_term_and_never_inside_a_longer_name(seed_pages: dict[str, str]) -> None:
    from studysite.enrich.links import MAX_MARKS_PER_ANSWER, MAX_MARKS_PER_PARAGRAPH

    answers = {
        path: re.search(r'<div class="qa-answer".*?</div>', text, re.S).group(0)  # type: ignore[union-attr]
        for path, text in seed_pages.items()
        if 'class="qa-answer"' in text
    }
    assert len(answers) == 14 * len(LANGUAGES.items)  # every question in every language
    total = 0
    for path, answer in answers.items():
        marks = _marks(answer)
        total += len(marks)
        assert len(marks) <= MAX_MARKS_PER_ANSWER, (path, marks)
        texts = [text.casefold() for _, _, text in marks]
        assert len(texts) == len(set(texts)), (path, texts)  # once per answer per term
        for block in {b for b, _, _ in marks}:
            cap = 1 if block.startswith("<li") else MAX_MARKS_PER_PARAGRAPH
            assert sum(b == block for b, _, _ in marks) <= cap, (path, block)
        assert "Distributed <a" not in answer and "Distributed <abbr" not in answer, path
    megatron = answers["ai-infra-3/communication-optimized-megatron-lm.md"]
    assert 1 <= len(_marks(megatron)) <= MAX_MARKS_PER_ANSWER  # was 13 dotted underlines in six bullets
    assert total > len(answers)  # still marks where they help: more than one an answer on average


# --- 2. the offline zip from file:// ------------------------------------------------------------------

MOCK_UI = converted({"zh": ("开始面试", "显示答案"), "en": ("Start the interview", "Show answer")})


@pytest.fixture(scope="module")
def unzipped(seed_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _unzip(seed_site, tmp_path_factory.mktemp("zip"))


@pytest.mark.parametrize("layout", ["desktop", "phone"])
@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_zip_study_tools_work_from_file_urls(browser: Any, unzipped: Path, lang: str, layout: str) -> None:
    folder = unzipped / LANGUAGES[lang].root
    with reader(browser, viewport=LAYOUTS[layout]) as context:
        page = context.new_page()
        page.goto((folder / "study" / "mock" / "index.html").as_uri())
        start, reveal = MOCK_UI[lang]
        page.get_by_role("button", name=start).click()
        page.get_by_role("button", name=reveal).click()
        page.wait_for_selector(".qa-mock__answer .qa-answer > *")
        shown = page.locator(".qa-mock__answer .qa-answer").inner_text().strip()
        slug = page.locator(".qa-mock__answer .qa-answer").get_attribute("data-qa-slug")
        # the answer is that question's own, as the page the zip holds for it shows it
        held = (folder / "ai-infra-3" / str(slug) / "index.html").read_text(encoding="utf-8")
        answer = re.search(r'<div class="qa-answer".*?</div>', held, re.S).group(0)  # type: ignore[union-attr]
        assert normalise(shown) == visible_text(answer), slug
        # the home page's progress panel fills in from the shipped question data, and says what needs a server
        page.goto((folder / "index.html").as_uri())
        page.wait_for_selector("[data-qa-progress=home] .qa-meter")
        assert "14" in page.locator("[data-qa-progress=home]").inner_text()
        notice = page.locator(".qa-zip-notice").inner_text()
        assert "python3 -m http.server -b 127.0.0.1" in notice and said(lang, "搜索", "search") in notice
        assert page.locator(".qa-offline-browser").count() == 0  # no promise of the browser's own offline copy


REVIEW_UI = converted({"zh": ("开始复习", "显示答案"), "en": ("Start the review", "Show answer")})


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_zip_review_starts_a_session_and_stats_draw_from_file_urls(browser: Any, unzipped: Path, lang: str) -> None:
    """The zip's review page runs a session (answers from the shipped data) and its stats page draws
    the reviews just made, from disk, at phone then desktop width."""
    folder = unzipped / LANGUAGES[lang].root
    start, reveal = REVIEW_UI[lang]
    with reader(browser, viewport=PHONE) as context:
        page = context.new_page()
        graded = 0
        for layout in ("phone", "desktop"):
            page.set_viewport_size(LAYOUTS[layout])
            page.goto((folder / "study" / "review" / "index.html").as_uri())
            page.get_by_role("button", name=start).click()
            page.wait_for_selector(".qa-review__run")
            title = page.locator(".qa-review__question").inner_text()
            page.get_by_role("button", name=reveal).click()
            answer = page.locator(".qa-review__answer .qa-answer")
            answer.locator("> *").first.wait_for()
            slug = answer.get_attribute("data-qa-slug")
            held = (folder / "ai-infra-3" / str(slug) / "index.html").read_text(encoding="utf-8")
            own = re.search(r'<div class="qa-answer".*?</div>', held, re.S).group(0)  # type: ignore[union-attr]
            assert normalise(answer.inner_text()) == visible_text(own), slug
            page.locator(".qa-review__grade button[data-grade='3']").click()
            graded += 1
            # graded and stored: the next question comes up, its answer hidden again
            page.wait_for_function(
                "(before) => document.querySelector('.qa-review__question').textContent !== before"
                " && document.querySelector('.qa-review__answer').hidden",
                arg=title,
            )
        for layout in ("phone", "desktop"):
            page.set_viewport_size(LAYOUTS[layout])
            page.goto((folder / "study" / "stats" / "index.html").as_uri())
            canvas = page.locator('[data-qa-plot-drawn="reviews"] canvas')
            canvas.wait_for()
            box = canvas.bounding_box()
            assert box and 200 < box["width"] <= LAYOUTS[layout]["width"], (layout, box)
            rows = page.eval_on_selector(
                '[data-qa-table="reviews"]', "t => [...t.tBodies[0].rows].map(r => +r.cells[1].textContent)"
            )
            assert sum(rows) == graded and rows[-1] == graded, rows  # today's reviews, both of them


# --- 8. a home page that starts a study session ------------------------------------------------------

WAYS = converted(
    {"zh": ("随机抽题", "模拟面试", "按主题浏览"), "en": ("Pick one at random", "Mock interview", "Browse by topic")}
)


@pytest.mark.parametrize("layout", ["phone", "desktop"])
@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_home_first_screen_says_what_how_many_and_the_ways_in(
    browser: Any, seed_url: str, lang: str, layout: str
) -> None:
    viewport = LAYOUTS[layout]
    with reader(browser, viewport=viewport, is_mobile=layout == "phone", has_touch=layout == "phone") as context:
        page = context.new_page()
        page.goto(root(seed_url, lang))
        ways = page.get_by_role("navigation", name=said(lang, "从这里开始", "Start here"))
        first_screen = [
            page.locator("article.md-content__inner h1"),
            page.locator("article.md-content__inner h1 + p"),
            page.locator(".qa-home-count"),
        ]
        first_screen += [ways.get_by_role("button" if w in WAYS[lang][:1] else "link", name=w) for w in WAYS[lang]]
        for part in first_screen:
            box = part.bounding_box()
            assert box and box["y"] + box["height"] <= viewport["height"], (part, box)
        assert said(lang, "14 道题", "14 questions") in page.locator(".qa-home-count").inner_text()
        downloads = page.locator("#downloads").bounding_box()
        assert downloads and downloads["y"] > viewport["height"]  # lower down, not above the ways in
        ways.get_by_role("link", name=WAYS[lang][2]).click()
        page.wait_for_url(re.compile("#topics$"))
        ways.get_by_role("button", name=WAYS[lang][0]).click()
        page.wait_for_selector("#qa-answer")  # a question page
        assert page.url.startswith(root(seed_url, lang) + "ai-infra-3/")


def test_home_links_to_the_daily_review_once_the_site_has_it() -> None:
    from studysite.pages.render import home_page

    problems = Problems()
    model, _ = build_site_model(load_sources(SEED, problems))
    for lang, label in (("zh", "今日复习"), ("en", "Review today")):
        assert label not in home_page(model, lang)  # type: ignore[arg-type]
        assert f'href="review/">{label}</a>' in home_page(model, lang, "review/")  # type: ignore[arg-type]


# --- 6. phone and keyboard -----------------------------------------------------------------------------


def test_site_name_shows_whole_in_the_header_at_phone_and_desktop_width(browser: Any, seed_url: str) -> None:
    """Each language's site name (as its mkdocs config spells it) fits its header box: on a phone (390
    and 360 px) the English one wraps to two lines inside the header instead of being cut to "AI Infra Int…"."""
    names = {
        lang: re.search(r"^site_name: (.*)$", (sitekit.ROOT / config).read_text(encoding="utf-8"), re.M).group(1)  # type: ignore[union-attr]
        for lang, config in (("zh", "mkdocs.yml"), ("en", "mkdocs.en.yml"))
    }
    with reader(browser, viewport=PHONE, is_mobile=True, has_touch=True) as context:
        page = context.new_page()
        for layout, viewport in (*LAYOUTS.items(), ("narrow phone", {"width": 360, "height": 780})):
            page.set_viewport_size(viewport)
            for lang, name in names.items():
                page.goto(root(seed_url, lang))
                shown = page.locator(".md-header__topic").first.locator(".md-ellipsis")
                assert normalise(shown.inner_text()) == name
                fit = shown.evaluate(
                    """(e) => { const header = e.closest('.md-header').getBoundingClientRect();
                      const range = document.createRange(); range.selectNodeContents(e);
                      const lines = [...range.getClientRects()];
                      return { cut: e.scrollWidth > e.clientWidth || e.scrollHeight > e.clientHeight,
                               lines: new Set(lines.map((r) => Math.round(r.top))).size,
                               inside: lines.every((r) => r.top >= header.top && r.bottom <= header.bottom) }; }"""
                )
                assert not fit["cut"] and fit["inside"] and fit["lines"] <= 2, (layout, lang, fit)


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_key_hints_only_on_devices_with_a_keyboard(browser: Any, seed_url: str, lang: str) -> None:
    for touch, shown in ((True, False), (False, True)):
        with reader(browser, viewport=PHONE if touch else DESKTOP, is_mobile=touch, has_touch=touch) as context:
            page = context.new_page()
            page.goto(root(seed_url, lang))
            assert page.locator(".qa-keyhint").is_visible() is shown
            page.goto(root(seed_url, lang) + QUESTION)
            page.wait_for_selector(".qa-quiz")
            assert page.locator(".qa-quiz .qa-kbd").first.is_visible() is shown
            # nor the button that lists the keys (P/N among them): a touch screen has none of them
            keys = page.get_by_role("button", name=said(lang, "键盘快捷键", "Keyboard shortcuts"), exact=True)
            assert keys.is_visible() is shown


def test_longest_english_title_takes_at_most_three_lines_on_a_phone(browser: Any, seed_url: str) -> None:
    titles = {}
    for page_file in (SEED.parent / "banks").glob("*.en.txt"):
        for line in page_file.read_text(encoding="utf-8").splitlines():
            if line.startswith("Q:"):
                titles[line[2:].strip()] = True
    longest = max(titles, key=len)
    pages = json_questions(seed_url, "en")
    url = next(q["url"] for q in pages if q["title"] == longest)
    with reader(browser, viewport=PHONE, is_mobile=True, has_touch=True) as context:
        page = context.new_page()
        page.goto(seed_url + "en/" + url)
        lines, weight = page.evaluate(
            """() => { const h = document.querySelector('article h1'); const s = getComputedStyle(h);
                       return [Math.round(h.getBoundingClientRect().height / parseFloat(s.lineHeight)),
                               parseInt(s.fontWeight)]; }"""
        )
        assert lines <= 3 and weight >= 500, (longest, lines, weight)


def json_questions(base: str, lang: str) -> list[dict[str, Any]]:
    import json
    import urllib.request

    with urllib.request.urlopen(root(base, lang) + "assets/qa/questions.json") as response:
        return list(json.load(response)["questions"])


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_p_and_n_go_to_the_previous_and_next_question(browser: Any, seed_url: str, lang: str) -> None:
    """At desktop width and in a phone-wide window (a keyboard at 390 px: a tablet's, a narrow window)."""
    with reader(browser) as context:
        page = context.new_page()
        for layout in ("desktop", "phone"):
            page.set_viewport_size(LAYOUTS[layout])
            page.goto(root(seed_url, lang) + QUESTION)
            page.wait_for_selector(".qa-quiz")
            following = page.locator(".qa-pager__next").get_attribute("href")
            page.keyboard.press("n")
            page.wait_for_url(re.compile(re.escape(str(following).strip("./")) + "/$"))
            page.wait_for_selector(".qa-quiz")
            page.keyboard.press("p")
            page.wait_for_url(root(seed_url, lang) + QUESTION)


QR_UI = converted(
    {"zh": ("生成进度链接", "显示二维码", "关闭"), "en": ("Make a progress link", "Show QR code", "Close")}
)


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_focus_returns_where_it_was_after_the_help_and_the_qr_dialog(
    browser: Any, seed_url: str, data: dict, lang: str
) -> None:
    """The `?` help closed by Esc, and the stats page's QR dialog closed by Esc or its Close button,
    give the keyboard back to what had it, at desktop and phone width."""
    make, show, close = QR_UI[lang]
    with reader(browser) as context:
        page = context.new_page()
        for layout in ("desktop", "phone"):
            page.set_viewport_size(LAYOUTS[layout])
            page.goto(root(seed_url, lang) + QUESTION)
            page.wait_for_selector(".qa-quiz")
            page.locator(".qa-pager__next").focus()
            page.keyboard.press("?")
            page.wait_for_selector("dialog.qa-help[open]")
            page.keyboard.press("Escape")
            page.wait_for_function("!document.querySelector('dialog[open]')")
            page.wait_for_function("document.activeElement && document.activeElement.matches('.qa-pager__next')")
            page.goto(root(seed_url, lang) + "study/stats/")
            page.wait_for_selector("[data-qa-stats] > *")
            q = data[lang]["questions"][0]  # one review: something to carry
            page.evaluate(
                "(c) => QAStudy.store.merge({format: 'qa-study-progress', version: 2, site: '/', cards: c})",
                {q["slug"]: {"hash": q["hash"], "log": [{"t": 1_700_000_000_000, "g": 3}]}},
            )
            page.get_by_role("button", name=make).click()
            qr = page.get_by_role("button", name=show)
            for how in ("Escape", "button"):
                qr.focus()
                page.keyboard.press("Enter")
                dialog = page.locator("dialog.qa-qr[open]")
                dialog.wait_for()
                if how == "Escape":
                    page.keyboard.press("Escape")
                else:
                    dialog.get_by_role("button", name=close).click()
                dialog.wait_for(state="detached")
                page.wait_for_function(
                    "(name) => document.activeElement && document.activeElement.textContent.trim() === name",
                    arg=show,
                )


# --- 7. the small things --------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["desktop", "phone"])
def test_dark_mode_chosen_in_one_language_holds_in_the_other(browser: Any, seed_url: str, layout: str) -> None:
    """Dark chosen on `/` holds on `/en/`, and light chosen back on `/en/` holds on `/` (the header's
    palette button, at desktop and phone width)."""
    phone = layout == "phone"
    with reader(browser, viewport=LAYOUTS[layout], color_scheme="light", is_mobile=phone, has_touch=phone) as context:
        page = context.new_page()
        for here, there, scheme in (("", "en/" + QUESTION, "slate"), ("en/", QUESTION, "default")):
            page.goto(seed_url + here)
            for _ in range(3):  # follow the system -> light -> dark -> follow the system
                if page.evaluate("document.body.dataset.mdColorScheme") == scheme and page.evaluate(
                    "!!__md_get('__palette') && __md_get('__palette').color.media !== '(prefers-color-scheme)'"
                ):
                    break
                page.locator("form[data-md-component=palette] label:visible").first.click()
            assert page.evaluate("document.body.dataset.mdColorScheme") == scheme, (here, scheme)
            page.goto(seed_url + there)
            assert page.evaluate("document.body.dataset.mdColorScheme") == scheme, (there, scheme)


def test_one_tag_order_everywhere_and_bank_order_within_a_tag(seed_site: Path) -> None:
    import json

    for prefix in LANGUAGES.roots:
        data = json.loads((seed_site / prefix / "assets/qa/questions.json").read_text(encoding="utf-8"))
        taxonomy = [tag["name"] for tag in data["tags"]]
        tags_page = (seed_site / prefix / "tags/index.html").read_text(encoding="utf-8")
        home = (seed_site / prefix / "index.html").read_text(encoding="utf-8")
        index = tags_page.split("qa-downloads__tags")[0]
        listed = [visible_text(n) for n in re.findall(r'<li id="tag:[^"]*"><a href="[^"]+/">(.*?)</a>', index)]
        on_home = [visible_text(a) for a in re.findall(r'<a href="tags/[^"#]+/">(.*?)</a>', home)]
        downloads = re.findall(r"qa-downloads__tags\">(.*?)</ul>", tags_page, re.S)
        in_table = re.findall(r'<span class="qa-downloads__label">(.*?)</span>', downloads[0] if downloads else "")
        assert listed == on_home == [visible_text(n) for n in in_table] == taxonomy, (listed, on_home, in_table)
        order = [q["url"] for q in data["questions"]]
        for tag in data["tags"]:  # a tag's page lists its questions in bank order
            tag_page = (seed_site / prefix / tag["url"] / "index.html").read_text(encoding="utf-8")
            listing = tag_page.split('<div class="qa-bank-list">')[1].split("</ol>")[0]
            urls = [u.removeprefix("../../") for u in re.findall(r'<a href="([^"]+)"', listing)]
            ranks = [order.index(u) for u in urls if u in order]
            assert ranks and ranks == sorted(ranks) and len(ranks) == len(urls), (prefix, tag["id"], urls)


@pytest.mark.parametrize("layout", ["phone", "desktop"])
def test_download_labels_never_break_inside_a_word(browser: Any, seed_url: str, layout: str) -> None:
    with reader(browser, viewport=LAYOUTS[layout]) as context:
        page = context.new_page()
        page.goto(seed_url + "en/")
        label = page.locator(".qa-downloads__label", has_text="Spreadsheet").first
        # one line box: the word is whole (a break inside it would make two)
        lines = label.evaluate(
            "e => { const r = document.createRange(); r.selectNodeContents(e); return r.getClientRects().length }"
        )
        assert lines == 1, lines


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_not_found_page_has_a_language_switch(browser: Any, seed_url: str, lang: str) -> None:
    with reader(browser) as context:
        page = context.new_page()
        page.goto(root(seed_url, lang) + "404.html")
        name, target = ("Read in English", "en/") if lang == "zh" else ("阅读中文版", "")
        link = page.get_by_role("link", name=name)
        assert link.is_visible()
        link.click()
        page.wait_for_url(seed_url + target)


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_too_large_a_number_in_the_mock_form_says_so_in_the_page_language(
    browser: Any, seed_url: str, lang: str
) -> None:
    with reader(browser, viewport=PHONE) as context:
        page = context.new_page()
        for layout in ("phone", "desktop"):
            page.set_viewport_size(LAYOUTS[layout])
            page.goto(root(seed_url, lang) + "study/mock/")
            field = page.locator(".qa-mock__number")
            field.fill("999")
            page.get_by_role("button", name=MOCK_UI[lang][0]).click()
            top = field.get_attribute("max")
            message = field.evaluate("e => e.validationMessage")
            assert message == said(lang, f"最多 {top}。", f"At most {top}."), (layout, message)
            assert page.locator(".qa-mock__setup").is_visible()  # nothing started
            field.fill("2")
            assert field.evaluate("e => e.validity.valid")


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_cjk_latin_spacing_by_text_autospace(browser: Any, seed_url: str, lang: str) -> None:
    with reader(browser) as context:
        page = context.new_page()
        for layout in ("desktop", "phone"):
            page.set_viewport_size(LAYOUTS[layout])
            page.goto(root(seed_url, lang) + QUESTION)
            assert page.evaluate("CSS.supports('text-autospace', 'normal')")  # Debian's chromium has it
            spacing = page.evaluate(
                "['#qa-answer', 'article h1'].map((s) => getComputedStyle(document.querySelector(s)).textAutospace)"
            )
            assert spacing == ["normal", "normal"], (layout, spacing)


CLEAR = {"zh": "清空当前内容", "en": "Clear", "zh-Hant": "清除"}  # Material's own strings (zh-Hant: its zh-TW)


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_search_clear_button_puts_no_tooltip_over_the_result_count(browser: Any, seed_url: str, lang: str) -> None:
    """The Clear button is named for a screen reader only: hovered or focused, at phone and desktop
    width, no tooltip (the browser's from a title, or the theme's drawn one) covers the count line."""
    with reader(browser) as context:
        page = context.new_page()
        for layout in ("desktop", "phone"):
            page.set_viewport_size(LAYOUTS[layout])
            page.goto(root(seed_url, lang) + QUESTION)
            page.wait_for_load_state("load")
            if layout == "phone":
                page.click(".md-header__button[for=__search]")  # the phone header shows only the magnifier
            else:
                page.click(".md-search__input")
            sitekit.watch_search(page)
            page.keyboard.type("AllReduce")
            sitekit.wait_for_search(page)
            clear = page.get_by_role("button", name=CLEAR[lang], exact=True)
            clear.hover()
            clear.focus()
            sitekit.settle(page)  # a drawn tooltip fades in
            found = page.evaluate(
                """() => { const meta = document.querySelector('.md-search-result__meta').getBoundingClientRect();
                  const over = (r) => r.width > 0 && r.height > 0 && r.left < meta.right && r.right > meta.left
                                      && r.top < meta.bottom && r.bottom > meta.top;
                  return { titles: [...document.querySelectorAll('.md-search [title]')].map((e) => e.outerHTML.slice(0, 80)),
                           tips: [...document.querySelectorAll('.md-tooltip, .md-tooltip2, [role=tooltip]')]
                             .filter((t) => getComputedStyle(t).visibility !== 'hidden'
                                            && over(t.getBoundingClientRect())).map((t) => t.textContent.trim()) }; }"""
            )
            assert found == {"titles": [], "tips": []}, (layout, found)


# --- 5. a glossary usable on a phone ---------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["phone", "desktop"])
@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_glossary_filter_and_jump_list(browser: Any, seed_url: str, lang: str, layout: str) -> None:
    from studysite.pages.glossary_page import jump_key

    terms = build_site_model(load_sources(SEED, Problems()))[0].glossary  # with the converted names
    with reader(browser, viewport=LAYOUTS[layout], is_mobile=layout == "phone", has_touch=layout == "phone") as ctx:
        page = ctx.new_page()
        page.goto(root(seed_url, lang) + "glossary/")
        box = page.get_by_label(said(lang, "筛选术语", "Filter the terms"))
        assert box.is_visible()
        headings = page.locator("article h2:visible")
        assert headings.count() == len(terms) == 62
        # typed in either language, any case: only the terms that hold it stay
        query = "kv cache" if lang == "en" else "KV Cache"
        box.fill(query)
        shown = headings.all_inner_texts()
        expected = [term for term in terms if all(w in _term_text(term).lower() for w in query.lower().split())]
        assert 0 < len(shown) == len(expected) < 62, (shown, [t.id for t in expected])
        status = page.locator(".qa-gl-count").inner_text()
        assert f"{len(shown)}" in status and "62" in status
        box.fill("zzzz-nothing")
        assert headings.count() == 0
        assert page.locator(".qa-gl-count").inner_text() == said(lang, "没有匹配的术语。", "No term matches.")
        box.fill("")
        assert headings.count() == 62
        # the jump list: one link per group, in order; a link brings its first term into view
        keys = sorted({jump_key(term, lang) for term in terms})
        jump = page.locator(".qa-gl-jump a")
        assert jump.all_inner_texts() == keys
        target = keys[len(keys) // 2]
        link = jump.filter(has_text=re.compile(f"^{re.escape(target)}$"))
        assert link.get_attribute("href") == f"#gl-{target.lower()}"
        link.click()
        # Not the URL: Material's navigation.tracking replaces the hash with the heading in view
        # as soon as the page has scrolled, so "#gl-…" may be gone before anyone looks.
        first = page.locator(f"#gl-{target.lower()} + h2")
        page.wait_for_function(
            "el => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight }",
            arg=first.element_handle(),
        )
        in_group = [term for term in terms if jump_key(term, lang) == target]
        assert first.inner_text().replace("¶", "").strip() in [term.names[lang] for term in in_group]


def test_glossary_jump_list_on_a_phone_shows_it_goes_on(browser: Any, seed_url: str) -> None:
    """One row of letters swiped sideways: the letters at the edge fade (there are more), and scrolled
    to its end the last letter stands clear of the fade, in both languages."""
    with reader(browser, viewport=PHONE, is_mobile=True, has_touch=True) as context:
        page = context.new_page()
        for lang in LANGUAGES.codes:
            page.goto(root(seed_url, lang) + "glossary/")
            row = page.locator(".qa-gl-jump")
            shape = row.evaluate(
                """(e) => { const s = getComputedStyle(e); const fade = parseFloat(s.paddingRight);
                  const mask = s.maskImage || s.webkitMaskImage;
                  e.scrollLeft = e.scrollWidth;
                  const box = e.getBoundingClientRect(); const last = [...e.querySelectorAll('a:not([hidden])')].pop();
                  return { more: e.scrollWidth > e.clientWidth, mask: mask.includes('transparent') || mask.includes('rgba(0, 0, 0, 0)'),
                           clear: last.getBoundingClientRect().right <= box.right - fade + 0.5 }; }"""
            )
            assert shape == {"more": True, "mask": True, "clear": True}, (lang, shape)


def _term_text(term: Any) -> str:
    """What the glossary page shows of a term (both names and both definitions): what the filter searches."""
    return " ".join([*term.names.values(), *term.definitions.values()])


@pytest.mark.parametrize("layout", ["phone", "desktop"])
@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_tab_never_lands_on_what_cannot_be_seen(browser: Any, seed_url: str, lang: str, layout: str) -> None:
    """The closed search box's results (and on a phone the closed search overlay and navigation
    drawer) take no focus; opening the search still puts the keyboard in its box."""
    viewport = LAYOUTS[layout]
    with reader(browser, viewport=viewport) as context:
        page = context.new_page()
        page.goto(root(seed_url, lang) + QUESTION)
        page.wait_for_selector(".qa-quiz")
        seen = []
        for _ in range(14):
            page.keyboard.press("Tab")
            where = page.evaluate(
                """() => { const e = document.activeElement;
                  const shown = (n) => { const r = n.getBoundingClientRect();
                    return r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0
                           && r.left < innerWidth && r.top < document.documentElement.scrollHeight; };
                  // a checkbox or radio drawn by the label right after it (Material's palette, our switches)
                  const labels = [e.id && document.querySelector(`label[for="${e.id}"]`),
                    e.nextElementSibling && e.nextElementSibling.tagName === "LABEL" && e.nextElementSibling];
                  return { what: e.tagName + "." + e.className,
                           closed: !!e.closest(".md-search__scrollwrap")
                             || (innerWidth < 960 && !!e.closest(".md-search"))
                             || (innerWidth < 1220 && !!e.closest(".md-sidebar--primary")),
                           shown: shown(e) || labels.some((l) => l && shown(l)) }; }"""
            )
            seen.append(where["what"])
            assert not where["closed"] and where["shown"], (seen, where)
        page.keyboard.press("Escape")
        page.evaluate("document.activeElement.blur()")
        page.keyboard.press("/")
        page.wait_for_function("document.activeElement && document.activeElement.matches('.md-search__input')")


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_help_lists_p_and_n_only_where_they_work(browser: Any, seed_url: str, lang: str) -> None:
    questions = said(lang, "上一题 / 下一题（本题库内）", "Previous / next question in this bank")
    pages = said(lang, "上一页 / 下一页（按目录顺序）", "Previous / next page (in menu order)")
    with reader(browser) as context:
        page = context.new_page()
        # a question (its bank's neighbours), the home page (Material's menu order), a bank page (neither)
        for layout in ("desktop", "phone"):
            page.set_viewport_size(LAYOUTS[layout])
            for path, label in ((QUESTION, questions), ("", pages), ("ai-infra-3/", None)):
                page.goto(root(seed_url, lang) + path)
                page.wait_for_load_state("load")
                page.keyboard.press("?")
                help_box = page.locator("dialog.qa-help[open]")
                help_box.wait_for()
                for text in (questions, pages):
                    assert help_box.get_by_text(text).count() == (text == label), (layout, path, text)
                page.keyboard.press("Escape")
                help_box.wait_for(state="detached")
        page.goto(root(seed_url, lang))  # where the help lists them by menu order, they go by menu order
        page.wait_for_load_state("load")
        page.keyboard.press("n")
        page.wait_for_url(root(seed_url, lang) + "tags/")


# --- offline: downloads, and the worker's pages ----------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_a_download_offline_says_so_beside_the_link(browser: Any, seed_url: str, lang: str) -> None:
    with reader(browser, viewport=PHONE, allow="ERR_INTERNET_DISCONNECTED") as context:
        page = context.new_page()
        page.goto(root(seed_url, lang))
        csv = page.locator('a[href$="ai-infra-3.csv"]').first
        with page.expect_download() as online:  # online, the link downloads as before
            csv.click()
        assert online.value.suggested_filename == "ai-infra-3.csv"
        context.set_offline(True)
        csv.click()
        note = page.locator(".qa-offline-note")
        note.wait_for()
        assert said(lang, "下载需要网络", "downloads need the network") in note.inner_text()
        assert page.url.split("#")[0] == root(seed_url, lang)  # still on the page, not the browser's error page


def test_offline_worker_pages_not_found_and_not_saved_in_dark(browser: Any, seed_site: Path) -> None:
    """Offline: an address the site never had gets the site's "not found" page; a page of the site not
    yet saved gets the "not saved" notice, both dark when the reader chose dark on the site."""
    from tests.test_offline import _poll, _Server, _wait_until_controlled

    context = browser.new_context(viewport=PHONE, color_scheme="light")
    try:
        page = context.new_page()
        with _Server(seed_site) as server:
            # two pages: the second registers the worker, which keeps what they loaded (and no other page)
            page.goto(server.url)
            page.goto(server.url + "en/")
            _wait_until_controlled(page)
            _poll(page, "async (u) => !!(await caches.match(u))", server.url + "en/")
            # the reader chose dark (Material keeps the palette under the site root)
            page.evaluate(
                """() => __md_set("__palette", {index: 2, color: {media: "(prefers-color-scheme: dark)", scheme: "slate"}})"""
            )
        context.set_offline(True)
        for prefix, missing, saved in (("", "页面不存在", "还没有离线保存"), ("en/", "Page not found", "not saved")):
            response = page.goto(server.url + prefix + "no-such-page/")
            assert response is not None and response.status == 404
            assert missing in page.inner_text("body")
            response = page.goto(server.url + prefix + QUESTION)
            assert response is not None and response.status == 503
            assert saved in page.inner_text("body")
            background = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
            assert background == "rgb(30, 33, 41)", background
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_axe_finds_nothing_on_the_readers_new_views(browser: Any, seed_url: str, lang: str, scheme: str) -> None:
    """The side-by-side view on a question page and the print edition, and the glossary with its tools
    (light at desktop width, dark at phone width, as tests/test_a11y.py)."""
    from tests.qualitykit import axe_problems
    from tests.test_a11y import LAYOUTS as AXE_LAYOUTS

    with reader(browser, viewport=AXE_LAYOUTS[scheme], color_scheme=scheme) as context:
        context.add_init_script(f"if (location.protocol === 'http:') localStorage.setItem('{BI_KEY}', '1')")
        page = context.new_page()
        problems: list[str] = []
        for name, path in (("question", QUESTION), ("print", "ai-infra-3/print/"), ("glossary", "glossary/")):
            page.goto(root(seed_url, lang) + path)
            page.wait_for_load_state("load")
            if name == "glossary":
                page.locator("#qa-gl-filter").fill("cache")
            else:
                page.wait_for_function("document.documentElement.classList.contains('qa-bi-on')")
            problems += axe_problems(page, name)
        assert problems == [], "\n".join(problems)


def test_screenshots_of_the_readers_pages(browser: Any, seed_url: str) -> None:
    """For a person to look at (tests/artifacts/reader-*.png): the home page, a question page with the
    side-by-side view on, and the glossary, in light and dark, phone and desktop, Chinese and English."""
    from tests.sitekit import ARTIFACTS

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shots = []
    for layout in ("phone", "desktop"):
        phone = layout == "phone"
        with reader(
            browser, viewport=LAYOUTS[layout], color_scheme="light", is_mobile=phone, has_touch=phone
        ) as context:
            context.add_init_script(f"if (location.protocol === 'http:') localStorage.setItem('{BI_KEY}', '1')")
            page = context.new_page()
            for lang in ("zh", "en"):
                for name, path in (("home", ""), ("question", QUESTION), ("glossary", "glossary/")):
                    page.emulate_media(color_scheme="light")
                    page.goto(root(seed_url, lang) + path)
                    page.wait_for_load_state("load")
                    if name == "question":
                        page.wait_for_function("document.documentElement.classList.contains('qa-bi-on')")
                    # one load, both schemes: the theme follows the system's scheme as it changes
                    for scheme, palette in (("light", "default"), ("dark", "slate")):
                        page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
                        page.wait_for_function("(p) => document.body.dataset.mdColorScheme === p", arg=palette)
                        sitekit.settle(page)
                        out = ARTIFACTS / f"reader-{name}-{lang}-{layout}-{scheme}.png"
                        page.screenshot(path=str(out))
                        shots.append(out)
    assert len(shots) == 24 and all(s.stat().st_size > 10_000 for s in shots)
