"""Cross-links: up to five related questions per page, and inline links from a term to its question.

Both use an inverted index (term -> questions), never an all-pairs comparison, so linking stays
linear in the corpus: a term shared by too many questions says nothing and is skipped.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import defaultdict
from itertools import compress, repeat
from operator import add

from .model import Entry, Lang, Question

MAX_RELATED = 5
MIN_SCORE = 1.0
"""Below this a 'related' question shares too little to be worth the reader's click."""
MAX_POSTING = 50
"""A term in more questions than this (or in a tenth of them) is too common to relate anything."""
TAG_WEIGHT = 0.5
ASCII_WEIGHT = 1.0
HAN_WEIGHT = 0.25
TITLE_BOOST = 2.0
MAX_INLINE_LINKS = 5


def question_terms(question: Question) -> dict[str, float]:
    """Weighted technical terms of a question, read from its Chinese text.

    In a Chinese bank the ASCII words are the field's terms (AllReduce, NVSHMEM, shared memory)
    and weigh most; Chinese character bigrams catch the rest (显存, 通信) at a lower weight.
    Terms in the question itself count double: they say what the question is about.
    """
    terms: dict[str, float] = defaultdict(float)
    for i, text in enumerate([question.text, *_answer_lines(question)]):
        boost = TITLE_BOOST if i == 0 else 1.0
        for token in _ASCII_TOKEN.findall(text):
            word = token.casefold()
            if len(word) > 1 and word not in _STOP and not word.isdigit():
                terms[word] = max(terms[word], ASCII_WEIGHT * boost)
        for run in _HAN_RUN.findall(text):
            for k in range(len(run) - 1):
                bigram = run[k : k + 2]
                terms[bigram] = max(terms[bigram], HAN_WEIGHT * boost)
    return dict(terms)


def related_questions(entries: list[Entry], terms: dict[str, dict[str, float]]) -> dict[str, tuple[str, ...]]:
    """For each slug, up to MAX_RELATED other slugs ranked by shared rare terms plus shared tags.

    Score of a pair: sum over shared terms of idf x the smaller of the two weights, plus
    TAG_WEIGHT per shared tag. Only terms in at most `cap` questions take part, so the work is
    bounded by the postings of rare terms, not by the number of pairs.
    """
    postings: dict[str, list[str]] = defaultdict(list)
    for e in entries:
        for term in terms[e.slug]:
            postings[term].append(e.slug)
    n = len(entries)
    cap = max(4, min(MAX_POSTING, n // 10))
    idf = {t: math.log(1 + n / len(p)) for t, p in postings.items() if 1 < len(p) <= cap}
    tags = {e.slug: set(e.tags) for e in entries}
    order = {e.slug: i for i, e in enumerate(entries)}
    # Per rare term: its idf, the questions holding it, and what it adds to each of them per
    # weight it has in the question being scored (computed once). The adding itself runs in C
    # (map/zip/update) in the same order as a plain loop, so every score is the very same float.
    rare: dict[str, tuple[float, list[str], dict[float, list[float]]]] = {
        t: (rarity, postings[t], {}) for t, rarity in idf.items()
    }
    result = {}
    for e in entries:
        score: dict[str, float] = {}
        get = score.get
        for term, weight in terms[e.slug].items():
            known = rare.get(term)
            if known is not None:
                rarity, others, by_weight = known
                gain = by_weight.get(weight)
                if gain is None:
                    gain = by_weight[weight] = [rarity * min(weight, terms[o][term]) for o in others]
                score.update(zip(others, map(add, map(get, others, repeat(0.0)), gain), strict=True))
        score.pop(e.slug, None)
        candidates = score.items()
        if len(score) > MAX_RELATED:
            # Shared tags add at most `bonus`: a question that cannot reach the fifth best term
            # score cannot be in the top five, so only the others are ranked (same result, faster).
            fifth = heapq.nlargest(MAX_RELATED, score.values())[-1]
            bonus = TAG_WEIGHT * len(tags[e.slug])
            reach = map(fifth.__le__, map(add, score.values(), repeat(bonus)))  # s + bonus >= fifth, in C
            candidates = list(compress(score.items(), reach))
        ranked = sorted(
            ((s + TAG_WEIGHT * len(tags[e.slug] & tags[o]), o) for o, s in candidates),
            key=lambda x: (-x[0], order[x[1]]),
        )
        result[e.slug] = tuple(o for s, o in ranked if s >= MIN_SCORE)[:MAX_RELATED]
    return result


def subject_terms(entries: list[Entry], lang: Lang) -> dict[str, str]:
    """Terms that name the subject of exactly one question (`Megatron-LM`, `NVSHMEM`) -> its slug.

    A subject is an ASCII name in the question's title; when several titles share it, the question
    whose answer uses it most owns it.
    """
    owners: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for e in entries:
        q = e.text[lang]
        body = " ".join(_answer_lines(q)).casefold()
        # Names come from the Chinese title, where ASCII runs delimit them; English keeps those it uses.
        for phrase in _subject_phrases(e.text["zh"].text):
            found = re.search(re.escape(phrase), q.text, re.IGNORECASE)
            if found:
                name = found.group(0)
                owners[name.casefold()].append((-body.count(name.casefold()), e.index, e.slug))
    subjects = {}
    for phrase, claims in owners.items():
        claims.sort()
        if len(claims) == 1 or claims[0][0] < claims[1][0]:
            subjects[phrase] = claims[0][2]
    return subjects


def inline_links(entries: list[Entry], lang: Lang) -> dict[str, tuple[tuple[str, str], ...]]:
    """Per slug, the (term, target slug) pairs whose first mention in the answer links to the target."""
    subjects = subject_terms(entries, lang)
    if not subjects:
        return {}
    # One alternation, longest first, so "Ring AllReduce" wins over "AllReduce".
    pattern = re.compile(
        r"(?<![A-Za-z0-9\-])("
        + "|".join(re.escape(t) for t in sorted(subjects, key=len, reverse=True))
        + r")(?![A-Za-z0-9\-])",
        re.IGNORECASE,
    )
    out = {}
    for e in entries:
        found: dict[str, str] = {}
        for line in _answer_lines(e.text[lang]):
            for m in pattern.finditer(line):
                target = subjects[m.group(1).casefold()]
                if target != e.slug and m.group(1) not in found and target not in found.values():
                    found[m.group(1)] = target
        if found:
            out[e.slug] = tuple(list(found.items())[:MAX_INLINE_LINKS])
    return out


def _subject_phrases(title: str) -> set[str]:
    phrases = set()
    for m in _ASCII_PHRASE.finditer(title):
        phrase = m.group(0).strip(" -/")
        specific = " " in phrase or "-" in phrase or any(c.isupper() or c.isdigit() for c in phrase)
        if len(phrase) >= 3 and specific and phrase.casefold() not in _GENERIC and not phrase.isdigit():
            phrases.add(phrase)
    return phrases


def _answer_lines(q: Question) -> list[str]:
    lines: list[str] = []
    for block in q.blocks:
        items = getattr(block, "items", None)
        if items:
            lines.extend(i.text for i in items)
        else:
            lines.append(block.text)  # type: ignore[union-attr]
    return lines


_ASCII_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*")
# A run of capitalised or technical ASCII words in a title ("Two-batch overlap", "Megatron-LM").
_ASCII_PHRASE = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-]*(?: [A-Za-z0-9][A-Za-z0-9\-]*)*")
_HAN_RUN = re.compile(r"[\u3400-\u9fff]{2,}")
_STOP = frozenset(
    "the and for with from that this are was were been has have had its into than then also can not but "
    "each which what when where why how does more most less such use used using only other both same one "
    "two per via may should would will about between while there their them they these those you your".split()
)
# English title words that are never the subject of a question.
_GENERIC = frozenset(
    "what how why which when where the and for are with does do is can should would there their gpu gpus "
    "data model models tokens token".split()
)
