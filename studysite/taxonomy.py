"""Load the tag taxonomy (banks/taxonomy.yml) and decide which tags a question gets."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from .errors import Problems
from .model import Question, Tag
from .yamlfile import check_fields, load_yaml

TITLE_WEIGHT = 3
"""A keyword in the question itself is worth this many keywords in the answer."""
THRESHOLD = 3
"""A tag needs this score: one keyword in the question, or three different ones in the answer."""
MAX_TAGS = 4
"""More tags than this stop telling the reader what a question is about."""


def load_taxonomy(path: Path, problems: Problems) -> tuple[Tag, ...]:
    """Validate the taxonomy file into Tags; every malformed entry is reported with its line and field."""
    doc = load_yaml(path, problems)
    if doc is None:
        return ()
    top = (
        check_fields(doc, {"tags": tuple}, {"tags"}, path, "taxonomy", problems)
        if isinstance(doc.value, dict)
        else None
    )
    if top is None:
        if not isinstance(doc.value, dict):
            problems.error(path, doc.line, "taxonomy must be a mapping with a `tags:` list")
        return ()
    tags: list[Tag] = []
    seen: dict[str, int] = {}
    for item in top["tags"].value:
        fields = check_fields(item, _FIELDS, {"id", "zh", "en", "keywords"}, path, "tag", problems)
        if fields is None:
            continue
        tag_id = fields["id"].value.strip()
        if not _ID.fullmatch(tag_id):
            problems.error(
                path,
                fields["id"].line,
                f"tag: field `id` must be lower-case ASCII letters, digits and hyphens (got {tag_id!r})",
            )
            continue
        for key in ("id", "zh", "en"):
            name = fields[key].value.strip().casefold()
            if (key, name) in seen:
                problems.error(path, fields[key].line, f"tag: {key} {name!r} already used at line {seen[key, name]}")
            seen[key, name] = fields[key].line  # type: ignore[index]
        keywords = tuple(k.value.strip().casefold() for k in fields["keywords"].value)
        tags.append(
            Tag(tag_id, {"zh": fields["zh"].value.strip(), "en": fields["en"].value.strip()}, keywords, item.line)
        )
    return tuple(tags)


def assign_tags(tags: tuple[Tag, ...], questions: list[Question]) -> tuple[str, ...]:
    """Tags for one question given its text in each language it has: at least one, at most MAX_TAGS.

    Each language is scored on its own and the higher score counts, so a translated bank does not
    count every keyword twice.
    """
    matcher = _matcher(tags)
    texts = [(matcher.found(q.text.casefold()), matcher.found(_answer_text(q).casefold())) for q in questions]
    scores = []
    for order, tag in enumerate(tags):
        score = max(
            sum(TITLE_WEIGHT for k in tag.keywords if k in title) + sum(1 for k in tag.keywords if k in body)
            for title, body in texts
        )
        scores.append((score, order, tag.id))
    ranked = sorted(scores, key=lambda s: (-s[0], s[1]))
    chosen = [s for s in ranked if s[0] >= THRESHOLD][:MAX_TAGS] or [s for s in ranked[:1] if s[0] > 0]
    return tuple(tag_id for _, _, tag_id in sorted(chosen, key=lambda s: s[1]))


def _answer_text(question: Question) -> str:
    parts: list[str] = []
    for block in question.blocks:
        items = getattr(block, "items", None)
        parts.extend(i.text for i in items) if items else parts.append(block.text)  # type: ignore[union-attr]
    return " ".join(parts)


def _contains(text: str, keyword: str) -> bool:
    # ASCII keywords match whole words (so "tp" is not found in "http"); Chinese ones anywhere.
    if keyword.isascii():
        return re.search(rf"(?<![a-z0-9]){re.escape(keyword)}(?![a-z0-9])", text) is not None
    return keyword in text


class _Matcher:
    """Every keyword of a taxonomy that `_contains` finds in a text, found without a regex per keyword.

    An ASCII keyword made of one run of [a-z0-9] matches exactly when it is one of the text's runs
    (a set intersection); any other keyword is looked for as a substring first and only then
    checked with `_contains` itself.
    """

    def __init__(self, tags: tuple[Tag, ...]) -> None:
        keywords = {k for tag in tags for k in tag.keywords}
        self.single = {k for k in keywords if _RUN.fullmatch(k)}
        self.others = sorted(keywords - self.single)

    def found(self, text: str) -> set[str]:
        hits = self.single.intersection(_RUN.findall(text))
        hits.update(k for k in self.others if k in text and _contains(text, k))
        return hits


@functools.lru_cache(maxsize=8)
def _matcher(tags: tuple[Tag, ...]) -> _Matcher:
    return _Matcher(tags)


_FIELDS = {"id": str, "zh": str, "en": str, "keywords": list}
_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_RUN = re.compile(r"[a-z0-9]+")
