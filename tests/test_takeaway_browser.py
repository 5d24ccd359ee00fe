"""Take the bank away, as a reader meets it in chromium: glossary tooltips, the print edition, the PDF,
report/edit links on a site that names its repository, and screenshots of each (tests/artifacts/takeaway/)."""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from studysite.build import build_site_model, load_sources
from studysite.errors import Problems
from studysite.languages import LANGUAGES
from studysite.model import Site
from studysite.pages import downloads
from studysite.sources.glossary import tooltip
from tests.sitekit import ARTIFACTS, ROOT, SEED, build_site, copy_banks, reader_pages, serve, settle, write_long_bank

SHOTS = ARTIFACTS / "takeaway"
PUBLIC = "https://octo.github.io/ai-infra/"
REPO = "https://github.com/octo/ai-infra"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def model() -> Site:
    problems = Problems()
    site, _ = build_site_model(load_sources(SEED, problems))
    return site


@pytest.fixture(scope="module")
def repo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seed site as GitHub Pages publishes it: a public address, a repository, and `make pdf` run
    on it; with a bank whose print edition comes in parts (tests/test_takeaway.py write_long_bank)."""
    work = tmp_path_factory.mktemp("repo-site")
    old = os.environ.get("STUDYSITE_REPO_URL")
    os.environ["STUDYSITE_REPO_URL"] = REPO
    try:
        banks = copy_banks(work / "banks")
        write_long_bank(banks)
        site = build_site(banks, work, site_url=PUBLIC, strict=False)  # its edited banks warn
    finally:
        if old is None:
            del os.environ["STUDYSITE_REPO_URL"]
        else:
            os.environ["STUDYSITE_REPO_URL"] = old
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_pdf.py"), "--site-dir", str(site)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return site


@pytest.fixture()
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS


@pytest.fixture()
def page_factory(browser: object) -> Iterator[object]:
    """A page in a profile of its own (sitekit.reader: empty storage, script and console errors fail the test)."""
    with reader_pages(browser) as open_page:

        def make(viewport: dict[str, int] = DESKTOP, scheme: str = "light", touch: bool = False) -> object:
            return open_page(viewport=viewport, color_scheme=scheme, has_touch=touch, is_mobile=touch)

        yield make


def _no_overflow(page: object) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")  # type: ignore[attr-defined]
    assert width <= page.viewport_size["width"], f"page is {width}px wide"  # type: ignore[attr-defined]


# --- Tooltips ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_hovering_a_term_shows_its_translation_and_definition(
    seed_url: str, model: Site, page_factory: object, shots: Path, lang: str
) -> None:
    page = page_factory()  # type: ignore[operator]
    prefix = LANGUAGES[lang].root
    page.goto(f"{seed_url}{prefix}ai-infra-3/optimization-techniques-prefill-decode-stages/")
    # the answer's first marked term (a few terms an answer are marked: studysite/enrich/links.py)
    abbr = page.locator("#qa-answer abbr.qa-term").first
    text = abbr.inner_text().casefold()
    term = next(t for t in model.glossary if text in {f.casefold() for f in t.forms[lang]})  # type: ignore[index]
    assert page.locator("abbr.qa-term", has_text=re.compile(f"^{re.escape(abbr.inner_text())}$", re.I)).count() == 1
    abbr.hover()
    tip = page.locator(".md-tooltip2--active")
    tip.wait_for(state="visible", timeout=5000)
    assert tip.inner_text().strip() == tooltip(term, lang)  # type: ignore[arg-type]
    other = term.names[LANGUAGES.beside(lang)]  # the language shown beside this one
    assert other in tip.inner_text()
    settle(page)  # the theme fades tooltips in
    page.screenshot(path=str(shots / f"tooltip-{lang}-desktop-light.png"))
    page.mouse.move(0, 0)
    tip.wait_for(state="hidden", timeout=5000)


def test_tapping_a_term_on_a_phone_shows_the_tooltip_in_dark_mode(
    seed_url: str, model: Site, page_factory: object, shots: Path
) -> None:
    page = page_factory(PHONE, "dark", touch=True)  # type: ignore[operator]
    page.goto(f"{seed_url}ai-infra-3/communication-optimized-megatron-lm/")
    abbr = page.locator("abbr.qa-term").first
    label = abbr.inner_text()
    abbr.tap()
    tip = page.locator(".md-tooltip2--active")
    tip.wait_for(state="visible", timeout=5000)
    term = next(t for t in model.glossary if label in t.forms["zh"])
    assert tip.inner_text().strip() == tooltip(term, "zh")
    box = tip.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 1
    _no_overflow(page)
    settle(page)
    page.screenshot(path=str(shots / "tooltip-zh-phone-dark.png"))


# --- Glossary and download blocks: screenshots, no overflow -----------------------------------------


@pytest.mark.parametrize(
    ("path", "name"),
    [("glossary/", "glossary"), ("ai-infra-3/", "bank"), ("", "home"), ("tags/", "tags")],
)
@pytest.mark.parametrize(("viewport", "scheme"), [(DESKTOP, "light"), (PHONE, "dark")])
def test_pages_with_takeaway_blocks_fit_and_look_right(
    seed_url: str, page_factory: object, shots: Path, path: str, name: str, viewport: dict[str, int], scheme: str
) -> None:
    for prefix, lang in (("", "zh"), ("en/", "en")):
        page = page_factory(viewport, scheme)  # type: ignore[operator]
        page.goto(f"{seed_url}{prefix}{path}")
        if name != "glossary":
            block = page.locator(".qa-downloads").first
            block.scroll_into_view_if_needed()
            assert block.is_visible()
        else:
            assert page.locator(".qa-term").count() >= 50
            page.locator("#kv-cache").scroll_into_view_if_needed()
        _no_overflow(page)
        device = "phone" if viewport is PHONE else "desktop"
        page.screenshot(path=str(shots / f"{name}-{lang}-{device}-{scheme}.png"))


# --- Print edition ----------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_print_page_has_every_question_in_order_and_prints_without_chrome(
    seed_url: str, model: Site, page_factory: object, shots: Path, lang: str
) -> None:
    bank = model.banks[0]
    page = page_factory()  # type: ignore[operator]
    prefix = LANGUAGES[lang].root
    page.goto(f"{seed_url}{prefix}ai-infra-3/print/")
    slugs = page.eval_on_selector_all(".qa-print__q", "els => els.map(e => e.dataset.qaSlug)")
    assert slugs == list(bank.slugs)
    titles = page.eval_on_selector_all(".qa-print__title", "els => els.map(e => e.innerText)")
    assert [re.sub(r"^\d+\.\s*", "", t).strip() for t in titles] == [model.entries[s].text[lang].text for s in slugs]
    toc = page.eval_on_selector_all(".qa-print__toc a", "els => els.map(e => e.getAttribute('href'))")
    assert toc == [f"#q-{n}" for n in range(1, len(slugs) + 1)]
    for n, slug in enumerate(slugs, start=1):
        assert page.locator(f"#q-{n}").get_attribute("data-qa-slug") == slug
    answers = page.locator(".qa-print__answer")
    for i, slug in enumerate(slugs):
        entry = model.entries[slug]
        if entry.tags:
            names = {t.id: t.name(lang) for t in model.tags}
            assert names[entry.tags[0]] in page.locator(".qa-print__q").nth(i).locator(".qa-print__tags").inner_text()
        assert answers.nth(i).inner_text().strip()
    page.screenshot(path=str(shots / f"print-{lang}-desktop-light.png"))
    page.emulate_media(media="print")
    for selector in (".md-header", ".md-sidebar--primary", ".md-sidebar--secondary", ".md-footer", ".qa-print__screen"):
        hidden = page.eval_on_selector_all(selector, "els => els.every(e => getComputedStyle(e).display === 'none')")
        assert hidden, selector
    assert page.locator(".qa-print__meta").is_visible()  # the paper edition says where it is online
    decorations = page.eval_on_selector_all(
        ".qa-print a", "els => els.map(e => getComputedStyle(e).textDecorationLine)"
    )
    assert set(decorations) == {"none"}
    after = page.eval_on_selector_all(".qa-print a", "els => els.map(e => getComputedStyle(e, '::after').content)")
    assert set(after) <= {"none", "normal"}  # no URL printed after a link
    page.screenshot(path=str(shots / f"print-{lang}-print-media.png"), full_page=True)


def test_print_page_on_a_phone_in_dark_mode(seed_url: str, page_factory: object, shots: Path) -> None:
    page = page_factory(PHONE, "dark")  # type: ignore[operator]
    page.goto(f"{seed_url}ai-infra-3/print/")
    _no_overflow(page)
    page.screenshot(path=str(shots / "print-zh-phone-dark.png"))


# --- The PDF (make pdf) -----------------------------------------------------------------------------


def _pdf_text(pdf: Path) -> str:
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True, check=True)
    return re.sub(r"\s+", "", out.stdout)


@pytest.mark.parametrize("lang", LANGUAGES.codes)
def test_pdf_holds_every_question_in_order_on_sensible_a4_pages(
    repo_site: Path, model: Site, shots: Path, lang: str
) -> None:
    pdf = repo_site / downloads.bank_pdf("ai-infra-3", lang)
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))  # type: ignore[union-attr]
    assert 3 <= pages <= 20, pages  # 14 questions: a few pages, not one per line nor one crammed page
    assert re.search(r"^Page size:\s+59[45]\.\d+ x 84[12]\.\d+ pts \(A4\)", info, re.M), info
    assert re.search(r"^Tagged:\s+yes", info, re.M)
    text = _pdf_text(pdf)
    pos = 0
    for slug in model.banks[0].slugs:
        question = re.sub(r"\s+", "", model.entries[slug].text[lang].text)
        found = text.find(question, pos)
        assert found >= 0, f"{slug} missing or out of order in the {lang} PDF"
        pos = found + len(question)
    data = pdf.read_bytes()
    assert b"127.0.0.1" not in data  # links lead to the published site, not the server that printed it
    assert PUBLIC.encode() in data
    # look at a page: rasterise page 2 (the first questions) for the artifacts folder
    stem = shots / f"pdf-{lang}-page"
    subprocess.run(["pdftoppm", "-r", "80", "-f", "2", "-l", "2", "-png", str(pdf), str(stem)], check=True)
    png = next(shots.glob(f"pdf-{lang}-page*.png"))
    assert png.stat().st_size > 20_000  # a page of text, not a blank one


def test_a_long_banks_pdf_holds_every_part_in_order_as_one_edition(repo_site: Path) -> None:
    problems = Problems()
    site, _ = build_site_model(load_sources(repo_site.parent / "banks", problems))
    slugs = site.bank("long").slugs
    assert (repo_site / "long" / "print" / "3" / "index.html").is_file()  # printed from three parts or more
    for lang in LANGUAGES.codes:
        pdf = repo_site / downloads.bank_pdf("long", lang)
        info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
        assert re.search(r"^Tagged:\s+yes", info, re.M)
        text = _pdf_text(pdf)
        pos = 0
        for n, slug in enumerate(slugs, start=1):
            question = re.sub(r"\s+", "", f"{n}.{site.entries[slug].text[lang].text}")
            found = text.find(question, pos)
            assert found >= 0, f"{n}. {slug} missing or out of order in the {lang} PDF"
            pos = found + len(question)
        for part_only in ("第 1 / ", "part 1 of", "本部分为", "本部分為", "This part holds"):
            assert re.sub(r"\s+", "", part_only) not in text  # a part's own lines are not in the whole edition


def test_pdf_links_appear_once_the_pdfs_exist(repo_site: Path) -> None:
    pages = [(f"{item.root}ai-infra-3/index.html", item.lang) for item in LANGUAGES.items] + [("index.html", "zh")]
    for page, lang in pages:
        text = (repo_site / page).read_text(encoding="utf-8")
        m = re.search(r'<span class="qa-pdf"> · <a href="([^"]+\.pdf)" download>', text)
        assert m, page
        assert (repo_site / page).parent.joinpath(m.group(1)).resolve() == (
            repo_site / downloads.bank_pdf("ai-infra-3", lang)
        ).resolve()
        assert "data-qa-pdf" not in text


def test_make_pdf_says_what_to_install_when_chromium_is_missing(tmp_path: Path, seed_site: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "build_pdf.py"),
            *("--site-dir", str(seed_site), "--chromium", str(tmp_path / "no-such-chromium")),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "apt-get install chromium fonts-noto-cjk" in proc.stderr
    assert not list((seed_site / "downloads").glob("*.pdf"))  # nothing half-made


def test_pdf_can_be_downloaded_from_the_built_bank_page(repo_site: Path, page_factory: object, shots: Path) -> None:
    with serve(repo_site) as url:
        page = page_factory()  # type: ignore[operator]
        page.goto(f"{url}ai-infra-3/")
        link = page.locator(".qa-downloads .qa-pdf a")
        link.scroll_into_view_if_needed()
        assert link.is_visible()
        with page.expect_download() as info:
            link.click()
        assert info.value.suggested_filename == "ai-infra-3.zh.pdf"
        assert info.value.path().read_bytes().startswith(b"%PDF-")
        page.locator("#downloads").scroll_into_view_if_needed()
        page.screenshot(path=str(shots / "bank-zh-desktop-light-with-pdf.png"))


# --- Report an error / edit the source on a site with a repository -----------------------------------


def test_report_and_edit_links_on_the_built_site(repo_site: Path, model: Site) -> None:
    lines = (SEED / "ai-infra-3.txt").read_text(encoding="utf-8").splitlines()
    en_lines = (SEED / "ai-infra-3.en.txt").read_text(encoding="utf-8").splitlines()
    for slug in model.banks[0].slugs:
        entry = model.entries[slug]
        for lang, prefix, file, source in (
            ("zh", "", "ai-infra-3.txt", lines),
            ("en", "en/", "ai-infra-3.en.txt", en_lines),
        ):
            text = (repo_site / prefix / "ai-infra-3" / slug / "index.html").read_text(encoding="utf-8")
            report = re.search(r'class="qa-actions__report" href="([^"]+)"', text)
            edit = re.search(r'class="qa-actions__edit" href="([^"]+)"', text)
            assert report and edit, (lang, slug)
            url = urlsplit(html.unescape(report.group(1)))
            assert f"{url.scheme}://{url.netloc}{url.path}" == f"{REPO}/issues/new"
            query = parse_qs(url.query)
            q = entry.text[lang]
            assert query["title"] == [f"[ai-infra-3/{slug}] {q.text}"]
            line = q.line
            assert query["source"] == [f"banks/{file}:{line}"] and query["page"][0].endswith(
                f"{prefix}ai-infra-3/{slug}/"
            )
            assert html.unescape(edit.group(1)) == f"{REPO}/blob/main/banks/{file}#L{line}"
            assert source[line - 1] == f"Q: {q.text}"  # the link lands on the question's own line


@pytest.fixture(scope="module", autouse=True)
def _clean_old_shots() -> None:
    if SHOTS.exists():
        shutil.rmtree(SHOTS)
