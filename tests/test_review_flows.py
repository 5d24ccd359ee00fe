"""The daily review's edges as a reader meets them: grades whose dates a reader can see, the v1 migration,
filters over two banks, a session by touch, links inside answers, storage that fails, counts that add up."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from studysite.languages import LANGUAGES
from tests.sitekit import DESKTOP, PHONE, ROOT, build_site, converted, copy_banks, reader, serve
from tests.test_review import LANG_WIDTH_IDS, LANG_WIDTHS, V1_KEY, home_of, make_due, store, stored
from tests.test_study import UI as PAGE_UI
from tests.test_study import goto

TWO_BANKS = ROOT / "tests" / "fixtures" / "two-banks"
"""The seed banks plus net-basics, a short second bank (3 questions, two of them on communication)."""

UI = {
    "zh": {
        "counts": "今天到期 {due} 道 · 新题 {fresh} 道",
        "left": "还剩 {n} 道",
        "start": "开始复习",
        "show": "显示答案",
        "end": "结束复习",
        "tomorrow": "明天到期：{n} 道。",
        "done": "复习了 {n} 次（{n} 道题）",
        "quota": "存储空间已满",
        "unavailable": "不允许本站保存进度",
        "failed": "保存失败",
        "close": "关闭",
        "note": "我的笔记",
        "suspend": "暂停复习",
        "count": "题数",
        "mock_start": "开始面试",
        "today": "今天有 {due} 道题到期，",
        "units": {"分钟": 1, "小时": 60, "天": 1440, "个月": 43_200, "年": 525_600},
        "graded": "已记为“{grade}”",
        "grades": ["重来", "困难", "良好", "简单"],
    },
    "en": {
        "counts": "{due} due today · {fresh} new",
        "left": "{n} left",
        "start": "Start the review",
        "show": "Show answer",
        "end": "End the review",
        "tomorrow": "Due tomorrow: {n}.",
        "done": "{n} reviews ({n} questions)",
        "quota": "storage is full",
        "unavailable": "does not let the site store progress",
        "failed": "Not saved",
        "close": "Close",
        "note": "My note",
        "suspend": "Suspend",
        "count": "Number of questions",
        "mock_start": "Start the interview",
        "today": "{due} due today, ",
        "units": {"min": 1, "h": 60, "d": 1440, "mo": 43_200, "y": 525_600},
        "graded": "Graded “{grade}”",
        "grades": ["Again", "Hard", "Good", "Easy"],
    },
}
UI = converted(UI)  # 繁體中文: the Chinese wording converted, as its catalogue is
DAY = 86_400_000


# --- 1. what a grade does, seen in each language at each width ---------------------------------------


def test_the_grade_buttons_show_later_dates_for_better_grades_and_the_store_keeps_them(
    browser: Any, seed_url: str, data: dict
) -> None:
    """One profile, four pages: zh/en at phone/desktop width, each a new question graded 1, 2, 3 or 4."""
    spans = {}
    with reader(browser) as context:
        page = context.new_page()
        for g, (lang, viewport) in enumerate(LANG_WIDTHS, start=1):
            ui = UI[lang]
            q = data[lang]["questions"][g + 2]
            page.set_viewport_size(viewport)
            goto(page, home_of(seed_url, lang) + q["url"], ".qa-marks .qa-grade__when:not(:empty)")
            buttons = page.locator(".qa-marks .qa-grade")
            assert [b.split()[0] for b in buttons.all_inner_texts()] == ui["grades"]
            minutes = [
                _minutes(text, ui["units"]) for text in page.locator(".qa-marks .qa-grade__when").all_inner_texts()
            ]
            assert minutes == sorted(minutes) and minutes[0] < minutes[3], (lang, minutes)
            page.keyboard.press(str(g))
            status = page.locator(".qa-marks__status")
            assert status.inner_text().startswith(ui["graded"].format(grade=ui["grades"][g - 1])), status.inner_text()
            card = store(page, "S.card(arg)", q["slug"])
            assert card["reviews"] == 1
            spans[g] = card["due"] - card["last"]
            # what the button promised is what was stored, and what the page says after (to their rounding)
            for shown in (minutes[g - 1], _minutes(status.inner_text(), ui["units"])):
                assert abs(shown - spans[g] / 60_000) <= max(1, 0.1 * shown), (lang, shown, spans[g])
    assert spans[1] < spans[2] < spans[3] < spans[4], spans
    assert spans[4] > 2 * DAY and spans[1] < 10 * 60_000


@pytest.mark.parametrize(("lang", "viewport"), LANG_WIDTHS, ids=LANG_WIDTH_IDS)
def test_v1_marks_migrate_and_show_in_each_language_and_width(
    browser: Any, seed_url: str, data: dict, lang: str, viewport: dict
) -> None:
    qs = data[lang]["questions"]
    marks = {
        qs[0]["slug"]: {"state": "know", "hash": qs[0]["hash"], "time": 1_700_000_000_000},
        qs[1]["slug"]: {"state": "review", "hash": "oldhash", "time": 1_700_000_500_000},
    }
    with reader(browser, viewport=viewport) as context:
        context.add_init_script(
            "if (location.protocol === 'http:' && !sessionStorage.getItem('seeded')) {"
            " sessionStorage.setItem('seeded', '1');"
            f" localStorage.setItem({json.dumps(V1_KEY)}, {json.dumps(json.dumps({'version': 1, 'marks': marks}))}); }}"
        )
        page = goto(context.new_page(), home_of(seed_url, lang) + qs[1]["url"], ".qa-pill[data-qa-card]")
        # the "review again" mark of an answer since changed: an Again review, flagged as changed
        page.locator(".qa-changed").wait_for()
        assert PAGE_UI[lang]["changed"] in page.locator(".qa-flag").inner_text()
        doc = stored(page)
        assert doc["cards"] == {
            qs[0]["slug"]: {"log": [{"t": 1_700_000_000_000, "g": 3}], "hash": qs[0]["hash"]},
            qs[1]["slug"]: {"log": [{"t": 1_700_000_500_000, "g": 1}], "hash": "oldhash"},
        }
        assert page.evaluate(f"localStorage.getItem({json.dumps(V1_KEY)})") is None
        assert store(page, "S.count()") == 2


# --- 2. the bank and tag filters, over two banks ------------------------------------------------------


@pytest.fixture(scope="module")
def two_banks_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A site of two banks (the seed's and net-basics), built once for this module."""
    work = tmp_path_factory.mktemp("two-banks")
    site = build_site(copy_banks(work / "banks", source=TWO_BANKS), work, strict=False)  # warns: unused terms
    with serve(site) as url:
        yield url


@pytest.mark.parametrize(
    ("lang", "viewport"),
    [("zh", PHONE), ("en", DESKTOP), ("zh-Hant", PHONE)],
    ids=["zh-phone", "en-desktop", "zh-Hant-phone"],
)
def test_the_review_keeps_exactly_the_cards_of_the_bank_and_tag_chosen(
    browser: Any, two_banks_url: str, lang: str, viewport: dict
) -> None:
    ui = UI[lang]
    prefix = home_of(two_banks_url, lang)
    with reader(browser, viewport=viewport) as context:
        page = goto(context.new_page(), prefix + "study/review/", ".qa-review__setup")
        d = page.evaluate("QAStudy.data().then((d) => ({banks: d.banks, questions: d.questions}))")
        assert [b["id"] for b in d["banks"]] == ["ai-infra-3", "net-basics"]
        qs = d["questions"]
        # due: two of each bank on communication, one of each bank on something else
        by_bank = {b["id"]: [q for q in qs if q["bank"] == b["id"]] for b in d["banks"]}
        due = []
        for bank in by_bank.values():
            due += [q for q in bank if "communication" in q["tags"]][:2]
            due += [q for q in bank if "communication" not in q["tags"]][:1]
        make_due(page, [q["slug"] for q in due], {q["slug"]: q["hash"] for q in qs})
        page.evaluate("QAStudy.store.setSettings({newPerDay: 0})")
        page.reload()
        counts = page.locator(".qa-review__counts")
        page.wait_for_selector(".qa-review__counts:not(:empty)", state="attached")  # added by the page's script
        assert counts.inner_text() == ui["counts"].format(due=6, fresh=0)
        cases = [
            ("net-basics", "", [q for q in due if q["bank"] == "net-basics"]),
            ("", "communication", [q for q in due if "communication" in q["tags"]]),
            (
                "net-basics",
                "communication",
                [q for q in due if q["bank"] == "net-basics" and "communication" in q["tags"]],
            ),
            (
                "ai-infra-3",
                "communication",
                [q for q in due if q["bank"] == "ai-infra-3" and "communication" in q["tags"]],
            ),
        ]
        for bank, tag, want in cases:
            page.locator("#qa-review-bank").select_option(bank)
            page.locator("#qa-review-tag").select_option(tag)
            assert counts.inner_text() == ui["counts"].format(due=len(want), fresh=0), (bank, tag)
        # the last filter's session asks exactly its cards, each once, and nothing else
        page.get_by_role("button", name=ui["start"]).click()
        asked = []
        while page.locator(".qa-review__summary").count() == 0:
            asked.append(page.locator(".qa-review__question").inner_text())
            page.keyboard.press("a")
            page.wait_for_selector(".qa-review__grade:not([hidden])")
            page.keyboard.press("4")
        assert sorted(asked) == sorted(q["title"] for q in want)


# --- 3 and 7. a session by touch, and a summary whose "due tomorrow" the store agrees with -------------


@pytest.mark.parametrize(
    ("lang", "viewport"),
    [("en", PHONE), ("zh", PHONE), ("zh-Hant", PHONE)],
    ids=["en-phone", "zh-phone", "zh-Hant-phone"],
)
def test_a_review_by_touch_from_start_to_summary_and_its_due_tomorrow_count(
    browser: Any, seed_url: str, data: dict, lang: str, viewport: dict
) -> None:
    qs = data[lang]["questions"]
    ui = UI[lang]
    hashes = {q["slug"]: q["hash"] for q in qs}
    with reader(browser, viewport=viewport, has_touch=True, is_mobile=True) as context:
        page = goto(context.new_page(), home_of(seed_url, lang) + "study/review/", ".qa-review__setup")
        make_due(page, [qs[0]["slug"], qs[1]["slug"], qs[2]["slug"]], hashes)
        store(page, "S.ready()")
        # two cards due tomorrow at noon (two Goods a day apart, timed from the interval the scheduler
        # gives), one of them suspended: the summary must count one
        off = page.evaluate(
            _DUE_TOMORROW_JS, {"slugs": [qs[5]["slug"], qs[6]["slug"]], "probe": qs[-1]["slug"], "hashes": hashes}
        )
        assert all(abs(ms) < 60_000 for ms in off), off  # both due at tomorrow's noon
        store(page, "S.setSuspended(arg, true)", qs[6]["slug"])
        page.evaluate("QAStudy.store.setSettings({newPerDay: 0})")
        page.reload()
        page.wait_for_function(
            "(want) => document.querySelector('.qa-review__counts').textContent === want",
            arg=ui["counts"].format(due=3, fresh=0),
        )
        page.get_by_role("button", name=ui["start"]).tap()
        for n in (3, 2):  # two of the three, by taps; then the session ended early, one left due today
            assert page.locator(".qa-review__left").inner_text() == ui["left"].format(n=n)
            page.locator(".qa-review__think").get_by_role("button", name=ui["show"]).tap()
            page.wait_for_selector(".qa-review__answer .qa-answer > *")
            page.locator(".qa-review__grade button[data-grade='4']").tap()
        page.get_by_role("button", name=ui["end"]).tap()
        summary = page.locator(".qa-review__summary")
        assert ui["done"].format(n=2) in summary.locator(".qa-review__line").inner_text()
        expected = page.evaluate(_COUNT_DUE_TOMORROW_JS)
        # the suspended one is not counted, the graded ones are later, the one left is due today
        assert expected == 1, expected
        assert summary.locator(".qa-review__tomorrow").inner_text() == ui["tomorrow"].format(n=expected)


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_the_home_pages_due_count_and_start_button_are_on_a_phones_first_screen(
    browser: Any, seed_url: str, data: dict, lang: str
) -> None:
    qs = data[lang]["questions"]
    with reader(browser, viewport=PHONE, has_touch=True, is_mobile=True) as context:
        page = goto(context.new_page(), home_of(seed_url, lang), ".qa-today__line")
        make_due(page, [qs[2]["slug"], qs[3]["slug"], qs[8]["slug"]], {q["slug"]: q["hash"] for q in qs})
        store(page, "S.setSuspended(arg, true)", qs[8]["slug"])
        page.reload()
        line = page.locator(".qa-today__line")
        page.wait_for_selector(".qa-today__line:not(:empty)", state="attached")  # added by the page's script
        due = page.evaluate(_COUNT_DUE_TODAY_JS)
        assert due == 2
        assert line.get_attribute("data-qa-due") == str(due)
        assert line.inner_text().startswith(UI[lang]["today"].format(due=due)), line.inner_text()
        start = page.locator(".qa-today__start")
        for node in (line, start):
            box = node.bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], box
        start.tap()
        page.wait_for_selector(".qa-review__setup")
        assert page.url == home_of(seed_url, lang) + "study/review/"


# --- 5. a link inside an answer during a session -------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "viewport"),
    [("zh", PHONE), ("en", DESKTOP), ("zh-Hant", PHONE)],
    ids=["zh-phone", "en-desktop", "zh-Hant-phone"],
)
def test_a_link_inside_an_answer_opens_beside_the_session(
    browser: Any, seed_url: str, data: dict, lang: str, viewport: dict
) -> None:
    """In a review and in a mock interview: the answer's link to another question opens in a new tab,
    and the session goes on in this one where it was."""
    qs = data[lang]["questions"]
    ui = UI[lang]
    home = home_of(seed_url, lang)
    comm = [q for q in qs if "communication" in q["tags"]]  # every one links another question
    with reader(browser, viewport=viewport) as context:
        page = goto(context.new_page(), home + "study/review/", ".qa-review__setup")
        make_due(page, [comm[0]["slug"], comm[1]["slug"]], {q["slug"]: q["hash"] for q in qs})
        page.evaluate("QAStudy.store.setSettings({newPerDay: 0})")
        page.reload()
        page.get_by_role("button", name=ui["start"]).click()
        page.keyboard.press("a")
        _click_an_inner_link(context, page, ".qa-review__answer .qa-answer", seed_url)
        assert page.locator(".qa-review__left").inner_text() == ui["left"].format(n=2)
        assert page.locator(".qa-review__answer .qa-answer").is_visible()  # still revealed, still here
        page.locator(".qa-review__grade button[data-grade='3']").click()
        assert page.locator(".qa-review__left").inner_text() == ui["left"].format(n=1)

        goto(page, home + "study/mock/", ".qa-mock__setup")
        tag = page.locator(".qa-chip input[value='communication']")
        tag.check()
        page.get_by_label(ui["count"]).fill("2")
        page.get_by_role("button", name=ui["mock_start"]).click()
        question = page.locator(".qa-mock__question").inner_text()
        page.keyboard.press("a")
        _click_an_inner_link(context, page, ".qa-mock__answer .qa-answer", seed_url)
        assert page.locator(".qa-mock__question").inner_text() == question
        assert page.locator(".qa-mock__answer .qa-answer").is_visible()
        page.keyboard.press("1")
        page.wait_for_function("(q) => document.querySelector('.qa-mock__question').textContent !== q", arg=question)
        assert page.locator(".qa-mock__run").is_visible()


def _click_an_inner_link(context: Any, page: Any, answer: str, seed_url: str) -> None:
    """Click (as a reader does) the first link in the answer to another page of this site; it opens
    in a new tab, which is closed again. The session's page stays where it was."""
    page.wait_for_selector(answer + " > *")
    before = page.url
    link = page.locator(f"{answer} a[href^='{seed_url}']").first
    target = link.get_attribute("href")
    with context.expect_page() as opened:
        link.click()
    tab = opened.value
    tab.wait_for_load_state()
    assert tab.url == target
    tab.close()
    assert page.url == before


# --- 6. storage that fails, in each new flow ---------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "lang", "viewport"),
    [("quota", "zh", PHONE), ("unavailable", "en", DESKTOP), ("forget", "zh", DESKTOP)],
    ids=["quota-zh-phone", "unavailable-en-desktop", "forget-zh-desktop"],
)
def test_storage_that_fails_is_told_in_every_study_flow(
    browser: Any, seed_url: str, data: dict, mode: str, lang: str, viewport: dict
) -> None:
    """quota: storage full (test_review's test_full_storage_* fills it for real); unavailable: localStorage throws on access (a blocked or private profile);
    forget: storage accepts the write and does not keep it (caught by the read-back). For a note,
    suspending, a grade, the daily new limit, a review session and a mock interview the page says so
    in its language, the page goes on, and what storage held stays whole."""
    qs = data[lang]["questions"]
    ui = UI[lang]
    home = home_of(seed_url, lang)
    said = ui["quota" if mode == "quota" else "unavailable"]
    with reader(browser, viewport=viewport, accept_downloads=True) as context:
        context.add_init_script(_BREAK_STORAGE_JS)
        page = goto(context.new_page(), home + qs[6]["url"], ".qa-pill[data-qa-card]")
        make_due(page, [qs[1]["slug"], qs[2]["slug"]], {q["slug"]: q["hash"] for q in qs})
        page.evaluate("QAStudy.store.setSettings({newPerDay: 0})")
        before = stored(page)

        def told(where: str) -> None:
            alert = page.locator(".qa-storage-alert[role=alert]")
            alert.wait_for()
            assert said in alert.inner_text(), (where, alert.inner_text())
            alert.get_by_role("button", name=ui["close"]).click()
            alert.wait_for(state="detached")

        _break(page, mode)
        if mode != "unavailable":
            # this page loads with storage failing too (where localStorage throws on access, the
            # theme's own scripts, Material's palette and bundle, fail on load: not ours to test here)
            page.reload()
            page.wait_for_selector(".qa-pill[data-qa-card]")
        page.get_by_text(ui["note"], exact=True).click()
        page.locator(".qa-mynote__text").fill("note")
        page.locator("article.md-content__inner h1").click()
        told("note")
        assert page.locator(".qa-mynote__status").inner_text().startswith(ui["failed"])
        page.get_by_role("button", name=ui["suspend"]).click()
        told("suspend")
        assert page.locator(".qa-marks__status").inner_text().startswith(ui["failed"])
        page.keyboard.press("3")
        told("grade")

        _mend(page)
        goto(page, home + "study/review/", ".qa-review__counts:not(:empty)")
        _break(page, mode)
        page.locator("#qa-review-new").fill("10")  # longer than what is stored: a full storage refuses it
        page.locator("#qa-review-new").blur()  # a change, as when the reader moves on
        told("daily new limit")
        counts = page.locator(".qa-review__counts")
        assert counts.inner_text() == ui["counts"].format(due=2, fresh=10)  # the limit applies on this page
        page.get_by_role("button", name=ui["start"]).click()
        told("review session")
        page.keyboard.press("a")
        told("review session, revealed")
        page.locator(".qa-review__grade button[data-grade='4']").click()
        told("review grade")
        assert page.locator(".qa-review__left").inner_text() == ui["left"].format(n=11)  # and it goes on

        _mend(page)
        goto(page, home + "study/mock/", ".qa-mock__setup")
        _break(page, mode)
        page.get_by_label(ui["count"]).fill("2")
        page.get_by_role("button", name=ui["mock_start"]).click()
        told("mock interview")
        page.keyboard.press("a")
        told("mock interview, revealed")
        page.keyboard.press("1")
        told("mock grade")
        assert page.locator(".qa-mock__run").is_visible()

        _mend(page)
        assert stored(page) == before  # storage kept what it had, whole


def _break(page: Any, mode: str) -> None:
    page.evaluate("(mode) => sessionStorage.setItem('qa-test-break', mode)", mode)


def _mend(page: Any) -> None:
    page.evaluate("sessionStorage.removeItem('qa-test-break')")


def _minutes(text: str, units: dict[str, int]) -> float:
    """The first span in `text` ("10 min", "3 天", "< 1 min", "不到 1 分钟") as minutes."""
    if re.search(r"< 1 min|不到 1 分钟", text):
        return 0.5
    names = "|".join(sorted(units, key=len, reverse=True))
    match = re.search(rf"([0-9.]+) ({names})(?![a-z])", text)
    assert match, text
    return float(match.group(1)) * units[match.group(2)]


# Storage that fails on demand: sessionStorage's "qa-test-break" says how ("quota": setItem throws the
# browser's QuotaExceededError, as test_stats' FULL_STORAGE does (a really full storage still takes a
# write no longer than the value it replaces); "unavailable": localStorage throws on access;
# "forget": setItem accepts and keeps nothing).
_BREAK_STORAGE_JS = """
(() => {
  const mode = () => sessionStorage.getItem("qa-test-break");
  const holder = Object.getOwnPropertyDescriptor(window, "localStorage") ? window : Window.prototype;
  const real = Object.getOwnPropertyDescriptor(holder, "localStorage").get;
  const setItem = Storage.prototype.setItem;
  Storage.prototype.setItem = function (key, value) {
    if (mode() === "quota" && this === real.call(window)) throw new DOMException("full", "QuotaExceededError");
    if (mode() === "forget" && this === real.call(window)) return undefined;
    return setItem.call(this, key, value);
  };
  Object.defineProperty(window, "localStorage", {
    configurable: true,
    enumerable: true,
    get() {
      if (mode() === "unavailable") throw new DOMException("The operation is insecure.", "SecurityError");
      return real.call(window);
    },
  });
})();
"""

# Cards due tomorrow at noon: a Good, then a second Good a day later, that day placed so that the
# interval the scheduler gives the second (measured on a probe card's identical history) ends then.
_DUE_TOMORROW_JS = """async ({slugs, probe, hashes}) => {
  const S = QAStudy.store, D = 86400000;
  const noon = new Date(); noon.setDate(noon.getDate() + 1); noon.setHours(12, 0, 0, 0);
  const doc = (cards) => ({format: "qa-study-progress", version: 2, site: "/", cards});
  await S.merge(doc({[probe]: {log: [{t: noon - 90 * D, g: 3}], hash: hashes[probe]}}));
  const interval = S.preview(probe, noon - 89 * D)[3] - (noon - 89 * D);
  S.reset(probe);
  const t0 = noon.getTime() - D - interval;
  const cards = {};
  for (const s of slugs) cards[s] = {log: [{t: t0, g: 3}, {t: t0 + D, g: 3}], hash: hashes[s]};
  await S.merge(doc(cards));
  return slugs.map((s) => S.card(s).due - noon.getTime());
}"""

# What the store holds, counted here rather than by the page's own code.
_COUNT_DUE_TOMORROW_JS = """() => {
  const S = QAStudy.store;
  const end = (days) => { const d = new Date(); d.setHours(24 * (1 + days), 0, 0, 0); return d.getTime() - 1; };
  return S.slugs().filter((s) => { const c = S.card(s); return !c.suspended && c.due > end(0) && c.due <= end(1); }).length;
}"""
_COUNT_DUE_TODAY_JS = """() => {
  const S = QAStudy.store;
  const d = new Date(); d.setHours(24, 0, 0, 0);
  return S.slugs().filter((s) => { const c = S.card(s); return !c.suspended && c.reviews > 0 && c.due < d.getTime(); }).length;
}"""
