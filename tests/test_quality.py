"""The web's quality checks on the built site (issue 7): the Pages workflow, requests, HTML, links, 404, sharing.

Most checks run on a site built the way GitHub Pages publishes it: site_url https://example.github.io/ai-infra/,
served under /ai-infra/ by a server that behaves like Pages (tests/qualitykit.py). Its banks are the seed
minus its last question (a removed page: noindex, not in the sitemap) plus one whose text is full of markup.
Accessibility (axe) is in tests/test_a11y.py, Lighthouse in tests/test_lighthouse.py.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from studysite.enrich.convert import convert_text
from studysite.i18n import STRINGS
from studysite.languages import LANGUAGES
from tests.qualitykit import (
    LINKCHECKER,
    PAGES_SITE_URL,
    VNU,
    actionlint,
    open_search,
    serve_pages,
)
from tests.sitekit import ARTIFACTS, ROOT, build_site, copy_banks, settle

WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"
CI_WORKFLOW = ROOT / ".github" / "workflows" / "ci.yml"
QUESTION = "ai-infra-3/two-batch-overlap/"
MARKUP_SLUG = "ai-infra-3/html-b/"  # a new question's slug comes from its Chinese terms
MARKUP_QUESTION = {
    "zh": (
        '如何在 HTML 里写 <b> & "引号"？',
        "答案里的 <script>alert(\"x\")</script> & 'quote' 必须原样显示，AllReduce 也是。",
    ),
    "en": (
        'How do you write <b> & "quotes" in HTML?',
        "The answer's <script>alert(\"x\")</script> & 'quote' must show as written, AllReduce too.",
    ),
}
REMOVED_SLUG = "ai-infra-3/porting-operators-ampere-architecture-hopper-architecture/"
# A converted language's markup question is its source's, converted as the build converts it.
MARKUP_QUESTION.update(
    {
        item.lang: tuple(convert_text(text, item.opencc) for text in MARKUP_QUESTION[item.convert_from])  # type: ignore[misc]
        for item in LANGUAGES.items
        if item.source == "converted"
    }
)
SITE_NAME = {"zh": "AI Infra 面试题库", "en": "AI Infra Interview Questions", "zh-Hant": "AI Infra 面試題庫"}
OG_LOCALE = {item.lang: STRINGS["locale.og"][item.lang] for item in LANGUAGES.items}


@pytest.fixture(scope="module")
def pages_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("pages-site")
    banks = copy_banks(work / "banks")
    for lang, name in (("zh", "ai-infra-3.txt"), ("en", "ai-infra-3.en.txt")):
        path = banks / name
        text = path.read_text(encoding="utf-8").rsplit("\nQ:", 1)[0]  # drop the last question
        question, answer = MARKUP_QUESTION[lang]
        key = "@html-b\n" if lang == "en" else ""  # the English says which question it translates
        path.write_text(f"{text}\nQ: {question}\n{key}{answer}\n", encoding="utf-8")
    return build_site(banks, work, site_url=PAGES_SITE_URL, strict=False)  # its edited banks warn


@pytest.fixture(scope="module")
def pages_url(pages_site: Path):  # type: ignore[no-untyped-def]
    with serve_pages(pages_site) as url:
        yield url


# --- 1. The GitHub Pages workflow ---------------------------------------------------------------


def test_pages_workflow_passes_actionlint() -> None:
    workflows = sorted((ROOT / ".github" / "workflows").glob("*.y*ml"))
    assert WORKFLOW in workflows and CI_WORKFLOW in workflows
    problems = actionlint(*workflows)
    assert problems == [], "\n".join(f"{p['file']}:{p['line']}:{p['column']}: {p['message']}" for p in problems)


@pytest.mark.parametrize(
    ("old", "new", "kind"),
    [
        ("needs: [test, address]\n", "needs: [test, adress]\n", "job-needs"),  # a job that does not exist
        ("id-token: write", "id-tokens: write", "permissions"),  # no such permission
        ("needs.address.outputs.base_url", "needs.address.outputs.baseurl", "expression"),  # no such output
        ("actions/deploy-pages@v5", "actions/deploy-pages@v4", "action"),  # an action a major version behind
    ],
)
def test_actionlint_catches_a_broken_workflow(tmp_path: Path, old: str, new: str, kind: str) -> None:
    """The linter really reads our workflow: one broken line in it is reported."""
    text = WORKFLOW.read_text(encoding="utf-8")
    assert old in text
    broken = tmp_path / "pages.yml"
    broken.write_text(text.replace(old, new, 1), encoding="utf-8")
    assert any(p["kind"] == kind for p in actionlint(broken)), actionlint(broken)


def test_pages_workflow_builds_everywhere_and_deploys_main_with_least_permissions() -> None:
    """CI (ci.yml) runs `make test` on every push and pull request; Pages (pages.yml) runs the same
    tests on main, then builds once (the PDF from that build) and deploys only after both."""
    ci = yaml.safe_load(CI_WORKFLOW.read_text(encoding="utf-8"))
    on = ci[True]  # YAML 1.1 reads the key `on` as True
    assert on["push"] == {"branches-ignore": ["main"]} and "pull_request" in on and "workflow_call" in on
    assert ci["permissions"] == {"contents": "read"}
    (test,) = ci["jobs"].values()
    assert test["runs-on"] == "ubuntu-24.04"  # a pinned image, not ubuntu-latest
    assert [s["run"] for s in test["steps"] if s.get("name") == "make test"] == ["make test"]
    ci_uses = {s["uses"].split("@")[0]: s for s in test["steps"] if "uses" in s}
    assert ci_uses["actions/setup-python"]["with"]["cache"] == "pip"
    assert ci_uses["actions/setup-node"]["with"]["cache"] == "npm"
    assert int(ci_uses["actions/setup-node"]["with"]["node-version"]) >= 22  # Node 20 is past its end of life

    flow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    on = flow[True]
    assert on["push"]["branches"] == ["main"] and "pull_request" not in on
    assert flow["permissions"] == {"contents": "read"}
    jobs = flow["jobs"]
    assert jobs["test"] == {"uses": "./.github/workflows/ci.yml"}
    assert jobs["build"]["needs"] == ["test", "address"] and jobs["deploy"]["needs"] == "build"
    # only the deploy job may publish; the job that reads the Pages address only reads
    assert jobs["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert jobs["address"]["permissions"] == {"pages": "read"}
    assert "permissions" not in jobs["build"]
    assert jobs["deploy"]["if"] == "github.ref == 'refs/heads/main'"
    assert jobs["deploy"]["concurrency"]["group"] == "pages"
    assert jobs["deploy"]["concurrency"]["cancel-in-progress"] is False
    assert {job.get("runs-on") for name, job in jobs.items() if name != "test"} == {"ubuntu-24.04"}
    steps = jobs["build"]["steps"]
    uses = {s["uses"].split("@")[0]: s for s in steps if "uses" in s}
    assert uses["actions/setup-python"]["with"]["python-version"] == "3.11"
    assert int(uses["actions/setup-node"]["with"]["node-version"]) >= 22
    assert uses["actions/upload-pages-artifact"]["with"]["path"] == "site"
    assert [s["uses"].split("@")[0] for s in jobs["deploy"]["steps"]] == ["actions/deploy-pages"]
    assert [s["uses"].split("@")[0] for s in jobs["address"]["steps"]] == ["actions/configure-pages"]
    runs = [s.get("run", "") for s in steps]
    # one build: `make pdf` builds the site and prints the PDFs from it; no separate `make site`
    assert not [r for r in runs if "make site" in r]
    pdf_step = next(i for i, r in enumerate(runs) if r.strip() == "make pdf")
    apt_step = next(i for i, r in enumerate(runs) if "apt-get install" in r)
    url_step = next(i for i, r in enumerate(runs) if "SITE_URL=" in r)
    assert url_step < apt_step < pdf_step
    assert "chromium" in runs[apt_step] and "fonts-noto-cjk" in runs[apt_step]
    assert steps[pdf_step]["env"]["STUDYSITE_REPO_URL"] == "${{ github.server_url }}/${{ github.repository }}"
    # the address comes from configure-pages, through an env variable (never pasted into the script)
    assert steps[url_step]["env"]["BASE_URL"] == "${{ needs.address.outputs.base_url }}"
    assert "${{" not in runs[url_step]


def test_dependabot_watches_pip_npm_and_actions() -> None:
    config = yaml.safe_load((ROOT / ".github" / "dependabot.yml").read_text(encoding="utf-8"))
    assert sorted(u["package-ecosystem"] for u in config["updates"]) == ["github-actions", "npm", "pip"]


def test_readme_says_how_to_turn_pages_on() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "Settings → Pages" in readme and "GitHub Actions" in readme
    assert "启用" in readme or "开启" in readme


# --- 2. No third-party requests, nothing failing ------------------------------------------------


class _Traffic:
    """Every request a browser context makes (pages and service worker), what failed, console errors."""

    def __init__(self, context: object) -> None:
        self.requests: list[str] = []
        self.problems: list[str] = []
        on = context.on  # type: ignore[attr-defined]
        on("request", lambda r: self.requests.append(r.url))
        on("requestfailed", lambda r: self.problems.append(f"failed: {r.url} ({r.failure})"))
        on("response", lambda r: r.status >= 400 and self.problems.append(f"HTTP {r.status}: {r.url}"))
        on("console", lambda m: m.type == "error" and self.problems.append(f"console error: {m.text} {m.location}"))
        on("weberror", lambda e: self.problems.append(f"uncaught: {e.error}"))

    def foreign(self) -> list[str]:
        return [u for u in self.requests if not re.match(r"(https?://127\.0\.0\.1[:/]|data:|blob:)", u)]


@pytest.mark.parametrize("lang", LANGUAGES.codes)
@pytest.mark.parametrize("where", ["pages", "seed"])
def test_pages_request_nothing_from_other_hosts_and_nothing_fails(
    request: pytest.FixtureRequest, browser: object, lang: str, where: str
) -> None:
    """Home, a question and a search: every request stays on 127.0.0.1 and succeeds; no console error.

    "pages": under /ai-infra/ with an absolute https site_url (as deployed); "seed": at / (as `make serve`).
    """
    base = request.getfixturevalue("pages_url" if where == "pages" else "seed_url")
    root = base + LANGUAGES[lang].root
    context = browser.new_context()  # type: ignore[attr-defined]
    traffic = _Traffic(context)
    page = context.new_page()
    try:
        for path in ("", QUESTION):
            page.goto(root + path, wait_until="networkidle")
            assert page.evaluate("document.documentElement.lang") == LANGUAGES[lang].html_lang
        results = open_search(page, "AllReduce")
        assert results, "the search found nothing"
        page.wait_for_load_state("networkidle")
    finally:
        context.close()
    assert traffic.foreign() == [], "requests to other hosts"
    assert any("pagefind" in u for u in traffic.requests), "the search loaded no Pagefind files"
    assert traffic.problems == []


# --- 5. Valid HTML, links, 404 ------------------------------------------------------------------

# The Nu HTML checker's only errors allowed, each inside markup the theme prints outside any block
# an override can replace.
VNU_THEME_ERRORS = [
    # Material's base.html writes `<input class="md-toggle" type="checkbox" autocomplete="off">` for the
    # drawer and search toggles straight into <body>, outside every template block: only a full copy
    # of base.html could drop the attribute (it stops Firefox restoring the toggles' state on reload).
    (
        re.compile(r"^Attribute “autocomplete” is only allowed when the input type is "),
        re.compile(r'<input class="md-toggle" data-md-toggle="(drawer|search)" type="checkbox" id="__(drawer|search)"'),
    ),
]


def test_every_built_page_is_valid_html(seed_site: Path) -> None:
    pages = sorted(p for p in seed_site.rglob("*.html") if "pagefind" not in p.parts)
    assert len(pages) > 30
    # One short run of the JVM: its quick compiler alone (TieredStopAtLevel=1) gives the same messages
    # for half the CPU (105 pages: 2.3-2.6 s against 4.8-4.9 s, two rounds, 2026-12-06).
    proc = subprocess.run(
        [
            "java",
            "-Xss2m",
            "-XX:TieredStopAtLevel=1",
            "-jar",
            str(VNU),
            "--errors-only",
            "--format",
            "json",
            *map(str, pages),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    messages = json.loads(proc.stderr or proc.stdout)["messages"]
    errors = [
        m
        for m in messages
        if m["type"] != "info"
        and not any(msg.search(m["message"]) and ext.search(m.get("extract", "")) for msg, ext in VNU_THEME_ERRORS)
    ]
    seen = [m for m in messages if m["type"] != "info"]
    assert seen, "the checker reported nothing at all: the theme's known errors should be there"
    assert errors == [], "\n".join(
        f"{Path(m['url']).relative_to(seed_site) if m.get('url', '').startswith('/') else m.get('url')}:"
        f"{m.get('lastLine')}: {m['message']}  [{m.get('extract', '').strip()[:120]}]"
        for m in errors[:30]
    )


def test_no_broken_internal_links_or_anchors(pages_url: str, tmp_path: Path) -> None:
    # One checking thread: linkchecker is Python, and its threads contend for one interpreter. The same
    # 639 links of the seed checked with 8.1-8.6 s of CPU on one thread against 13.8-17.7 s on eight
    # (and 9.4-10.5 s on two), in less wall time too (2026-12-06, this 2-core machine).
    config = tmp_path / "linkcheckerrc"
    config.write_text(
        "[checking]\nthreads=1\nmaxrequestspersecond=1000\n[filtering]\ncheckextern=0\n[AnchorCheck]\n",
        encoding="utf-8",
    )
    config.chmod(0o644)
    tmp_path.chmod(0o755)  # linkchecker run as root drops privileges to `nobody`, which must read it
    proc = subprocess.run(
        [str(LINKCHECKER), "--config", str(config), "--no-status", "--recursion-level=-1", pages_url],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    out = proc.stdout + proc.stderr
    summary = re.search(r"(\d+) links? in (\d+) URLs? checked\. (\d+) warnings? found\. (\d+) errors? found", out)
    assert summary, out[-3000:]
    _links, urls, warnings, errors = map(int, summary.groups())
    assert urls > 60, out[-3000:]  # both languages' pages, assets, search files
    assert (warnings, errors) == (0, 0), out[-6000:]


def _fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url) as r:
            return r.status, r.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8")


@pytest.mark.parametrize(
    ("lang", "missing", "home"),
    [("zh", "ai-infra-3/no-such-question/", ""), ("en", "en/ai-infra-3/no-such-question/", "en/")],
)
def test_404_page_speaks_the_readers_language_and_leads_home(
    browser: object, pages_url: str, lang: str, missing: str, home: str
) -> None:
    status, body = _fetch(pages_url + missing)
    assert status == 404 and 'class="qa-404"' in body  # GitHub Pages: the root 404.html, for /en/ too
    context = browser.new_context(viewport={"width": 390, "height": 844}, service_workers="block")  # type: ignore[attr-defined]
    page = context.new_page()
    try:
        page.goto(pages_url + missing)
        assert page.evaluate("document.documentElement.lang") == lang
        shown = page.locator(".qa-404__lang:visible")
        assert shown.count() == 1 and shown.get_attribute("lang") == lang
        assert "404" in page.title() and ("页面不存在" if lang == "zh" else "Page not found") in page.title()
        site_name = "AI Infra 面试题库" if lang == "zh" else "AI Infra Interview Questions"
        assert page.title().endswith(" · " + site_name)
        assert page.locator(".md-header__topic").first.inner_text().strip() == site_name
        # the root 404 page serves /en/ too: there it drops the Chinese navigation and search label
        assert page.locator(".md-search__input").get_attribute("placeholder") == ("搜索" if lang == "zh" else "Search")
        assert page.locator(".md-sidebar--primary").is_hidden() == (lang == "en")
        assert page.locator(".md-header label[for=__drawer]").is_hidden() == (lang == "en")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing overflows a phone
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"404-{lang}.png"), full_page=True)
        assert page.locator(".qa-404__lang:visible kbd").inner_text() == "/"
        # the hint works: search from the 404 page finds questions in the reader's language
        results = open_search(page, "AllReduce")
        # (questions, and the glossary's terms: search finds those too)
        assert any(r.startswith(pages_url + home + "ai-infra-3/") for r in results), results
        assert all(r.startswith((pages_url + home + "ai-infra-3/", pages_url + home + "glossary/#")) for r in results)
        page.keyboard.press("Escape")
        # The search closed and its fade over: the click meets the link, as a reader's does (a full
        # run once clicked it while the search closed, and no page came in 30 s).
        page.wait_for_function("() => !document.getElementById('__search').checked")
        settle(page)
        with page.expect_navigation():
            shown.locator("a").first.click()
        assert page.url == pages_url + home
        assert page.evaluate("document.documentElement.lang") == lang
    finally:
        context.close()


def test_404_page_without_javascript_shows_both_languages(pages_site: Path) -> None:
    body = (pages_site / "404.html").read_text(encoding="utf-8")
    sections = re.findall(r'<section class="qa-404__lang" lang="(\w+)" data-qa-root="([^"]+)"', body)
    assert sections == [("zh", "/ai-infra/"), ("en", "/ai-infra/en/")]
    assert 'href="/ai-infra/"' in body and 'href="/ai-infra/en/"' in body  # absolute: any depth works
    en_body = (pages_site / "en" / "404.html").read_text(encoding="utf-8")
    assert re.findall(r'<section class="qa-404__lang" lang="(\w+)"', en_body) == ["en", "zh"]


# --- 6. Share and find --------------------------------------------------------------------------


class _Head(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title: str | None = None
        self.meta: dict[str, list[str]] = {}
        self.links: list[dict[str, str]] = []
        self._in_title = False
        self._in_head = True

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "body":
            self._in_head = False
        if not self._in_head:
            return
        if tag == "title":
            self._in_title, self.title = True, ""
        elif tag == "meta" and ("name" in a or "property" in a):
            self.meta.setdefault(a.get("name") or a["property"], []).append(a.get("content", ""))
        elif tag == "link":
            self.links.append(a)

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title = (self.title or "") + data


def _head(path: Path) -> _Head:
    parser = _Head()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def _answer_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    answer = re.search(r'<div class="qa-answer"[^>]*>(.*?)</div>', text, re.S)
    assert answer, path
    text = re.sub(r"</?(p|li|ul|ol|div|br)\b[^>]*>", " ", answer.group(1))  # blocks are separated
    text = re.sub(r"<[^>]+>", "", text)  # inline markup (links, terms) is not
    return re.sub(r"\s+", " ", html.unescape(text)).strip()


def _question_pages(site: Path, lang: str) -> list[Path]:
    folder = site / LANGUAGES[lang].root / "ai-infra-3"
    return sorted(p for p in folder.glob("*/index.html") if 'class="qa-answer"' in p.read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_question_pages_have_title_description_and_open_graph(pages_site: Path, lang: str) -> None:
    pages = _question_pages(pages_site, lang)
    assert len(pages) == 14
    for page in pages:
        head = _head(page)
        h1 = re.search(r"<h1[^>]*>(.*?)</h1>", page.read_text(encoding="utf-8"), re.S)
        assert h1
        question = html.unescape(re.sub(r"<[^>]+>", "", h1.group(1))).strip()
        assert head.title == f"{question} - {SITE_NAME[lang]}", page
        (description,) = head.meta["description"]
        answer = _answer_text(page)
        # the start of the answer, whitespace-normalised, cut with an ellipsis when long
        assert 40 <= len(description) <= 150 or description == answer, (page, description)
        assert answer.startswith(description.removesuffix("…").rstrip()), (page, description)
        rel = page.parent.relative_to(pages_site).as_posix() + "/"
        canonical = [link["href"] for link in head.links if link.get("rel") == "canonical"]
        assert canonical == [PAGES_SITE_URL + rel]
        assert head.meta["og:title"] == [question]
        assert head.meta["og:description"] == [description]
        assert head.meta["og:type"] == ["article"]
        assert head.meta["og:url"] == canonical
        assert head.meta["og:locale"] == [OG_LOCALE[lang]]
        assert head.meta["og:locale:alternate"] == [OG_LOCALE[other] for other in LANGUAGES.codes if other != lang]
        assert head.meta["og:site_name"] == [SITE_NAME[lang]]
        assert head.meta["twitter:card"] == ["summary"]


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_markup_in_a_question_stays_text_in_title_description_and_open_graph(pages_site: Path, lang: str) -> None:
    page = pages_site / LANGUAGES[lang].root / MARKUP_SLUG / "index.html"
    raw = page.read_text(encoding="utf-8")
    question, answer = MARKUP_QUESTION[lang]
    head = _head(page)
    assert head.title == f"{question} - {SITE_NAME[lang]}"
    assert head.meta["description"] == [answer] and head.meta["og:description"] == [answer]
    assert head.meta["og:title"] == [question]
    assert "<script>alert" not in raw and "<b>" not in raw


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_other_pages_have_their_own_title_and_description(pages_site: Path, lang: str) -> None:
    prefix = pages_site / LANGUAGES[lang].root
    descriptions = set()
    for rel, og_type in (("", "website"), ("ai-infra-3/", "website"), ("tags/", "website")):
        head = _head(prefix / rel / "index.html")
        (description,) = head.meta["description"]
        descriptions.add(description)
        assert head.meta["og:type"] == [og_type] and head.meta["og:description"] == [description]
        assert head.title and head.title.endswith(SITE_NAME[lang])
        assert head.title.count(SITE_NAME[lang]) == 1, head.title  # the home page is not "NAME - NAME"
    assert len(descriptions) == 3


def test_sitemap_covers_every_language_and_matches_hreflang(pages_site: Path) -> None:
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    tree = ET.parse(pages_site / "sitemap.xml")
    entries = {}
    for url in tree.getroot().findall("s:url", ns):
        loc = url.findtext("s:loc", namespaces=ns)
        assert loc and loc.startswith(PAGES_SITE_URL)
        entries[loc] = {(a.get("hreflang"), a.get("href")) for a in url.findall("x:link", ns)}
    core = ["", "tags/", "ai-infra-3/"] + [
        p.parent.relative_to(pages_site).as_posix() + "/" for p in _question_pages(pages_site, "zh")
    ]
    assert len(core) == 17
    for rel in core:  # home, tags, the bank and its 14 questions, in every language
        assert all(PAGES_SITE_URL + item.root + rel in entries for item in LANGUAGES.items), rel
    # every page a crawler should find is listed; every listed URL is a built, indexable page
    indexable = set()
    for page in pages_site.rglob("index.html"):
        rel = page.parent.relative_to(pages_site).as_posix()
        if rel.startswith(("pagefind", "assets", "downloads")):
            continue
        head = _head(page)
        if "noindex" in " ".join(head.meta.get("robots", [])) or "refresh" in page.read_text(encoding="utf-8")[:4000]:
            continue
        url = PAGES_SITE_URL + ("" if rel == "." else rel + "/")
        indexable.add(url)
        hreflang = {(link["hreflang"], link["href"]) for link in head.links if link.get("hreflang")}
        assert url in entries, f"{url} is not in the sitemap"
        assert hreflang == entries[url], url  # the page's hreflang links are the sitemap's, exactly
        assert {lang for lang, _ in hreflang} == {item.hreflang for item in LANGUAGES.items} | {"x-default"}
        canonical = [link["href"] for link in head.links if link.get("rel") == "canonical"]
        assert canonical == [url]
    assert set(entries) == indexable
    for lang_prefix in (item.root for item in LANGUAGES.items):  # the removed question's page: noindex, left out
        removed = _head(pages_site / lang_prefix / REMOVED_SLUG / "index.html")
        assert removed.meta["robots"] == ["noindex"]
        assert PAGES_SITE_URL + lang_prefix + REMOVED_SLUG not in entries
    robots = (pages_site / "robots.txt").read_text(encoding="utf-8")
    assert f"Sitemap: {PAGES_SITE_URL}sitemap.xml" in robots.splitlines()
    assert not any((pages_site / item.root / "sitemap.xml").exists() for item in LANGUAGES.extra)


def test_github_pages_subpath_switcher_and_search(browser: object, pages_url: str) -> None:
    """Under /ai-infra/: the switcher keeps the question and the prefix, and search finds the question."""
    context = browser.new_context(service_workers="block")  # type: ignore[attr-defined]
    page = context.new_page()
    try:
        page.goto(pages_url + QUESTION)
        page.click(".md-header__option .md-select button")
        with page.expect_navigation():
            page.click('.md-select__link[hreflang="en"]')
        assert page.url == pages_url + "en/" + QUESTION
        results = open_search(page, "Two-batch overlap")
        assert any(QUESTION in href for href in results), results
        assert all(href.startswith(pages_url + "en/") for href in results), results
    finally:
        context.close()
