"""The study engine as a reader uses it: the v2 progress store, FSRS grading, merging, notes, storage failures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.test_study import DESKTOP, PHONE, goto, reader

STUDY_KEY = "qa-study@/:study"
V1_KEY = "qa-study@/:marks"
DAY = 86_400_000


@pytest.fixture(scope="module")
def data(seed_site: Path) -> dict[str, dict[str, Any]]:
    """The question data the build published, per language."""
    return {
        lang: json.loads((seed_site / prefix / "assets/qa/questions.json").read_text(encoding="utf-8"))
        for lang, prefix in (("zh", ""), ("en", "en"))
    }


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
        b: {log: [{t: 5, g: 2}], reset: 20}, c: {log: [{t: 7, g: 4}], suspended: {on: true, t: 8}}}};
      const laptop = {format: "qa-study-progress", version: 2, site: "/", cards: {
        a: {log: [{t: 10, g: 3}, {t: 20, g: 4}], hash: "h1", note: {text: "laptop", t: 40}},
        b: {log: [{t: 15, g: 3}, {t: 25, g: 3}]}, c: {suspended: {on: false, t: 9}}}};
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
