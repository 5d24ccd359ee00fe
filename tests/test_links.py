"""Cross-links on the seed bank: the relations a reader expects, and first-mention inline links."""

from __future__ import annotations

import math
import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studysite import cache
from studysite.build import build_site_model, load_sources
from studysite.enrich import links
from studysite.errors import Problems
from studysite.model import Entry, Site
from tests.sitekit import FIXTURE_BANKS as SEED

pytestmark = pytest.mark.unit

PD = ("multi-node-pd-disaggregation-kv-cache", "cross-sm-pd-disaggregation-af-attention")
COMM = (
    "communication-primitives-nccl",
    "small-data-scenarios-advantages-nvshmem-read",
    "communication-optimized-megatron-lm",
)
GPU = ("porting-operators-ampere-architecture-hopper-architecture", "accessing-cuda-global-memory-shared-memory")


@pytest.fixture(scope="module")
def site() -> Site:
    problems = Problems()
    sources = load_sources(SEED, problems)
    assert not problems.errors
    return build_site_model(sources)[0]


def test_every_question_has_related_questions(site: Site) -> None:
    for entry in site.entries.values():
        assert 1 <= len(entry.related) <= 5, entry.slug
        assert entry.slug not in entry.related


@pytest.mark.parametrize("group", [PD, COMM, GPU], ids=["pd", "communication", "gpu-memory"])
def test_related_clusters(site: Site, group: tuple[str, ...]) -> None:
    """Each question of a cluster has another member of it among its first two related questions."""
    for slug in group:
        top = site.entries[slug].related[:2]
        assert set(top) & (set(group) - {slug}), f"{slug}: {top}"


def test_inline_links_point_at_the_question_about_the_term(site: Site) -> None:
    zh = dict(site.inline_links["zh"]["two-batch-overlap"])
    assert zh["AllReduce"] == "communication-primitives-nccl"
    en = dict(site.inline_links["en"]["porting-operators-ampere-architecture-hopper-architecture"])
    assert en["global memory"] == "accessing-cuda-global-memory-shared-memory"
    for per_lang in site.inline_links.values():
        for slug, pairs in per_lang.items():
            targets = [target for _, target in pairs]
            assert slug not in targets and len(targets) == len(set(targets))


# --- related questions: the array version against the definition, pair by pair -------------------


def _reference_related(entries: list[Entry], terms: dict[str, dict[str, float]]) -> dict[str, tuple[str, ...]]:
    """The scoring rule of links.related_questions written out over all pairs, no index, no arrays."""
    n = len(entries)
    cap = max(4, min(links.MAX_POSTING, n // 10))
    answer_cap = max(4, min(links.MAX_ANSWER_BIGRAM_POSTING, n // 10))
    held: list[dict[str, float]] = []
    for e in entries:
        mine = {}
        for term, weight in terms[e.slug].items():
            k = sum(term in terms[o.slug] for o in entries)
            title_only = k > answer_cap and not term.isascii()
            if 1 < k <= cap and (not title_only or weight >= links.HAN_WEIGHT * links.TITLE_BOOST):
                mine[term] = weight
        held.append(mine)
    out = {}
    for i, e in enumerate(entries):
        ranked = []
        for o, other in enumerate(entries):
            shared = held[i].keys() & held[o].keys()
            if o == i or not shared:
                continue
            k = {t: sum(t in terms[x.slug] for x in entries) for t in shared}
            score = sum(math.log(1 + n / k[t]) * min(held[i][t], held[o][t]) for t in shared)
            total = round(score + links.TAG_WEIGHT * len(set(e.tags) & set(other.tags)), 9)
            if total >= links.MIN_SCORE:
                ranked.append((-total, o))
        out[e.slug] = tuple(entries[o].slug for _, o in sorted(ranked)[: links.MAX_RELATED])
    return out


_TERM = st.sampled_from(["nccl", "allreduce", "kv", "显存", "通信", "调度", "rdma", "带宽", "tp", "算子", "hopper"])
_WEIGHT = st.sampled_from([links.HAN_WEIGHT, links.HAN_WEIGHT * links.TITLE_BOOST, 1.0, 2.0])


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.dictionaries(_TERM, _WEIGHT, max_size=6),
            st.lists(st.sampled_from(["a", "b", "c"]), max_size=3, unique=True),
        ),
        min_size=1,
        max_size=60,
    )
)
def test_related_questions_follow_their_definition(questions: list[tuple[dict[str, float], list[str]]]) -> None:
    entries = [
        Entry(slug=f"q{i}", bank_id="b", index=i, text={}, translated=True, tags=tuple(tags))
        for i, (_, tags) in enumerate(questions)
    ]
    terms = {f"q{i}": own for i, (own, _) in enumerate(questions)}
    assert links.related_questions(entries, terms) == _reference_related(entries, terms)


def test_shared_tags_are_counted_across_every_word_of_tags() -> None:
    """`_shared_tags` keeps 64 tags to a word: pairs sharing tags in the first, a later and several
    words count each shared tag once, as set intersection does."""
    import numpy as np

    rng = random.Random(7)
    names = [f"t{k}" for k in range(150)]  # three words of tags
    entries = [
        Entry(
            slug=f"q{i}",
            bank_id="b",
            index=i,
            text={},
            translated=True,
            tags=tuple(rng.sample(names, rng.randint(0, 9))),
        )
        for i in range(80)
    ]
    a, b = np.array([i for i in range(80) for _ in range(80)]), np.array([j for _ in range(80) for j in range(80)])
    got = links._shared_tags(entries, a, b).tolist()
    want = [len(set(entries[i].tags) & set(entries[j].tags)) for i, j in zip(a.tolist(), b.tolist(), strict=True)]
    assert got == want and max(want) > 1 and len({tag for e in entries for tag in e.tags}) > 128


# --- kept between builds: the same results as computing afresh ----------------------------------------


def _edited(entry: Entry, lang: str, extra: str) -> Entry:
    """`entry` with a paragraph `extra` added to its answer in `lang`."""
    from dataclasses import replace

    from studysite.model import Paragraph

    q = entry.text[lang]
    return replace(entry, text={**entry.text, lang: replace(q, blocks=(*q.blocks, Paragraph(extra, 999)))})


def test_kept_inline_links_equal_inline_links_after_every_edit(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """HeldLinks searches only the answers that changed since the last build (each question's text known
    by its digest, as the generator passes it); whatever the edit, its result is inline_links' own, also
    in a new process that took up a pickled snapshot, and a change of subjects is seen as one."""
    held = links.HeldLinks()
    entries = list(site.entries.values())
    lang = "en"

    def keys(now: list[Entry]) -> list[bytes]:
        return [cache.digest(e.text[lang]) for e in now]

    assert held.kept_subjects(lang) is None and held.empty()  # nothing kept yet
    held.keep(entries, lang, links.subject_terms(entries, lang), links.inline_links(entries, lang), keys(entries))
    searched: list[str] = []
    real = links._answer_links

    def counting(pattern, subjects, slug, answer_lines):  # type: ignore[no-untyped-def]
        searched.append(slug)
        return real(pattern, subjects, slug, answer_lines)

    edits = [
        (0, " NVSHMEM and Megatron-LM, again.", [entries[0].slug]),  # a mention of two subjects added
        (3, " nothing linked here.", [entries[0].slug, entries[3].slug]),  # 0 is back as it was
        (0, "", [entries[3].slug]),  # every answer as it was
        (5, " NVSHMEM.", [entries[5].slug]),  # in a new process, from the last one's snapshot
    ]
    for at, extra, changed in edits:
        now = [*entries[:at], _edited(entries[at], lang, extra), *entries[at + 1 :]] if extra else entries
        subjects = links.subject_terms(now, lang)
        if at == 5:
            snap = pickle.loads(pickle.dumps(held.snapshot()))
            held = links.HeldLinks()
            held.restore(snap)
        assert held.kept_subjects(lang) == subjects  # an answer edit keeps the subjects
        searched.clear()
        with monkeypatch.context() as m:
            m.setattr(links, "_answer_links", counting)
            got = held.update(now, lang, subjects, keys(now))
        assert searched == changed
        assert got == links.inline_links(now, lang)
        if at == 0 and extra:  # the edit added links: the kept result did change
            assert got[entries[0].slug] != links.inline_links(entries, lang).get(entries[0].slug)
    # A new subject (a question title naming one) changes the subjects: not the kept ones.
    titled = [*entries[:1], _retitled(entries[1], lang, "What is FlashAttention-3?"), *entries[2:]]
    assert links.subject_terms(titled, lang) != held.kept_subjects(lang)
    for wrong in (None, [], {"en": ({}, {}, {})}, {"en": ([], {})}):
        with pytest.raises(ValueError):
            links.HeldLinks().restore(wrong)


def _retitled(entry: Entry, lang: str, title: str) -> Entry:
    from dataclasses import replace

    from studysite.languages import BANK_LANG

    return replace(
        entry,
        text={
            **entry.text,
            BANK_LANG: replace(entry.text[BANK_LANG], text=title),
            lang: replace(entry.text[lang], text=title),
        },
    )


def test_related_questions_do_not_depend_on_how_terms_are_numbered(site: Site) -> None:
    """Kept term numbers (TermNumbers, as the generator keeps them between builds) give the related
    questions of fresh ones, in whatever order the terms were first seen."""
    entries = list(site.entries.values())
    terms = {e.slug: links.question_terms(e.text["zh"]) for e in entries}
    fresh = links.related_questions(entries, terms)
    numbers = links.TermNumbers()
    assert links.related_questions(list(reversed(entries)), terms, numbers) == links.related_questions(
        list(reversed(entries)), terms
    )
    assert links.related_questions(entries, terms, numbers) == fresh  # numbered in reversed order
    changed = dict(terms)
    changed[entries[2].slug] = {**terms[entries[2].slug], "nvshmem": 2.0, "新词": 0.5}
    assert links.related_questions(entries, changed, numbers) == links.related_questions(entries, changed)
    assert links.related_questions(entries, terms, numbers) == fresh


@pytest.mark.parametrize("seed", range(4))
def test_held_related_questions_equal_fresh_ones_after_every_edit(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """HeldRelated (the generator keeps it between builds in `make serve`) scores again only the rows an
    edit can change; the result is that of scoring every row, through random edits: terms added, dropped
    and reweighted (terms crossing the posting cap among them), tags changed, several questions at once,
    questions reordered or added, terms numbered afresh (TermNumbers.trim), and a new process taking up
    the last one's numbers and call from a pickled snapshot (as `make site` does after an edit). Each
    question's terms are known by a key that changes with them, as the generator's digests do; a
    question whose key the numbers know is not asked for its terms."""
    rng = random.Random(seed)
    n = 400  # cap: n // 10 = 40 questions
    vocabulary = [f"t{i}" for i in range(300)] + [f"词{i}" for i in range(300)]
    weights_of = [links.ASCII_WEIGHT, links.ASCII_WEIGHT * links.TITLE_BOOST, links.HAN_WEIGHT, links.HAN_WEIGHT * 2]

    def question() -> dict[str, float]:
        # Zipf-like: low-numbered terms are common (over the cap), most are rare.
        picked = {vocabulary[min(int(rng.paretovariate(0.6)) - 1, len(vocabulary) - 1)] for _ in range(25)}
        return {t: rng.choice(weights_of) for t in picked}

    def tags() -> tuple[str, ...]:
        return tuple(sorted(rng.sample("abcdefgh", rng.randint(0, 3))))

    order = [f"q{i}" for i in range(n)]
    terms = {slug: question() for slug in order}
    version = dict.fromkeys(order, 0)  # the key of a question's terms: (slug, version), new with each edit
    tag_of = {slug: tags() for slug in order}
    numbers, held = links.TermNumbers(), links.HeldRelated()
    asked: list[str] = []

    class Asking(dict):  # type: ignore[type-arg]
        def __getitem__(self, slug: str) -> dict[str, float]:
            asked.append(slug)
            return terms[slug]

    alone = links.HeldRelated()  # held without kept numbers: each call numbers the terms afresh
    scored: list[int | None] = []
    score_rows = links._score_rows

    def counting(entries, q, t, w, idf, rows, chosen):  # type: ignore[no-untyped-def]
        scored.append(None if rows is None else int(rows.sum()))
        return score_rows(entries, q, t, w, idf, rows, chosen)

    monkeypatch.setattr(links, "_score_rows", counting)
    restarted: list[int] = []  # the steps after a restart, each scored in part
    links.related_questions([links.Tagged(s, tag_of[s]) for s in order], terms, numbers, held, [(s, 0) for s in order])
    for step in range(40):
        kind = rng.choice(["terms", "terms", "terms", "tags", "several", "reorder", "add", "trim", "restart"])
        slug = rng.choice(order)
        edited = [slug] if kind == "terms" else rng.sample(order, 5) if kind == "several" else []
        if kind == "terms":  # an edited answer: a few terms in, a few out, one reweighted
            own = dict(terms[slug])
            for t in rng.sample(sorted(own), min(3, len(own))):
                del own[t]
            own.update({rng.choice(vocabulary): rng.choice(weights_of) for _ in range(3)})
            terms[slug] = own
        elif kind == "tags":
            tag_of[slug] = tags()
        elif kind == "several":
            for other in edited:
                terms[other] = question()
        elif kind == "reorder":
            i, j = rng.sample(range(len(order)), 2)
            order[i], order[j] = order[j], order[i]
        elif kind == "add":
            order.append(f"q{len(order)}")
            terms[order[-1]], tag_of[order[-1]], version[order[-1]] = question(), tags(), 0
            edited = [order[-1]]
        elif kind == "trim":
            numbers._reset()
        else:  # a new process: the last one's numbers and call, pickled and taken up, and an edit
            snap = pickle.loads(pickle.dumps(links.snapshot(numbers, held)))
            numbers, held = links.TermNumbers(), links.HeldRelated()
            links.restore(numbers, held, snap)
            edited = [slug]
            terms[slug] = question()
        for other in edited:
            version[other] += 1
        entries = [links.Tagged(s, tag_of[s]) for s in order]
        asked.clear()
        got = links.related_questions(entries, Asking(), numbers, held, [(s, version[s]) for s in order])
        if kind not in ("trim", "reorder"):  # only what the numbers have not seen is read
            assert sorted(set(asked)) == sorted(edited), f"step {step}: {kind}"
        if kind == "restart":
            assert scored[-1] is not None and scored[-1] < n, f"step {step}: restarted, scored {scored[-1]}"
            restarted.append(step)
        assert got == links.related_questions(entries, terms), f"step {step}: {kind}"
        assert links.related_questions(entries, terms, None, alone) == got, f"step {step}: {kind}, fresh numbers"
        del scored[-2:]  # the two calls that keep no numbers
    # The edits of one question were scored in part: rows of its term neighbours, not all of them.
    partial = [rows for rows in scored if rows is not None and rows < n]
    assert len(partial) >= 10, scored
    assert restarted, "no step restarted"


def test_a_snapshot_that_does_not_hang_together_is_refused() -> None:
    """links.restore raises, and leaves the numbers and the held call as they were, for a snapshot whose
    parts disagree (what a damaged or hand-made file could hold)."""
    entries = [links.Tagged(f"q{i}", ()) for i in range(3)]
    terms = {"q0": {"nccl": 1.0, "rdma": 1.0}, "q1": {"nccl": 1.0, "rdma": 1.0}, "q2": {"nccl": 1.0}}
    numbers, held = links.TermNumbers(), links.HeldRelated()
    links.related_questions(entries, terms, numbers, held, ["a", "b", "c"])
    snap = links.snapshot(numbers, held)
    assert snap is not None
    fresh_numbers, fresh = links.TermNumbers(), links.HeldRelated()
    bad = [
        snap._replace(lengths=snap.lengths[:-1]),
        snap._replace(ids=snap.ids[:-1]),
        snap._replace(ids=snap.ids + 10),
        snap._replace(result={}),
        snap._replace(vocabulary=""),
    ]
    for wrong in bad:
        with pytest.raises(ValueError):
            links.restore(fresh_numbers, fresh, wrong)
        assert fresh.empty() and fresh_numbers.size() == 0
    links.restore(fresh_numbers, fresh, snap)
    assert not fresh.empty() and fresh_numbers.size() == numbers.size()
    assert links.related_questions(entries, terms, fresh_numbers, fresh, ["a", "b", "c"]) == held.result
