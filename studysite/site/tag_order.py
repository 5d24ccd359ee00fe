"""One tag order everywhere: a question's tag chips in taxonomy order (as the home page, the tags index
and the downloads table list them), and each chip's link to its tag's page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..pages.markup import escape
from ..pages.render_study import DATA_PATH


def install(config: Any, docs_dir: Path) -> None:
    """Give the tags plugin (if on) sort keys, and the chips their links, read from this language's
    question data (studysite/pages/render_study.py)."""
    plugin = config.plugins.get("material/tags")
    data_file = docs_dir / DATA_PATH
    if plugin is None or not data_file.exists():
        return
    data = json.loads(data_file.read_text(encoding="utf-8"))
    # Front matter holds names HTML-escaped (markup.front_matter): the plugin's tags carry them so.
    tag_rank = {escape(tag["name"]): i for i, tag in enumerate(data["tags"])}
    page_rank = {q["url"]: i for i, q in enumerate(data["questions"])}  # banks in order, each in bank order
    last = len(page_rank)

    def tag_key(tag: Any, *_: Any) -> tuple[int, str]:
        return (tag_rank.get(tag.name, len(tag_rank)), tag.name)

    def page_key(mapping: Any) -> tuple[int, str]:
        url = str(mapping.item.url)
        return (page_rank.get(url, last), url)

    # overrides/partials/tags.html links each chip to its tag's page (studysite/pages/listings.py).
    config.extra["qa_tag_urls"] = {escape(tag["name"]): tag["url"] for tag in data["tags"]}
    plugin.config.listings_tags_sort_by = tag_key
    plugin.config.tags_sort_by = tag_key
    plugin.config.listings_sort_by = page_key
