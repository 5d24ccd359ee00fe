"""Offline reading: after one visit the site works with no network (search too), a new build replaces the
old copy whole, and the downloadable zip reads from file:// with working links."""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import html
import http.server
import json
import posixpath
import re
import shutil
import threading
import time
import zipfile
import zlib
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studysite.languages import LANGUAGES
from studysite.site import offline
from tests.qualitykit import axe_problems
from tests.sitekit import ARTIFACTS, LOOKS, VIEWPORTS, build_site, copy_banks, said, serving

Q_FIRST = "ai-infra-3/two-batch-overlap/"
Q_OTHER = "ai-infra-3/communication-primitives-nccl/"
Q_SEARCHED = "ai-infra-3/small-data-scenarios-advantages-nvshmem-read/"
SEARCH_TERM = "NVSHMEM"
WAIT_MS = 30_000


# --- the service worker -------------------------------------------------------------------------------


def test_a_first_visit_costs_nothing_and_browsed_pages_read_offline(seed_site: Path, browser: object) -> None:
    """A first visit requests nothing beyond the page (no worker yet); the second page registers the
    worker, whose only requests are sw.js and the manifest; it keeps both pages from the HTTP cache,
    exactly what they loaded. Offline, both read; a page never opened gets the notice, in its language."""
    ctx = browser.new_context()  # type: ignore[attr-defined]
    page = ctx.new_page()
    with _Server(seed_site) as server:
        page.goto(server.url + Q_FIRST)
        page.wait_for_function("() => !!localStorage.getItem('qa-offline:pending')")
        first = list(server.log)
        assert page.evaluate("navigator.serviceWorker.getRegistration().then((r) => !r)")
        assert {p for _, p, _ in first}.isdisjoint({"sw.js", offline.MANIFEST}), first
        loaded = {p for _, p, _ in first}

        page.goto(server.url + "en/" + Q_OTHER)
        _wait_until_controlled(page)
        html_paths = [Q_FIRST, "en/" + Q_OTHER]
        _poll(
            page,
            "async (us) => (await Promise.all(us.map((u) => caches.match(u)))).every(Boolean)",
            [server.url + p for p in html_paths],
        )
        _poll(page, "async () => !localStorage.getItem('qa-offline:pending')", None)
        log = list(server.log)
        keys = page.evaluate(
            "async (n) => (await (await caches.open(n)).keys()).map((r) => r.url)", _cache_name(seed_site)
        )
    by_worker = {p for _, p, referer in log if referer.endswith("/sw.js")}
    assert by_worker == {offline.MANIFEST}, by_worker
    assert [p for _, p, _ in log].count("sw.js") == 1
    loaded |= {p for _, p, referer in log if not referer.endswith("/sw.js") and p != "sw.js"}
    stored = {server.path(u) for u in keys} - {offline.MANIFEST, "__qa-offline/chosen.json"}
    stored_files = {_file_of(p) for p in stored}
    assert stored_files <= {_file_of(p) for p in loaded}, stored_files - {_file_of(p) for p in loaded}
    assert {Q_FIRST, "en/" + Q_OTHER} <= stored
    assert any(p.endswith(".css") for p in stored) and any(p.endswith("nav.js") for p in stored)

    ctx.set_offline(True)
    for path in html_paths:
        page.goto(server.url + path)
        assert page.inner_text("article.md-content__inner h1") == _h1(seed_site / path)
    response = page.goto(server.url + Q_SEARCHED)
    assert response is not None and response.status == 503
    assert "还没有离线保存" in page.inner_text("body")
    page.goto(server.url + "en/" + Q_SEARCHED)
    assert "not saved for offline reading" in page.inner_text("body")
    ctx.close()


_FILES = st.lists(
    st.builds(
        lambda kind, lang, bank, gz: offline.SiteFile("p", "u", gz, "h", kind, lang, gz, bank),
        st.sampled_from(["shell", "search", "page", "visit"]),
        st.sampled_from(["", "zh", "en", "zh-Hant"]),
        st.sampled_from(["", "a", "b"]),
        st.integers(0, 1000),
    ),
    max_size=40,
)


@pytest.mark.unit
@settings(max_examples=300, deadline=None)
@given(_FILES)
def test_scope_sizes_in_one_pass_sum_what_each_scope_stores(files: list[offline.SiteFile]) -> None:
    """scope_sizes sums every scope in one pass; each must be the sum of what scope_files (the rule
    sw.js shares) gives that scope, for any mix of kinds, languages and banks."""
    sizes = offline.scope_sizes(files)
    assert sizes == {scope: sum(f.gz for f in offline.scope_files(files, scope)) for scope in sizes}
    pages = [f for f in files if f.kind == "page"]
    assert set(sizes) == {"site"} | {f"lang:{f.lang}" for f in pages} | {
        f"bank:{f.lang}:{f.bank}" for f in pages if f.bank
    }


@pytest.mark.unit
@pytest.mark.parametrize("change", [False, True])
def test_a_file_changed_after_the_zips_first_part_is_zipped_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, change: bool
) -> None:
    """The zip's first part is compressed beside Pagefind (begin_zip). If a file it read changes
    before the zip is finished, the part is written again from the files as they are now, and the
    log says so: the zip never holds a file's earlier bytes. Unchanged, the
    zip is byte for byte the one written in one go."""
    site = tmp_path / "site"
    files = {
        "index.html": "<!doctype html><p>home</p>",
        "assets/a.js": "let a = 1;",
        "pagefind/x.pf_index": "index",
        "downloads/bank.csv": "q,a",
    }
    for path, text in files.items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text(text, encoding="utf-8")
    languages = [offline.Language(LANGUAGES.main.lang, "", LANGUAGES.main.html_lang)]
    whole = offline.write_zip(site, languages)[0].read_bytes()
    first = offline._zip_first(site, languages)
    if change:
        (site / "assets/a.js").write_text("let a = 2; // changed", encoding="utf-8")
    with caplog.at_level("INFO"):
        out, packed = offline.write_zip(site, languages, offline.parallel.Side(lambda: first, fork=False))
    with zipfile.ZipFile(out) as zf:
        assert zf.read(f"{offline.ZIP_FOLDER}/assets/a.js").decode() == (site / "assets/a.js").read_text()
        names = [n.split("/", 1)[1] for n in zf.namelist()]
    assert names[-2:] == ["downloads/bank.csv", "pagefind/x.pf_index"] and set(files) <= set(packed)
    if change:
        assert "assets/a.js changed while the offline zip was written" in caplog.text
    else:
        assert not caplog.text and out.read_bytes() == whole


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_a_download_the_reader_asks_for_reads_and_searches_offline(seed_site: Path, browser: object, lang: str) -> None:
    """zh: a bank from its page; en and zh-Hant: the whole language from the home page. The control
    shows the download's compressed size, then its progress, then what it stores; the cache holds every
    file of it as built, offline a page of each kind opens and search finds a question; Remove frees it
    again."""
    prefix = LANGUAGES[lang].root
    where, scope = (prefix + "ai-infra-3/", f"bank:{lang}:ai-infra-3") if lang == "zh" else (prefix, f"lang:{lang}")
    manifest = _manifest(seed_site)
    files = offline.scope_files([_site_file(row) for row in manifest["files"]], scope)  # type: ignore[attr-defined]
    size = manifest["scopes"][scope]  # type: ignore[index]
    assert size == sum(f.gz for f in files)
    ctx = browser.new_context()  # type: ignore[attr-defined]
    page = ctx.new_page()
    with _Server(seed_site) as server:
        page.goto(server.url + where)
        row = page.locator(".qa-offline-control__row").last
        button = row.locator("button")
        assert button.inner_text() == said(lang, "下载（", "Download (") + _size(size) + said(lang, "）", ")")
        button.click()
        # The outcome comes last (overrides/sw.js): once it says so, the row already shows what it stores.
        page.wait_for_function(
            "(t) => document.querySelector('.qa-offline-control__said').textContent === t",
            arg=said(lang, "下载完成：断网也能阅读和搜索。", "Downloaded: you can read and search it offline."),
            timeout=WAIT_MS,
        )
        assert row.locator(".qa-offline-control__state").inner_text().startswith(said(lang, "已保存", "Stored"))
        assert button.inner_text() == said(lang, "删除", "Remove")
        # what the worker fetched (its Referer), not the browser's update checks of sw.js
        downloaded = {p for _, p, referer in server.log if referer.endswith("/sw.js")} - {offline.MANIFEST, "sw.js"}
        keys = {server.path(u) for u in page.evaluate(_CACHE_KEYS, _cache_name(seed_site))}
        # the worker's rule (sw.js inScope) is studysite/site/offline.py's: it downloaded only files of the
        # scope, and the cache now holds every one
        urls = {f.url for f in files}
        assert downloaded <= urls, downloaded - urls
        assert urls <= keys, urls - keys
        # and the control says what the cache holds: the scope's size, and every file of the site there
        sizes = {str(r[0]): int(r[1]) for r in manifest["files"]}  # type: ignore[attr-defined]
        stored_size = said(lang, "已保存，占用 ", "Stored, ") + _size(sum(f.size for f in files))
        assert row.locator(".qa-offline-control__state").inner_text() == stored_size
        assert page.locator(".qa-offline-control__summary").inner_text() == _holds(lang, keys, sizes)

        # every file of the download is stored byte for byte as built: offline, the worker answers from
        # the cache alone (sw.js `respond`, the same lookup for every address)
        stored = {server.path(u): d for u, d in page.evaluate(_CACHE_DIGESTS, _cache_name(seed_site)).items()}
        for f in files:
            assert stored.get(f.url) == _sha(seed_site / unquote(_file_of(f.url))), f.url

        ctx.set_offline(True)
        # and a page of each kind opens from it, with its scripts and styles (opening all 35 pages of a
        # language took ~10 s of the suite per language; their bytes are checked above)
        for url in _one_page_of_each_kind(seed_site, files, prefix):
            response = page.goto(server.url + url)
            assert response is not None and response.ok, url
            assert page.locator("article").count() == 1, url
        # an address with a query (a shared link, a tracker's tag) is the same file: found in the cache
        response = page.goto(server.url + prefix + Q_OTHER + "?from=share#top")
        assert response is not None and response.ok
        assert page.locator("article").count() == 1
        assert server.url + prefix + Q_SEARCHED in _search(page, SEARCH_TERM)

        ctx.set_offline(False)
        page.goto(server.url + where)
        button = page.locator(".qa-offline-control__row").last.locator("button")
        page.wait_for_function(
            "(t) => document.querySelector('.qa-offline-control__row:last-child button').textContent === t",
            arg=said(lang, "删除", "Remove"),
        )
        button.click()
        page.wait_for_function(
            "(t) => document.querySelector('.qa-offline-control__said').textContent === t",
            arg=said(lang, "已删除。", "Removed."),
        )
        left = {server.path(u) for u in page.evaluate(_CACHE_KEYS, _cache_name(seed_site))}
        assert not {f.url for f in files if f.kind == "page"} & left, left
        assert page.locator(".qa-offline-control__summary").inner_text() == _holds(lang, left, sizes)
        assert button.inner_text().startswith(said(lang, "下载", "Download"))
    ctx.close()


def test_save_data_keeps_nothing_unless_the_reader_downloads(seed_site: Path, browser: object) -> None:
    """With Save-Data on, browsing registers no worker and stores nothing; the control says a download
    uses data, and the reader can still download (and what is browsed afterwards is not kept)."""
    ctx = browser.new_context()  # type: ignore[attr-defined]
    ctx.add_init_script(_SAVE_DATA)
    page = ctx.new_page()
    with _Server(seed_site) as server:
        for path in (Q_FIRST, Q_OTHER, "ai-infra-3/"):
            page.goto(server.url + path)
        note = page.locator(".qa-offline-control__note")
        assert note.is_visible() and "省流量" in note.inner_text()
        assert page.evaluate("navigator.serviceWorker.getRegistration().then((r) => !r)")
        assert page.evaluate("caches.keys()") == []
        assert {p for _, p, _ in server.log}.isdisjoint({"sw.js", offline.MANIFEST})
        page.locator(".qa-offline-control__row button").click()
        page.wait_for_function(
            "() => document.querySelector('.qa-offline-control__said').textContent.startsWith('下载完成')",
            timeout=WAIT_MS,
        )
        page.goto(server.url + "tags/")
        page.goto(server.url + "en/" + Q_OTHER)
        keys = {server.path(u) for u in page.evaluate(_CACHE_KEYS, _cache_name(seed_site))}
    assert "ai-infra-3/" in keys and Q_FIRST in keys
    assert "tags/" not in keys and "en/" + Q_OTHER not in keys
    ctx.close()


def test_a_failed_download_says_why_and_keeps_what_was_stored(seed_site: Path, browser: object) -> None:
    """The storage quota runs out in the middle of the whole site's download: the page says so, in
    its language, and the pages kept before (and the files stored before the failure) stay."""
    ctx = browser.new_context()  # type: ignore[attr-defined]
    page = ctx.new_page()
    with _Server(seed_site) as server:
        page.goto(server.url + Q_FIRST)
        page.goto(server.url + "en/")
        _wait_until_controlled(page)
        _poll(page, "async (u) => !!(await caches.match(u))", server.url + Q_FIRST)
        before = set(page.evaluate(_CACHE_KEYS, _cache_name(seed_site)))
        used = page.evaluate("navigator.storage.estimate().then((e) => e.usage)")
        cdp = ctx.new_cdp_session(page)
        cdp.send("Storage.overrideQuotaForOrigin", {"origin": server.url.rstrip("/"), "quotaSize": used + 300_000})
        page.locator(".qa-offline-control__row").first.locator("button").click()
        said = page.locator(".qa-offline-control__said")
        said.wait_for(state="visible", timeout=WAIT_MS)
        assert said.inner_text() == (
            "The download stopped: there is not enough storage space on this device. What was already saved is kept."
        )
        after = set(page.evaluate(_CACHE_KEYS, _cache_name(seed_site)))
        assert before <= after and len(after) > len(before)
        assert page.locator(".qa-offline-control__row").first.locator("button").inner_text().startswith("Download")
    ctx.set_offline(True)
    page.goto(server.url + Q_FIRST)
    assert page.inner_text("article.md-content__inner h1") == _h1(seed_site / Q_FIRST)
    ctx.close()


def test_a_download_cut_off_by_the_network_says_so_and_keeps_what_was_stored(seed_site: Path, browser: object) -> None:
    """The network goes away in the middle of a bank's download: the page says so in Chinese, offers the
    download again, and the files already stored (the pages read before, and the download's first
    files) stay."""
    ctx = browser.new_context()  # type: ignore[attr-defined]
    page = ctx.new_page()
    with _Server(seed_site, delay={"*": 0.3}) as server:
        page.goto(server.url + Q_FIRST)
        page.goto(server.url + "ai-infra-3/")
        _wait_until_controlled(page)
        _poll(page, "async (u) => !!(await caches.match(u))", server.url + Q_FIRST)
        before = set(page.evaluate(_CACHE_KEYS, _cache_name(seed_site)))
        page.locator(".qa-offline-control__row button").click()
        page.wait_for_function("() => document.querySelector('.qa-offline-control__bar').value > 0")
        ctx.set_offline(True)
        said = page.locator(".qa-offline-control__said")
        said.wait_for(state="visible", timeout=WAIT_MS)
        assert said.inner_text() == "下载未完成：网络中断了。已经保存的内容仍然保留，联网后可以再试。"
        after = set(page.evaluate(_CACHE_KEYS, _cache_name(seed_site)))
        assert before <= after and len(after) > len(before)
        assert page.locator(".qa-offline-control__row button").inner_text().startswith("下载")
    page.goto(server.url + Q_FIRST)
    assert page.inner_text("article.md-content__inner h1") == _h1(seed_site / Q_FIRST)
    ctx.close()


def test_a_download_can_be_cancelled(seed_site: Path, browser: object) -> None:
    """Cancel stops a download under way: the page says so, offers it again, and the files stored so far
    stay (the scope is not marked as downloaded)."""
    ctx = browser.new_context()  # type: ignore[attr-defined]
    page = ctx.new_page()
    with _Server(seed_site, delay={"*": 0.3}) as server:
        page.goto(server.url + "en/")
        page.goto(server.url + "en/ai-infra-3/")
        _wait_until_controlled(page)
        row = page.locator(".qa-offline-control__row")
        row.locator("button").click()
        page.wait_for_function("() => document.querySelector('.qa-offline-control__bar').value > 0")
        assert row.locator("button").inner_text() == "Cancel"
        row.locator("button").click()
        said = page.locator(".qa-offline-control__said")
        said.wait_for(state="visible", timeout=WAIT_MS)
        assert said.inner_text() == "Cancelled. The files already downloaded are kept."
        page.wait_for_function(
            "() => document.querySelector('.qa-offline-control__row button').textContent.startsWith('Download')"
        )
        stored = {server.path(u) for u in page.evaluate(_CACHE_KEYS, _cache_name(seed_site))}
        chosen = page.evaluate(
            "async (u) => (await (await caches.match(u)).json()).scopes", server.url + "__qa-offline/chosen.json"
        )
    scope = {
        f.url
        for f in offline.scope_files([_site_file(r) for r in _manifest(seed_site)["files"]], "bank:en:ai-infra-3")  # type: ignore[attr-defined]
    }
    assert chosen == []
    assert scope & stored and not scope <= stored  # some of it, not all
    ctx.close()


def test_a_download_pauses_while_the_reader_searches(seed_site: Path, browser: object) -> None:
    """A download the reader started requests no new file for a few seconds after each search (search.js
    tells the worker), so the search's own requests are not queued behind it; then it goes on and ends."""
    ctx = browser.new_context()  # type: ignore[attr-defined]
    page = ctx.new_page()
    with _Server(seed_site, delay={"*": 0.1}) as server:
        page.goto(server.url + "en/")
        page.goto(server.url + Q_OTHER)
        _wait_until_controlled(page)
        page.goto(server.url)
        page.locator(".qa-offline-control__row button").first.click()  # the whole site: a long download
        # (the progress bar moves first for files already kept: wait for the first file from the network)
        _wait_until(lambda: _worker_downloads(server.log))
        searched = time.monotonic()
        assert server.url + Q_SEARCHED in _search(page, SEARCH_TERM)
        # Once the download has gone on after the pause, the rest need not crawl: it only has to end
        # (the slow answers are there to make the pause visible; they kept this test ~5 s longer).
        _wait_until(lambda: [t for t in _worker_downloads(server.log) if t > searched + 2.5], "the download goes on")
        server.release()
        page.wait_for_function(
            "() => document.querySelector('.qa-offline-control__said').textContent.startsWith('下载完成')",
            timeout=WAIT_MS,
        )
        log = list(server.log)
    by_worker = _worker_downloads(log)
    # requests already past the check when the reader searched may still start in the first moment
    paused = [round(t - searched, 2) for t in by_worker if searched + 0.5 < t < searched + 2.5]
    assert paused == [], paused
    assert [t for t in by_worker if t < searched] and [t for t in by_worker if t > searched + 2.5]
    ctx.close()


def test_a_new_deploy_updates_the_download_and_keeps_unchanged_visited_pages(
    seed_site: Path, second_build: tuple[Path, str], browser: object
) -> None:
    """The reader read two English pages and downloaded the Chinese bank; after a deploy that changed
    one question (and the home pages), the new worker holds the new bank (the changed page downloaded
    again) and the visited page the deploy did not change; the visited page it changed is neither
    kept nor downloaded again."""
    second, changed = second_build
    v2 = _version(second)
    ctx = browser.new_context()  # type: ignore[attr-defined]
    page = ctx.new_page()
    with _Server(seed_site) as server:
        page.goto(server.url + "en/")  # the deploy changes it (its control's sizes)
        page.goto(server.url + "en/" + Q_OTHER)  # the deploy leaves it as it is
        _wait_until_controlled(page)
        _poll(page, "async (u) => !!(await caches.match(u))", server.url + "en/" + Q_OTHER)
        page.goto(server.url + "ai-infra-3/")
        page.locator(".qa-offline-control__row button").click()
        page.wait_for_function(
            "() => document.querySelector('.qa-offline-control__said').textContent.startsWith('下载完成')",
            timeout=WAIT_MS,
        )
        old = {server.path(u) for u in page.evaluate(_CACHE_KEYS, _cache_name(seed_site))}
        page.goto(server.url + changed)
        assert NEW_LINE not in page.inner_text("article")

        server.directory = second  # the deploy
        mark = len(server.log)
        page.reload()
        _poll(
            page, "async (want) => JSON.stringify(await caches.keys()) === JSON.stringify([want])", "qa-offline-" + v2
        )
        # what the worker fetched (its Referer), not the browser's update checks of sw.js
        fetched = {p for _, p, referer in server.log[mark:] if referer.endswith("/sw.js")} - {offline.MANIFEST, "sw.js"}
        stored = page.evaluate(_CACHE_DIGESTS, "qa-offline-" + v2)
    new_files = {row[0]: row for row in _manifest(second)["files"]}  # type: ignore[attr-defined]
    old_files = {row[0]: row for row in _manifest(seed_site)["files"]}  # type: ignore[attr-defined]
    bank = {f.url for f in offline.scope_files([_site_file(r) for r in new_files.values()], "bank:zh:ai-infra-3")}
    # every byte in the new cache is the second build's
    for url, digest in stored.items():
        if server.path(url) in new_files:
            assert digest == _sha(second / _file_of(server.path(url))), url
    kept = {server.path(u) for u in stored}
    assert bank <= kept, bank - kept
    assert changed in fetched
    assert fetched <= {u for u in bank if old_files.get(u, [None, None, None])[2] != new_files[u][2]}, fetched
    visited_same = {u for u in old - bank if u in new_files and old_files[u][2] == new_files[u][2]}
    assert "en/" + Q_OTHER in visited_same and visited_same <= kept
    visited_changed = {u for u in old - bank if u in new_files and old_files[u][2] != new_files[u][2]}
    assert "en/" in visited_changed
    assert not visited_changed & (kept | fetched)  # neither kept nor downloaded again: the reader did not choose it
    ctx.set_offline(True)
    page.goto(server.url + changed)
    assert NEW_LINE in page.inner_text("article")
    page.goto(server.url + "en/" + Q_OTHER)
    assert page.inner_text("article.md-content__inner h1") == _h1(second / "en" / Q_OTHER)
    ctx.close()


NEW_LINE = "离线副本测试：这一句只在第二次构建里。"
NEW_WORD = "离线副本测试"
OLD_WORD = "估算公式"
"""In the changed page's answer, just before NEW_LINE, in both builds."""


@pytest.fixture(scope="module")
def second_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The seed with NEW_LINE added to the first answer, built: (site, path of the changed page)."""
    work = tmp_path_factory.mktemp("second-build")
    banks = copy_banks(work / "banks")
    bank = banks / "ai-infra-3.txt"
    text = bank.read_text(encoding="utf-8")
    answer = re.search(r"^Q: .*\n(.*)\n", text, re.MULTILINE)  # the first answer's first line
    assert answer is not None
    bank.write_text(text[: answer.end(1)] + NEW_LINE + text[answer.end(1) :], encoding="utf-8")
    site = build_site(banks, work, strict=False)  # warns: the changed Chinese leaves its English stale
    return site, _page_with(site, NEW_LINE)


def test_an_open_page_learns_of_a_new_build(seed_site: Path, second_build: tuple[Path, str], browser: object) -> None:
    """Issue 13.10: pages open across a deploy offer "new version: reload" (in their language, as a
    status, dismissable) once the new worker has the new build; they keep searching (the new index);
    the reload and the next navigation show the new text."""
    second, changed = second_build
    ctx = browser.new_context()  # type: ignore[attr-defined]
    reader = ctx.new_page()
    with _Server(seed_site) as server:
        reader.goto(server.url)  # the second page registers the worker
        reader.goto(server.url + changed)
        _wait_until_controlled(reader)
        english = ctx.new_page()
        english.goto(server.url + "en/" + Q_OTHER)
        assert server.url + Q_SEARCHED in _search(reader, SEARCH_TERM)  # the first build's index is loaded
        assert NEW_LINE not in reader.inner_text("article")

        server.directory = second  # the deploy
        elsewhere = ctx.new_page()
        elsewhere.goto(server.url)  # any navigation: the browser looks for a new sw.js
        _until_the_new_worker_is_found(elsewhere, second)
        prompt = reader.locator(".qa-update")
        prompt.wait_for(timeout=WAIT_MS)
        assert prompt.get_attribute("role") == "status"
        assert prompt.locator("span").inner_text() == "本站有新版本。"
        assert reader.locator(".qa-update__reload").inner_text() == "重新加载"
        assert reader.locator(".qa-update__dismiss").get_attribute("aria-label") == "关闭提示"
        english.locator(".qa-update").wait_for(timeout=WAIT_MS)
        assert english.locator(".qa-update span").inner_text() == "A new version of this site is available."
        assert english.locator(".qa-update__reload").inner_text() == "Reload"
        english.click(".qa-update__dismiss")
        assert english.locator(".qa-update").count() == 0

        # The open page searches the new build: its new words, with its text.
        assert server.url + changed in _search(reader, NEW_WORD)
        assert NEW_WORD in reader.inner_text(".md-search-result__list")
        reader.keyboard.press("Escape")
        with reader.expect_navigation():
            reader.click(".qa-update__reload")
        assert NEW_LINE in reader.inner_text("article")
        assert reader.locator(".qa-update").count() == 0
        elsewhere.goto(server.url + changed)
        assert NEW_LINE in elsewhere.inner_text("article")
    ctx.close()


def test_screenshots_of_the_update_prompt(seed_site: Path, second_build: tuple[Path, str], browser: object) -> None:
    """For a person to look at: the prompt on a question page in both languages, in each look
    (sitekit.LOOKS; tests/artifacts/update-*.png); it stays within the window and axe finds nothing."""
    second, changed = second_build
    ctx = browser.new_context()  # type: ignore[attr-defined]
    pages = {}
    with _Server(seed_site) as server:
        first = ctx.new_page()
        first.goto(server.url)
        first.goto(server.url + "en/")  # the second page registers the worker
        _wait_until_controlled(first)
        for lang, prefix in (("zh", ""), ("en", "en/")):
            for name, scheme in LOOKS:
                width = VIEWPORTS[name]["width"]
                page = ctx.new_page()
                page.set_viewport_size(VIEWPORTS[name])
                page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
                page.goto(server.url + prefix + Q_OTHER)
                pages[f"{lang}-{name}-{scheme}"] = (page, width)
        # The deploy lands after each open page's own update check has reached the server (offline.js
        # checks as a page loads). Landing during one left the new worker waiting in Chromium, not
        # taking over, in 4 of 12 runs here before offline.js nudged it and in 1 of 3 full runs at 3
        # workers after; a reader's open pages then show no prompt until it does (seen: over 30 s).
        _wait_until(lambda: sum(path == "sw.js" for _, path, _ in server.log) >= 1 + len(pages), "update checks")
        server.directory = second
        first.goto(server.url + changed)
        _until_the_new_worker_is_found(first, second)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for key, (page, width) in pages.items():
            _wait_for_prompt(page, key, pages, server)
            box = page.locator(".qa-update").bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, (key, box)
            page.screenshot(path=str(ARTIFACTS / f"update-{key}.png"))
            assert axe_problems(page, f"update prompt, {key}", ".qa-update") == []
    ctx.close()


def test_a_page_without_the_worker_searches_the_new_build(
    seed_site: Path, second_build: tuple[Path, str], browser: object
) -> None:
    """Issue 13.10, without a service worker: the index loaded before a deploy is gone (its chunks 404,
    which Pagefind takes for "no such word"); the page notices the new index and asks again."""
    second, changed = second_build
    ctx = browser.new_context(service_workers="block")  # type: ignore[attr-defined]
    with _Server(seed_site) as server:
        pages = [ctx.new_page(), ctx.new_page()]
        for page in pages:
            page.goto(server.url + Q_OTHER)
            assert server.url + Q_SEARCHED in _search(page, SEARCH_TERM)
        server.directory = second
        # A word of the changed page that the loaded index has: its old text is gone (404).
        assert server.url + changed in _search(pages[0], OLD_WORD)
        assert NEW_WORD in pages[0].inner_text(".md-search-result__list")
        # A word only the new build has.
        assert server.url + changed in _search(pages[1], NEW_WORD)
        assert server.url + Q_SEARCHED in _search(pages[1], SEARCH_TERM)
    ctx.close()


def test_screenshots_of_the_download_control(seed_site: Path, browser: object) -> None:
    """For a person to look at: the control on the home page (sizes), on a bank page while it downloads
    (progress, Cancel) and once stored (Remove, what it takes), in both languages and each look
    (tests/artifacts/offline-control-*.png); it fits the window and axe finds nothing in it."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    slow = next(r[0] for r in _manifest(seed_site)["files"] if r[3] == "search" and r[6])  # type: ignore[attr-defined]
    for lang, prefix in (("zh", ""), ("en", "en/")):
        ctx = browser.new_context()  # type: ignore[attr-defined]
        page = ctx.new_page()
        with _Server(seed_site, delay={slow: 2.0}) as server:
            page.goto(server.url + prefix)
            page.locator(".qa-offline-control__row").first.wait_for()
            _shoot_control(page, lang, "home")
            page.goto(server.url + prefix + "ai-infra-3/")
            page.locator(".qa-offline-control__row button").click()
            page.locator(".qa-offline-control__bar").wait_for()
            page.wait_for_function("() => document.querySelector('.qa-offline-control__bar').value > 0")
            _shoot_control(page, lang, "downloading")
            server.release()  # the slow file was there to keep the download going for the picture
            page.locator(".qa-offline-control__said").wait_for(timeout=WAIT_MS)
            page.wait_for_function("() => !document.querySelector('.qa-offline-control__summary').hidden")
            _shoot_control(page, lang, "stored")
        ctx.close()


def _lang_of(path: str) -> str:
    """The language whose root a site path is under (the table's)."""
    return next((item.lang for item in LANGUAGES.extra if path.startswith(item.root)), LANGUAGES.main.lang)


def test_manifest_lists_every_file_with_its_hash(seed_site: Path) -> None:
    manifest = _manifest(seed_site)
    listed = {row[0]: row for row in manifest["files"]}
    on_disk = [
        p.relative_to(seed_site).as_posix()
        for p in seed_site.rglob("*")
        if p.is_file() and p.name not in ("sw.js", "offline-manifest.json") and "downloads" not in p.parts
    ]
    assert len(listed) == len(manifest["files"]) == len(on_disk)
    for path in on_disk:
        url = re.sub(r"(^|/)index\.html$", r"\1", path)
        _, size, digest, kind, lang, gz, bank = listed[url]
        data = (seed_site / path).read_bytes()
        assert (size, digest) == (len(data), hashlib.sha256(data).hexdigest()[:16]), path
        if path.endswith(".html"):
            assert (kind, lang) == ("page", _lang_of(path)), path
        if path.endswith(".map"):
            assert kind == "visit", path
        if kind != "visit":  # what a reader pays over gzip, to a few bytes (the zip's deflate size)
            assert abs(gz - len(zlib.compress(data, 6))) <= max(64, len(data) // 50), path
        indexed = path  # a search fragment belongs to the bank of the page it indexes
        if path.startswith("pagefind/fragment/"):
            indexed = json.loads(gzip.decompress(data)[len(b"pagefind_dcd") :])["url"].lstrip("/")
        in_bank = any(indexed.startswith(item.root + "ai-infra-3/") for item in LANGUAGES.items)
        assert bank == ("ai-infra-3" if in_bank and kind != "visit" else ""), path
    assert not (seed_site / "en" / "sw.js").exists()
    # Every themed page registers the one worker at the site root (404 pages: from the server root).
    themed = [p for p in seed_site.rglob("*.html") if 'id="__config"' in p.read_text(encoding="utf-8")]
    assert len(themed) > 30
    for page in themed:
        m = re.search(r'<script src="[^"]*assets/qa/offline\.js" data-qa-sw="([^"]+)" defer>', page.read_text("utf-8"))
        assert m is not None, page
        where = "/" + page.relative_to(seed_site).as_posix()
        assert posixpath.normpath(posixpath.join(posixpath.dirname(where), m.group(1))) == "/sw.js", page
    worker = (seed_site / "sw.js").read_text(encoding="utf-8")
    assert f'const VERSION = "{manifest["version"]}";' in worker
    assert "__QA_OFFLINE" not in worker


def test_offline_files_are_deterministic_and_follow_the_content(seed_site: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(seed_site, site)
    outputs = ("offline-manifest.json", "sw.js", offline.ZIP_PATH)
    assert offline.refresh_offline(site) == _version(seed_site)
    for name in outputs:
        assert (site / name).read_bytes() == (seed_site / name).read_bytes(), name
    page = site / Q_OTHER / "index.html"
    page.write_text(page.read_text(encoding="utf-8").replace("</article>", "<p>changed</p></article>"), "utf-8")
    assert offline.refresh_offline(site) != _version(seed_site)
    for name in outputs:
        assert (site / name).read_bytes() != (seed_site / name).read_bytes(), name


# --- the zip ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def unzipped(seed_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("zip")
    with zipfile.ZipFile(seed_site / offline.ZIP_PATH) as zf:
        zf.extractall(out)
    return out / offline.ZIP_FOLDER


def test_zip_holds_both_languages_in_one_folder(seed_site: Path) -> None:
    with zipfile.ZipFile(seed_site / offline.ZIP_PATH) as zf:
        names = zf.namelist()
        # A fixed order (the same site gives the same zip): the site's files by path, the study data
        # scripts, the decks (ZIP_DECKS), then the files Pagefind writes beside the zip's first part (ZIP_LAST)
        paths = [n.split("/", 1)[1] for n in names]
        scripts = {root + f for root in LANGUAGES.roots for f in (offline.FILE_DATA, offline.FILE_ANSWERS)}
        decks = [p for p in paths if p.startswith(offline.ZIP_DECKS)]
        last = [p for p in paths if p.startswith(offline.ZIP_LAST)]
        first = [p for p in paths if p not in (*scripts, *decks, *last)]
        assert decks and last
        assert paths == [*sorted(first), *sorted(scripts, key=paths.index), *sorted(decks), *sorted(last)]
        assert {n.split("/")[0] for n in names} == {offline.ZIP_FOLDER}
        assert all(info.date_time == (1980, 1, 1, 0, 0, 0) for info in zf.infolist())
        # already compressed files (decks, Pagefind's index) are stored as they are, the rest deflated
        how = {info.filename: info.compress_type for info in zf.infolist()}
        stored = {n for n, kind in how.items() if kind == zipfile.ZIP_STORED}
        assert stored == {n for n in how if n.endswith(offline.COMPRESSED)}
        assert any(n.endswith(".apkg") for n in stored) and any(n.endswith(".pf_fragment") for n in stored)
        assert set(how.values()) == {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}
    inside = {n.split("/", 1)[1] for n in names}
    assert offline.ZIP_PATH not in inside and "sw.js" not in inside
    with zipfile.ZipFile(seed_site / offline.ZIP_PATH) as zf:
        for name in names:
            if name.endswith(".html"):
                assert b"offline.js" not in zf.read(name), name  # no service worker in the copy
    pages = {p.relative_to(seed_site).as_posix() for p in seed_site.rglob("*.html") if p.name != "404.html"}
    assert pages <= inside
    assert {"index.html", "en/index.html", Q_FIRST + "index.html", "en/" + Q_FIRST + "index.html"} <= inside


def test_every_link_in_the_zip_resolves_to_a_file_in_it(unzipped: Path) -> None:
    files = {p.relative_to(unzipped).as_posix() for p in unzipped.rglob("*") if p.is_file()}
    broken, checked = [], 0
    for name in sorted(f for f in files if f.endswith(".html")):
        for tag, attr, url in _links((unzipped / name).read_text(encoding="utf-8")):
            if re.match(r"[a-z][a-z0-9+.-]*:", url, re.IGNORECASE) or url.startswith("#"):
                continue
            checked += 1
            target = posixpath.normpath(posixpath.join(posixpath.dirname(name), re.split(r"[?#]", url)[0]))
            if target not in files:
                broken.append(f"{name}: <{tag} {attr}={url!r}>")
    assert checked > 1000
    assert not broken, "\n".join(broken[:30])


def test_zip_reads_from_file_urls(unzipped: Path, browser: object) -> None:
    ctx = browser.new_context()  # type: ignore[attr-defined]
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(e.stack or str(e)))
    home = (unzipped / "index.html").as_uri()
    page.goto(home)
    notice = page.inner_text(".qa-zip-notice")
    assert offline.SERVE_COMMAND in notice and "http://127.0.0.1:8000/" in notice
    assert page.locator(".qa-download").count() == 0
    # home -> bank -> question, by clicking
    page.click('article a[href="ai-infra-3/index.html"]')
    page.wait_for_load_state()
    assert page.url == (unzipped / "ai-infra-3" / "index.html").as_uri()
    assert page.inner_text("article.md-content__inner h1") == _h1(unzipped / "ai-infra-3")
    page.click(f'article a[href="{Q_OTHER.split("/")[1]}/index.html"]')
    page.wait_for_load_state()
    assert page.inner_text("article.md-content__inner h1") == _h1(unzipped / Q_OTHER)
    # the sidebar's list of the bank's questions: the bank's nav.js is a script, which file:// loads
    listed = page.locator(".md-nav--primary .qa-banknav__list a")
    listed.first.wait_for()
    assert page.inner_text('.qa-banknav__list [aria-current="page"]') == _h1(unzipped / Q_OTHER)
    hrefs = [a.get_attribute("href") or "" for a in listed.all()]
    assert len(hrefs) == 14 and all(h.startswith(unzipped.as_uri()) and h.endswith("/index.html") for h in hrefs)
    assert (unzipped / Q_OTHER / "index.html").as_uri() in hrefs
    # the next-question link, the language switcher, the logo back home
    page.click(".qa-pager__next")
    page.wait_for_load_state()
    assert page.url.endswith("/index.html") and page.url != (unzipped / Q_OTHER / "index.html").as_uri()
    here = page.url[len(unzipped.as_uri()) + 1 :]
    page.click(".md-header__option .md-select button")
    page.click('.md-select__link[hreflang="en"]')
    page.wait_for_load_state()
    assert page.url == (unzipped / "en" / here).as_uri()
    assert page.evaluate("document.documentElement.lang") == "en"
    page.click(".md-header__button.md-logo")
    page.wait_for_load_state()
    assert page.url == (unzipped / "en" / "index.html").as_uri()
    assert "python3 -m http.server" in page.inner_text(".qa-zip-notice")
    assert not errors, errors
    ctx.close()


def test_screenshots_of_the_zip_home_pages(unzipped: Path, seed_site: Path, seed_url: str, browser: object) -> None:
    """For a person to look at: the notice on the zip's home pages (phone and desktop, light and dark),
    and the offline section of the site's own home pages."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for lang, prefix in (("zh", ""), ("en", "en/")):
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, service_workers="block")  # type: ignore[attr-defined]
        page = ctx.new_page()
        page.goto(seed_url + prefix + "#offline")
        link = page.locator(".qa-download a[download]")
        assert link.get_attribute("href") == ("" if lang == "zh" else "../") + offline.ZIP_PATH
        size = (seed_site / offline.ZIP_PATH).stat().st_size
        assert f"{size / 2**20:.1f} MB" in page.inner_text(".qa-download")
        box = page.locator(".qa-download").bounding_box()
        assert box is not None and box["x"] + box["width"] <= 390
        top = page.locator("#offline").bounding_box()
        assert top is not None
        page.screenshot(
            path=str(ARTIFACTS / f"offline-site-home-{lang}-phone-light.png"),
            full_page=True,
            clip={"x": 0, "y": top["y"] + page.evaluate("scrollY") - 16, "width": 390, "height": 260},
        )
        ctx.close()
    for lang, prefix in (("zh", ""), ("en", "en/")):
        for name, size, scheme in (("desktop", (1280, 900), "light"), ("phone", (390, 844), "dark")):
            ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}, color_scheme=scheme)  # type: ignore[attr-defined]
            page = ctx.new_page()
            page.goto((unzipped / prefix / "index.html").as_uri())
            page.locator(".qa-zip-notice").scroll_into_view_if_needed()
            box = page.locator(".qa-zip-notice").bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= size[0]
            assert page.evaluate(
                "(e) => e.scrollWidth <= e.clientWidth", page.locator(".qa-zip-notice").element_handle()
            )
            page.screenshot(path=str(ARTIFACTS / f"offline-zip-home-{lang}-{name}-{scheme}.png"))
            ctx.close()


# --- helpers ------------------------------------------------------------------------------------------


class _Server:
    """A local server whose folder can change under the same address (a deploy)."""

    def __init__(self, directory: Path, delay: dict[str, float] | None = None) -> None:
        self.directory = directory
        self.delay = delay or {}
        """Seconds to wait before answering, by site path; `*`: every request of the worker's."""
        self.log: list[tuple[float, str, str]] = []
        """(monotonic time the request arrived, site path, Referer) of every request."""
        self.released = threading.Event()
        """Set by `release`: no answer waits any longer."""
        self.url = ""
        """http://127.0.0.1:PORT/ while the server runs (inside `with`)."""
        self._serving = contextlib.ExitStack()

    def path(self, url: str) -> str:
        """A site path as an absolute URL, or an absolute URL as a site path."""
        return url[len(self.url) :] if url.startswith(self.url) else self.url + url

    def release(self) -> None:
        """Answer every request at once from now on, those already waiting too."""
        self.released.set()

    def __enter__(self) -> _Server:
        self.url = self._serving.enter_context(serving(functools.partial(_Handler, self))) + "/"
        return self

    def __exit__(self, *exc: object) -> None:
        self._serving.close()


class _Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, server: _Server, *args: object, **kwargs: object) -> None:
        self.site = server
        super().__init__(*args, directory=str(server.directory), **kwargs)  # type: ignore[arg-type]

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].lstrip("/")
        referer = self.headers.get("Referer", "")
        self.site.log.append((time.monotonic(), path, referer))
        worker = referer.endswith("/sw.js")
        self.site.released.wait(self.site.delay.get(path, self.site.delay.get("*", 0) if worker else 0))
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:
        pass


def _search(page: object, query: str) -> list[str]:
    """Type `query` into the search box as an input method commits it; the results' absolute URLs."""
    page.evaluate(  # type: ignore[attr-defined]
        """(q) => {
            const input = document.querySelector(".md-search__input");
            input.focus();
            input.value = q;
            input.dispatchEvent(new Event("input", {bubbles: true}));
            input.dispatchEvent(new KeyboardEvent("keyup", {bubbles: true, key: q.slice(-1)}));
        }""",
        query,
    )
    page.wait_for_function(  # type: ignore[attr-defined]
        """(q) => document.querySelector(".md-search__input").value === q
            && document.querySelector(".md-search-result").getAttribute("aria-busy") === "false" """,
        arg=query,
        timeout=WAIT_MS,
    )
    return page.evaluate("() => [...document.querySelectorAll('.md-search-result__link')].map((a) => a.href)")  # type: ignore[attr-defined,no-any-return]


def _worker_downloads(log: list[tuple[float, str, str]]) -> list[float]:
    """When the worker requested each file it downloads (not its own update checks, sw.js, nor the manifest)."""
    return [
        t for t, path, referer in list(log) if referer.endswith("/sw.js") and path not in ("sw.js", offline.MANIFEST)
    ]


def _wait_until(predicate: Callable[[], object], what: str = "", every: float = 0.02) -> None:
    """Wait (up to WAIT_MS) until `predicate()` holds, checking every `every` seconds."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while not predicate():
        assert time.monotonic() < deadline, f"timed out: {what}"
        time.sleep(every)


def _wait_until_controlled(page: object) -> None:
    """The worker installed (everything precached) and took over the page."""
    page.wait_for_function("!!navigator.serviceWorker.controller", timeout=WAIT_MS)  # type: ignore[attr-defined]


def _poll(page: object, predicate: str, arg: object) -> None:
    """Wait until an async predicate holds in the page (wait_for_function does not await promises); on
    a timeout, say where the page's workers stand (installing, waiting, active) and what caches exist."""
    try:
        _wait_until(lambda: page.evaluate(predicate, arg), predicate, every=0.2)  # type: ignore[attr-defined]
    except AssertionError as error:
        state = page.evaluate(_WORKER_STATE)  # type: ignore[attr-defined]
        raise AssertionError(f"{error}\nworkers and caches: {json.dumps(state)}") from None


def _wait_for_prompt(page: object, key: str, pages: dict[str, tuple[object, int]], server: _Server) -> None:
    """Wait for the update prompt on `page`; on a timeout, say where every open page's worker stands."""
    try:
        page.locator(".qa-update").wait_for(timeout=WAIT_MS)  # type: ignore[attr-defined]
    except Exception as error:
        states = {k: p.evaluate(_WORKER_STATE) for k, (p, _w) in pages.items()}  # type: ignore[attr-defined]
        asked = [(round(t, 2), path) for t, path, _r in server.log if path in ("sw.js", "offline-manifest.json")]
        raise AssertionError(f"no prompt on {key}: {json.dumps(states, indent=1)}\nrequests: {asked}") from error


_WORKER_STATE = """async () => {
  const r = await navigator.serviceWorker.getRegistration();
  const state = (w) => w && w.state;
  return {controller: state(navigator.serviceWorker.controller), active: state(r && r.active),
    waiting: state(r && r.waiting), installing: state(r && r.installing), caches: await caches.keys()};
}"""


def _until_the_new_worker_is_found(page: object, second: Path) -> None:
    """After a deploy: wait until the browser has found the new sw.js (the build in `second`). A page's
    update check joins an update already in flight, and the pages opened just before the deploy may
    have started one that fetched the old sw.js (seen in a fresh clone: no new worker, no prompt in
    30 s); so check again until a new worker is installing or waiting, or has its cache (it may have
    taken over before this page loaded, which then shows no prompt: the pages open before do)."""
    _poll(page, _NEW_WORKER, "qa-offline-" + _version(second))


_NEW_WORKER = """async (cache) => {
  const found = async (r) => !!(r.installing || r.waiting || (await caches.has(cache)));
  const registration = await navigator.serviceWorker.getRegistration();
  if (await found(registration)) return true;
  await registration.update().catch(() => {});
  return await found(registration);
}"""


def _cache_names(page: object) -> list[str]:
    return page.evaluate("caches.keys()")  # type: ignore[attr-defined,no-any-return]


def _href_of(absolute: list[str], target: str, page: object) -> str:
    """The href attribute (as written) of the result link that points at `target`."""
    hrefs = page.evaluate(
        "() => [...document.querySelectorAll('.md-search-result__link')].map((a) => a.getAttribute('href'))"
    )  # type: ignore[attr-defined]
    return str(hrefs[absolute.index(target)])


def _shoot_control(page: object, lang: str, state: str) -> None:
    """Screenshots of the page at the offline control in each look; it fits, and axe finds nothing in it."""
    for name, scheme in LOOKS:
        width = VIEWPORTS[name]["width"]
        page.set_viewport_size(VIEWPORTS[name])  # type: ignore[attr-defined]
        page.emulate_media(color_scheme=scheme)  # type: ignore[attr-defined]
        control = page.locator(".qa-offline-control")  # type: ignore[attr-defined]
        control.scroll_into_view_if_needed()
        # the scheme's colours fade in (Material's transitions): shot and checked once they are there
        page.evaluate("() => Promise.allSettled(document.getAnimations().map((a) => a.finished))")  # type: ignore[attr-defined]
        box = control.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, (state, name, box)
        assert page.evaluate("(e) => e.scrollWidth <= e.clientWidth", control.element_handle())  # type: ignore[attr-defined]
        page.screenshot(path=str(ARTIFACTS / f"offline-control-{state}-{lang}-{name}-{scheme}.png"))  # type: ignore[attr-defined]
        assert axe_problems(page, f"offline control, {state}, {name}, {scheme}", ".qa-offline-control") == []


def _site_file(row: list[object]) -> offline.SiteFile:
    """A manifest row as studysite/site/offline.py's SiteFile (the path: its URL)."""
    url, size, digest, kind, lang, gz, bank = row
    return offline.SiteFile(str(url), str(url), int(size), str(digest), str(kind), str(lang), int(gz), str(bank))  # type: ignore[call-overload]


def _size(n: int) -> str:
    """A size as offline.js shows it."""
    return f"{max(1, round(n / 1024))} KB" if n < 1024 * 1024 else f"{n / 1048576:.1f} MB"


def _holds(lang: str, paths: set[str], sizes: dict[str, int]) -> str:
    """The control's summary for a cache holding `paths` (the site's files among them, by `sizes`)."""
    held = [sizes[p] for p in paths if p in sizes]
    text = said(
        lang,
        "这个浏览器里一共保存了本站 {n} 个文件，占用 {size}。",
        "This browser holds {n} files of this site, {size} in all.",
    )
    return text.replace("{n}", str(len(held))).replace("{size}", _size(sum(held)))


_SAVE_DATA = "Object.defineProperty(Navigator.prototype, 'connection', {get: () => ({saveData: true})});"
"""The reader turned Data Saver on (Chromium's emulation has no switch for navigator.connection.saveData)."""
_CACHE_KEYS = "async (n) => (await (await caches.open(n)).keys()).map((r) => r.url)"
_CACHE_DIGESTS = """async (name) => {
    const cache = await caches.open(name);
    const out = {};
    for (const request of await cache.keys()) {
        const bytes = await (await cache.match(request)).arrayBuffer();
        const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
        out[request.url] = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
    }
    return out;
}"""


def _one_page_of_each_kind(site: Path, files: list[offline.SiteFile], prefix: str) -> list[str]:
    """The first page (not 404.html) of each kind in `files`: of each first folder below the language's
    root and depth (the home page, a bank, a question, the tags, a tag, the glossary, ...) and each set
    of scripts and stylesheets its HTML loads (the review, stats and mock pages share a folder)."""
    first: dict[tuple[str, int, frozenset[str]], str] = {}
    for f in files:
        if f.kind == "page" and not f.url.endswith("404.html"):
            parts = f.url[len(prefix) :].strip("/").split("/")
            html = (site / unquote(_file_of(f.url))).read_text(encoding="utf-8")
            assets = frozenset(re.findall(r'<(?:script[^>]* src|link[^>]* href)="([^"]+\.(?:js|css))"', html))
            first.setdefault((parts[0], len(parts), assets), f.url)
    return list(first.values())


def _file_of(url_path: str) -> str:
    return url_path + "index.html" if url_path == "" or url_path.endswith("/") else url_path


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _manifest(site: Path) -> dict[str, object]:
    return json.loads((site / "offline-manifest.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _version(site: Path) -> str:
    return str(_manifest(site)["version"])


def _cache_name(site: Path) -> str:
    return "qa-offline-" + _version(site)


def _h1(folder: Path) -> str:
    """The text of a built page's <h1>."""
    page = (folder / "index.html").read_text(encoding="utf-8")
    m = re.search(r"<h1[^>]*>(.*?)</h1>", page, re.DOTALL)
    assert m is not None, folder
    return html.unescape(re.sub(r"<[^>]+>", "", m.group(1))).strip()


def _page_with(site: Path, text: str) -> str:
    """The site path of the one Chinese question page that shows `text`."""
    hits = [
        p.parent.relative_to(site).as_posix() + "/"
        for p in site.glob("ai-infra-3/*/index.html")
        if p.parent.name != "print" and text in p.read_text(encoding="utf-8")
    ]
    assert len(hits) == 1, hits
    return hits[0]


def _links(page: str) -> Iterator[tuple[str, str, str]]:
    found: list[tuple[str, str, str]] = []

    class _P(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            for attr, value in attrs:
                if value is not None and (attr, tag) in _LINK_ATTRS:
                    found.append((tag, attr, value))

    _P().feed(page)
    yield from found


_LINK_ATTRS = {("href", "a"), ("href", "link"), ("src", "script"), ("src", "img"), ("src", "iframe"), ("src", "source")}
