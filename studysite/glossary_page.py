"""The glossary page of one language: every term with both names, both definitions, and the questions
that use it. A pure function of (Site, language), like render.py."""

from __future__ import annotations

import html

from .glossary import term_uses
from .i18n import t
from .model import LANGS, Lang, Site
from .render import _front_matter, md_text

GLOSSARY_PATH = "glossary.md"
"""The page, relative to a language's docs folder (/glossary/ and /en/glossary/)."""


def glossary_page(site: Site, lang: Lang) -> str:
    """Terms in file order; each an `h2` whose anchor is the term id (`glossary/#kv-cache`)."""
    others = [other for other in LANGS if other != lang]
    entries = [site.entries[slug] for bank in site.banks for slug in bank.slugs]
    uses = term_uses(site.glossary, entries, lang)
    n = len(site.glossary)
    lines = _front_matter(title=t("glossary.title", lang), description=t("home.glossary", lang, n=n))
    lines += [f"# {md_text(t('glossary.title', lang))}", "", md_text(t("glossary.intro", lang, n=n)), ""]
    for term in site.glossary:
        lines += [f"## {md_text(term.names[lang])} {{ #{term.id} }}", ""]
        body = ['<div class="qa-term">']
        for other in others:
            if term.names[other] != term.names[lang]:
                body.append(
                    f'<p class="qa-term__other"><span class="qa-term__label">'
                    f"{html.escape(t('glossary.other_name', lang))}</span> "
                    f'<span lang="{other}">{html.escape(term.names[other])}</span></p>'
                )
        body.append(f'<p class="qa-term__def">{html.escape(term.definitions[lang])}</p>')
        for other in others:
            body.append(
                f'<p class="qa-term__def qa-term__def--other" lang="{other}">{html.escape(term.definitions[other])}</p>'
            )
        body.append("</div>")
        lines += ["\n".join(body), ""]
        slugs = uses[term.id]
        if not slugs:
            lines += [f'<p class="qa-term__uses">{html.escape(t("glossary.unused", lang))}</p>', ""]
            continue
        lines += [f'<p class="qa-term__uses">{html.escape(t("glossary.used_in", lang))}</p>', ""]
        for slug in slugs:
            entry = site.entries[slug]
            lines.append(f"- [{md_text(entry.text[lang].text)}]({entry.path})")
        lines.append("")
    return "\n".join(lines)
