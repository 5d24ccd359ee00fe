"""A page loading on a phone: no long task of ours, and nothing the reader sees moves.

Long tasks: the seed site's question page, with its bank's nav.js replaced in the browser by one of BIG_BANK
questions (the page itself at any size of bank is the same HTML, so only the sidebar's list grows).
A Chromium trace of the page load gives every task of the main thread; the time our scripts
(assets/qa/*, the bank's nav.js, the page's inline scripts) run inside one task must stay under
Lighthouse's long-task line, 50 ms on its simulated phone.

Robust on a busy, shared machine: the time counted is the main thread's CPU time (the trace's
thread duration), which does not grow while other processes hold the cores, multiplied by
Lighthouse's own mobile CPU slowdown (4): the figure its simulated phone would see. (CDP's CPU
throttling would scale wall time, which is what a loaded machine inflates.) CPU time still grows a
little on a busy host (its caches and cores are shared: 14 ms of ours on a run of the whole suite
against 11-12 ms alone), and never shrinks: a page whose worst task is over the line loads again,
fresh, up to LOADS times, and its best load counts, as the Lighthouse test retries a page.

Nothing moves: the layout shifts Chromium reports while home, bank, question, tags and glossary
pages load at a phone's width, in every language, with what our scripts add (the quiz and bilingual
bars, grades, progress panels and meters) in place or in reserved room before the first paint.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from studysite.languages import LANGUAGES
from tests.sitekit import ARTIFACTS

BIG_BANK = 1000
"""Questions in the sidebar's list (the seed bank has 14)."""
LOADS = 3
"""Fresh loads of the question page at most; the one whose worst task is least counts."""
SLOWDOWN = 4
"""Lighthouse's mobile CPU slowdown multiplier (its default `throttling.cpuSlowdownMultiplier`)."""
LONG_TASK_MS = 50
QUESTION = "ai-infra-3/two-batch-overlap/"
OURS = re.compile(r"/assets/qa/|/nav\.js$")
SCRIPT_EVENTS = {"EvaluateScript", "FunctionCall", "TimerFire", "FireAnimationFrame", "EventDispatch", "v8.compile"}
"""Trace events that run a script; the URL in their data names whose."""
TRACING_ONLY = "V8.CollectSourcePositions"
"""V8 compiles without source positions and collects them (by parsing the function again) only when a
stack trace or a profiler needs them: tracing does, a reader's browser does not. Seen here: 7 of the
18 ms of the question bundle's first run in a trace. Their time inside our script events is not counted."""
TRACE_CATEGORIES = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "v8",
    "disabled-by-default-v8.compile",
]
"""The timeline's task and script events, and V8's (to see TRACING_ONLY)."""


PAGES = ("", "ai-infra-3/", QUESTION, "tags/", "glossary/")
MOVED_AT_MOST = 0.05
"""Sum of layout-shift scores per page load (Lighthouse counts up to 0.1 as good; it saw 0.3 here)."""
SHIFTS = """() => new Promise((done) => {
  const seen = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      seen.push({value: e.value, moved: (e.sources || []).map((s) => s.node && s.node.nodeType === 1
        ? s.node.tagName + "." + s.node.className : String(s.node && s.node.nodeName))});
  }).observe({type: "layout-shift", buffered: true});
  requestAnimationFrame(() => requestAnimationFrame(() => done(seen)));
})"""


def test_nothing_moves_while_a_page_loads(seed_url: str, browser) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 412, "height": 823}, service_workers="block")  # Lighthouse's phone
    moved = {}
    for prefix in LANGUAGES.roots:
        for path in PAGES:
            page = context.new_page()
            page.goto(seed_url + prefix + path, wait_until="load")
            # everything our scripts add has arrived: the study data (panels, meters) and the schedule (grades)
            page.wait_for_function("!document.documentElement.classList.contains('qa-progress-pending')")
            if path == QUESTION:
                page.wait_for_selector(".qa-pill:not([hidden])")
            shifts = page.evaluate(SHIFTS)
            moved[prefix + path] = (round(sum(s["value"] for s in shifts), 3), [s["moved"] for s in shifts][:3])
            page.close()
    context.close()
    assert all(score <= MOVED_AT_MOST for score, _ in moved.values()), moved


@pytest.mark.parametrize("prefix", ["", "en/"])
def test_no_long_task_of_ours_on_a_question_page(seed_url: str, seed_site: Path, browser, prefix: str) -> None:  # type: ignore[no-untyped-def]
    real = _bank_nav(seed_site / prefix / "ai-infra-3" / "nav.js")
    current = QUESTION.split("/")[1]
    items = [[f"q-{i:04d}", f"{real['title']} · {i:04d} {'一个相当长的问题标题' * 2}"] for i in range(BIG_BANK)]
    items[BIG_BANK * 2 // 3] = next(item for item in real["items"] if item[0] == current)  # far down the list
    body = "window.qaBankNav = " + json.dumps({"title": real["title"], "items": items}, ensure_ascii=False) + ";"
    loads = []
    for _ in range(LOADS):
        tasks = _trace_question_page(browser, seed_url, prefix, body)
        assert tasks, "no task ran our scripts: the trace did not see the page"
        loads.append(tasks)
        if max(t["ours_cpu_ms"] for t in tasks) * SLOWDOWN <= LONG_TASK_MS:
            break
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"long-tasks-{prefix.strip('/') or 'zh'}.json").write_text(json.dumps(loads, indent=1))
    worst = min((max(tasks, key=lambda t: t["ours_cpu_ms"]) for tasks in loads), key=lambda t: t["ours_cpu_ms"])
    assert worst["ours_cpu_ms"] * SLOWDOWN <= LONG_TASK_MS, (
        f"in each of {len(loads)} loads a task ran our scripts for over {LONG_TASK_MS / SLOWDOWN} ms of CPU; the "
        f"least, {worst['ours_cpu_ms']:.1f} ms ({worst['ours_cpu_ms'] * SLOWDOWN:.0f} ms on Lighthouse's phone): {worst}"
    )


def _trace_question_page(browser, seed_url: str, prefix: str, nav_body: str) -> list[dict]:  # type: ignore[no-untyped-def]
    """One first load of the question page (its bank's nav.js replaced by `nav_body`) in a fresh
    context, traced, after a page of another kind put the shared files in the cache; checks the
    sidebar, and returns the tasks that ran our scripts (_our_time_per_task)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers="block")
    context.route("**/ai-infra-3/nav.js", lambda route: route.fulfill(content_type="text/javascript", body=nav_body))
    page = context.new_page()
    page.goto(
        seed_url + prefix + "study/review/", wait_until="load"
    )  # the shared files are in the cache, as when reading on
    browser.start_tracing(page=page, categories=TRACE_CATEGORIES)
    page.goto(seed_url + prefix + QUESTION, wait_until="load")
    links = page.locator(".md-nav--primary .qa-banknav__list a")
    page.wait_for_function(f"document.querySelectorAll('.qa-banknav__list a').length === {BIG_BANK}")
    page.evaluate("() => new Promise((done) => requestIdleCallback(done, {timeout: 2000}))")
    trace = json.loads(browser.stop_tracing())
    # behaviour unchanged: the current question marked once and in view within the sidebar
    marked = page.locator('.qa-banknav__list [aria-current="page"]')
    assert marked.count() == 1 and marked.get_attribute("href") == seed_url + prefix + QUESTION
    assert links.nth(0).get_attribute("href") == f"{seed_url}{prefix}ai-infra-3/q-0000/"
    assert page.evaluate(
        """() => { const a = document.querySelector('.qa-banknav__list [aria-current="page"]');
                   const s = a.closest('.md-sidebar__scrollwrap').getBoundingClientRect(), r = a.getBoundingClientRect();
                   return r.top >= s.top && r.bottom <= s.bottom; }"""
    ), "the current question is not in view in the sidebar"
    context.close()
    return _our_time_per_task(trace["traceEvents"])


def _bank_nav(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    return json.loads(text[text.index("=") + 1 :].strip().rstrip(";"))


def _our_time_per_task(events: list[dict]) -> list[dict]:
    """For each task of the renderer's main thread that ran one of our scripts: the CPU time of our
    outermost script events in it, the task's own CPU and wall time, and whose scripts ran."""
    main = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"
    }
    by_thread: dict[tuple[int, int], list[dict]] = {}
    for e in events:
        if e.get("ph") == "X" and (e["pid"], e["tid"]) in main:
            by_thread.setdefault((e["pid"], e["tid"]), []).append(e)
    out = []
    for thread in by_thread.values():
        thread.sort(key=lambda e: (e["ts"], -e.get("dur", 0)))
        task, covered_to, counting = None, 0, False
        for e in thread:
            if e["name"] == "RunTask":
                task = {
                    "ours_cpu_ms": 0.0,
                    "cpu_ms": e.get("tdur", 0) / 1000,
                    "wall_ms": e.get("dur", 0) / 1000,
                    "end": e["ts"] + e.get("dur", 0),
                    "scripts": [],
                }
                out.append(task)
                covered_to = 0
                continue
            if e["name"] == TRACING_ONLY and task is not None and e["ts"] < covered_to and counting:
                task["ours_cpu_ms"] -= e.get("tdur", e.get("dur", 0)) / 1000
                task["tracing_only_ms"] = task.get("tracing_only_ms", 0) + e.get("tdur", e.get("dur", 0)) / 1000
                continue
            if task is None or e["ts"] >= task["end"] or e["name"] not in SCRIPT_EVENTS or e["ts"] < covered_to:
                continue
            url = _url(e)
            if not url:
                continue
            covered_to = e["ts"] + e.get("dur", 0)  # nested script events are inside this one
            task["scripts"].append(url.rsplit("/", 1)[-1])
            counting = bool(OURS.search(url) or url.split("?")[0].endswith("/"))  # ours, or the page's inline scripts
            if counting:
                task["ours_cpu_ms"] += e.get("tdur", e.get("dur", 0)) / 1000
    return [dict((k, v) for k, v in t.items() if k != "end") for t in out if t["ours_cpu_ms"] > 0]


def _url(event: dict) -> str:
    data = event.get("args", {}).get("data", {})
    if data.get("url"):
        return str(data["url"])
    stack = data.get("stackTrace") or []
    return str(stack[0].get("url", "")) if stack else ""
