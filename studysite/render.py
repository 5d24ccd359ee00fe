"""Render the site model to Markdown pages: pure functions of (model, language) -> str.

Bank text never reaches Markdown as Markdown: answers are emitted as raw HTML blocks with every
character escaped, and titles in headings and links use numeric character references, so no
extension can turn a user's `*`, `<`, `$` or `|` into markup.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

from .i18n import t
from .model import Entry, Lang, LeadIn, ListBlock, Paragraph, Question, Site

DESCRIPTION_CHARS = 150


@dataclass(frozen=True)
class Page:
    """One file to write into a language's docs folder."""

    path: str
    """Path relative to the language's docs folder, `/`-separated."""
    text: str
    """File contents."""


def render_site(site: Site, lang: Lang) -> Iterator[Page]:
    """Every generated page of one language."""
    yield Page("index.md", home_page(site, lang))
    yield Page("tags.md", tags_page(lang))
    for bank in site.banks:
        yield Page(f"{bank.id}/index.md", bank_page(site, bank.id, lang))
        for slug in bank.slugs:
            yield Page(site.entries[slug].path, question_page(site, site.entries[slug], lang))
    for stone in site.tombstones:
        if stone.moved_to is None:
            yield Page(f"{stone.bank_id}/{stone.slug}.md", removed_page(site, stone.bank_id, stone.title, lang))
    yield Page(".nav.json", nav_json(site, lang))


def question_page(site: Site, entry: Entry, lang: Lang) -> str:
    q = entry.text[lang]
    bank = _bank(site, entry.bank_id)
    tag_names = [_tag_name(site, tag_id, lang) for tag_id in entry.tags]
    lines = _front_matter(
        title=q.text,
        description=_description(q),
        tags=tag_names,
        qa={"slug": entry.slug, "bank": entry.bank_id, "hash": entry.content_hash},
    )
    lines += [f"# {md_text(q.text)}", ""]
    if lang == "en" and not entry.translated:
        lines += ['<p class="qa-untranslated" lang="en">' + html.escape(t("question.untranslated", lang)) + "</p>", ""]
    links = {
        term: f"../../{site.entries[slug].path[:-3]}/"
        for term, slug in site.inline_links.get(lang, {}).get(entry.slug, ())
    }
    shown_in = "zh" if lang == "en" and not entry.translated else None
    lines += [answer_html(q, entry.slug, entry.content_hash, links, shown_in), ""]
    if entry.related:
        lines += [f"## {md_text(t('question.related', lang))} {{ #related }}", ""]
        for slug in entry.related:
            other = site.entries[slug]
            lines.append(f"- [{md_text(other.text[lang].text)}]({_rel(entry, other)})")
        lines.append("")
    lines += [f"{md_text(t('question.bank', lang))}: [{md_text(bank.titles[lang])}](index.md)", ""]
    lines += _pager(site, entry, lang)
    return "\n".join(lines)


def answer_html(q: Question, slug: str, content_hash: str, links: dict[str, str], shown_in: Lang | None) -> str:
    """The answer as one raw HTML block: escaped text, real lists, first mentions linked.

    `shown_in` marks text in another language than the page (an untranslated answer).
    """
    annotate = _Annotator(links)
    attrs = f'class="qa-answer" id="qa-answer" data-qa-slug="{slug}" data-qa-hash="{content_hash}"'
    if shown_in:
        attrs += f' lang="{_HTML_LANG[shown_in]}"'
    out = [f"<div {attrs}>"]
    for block in q.blocks:
        if isinstance(block, Paragraph):
            out.append(f"<p>{annotate(block.text)}</p>")
        elif isinstance(block, LeadIn):
            out.append(f'<p class="qa-lead">{annotate(block.text)}</p>')
        elif isinstance(block, ListBlock):
            if block.ordered:
                start = f' start="{block.start}"' if block.start != 1 else ""
                out.append(f"<ol{start}>")
            else:
                out.append("<ul>")
            out.extend(f"<li>{annotate(item.text)}</li>" for item in block.items)
            out.append("</ol>" if block.ordered else "</ul>")
    out.append("</div>")
    return "\n".join(out)


def bank_page(site: Site, bank_id: str, lang: Lang) -> str:
    bank = _bank(site, bank_id)
    lines = _front_matter(title=bank.titles[lang], qa_bank=bank_id)
    lines += [f"# {md_text(bank.titles[lang])}", "", md_text(t("bank.intro", lang, n=len(bank.slugs))), ""]
    if lang == "en" and not bank.translated:
        lines += ['<p class="qa-untranslated">' + html.escape(t("question.untranslated", lang)) + "</p>", ""]
    lines.append('<div class="qa-bank-list" markdown>')
    lines.append("")
    for n, slug in enumerate(bank.slugs, start=1):
        entry = site.entries[slug]
        lines.append(f"{n}. [{md_text(entry.text[lang].text)}]({slug}.md)")
    lines += ["", "</div>", ""]
    return "\n".join(lines)


def home_page(site: Site, lang: Lang) -> str:
    lines = _front_matter(title=t("home.title", lang), hide=["navigation", "toc"])
    lines += [f"# {md_text(t('home.title', lang))}", "", md_text(t("home.intro", lang)), ""]
    lines += [md_text(t("home.search", lang)), ""]
    lines += [f"## {md_text(t('home.banks', lang))}", ""]
    for bank in site.banks:
        n = len(bank.slugs)
        count = t("home.count.one" if n == 1 else "home.count", lang, n=n)
        lines.append(f"- [{md_text(bank.titles[lang])}]({bank.id}/index.md) · {md_text(count)}")
    lines += ["", f"## {md_text(t('home.tags', lang))}", ""]
    counts = {tag.id: 0 for tag in site.tags}
    for entry in site.entries.values():
        for tag_id in entry.tags:
            counts[tag_id] += 1
    for tag in site.tags:
        if counts[tag.id]:
            anchor = "tag:" + tag_anchor(tag.name(lang))
            lines.append(
                f"- [{md_text(tag.name(lang))}](tags.md#{anchor}) · "
                f"{md_text(t('home.count.one' if counts[tag.id] == 1 else 'home.count', lang, n=counts[tag.id]))}"
            )
    lines.append("")
    return "\n".join(lines)


def tags_page(lang: Lang) -> str:
    lines = _front_matter(title=t("tags.title", lang))
    lines += [
        f"# {md_text(t('tags.title', lang))}",
        "",
        md_text(t("tags.intro", lang)),
        "",
        "<!-- material/tags -->",
        "",
    ]
    return "\n".join(lines)


def removed_page(site: Site, bank_id: str, title: str, lang: Lang) -> str:
    bank = _bank(site, bank_id)
    lines = _front_matter(title=t("removed.title", lang), search={"exclude": True}, robots="noindex")
    lines += [f"# {md_text(t('removed.title', lang))}", "", md_text(t("removed.body", lang)), ""]
    lines += [f'<blockquote class="qa-removed" lang="zh-CN"><p>{html.escape(title)}</p></blockquote>', ""]
    lines += [f"{md_text(t('removed.back', lang))} [{md_text(bank.titles[lang])}](index.md)", ""]
    return "\n".join(lines)


def nav_json(site: Site, lang: Lang) -> str:
    """The navigation the mkdocs hook installs: home, tags, then one section per bank."""
    nav: list[object] = [{t("nav.home", lang): "index.md"}, {t("nav.tags", lang): "tags.md"}]
    for bank in site.banks:
        children: list[object] = [f"{bank.id}/index.md"]
        children += [{html.escape(site.entries[s].text[lang].text): site.entries[s].path} for s in bank.slugs]
        nav.append({html.escape(bank.titles[lang]): children})
    return json.dumps(nav, ensure_ascii=False, indent=1) + "\n"


def md_text(text: str) -> str:
    """Text for an inline Markdown context (heading, link text) that renders literally."""
    return "".join(f"&#{ord(ch)};" if ch in _MD_SPECIAL else ch for ch in text)


def tag_anchor(name: str) -> str:
    """The anchor Material's tags listing gives a tag (pymdownx.slugs unicode slugify, lower case)."""
    from pymdownx.slugs import slugify

    return str(slugify(case="lower")(name, "-"))


class _Annotator:
    """Escapes text and turns the first mention of each linked term into a link."""

    def __init__(self, links: dict[str, str]) -> None:
        self.pending = dict(links)

    def __call__(self, text: str) -> str:
        if not self.pending:
            return html.escape(text)
        pattern = re.compile(
            r"(?<![A-Za-z0-9\-])("
            + "|".join(re.escape(k) for k in sorted(self.pending, key=len, reverse=True))
            + r")(?![A-Za-z0-9\-])"
        )
        out, pos = [], 0
        for m in pattern.finditer(text):
            term = m.group(1)
            if term not in self.pending:
                continue
            href = self.pending.pop(term)
            out.append(html.escape(text[pos : m.start()]))
            out.append(f'<a class="qa-xref" href="{html.escape(href)}">{html.escape(term)}</a>')
            pos = m.end()
        out.append(html.escape(text[pos:]))
        return "".join(out)


def _pager(site: Site, entry: Entry, lang: Lang) -> list[str]:
    bank = _bank(site, entry.bank_id)
    i = bank.slugs.index(entry.slug)
    parts = []
    if i > 0:
        prev = site.entries[bank.slugs[i - 1]]
        parts.append(
            f'<a class="qa-pager__prev" href="../{prev.slug}/" rel="prev" data-qa-key="prev">'
            f'<span class="qa-pager__dir">← {html.escape(t("question.prev", lang))}</span>'
            f'<span class="qa-pager__title">{html.escape(prev.text[lang].text)}</span></a>'
        )
    if i + 1 < len(bank.slugs):
        nxt = site.entries[bank.slugs[i + 1]]
        parts.append(
            f'<a class="qa-pager__next" href="../{nxt.slug}/" rel="next" data-qa-key="next">'
            f'<span class="qa-pager__dir">{html.escape(t("question.next", lang))} →</span>'
            f'<span class="qa-pager__title">{html.escape(nxt.text[lang].text)}</span></a>'
        )
    if not parts:
        return []
    label = html.escape(t("question.pager", lang))
    return [f'<nav class="qa-pager" aria-label="{label}">' + "".join(parts) + "</nav>", ""]


def _rel(source: Entry, target: Entry) -> str:
    return f"{target.slug}.md" if source.bank_id == target.bank_id else f"../{target.bank_id}/{target.slug}.md"


def _description(q: Question) -> str:
    text = " ".join(" ".join(i.text for i in b.items) if isinstance(b, ListBlock) else b.text for b in q.blocks)
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= DESCRIPTION_CHARS else text[: DESCRIPTION_CHARS - 1].rstrip() + "…"


def _front_matter(**fields: object) -> list[str]:
    # Values go through json.dumps: valid YAML, and HTML-escaped so templates that print
    # page.meta raw (title, description) still show the text literally.
    lines = ["---"]
    for key, value in fields.items():
        lines.append(f"{key}: {json.dumps(_escape_meta(value), ensure_ascii=False)}")
    lines += ["---", ""]
    return lines


def _escape_meta(value: object) -> object:
    if isinstance(value, str):
        return html.escape(value)
    if isinstance(value, list):
        return [_escape_meta(v) for v in value]
    if isinstance(value, dict):
        return {k: _escape_meta(v) for k, v in value.items()}
    return value


def _bank(site: Site, bank_id: str):  # type: ignore[no-untyped-def]
    return next(b for b in site.banks if b.id == bank_id)


def _tag_name(site: Site, tag_id: str, lang: Lang) -> str:
    return next(tag.name(lang) for tag in site.tags if tag.id == tag_id)


_HTML_LANG = {"zh": "zh", "en": "en"}
_MD_SPECIAL = frozenset("\\`*_{}[]()<>#+-.!|$~^=&:\"'@%")
