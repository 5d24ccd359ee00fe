"""\"Report an error\" where the site is published: the Pages build passes the repository's address, and
the link opens the repository's issue form with the question, its URL, its FILE:LINE and the language."""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import yaml

from studysite.build import generate
from studysite.enrich.convert import convert_text
from studysite.languages import LANGUAGES
from studysite.pages.render import REPORT_FORM
from tests.sitekit import ROOT, copy_banks

FORM = ROOT / ".github" / "ISSUE_TEMPLATE" / REPORT_FORM


def test_pages_workflow_passes_the_repository_address_to_the_site_build() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8"))
    steps = [s for job in workflow["jobs"].values() for s in job.get("steps", [])]
    build = [s for s in steps if "make pdf" in str(s.get("run", ""))]  # the one build: site and PDFs
    assert len(build) == 1
    assert build[0]["env"]["STUDYSITE_REPO_URL"] == "${{ github.server_url }}/${{ github.repository }}"
    mkdocs = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "repo_url: !ENV [STUDYSITE_REPO_URL" in mkdocs  # the variable the code reads


def test_report_link_fills_every_field_of_the_issue_form(tmp_path: Path) -> None:
    form = yaml.safe_load(FORM.read_text(encoding="utf-8"))
    ids = {item["id"] for item in form["body"] if "id" in item}
    banks = copy_banks(tmp_path / "banks")
    site_url = "https://octo.github.io/ai-infra/"
    generate(banks, tmp_path / "docs", repo_url="https://github.com/octo/ai-infra", site_url=site_url)
    pages = {  # what each edition's form says: its language, and the file and line its text comes from
        "zh": ("中文 (zh)", "ai-infra-3.txt"),
        "en": ("English (en)", "ai-infra-3.en.txt"),
        "zh-Hant": ("繁體中文 (zh-Hant)，由簡體中文 (zh) 自動轉換", "ai-infra-3.txt"),  # converted: the Chinese line
    }
    assert set(pages) == set(LANGUAGES.codes)
    for item in LANGUAGES.items:
        lang, file = pages[item.lang]
        prefix = item.root
        page = (tmp_path / "docs" / prefix / "ai-infra-3" / "two-batch-overlap.md").read_text(encoding="utf-8")
        href = html.unescape(re.search(r'class="qa-actions__report" href="([^"]+)"', page).group(1))  # type: ignore[union-attr]
        url = urlsplit(href)
        assert f"{url.scheme}://{url.netloc}{url.path}" == "https://github.com/octo/ai-infra/issues/new"
        query = {k: v[0] for k, v in parse_qs(url.query, strict_parsing=True).items()}
        assert query["template"] == REPORT_FORM
        filled = set(query) - {"template", "title"}
        assert filled == ids - {"problem"}, "every form field but the reader's own text is filled"
        assert query["page"] == f"{site_url}{prefix}ai-infra-3/two-batch-overlap/"
        assert query["language"] == lang
        source_file, line = query["source"].rsplit(":", 1)
        assert source_file == f"banks/{file}"
        source_line = (banks / file).read_text(encoding="utf-8").splitlines()[int(line) - 1]
        if item.source == "converted":  # the page shows the line converted
            source_line = convert_text(source_line, item.opencc)
        assert source_line == f"Q: {query['question']}"  # FILE:LINE is the question's own line
