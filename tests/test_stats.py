"""The stats page as a reader uses it: plots with their tables, notes search, the progress link and its
QR code on a second browser, and opt-in GitHub sync against a loopback stand-in of the contents API."""

from __future__ import annotations

import base64
import json
import re
import time
import zlib
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from studysite.i18n import STRINGS
from studysite.languages import LANGUAGES
from tests import sitekit
from tests.github_standin import ContentsAPI, contents_api
from tests.qualitykit import axe_problems
from tests.sitekit import ARTIFACTS, DESKTOP, LOOKS, PHONE, converted, drop_requests

SITE = "qa-study@/"
STUDY_KEY = SITE + ":study"
SYNC_KEY = SITE + ":sync"
TOKEN_KEY = SITE + ":sync-token"
API_KEY = SITE + ":sync-api"
DAY = 86400000
UI = {
    "zh": {
        "stats": "学习统计",
        "make": "生成进度链接",
        "qr": "显示二维码",
        "merge": "合并",
        "cancel": "不合并",
        "today": "今天（含逾期）",
        "on": "开启同步",
        "now": "立即同步",
        "off": "关闭同步并删除令牌",
        "bad": "已损坏或不完整",
        "toobig": "超出二维码的容量",
        "e401": "GitHub 拒绝了这个令牌（401）",
        "network": "网络错误",
        "full": "浏览器存储空间已满",
        "merged": "已合并进度链接",
        "tries": "重试 4 次后仍冲突",
        "synced": "上次同步：",
    },
    "en": {
        "stats": "Study stats",
        "make": "Make a progress link",
        "qr": "Show QR code",
        "merge": "Merge",
        "cancel": "Don't merge",
        "today": "Today (with overdue)",
        "on": "Turn on sync",
        "now": "Sync now",
        "off": "Turn off sync and delete the token",
        "bad": "damaged or incomplete",
        "toobig": "more than a QR code holds",
        "e401": "GitHub refused the token (401)",
        "network": "network error",
        "full": "The browser's storage is full",
        "merged": "Progress link merged",
        "tries": "(4 tries)",
        "synced": "Last synced: ",
    },
}
# 繁體中文's catalogue is zh.yml converted with OpenCC, as its pages are (studysite/strings/zh-Hant.yml)
UI = converted(UI)
LOCALES = {"zh": "zh-CN", "en": "en", "zh-Hant": "zh-TW"}
"""The locale each edition's dates are written in (the plots' and tables' day labels)."""


def reader(browser: Any, **options: Any) -> Any:
    """A fresh browser profile in sitekit.READER_ZONE (the plots' days are its days: noon()), failing
    on any script error but the refused requests the tests provoke."""
    return sitekit.reader(browser, expected=_expected, **options)


def _expected(text: str) -> bool:
    # the browser logs a refused request itself (a 401 or 409 the test provoked, a closed port)
    return "Failed to load resource" in text or "ERR_CONNECTION_REFUSED" in text


def stats_url(base: str, lang: str) -> str:
    return base + LANGUAGES[lang].root + "study/stats/"


def open_stats(context: Any, base: str, lang: str, ready: str = "[data-qa-stats] > *") -> Any:
    page = context.new_page()
    page.goto(stats_url(base, lang))
    page.wait_for_selector(ready)
    return page


def doc(cards: dict[str, Any]) -> dict[str, Any]:
    return {"format": "qa-study-progress", "version": 2, "site": "/", "cards": cards}


def merge(page: Any, document: dict[str, Any]) -> Any:
    return page.evaluate("d => QAStudy.store.merge(d)", document)


def snapshot(page: Any) -> dict[str, Any]:
    return page.evaluate("QAStudy.store.snapshot()")


def noon(days_ago: int) -> int:
    """ms at 12:00 `days_ago` days before today, in the browser's time zone (sitekit.READER_TZ)."""
    today = datetime.now(sitekit.READER_TZ).replace(hour=12, minute=0, second=0, microsecond=0)
    return int((today - timedelta(days=days_ago)).timestamp() * 1000)


def table(page: Any, name: str) -> list[list[str]]:
    return page.eval_on_selector(
        f'[data-qa-table="{name}"]',
        "t => [...t.tBodies[0].rows].map(r => [...r.cells].map(c => c.textContent.trim()))",
    )


def day_label(page: Any, ms: int, lang: str) -> str:
    locale = LOCALES[lang]
    return page.evaluate(
        "([ms, l]) => new Date(ms).toLocaleDateString(l, {weekday: 'short', month: 'short', day: 'numeric'})",
        [ms, locale],
    )


# --- 14.3 progress you can see -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "viewport"), [("zh", PHONE), ("en", DESKTOP), ("zh", DESKTOP), ("en", PHONE), ("zh-Hant", PHONE)]
)
def test_stats_plots_and_tables_show_the_reviews(
    browser: Any, seed_url: str, data: dict, lang: str, viewport: dict[str, int]
) -> None:
    qs = data[lang]["questions"]
    a, b, c = qs[0], qs[1], qs[2]
    cards = {
        a["slug"]: {"hash": a["hash"], "log": [{"t": noon(2), "g": 3}, {"t": noon(0) - 3600000, "g": 1}]},
        b["slug"]: {"hash": b["hash"], "log": [{"t": noon(10), "g": 4}, {"t": noon(40), "g": 2}]},
        c["slug"]: {"hash": c["hash"], "log": [{"t": noon(2), "g": 1}], "suspended": {"on": True, "t": noon(1)}},
    }
    with reader(browser, viewport=viewport) as context:
        page = open_stats(context, seed_url, lang)
        assert page.locator("[data-qa-stats-empty]").is_visible()  # nothing reviewed yet: says so
        merge(page, doc(cards))
        for name in ("reviews", "due", "recall"):
            page.wait_for_selector(f'[data-qa-plot-drawn="{name}"] canvas')
        # reviews per day: 30 rows ending today; the review 40 days ago is outside them
        rows = table(page, "reviews")
        assert len(rows) == 30
        counts = {label: int(n) for label, n in rows}
        assert counts[day_label(page, noon(0), lang)] == 1
        assert counts[day_label(page, noon(2), lang)] == 2
        assert counts[day_label(page, noon(10), lang)] == 1
        assert sum(counts.values()) == 4
        # cards due: 14 rows from today; the card graded Again today is due today; the suspended one is not counted
        due_rows = table(page, "due")
        assert len(due_rows) == 14 and due_rows[0][0] == UI[lang]["today"]
        dues = page.evaluate("s => s.map(x => new Date(QAStudy.store.card(x).due).getTime())", [a["slug"], b["slug"]])
        today = noon(0) - 12 * 3600000
        want = [0] * 14
        for due in dues:
            index = max(0, (due - today) // DAY)
            if index < 14:
                want[index] += 1
        assert [int(n) for _, n in due_rows] == want
        assert want[0] >= 1
        # recall by tag: reviews not graded Again over all reviews of the tag's questions
        tag_names = {tag["id"]: tag["name"] for tag in data[lang]["tags"]}
        expected: dict[str, list[int]] = {}
        for q, grades in ((a, [3, 1]), (b, [4, 2]), (c, [1])):
            for tag in q["tags"]:
                entry = expected.setdefault(tag_names[tag], [0, 0])
                entry[0] += sum(1 for g in grades if g > 1)
                entry[1] += len(grades)
        got = {label: (rate, int(n)) for label, rate, n in table(page, "recall")}
        assert got == {name: (f"{round(100 * ok / n)}%", n) for name, (ok, n) in expected.items()}
        # the plots are pictures for sighted readers; the tables are what a screen reader gets
        assert page.locator("[data-qa-plot]").evaluate_all(
            "ps => ps.every(p => p.getAttribute('aria-hidden') === 'true')"
        )
        box = page.locator('[data-qa-plot-drawn="reviews"] canvas').bounding_box()
        assert box and box["width"] > 200 and box["width"] <= viewport["width"]
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]


def test_plot_library_loads_on_the_stats_page_only(browser: Any, seed_url: str, data: dict) -> None:
    q = data["zh"]["questions"][0]
    # (no offline worker: it precaches every file of the site after a first visit, on purpose)
    with reader(browser, service_workers="block") as context:
        seen: list[str] = []
        context.on("request", lambda r: seen.append(r.url))
        page = context.new_page()
        for url in (seed_url, seed_url + q["url"], seed_url + "en/", seed_url + "study/mock/"):
            page.goto(url)
            page.wait_for_load_state("load")
        own = ("uPlot", "qrcode", "study-stats", "study-link", "study-sync", "stats.css")
        assert not [u for u in seen if any(name in u for name in own)]
        page.goto(seed_url + "study/stats/")
        page.wait_for_selector("[data-qa-stats] > *")
        merge(page, doc({q["slug"]: {"hash": q["hash"], "log": [{"t": noon(0), "g": 3}]}}))
        page.wait_for_selector('[data-qa-plot-drawn="reviews"]')
        assert [u for u in seen if u.endswith("/assets/qa/vendor/uPlot.iife.min.js")]
        assert not [u for u in seen if "qrcode" in u]  # the QR library waits for the QR button
        assert all(urlsplit(u).netloc == urlsplit(seed_url).netloc for u in seen)


@pytest.mark.parametrize(("lang", "viewport"), [("zh", DESKTOP), ("en", PHONE), ("zh-Hant", PHONE)])
def test_notes_search_finds_notes_and_shows_them_literally(
    browser: Any, seed_url: str, data: dict, lang: str, viewport: dict[str, int]
) -> None:
    a, b = data[lang]["questions"][:2]
    cards = {
        a["slug"]: {
            "hash": a["hash"],
            "log": [],
            "note": {"text": "NCCL ring <img src=x onerror=alert(1)>", "t": noon(1)},
        },
        b["slug"]: {"hash": b["hash"], "log": [], "note": {"text": "remember the roofline", "t": noon(0)}},
    }
    with reader(browser, viewport=viewport) as context:
        page = open_stats(context, seed_url, lang, "[data-qa-notes-search] input")
        merge(page, doc(cards))
        items = page.locator("[data-qa-note]")
        items.first.wait_for()
        assert items.count() == 2
        box = page.locator("[data-qa-notes-q]")
        box.fill("ring")
        page.wait_for_function("document.querySelectorAll('[data-qa-note]').length === 1")
        item = page.locator(f'[data-qa-note="{a["slug"]}"]')
        assert item.locator("mark").first.inner_text() == "ring"
        assert "<img src=x onerror=alert(1)>" in item.inner_text()
        assert page.locator("[data-qa-notes-list] img").count() == 0
        assert item.locator("a").get_attribute("href").endswith(a["url"])
        box.fill("nothing-like-this")
        page.wait_for_function("document.querySelectorAll('[data-qa-note]').length === 0")
        assert "nothing-like-this" in page.locator("#qa-notes-count").inner_text()


# --- 14.5 progress link and QR code --------------------------------------------------------------


def make_link(page: Any, lang: str) -> str:
    page.get_by_role("button", name=UI[lang]["make"]).click()
    page.wait_for_selector("[data-qa-link]")
    return page.locator("[data-qa-link]").input_value()


@pytest.mark.parametrize(("lang", "viewport"), [("zh", PHONE), ("en", DESKTOP), ("zh-Hant", PHONE)])
def test_progress_link_merges_on_a_second_browser_after_confirming(
    browser: Any, seed_url: str, data: dict, lang: str, viewport: dict[str, int]
) -> None:
    a, b, c = data[lang]["questions"][:3]
    laptop = {
        a["slug"]: {"hash": a["hash"], "log": [{"t": noon(3), "g": 3}], "note": {"text": "laptop note", "t": noon(3)}},
        b["slug"]: {"hash": b["hash"], "log": [{"t": noon(2), "g": 1}], "suspended": {"on": True, "t": noon(2)}},
    }
    phone = {
        a["slug"]: {"hash": a["hash"], "log": [{"t": noon(1), "g": 4}]},
        c["slug"]: {"hash": c["hash"], "log": [{"t": noon(1), "g": 2}]},
    }
    with reader(browser, viewport=DESKTOP) as first:
        page = open_stats(first, seed_url, lang)
        merge(page, doc(laptop))
        link = make_link(page, lang)
    fragment = urlsplit(link).fragment
    assert link.startswith(stats_url(seed_url, lang)) and fragment.startswith("progress=1.")
    # the fragment is deflate-raw + base64url of the snapshot: decode it here, independently of the page
    raw = zlib.decompress(base64.urlsafe_b64decode(fragment[len("progress=1.") :] + "=="), -15)
    carried = json.loads(raw)
    assert carried["format"] == "qa-study-progress" and set(carried["cards"]) == set(laptop)
    with reader(browser, viewport=viewport) as second:
        seen: list[str] = []
        second.on("request", lambda r: seen.append(r.url))
        page = second.new_page()
        page.goto(stats_url(seed_url, lang))
        page.wait_for_selector("[data-qa-stats] > *")
        merge(page, doc(phone))
        page.goto(link)
        dialog = page.locator("[data-qa-merge]")
        dialog.wait_for()
        counts = dialog.locator("[data-qa-merge-counts]").inner_text()
        assert "2" in counts and "1" in counts  # two cards, one note, one suspended
        assert snapshot(page)["cards"][a["slug"]]["log"] == phone[a["slug"]]["log"]  # nothing merged before confirming
        dialog.get_by_role("button", name=UI[lang]["merge"], exact=True).click()
        page.wait_for_function(
            f"document.querySelector('.qa-move__status').textContent.includes({json.dumps(UI[lang]['merged'])})"
        )
        cards = snapshot(page)["cards"]
        assert sorted(r["t"] for r in cards[a["slug"]]["log"]) == [noon(3), noon(1)]  # both devices' reviews
        assert cards[a["slug"]]["note"]["text"] == "laptop note"
        assert cards[b["slug"]]["suspended"]["on"] is True
        assert cards[c["slug"]]["log"] == phone[c["slug"]]["log"]
        assert urlsplit(page.url).fragment == ""  # taken out of the address bar: a reload does not ask again
        page.reload()
        page.wait_for_selector("[data-qa-stats] > *")
        assert page.locator("[data-qa-merge]").count() == 0
        # the progress never reached a server: no request carried it
        assert not [u for u in seen if "progress=" in u]


def test_progress_link_declined_or_damaged_changes_nothing(browser: Any, seed_url: str, data: dict) -> None:
    a = data["zh"]["questions"][0]
    with reader(browser) as first:
        page = open_stats(first, seed_url, "zh")
        merge(page, doc({a["slug"]: {"hash": a["hash"], "log": [{"t": noon(1), "g": 3}]}}))
        link = make_link(page, "zh")
    with reader(browser, viewport=PHONE) as second:
        page = second.new_page()
        page.goto(link)
        page.locator("[data-qa-merge]").wait_for()
        page.get_by_role("button", name=UI["zh"]["cancel"]).click()
        page.wait_for_function("!document.querySelector('[data-qa-merge]')")
        assert snapshot(page)["cards"] == {}
        assert urlsplit(page.url).fragment == ""
        page.goto(link[:-40])  # cut off, as a chat app might
        # the page's script adds the status line after the navigation: a locator waits for it to exist
        page.locator(".qa-move__status", has_text=re.compile(re.escape(UI["zh"]["bad"]))).wait_for(state="attached")
        assert page.locator("[data-qa-merge]").count() == 0
        assert snapshot(page)["cards"] == {}
        # another site's progress (same origin, another path): refused without asking
        other = dict(doc({a["slug"]: {"hash": a["hash"], "log": [{"t": noon(1), "g": 3}]}}), site="/another-site/")
        page.goto(stats_url(seed_url, "zh") + "#progress=1." + encode_link(other))
        page.locator(".qa-move__status", has_text=re.compile("属于另一个网站")).wait_for(state="attached")
        assert page.locator("[data-qa-merge]").count() == 0
        assert snapshot(page)["cards"] == {}


def encode_link(document: dict[str, Any]) -> str:
    """A progress link's payload made here, as the page makes it: deflate-raw, then base64url."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    raw = packer.compress(json.dumps(document).encode()) + packer.flush()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.parametrize(("lang", "viewport"), [("zh", DESKTOP), ("en", PHONE), ("zh-Hant", PHONE)])
def test_qr_code_for_a_small_link_and_the_file_for_a_large_one(
    browser: Any, seed_url: str, data: dict, lang: str, viewport: dict[str, int]
) -> None:
    qs = data[lang]["questions"]
    with reader(browser, viewport=viewport) as context:
        page = open_stats(context, seed_url, lang)
        merge(page, doc({qs[0]["slug"]: {"hash": qs[0]["hash"], "log": [{"t": noon(1), "g": 3}]}}))
        link = make_link(page, lang)
        page.get_by_role("button", name=UI[lang]["qr"]).click()
        svg = page.locator("[data-qa-qr-modules] svg")
        svg.wait_for()
        modules = int(page.locator("[data-qa-qr-modules]").get_attribute("data-qa-qr-modules"))
        assert 21 <= modules <= 177 and len(link) < 2953
        box = svg.bounding_box()
        assert box and box["width"] >= 150 and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"]
        page.keyboard.press("Escape")
        page.wait_for_function("!document.querySelector('.qa-qr')")
        # every question reviewed a hundred times: more than any QR code holds; the file is offered instead
        many = {
            q["slug"]: {
                "hash": q["hash"],
                "log": [{"t": noon(90) + (i * 7919 + k * 104729) * 997, "g": 1 + (i + k) % 4} for k in range(100)],
            }
            for i, q in enumerate(qs)
        }
        merge(page, doc(many))
        link = make_link(page, lang)
        assert len(link) > 2953
        page.get_by_role("button", name=UI[lang]["qr"]).click()
        page.locator("[data-qa-qr-too-big]").wait_for()
        assert UI[lang]["toobig"] in page.locator("[data-qa-qr-too-big]").inner_text()
        with page.expect_download() as download:
            page.locator(".qa-qr [data-qa-action=download-file]").click()
        saved = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
        assert saved["format"] == "qa-study-progress" and len(saved["cards"]) == len(qs)
        assert sum(len(c["log"]) for c in saved["cards"].values()) == 100 * len(qs) + 1


def _site_files(*names: str) -> Any:
    """A route matcher: the site's files under assets/qa/ whose address holds one of `names`."""
    return lambda url: "/assets/qa/" in url and any(name in url for name in names)


@pytest.mark.parametrize(("lang", "viewport"), [("zh", PHONE), ("en", DESKTOP)])
def test_a_library_that_does_not_load_is_said_and_its_task_done_another_way(
    browser: Any, seed_url: str, data: dict, lang: str, viewport: dict[str, int]
) -> None:
    """Offline or on a flaky network: without the plot library the stats say so and keep their tables;
    without the QR library the dialog says so and offers the progress file; no script error either way."""
    qs = data[lang]["questions"]
    with reader(browser, viewport=viewport) as context:
        drop_requests(context, _site_files("uPlot", "qrcode"))
        page = open_stats(context, seed_url, lang)
        merge(page, doc({qs[0]["slug"]: {"hash": qs[0]["hash"], "log": [{"t": noon(1), "g": 3}]}}))
        said = STRINGS["js.study-stats.plotFailed"][lang].split("{reason}")[0]
        page.locator('[data-qa-plot="reviews"]').get_by_text(said).wait_for()
        assert page.locator('[data-qa-table="reviews"] tbody tr').count() >= 1
        assert page.locator("[data-qa-plot-drawn]").count() == 0
        make_link(page, lang)
        page.get_by_role("button", name=UI[lang]["qr"]).click()
        alert = page.locator(".qa-qr [data-qa-qr-failed]")
        alert.wait_for()
        assert alert.inner_text() == STRINGS["js.study-link.qrFailed"][lang]
        assert axe_problems(page, "QR dialog without its library", within=".qa-qr") == []
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"stats-qr-failed-{lang}.png"))
        with page.expect_download() as download:
            page.locator(".qa-qr [data-qa-action=download-file]").click()
        saved = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
        assert list(saved["cards"]) == [qs[0]["slug"]]


def test_sync_that_cannot_load_leaves_the_page_quiet(browser: Any, seed_url: str, data: dict) -> None:
    """Sync on, and a page that cannot load the sync script or its styles (offline): no script error.
    (Nothing waits on that page: the progress is stored in the browser, and the next page that loads
    the script syncs it.)"""
    q = data["en"]["questions"][0]
    with reader(browser) as context:
        drop_requests(context, _site_files("study-sync.js", "stats.css"))
        page = context.new_page()
        page.goto(seed_url + "en/")
        page.evaluate("localStorage.setItem('qa-study@/:sync', JSON.stringify({ on: true }))")
        with page.expect_event("requestfailed", lambda request: "study-sync.js" in request.url):
            page.goto(seed_url + "en/" + q["url"])
        # the same load again, awaited: by the time it settles the first one's failure has been handled
        assert page.evaluate("QAStudy.load('assets/qa/study-sync.js').then(() => 'loaded', () => 'failed')") == "failed"


def test_progress_link_size_at_5000_reviewed_cards(browser: Any, seed_url: str) -> None:
    """Measured, not a target: the link of a 5,000-card snapshot (1-6 reviews each over 60 days, a note on
    every tenth) decodes to the same document here and opens in a second browser. (The seed site has 14
    questions, so the document is encoded by the page's own encoder rather than stored first: a store
    keeps only cards of questions its site has.)"""
    cards = {
        f"bank-{i % 100:03d}/question-{i:05d}-about-some-topic": {
            "log": [
                {"t": noon(60) + (i * 7919 + k * DAY * 9) % (60 * DAY), "g": 1 + (i + k) % 4} for k in range(1 + i % 6)
            ],
            "hash": f"{(i * 2654435761) % 2**48:012x}",
            **(
                {"note": {"text": f"note {i}: the ring all-reduce sends 2(n-1) chunks", "t": noon(i % 60)}}
                if i % 10 == 0
                else {}
            ),
        }
        for i in range(5000)
    }
    document = doc(cards)
    text = json.dumps(document, separators=(",", ":"))
    with reader(browser) as first:
        page = open_stats(first, seed_url, "en", "[data-qa-progress-link] button")
        start = time.perf_counter()
        link = page.evaluate("t => QAStudy.link.encode(t).then(QAStudy.link.linkFor)", text)
        made = time.perf_counter() - start
    fragment = urlsplit(link).fragment
    assert json.loads(zlib.decompress(base64.urlsafe_b64decode(fragment[len("progress=1.") :] + "=="), -15)) == document
    reviews = sum(len(c["log"]) for c in cards.values())
    print(
        f"\nprogress link, 5,000 cards / {reviews} reviews / 500 notes: {len(link):,} characters "
        f"({len(link) / 1024:.0f} KB; JSON {len(text) / 1024:.0f} KB), encoded in {made:.2f} s"
    )
    with reader(browser) as second:
        page = second.new_page()
        page.goto(link)
        dialog = page.locator("[data-qa-merge]")
        dialog.wait_for(timeout=20000)
        assert "5000" in dialog.locator("[data-qa-merge-counts]").inner_text()
        assert "500" in dialog.locator("[data-qa-merge-counts]").inner_text()


# --- 14.8 sync with GitHub, opt-in ---------------------------------------------------------------


def connect(page: Any, lang: str, api: ContentsAPI, *, token: str | None = None) -> None:
    page.locator("#qa-sync-repo").fill(f"{api.owner}/{api.repo}")
    page.locator("#qa-sync-token").fill(token or api.token)
    page.get_by_role("button", name=UI[lang]["on"]).click()


def wait_synced(page: Any, after: int = 0) -> None:
    """Until a sync later than `after` (a time in ms) succeeded (the settings record its time)."""
    key = json.dumps(SYNC_KEY)
    page.wait_for_function(
        f"(() => {{ try {{ return JSON.parse(localStorage.getItem({key})).last > {after} }} catch (e) {{ return false }} }})()"
    )


def last_sync(page: Any) -> int:
    """When the last successful sync was (ms; 0 if none)."""
    key = json.dumps(SYNC_KEY)
    return int(
        page.evaluate(
            f"(() => {{ try {{ return JSON.parse(localStorage.getItem({key})).last || 0 }} catch (e) {{ return 0 }} }})()"
        )
    )


def point_at(context: Any, base: str) -> None:
    """The test-only setting: the contents API's base URL (the stand-in) for this browser profile."""
    context.add_init_script(f"try {{ localStorage.setItem({json.dumps(API_KEY)}, {json.dumps(base)}) }} catch (e) {{}}")


def test_sync_is_off_by_default_and_sends_nothing(browser: Any, seed_url: str, data: dict) -> None:
    q, other = data["zh"]["questions"][:2]
    with contents_api() as (base, api), reader(browser) as context:
        point_at(context, base)
        seen: list[str] = []
        context.on("request", lambda r: seen.append(r.url))
        page = context.new_page()
        for url in (seed_url, seed_url + q["url"], stats_url(seed_url, "zh"), stats_url(seed_url, "en")):
            page.goto(url)
            page.wait_for_load_state("load")
        page.wait_for_selector("[data-qa-sync] form")
        merge(page, doc({q["slug"]: {"hash": q["hash"], "log": [{"t": noon(0), "g": 3}]}}))
        page.goto(seed_url + other["url"])
        page.wait_for_load_state("load")
        assert page.evaluate("!QAStudy.sync")  # the sync script is not even loaded while sync is off
        assert api.requests == []
        assert {urlsplit(u).netloc for u in seen} == {urlsplit(seed_url).netloc}


@pytest.mark.parametrize(("lang", "viewport"), [("zh", PHONE), ("en", DESKTOP), ("zh-Hant", PHONE)])
def test_two_devices_sync_through_the_repository(
    browser: Any, seed_url: str, data: dict, lang: str, viewport: dict[str, int]
) -> None:
    a, b, c = data[lang]["questions"][:3]
    with contents_api() as (base, api), reader(browser, viewport=viewport) as laptop, reader(browser) as phone:
        point_at(laptop, base)
        point_at(phone, base)
        one = open_stats(laptop, seed_url, lang, "[data-qa-sync] form")
        merge(
            one,
            doc(
                {
                    a["slug"]: {
                        "hash": a["hash"],
                        "log": [{"t": noon(2), "g": 3}],
                        "note": {"text": "mine", "t": noon(2)},
                    }
                }
            ),
        )
        connect(one, lang, api)
        wait_synced(one)
        path = "qa-study-progress.json"
        stored = api.read_json(path)
        assert set(stored["cards"]) == {a["slug"]} and stored["cards"][a["slug"]]["note"]["text"] == "mine"
        put = api.calls("PUT")[0]
        assert put.headers["Authorization"] == f"Bearer {api.token}" and "sha" not in put.body  # a new file
        assert api.token not in json.dumps(stored)
        # the other device: its own progress, then the same repository
        two = open_stats(phone, seed_url, lang, "[data-qa-sync] form")
        merge(
            two,
            doc(
                {
                    a["slug"]: {"hash": a["hash"], "log": [{"t": noon(1), "g": 1}]},
                    b["slug"]: {"hash": b["hash"], "log": [{"t": noon(1), "g": 4}]},
                }
            ),
        )
        connect(two, lang, api)
        wait_synced(two)
        cards = snapshot(two)["cards"]
        assert sorted(r["t"] for r in cards[a["slug"]]["log"]) == [noon(2), noon(1)]
        assert cards[a["slug"]]["note"]["text"] == "mine"
        assert set(api.read_json(path)["cards"]) == {a["slug"], b["slug"]}
        assert api.calls("PUT")[-1].body["sha"]  # an update names the sha it read
        # back on the first device: Sync now brings the phone's progress
        merge(one, doc({c["slug"]: {"hash": c["hash"], "log": [{"t": noon(0), "g": 2}]}}))
        before = last_sync(one)
        one.get_by_role("button", name=UI[lang]["now"]).click()
        one.wait_for_function("Object.keys(QAStudy.store.snapshot().cards).length === 3")
        wait_synced(one, before)  # this sync, not the one before it, has written the file
        cards = snapshot(one)["cards"]
        assert sorted(r["t"] for r in cards[a["slug"]]["log"]) == [noon(2), noon(1)]
        one.wait_for_function(
            "document.querySelector('.qa-sync__status').textContent.length > 0 && !document.querySelector('.qa-sync__error').textContent"
        )
        assert set(api.read_json(path)["cards"]) == {a["slug"], b["slug"], c["slug"]}
        # the token stays out of everything that leaves: snapshot, progress link, synced file
        assert api.token not in json.dumps(snapshot(one))
        link = make_link(one, lang)
        raw = zlib.decompress(base64.urlsafe_b64decode(urlsplit(link).fragment[len("progress=1.") :] + "=="), -15)
        assert api.token.encode() not in raw and api.token not in link
        # every request went to the stand-in or the site, and the token only to the stand-in
        assert all(r.headers.get("Authorization") in (None, f"Bearer {api.token}") for r in api.requests)


@pytest.mark.parametrize(
    ("lang", "viewport"),
    [("zh", PHONE), ("en", DESKTOP), ("zh", DESKTOP), ("en", PHONE)],
    ids=["zh-phone", "en-desktop", "zh-desktop", "en-phone"],
)
def test_a_conflicting_write_is_read_merged_and_written_again(
    browser: Any, seed_url: str, data: dict, lang: str, viewport: dict[str, int]
) -> None:
    a, b, c = data[lang]["questions"][:3]
    path = "qa-study-progress.json"
    api = ContentsAPI()
    api.write(path, json.dumps(doc({b["slug"]: {"hash": b["hash"], "log": [{"t": noon(5), "g": 3}]}})))

    writes = [0]

    def another_device(state: ContentsAPI) -> None:
        # between this browser's read and its write, another device writes its own progress (a new
        # review each time, so each write changes the file's sha)
        writes[0] += 1
        theirs = {
            b["slug"]: {"hash": b["hash"], "log": [{"t": noon(5), "g": 3}]},
            c["slug"]: {"hash": c["hash"], "log": [{"t": noon(4) + n, "g": 4} for n in range(writes[0])]},
        }
        state.write(path, json.dumps(doc(theirs)))

    api.before_put.append(another_device)
    with contents_api(api) as (base, _), reader(browser, viewport=viewport) as context:
        point_at(context, base)
        page = open_stats(context, seed_url, lang, "[data-qa-sync] form")
        merge(page, doc({a["slug"]: {"hash": a["hash"], "log": [{"t": noon(1), "g": 2}]}}))
        connect(page, lang, api)
        wait_synced(page)
        puts = api.calls("PUT")
        assert len(puts) == 2 and len(api.calls("GET")) == 2  # read, write refused (409), read, merge, write
        assert set(api.read_json(path)["cards"]) == {a["slug"], b["slug"], c["slug"]}
        assert set(snapshot(page)["cards"]) == {a["slug"], b["slug"], c["slug"]}
        # what the reader sees: synced, in the page's language, and no error
        page.wait_for_function(
            "(said) => document.querySelector('[data-qa-sync]').textContent.includes(said)", arg=UI[lang]["synced"]
        )
        assert page.locator(".qa-sync__error").inner_text() == ""
        # a device that keeps losing the race gives up after a few tries and says so; nothing local is lost
        api.before_put.extend([another_device] * 10)
        merge(page, doc({a["slug"]: {"hash": a["hash"], "log": [{"t": noon(0), "g": 3}]}}))
        before = len(api.calls("PUT"))
        page.get_by_role("button", name=UI[lang]["now"]).click()
        page.wait_for_function(
            "(said) => document.querySelector('.qa-sync__error').textContent.includes(said)", arg=UI[lang]["tries"]
        )
        assert len(api.calls("PUT")) - before == 4
        assert len(snapshot(page)["cards"][a["slug"]]["log"]) == 2


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_sync_errors_are_shown_and_nothing_local_is_lost(browser: Any, seed_url: str, data: dict, lang: str) -> None:
    a = data[lang]["questions"][0]
    mine = doc({a["slug"]: {"hash": a["hash"], "log": [{"t": noon(1), "g": 3}]}})
    with contents_api() as (base, api), reader(browser, viewport=PHONE) as context:
        point_at(context, base)
        page = open_stats(context, seed_url, lang, "[data-qa-sync] form")
        merge(page, mine)
        connect(page, lang, api, token="github_pat_wrong")
        page.wait_for_function(
            f"document.querySelector('.qa-sync__error').textContent.includes({json.dumps(UI[lang]['e401'])})"
        )
        assert snapshot(page)["cards"] == mine["cards"]
        assert api.files == {}
        page.get_by_role("button", name=UI[lang]["off"]).click()
        assert page.evaluate(f"localStorage.getItem({json.dumps(TOKEN_KEY)})") is None
        # the API cannot be reached: said so, progress kept
        connect(page, lang, api)
        wait_synced(page)
    with reader(browser) as context:
        point_at(context, "http://127.0.0.1:9")  # nothing listens there
        page = open_stats(context, seed_url, lang, "[data-qa-sync] form")
        merge(page, mine)
        connect(page, lang, api)
        page.wait_for_function(
            f"document.querySelector('.qa-sync__error').textContent.includes({json.dumps(UI[lang]['network'])})"
        )
        assert snapshot(page)["cards"] == mine["cards"]


def test_a_file_over_the_inline_limit_is_read_raw_and_a_foreign_file_is_left_alone(
    browser: Any, seed_url: str, data: dict
) -> None:
    a, b = data["en"]["questions"][:2]
    path = "qa-study-progress.json"
    api = ContentsAPI(inline_limit=200)  # GitHub sends no content above 1 MB; here above 200 bytes
    theirs = doc({b["slug"]: {"hash": b["hash"], "log": [{"t": noon(3 + n), "g": 3} for n in range(6)]}})
    api.write(path, json.dumps(theirs))
    with contents_api(api) as (base, _), reader(browser) as context:
        point_at(context, base)
        page = open_stats(context, seed_url, "en", "[data-qa-sync] form")
        merge(page, doc({a["slug"]: {"hash": a["hash"], "log": [{"t": noon(1), "g": 2}]}}))
        connect(page, "en", api)
        wait_synced(page)
        assert [r.headers.get("Accept") for r in api.calls("GET")] == [
            "application/vnd.github+json",
            "application/vnd.github.raw+json",
        ]
        assert set(snapshot(page)["cards"]) == {a["slug"], b["slug"]}
        assert set(api.read_json(path)["cards"]) == {a["slug"], b["slug"]}
        # a file at that path that is not a progress file: said so, and neither it nor the progress here changes
        api.write(path, "# my notes\n")
        puts = len(api.calls("PUT"))
        page.get_by_role("button", name="Sync now").click()
        page.locator(".qa-sync__error", has_text=re.compile("not a progress file")).wait_for(state="attached")
        assert len(api.calls("PUT")) == puts
        assert api.files[path] == b"# my notes\n"
        assert set(snapshot(page)["cards"]) == {a["slug"], b["slug"]}


def test_once_on_sync_runs_in_the_background_on_other_pages(browser: Any, seed_url: str, data: dict) -> None:
    a, b = data["zh"]["questions"][:2]
    with contents_api() as (base, api), reader(browser) as context:
        point_at(context, base)
        page = open_stats(context, seed_url, "zh", "[data-qa-sync] form")
        connect(page, "zh", api)
        wait_synced(page)
        page.goto(seed_url + a["url"])
        page.wait_for_function("window.QAStudy && QAStudy.sync")  # loaded after the page, because sync is on
        with page.expect_response(lambda r: r.request.method == "PUT", timeout=15000) as put:
            merge(page, doc({b["slug"]: {"hash": b["hash"], "log": [{"t": noon(0), "g": 3}]}}))
        assert put.value.status == 200
        assert b["slug"] in api.read_json("qa-study-progress.json")["cards"]
        # a failure in the background is said on the page, with the way to the settings
        api.fail_next.append(401)
        page.evaluate("QAStudy.sync.sync()")
        toast = page.locator(".qa-sync-toast")
        toast.wait_for()
        assert UI["zh"]["e401"] in toast.inner_text() and toast.locator("a").get_attribute("href").endswith(
            "study/stats/#sync"
        )


FULL_STORAGE = """
(() => {
  const setItem = Storage.prototype.setItem;
  Storage.prototype.setItem = function (key, value) {
    if (window.qaFull && String(key).endsWith(":study")) throw new DOMException("full", "QuotaExceededError");
    return setItem.call(this, key, value);
  };
})();
"""


@pytest.mark.parametrize(("lang", "viewport"), [("zh", DESKTOP), ("en", PHONE), ("zh-Hant", PHONE)])
def test_full_storage_in_the_link_and_sync_loses_nothing(
    browser: Any, seed_url: str, data: dict, lang: str, viewport: dict[str, int]
) -> None:
    a, b = data[lang]["questions"][:2]
    mine = doc({a["slug"]: {"hash": a["hash"], "log": [{"t": noon(1), "g": 3}]}})
    theirs = doc({b["slug"]: {"hash": b["hash"], "log": [{"t": noon(2), "g": 4}]}})
    with reader(browser) as first:
        page = open_stats(first, seed_url, lang)
        merge(page, theirs)
        link = make_link(page, lang)
    with contents_api() as (base, api), reader(browser, viewport=viewport) as context:
        context.add_init_script(FULL_STORAGE)
        point_at(context, base)
        page = open_stats(context, seed_url, lang)
        merge(page, mine)
        page.evaluate("window.qaFull = true")
        # a progress link when storage is full: said so, nothing changed, the link kept to try again
        page.goto(link)
        page.locator("[data-qa-merge]").wait_for()
        page.locator("[data-qa-merge]").get_by_role("button", name=UI[lang]["merge"], exact=True).click()
        page.wait_for_function(
            f"document.querySelector('.qa-move__status').textContent.includes({json.dumps(UI[lang]['full'])})"
        )
        assert page.locator(".qa-move__status").get_attribute("role") == "alert"
        assert snapshot(page)["cards"] == mine["cards"]
        assert urlsplit(page.url).fragment.startswith("progress=1.")
        # sync when storage is full: the other devices' file is not overwritten and local progress stays
        api.write("qa-study-progress.json", json.dumps(theirs))
        page.goto(stats_url(seed_url, lang))
        page.wait_for_selector("[data-qa-sync] form")
        page.evaluate("window.qaFull = true")
        connect(page, lang, api)
        page.wait_for_function(
            f"document.querySelector('.qa-sync__error').textContent.includes({json.dumps(UI[lang]['full'])})"
        )
        assert api.calls("PUT") == []
        assert api.read_json("qa-study-progress.json") == theirs
        assert snapshot(page)["cards"] == mine["cards"]


# --- screenshots ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "device", "scheme"),
    [(lang, device, scheme) for lang in ("zh", "en") for device, scheme in LOOKS] + [("zh-Hant", "phone", "dark")],
)
def test_screenshots_of_the_stats_page(
    browser: Any, seed_url: str, data: dict, scheme: str, device: str, lang: str
) -> None:
    """The stats page, the QR dialog and the sync settings into tests/artifacts/stats-*.png."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    viewport = PHONE if device == "phone" else DESKTOP
    qs = data[lang]["questions"]
    cards = {
        q["slug"]: {
            "hash": q["hash"],
            "log": [{"t": noon(d) + i * 60000, "g": 1 + (i * 3 + d) % 4} for d in range(0, 28, 2 + i % 5)],
            **({"note": {"text": f"note {i}: ring all-reduce", "t": noon(i)}} if i % 4 == 0 else {}),
        }
        for i, q in enumerate(qs)
    }
    with contents_api() as (base, api), reader(browser, viewport=viewport, color_scheme=scheme) as context:
        point_at(context, base)
        page = open_stats(context, seed_url, lang)
        merge(page, doc(cards))
        for name in ("reviews", "due", "recall"):
            page.wait_for_selector(f'[data-qa-plot-drawn="{name}"] canvas')
        name = f"{lang}-{device}-{scheme}"
        page.screenshot(path=str(ARTIFACTS / f"stats-page-{name}.png"), full_page=True)
        link = make_link(page, lang)
        page.get_by_role("button", name=UI[lang]["qr"]).click()
        page.locator("[data-qa-qr-modules] svg").wait_for()
        page.screenshot(path=str(ARTIFACTS / f"stats-qr-{name}.png"))
        other = context.new_page()
        other.goto(link)
        other.locator("[data-qa-merge]").wait_for()
        other.screenshot(path=str(ARTIFACTS / f"stats-merge-{name}.png"))
        other.close()
        page.keyboard.press("Escape")
        page.locator("#sync").scroll_into_view_if_needed()
        page.locator("[data-qa-sync]").screenshot(path=str(ARTIFACTS / f"stats-sync-off-{name}.png"))
        connect(page, lang, api)
        wait_synced(page)
        page.locator("[data-qa-sync]").screenshot(path=str(ARTIFACTS / f"stats-sync-on-{name}.png"))
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]


# --- accessibility -------------------------------------------------------------------------------


@pytest.mark.parametrize(("scheme", "viewport"), [("light", DESKTOP), ("dark", PHONE)])
@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_axe_finds_nothing_on_the_stats_page(
    browser: Any, seed_url: str, data: dict, lang: str, scheme: str, viewport: dict[str, int]
) -> None:
    """With plots, tables, notes, a progress link and the sync form on it, and with the merge dialog open."""
    qs = data[lang]["questions"]
    cards = {
        q["slug"]: {
            "hash": q["hash"],
            "log": [{"t": noon(i % 9), "g": 1 + i % 4}],
            "note": {"text": f"n{i}", "t": noon(1)},
        }
        for i, q in enumerate(qs)
    }
    with reader(browser, viewport=viewport, color_scheme=scheme, service_workers="block") as context:
        page = open_stats(context, seed_url, lang)
        merge(page, doc(cards))
        page.wait_for_selector('[data-qa-plot-drawn="recall"] canvas')
        link = make_link(page, lang)
        found = axe_problems(page, "stats page")
        other = context.new_page()
        other.goto(link)
        other.locator("[data-qa-merge]").wait_for()
        found += axe_problems(other, "merge dialog")
        assert found == [], "\n".join(found)
