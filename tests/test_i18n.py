"""Every language is first-class: switcher stays on the question, each page speaks its own language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from studysite.enrich.convert import convert_text
from studysite.i18n import STRINGS
from studysite.languages import LANGUAGES
from tests.sitekit import ARTIFACTS, LOOKS, VIEWPORTS

QUESTIONS = [
    "ai-infra-3/two-batch-overlap/",
    "ai-infra-3/communication-primitives-nccl/",
    "ai-infra-3/porting-operators-ampere-architecture-hopper-architecture/",
]
CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")


def _switch(page: object, to: str) -> None:
    page.click(".md-header__option .md-select button")  # type: ignore[attr-defined]
    page.click(f'.md-select__link[hreflang="{to}"]')  # type: ignore[attr-defined]
    page.wait_for_load_state()  # type: ignore[attr-defined]


@pytest.mark.parametrize("path", QUESTIONS)
def test_switcher_lands_on_the_same_question(browser: object, seed_url: str, path: str) -> None:
    page = browser.new_page()  # type: ignore[attr-defined]
    page.goto(seed_url + path)
    zh_title = page.inner_text("article.md-content__inner h1")
    _switch(page, "en")
    assert page.url == seed_url + "en/" + path
    assert page.evaluate("document.documentElement.lang") == "en"
    en_title = page.inner_text("article.md-content__inner h1")
    assert en_title != zh_title and not CJK.search(en_title)
    _switch(page, "zh")
    assert page.url == seed_url + path
    assert page.inner_text("article.md-content__inner h1") == zh_title
    page.close()


@pytest.mark.parametrize("path", ["", *QUESTIONS, "ai-infra-3/", "tags/"])
def test_english_pages_show_no_chinese_ui_text(browser: object, seed_url: str, path: str) -> None:
    """Outside elements marked lang="zh" (the switcher's '中文'), an English page has no Chinese."""
    page = browser.new_page()  # type: ignore[attr-defined]
    page.goto(seed_url + "en/" + path)
    text = page.evaluate(
        """() => {
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        const out = [];
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const el = n.parentElement;
          if (el.closest('[lang^="zh"], script, style')) continue;
          out.push(n.textContent);
        }
        // attributes a reader meets: tooltips, labels, placeholders
        for (const el of document.querySelectorAll('[title], [aria-label], [placeholder]')) {
          // glossary tooltips name the term in the other language on purpose
          if (el.closest('[lang^="zh"]') || el.matches('abbr.qa-term')) continue;
          out.push(el.getAttribute('title') || '', el.getAttribute('aria-label') || '', el.getAttribute('placeholder') || '');
        }
        return out.join(' ');
    }"""
    )
    found = CJK.findall(text)
    assert not found, f"Chinese text on /en/{path}: {''.join(found)[:80]}"
    page.close()


# One page of every kind (overrides/main.html: home, question, review, mock, glossary, stats) and the 404 page.
KINDS = ["", QUESTIONS[0], "study/review/", "study/mock/", "glossary/", "study/stats/", "404.html"]


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_scripts_show_their_strings_not_their_keys(browser: object, seed_url: str, lang: str) -> None:
    """Each kind of page gives its scripts the strings of its language (studysite/strings/<lang>.yml): one
    a page lacked would show as its key (`study-quiz.show`), in the text or in a label or tooltip."""
    files = sorted({k.split(".")[1] for k in STRINGS if k.startswith("js.")})
    key = re.compile(rf"(?<![\w/.-])(?:{'|'.join(map(re.escape, files))}|study-[a-z-]+)\.[A-Za-z]\w*")
    page = browser.new_page()  # type: ignore[attr-defined]
    for path in KINDS:
        page.goto(seed_url + LANGUAGES[lang].root + path)
        page.wait_for_load_state("networkidle")
        page.keyboard.press("/")  # the search box's own strings
        shown = page.evaluate(
            """() => [document.body.innerText, ...[...document.querySelectorAll('[title], [aria-label], [placeholder]')]
                .map((el) => [el.title, el.getAttribute('aria-label'), el.placeholder].join(' '))].join(' ')"""
        )
        assert key.findall(shown) == [], f"/{lang}/{path}"
        assert page.evaluate("[QAStrings.lang, QAStrings.locale]") == [lang, STRINGS["locale"][lang]], path
    page.close()


def test_hreflang_alternates_are_absolute_and_per_page(seed_site: Path) -> None:
    html = (seed_site / "en" / QUESTIONS[0] / "index.html").read_text(encoding="utf-8")
    links = {lang: href for href, lang in re.findall(r'<link rel="alternate" href="([^"]+)" hreflang="([^"]+)"', html)}
    assert links["zh"] == "http://127.0.0.1:8000/" + QUESTIONS[0]
    assert links["en"] == "http://127.0.0.1:8000/en/" + QUESTIONS[0]
    assert links["zh-Hant"] == "http://127.0.0.1:8000/zh-Hant/" + QUESTIONS[0]  # the converted edition
    assert links["x-default"] == links["zh"]
    assert len(links) == len(LANGUAGES.items) + 1


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(("device", "scheme"), LOOKS)
def test_question_page_screenshots(browser: object, seed_url: str, lang: str, device: str, scheme: str) -> None:
    """Screenshots to look at (tests/artifacts/); the assertion is that nothing overflows horizontally."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    width = VIEWPORTS[device]["width"]
    page = browser.new_page(viewport={"width": width, "height": 900}, color_scheme=scheme)  # type: ignore[attr-defined]
    prefix = "" if lang == "zh" else "en/"
    page.goto(seed_url + prefix + QUESTIONS[2])
    page.screenshot(path=str(ARTIFACTS / f"question-{lang}-{scheme}-{width}.png"), full_page=True)
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0
    page.close()


def test_switcher_reaches_the_converted_edition_and_back(browser: object, seed_url: str) -> None:
    """The switcher lists every language of the table; 繁體中文 is the same question, converted, and says so."""
    page = browser.new_page()  # type: ignore[attr-defined]
    path = QUESTIONS[0]
    page.goto(seed_url + path)
    zh_title = page.inner_text("article.md-content__inner h1")
    _switch(page, "zh-Hant")
    assert page.url == seed_url + "zh-Hant/" + path
    assert page.evaluate("document.documentElement.lang") == "zh-TW"
    hant_title = page.inner_text("article.md-content__inner h1")
    assert hant_title == convert_text(zh_title, LANGUAGES["zh-Hant"].opencc) != zh_title  # 优化 -> 最佳化
    assert page.is_visible(".qa-converted")
    assert "OpenCC" in page.inner_text(".qa-converted")
    _switch(page, "zh")
    assert page.url == seed_url + path
    assert page.query_selector(".qa-converted") is None  # the Simplified pages carry no such line
    page.close()


HAN_FACES = {"zh": "Noto Sans CJK SC", "zh-Hant": "Noto Sans CJK TC"}
"""The face of Debian's fonts-noto-cjk each Chinese language's text must be drawn in: Simplified
Chinese forms for zh, Traditional for zh-Hant (the system's fallback drew both in the JP face)."""
PAGE_TEXT = ("article.md-content__inner h1", "#qa-answer > p", "#qa-answer li")
"""A question page's own text whose font is checked: its title, its answer's paragraphs and list items."""


def _faces(page: object, selector: str) -> set[str]:
    """The fonts chromium drew the text of the first element `selector` finds in (DevTools' "Rendered
    Fonts")."""
    cdp = page.context.new_cdp_session(page)  # type: ignore[attr-defined]
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        assert node, f"nothing matches {selector}"
        return {font["familyName"] for font in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]}
    finally:
        cdp.detach()


def test_each_language_is_drawn_in_a_font_of_its_own_script(browser: object, seed_url: str) -> None:
    """Chinese text in its own Chinese face, by the language of the text: a Chinese page's title and
    answer, Chinese in code (whose Latin keeps the monospaced font it had), the Chinese beside an
    English answer and the switcher's 中文 and 繁體中文 on an English page; an English page's own text
    in no CJK face. Latin words may be in any font the machine has for Material's Latin names (Debian
    here has none, so the Chinese face draws them; a machine with Liberation Sans, as Arial, uses it)."""
    chinese = {item.lang for item in LANGUAGES.items if item.html_lang.startswith("zh")}
    assert chinese == set(HAN_FACES), "a Chinese language without its expected face here"

    def cjk(faces: set[str]) -> set[str]:
        return {name for name in faces if "CJK" in name}

    page = browser.new_page()  # type: ignore[attr-defined]
    path = QUESTIONS[0]
    for lang, face in HAN_FACES.items():
        page.goto(seed_url + LANGUAGES[lang].root + path)
        for selector in PAGE_TEXT:
            assert cjk(_faces(page, selector)) == {face}, (lang, selector)
        page.evaluate(
            """document.querySelector('#qa-answer li').insertAdjacentHTML(
                 'beforeend', '<code id="latin">x = y</code><code id="mixed">x = 直骨</code>')"""
        )
        latin, mixed = _faces(page, "#latin"), _faces(page, "#mixed")
        assert not cjk(latin) and mixed == latin | {face}, (lang, latin, mixed)
    page.goto(seed_url + "en/" + path)
    for selector in PAGE_TEXT:
        assert not cjk(_faces(page, selector)), selector
    for lang, face in HAN_FACES.items():
        assert cjk(_faces(page, f'.md-select__link[hreflang="{lang}"]')) == {face}, lang
    page.get_by_role("button", name="Side by side with Chinese").click()
    page.locator('.qa-bi-line[lang="zh"]').first.wait_for()
    assert cjk(_faces(page, '.qa-bi-line[lang="zh"]')) == {HAN_FACES["zh"]}
    page.close()


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_converted_edition_screenshots(browser: object, seed_url: str, device: str) -> None:
    """Screenshots of the 繁體中文 home and a question page to look at (tests/artifacts/); nothing overflows."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    width = VIEWPORTS[device]["width"]
    page = browser.new_page(viewport={"width": width, "height": 900})  # type: ignore[attr-defined]
    for name, path in (("home", ""), ("question", QUESTIONS[0])):
        page.goto(seed_url + "zh-Hant/" + path)
        page.screenshot(path=str(ARTIFACTS / f"zh-Hant-{name}-{width}.png"), full_page=False)
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, name
    page.close()
