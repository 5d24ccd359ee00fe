"""Study mode as a reader uses it: self-quiz, marks and progress, export/import, mock interview, shortcuts."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from studysite.languages import LANGUAGES
from tests.sitekit import (
    ARTIFACTS,
    DESKTOP,
    LOOKS,
    PHONE,
    build_site,
    converted,
    copy_banks,
    reader,
    said,
    serve,
    settle,
)

MARKS_KEY = "qa-study@/:marks"  # version 1 (migrated into STUDY_KEY on first load)
STUDY_KEY = "qa-study@/:study"
QUIZ_KEY = "qa-study:quiz-mode"
UI = {
    "zh": {
        "hide": "隐藏答案",
        "show": "显示答案",
        "quiz": "测验模式",
        "know": "良好",
        "review": "重来",
        "undo": "撤销",
        "changed": "复习后有改动",
    },
    "en": {
        "hide": "Hide answer",
        "show": "Show answer",
        "quiz": "Quiz mode",
        "know": "Good",
        "review": "Again",
        "undo": "Undo",
        "changed": "changed since your last review",
    },
}
UI = converted(UI)  # 繁體中文: the Chinese wording converted, as its catalogue is


def goto(page: Any, url: str, ready: str = "") -> Any:
    page.goto(url)
    if ready:
        page.wait_for_selector(ready)
    return page


def qurl(base: str, lang: str, q: dict[str, Any]) -> str:
    return base + LANGUAGES[lang].root + q["url"]


def stored_marks(page: Any) -> dict[str, Any]:
    """The stored reviews as marks: the last grade of each card (Good/Easy: know, Again/Hard: review)."""
    raw = page.evaluate(f"localStorage.getItem({json.dumps(STUDY_KEY)})")
    cards = json.loads(raw)["cards"] if raw else {}
    return {
        slug: {"state": "know" if c["log"][-1]["g"] >= 3 else "review", "hash": c.get("hash", "")}
        for slug, c in cards.items()
        if c["log"]
    }


def meter_text(locator: Any) -> str:
    return re.sub(r"\s+", " ", locator.locator(".qa-meter__text").first.inner_text()).strip()


def known_text(lang: str, know: int, total: int) -> str:
    return said(lang, f"已学会 {know} / {total}", f"{know} / {total} learned")


# --- self-quiz ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_reveal_the_answer_by_click_and_by_key(browser: Any, seed_url: str, data: dict, lang: str) -> None:
    q = data[lang]["questions"][0]
    ui = UI[lang]
    with reader(browser) as context:
        page = goto(context.new_page(), qurl(seed_url, lang, q), ".qa-quiz")
        answer = page.locator("#qa-answer")
        assert answer.is_visible()  # quiz mode is off: the page reads as before
        page.locator(".qa-quiz").get_by_role("button", name=ui["hide"]).click()
        assert answer.is_hidden()
        cover = page.locator(".qa-cover")
        assert cover.is_visible()
        cover.get_by_role("button", name=ui["show"]).click()
        assert answer.is_visible() and cover.is_hidden()
        page.keyboard.press("a")
        assert answer.is_hidden()
        page.keyboard.press("a")
        assert answer.is_visible()


def test_quiz_mode_hides_every_answer_and_is_remembered(browser: Any, seed_url: str, data: dict) -> None:
    first, second, third = data["zh"]["questions"][:3]
    with reader(browser) as context:
        page = goto(context.new_page(), qurl(seed_url, "zh", first), ".qa-quiz")
        page.get_by_role("switch", name=UI["zh"]["quiz"]).check()
        assert page.locator("#qa-answer").is_hidden()
        page.keyboard.press("j")  # next question, with our shortcut
        page.wait_for_url(qurl(seed_url, "zh", second))
        page.wait_for_selector(".qa-quiz")
        assert page.locator("#qa-answer").is_hidden(), "quiz mode did not carry over to the next page"
        assert page.get_by_role("switch", name=UI["zh"]["quiz"]).is_checked()
        page.keyboard.press("a")
        assert page.locator("#qa-answer").is_visible()
        page.keyboard.press("k")  # previous question
        page.wait_for_url(qurl(seed_url, "zh", first))
        # the other language shares the setting (same origin)
        goto(page, qurl(seed_url, "en", third), ".qa-quiz")
        assert page.locator("#qa-answer").is_hidden()
        page.get_by_role("switch", name=UI["en"]["quiz"]).uncheck()
        assert page.locator("#qa-answer").is_visible()
        page.reload()
        page.wait_for_selector(".qa-quiz")
        assert page.locator("#qa-answer").is_visible()
        assert page.evaluate(f"localStorage.getItem({json.dumps(QUIZ_KEY)})") is None


def test_without_javascript_the_answer_is_simply_shown(browser: Any, seed_url: str, data: dict) -> None:
    q = data["zh"]["questions"][1]
    with reader(browser) as context:  # a reader who once turned quiz mode on...
        page = goto(context.new_page(), qurl(seed_url, "zh", q), ".qa-quiz")
        page.get_by_role("switch", name=UI["zh"]["quiz"]).check()
        state = context.storage_state()
    assert any(item["name"] == QUIZ_KEY for origin in state["origins"] for item in origin["localStorage"])
    with reader(browser, java_script_enabled=False, storage_state=state) as context:  # ...now without JS
        page = goto(context.new_page(), qurl(seed_url, "zh", q))
        assert page.locator("#qa-answer").is_visible()
        assert page.locator(".qa-quiz, .qa-cover").count() == 0
        goto(page, seed_url + "study/mock/")
        assert "需要启用 JavaScript" in page.inner_text("article")


# --- marks and progress ------------------------------------------------------------------------------


def test_marks_show_as_progress_on_bank_tags_and_home_pages_in_every_language(
    browser: Any, seed_url: str, data: dict
) -> None:
    qs = data["zh"]["questions"]
    know = [qs[0], qs[5]]
    review = [qs[2], qs[9]]
    with reader(browser) as context:
        page = context.new_page()
        goto(page, qurl(seed_url, "zh", know[0]), ".qa-marks .qa-grade__when:not(:empty)")
        page.locator(".qa-marks").get_by_role("button", name="简单").click()  # Easy: out for days
        goto(page, qurl(seed_url, "zh", review[0]), ".qa-marks")
        page.keyboard.press("1")  # Again: back in minutes, so due today
        onward = page.locator(".qa-marks").get_by_role("link", name="下一题")
        assert onward.evaluate("a => a.href") == page.locator("a[data-qa-key=next]").evaluate("a => a.href")
        # graded on the English pages: the same store (one for both languages)
        goto(page, qurl(seed_url, "en", know[1]), ".qa-marks")
        page.keyboard.press("4")
        goto(page, qurl(seed_url, "en", review[1]), ".qa-marks")
        page.locator(".qa-marks").get_by_role("button", name=re.compile("^Again")).click()
        # a grade undone leaves nothing behind
        other = qs[12]
        goto(page, qurl(seed_url, "zh", other), ".qa-pill[data-qa-card]")
        assert page.locator(".qa-pill").get_attribute("data-qa-card") == "new"
        page.keyboard.press("4")
        assert page.locator(".qa-pill").get_attribute("data-qa-card") == "later"
        page.get_by_role("button", name=UI["zh"]["undo"]).click()
        assert page.locator(".qa-pill").get_attribute("data-qa-card") == "new"

        marks = stored_marks(page)
        assert {s: m["state"] for s, m in marks.items()} == {
            know[0]["slug"]: "know",
            know[1]["slug"]: "know",
            review[0]["slug"]: "review",
            review[1]["slug"]: "review",
        }
        page.reload()  # grades survive a reload, in the other language too
        goto(page, qurl(seed_url, "zh", know[1]), ".qa-pill[data-qa-card]")
        assert page.locator(".qa-pill").get_attribute("data-qa-card") == "later"
        assert re.fullmatch(r"\d+ 天后复习", page.locator(".qa-pill").inner_text())

        state = {q["slug"]: "know" for q in know} | {q["slug"]: "review" for q in review}
        for lang in LANGUAGES.codes:
            prefix = seed_url + LANGUAGES[lang].root
            # the bank page: the bank's meter, a badge per question, the "due today" filter
            goto(page, prefix + data[lang]["banks"][0]["url"], ".qa-panel .qa-meter")
            panel = page.locator("[data-qa-progress=bank]")
            assert known_text(lang, 2, 14) in meter_text(panel)
            assert said(lang, "今天到期 2", "2 due today") in meter_text(panel)
            panel.locator("button[data-filter=due]").click()
            shown = page.locator(".qa-bank-list li:visible a")
            hrefs = sorted(a.split("/")[-2] for a in shown.evaluate_all("els => els.map(e => e.href)"))
            assert hrefs == sorted(q["slug"] for q in review)
            assert page.locator(".qa-bank-list li:visible .qa-badge--due").count() == 2
            panel.locator("button[data-filter=all]").click()
            assert page.locator(".qa-bank-list li:visible").count() == 14

            # the tags index: every tag's meter agrees with the marks
            goto(page, prefix + "tags/", "li .qa-meter")
            for tag in data[lang]["tags"]:
                members = [q for q in data[lang]["questions"] if tag["id"] in q["tags"]]
                k = sum(state.get(q["slug"]) == "know" for q in members)
                row = page.locator(".qa-index > li", has=page.locator(f'a[href="{tag["url"].removeprefix("tags/")}"]'))
                assert known_text(lang, k, len(members)) in meter_text(row), tag["name"]
            # a tag's page: the tag's meter, badges, and the "due today" filter over its questions
            tag = next(tag for tag in data[lang]["tags"] if any(tag["id"] in q["tags"] for q in review))
            members = [q for q in data[lang]["questions"] if tag["id"] in q["tags"]]
            goto(page, prefix + tag["url"], ".qa-panel .qa-meter")
            panel = page.locator("[data-qa-progress=bank]")
            k = sum(state.get(q["slug"]) == "know" for q in members)
            assert known_text(lang, k, len(members)) in meter_text(panel)
            panel.locator("button[data-filter=due]").click()
            visible = {
                a.split("/")[-2]
                for a in page.locator(".qa-bank-list li:visible a").evaluate_all("els => els.map(e => e.href)")
            }
            assert visible == {q["slug"] for q in review if tag["id"] in q["tags"]}

            # the home page: per bank, per tag, overall, and the list of questions to review
            goto(page, prefix, ".qa-panel .qa-meter")
            bank_link = page.locator(f'article li > a[href="{data[lang]["banks"][0]["url"]}"]')
            assert known_text(lang, 2, 14) in meter_text(bank_link.locator(".."))
            for tag in data[lang]["tags"]:
                members = [q for q in data[lang]["questions"] if tag["id"] in q["tags"]]
                k = sum(state.get(q["slug"]) == "know" for q in members)
                row = page.locator("article li", has=page.locator(f'a[href="{tag["url"]}"]'))
                assert known_text(lang, k, len(members)) in meter_text(row), tag["name"]
            home = page.locator("[data-qa-progress=home]")
            assert known_text(lang, 2, 14) in meter_text(home)
            home.locator("button[data-filter=due]").click()
            titles = home.locator(".qa-review-list a").all_inner_texts()
            by_slug = {q["slug"]: q["title"] for q in data[lang]["questions"]}
            assert sorted(titles) == sorted(by_slug[q["slug"]] for q in review)


def test_export_reset_import_gives_the_same_progress_back(
    browser: Any, seed_url: str, data: dict, tmp_path: Path
) -> None:
    qs = data["zh"]["questions"]
    with reader(browser, accept_downloads=True) as context:
        page = context.new_page()
        for q, key in ((qs[1], "4"), (qs[3], "1"), (qs[7], "4")):
            goto(page, qurl(seed_url, "zh", q), ".qa-marks")
            page.keyboard.press(key)
        goto(page, seed_url, "[data-qa-backup] button")
        before = stored_marks(page)
        assert len(before) == 3

        with page.expect_download() as download:
            page.get_by_role("button", name="导出进度").click()
        saved = tmp_path / download.value.suggested_filename
        download.value.save_as(saved)
        assert re.fullmatch(r"qa-progress-\d{4}-\d\d-\d\d\.json", saved.name)
        exported = json.loads(saved.read_text(encoding="utf-8"))
        assert exported["format"] == "qa-study-progress" and exported["version"] == 2
        assert set(exported["cards"]) == set(before)

        page.once("dialog", lambda d: d.dismiss())  # "cancel" keeps everything
        page.get_by_role("button", name="重置进度…").click()
        assert stored_marks(page) == before
        page.once("dialog", lambda d: d.accept())
        page.get_by_role("button", name="重置进度…").click()
        assert stored_marks(page) == {}
        assert known_text("zh", 0, 14) in meter_text(page.locator("[data-qa-progress=home]"))

        bad = tmp_path / "notes.json"
        bad.write_text('{"hello": 1}', encoding="utf-8")
        with page.expect_file_chooser() as chooser:
            page.get_by_role("button", name="导入进度…").click()
        chooser.value.set_files(bad)
        page.wait_for_selector("text=不是本站导出的进度文件")
        assert stored_marks(page) == {}

        # "another device": a fresh profile imports the file
        other = context.browser.new_context(viewport=DESKTOP)
        page2 = goto(other.new_page(), seed_url + "en/", "[data-qa-backup] button")
        with page2.expect_file_chooser() as chooser:
            page2.get_by_role("button", name="Import progress…").click()
        chooser.value.set_files(saved)
        page2.wait_for_selector("text=Merged the progress of 3 questions (3 new reviews), written and checked.")
        assert stored_marks(page2) == before
        assert known_text("en", 2, 14) in meter_text(page2.locator("[data-qa-progress=home]"))
        other.close()

        with page.expect_file_chooser() as chooser:
            page.get_by_role("button", name="导入进度…").click()
        chooser.value.set_files(saved)
        # the reset here is recorded and newer than every review in the file: it wins (as it would in a sync)
        page.wait_for_selector("text=已合并 3 道题的记录（新增 0 次复习），已写入并核对。")
        assert stored_marks(page) == {}


def test_a_question_changed_after_marking_is_flagged(browser: Any, seed_site: Path, tmp_path: Path) -> None:
    """Mark, rebuild the site with one answer edited, come back: that mark is flagged, the others not."""
    live = tmp_path / "live"
    shutil.copytree(seed_site, live)
    banks = copy_banks(tmp_path / "banks")
    text = (banks / "ai-infra-3.txt").read_text(encoding="utf-8")
    old = "通信原语：AllReduce、AllGather"
    assert text.count(old) == 1
    (banks / "ai-infra-3.txt").write_text(text.replace(old, "通信原语（常用）：AllReduce、AllGather"), encoding="utf-8")
    rebuilt = build_site(banks, tmp_path / "work", strict=False)  # warns: the changed Chinese leaves its English stale
    edited, untouched = "communication-primitives-nccl", "two-batch-overlap"
    before = json.loads((seed_site / "assets/qa/questions.json").read_text(encoding="utf-8"))
    after = json.loads((rebuilt / "assets/qa/questions.json").read_text(encoding="utf-8"))
    hashes = [{q["slug"]: q["hash"] for q in d["questions"]} for d in (before, after)]
    assert hashes[0][edited] != hashes[1][edited] and hashes[0][untouched] == hashes[1][untouched]

    with serve(live) as url, reader(browser) as context:
        context.route("**/*", lambda route: route.continue_())  # no HTTP cache: see the rebuilt files
        page = context.new_page()
        for slug in (edited, untouched):
            goto(page, f"{url}ai-infra-3/{slug}/", ".qa-marks")
            page.keyboard.press("4")
            assert page.locator(".qa-flag").is_hidden()
        shutil.rmtree(live)
        shutil.copytree(rebuilt, live)

        goto(page, f"{url}ai-infra-3/{edited}/", ".qa-marks")
        assert page.locator(".qa-flag").inner_text() == UI["zh"]["changed"]
        assert page.locator(".qa-changed").is_visible()
        goto(page, f"{url}en/ai-infra-3/{edited}/", ".qa-marks")
        assert page.locator(".qa-flag").inner_text() == UI["en"]["changed"]
        goto(page, f"{url}ai-infra-3/{untouched}/", ".qa-marks")
        assert page.locator(".qa-flag").is_hidden()

        goto(page, f"{url}ai-infra-3/", ".qa-panel .qa-meter")
        flagged = page.locator(".qa-bank-list li", has=page.locator(".qa-badge--changed"))
        assert flagged.count() == 1 and edited in flagged.locator("a").get_attribute("href")
        assert "有改动 1" in meter_text(page.locator("[data-qa-progress=bank]"))

        goto(page, f"{url}ai-infra-3/{edited}/", ".qa-marks")
        page.keyboard.press("3")  # read it again and grade it again: the flag goes
        assert page.locator(".qa-flag").is_hidden()
        assert stored_marks(page)[edited]["hash"] == hashes[1][edited]


# --- mock interview ----------------------------------------------------------------------------------


def test_mock_interview_of_three_questions_on_one_tag(browser: Any, seed_url: str, data: dict) -> None:
    d = data["zh"]
    tag = next(t for t in d["tags"] if t["id"] == "communication")
    members = {q["slug"]: q for q in d["questions"] if "communication" in q["tags"]}
    assert len(members) >= 3
    with reader(browser) as context:
        page = goto(context.new_page(), seed_url + "study/mock/", ".qa-mock__setup")
        page.locator(".qa-chip", has_text=tag["name"]).locator("input").check()
        assert page.locator(".qa-mock__available").inner_text() == f"可抽 {len(members)} 题"
        page.get_by_label("题数").fill("3")
        page.get_by_role("button", name="开始面试").click()

        asked = []
        for i, (how, grade) in enumerate((("click", "会"), ("key", "部分会"), ("click", "不会"))):
            page.wait_for_selector(".qa-mock__run")
            assert page.locator(".qa-mock__progress").inner_text() == f"第 {i + 1} / 3 题"
            title = page.locator(".qa-mock__question").inner_text()
            slug = next(s for s, q in members.items() if q["title"] == title)
            assert slug not in asked
            asked.append(slug)
            assert page.locator(".qa-mock__answer").is_hidden()
            if i == 0:  # the clock runs while the reader thinks
                page.wait_for_function("document.querySelector('.qa-mock__timer').textContent !== '0:00'")
            if how == "click":
                page.get_by_role("button", name="显示答案").click()
            else:
                page.keyboard.press("a")
            page.wait_for_selector(".qa-mock__answer .qa-answer > *")
            assert page.locator(".qa-mock__answer .qa-answer").inner_text().strip()
            if i == 1:
                page.keyboard.press("2")
            else:
                page.locator(".qa-mock__grade").get_by_role("button", name=grade, exact=True).click()

        summary = page.locator(".qa-mock__summary")
        summary.wait_for()
        line = summary.locator(".qa-mock__line").inner_text()
        assert line.startswith("3 题") and "会 1" in line and "部分会 1" in line and "不会 1" in line
        # only the topic of this run, each question once, retry and restart before the details
        assert summary.locator("tbody tr").count() == 1
        assert summary.locator(".qa-mock__weak li").count() == 2
        assert summary.locator(".qa-mock__actions").evaluate(
            "a => a.compareDocumentPosition(document.querySelector('.qa-mock__weak')) & Node.DOCUMENT_POSITION_FOLLOWING"
        )
        row = summary.locator(f'tr[data-tag="{tag["id"]}"]')
        assert row.locator("td").all_inner_texts() == ["1", "1", "1"]
        assert row.locator(".qa-badge").inner_text() == "薄弱"
        weak_links = summary.locator(f'.qa-mock__weak h4[data-tag="{tag["id"]}"] + ul a')
        assert sorted(h.split("/")[-2] for h in weak_links.evaluate_all("els => els.map(e => e.href)")) == sorted(
            asked[1:]
        )
        assert "会 = 良好（1 道），部分会 = 困难（1 道），不会 = 重来（1 道）" in summary.inner_text()

        marks = stored_marks(page)
        assert {s: marks[s]["state"] for s in asked} == {asked[0]: "know", asked[1]: "review", asked[2]: "review"}
        assert all(marks[s]["hash"] == members[s]["hash"] for s in asked)

        goto(page, seed_url + "study/mock/", ".qa-mock__last")  # the last summary stays available
        page.get_by_role("button", name="查看总结").click()
        assert page.locator(f'.qa-mock__summary tr[data-tag="{tag["id"]}"] td').all_inner_texts() == ["1", "1", "1"]

        goto(page, seed_url + "en/study/mock/", ".qa-mock__setup")  # and in English
        page.locator(".qa-chip", has_text="Communication").locator("input").check()
        page.get_by_label("Number of questions").fill("1")
        page.get_by_role("button", name="Start the interview").click()
        page.keyboard.press("a")
        page.keyboard.press("1")
        assert page.locator(".qa-mock__summary .qa-mock__line").inner_text().startswith("1 question ·")
        assert "No weak spots" in page.locator(".qa-mock__summary").inner_text()


# --- keyboard and random question --------------------------------------------------------------------


def test_shortcuts_do_nothing_while_typing_in_the_search_box(browser: Any, seed_url: str, data: dict) -> None:
    q = data["zh"]["questions"][4]
    with reader(browser) as context:
        page = goto(context.new_page(), qurl(seed_url, "zh", q), ".qa-quiz")
        page.keyboard.press("/")  # Material's own key opens its search and focuses the box
        assert page.evaluate("document.activeElement.tagName") == "INPUT"
        page.keyboard.type("a12ujkrq?")
        settle(page)  # every key's handlers have run: a shortcut that fired would have navigated or marked
        assert page.url == qurl(seed_url, "zh", q)
        assert page.evaluate("document.activeElement.value") == "a12ujkrq?"
        assert stored_marks(page) == {}
        assert page.locator("dialog.qa-help").count() == 0
        page.keyboard.press("Escape")
        page.locator("article.md-content__inner h1").click()
        page.keyboard.press("a")  # outside the box the same key works
        assert page.locator("#qa-answer").is_hidden()


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_help_overlay_lists_the_shortcuts(browser: Any, seed_url: str, data: dict, lang: str) -> None:
    q = data[lang]["questions"][6]
    with reader(browser) as context:
        page = goto(context.new_page(), qurl(seed_url, lang, q), ".qa-quiz")
        page.keyboard.press("?")
        dialog = page.get_by_role("dialog", name=said(lang, "键盘快捷键", "Keyboard shortcuts"))
        dialog.wait_for()
        sections = dialog.locator("section")
        ours = sections.nth(0).locator("kbd").all_inner_texts() + sections.nth(1).locator("kbd").all_inner_texts()
        assert sorted(ours) == sorted(["A", "1", "2", "3", "4", "U", "Q", "J", "K", "R", "?"])
        assert not set(ours) & {"F", "S", "/", "N", "P", ",", "."}, "a shortcut clashes with Material's"
        page.keyboard.press("Escape")
        expect(page.locator("dialog.qa-help")).to_have_count(0)  # waits: the dialog closes, then goes


def test_random_question_button_and_key(browser: Any, seed_url: str, data: dict) -> None:
    urls = {qurl(seed_url, "zh", q) for q in data["zh"]["questions"]}
    with reader(browser) as context:
        page = goto(context.new_page(), seed_url, ".qa-random")
        page.get_by_role("button", name="随机一题").click()
        page.wait_for_selector(".qa-quiz")
        first = page.url
        assert first in urls
        page.keyboard.press("r")
        page.wait_for_url(lambda u: u != first)
        assert page.url in urls
        goto(page, seed_url + "en/tags/", ".qa-random").get_by_role("button", name="Random question").click()
        page.wait_for_selector(".qa-quiz")
        assert page.url.removeprefix(seed_url + "en/") in {q["url"] for q in data["en"]["questions"]}


def test_study_mode_works_under_a_github_pages_subpath(browser: Any, seed_site: Path, data: dict) -> None:
    """Served at /ai-infra/ (a project site): data, links and marks all stay under that folder."""
    from tests.qualitykit import serve_pages

    q = data["zh"]["questions"][3]
    with serve_pages(seed_site) as url, reader(browser) as context:
        assert url.endswith("/ai-infra/")
        page = goto(context.new_page(), url + q["url"], ".qa-marks")
        page.keyboard.press("4")
        keys = page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('qa-study'))")
        assert keys == ["qa-study@/ai-infra/:study"]
        goto(page, url + "en/", ".qa-panel .qa-meter")
        assert known_text("en", 1, 14) in meter_text(page.locator("[data-qa-progress=home]"))
        page.keyboard.press("r")
        page.wait_for_selector(".qa-quiz")
        assert page.url.startswith(url + "en/ai-infra-3/")
        goto(page, url + "study/mock/", ".qa-mock__setup")
        page.get_by_label("题数").fill("1")
        page.get_by_role("button", name="开始面试").click()
        page.keyboard.press("a")
        page.wait_for_selector(".qa-mock__answer .qa-answer > *")
        href = page.locator(".qa-mock__open a").get_attribute("href")
        assert href.startswith(url + "ai-infra-3/")


# --- how it looks --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("device", "scheme"), LOOKS)
def test_screenshots_of_every_widget(browser: Any, seed_url: str, data: dict, scheme: str, device: str) -> None:
    """Each widget in light and dark, desktop and phone, into tests/artifacts/study-*.png; nothing overflows."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    qs = data["zh"]["questions"]
    seeded = {
        qs[i]["slug"]: {"state": state, "hash": qs[i]["hash"], "time": 1_700_000_000_000 + i}
        for i, state in ((0, "know"), (1, "know"), (2, "review"), (4, "know"), (8, "review"), (10, "know"))
    }
    phone = device == "phone"
    options = {"is_mobile": True, "has_touch": True} if phone else {}
    with reader(browser, viewport=PHONE if phone else DESKTOP, color_scheme=scheme, **options) as context:
        page = goto(context.new_page(), seed_url, "[data-qa-backup] button")
        page.evaluate(f"localStorage.setItem({json.dumps(MARKS_KEY)}, {json.dumps(json.dumps({'marks': seeded}))})")

        def shot(name: str, target: Any = None) -> None:
            if target is not None:
                target.scroll_into_view_if_needed()
                page.evaluate("window.scrollBy(0, -80)")
            settle(page)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= page.viewport_size["width"], f"{name}: page is {width}px wide"
            page.screenshot(path=str(ARTIFACTS / f"study-{name}-{device}-{scheme}.png"))

        goto(page, qurl(seed_url, "zh", qs[2]), ".qa-quiz")
        shot("question-marked", page.locator(".qa-quiz"))
        if phone:
            page.get_by_role("button", name="隐藏答案").click()
        else:
            page.keyboard.press("a")
        shot("question-hidden", page.locator(".qa-quiz"))
        goto(page, seed_url + "en/" + qs[3]["url"], ".qa-quiz")
        page.keyboard.press("2")
        shot("question-en", page.locator(".qa-marks"))

        goto(page, seed_url + "ai-infra-3/", ".qa-panel .qa-meter")
        page.locator("[data-qa-progress=bank] button[data-filter=due]").click()
        shot("bank", page.locator("[data-qa-progress=bank]"))
        goto(page, seed_url + "en/tags/", "li .qa-meter")
        shot("tags", page.locator("article"))
        goto(page, seed_url, ".qa-panel .qa-meter")
        page.locator("[data-qa-progress=home] button[data-filter=due]").click()
        shot("home-lists", page.locator("article h2").first)
        shot("home-panel", page.locator("[data-qa-progress=home]"))

        goto(page, seed_url + "study/mock/", ".qa-mock__setup")
        page.locator(".qa-chip", has_text="通信").locator("input").check()
        shot("mock-setup", page.locator(".qa-mock__setup"))
        page.get_by_label("题数").fill("2")
        page.get_by_role("button", name="开始面试").click()
        page.get_by_role("button", name="显示答案").click()
        page.wait_for_selector(".qa-mock__answer .qa-answer > *")
        shot("mock-question", page.locator(".qa-mock__head"))
        page.locator(".qa-mock__grade").get_by_role("button", name="部分会").click()
        page.get_by_role("button", name="显示答案").click()
        page.locator(".qa-mock__grade").get_by_role("button", name="不会").click()
        shot("mock-summary", page.locator(".qa-mock__summary"))

        goto(page, seed_url + "en/" + qs[5]["url"], ".qa-quiz")
        page.keyboard.press("?")  # a touch phone shows no button for the keys (a keyboard still opens the list)
        page.locator("dialog.qa-help").wait_for()
        shot("help")
