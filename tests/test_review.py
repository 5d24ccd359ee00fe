"""The study engine as a reader uses it: the v2 progress store, FSRS grading, merging, notes, storage failures."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from studysite.i18n import STRINGS
from studysite.languages import LANGUAGES
from tests.qualitykit import axe_problems
from tests.sitekit import DESKTOP, LOOKS, PHONE, drop_requests, dropped_logged, reader, settle
from tests.test_study import goto

STUDY_KEY = "qa-study@/:study"
V1_KEY = "qa-study@/:marks"
DAY = 86_400_000


def store(page: Any, expression: str, arg: Any = None) -> Any:
    """Run `expression` with `S` = window.QAStudy.store (and `arg`) once the store is there."""
    page.wait_for_function("window.QAStudy && QAStudy.store")
    return page.evaluate(f"async (arg) => {{ const S = QAStudy.store; return {expression}; }}", arg)


def stored(page: Any) -> dict[str, Any]:
    raw = page.evaluate(f"localStorage.getItem({json.dumps(STUDY_KEY)})")
    return json.loads(raw) if raw else {}


def seed_before_scripts(context: Any, key: str, value: Any) -> None:
    """Put `value` under `key` before the first page's scripts run (once per browser profile)."""
    context.add_init_script(
        f"if (location.protocol === 'http:' && !sessionStorage.getItem('seeded')) {{"
        f" sessionStorage.setItem('seeded', '1');"
        f" localStorage.setItem({json.dumps(key)}, {json.dumps(json.dumps(value))}); }}"
    )


def fill_storage(page: Any) -> None:
    """Fill this origin's localStorage to the brim (another site on the same origin could)."""
    page.evaluate(
        """() => {
        let chunk = "x".repeat(1 << 20), i = 0;
        while (chunk.length) {
          try { localStorage.setItem("filler:" + i++, chunk); }
          catch (e) { chunk = chunk.slice(0, chunk.length >> 1); }
        }
      }"""
    )


# --- the store ---------------------------------------------------------------------------------------


def test_v1_marks_migrate_once_into_reviews(browser: Any, seed_url: str, data: dict) -> None:
    qs = data["zh"]["questions"]
    marks = {
        qs[0]["slug"]: {"state": "know", "hash": qs[0]["hash"], "time": 1_700_000_000_000},
        qs[1]["slug"]: {"state": "review", "hash": "oldhash", "time": 1_700_000_500_000},
    }
    with reader(browser) as context:
        seed_before_scripts(context, V1_KEY, {"version": 1, "marks": marks})
        page = goto(context.new_page(), seed_url + "tags/")
        store(page, "S.count()")
        doc = stored(page)
        assert doc["format"] == "qa-study-progress" and doc["version"] == 2 and doc["site"] == "/"
        assert doc["cards"] == {
            qs[0]["slug"]: {"log": [{"t": 1_700_000_000_000, "g": 3}], "hash": qs[0]["hash"]},
            qs[1]["slug"]: {"log": [{"t": 1_700_000_500_000, "g": 1}], "hash": "oldhash"},
        }
        assert page.evaluate(f"localStorage.getItem({json.dumps(V1_KEY)})") is None
        page.reload()  # once: a second load does not add the reviews again
        assert store(page, "S.count()") == 2
        assert store(page, "S.ready().then(() => S.card(arg).state)", qs[0]["slug"]) in ("learning", "review")
        assert store(page, "S.changed(arg[0], arg[1])", [qs[1]["slug"], qs[1]["hash"]]) is True


def test_due_dates_move_with_the_grade(browser: Any, seed_url: str, data: dict) -> None:
    qs = data["zh"]["questions"]
    with reader(browser) as context:
        page = goto(context.new_page(), seed_url)
        store(page, "S.ready()")
        due = {}
        for g, q in zip((1, 2, 3, 4), qs[:4], strict=True):
            store(page, "S.grade(arg[0], arg[1], arg[2])", [q["slug"], g, q["hash"]])
            due[g] = store(page, "S.card(arg).due - Date.now()", q["slug"])
        assert 0 < due[1] < due[2] < due[3] < due[4], due
        assert due[4] > 2 * DAY  # Easy on a new card: days, not minutes (FSRS defaults)
        assert due[1] < 10 * 60_000  # Again: minutes
        # a second Good a day later pushes the card further out than the first did
        first = store(page, "S.card(arg).due", qs[2]["slug"])
        page.evaluate("(ms) => { const now = Date.now; Date.now = () => now() + ms; }", DAY)
        store(page, "S.grade(arg, 3)", qs[2]["slug"])
        again = store(page, "S.card(arg)", qs[2]["slug"])
        assert again["due"] - again["last"] > first - store(page, "S.card(arg).firstReview", qs[2]["slug"])
        assert again["reviews"] == 2 and again["state"] == "review"
        # due(now) lists the cards whose time has come; a suspended card is left out
        later = store(page, "S.due(Date.now() + 20 * 60000)")
        assert qs[0]["slug"] in later and qs[3]["slug"] not in later
        store(page, "S.setSuspended(arg, true)", qs[0]["slug"])
        assert qs[0]["slug"] not in store(page, "S.due(Date.now() + 20 * 60000)")
        store(page, "S.reset(arg)", qs[1]["slug"])
        assert store(page, "S.card(arg).state", qs[1]["slug"]) == "new"


def test_lookups_are_safe_for_any_slug(browser: Any, seed_url: str) -> None:
    with reader(browser) as context:
        page = goto(context.new_page(), seed_url)
        store(page, "S.ready()")
        for slug in ("constructor", "__proto__", "hasownproperty", "tostring", "valueof"):
            card = store(page, "S.card(arg)", slug)
            assert card["state"] == "new" and card["reviews"] == 0 and card["note"] == "", slug
            assert store(page, "S.changed(arg, 'h')", slug) is False
        for slug in ("constructor", "hasownproperty", "tostring", "valueof"):  # slug-shaped names
            store(page, "S.grade(arg, 3)", slug)
            store(page, "S.setNote(arg, 'n')", slug)
            assert store(page, "S.card(arg).reviews", slug) == 1
        # "__proto__" is no slug (the build never makes one): refused with a message, nothing stored
        refused = store(page, "(() => { try { S.grade('__proto__', 3); } catch (e) { return e.message; } })()")
        assert "bad grade" in refused
        page.reload()
        assert sorted(store(page, "S.slugs()")) == ["constructor", "hasownproperty", "tostring", "valueof"]
        assert store(page, "S.card('__proto__').reviews") == 0


def test_merge_docs_is_a_union_of_logs_and_newest_wins() -> None:
    """mergeDocs, the pure merge the sync and the progress link reuse, run in node on the shipped file."""
    import subprocess

    from tests.sitekit import ROOT

    script = r"""
      const vm = require("vm"), fs = require("fs");
      const ctx = {URL, JSON, Object, Math, Array, Date, Error, Promise, Map, location: {href: "http://x/"}, addEventListener() {},
                   document: {}, window: null};
      ctx.window = ctx; vm.createContext(ctx);
      ctx.QAStudy = {siteRoot: "http://x/", strings: () => (k) => k, el: () => null};
      vm.runInContext(fs.readFileSync(process.argv[1], "utf8"), ctx);
      const S = ctx.QAStudy.store;
      const phone = {format: "qa-study-progress", version: 2, site: "/", cards: {
        a: {log: [{t: 10, g: 3}, {t: 30, g: 1}], hash: "h2", note: {text: "phone", t: 50}},
        b: {log: [{t: 5, g: 2}], reset: 20}, c: {log: [{t: 7, g: 4}], suspended: {on: true, t: 8}},
        d: {log: [{t: 60, g: 3}], undone: ["70:1"]}}};
      const laptop = {format: "qa-study-progress", version: 2, site: "/", cards: {
        a: {log: [{t: 10, g: 3}, {t: 20, g: 4}], hash: "h1", note: {text: "laptop", t: 40}},
        b: {log: [{t: 15, g: 3}, {t: 25, g: 3}]}, c: {suspended: {on: false, t: 9}},
        d: {log: [{t: 60, g: 3}, {t: 70, g: 1}]}}};
      const v = (d) => S.validate(d, null).doc;
      const m = S.mergeDocs(v(laptop), v(phone));
      const n = S.mergeDocs(v(phone), v(laptop));
      console.log(JSON.stringify({m, same: JSON.stringify(m) === JSON.stringify(n), laptop: v(laptop)}));
    """
    out = subprocess.run(
        ["node", "-e", script, str(ROOT / "overrides/assets/qa/study-store.js")],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(out.stdout)
    cards = result["m"]["cards"]
    assert cards["a"] == {
        "log": [{"t": 10, "g": 3}, {"t": 20, "g": 4}, {"t": 30, "g": 1}],
        "hash": "h2",  # from the newest review (the phone's)
        "note": {"text": "phone", "t": 50},
    }
    assert cards["b"] == {"log": [{"t": 25, "g": 3}], "reset": 20}  # the reset wins over older reviews
    assert cards["c"] == {"log": [{"t": 7, "g": 4}], "suspended": {"on": False, "t": 9}}
    # a review taken back on the phone (undo) stays gone, though the laptop still has it
    assert cards["d"] == {"log": [{"t": 60, "g": 3}], "undone": ["70:1"]}
    assert result["same"], "merge order changed the result"
    assert result["laptop"]["cards"]["a"]["log"] == [{"t": 10, "g": 3}, {"t": 20, "g": 4}]  # inputs untouched


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_failed_write_says_so_and_keeps_what_was_there(
    browser: Any, seed_url: str, data: dict, viewport: dict
) -> None:
    qs = data["en"]["questions"]
    with reader(browser, viewport=viewport) as context:
        page = goto(context.new_page(), seed_url + "en/", ".qa-panel")
        store(page, "S.grade(arg, 3)", qs[0]["slug"])
        before = stored(page)
        fill_storage(page)
        code = store(
            page, "(() => { try { S.grade(arg, 1); return 'saved'; } catch (e) { return e.code; } })()", qs[1]["slug"]
        )
        assert code == "quota"
        alert = page.get_by_role("alert")
        assert "NOT saved" in alert.inner_text()
        assert stored(page) == before  # what was there stays whole
        assert store(page, "S.unsaved()") is True
        with page.expect_download() as download:
            alert.get_by_role("button", name="Export progress").click()
        exported = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
        assert set(exported["cards"]) == {qs[0]["slug"], qs[1]["slug"]}  # the unsaved review is in the file
        # an import into a full store is refused as a whole and says so
        result = store(
            page,
            "S.merge(arg).then(() => 'merged', (e) => e.code)",
            {
                "format": "qa-study-progress",
                "version": 2,
                "site": "/",
                "cards": {qs[2]["slug"]: {"log": [{"t": 1, "g": 3}]}},
            },
        )
        assert result == "quota" and stored(page) == before


# --- the daily review ----------------------------------------------------------------------------------

REVIEW_UI = {
    "zh": {
        "counts": "今天到期 {due} 道 · 新题 {fresh} 道",
        "left": "还剩 {n} 道",
        "start": "开始复习",
        "show": "显示答案",
    },
    "en": {
        "counts": "{due} due today · {fresh} new",
        "left": "{n} left",
        "start": "Start the review",
        "show": "Show answer",
    },
    "zh-Hant": {
        "counts": "今天到期 {due} 道 · 新題 {fresh} 道",
        "left": "還剩 {n} 道",
        "start": "開始複習",
        "show": "顯示答案",
    },
}
REVIEW_DONE = {"zh": "复习了 3 次（3 道题）", "en": "3 reviews (3 questions)", "zh-Hant": "複習了 3 次（3 道題）"}


def make_due(page: Any, slugs: list[str], hashes: dict[str, str]) -> None:
    """Reviews ten days ago (one Good on a new card: due again ten minutes later), so these are due now."""
    doc = {
        "format": "qa-study-progress",
        "version": 2,
        "site": "/",
        "cards": {s: {"log": [{"t": 0, "g": 3}], "hash": hashes[s]} for s in slugs},
    }
    page.evaluate(
        "(doc) => { const t = Date.now() - 10 * 86400000;"
        " for (const c of Object.values(doc.cards)) c.log[0].t = t; return QAStudy.store.merge(doc); }",
        doc,
    )


@pytest.mark.parametrize(
    ("lang", "viewport"),
    [("zh", DESKTOP), ("en", PHONE), ("zh-Hant", PHONE)],
    ids=["zh-desktop", "en-phone", "zh-Hant-phone"],
)
def test_a_review_session_end_to_end(browser: Any, seed_url: str, data: dict, lang: str, viewport: dict) -> None:
    qs = data[lang]["questions"]
    ui = REVIEW_UI[lang]
    prefix = seed_url + LANGUAGES[lang].root
    hashes = {q["slug"]: q["hash"] for q in qs}
    with reader(browser, viewport=viewport) as context:
        page = goto(context.new_page(), prefix + "study/review/", ".qa-review__setup")
        make_due(page, [qs[3]["slug"], qs[7]["slug"]], hashes)
        page.reload()
        page.locator("#qa-review-new").fill("1")
        page.locator("#qa-review-new").dispatch_event("change")
        page.wait_for_function(
            "(want) => document.querySelector('.qa-review__counts').textContent === want",
            arg=ui["counts"].format(due=2, fresh=1),
        )
        page.get_by_role("button", name=ui["start"]).click()
        seen = []
        for i, how in enumerate(("click", "key", "key")):
            page.wait_for_selector(".qa-review__run")
            assert page.locator(".qa-review__left").inner_text() == ui["left"].format(n=3 - i)
            title = page.locator(".qa-review__question").inner_text()
            seen.append(next(q["slug"] for q in qs if q["title"] == title))
            assert page.locator(".qa-review__answer").is_hidden()
            assert page.locator(".qa-review__live").inner_text().endswith(title)  # told to a screen reader
            if how == "click":
                page.get_by_role("button", name=ui["show"]).click()
            else:
                page.keyboard.press("a")
            page.wait_for_selector(".qa-review__answer .qa-answer > *")
            grade_bar = page.locator(".qa-review__grade")
            when = grade_bar.locator(".qa-grade__when").all_inner_texts()
            assert len(when) == 4 and all(when), when  # each grade shows the interval it would give
            box = grade_bar.locator("button").first.bounding_box()
            assert box and box["height"] >= 44, box  # a thumb's size
            links = page.locator(".qa-review__answer a[href]")
            assert all(links.nth(k).get_attribute("target") == "_blank" for k in range(links.count()))
            if how == "click":
                grade_bar.locator("button[data-grade='3']").click()
            else:
                page.keyboard.press("4")
        assert seen[:2] == sorted(seen[:2], key=[qs[3]["slug"], qs[7]["slug"]].index) or set(seen[:2]) == {
            qs[3]["slug"],
            qs[7]["slug"],
        }
        assert seen[2] not in (qs[3]["slug"], qs[7]["slug"])  # then the new one
        summary = page.locator(".qa-review__summary")
        summary.wait_for()
        line = summary.locator(".qa-review__line").inner_text()
        assert REVIEW_DONE[lang] in line
        assert summary.locator(".qa-review__tomorrow").inner_text()
        doc = stored(page)
        for slug in seen:
            assert doc["cards"][slug]["hash"] == hashes[slug]
        assert [len(doc["cards"][s]["log"]) for s in seen] == [2, 2, 1]
        store(page, "S.ready()")
        for slug in seen:
            assert store(page, "S.card(arg).due - Date.now()", slug) > 12 * 3_600_000  # all out to later days
        # and the home page agrees: nothing due, the daily new question taken
        goto(page, prefix, ".qa-today__line")
        assert page.locator(".qa-today__line").get_attribute("data-qa-due") == "0"


SESSION_UI = {
    "zh": {
        "start": "开始复习",
        "resume": "继续复习",
        "discard": "放弃这次复习",
        "left": "还剩 {n} 道",
        "done": "复习了 {n} 次（{n} 道题）",
        "count": "题数",
        "mock_start": "开始面试",
        "mock_resume": "继续面试",
        "mock_discard": "放弃这次面试",
        "progress": "第 {i} / {n} 题",
        "mock_line": "3 题",
        "note": "我的笔记",
        "saved": "已保存。",
        "suspend": "暂停复习",
        "unsuspend": "恢复复习",
    },
    "en": {
        "start": "Start the review",
        "resume": "Resume the review",
        "discard": "Discard it",
        "left": "{n} left",
        "done": "{n} reviews ({n} questions)",
        "count": "Number of questions",
        "mock_start": "Start the interview",
        "mock_resume": "Resume the interview",
        "mock_discard": "Discard it",
        "progress": "Question {i} of {n}",
        "mock_line": "3 questions",
        "note": "My note",
        "saved": "Saved.",
        "suspend": "Suspend",
        "unsuspend": "Resume reviews",
    },
}
LANG_WIDTHS = [("zh", PHONE), ("en", DESKTOP), ("zh", DESKTOP), ("en", PHONE)]
LANG_WIDTH_IDS = ["zh-phone", "en-desktop", "zh-desktop", "en-phone"]


def home_of(seed_url: str, lang: str) -> str:
    return seed_url + LANGUAGES[lang].root


def follow_the_logo(page: Any) -> None:
    """Leave by the site's logo link, as a reader would: in the header, or on a phone in the menu."""
    logo = page.locator("a.md-header__button.md-logo")
    if not logo.is_visible():
        page.locator("label.md-header__button[for='__drawer']").click()
        logo = page.locator("a.md-nav__button.md-logo")
    logo.click()


@pytest.mark.parametrize(("lang", "viewport"), LANG_WIDTHS, ids=LANG_WIDTH_IDS)
def test_a_review_resumes_after_reload_a_link_click_and_a_closed_tab(
    browser: Any, seed_url: str, data: dict, lang: str, viewport: dict
) -> None:
    """Also Back then Forward, and the offer's discard (it clears the saved run, and only that)."""
    qs = data[lang]["questions"]
    ui = SESSION_UI[lang]
    home = home_of(seed_url, lang)
    hashes = {q["slug"]: q["hash"] for q in qs}
    with reader(browser, viewport=viewport) as context:
        page = goto(context.new_page(), home + "study/review/", ".qa-review__setup")
        make_due(page, [qs[1]["slug"], qs[2]["slug"], qs[4]["slug"]], hashes)
        page.evaluate("QAStudy.store.setSettings({newPerDay: 0})")
        # discard: a session started, one card graded, then thrown away on the offer
        page.reload()
        page.get_by_role("button", name=ui["start"]).click()
        page.keyboard.press("a")
        page.keyboard.press("3")
        left = "(want) => document.querySelector('.qa-review__left').textContent === want"
        page.wait_for_function(left, arg=ui["left"].format(n=2))
        page.reload()
        page.get_by_role("button", name=ui["discard"]).click()
        page.wait_for_selector(".qa-review__setup")
        assert page.locator(".qa-resume").count() == 0
        assert "queue" not in store(page, "S.session('review')")  # the saved run is gone from storage
        assert sum(len(c["log"]) for c in stored(page)["cards"].values()) == 4  # and the grade stays a review

        goto(page, home, ".qa-today__line")  # a page before the review, to come Forward to it
        goto(page, home + "study/review/", ".qa-review__counts:not(:empty)")
        page.get_by_role("button", name=ui["start"]).click()
        page.keyboard.press("a")
        page.keyboard.press("4")
        page.keyboard.press("a")
        page.wait_for_selector(".qa-review__answer .qa-answer > *")
        first = page.locator(".qa-review__question").inner_text()
        remaining = page.locator(".qa-review__left").inner_text()

        def resumed() -> None:
            page.get_by_role("button", name=ui["resume"]).click()
            assert page.locator(".qa-review__question").inner_text() == first
            assert page.locator(".qa-review__left").inner_text() == remaining
            page.wait_for_selector(".qa-review__answer .qa-answer > *")  # it was revealed: still revealed

        page.reload()  # 1. a reload: offered, and resumed where it was
        resumed()
        follow_the_logo(page)  # 2. a link away...
        page.wait_for_url(home)
        page.go_back()  # ...and Back
        resumed()
        page.go_back()  # 3. left by Back...
        page.wait_for_url(home)
        page.go_forward()  # ...and Forward again
        resumed()
        page.close()  # 4. the tab closed, the page opened again later
        page = goto(context.new_page(), home + "study/review/", ".qa-resume")
        resumed()
        graded = 1
        while page.locator(".qa-review__summary").count() == 0:
            page.keyboard.press("a")
            page.wait_for_selector(".qa-review__grade:not([hidden])")
            page.locator(".qa-review__grade button[data-grade='4']").click()
            graded += 1
        assert ui["done"].format(n=graded) in page.locator(".qa-review__line").inner_text()
        page.reload()  # finished: nothing left to resume
        page.wait_for_selector(".qa-review__setup")
        assert page.locator(".qa-resume").count() == 0
        assert page.get_by_role("button", name=ui["discard"]).count() == 0


@pytest.mark.parametrize(("lang", "viewport"), LANG_WIDTHS, ids=LANG_WIDTH_IDS)
def test_a_private_note_and_a_suspended_question(
    browser: Any, seed_url: str, data: dict, lang: str, viewport: dict
) -> None:
    qs = data[lang]["questions"]
    prefix = home_of(seed_url, lang)
    words = SESSION_UI[lang]
    with reader(browser, viewport=viewport) as context:
        page = goto(context.new_page(), prefix + qs[6]["url"], ".qa-pill[data-qa-card]")
        page.get_by_text(words["note"], exact=True).click()
        page.locator(".qa-mynote__text").fill("TP 切分的是权重矩阵 <b>not html</b>")
        page.locator("article.md-content__inner h1").click()  # leaving the box saves it
        page.wait_for_selector(f"text={words['saved']}")
        page.reload()
        page.wait_for_selector(".qa-mynote[open]")
        assert page.locator(".qa-mynote__text").input_value() == "TP 切分的是权重矩阵 <b>not html</b>"
        assert store(page, "S.snapshot().cards[arg].note.text", qs[6]["slug"]).startswith("TP 切分")
        assert "not html" in store(page, "S.exportText()")
        # suspended: out of the daily review even when due, until resumed
        make_due(page, [qs[6]["slug"]], {qs[6]["slug"]: qs[6]["hash"]})
        store(page, "S.ready()")
        due_now = "QAStudy.store.today({questions: [], bySlug: {[arg]: {bank: 'x', tags: []}}}, Date.now()).due"
        assert page.evaluate(f"(arg) => {due_now}", qs[6]["slug"]) == [qs[6]["slug"]]
        page.reload()
        page.get_by_role("button", name=words["suspend"]).click()
        assert page.locator(".qa-pill").get_attribute("data-qa-card") == "suspended"
        assert page.evaluate(f"(arg) => {due_now}", qs[6]["slug"]) == []
        page.get_by_role("button", name=words["unsuspend"]).click()
        assert page.locator(".qa-pill").get_attribute("data-qa-card") == "due"
        assert page.evaluate(f"(arg) => {due_now}", qs[6]["slug"]) == [qs[6]["slug"]]


@pytest.mark.parametrize(("lang", "viewport"), LANG_WIDTHS, ids=LANG_WIDTH_IDS)
def test_a_mock_interview_resumes_after_reload_and_a_link_click(
    browser: Any, seed_url: str, lang: str, viewport: dict
) -> None:
    """Also Back then Forward, and the offer's discard (it clears the saved run)."""
    ui = SESSION_UI[lang]
    home = home_of(seed_url, lang)
    progress = "(want) => document.querySelector('.qa-mock__progress').textContent === want"
    with reader(browser, viewport=viewport) as context:
        page = goto(context.new_page(), home, ".qa-today__line")
        goto(page, home + "study/mock/", ".qa-mock__setup")
        page.get_by_label(ui["count"]).fill("3")
        page.get_by_role("button", name=ui["mock_start"]).click()
        page.keyboard.press("a")
        page.wait_for_selector(".qa-mock__answer .qa-answer > *")
        page.keyboard.press("1")
        page.wait_for_function(progress, arg=ui["progress"].format(i=2, n=3))
        second = page.locator(".qa-mock__question").inner_text()
        page.keyboard.press("a")
        page.wait_for_selector(".qa-mock__answer .qa-answer > *")
        links = page.locator(".qa-mock__answer a[href]")
        assert all(links.nth(k).get_attribute("target") == "_blank" for k in range(links.count()))
        page.reload()
        page.get_by_role("button", name=ui["mock_resume"]).click()
        assert page.locator(".qa-mock__question").inner_text() == second
        page.wait_for_selector(".qa-mock__answer .qa-answer > *")  # it was revealed: still revealed
        follow_the_logo(page)
        page.wait_for_url(home)
        page.go_back()
        page.get_by_role("button", name=ui["mock_resume"]).click()
        assert page.locator(".qa-mock__progress").inner_text() == ui["progress"].format(i=2, n=3)
        page.wait_for_selector(".qa-mock__answer .qa-answer > *")
        page.go_back()  # left by Back, then Forward again: the same question, still revealed
        page.wait_for_url(home)
        page.go_forward()
        page.get_by_role("button", name=ui["mock_resume"]).click()
        assert page.locator(".qa-mock__question").inner_text() == second
        page.wait_for_selector(".qa-mock__answer .qa-answer > *")
        page.keyboard.press("2")
        page.keyboard.press("a")
        page.keyboard.press("3")
        page.locator(".qa-mock__summary").wait_for()
        assert page.locator(".qa-mock__line").inner_text().startswith(ui["mock_line"])
        page.reload()
        page.wait_for_selector(".qa-mock__setup")
        assert page.locator(".qa-resume").count() == 0
        # discard: a new run thrown away on the offer is gone from storage and from the page
        page.get_by_label(ui["count"]).fill("2")
        page.get_by_role("button", name=ui["mock_start"]).click()
        page.keyboard.press("a")
        page.keyboard.press("1")
        page.wait_for_function(progress, arg=ui["progress"].format(i=2, n=2))
        page.reload()
        page.get_by_role("button", name=ui["mock_discard"]).click()
        page.wait_for_selector(".qa-mock__setup")
        assert store(page, "S.session('mock')") is None
        page.reload()
        page.wait_for_selector(".qa-mock__setup")
        assert page.locator(".qa-resume").count() == 0


@pytest.mark.parametrize(("lang", "viewport"), [("zh", DESKTOP), ("en", PHONE)], ids=["zh-desktop", "en-phone"])
def test_a_revealed_answer_shows_the_note_after_it_or_says_it_did_not_load(
    browser: Any, seed_url: str, data: dict, lang: str, viewport: dict
) -> None:
    """The review and the mock interview fetch a question's answer from its page (study-core.js
    showAnswer): in the review the reader's note follows the answer, shown as text, then a link to the
    page; a page that does not load is said to have failed, the link kept and the grades offered."""
    qs = data[lang]["questions"]
    home = home_of(seed_url, lang)
    with_note, failing = qs[3], qs[7]
    note = "<b>TP</b> 先切权重"

    def said(view: str, key: str) -> str:
        return STRINGS[f"js.study-{view}.{key}"][lang]

    def parts(box: str) -> list[str]:
        return page.eval_on_selector_all(f"{box} > *", "(nodes) => nodes.map((n) => n.className)")

    def page_of(q: dict) -> Callable[[str], bool]:
        return lambda url: url.split("?")[0].endswith("/" + q["url"])

    with reader(browser, viewport=viewport, expected=dropped_logged) as context:
        drop_requests(context, page_of(failing))
        page = goto(context.new_page(), home + "study/review/", ".qa-review__setup")
        make_due(page, [with_note["slug"], failing["slug"]], {q["slug"]: q["hash"] for q in qs})
        store(page, "S.setNote(arg[0], arg[1])", [with_note["slug"], note])
        page.reload()
        page.locator("#qa-review-new").fill("0")
        page.locator("#qa-review-new").dispatch_event("change")
        page.wait_for_function(
            "(want) => document.querySelector('.qa-review__counts').textContent === want",
            arg=REVIEW_UI[lang]["counts"].format(due=2, fresh=0),
        )
        page.get_by_role("button", name=REVIEW_UI[lang]["start"]).click()
        shown = []
        for _ in range(2):
            title = page.locator(".qa-review__question").inner_text()
            q = next(q for q in (with_note, failing) if q["title"] == title)
            shown.append(q["slug"])
            page.keyboard.press("a")
            box = page.locator(".qa-review__answer")
            if q is with_note:
                page.wait_for_selector(".qa-review__answer .qa-answer > *")
                assert parts(".qa-review__answer") == ["qa-answer", "qa-review__note", "qa-mock__open"]
                assert box.locator(".qa-review__note p").last.inner_text() == note  # text, not markup
            else:
                box.get_by_text(said("review", "failed"), exact=True).wait_for()
                assert parts(".qa-review__answer") == ["", "qa-mock__open"]
            link = box.locator(".qa-mock__open a")
            assert link.inner_text() == said("review", "open") + " ↗"
            assert link.get_attribute("href").endswith("/" + q["url"]) and link.get_attribute("target") == "_blank"
            assert page.locator(".qa-review__grade").is_visible()
            page.keyboard.press("3")
            page.wait_for_function("(t) => document.querySelector('.qa-review__question')?.innerText !== t", arg=title)
        assert sorted(shown) == sorted([with_note["slug"], failing["slug"]])

        # the mock interview: every question page fails to load
        drop_requests(context, lambda url: any(page_of(q)(url) for q in qs))
        goto(page, home + "study/mock/", ".qa-mock__setup")
        page.get_by_label(SESSION_UI[lang]["count"]).fill("2")
        page.get_by_role("button", name=SESSION_UI[lang]["mock_start"]).click()
        title = page.locator(".qa-mock__question").inner_text()
        page.keyboard.press("a")
        box = page.locator(".qa-mock__answer")
        box.get_by_text(said("mock", "failed"), exact=True).wait_for()
        assert parts(".qa-mock__answer") == ["", "qa-mock__open"]
        q = next(q for q in qs if q["title"] == title)
        assert box.locator(".qa-mock__open a").inner_text() == said("mock", "open") + " ↗"
        assert box.locator(".qa-mock__open a").get_attribute("href").endswith("/" + q["url"])
        assert page.locator(".qa-mock__grade").is_visible()


def test_without_the_question_list_or_the_scheduler_grades_are_kept_and_sessions_say_why_not(
    browser: Any, seed_url: str, data: dict
) -> None:
    """Offline before the question list or the scheduler (ts-fsrs) was ever fetched: a question page
    still keeps a grade (without the interval it would give), and the review and the mock interview say
    they cannot start and why, where they used to say that an answer did not load; no script error."""
    q = data["en"]["questions"][2]
    with reader(browser, viewport=PHONE, expected=dropped_logged) as context:
        drop_requests(context, lambda url: "/vendor/ts-fsrs" in url or url.endswith("/questions.json"))
        page = goto(context.new_page(), seed_url + "en/" + q["url"], ".qa-marks")
        page.locator(".qa-marks button[data-grade='3']").click()
        status = page.locator(".qa-marks__status span").first
        assert status.inner_text() == STRINGS["js.study-quiz.gradedNoWhen"]["en"].format(
            grade=STRINGS["js.study-core.g3"]["en"]
        )
        assert [entry["g"] for entry in stored(page)["cards"][q["slug"]]["log"]] == [3]
        # (the button clicked left first: Material shows a hovered or focused button's title in a tooltip
        # that it puts at the end of the body, outside every landmark, which axe's `region` rule reports)
        page.mouse.move(0, 0)
        page.evaluate("document.activeElement.blur()")
        page.locator(".md-tooltip2--active").wait_for(state="detached")
        problems = axe_problems(page, "question graded without the scheduler")
        for path, view, lang in (("study/review/", "review", "zh"), ("study/mock/", "mock", "zh-Hant")):
            goto(page, home_of(seed_url, lang) + path, "[data-qa-unavailable]")
            said = page.locator("[data-qa-unavailable]")
            assert said.inner_text() == STRINGS[f"js.study-{view}.unavailable"][lang]
            assert said.get_attribute("role") == "alert"
            problems += axe_problems(page, f"{view} unavailable")
        assert [entry["g"] for entry in stored(page)["cards"][q["slug"]]["log"]] == [3]  # nothing lost
        assert problems == [], "\n".join(problems)


@pytest.mark.parametrize(("device", "scheme"), LOOKS)
def test_screenshots_of_the_review(browser: Any, seed_url: str, data: dict, scheme: str, device: str) -> None:
    """The review page, a question with its grades, the home's due line: tests/artifacts/review-*.png."""
    from tests.sitekit import ARTIFACTS

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    phone = device == "phone"
    options = {"is_mobile": True, "has_touch": True} if phone else {}
    qs = data["zh"]["questions"]
    hashes = {q["slug"]: q["hash"] for q in qs}
    with reader(browser, viewport=PHONE if phone else DESKTOP, color_scheme=scheme, **options) as context:
        page = goto(context.new_page(), seed_url + "study/review/", ".qa-review__setup")
        make_due(page, [qs[0]["slug"], qs[5]["slug"], qs[9]["slug"]], hashes)

        def shot(name: str) -> None:
            settle(page)  # the header's title fades between the site's and the page's as it scrolls
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= page.viewport_size["width"], f"{name}: page is {width}px wide"
            page.screenshot(path=str(ARTIFACTS / f"review-{name}-{device}-{scheme}.png"))

        for lang, prefix in (("zh", seed_url), ("en", seed_url + "en/")):
            goto(page, prefix, ".qa-today__line")
            shot(f"home-{lang}")
            goto(page, prefix + "study/review/", ".qa-review__setup")
            shot(f"setup-{lang}")
            page.locator(".qa-review__start").click()
            page.locator(".qa-review__think button").click()
            page.wait_for_selector(".qa-review__answer .qa-answer > *")
            page.locator(".qa-review__grade").scroll_into_view_if_needed()
            shot(f"graded-{lang}")
            page.locator(".qa-review__grade button[data-grade='3']").click()
            page.locator(".qa-review__end, .qa-mock__end").first.click()
            page.locator(".qa-review__summary").wait_for()
            shot(f"summary-{lang}")
            goto(page, prefix + "study/review/", ".qa-resume, .qa-review__setup")
            goto(page, prefix + qs[2]["url"], ".qa-marks .qa-grade__when:not(:empty)")
            page.locator(".qa-marks").scroll_into_view_if_needed()
            shot(f"question-{lang}")
            page.evaluate("document.querySelector('.qa-mynote').open = true")
            page.locator(".qa-mynote__text").fill("TP: 按列切分权重 / split the weights by column")
            page.locator(".qa-suspend").click()
            page.locator(".qa-card-tools").scroll_into_view_if_needed()
            shot(f"note-suspended-{lang}")
            page.locator(".qa-suspend").click()


# --- export and import: merge, never clobber ----------------------------------------------------------


def export_file(page: Any, name: str, tmp: Path) -> Path:
    with page.expect_download() as download:
        page.locator("[data-qa-backup] button[data-qa-action=export]").click()
    path = tmp / name
    download.value.save_as(path)
    return path


def import_file(page: Any, path: Path) -> str:
    status = page.locator(".qa-backup__status")
    before = status.inner_text()
    with page.expect_file_chooser() as chooser:
        page.locator("[data-qa-backup] button[data-qa-action=import]").click()
    chooser.value.set_files(path)
    page.wait_for_function(
        "(before) => { const s = document.querySelector('.qa-backup__status').textContent; return s && s !== before; }",
        arg=before,
        timeout=60_000,
    )
    return status.inner_text()


def test_a_phones_file_merges_into_a_laptops_store(browser: Any, seed_url: str, data: dict, tmp_path: Path) -> None:
    qs = data["zh"]["questions"]
    with (
        reader(browser, viewport=PHONE, accept_downloads=True) as phone_ctx,
        reader(browser, accept_downloads=True) as laptop_ctx,
    ):
        phone = goto(phone_ctx.new_page(), seed_url + "en/" + qs[0]["url"], ".qa-marks")
        phone.keyboard.press("3")
        goto(phone, seed_url + "en/" + qs[1]["url"], ".qa-marks")
        phone.keyboard.press("1")
        store(phone, "S.setNote(arg, 'from the phone')", qs[1]["slug"])
        laptop = goto(laptop_ctx.new_page(), seed_url + qs[0]["url"], ".qa-marks")
        laptop.keyboard.press("1")
        goto(laptop, seed_url + qs[2]["url"], ".qa-marks")
        laptop.keyboard.press("4")
        goto(phone, seed_url + "en/", "[data-qa-backup] button")
        phone_file = export_file(phone, "phone.json", tmp_path)
        exported = json.loads(phone_file.read_text(encoding="utf-8"))
        assert (
            exported["version"] == 2
            and exported["site"] == "/"
            and set(exported["cards"]) == {qs[0]["slug"], qs[1]["slug"]}
        )

        goto(laptop, seed_url, "[data-qa-backup] button")
        said = import_file(laptop, phone_file)
        assert said == "已合并 2 道题的记录（新增 2 次复习），已写入并核对。"
        cards = stored(laptop)["cards"]
        assert [e["g"] for e in cards[qs[0]["slug"]]["log"]] == [3, 1]  # both devices' reviews, in time order
        assert cards[qs[1]["slug"]]["note"]["text"] == "from the phone"
        assert [e["g"] for e in cards[qs[2]["slug"]]["log"]] == [4]  # the laptop's own, untouched
        said = import_file(laptop, phone_file)  # the same file again: nothing new, nothing doubled
        assert "新增 0 次复习" in said and [e["g"] for e in stored(laptop)["cards"][qs[0]["slug"]]["log"]] == [3, 1]

        laptop_file = export_file(laptop, "laptop.json", tmp_path)  # and back: both hold the same history
        assert "Merged the progress of 3 questions (2 new reviews)" in import_file(phone, laptop_file)
        assert stored(phone)["cards"] == stored(laptop)["cards"]


def test_import_checks_the_file_against_this_site(browser: Any, seed_url: str, data: dict, tmp_path: Path) -> None:
    qs = data["en"]["questions"]
    v1 = {
        "format": "qa-study-progress",
        "version": 1,
        "site": seed_url,
        "marks": {
            qs[0]["slug"]: {"state": "know", "hash": qs[0]["hash"], "time": 1_700_000_000_000},
            qs[1]["slug"]: {"state": "review", "hash": qs[1]["hash"], "time": 1_700_000_000_001},
            "not-on-this-site": {"state": "know", "hash": "x", "time": 1},
            "Bad Slug!": {"state": "know", "hash": "x", "time": 1},
            "constructor": {"state": "know", "hash": "x", "time": 1},
        },
    }
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(v1), encoding="utf-8")
    with reader(browser) as context:
        page = goto(context.new_page(), seed_url + "en/", "[data-qa-backup] button")
        said = import_file(page, path)
        assert said == (
            "Merged the progress of 2 questions (2 new reviews), written and checked. 3 more were not imported: "
            "2 questions this site does not have, 1 malformed question ids."
        )
        assert [e["g"] for e in stored(page)["cards"][qs[0]["slug"]]["log"]] == [3]
        assert [e["g"] for e in stored(page)["cards"][qs[1]["slug"]]["log"]] == [1]
        before = stored(page)

        other = dict(v1, version=2, site="/someone-else/", cards={qs[2]["slug"]: {"log": [{"t": 5, "g": 3}]}})
        path.write_text(json.dumps(other), encoding="utf-8")
        assert import_file(page, path) == "“v1.json” comes from another site (/someone-else/); nothing was imported."
        assert stored(page) == before

        # 120,000 marks of questions this site does not have: none is counted, none is stored
        junk = {f"q-{i}": {"state": "know", "hash": "h", "time": 1_700_000_000_000 + i} for i in range(120_000)}
        path.write_text(json.dumps({"format": "qa-study-progress", "version": 1, "marks": junk}), encoding="utf-8")
        said = import_file(page, path)
        assert said.startswith("Merged the progress of 0 questions (0 new reviews)") and "120000 questions" in said
        assert stored(page) == before


def test_full_storage_in_the_new_flows_is_told_and_nothing_is_lost(browser: Any, seed_url: str, data: dict) -> None:
    qs = data["zh"]["questions"]
    hashes = {q["slug"]: q["hash"] for q in qs}
    with reader(browser, viewport=PHONE, accept_downloads=True) as context:
        page = goto(context.new_page(), seed_url + qs[4]["url"], ".qa-marks .qa-grade__when:not(:empty)")
        fill_storage(page)
        page.keyboard.press("3")  # a grade on a question page
        assert "保存失败" in page.locator(".qa-marks__status").inner_text()
        assert "存储空间已满" in page.get_by_role("alert").inner_text()
        assert stored(page) == {}
        page.evaluate(
            "Object.keys(localStorage).filter(k => k.startsWith('filler:')).forEach(k => localStorage.removeItem(k))"
        )

        goto(page, seed_url + "study/review/", ".qa-review__setup")  # a review session
        make_due(page, [qs[1]["slug"], qs[2]["slug"]], hashes)
        page.evaluate("QAStudy.store.setSettings({newPerDay: 0})")
        page.reload()
        page.locator(".qa-review__start").click()
        before = stored(page)
        fill_storage(page)
        page.locator(".qa-review__think button").click()
        page.locator(".qa-review__grade button[data-grade='3']").click()
        alert = page.get_by_role("alert")
        assert "存储空间已满" in alert.inner_text()
        assert stored(page) == before  # storage keeps what was there
        assert page.locator(".qa-review__left").inner_text() == "还剩 1 道"  # and the session goes on
        with page.expect_download() as download:
            alert.get_by_role("button", name="导出进度").click()
        saved = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
        graded = [s for s in (qs[1]["slug"], qs[2]["slug"]) if len(saved["cards"][s]["log"]) == 2]
        assert len(graded) == 1  # the grade storage refused is in the file


@pytest.mark.parametrize(("lang", "scheme"), [("zh", "light"), ("en", "dark"), ("zh-Hant", "dark")])
def test_axe_finds_nothing_in_the_review(browser: Any, seed_url: str, data: dict, lang: str, scheme: str) -> None:
    """axe-core on each state of the review page (setup, resume offer, question answered, summary)."""
    from tests.qualitykit import axe_problems

    qs = data[lang]["questions"]
    prefix = seed_url + LANGUAGES[lang].root
    viewport = DESKTOP if scheme == "light" else PHONE
    with reader(browser, viewport=viewport, color_scheme=scheme) as context:
        page = goto(context.new_page(), prefix + "study/review/", ".qa-review__setup")
        make_due(page, [qs[0]["slug"], qs[1]["slug"]], {q["slug"]: q["hash"] for q in qs})
        page.evaluate("QAStudy.store.setSettings({newPerDay: 0})")
        page.reload()
        page.wait_for_selector(".qa-review__counts:not(:empty)")
        problems = axe_problems(page, "setup")
        page.locator(".qa-review__start").click()
        page.locator(".qa-review__think button").click()
        page.wait_for_selector(".qa-review__answer .qa-answer > *")
        page.wait_for_selector(".qa-review__grade .qa-grade__when:not(:empty)")
        problems += axe_problems(page, "question revealed")
        page.reload()
        page.wait_for_selector(".qa-resume")
        problems += axe_problems(page, "resume offer")
        page.locator(".qa-resume button[data-qa-action=resume]").click()
        page.locator(".qa-review__grade button[data-grade='4']").click()
        page.locator(".qa-review__think button").click()
        page.locator(".qa-review__grade button[data-grade='4']").click()
        page.locator(".qa-review__summary").wait_for()
        problems += axe_problems(page, "summary")
    assert problems == [], "\n".join(problems)


def test_quiz_reveal_is_the_first_half_of_a_review(browser: Any, seed_url: str, data: dict) -> None:
    q = data["en"]["questions"][8]
    with reader(browser, viewport=PHONE, has_touch=True, is_mobile=True) as context:
        page = goto(context.new_page(), seed_url + "en/" + q["url"], ".qa-quiz")
        page.get_by_role("switch", name="Quiz mode").check()
        assert page.locator(".qa-marks").is_hidden()  # no grade before the answer was seen
        page.keyboard.press("3")
        assert stored(page) == {}
        page.locator(".qa-cover").get_by_role("button", name="Show answer").tap()
        grades = page.locator(".qa-marks")
        assert grades.is_visible()
        page.wait_for_selector(".qa-marks .qa-grade__when:not(:empty)")
        grades.get_by_role("button", name=re.compile("^Good")).tap()
        assert [e["g"] for e in stored(page)["cards"][q["slug"]]["log"]] == [3]
        assert page.locator(".qa-marks__status").inner_text().startswith("Graded “Good”: next review in")
