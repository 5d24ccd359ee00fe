"""The generator's HTML goes into a page as it is (studysite/site/html_blocks.py): the same HTML that
Python-Markdown makes of it as raw HTML, less the blank lines between blocks, without its parsers."""

from __future__ import annotations

import re
from pathlib import Path

import markdown
import pytest

from studysite.pages.markup import HTML_CLOSE, HTML_OPEN, html_block
from studysite.site import html_blocks

BLOCKS = [
    '<p class="qa-bi-bar" hidden><button type="button">中英对照</button></p>',
    '<div class="qa-answer" id="qa-answer">\n<ul>\n<li>a &lt;b&gt; *not emphasis*</li>\n</ul>\n'
    "<pre><code>x = 1\n\n    y = 2</code></pre>\n</div>",
    '<nav class="qa-pager"><a href="../b/">next</a></nav>',
]
PAGE = [
    "# Title",
    "",
    *html_block(*BLOCKS[:2]),
    "## Related { #related }",
    "",
    "- [b](b.md)",
    "",
    *html_block(BLOCKS[2]),
]


def _convert(lines: list[str], extensions: list[object]) -> str:
    return markdown.Markdown(extensions=["attr_list", "toc", *extensions]).convert("\n".join(lines))


def _tags(html: str) -> str:
    return re.sub(r">\s+<", "><", html)


@pytest.mark.unit
def test_marked_html_comes_out_as_markdown_makes_raw_html() -> None:
    plain = [line for line in PAGE if line not in (HTML_OPEN, HTML_CLOSE)]
    expected = _convert(plain, [])
    got = _convert(PAGE, [html_blocks.makeExtension()])
    assert HTML_OPEN not in got and "*not emphasis*" in got and "x = 1\n\n    y = 2" in got
    assert _tags(got) == _tags(expected)
    # the Markdown around the blocks is still Markdown
    assert 'id="related"' in got and '<a href="b.md">b</a>' in got


@pytest.mark.unit
def test_marked_html_is_not_read_by_an_html_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    fed: list[str] = []
    real = markdown.htmlparser.htmlparser.HTMLParser.feed
    monkeypatch.setattr(
        markdown.htmlparser.htmlparser.HTMLParser, "feed", lambda self, data: fed.append(data) or real(self, data)
    )
    _convert(PAGE, [html_blocks.makeExtension()])
    assert fed and not any("qa-answer" in data for data in fed)
    fed.clear()
    _convert(PAGE, [])
    assert any("qa-answer" in data for data in fed)


@pytest.mark.unit
def test_an_unclosed_mark_leaves_the_page_to_markdown() -> None:
    lines = ["# Title", "", HTML_OPEN, BLOCKS[0], "", "*emphasis*"]
    got = _convert(lines, [html_blocks.makeExtension()])
    assert "<em>emphasis</em>" in got and "qa-bi-bar" in got


@pytest.mark.unit
def test_empty_parts_make_no_block() -> None:
    assert html_block("", "") == []
    assert html_block("", "<p>x</p>") == [HTML_OPEN, "<p>x</p>", HTML_CLOSE, ""]


def test_no_mark_reaches_a_built_page(seed_site: Path) -> None:
    pages = list(seed_site.rglob("*.html"))
    assert len(pages) > 50
    assert not [p for p in pages if "qa:html" in p.read_text(encoding="utf-8")]
