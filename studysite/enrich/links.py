"""Cross-links: up to five related questions per page, and inline links from a term to its question.

Both use an inverted index (term -> questions), never an all-pairs comparison, so linking stays
linear in the corpus: a term shared by too many questions says nothing and is skipped.

Which mentions get a mark (an inline link here, a glossary tooltip in render.py) follows one rule,
so that a mark helps instead of crowding the text:
  - whole terms only: a mention counts only where the term stands whole (`stands_alone`): no letter,
    digit or hyphen touches it, and it is not part of a longer capitalised name: in "Distributed
    Shared Memory" neither "Shared Memory" nor "Memory" is a mention of its own;
  - once per answer per term: its first whole mention, and a term that is linked gets no tooltip;
  - a few per answer: at most MAX_MARKS_PER_ANSWER marks in an answer, at most one in a list item and
    MAX_MARKS_PER_PARAGRAPH in a paragraph; in a block, links (which lead on) come before tooltips,
    then the earlier mention first.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence
from itertools import count
from typing import TYPE_CHECKING, NamedTuple, Protocol

from ..languages import BANK_LANG
from ..model import Entry, Lang, Question

if TYPE_CHECKING:
    import numpy as np

MAX_RELATED = 5
MIN_SCORE = 1.0
"""Below this a 'related' question shares too little to be worth the reader's click."""
MAX_POSTING = 50
"""A term in more questions than this (or in a tenth of them) is too common to relate anything."""
MAX_ANSWER_BIGRAM_POSTING = 10
"""A Chinese bigram in more questions than this (or than a tenth of them) relates two questions only
when it is in both titles: in answers it is ordinary prose, and its pairs would be most of the work."""
TAG_WEIGHT = 0.5
ASCII_WEIGHT = 1.0
HAN_WEIGHT = 0.25
TITLE_BOOST = 2.0
MAX_INLINE_LINKS = 5
MAX_MARKS_PER_ANSWER = 4
"""Links and tooltips together, in one answer (see the module docstring)."""
MAX_MARKS_PER_PARAGRAPH = 2
"""In a paragraph or lead-in; a list item gets at most one."""


def stands_alone(text: str, start: int, end: int) -> bool:
    """Whether the mention text[start:end] is a whole term: no letter, digit or hyphen right before or
    after it, and no capitalised word joined to it by one space that would make it part of a longer
    name ("Distributed Shared Memory", "Ring AllReduce"). Only a capitalised mention can be part of
    such a name ("CUDA global memory" mentions "global memory"), and common words ("In", "The",
    "Use") written with a capital at a sentence start, and "API", are not part of one.
    """
    if (start and text[start - 1] in _NAME_CHARS) or (end < len(text) and text[end] in _NAME_CHARS):
        return False
    if not text[start].isupper():
        return True
    before = _NAME_BEFORE.search(text, max(0, start - 40), start)
    if before and before.group(1).lower() not in _COMMON:
        return False
    after = _NAME_AFTER.match(text, end)
    return not (after and after.group(1).lower() not in _COMMON)


def question_terms(question: Question) -> dict[str, float]:
    """Weighted technical terms of a question, read from its Chinese text.

    In a Chinese bank the ASCII words are the field's terms (AllReduce, NVSHMEM, shared memory)
    and weigh most; Chinese character bigrams catch the rest (显存, 通信) at a lower weight.
    Terms in the question itself count double: they say what the question is about. The order of
    the terms carries no meaning.
    """
    title = _line_terms(question.text, TITLE_BOOST)
    # The answer in one piece: no term spans a line end (neither a word nor a bigram holds "\n").
    body = _line_terms("\n".join(question.answer_lines), 1.0)
    # A title term keeps the title's (higher) weight.
    body.update(title)
    return body


class Tagged(NamedTuple):
    """A question's slug and tags: all that related_questions reads of an Entry besides its terms."""

    slug: str
    tags: tuple[str, ...]


class _HasTags(Protocol):
    @property
    def slug(self) -> str: ...
    @property
    def tags(self) -> tuple[str, ...]: ...


def related_questions(
    entries: Sequence[_HasTags],
    terms: Mapping[str, dict[str, float]],
    numbers: TermNumbers | None = None,
    held: HeldRelated | None = None,
    keys: Sequence[Hashable] | None = None,
) -> dict[str, tuple[str, ...]]:
    """For each slug, up to MAX_RELATED other slugs ranked by shared rare terms plus shared tags.

    Score of a pair: sum over shared terms of idf x the smaller of the two weights, plus
    TAG_WEIGHT per shared tag. Only terms in at most `cap` questions take part (Chinese bigrams in
    more than MAX_ANSWER_BIGRAM_POSTING only from title to title), so the work is bounded by the
    postings of rare terms, not by the number of pairs: at most cap^2 pairs per term.

    The pairs are scored with numpy: one array of (question, question, gain) per shared rare term,
    summed per pair. Gains are fixed-point integers (idf in units of 2^-IDF_BITS, weights of
    2^-WEIGHT_BITS), so a pair's sum is exact and the same in any order: the result does not depend on
    how the terms are numbered, which lets `numbers` (kept by the caller between builds) number only
    the questions it has not seen. Equal totals go to the earlier question.

    `held` (kept by the caller with `numbers`) holds the previous call's inputs and result: when the
    questions are the same ones in the same order, only the rows that can differ are scored again
    (`HeldRelated.rows`), and the others are the previous call's. The result is the same either way.

    `keys`: what names each question's terms, equal keys for equal terms (the generator passes the
    digest of each question's Chinese text). `numbers` and `held` know a question's terms by its key:
    `terms` is read only for the keys `numbers` has not numbered, so it can be a mapping that
    computes (or unpickles) a question's terms when asked. Without keys, each question's terms are
    their own key.
    """
    n = len(entries)
    if keys is None:
        keys = range(n) if numbers is None and held is None else [_terms_key(terms[e.slug]) for e in entries]
    numbers = numbers or TermNumbers()
    epoch = numbers.epoch  # that of this call's term numbers (_rare_terms may start a new one after)
    every, lengths, q, t, w, idf, k = _rare_terms(keys, lambda i: terms[entries[i].slug], numbers)
    call = _RelatedCall([e.slug for e in entries], list(keys), [e.tags for e in entries], every, lengths, k, epoch)
    rows = held.rows(call) if held is not None else None
    chosen: list[list[str]] = [[] for _ in range(n)]
    if len(q):
        _score_rows(entries, q, t, w, idf, rows, chosen)
    if held is None:
        return {e.slug: tuple(chosen[i]) for i, e in enumerate(entries)}
    last = held.result
    result = {e.slug: tuple(chosen[i]) if rows is None or rows[i] else last[e.slug] for i, e in enumerate(entries)}
    held.keep(call, result)
    return result


def _score_rows(
    entries: Sequence[_HasTags],
    q: np.ndarray,
    t: np.ndarray,
    w: np.ndarray,
    idf: np.ndarray,
    rows: np.ndarray | None,
    chosen: list[list[str]],
) -> None:
    """related_questions' scoring of the rare-term entries (q, t, w): the best others of each question
    whose `rows` flag is set (every question's without `rows`), appended to `chosen`."""
    import numpy as np  # here, not above: importing it costs each build process ~0.25 s, and most never link

    n = len(entries)
    idf_units = np.round(idf * 2.0**IDF_BITS).astype(np.int64)
    w_units = np.round(w * 2.0**WEIGHT_BITS).astype(np.int64)
    # Group the (question, term) entries by term, questions in order within each term.
    order = np.lexsort((q, t))
    q, t, w_units = q[order], t[order], w_units[order]
    starts = np.flatnonzero(np.r_[True, t[1:] != t[:-1]])
    sizes = np.diff(np.r_[starts, len(t)])
    # Every ordered pair within a term's group whose left entry is of a question scored: that entry
    # pairs with each entry of its own group.
    own_size = np.repeat(sizes, sizes)
    own_first = np.repeat(starts, sizes)
    scored = np.arange(len(t)) if rows is None else np.flatnonzero(rows[q])
    group_size = own_size[scored]
    left = np.repeat(scored, group_size)
    first = np.repeat(own_first[scored], group_size)
    offset = np.arange(len(left)) - np.repeat(np.cumsum(group_size) - group_size, group_size)
    right = first + offset
    keep = left != right
    left, right = left[keep], right[keep]
    gain = idf_units[t[left]] * np.minimum(w_units[left], w_units[right])
    key = q[left] * n + q[right]
    if not len(key):  # the questions scored share no term with any other
        return
    by_pair = np.argsort(key, kind="stable")
    key = key[by_pair]
    begins = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    pairs = key[begins]
    score = np.add.reduceat(gain[by_pair], begins)  # int64: exact
    a, b = pairs // n, pairs % n
    total = score + _units(TAG_WEIGHT) * _shared_tags(entries, a, b)
    ok = total >= _units(MIN_SCORE)
    a, b, total = a[ok], b[ok], total[ok]
    # Per question: best total first, then the earlier question. The pairs are in (a, b) order
    # already, so two stable sorts do it: by total, then by question (as 16-bit integers, which numpy
    # sorts by radix, when there are at most 65,536 questions); a three-key lexsort took 0.20 s of
    # 763,000 pairs at 5,000 questions, these 0.06 s.
    rank = np.argsort(-total, kind="stable")
    by_question = a[rank].astype(np.uint16) if n <= 1 << 16 else a[rank]
    rank = rank[np.argsort(by_question, kind="stable")]
    a, b = a[rank], b[rank]
    row_start = np.searchsorted(a, np.arange(n))
    place = np.arange(len(a)) - row_start[a]
    top = place < MAX_RELATED
    for i, o in zip(a[top].tolist(), b[top].tolist(), strict=True):
        chosen[i].append(entries[o].slug)


class HeldRelated:
    """The inputs and result of the last related_questions call, kept between builds in one process
    (`make serve`, the benchmark) with its TermNumbers. After an edit, only the rows that can differ
    are scored again: 5,000 questions took 0.38 s to score whole, an edited one's rows ~0.1 s.

    A question's row (its best others) depends on the pairs it is in: their shared terms' weights and
    idf (the number of questions with the term, `k`) and their shared tags. When one question's terms
    or tags change, a pair can change only if it shares a term with that question, before or after, or
    holds a term whose `k` changed; and `k` changes only for terms of the changed questions. So the rows
    scored again are those of the changed questions and of every question with a term that a changed
    question has (had), unless that term is in more than `cap` questions both before and after (it
    then relates nothing either time). Any other change (questions added, removed or reordered, terms
    numbered afresh) scores every row."""

    SHARE = 0.5
    """Score every row when more than this share of them would be scored again anyway."""

    def __init__(self) -> None:
        self._last: _RelatedCall | None = None
        self.result: dict[str, tuple[str, ...]] = {}

    def rows(self, now: _RelatedCall) -> np.ndarray | None:
        """A flag per question of the call `now`: its row is to be scored again; None: every row."""
        import numpy as np

        last = self._last
        n = len(now.slugs)
        if last is None or last.epoch != now.epoch or last.slugs != now.slugs:
            return None
        changed = [
            i
            for i, (own, old, tags, old_tags) in enumerate(zip(now.keys, last.keys, now.tags, last.tags, strict=True))
            if own != old or tags != old_tags
        ]
        if not changed:
            return np.zeros(n, dtype=bool)
        ends, old_ends = np.cumsum(now.lengths), np.cumsum(last.lengths)
        touched = np.concatenate(
            [now.every[ends[i] - now.lengths[i] : ends[i]] for i in changed]
            + [last.every[old_ends[i] - last.lengths[i] : old_ends[i]] for i in changed]
        )
        before = np.zeros(len(now.k), dtype=np.int64)
        before[: len(last.k)] = last.k
        cap = _posting_caps(n)[0]
        touched = touched[np.minimum(before[touched], now.k[touched]) <= cap]
        hit = np.zeros(len(now.k), dtype=bool)
        hit[touched] = True
        rows = np.zeros(n, dtype=bool)
        rows[np.repeat(np.arange(n), now.lengths)[hit[now.every]]] = True
        rows[changed] = True
        return None if np.count_nonzero(rows) > self.SHARE * n else rows

    def empty(self) -> bool:
        """Whether no call is held (none yet in this process, nor restored)."""
        return self._last is None

    def keep(self, call: _RelatedCall, result: dict[str, tuple[str, ...]]) -> None:
        """Hold `call` and its result for the next call."""
        self._last = call
        self.result = result


class _RelatedCall(NamedTuple):
    """The inputs of a related_questions call that HeldRelated compares and keeps: each question's
    slug, terms' key and tags, and the arrays _rare_terms returned (every question's term numbers one
    after another, each question's count, each term's number of questions), numbered in `epoch`."""

    slugs: list[str]
    keys: list[Hashable]
    tags: list[tuple[str, ...]]
    every: np.ndarray
    lengths: np.ndarray
    k: np.ndarray
    epoch: int


IDF_BITS = 32
WEIGHT_BITS = 10
"""A pair's score is summed in units of 2^-(IDF_BITS + WEIGHT_BITS): every term weight here (0.25, 0.5,
1, 2) is exact in it, an idf is within 2^-33 of its value, and a sum of a thousand shared terms stays far
below 2^63."""


def _units(score: float) -> int:
    """A score in the fixed-point units related_questions sums in."""
    return round(score * 2.0 ** (IDF_BITS + WEIGHT_BITS))


_NUMBERINGS = count()
"""Numbers each TermNumbers numbering (`TermNumbers.epoch`)."""


class TermNumbers:
    """Terms numbered 0, 1, 2 ... and each question's terms as arrays of those numbers, for
    related_questions. Kept between builds (in one process, `make serve`, or saved beside the cache:
    `snapshot`), it numbers only the terms of the keys it has not seen: after an edit, one question's.
    Numbering ~1 million term uses at 5,000 questions took 0.5 s of the 1 s related_questions took.
    Only the keys of the last call are kept."""

    def __init__(self) -> None:
        self.epoch = -1
        """This numbering's number, unique in the process (across TermNumbers too): a term's number means
        the same term only within one numbering."""
        self._reset()

    def _reset(self) -> None:
        self.epoch = next(_NUMBERINGS)
        self._number: defaultdict[str, int] = defaultdict(count().__next__)
        self._seen: dict[Hashable, tuple[np.ndarray, np.ndarray]] = {}

    def arrays(
        self, keys: Sequence[Hashable], terms: Callable[[int], dict[str, float]]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Term numbers and weights of every question's terms, one after another, and each question's
        count; `terms(i)` is asked for only where `keys[i]` was not numbered in the last call."""
        import numpy as np

        number, seen = self._number, self._seen
        now: dict[Hashable, tuple[np.ndarray, np.ndarray]] = {}
        ids, values = [], []
        for i, key in enumerate(keys):
            held = seen.get(key) or now.get(key)
            if held is None:
                own = terms(i)
                term = np.fromiter(map(number.__getitem__, own), dtype=np.int64, count=len(own))
                held = (term, np.fromiter(own.values(), dtype=np.float64, count=len(own)))
            now[key] = held
            ids.append(held[0])
            values.append(held[1])
        self._seen = now
        lengths = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
        empty = [np.zeros(0, dtype=np.int64)]
        return np.concatenate(ids or empty), np.concatenate(values or [np.zeros(0)]), lengths

    def knows(self, key: Hashable) -> bool:
        """Whether the last call numbered the terms of `key` (`arrays` will not ask for them)."""
        return key in self._seen

    def vocabulary(self) -> list[str]:
        """Every term numbered so far, by its number."""
        return list(self._number)

    def size(self) -> int:
        return len(self._number)

    def trim(self, in_use: int) -> None:
        """Start numbering afresh next time when most numbered terms are no longer used (`in_use`)."""
        if len(self._number) > 2 * in_use + 100_000:
            self._reset()


def _terms_key(terms: dict[str, float]) -> Hashable:
    """A question's terms as their own key (related_questions without keys)."""
    return tuple(sorted(terms.items()))


class RelatedSnapshot(NamedTuple):
    """The term numbers and the last call that TermNumbers and HeldRelated hold, in a form to pickle: a
    new process (`make site`, `scripts/build_pages.py`) takes it up with `restore` and scores only an
    edit's rows, as `make serve` does (at 5,000 questions the terms and their numbers of every question,
    taken from the cache one by one, and every row scored, took ~1.2 s)."""

    vocabulary: str
    """Every numbered term, by its number, joined by NUL (no term holds one): one string pickles in
    0.1 ms, against 30 ms for a list of the 238,000 terms at 5,000 questions, and splits in 24 ms."""
    slugs: list[str]
    keys: list[Hashable]
    tags: list[tuple[str, ...]]
    ids: np.ndarray
    """Every question's term numbers one after another (int32), in the call's order."""
    values: np.ndarray
    """Their weights (float64)."""
    lengths: np.ndarray
    """Each question's count of terms."""
    result: dict[str, tuple[str, ...]]


def snapshot(numbers: TermNumbers, held: HeldRelated) -> RelatedSnapshot | None:
    """What `numbers` and `held` hold after a related_questions call with both; None when `held` holds
    no call numbered by `numbers` (none yet, or the numbering started afresh since: TermNumbers.trim)."""
    import numpy as np

    last = held._last
    if last is None or last.epoch != numbers.epoch:
        return None
    vocabulary = "\0".join(numbers._number)
    if vocabulary.count("\0") != max(0, len(numbers._number) - 1):
        return None  # a term with a NUL in it (none of question_terms' has one)
    # The numbers hold the terms of the last call's keys (and only those): the call's arrays are theirs.
    values = [numbers._seen[key][1] for key in last.keys]
    return RelatedSnapshot(
        vocabulary,
        last.slugs,
        last.keys,
        last.tags,
        last.every.astype(np.int32),
        np.concatenate(values or [np.zeros(0)]),
        last.lengths.astype(np.int32),
        held.result,
    )


def restore(numbers: TermNumbers, held: HeldRelated, snap: RelatedSnapshot) -> None:
    """Make `numbers` and `held` what they were when `snap` was taken (in a new numbering, the held call
    with it). Raises ValueError, and changes neither, when `snap` does not hang together."""
    import numpy as np

    ids, values, lengths = snap.ids.astype(np.int64), np.asarray(snap.values, dtype=np.float64), snap.lengths
    vocabulary = snap.vocabulary.split("\0") if snap.vocabulary else []
    n = len(snap.slugs)
    if not (
        len(snap.keys) == len(snap.tags) == len(lengths) == n
        and len(ids) == len(values) == int(lengths.sum())
        and (not len(ids) or 0 <= int(ids.min()) <= int(ids.max()) < len(vocabulary))
        and set(snap.result) == set(snap.slugs)
    ):
        raise ValueError("a related-questions snapshot that does not hang together")
    ends = np.cumsum(lengths, dtype=np.int64)
    starts = ends - lengths
    numbers._reset()
    numbers._number = defaultdict(count(len(vocabulary)).__next__, zip(vocabulary, count()))
    numbers._seen = {
        key: (ids[a:b], values[a:b]) for key, a, b in zip(snap.keys, starts.tolist(), ends.tolist(), strict=True)
    }
    k = np.bincount(ids, minlength=len(vocabulary))
    held._last = _RelatedCall(snap.slugs, snap.keys, snap.tags, ids, lengths.astype(np.int64), k, numbers.epoch)
    held.result = snap.result


def _shared_tags(entries: Sequence[_HasTags], a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How many tags questions a[k] and b[k] share, for every k: each question's tags as bits, 64 tags
    to a word, and the bits both have counted (one pass over the pairs per 64 tags, not per tag)."""
    import numpy as np

    ids: dict[str, int] = {}
    rows = [[ids.setdefault(tag, len(ids)) for tag in e.tags] for e in entries]
    words = np.zeros((max(1, -(-len(ids) // 64)), len(entries)), dtype=np.uint64)
    for i, row in enumerate(rows):
        for tag in row:
            words[tag >> 6, i] |= np.uint64(1 << (tag & 63))
    shared = np.zeros(len(a), dtype=np.int64)
    for word in words:  # one pass per 64 tags keeps memory at the size of the pair list
        shared += np.bitwise_count(word[a] & word[b])
    return shared


def subject_terms(entries: list[Entry], lang: Lang) -> dict[str, str]:
    """Terms that name the subject of exactly one question (`Megatron-LM`, `NVSHMEM`) -> its slug.

    A subject is an ASCII name in the question's title; when several titles share it, the question
    whose answer uses it most owns it.
    """
    owners: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for e in entries:
        q = e.text[lang]
        body = ""
        # Names come from the Chinese title, where ASCII runs delimit them; English keeps those it uses.
        for phrase in _subject_phrases(e.text[BANK_LANG].text):
            found = re.search(re.escape(phrase), q.text, re.IGNORECASE)
            if found:
                name = found.group(0)
                body = body or " ".join(q.answer_lines).casefold()
                owners[name.casefold()].append((-body.count(name.casefold()), e.index, e.slug))
    subjects = {}
    for phrase, claims in owners.items():
        claims.sort()
        if len(claims) == 1 or claims[0][0] < claims[1][0]:
            subjects[phrase] = claims[0][2]
    return subjects


def inline_links(
    entries: list[Entry], lang: Lang, subjects: dict[str, str] | None = None
) -> dict[str, tuple[tuple[str, str], ...]]:
    """Per slug, the (term, target slug) pairs whose first mention in the answer links to the target.
    `subjects`: subject_terms(entries, lang), when the caller has it."""
    if subjects is None:
        subjects = subject_terms(entries, lang)
    if not subjects:
        return {}
    pattern = _subject_pattern(subjects)
    out = {}
    for e in entries:
        found = _answer_links(pattern, subjects, e.slug, e.text[lang].answer_lines)
        if found:
            out[e.slug] = found
    return out


_Links = tuple[tuple[str, str], ...]
"""An answer's inline links: (term, target slug) pairs."""


class HeldLinks:
    """inline_links kept from one build to the next (in one process, `make serve`, or put aside beside
    the cache: `snapshot`, `restore`): when a language's subjects are those of the last build, only the
    questions whose text changed are searched again (one answer, after an edit, against 0.3-0.5 s for
    every answer at 5,000 questions). Each question's text is known by a key that changes with it (the
    generator passes its digest). The result is inline_links' own."""

    def __init__(self) -> None:
        # per language: its subjects, and per slug the key of its text and the answer's links
        self._last: dict[str, tuple[dict[str, str], dict[str, tuple[Hashable, _Links]]]] = {}

    def kept_subjects(self, lang: Lang) -> dict[str, str] | None:
        """The subjects of the last build kept here in `lang`, if any: `update` searches only changed
        answers when they are the subjects of this build too."""
        return self._last[lang][0] if lang in self._last else None

    def update(
        self, entries: list[Entry], lang: Lang, subjects: dict[str, str], keys: Sequence[Hashable]
    ) -> dict[str, tuple[tuple[str, str], ...]]:
        """inline_links(entries, lang), searching only the answers of questions whose key (`keys`, one per
        entry) is not that of the last build with these subjects."""
        last = self._last[lang][1] if self.kept_subjects(lang) == subjects else {}
        if not subjects:
            self._last[lang] = (subjects, {})
            return {}
        pattern = _subject_pattern(subjects)
        now, out = {}, {}
        for e, key in zip(entries, keys, strict=True):
            held = last.get(e.slug)
            if held is not None and held[0] == key:
                found = held[1]
            else:
                found = _answer_links(pattern, subjects, e.slug, e.text[lang].answer_lines)
            now[e.slug] = (key, found)
            if found:
                out[e.slug] = found
        self._last[lang] = (subjects, now)
        return out

    def keep(
        self,
        entries: list[Entry],
        lang: Lang,
        subjects: dict[str, str],
        found: dict[str, tuple[tuple[str, str], ...]],
        keys: Sequence[Hashable],
    ) -> None:
        """Keep inline_links' result `found` (computed elsewhere, e.g. in a forked process) for the next build."""
        self._last[lang] = (
            subjects,
            {e.slug: (key, found.get(e.slug, ())) for e, key in zip(entries, keys, strict=True)},
        )

    def empty(self) -> bool:
        """Whether no language's links are held (none yet in this process, nor restored)."""
        return not self._last

    def snapshot(self) -> dict[str, tuple[dict[str, str], dict[str, tuple[Hashable, _Links]]]]:
        """What is held, to pickle (`restore` takes it up in another process)."""
        return dict(self._last)

    def restore(self, snap: object) -> None:
        """Hold what `snapshot` returned. Raises ValueError, and holds nothing new, when `snap` is not its shape."""
        if not (
            isinstance(snap, dict)
            and all(
                isinstance(lang, str)
                and isinstance(held, tuple)
                and len(held) == 2
                and isinstance(held[0], dict)
                and isinstance(held[1], dict)
                for lang, held in snap.items()
            )
        ):
            raise ValueError("not a snapshot of inline links")
        self._last = dict(snap)


def _subject_pattern(subjects: dict[str, str]) -> re.Pattern[str]:
    """One alternation of the subjects, longest first, so "Ring AllReduce" wins over "AllReduce"."""
    return _alternation(tuple(sorted(subjects, key=len, reverse=True)))


@functools.lru_cache(maxsize=8)
def _alternation(names: tuple[str, ...]) -> re.Pattern[str]:
    """`names` (longest first) as one pattern of whole mentions. The lookahead on the possible first
    characters lets the search skip every other position at once (in Chinese text nearly all of them)
    instead of trying the lookbehind and each name there."""
    firsts = "".join(sorted({re.escape(t[0]) for t in names}))
    return re.compile(
        rf"(?=[{firsts}])(?<![A-Za-z0-9\-])(" + "|".join(re.escape(t) for t in names) + r")(?![A-Za-z0-9\-])",
        re.IGNORECASE,
    )


def _answer_links(
    pattern: re.Pattern[str], subjects: dict[str, str], slug: str, answer_lines: tuple[str, ...]
) -> tuple[tuple[str, str], ...]:
    """The inline links of one answer: the first whole mention of each subject but its own, at most
    MAX_INLINE_LINKS."""
    found: dict[str, str] = {}
    # All lines at once: a name cannot span a line end, which bounds a name like a line's ends do.
    text = "\n".join(answer_lines)
    for m in pattern.finditer(text):
        target = subjects[m.group(1).casefold()]
        if not stands_alone(text, m.start(1), m.end(1)):
            continue
        if target != slug and m.group(1) not in found and target not in found.values():
            found[m.group(1)] = target
    return tuple(list(found.items())[:MAX_INLINE_LINKS])


def _rare_terms(
    keys: Sequence[Hashable], terms: Callable[[int], dict[str, float]], numbers: TermNumbers
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every question's term numbers one after another and each question's count (`numbers.arrays`);
    the (question, term, weight) entries that relate questions; every term's idf and the number of
    questions that have it.

    A term takes part when it is in more than one question but at most `cap`; a Chinese bigram in
    more than `answer_cap` only where it is in the question's title. Terms are numbered by `numbers`
    (a C-level dict lookup per new term), the rest is array work.
    """
    import numpy as np

    n = len(keys)
    cap, answer_cap = _posting_caps(n)
    term, weight, lengths = numbers.arrays(keys, terms)
    question = np.repeat(np.arange(n, dtype=np.int64), lengths)
    k = np.bincount(term, minlength=numbers.size())
    idf = np.log(1 + n / np.maximum(k, 1))
    least = np.zeros(len(k))  # the least weight a question must give the term to take part
    common = np.flatnonzero((k > answer_cap) & (k <= cap)).tolist()
    if common:
        vocabulary = numbers.vocabulary()
        least[common] = [0.0 if vocabulary[i].isascii() else HAN_WEIGHT * TITLE_BOOST for i in common]
    numbers.trim(int(np.count_nonzero(k)))
    kt = k[term]
    keep = (kt > 1) & (kt <= cap) & (weight >= least[term])
    return term, lengths, question[keep], term[keep], weight[keep], idf, k


def _posting_caps(n: int) -> tuple[int, int]:
    """In how many of `n` questions a term can be at most and still relate two (`cap`), and a Chinese
    bigram relate two answers (`answer_cap`)."""
    return max(4, min(MAX_POSTING, n // 10)), max(4, min(MAX_ANSWER_BIGRAM_POSTING, n // 10))


def _subject_phrases(title: str) -> set[str]:
    phrases = set()
    for m in _ASCII_PHRASE.finditer(title):
        phrase = m.group(0).strip(" -/")
        specific = _SPECIFIC.search(phrase) is not None
        if len(phrase) >= 3 and specific and phrase.casefold() not in _GENERIC and not phrase.isdigit():
            phrases.add(phrase)
    return phrases


def _line_terms(text: str, boost: float) -> dict[str, float]:
    """A text's terms, each with its weight."""
    words = dict.fromkeys(
        (w for w in map(str.lower, _ASCII_TOKEN.findall(text)) if len(w) > 1 and w not in _STOP), ASCII_WEIGHT * boost
    )
    words.update(dict.fromkeys(_HAN_BIGRAM.findall(text), HAN_WEIGHT * boost))
    return words


_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-")
_NAME_BEFORE = re.compile(r"(?<![A-Za-z0-9\-])([A-Z][A-Za-z0-9\-]*) $")
"""A capitalised word and one space, ending where a mention starts (searched up to the mention)."""
_NAME_AFTER = re.compile(r" ([A-Z][A-Za-z0-9\-]*)(?![A-Za-z0-9\-])")
"""One space and a capitalised word right after a mention."""
_ASCII_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*")
# A run of capitalised or technical ASCII words in a title ("Two-batch overlap", "Megatron-LM").
_ASCII_PHRASE = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-]*(?: [A-Za-z0-9][A-Za-z0-9\-]*)*")
_SPECIFIC = re.compile(r"[A-Z0-9 \-]")
"""A title phrase with a space, hyphen, capital or digit names something; `memory` alone does not."""
_HAN_BIGRAM = re.compile(r"(?=([\u3400-\u9fff]{2}))")
"""Every pair of adjacent Chinese characters, overlapping ones included (a lookahead consumes nothing)."""
_STOP = frozenset(
    "the and for with from that this are was were been has have had its into than then also can not but "
    "each which what when where why how does more most less such use used using only other both same one "
    "two per via may should would will about between while there their them they these those you your".split()
)
_COMMON = _STOP | frozenset("a an in on at to of by as or if is it so no vs first then api".split())
"""Words that may start a sentence with a capital without being part of a name."""
# English title words that are never the subject of a question.
_GENERIC = frozenset(
    "what how why which when where the and for are with does do is can should would there their gpu gpus "
    "data model models tokens token".split()
)
