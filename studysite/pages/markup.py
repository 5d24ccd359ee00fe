"""The renderers' shared low-level parts: the Page they yield, escaping for HTML and inline Markdown,
front matter, meta descriptions, tag anchors, and `el`, which builds HTML with every text escaped
unless it is marked safe (markupsafe's `Markup`, as Jinja2 marks it).

Every renderer imports these from here, and none imports another renderer's module for them, so the
pages folder has no import cycle (tests/test_layers.py); render.py composes the pages.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from markupsafe import Markup

from ..languages import LANGUAGES

DESCRIPTION_CHARS = 150
"""A meta description's most characters (`clip`)."""
HTML_LANG = {item.lang: item.html_lang for item in LANGUAGES.items}
"""Each language's `lang` attribute value."""


@dataclass(frozen=True)
class Page:
    """One file to write into a language's docs folder."""

    path: str
    """Path relative to the language's docs folder, `/`-separated."""
    text: str
    """File contents."""
    key: bytes = b""
    """The cache key of what it was rendered from (`render.PageKeys`): at the same path, an equal key
    means an equal text. Empty for the pages rendered every time."""
    held: bool = False
    """The text is not here (empty): the pages' cache holds it under `key` (`Memo.holds`), for whoever
    needs it to ask the cache (`cache.Texts`); a writer that links the file as it is never does."""


HTML_OPEN = "<!-- qa:html -->"
HTML_CLOSE = "<!-- /qa:html -->"
"""The lines around the HTML a page's Markdown holds (html_block)."""


def html_block(*parts: str) -> list[str]:
    """Lines of a page's Markdown that hold HTML: `parts` (empty ones left out) between HTML_OPEN and
    HTML_CLOSE, and a blank line after; nothing when every part is empty.

    Python-Markdown and MkDocs each read every raw HTML block of a page with an HTML parser (where it
    ends, which ids it has): a fifth of a build's CPU, spent on HTML we wrote. The Markdown extension
    studysite/site/html_blocks.py (mkdocs.yml) puts what stands between these lines into the page
    as it is; without it they are two HTML comments around the same HTML, and Markdown parses it."""
    kept = [part for part in parts if part]
    return [HTML_OPEN, *kept, HTML_CLOSE, ""] if kept else []


def escape(text: str) -> str:
    """`html.escape`, with its five replacements skipped for the many texts that need none."""
    return html.escape(text) if _HTML_SPECIAL.search(text) else text


def el(tag: str, attrs: Mapping[str, object] | None = None, *children: object) -> Markup:
    """`<tag attrs>children</tag>`, as markup that a later `el` keeps as it is.

        Text is escaped, in attribute values and children alike, unless it is already `Markup` (what `el`
        returns, or a `Markup(...)` a caller vouches for). An attribute of value True is written bare
        (`hidden`), None or False leaves it out; attributes keep their order. A void element (`meta`,
        `input`, ...) gets no end tag. The HTML twin of `el()` in overrides/assets/qa/study-core.js.

    Join results with `"".join` or `"\n".join`, or `+` between two of them, never `str + Markup`:
    markupsafe escapes the plain string of such a sum (tests would show the page's markup as text).
    """
    if tag in _VOID:
        return start_tag(tag, attrs)
    return Markup(f"{_start_tag(tag, attrs)}{''.join(map(_escaped, children))}</{tag}>")


def start_tag(tag: str, attrs: Mapping[str, object] | None = None) -> Markup:
    """`<tag attrs>` alone, attributes as `el` writes them: for an element whose content is built line
    by line (the caller writes its end tag)."""
    return Markup(_start_tag(tag, attrs))


def _start_tag(tag: str, attrs: Mapping[str, object] | None) -> str:
    if not attrs:
        return f"<{tag}>"
    parts = [f"<{tag}"]
    for name, value in attrs.items():
        if value is True:
            parts.append(f" {name}")
        elif value is not None and value is not False:
            parts.append(f' {name}="{_escaped(value)}"')
    parts.append(">")
    return "".join(parts)


def md_text(text: str) -> str:
    """Text for an inline Markdown context (heading, link text) that renders literally."""
    return text.translate(_MD_REFS) if _MD_SPECIAL_RE.search(text) else text  # most titles have none


def clip(text: str) -> str:
    """A meta description: whitespace-normalised, at most DESCRIPTION_CHARS characters."""
    text = " ".join(text.split())  # str.split() splits at the same whitespace as re's \s
    return text if len(text) <= DESCRIPTION_CHARS else text[: DESCRIPTION_CHARS - 1].rstrip() + "…"


def front_matter(**fields: object) -> list[str]:
    """A page's YAML front matter as lines, the blank line after it included."""
    # Values go through json.dumps: valid YAML, and HTML-escaped so templates that print
    # page.meta raw (title, description) still show the text literally.
    lines = ["---"]
    for key, value in fields.items():
        lines.append(f"{key}: {_JSON(_escape_meta(value))}")
    lines += ["---", ""]
    return lines


def tag_anchor(name: str) -> str:
    """The anchor Material's tags listing gives a tag (pymdownx.slugs unicode slugify, lower case).

    Material slugifies the tag as the front matter spells it, which front_matter HTML-escapes
    ("Kernels & GPU" -> "kernels-amp-gpu").
    """
    from pymdownx.slugs import slugify

    return str(slugify(case="lower")(escape(name), "-"))


def _escaped(value: object) -> str:
    # (a text or a Markup nearly always: they are told apart by type first, which is quicker than
    # looking for an `__html__` a plain str lacks)
    if type(value) is str:
        return escape(value)
    if type(value) is Markup:
        return value
    if hasattr(value, "__html__"):
        return str(value.__html__())
    return escape(value if isinstance(value, str) else str(value))


def _escape_meta(value: object) -> object:
    if isinstance(value, str):
        return escape(value)
    if isinstance(value, list):
        return [_escape_meta(v) for v in value]
    if isinstance(value, dict):
        return {k: _escape_meta(v) for k, v in value.items()}
    return value


_HTML_SPECIAL = re.compile("[&<>\"']")
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)
_JSON = json.JSONEncoder(ensure_ascii=False).encode
"""json.dumps(value, ensure_ascii=False) without building an encoder per call."""
_MD_SPECIAL = frozenset("\\`*_{}[]()<>#+-.!|$~^=&:\"'@%")
_MD_REFS = {ord(ch): f"&#{ord(ch)};" for ch in _MD_SPECIAL}
_MD_SPECIAL_RE = re.compile("[" + re.escape("".join(sorted(_MD_SPECIAL))) + "]")
"""md_text's table: each special character to its numeric reference (str.translate: ~10x a loop)."""
