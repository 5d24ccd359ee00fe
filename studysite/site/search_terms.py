"""The search box's list of the site's own terms, one file per language: what it offers when a query
finds nothing (overrides/assets/qa/search.js picks the closest by edit distance).

Glossary names and the spellings that count as a use, and tag names, in file order, each once (in
any case). A name with its abbreviation in brackets (`模型算力利用率（MFU）`) gives both parts instead. The
file is small (about 4 KB for the seed) and fetched only after a query that found nothing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..model import Lang, Site

FILE_NAME = "search-terms.json"
"""In each language's root folder (/search-terms.json, /en/search-terms.json)."""


def search_terms(site: Site, lang: Lang) -> list[str]:
    """The terms a reader of `lang` may have meant, in glossary then taxonomy order, without repeats."""
    found: dict[str, str] = {}  # case-folded -> as first written
    names = [name for term in site.glossary for name in (term.names[lang], *term.forms[lang])]
    for name in [*names, *(tag.names[lang] for tag in site.tags)]:
        for part in _parts(name) or (name,):
            if part.strip():
                found.setdefault(part.strip().casefold(), part.strip())
    return list(found.values())


def search_terms_json(site: Site, lang: Lang) -> str:
    return json.dumps({"terms": search_terms(site, lang)}, ensure_ascii=False, separators=(",", ":")) + "\n"


def write_search_terms(site_dir: Path, site: Site, languages: list[dict[str, str]]) -> None:
    """One file per language of config.extra.qa.languages (each a mapping with its `lang` and `root`)."""
    for language in languages:
        lang: Lang = language["lang"]  # type: ignore[assignment]
        (site_dir / language["root"] / FILE_NAME).write_text(search_terms_json(site, lang), encoding="utf-8")


def _parts(name: str) -> tuple[str, ...]:
    m = _BRACKETED.fullmatch(name.strip())
    return (m.group(1), m.group(2)) if m else ()


_BRACKETED = re.compile(r"(.+?)\s*[（(]([^（）()]+)[）)]")
