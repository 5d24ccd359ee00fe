"""The Markdown extension that puts the generator's HTML into a page as it is (mkdocs.yml:
`markdown_extensions: - studysite.site.html_blocks`).

A question page's Markdown is mostly HTML we wrote: the answer, its translation, the note, the
pager (studysite/pages/render.py). Python-Markdown reads every raw HTML block with an HTML parser to
find where it ends, and MkDocs reads them all again for their ids: a fifth of a build's CPU. The
generator puts that HTML between two marker lines (pages/markup.html_block); this preprocessor runs
before both parsers and stores each marked block in Python-Markdown's own store of raw HTML, the one
its parser would have put the block in, so the page's HTML comes out the same, less blank lines
between the blocks. MkDocs then knows none of their ids, which matters only to Markdown links to
an anchor in them (there are none: the generator links into its HTML from HTML).
"""

from __future__ import annotations

from typing import Any

from markdown import Markdown
from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor

from ..pages.markup import HTML_CLOSE, HTML_OPEN

PRIORITY = 25
"""After Python-Markdown's whitespace normalising (30), before MkDocs' id collector (21) and
Python-Markdown's HTML block parser (20)."""


class _HtmlBlocks(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        if HTML_OPEN not in lines:
            return lines
        out: list[str] = []
        block: list[str] | None = None
        for line in lines:
            if block is None:
                if line == HTML_OPEN:
                    block = []
                else:
                    out.append(line)
            elif line == HTML_CLOSE:
                out += ["", self.md.htmlStash.store("\n".join(block)), ""]
                block = None
            else:
                block.append(line)
        if block is not None:  # no closing line: left as written, for Markdown to read
            out += [HTML_OPEN, *block]
        return out


class HtmlBlocks(Extension):
    def extendMarkdown(self, md: Markdown) -> None:
        md.preprocessors.register(_HtmlBlocks(md), "studysite_html_blocks", PRIORITY)


def makeExtension(**kwargs: Any) -> HtmlBlocks:  # the name Python-Markdown looks for
    return HtmlBlocks(**kwargs)
