"""Load the tag taxonomy (banks/taxonomy.yml) and decide which tags a question gets."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from ..errors import Problems
from ..languages import LANGUAGES
from ..model import Question, Tag
from ..sources.yamlfile import check_fields, load_yaml

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
    seen: dict[tuple[str, str], int] = {}
    implied_at: dict[str, int] = {}
    for item in top["tags"].value:
        fields = check_fields(item, _FIELDS, {"id", *LANGUAGES.written, "keywords"}, path, "tag", problems)
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
        for key in ("id", *LANGUAGES.written):
            name = fields[key].value.strip().casefold()
            if (key, name) in seen:
                problems.error(path, fields[key].line, f"tag: {key} {name!r} already used at line {seen[key, name]}")
            seen[key, name] = fields[key].line
        keywords = tuple(k.value.strip().casefold() for k in fields["keywords"].value)
        implies = tuple(v.value.strip() for v in fields["implies"].value) if "implies" in fields else ()
        names = {lang: fields[lang].value.strip() for lang in LANGUAGES.written}
        tags.append(Tag(tag_id, names, keywords, item.line, implies))  # type: ignore[arg-type]
        if implies:
            implied_at[tag_id] = fields["implies"].line
    known = {tag.id for tag in tags}
    for tag in tags:
        for other in tag.implies:
            if other not in known or other == tag.id:
                problems.error(
                    path, implied_at[tag.id], f"tag: `implies` names `{other}`, not another tag of the taxonomy"
                )
    return tuple(tags)


def assign_tags(tags: tuple[Tag, ...], questions: list[Question]) -> tuple[str, ...]:
    """Tags for one question given its text in each language it has: at least one, at most MAX_TAGS.

    Each language is scored on its own and the higher score counts, so a translated bank does not
    count every keyword twice.
    """
    matcher = _matcher(tags)
    best = [0] * len(tags)
    for q in questions:
        score = [0] * len(tags)
        for text, weight in ((q.text, TITLE_WEIGHT), (" ".join(q.answer_lines), 1)):
            for keyword in matcher.found(text.casefold()):
                for order in matcher.owners[keyword]:
                    score[order] += weight
        best = list(map(max, best, score))
    scores = [(score, order, tag.id) for order, (score, tag) in enumerate(zip(best, tags, strict=True))]
    ranked = sorted(scores, key=lambda s: (-s[0], s[1]))
    chosen = [s for s in ranked if s[0] >= THRESHOLD][:MAX_TAGS] or [s for s in ranked[:1] if s[0] > 0]
    ids = {tag_id for _, _, tag_id in chosen}
    for order in [order for _, order, _ in chosen]:  # broader tags, while there is room
        for other in tags[order].implies:
            if len(ids) < MAX_TAGS:
                ids.add(other)
    return tuple(tag.id for tag in tags if tag.id in ids)


def _contains(text: str, keyword: str) -> bool:
    # ASCII keywords match whole words (so "tp" is not found in "http"); Chinese ones anywhere.
    if not keyword.isascii():
        return keyword in text
    # str.find, not a regex: a pattern that opens with a lookbehind is tried at every position (~20x slower).
    at = text.find(keyword)
    while at >= 0:
        end = at + len(keyword)
        if (at == 0 or text[at - 1] not in _WORD) and (end == len(text) or text[end] not in _WORD):
            return True
        at = text.find(keyword, at + 1)
    return False


class _Matcher:
    """Every keyword of a taxonomy that `_contains` finds in a text, found without a regex per keyword.

    An ASCII keyword made of one run of [a-z0-9] matches exactly when it is one of the text's runs
    (a set intersection); a Chinese one is a plain substring; any other ASCII keyword ("kv cache",
    "all-gather") can only match when every run of it is one of the text's runs, and only then is
    it looked for as a whole word.
    """

    def __init__(self, tags: tuple[Tag, ...]) -> None:
        keywords = {k for tag in tags for k in tag.keywords}
        self.owners: dict[str, list[int]] = {k: [] for k in keywords}
        """Keyword -> the tags (by position) listing it, once per listing."""
        for order, tag in enumerate(tags):
            for k in tag.keywords:
                self.owners[k].append(order)
        self.single = {k for k in keywords if _RUN.fullmatch(k)}
        others = sorted(keywords - self.single)
        self.chinese = [k for k in others if not k.isascii()]
        self.phrases = [(k, frozenset(_RUN.findall(k))) for k in others if k.isascii()]

    def found(self, text: str) -> set[str]:
        runs = set(_RUN.findall(text))
        hits = self.single & runs
        hits.update(filter(text.__contains__, self.chinese))
        hits.update(k for k, parts in self.phrases if parts <= runs and _contains(text, k))
        return hits


@functools.lru_cache(maxsize=8)
def _matcher(tags: tuple[Tag, ...]) -> _Matcher:
    return _Matcher(tags)


_FIELDS: dict[str, type] = {"id": str, **{lang: str for lang in LANGUAGES.written}, "keywords": list, "implies": list}
"""A tag's fields: its name in each written language (the table's bank and translation languages: `zh`, `en`)."""
_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_RUN = re.compile(r"[a-z0-9]+")
_WORD = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
"""What `_RUN` is made of: an ASCII keyword must not continue into one of these."""
