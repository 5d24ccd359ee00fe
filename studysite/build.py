"""The pipeline: find banks -> parse -> align translations -> tag, slug, link -> render -> write."""

from __future__ import annotations

import contextlib
import functools
import os
import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import cache, parallel
from .cache import MISSING, Memo
from .enrich import links, slugs
from .enrich.convert import Converter, add_converted, convert_question, convert_text, converted_languages
from .enrich.slugwords import glossary_terms
from .enrich.tags import assign_tags, load_taxonomy
from .errors import Problems
from .i18n import catalogues
from .languages import BANK_LANG, LANGUAGES, TRANSLATION_LANG
from .model import (
    LANGS,
    Bank,
    BankInfo,
    Entry,
    GlossaryTerm,
    Lang,
    Question,
    Site,
    Tag,
    Tombstone,
    content_hash,
    remember_content_hash,
)
from .pages.render import name_entries, render_site
from .sources import notes, translations
from .sources.glossary import UnusedCheck, load_glossary, warn_unused
from .sources.inputs import read_regular, scan_banks
from .sources.parse import parse_bank
from .write import (
    FileState,
    PendingFile,
    build_lock,
    removals_can_be_handed_over,
    staged_tree,
    wait_for_removals,
    write_tree_in_place,
)

DOCS_GITIGNORE = "# Generated from banks/ by scripts/build_pages.py; edit the banks, not these files.\n*\n!.gitignore\n"
TAXONOMY = "taxonomy.yml"
GLOSSARY = "glossary.yml"
LOCK = "slugs.lock"
PARALLEL_FROM = 400
"""Questions from which the generator forks side processes (below, a fork costs more than it saves)."""
RESERVED_IDS = frozenset(
    {
        "assets",
        "tags",
        "banks",
        *LANGUAGES.codes,  # and each language's folder
        *(item.root.strip("/") for item in LANGUAGES.extra),
        "search",
        "pagefind",
        "study",
        "glossary",
        "print",
        "downloads",
        "404",
        "index",
        "sitemap",
        "stylesheets",
        "javascripts",
        "overrides",
    }
)


@dataclass(frozen=True)
class Sources:
    """Everything read from the banks folder, parsed and validated."""

    banks: tuple[tuple[Bank, Bank | None], ...]
    """Each Chinese bank with its English translation (None when untranslated), by file name."""
    tags: tuple[Tag, ...]
    """The taxonomy."""
    lock: tuple[slugs.LockEntry, ...]
    """Published paths so far."""
    glossary: tuple[GlossaryTerm, ...] = ()
    """The term base (empty without a glossary file)."""
    translation_lock: dict[str, translations.Record] = field(default_factory=dict, hash=False)
    """banks/translations.lock: which Chinese each English question translates, by `bank/slug`."""
    notes: tuple[notes.NoteSource, ...] = ()
    """Editor's notes of every bank (banks/NAME.notes.yml), not yet checked against the slugs."""
    digests: dict[str, tuple[bytes, ...]] = field(default_factory=dict, hash=False, compare=False)
    """Bank path -> each question's digest (cache.digest), for banks read through the cache: kept with
    the parse, so later stages' keys need not hash the questions again (studysite/cache.py)."""


@dataclass
class Result:
    """What a generation produced, for the caller to report."""

    site: Site
    files: Mapping[str, str]
    """Every generated file's text by its path in docs/ (read back from docs/ when `unchanged`)."""
    lock_text: str
    warnings: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    sources: Sources | None = None
    """What the site was built from (verify.py reads the bank files again through it)."""
    url_changes: list[str] = field(default_factory=list)
    """Every published path whose question changed in this build (slugs.review), for review."""
    unchanged: bool = False
    """Nothing was read or written: the inputs and docs/ were those of the last generation, whose
    result this is (cache.unchanged)."""
    timings: dict[str, float] = field(default_factory=dict, compare=False)
    """Seconds each phase of this generation took (PHASES, in order; `make bench` prints them)."""


PHASES = ("check", "read", "model", "pages", "record")
"""A generation's phases: whether anything changed (`cache.unchanged`), reading and parsing the banks,
the model (slugs, tags, links, translations, checks), rendering and writing every language's pages, and
recording the result for the next generation."""


class _Laps:
    """Seconds between one `lap` and the next, by the name of the phase that just ended."""

    def __init__(self) -> None:
        self.times: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.times[name] = self.times.get(name, 0.0) + now - self._last
        self._last = now


@parallel.frozen()  # no garbage collection while it runs (what it makes is freed by reference counting)
def generate(
    banks_dir: Path,
    docs_dir: Path,
    *,
    strict: bool = False,
    in_place: bool = False,
    update_lock: bool = True,
    locked: bool = False,
    repo_url: str = "",
    site_url: str = "",
    use_cache: bool = True,
    record_in_background: bool = False,
    keep_old: Path | None = None,
) -> Result:
    """Build `banks_dir` into `docs_dir` (both languages). Raises BuildError and writes nothing on bad input.

    `repo_url` (the site's GitHub repository) adds "report an error" and "edit the source" links;
    `site_url` (where the site is published) lets a report carry the page's address.
    `locked` (CI builds): a slugs.lock or translations.lock that would change is an error, and nothing
    is written. docs/ and the locks change together or not at all: each new lock is written (and
    synced) beside the old one before docs/ is swapped, and renamed over it right after.
    `use_cache`: take parsed banks, enrichment and pages from the cache beside docs/ where their
    inputs are unchanged (studysite/cache.py; the output is the same without it).
    `record_in_background`: for a process that exits once this returns (scripts/build_pages.py): the
    model's cache shard and the record of this generation are written by a child that goes on after
    it, under the lock.
    `keep_old` (`make site`, to put docs/ back if a later step fails): where the docs tree this
    generation replaced goes instead of being deleted (see `write.staged_tree`); not in place.
    """
    laps = _Laps()
    catalogues()  # the interface strings (studysite/strings/): a problem there stops the build here
    problems = Problems()
    memo = cache.shard(docs_dir, "model") if use_cache else cache.NULL
    # the result names the banks' files (warnings, the site check reads them again): their folder too
    options = (str(banks_dir.resolve()), strict, update_lock, locked, repo_url, site_url, LANGUAGES)
    state = cache.banks_state(banks_dir) if memo.enabled else None
    key = cache.generation_key(state, *options) if state is not None else None
    if key is not None:
        with build_lock(docs_dir):
            last = cache.unchanged(docs_dir, key)
        laps.lap("check")
        if last is not None:
            result, paths = last
            return replace(  # its own lists: the cache may hold the result it returned (cache.unchanged)
                result,
                files=cache.DocsFiles(docs_dir, paths),
                written=[],
                warnings=list(result.warnings),
                url_changes=list(result.url_changes),
                unchanged=True,
                timings=laps.times,
            )
    known = cache.Digests()
    checking: list[UnusedCheck] = []
    try:
        sources = load_sources(banks_dir, problems, memo, checking)
        laps.lap("read")
        if problems.errors or (strict and problems.warnings):  # stopping here: with every problem
            finish_checks(checking)
        problems.raise_if_any(strict=strict)
        site, lock_text = build_site_model(sources, memo, known)
        finish_checks(checking)
    except BaseException:
        for unfinished in checking:
            unfinished.cancel()
        raise
    check_content(site, sources, problems)
    problems.raise_if_any(strict=strict)
    lock_path = banks_dir / LOCK
    changes = slugs.review(list(sources.lock), slugs.parse_lock(lock_text, lock_path, Problems()))
    lock_changes = _read_or_none(lock_path) != lock_text
    tr_path, tr_text = banks_dir / translations.LOCK, translations.lock_text(site)
    tr_changes = any(tr for _, tr in sources.banks) and _read_or_none(tr_path) != tr_text
    if locked and lock_changes:
        problems.error(
            lock_path,
            0,
            f"the committed lock does not match the banks ({len(changes)} path(s) would change: "
            + "; ".join(changes[:5])
            + (" ..." if len(changes) > 5 else "")
            + "). CI builds never rewrite it: run `make site` locally and commit banks/slugs.lock",
        )
    if locked and tr_changes:
        problems.error(
            tr_path,
            0,
            "the committed translation lock does not match the translations. CI builds never rewrite "
            f"it: run `make site` locally and commit banks/{translations.LOCK}",
        )
    problems.raise_if_any()
    result = Result(site, {}, lock_text, [str(w) for w in problems.warnings], sources=sources, url_changes=changes)
    laps.lap("model")
    with build_lock(docs_dir) as lock:
        cached = docs_dir if memo.enabled else None
        if cached is not None:
            cache.remove_stale(cache.folder_for(docs_dir))
        previous = cache.last_pages(docs_dir) if cached is not None else {}
        keys: dict[str, bytes] = {}
        left: dict[str, FileState] | None = None  # each file's state as written in place
        pending: list[PendingFile] = []
        written: dict[str, bytes] = {}  # the locks this generation writes into banks/: name, new bytes
        if update_lock and lock_changes:
            written[lock_path.name] = lock_text.encode("utf-8")
        if update_lock and tr_changes:
            written[tr_path.name] = tr_text.encode("utf-8")
        try:
            for name, data in written.items():
                pending.append(PendingFile(banks_dir / name, data))

            def commit_locks() -> None:
                for p in pending:
                    p.commit()

            if in_place:
                result.files = render_files(site, repo_url, site_url, cached, known, keys)
                left = {}
                result.written = write_tree_in_place(docs_dir, result.files, _as_last(keys, previous), left)
                commit_locks()
            else:
                result.files = render_and_swap(
                    site,
                    docs_dir,
                    repo_url,
                    site_url,
                    then=commit_locks,
                    cached=cached,
                    known=known,
                    last=previous,
                    keys=keys,
                    keep_old=keep_old,
                )
        finally:
            for p in pending:
                p.discard()
        laps.lap("pages")

        def record() -> None:
            # Remembered under the banks folder as it is now: with the locks this generation wrote (an
            # answer's edit changes its fingerprint in slugs.lock), every other file as this generation
            # read it. Not when a bank changed while this one read it; a lock put back as it was is then
            # written again.
            now = cache.banks_state(banks_dir) if state is not None else None
            if state is None or now != {**state, **{n: cache.file_digest(d) for n, d in written.items()}}:
                return
            # Each bank's questions in every language apart: after an edit most are those of the last record.
            groups = [tuple(site.entries[s].text[lang] for s in bank.slugs for lang in LANGS) for bank in site.banks]
            # What each group is: its questions' digests (a new process takes the unchanged ones' pickles
            # from the last record: 0.47 s of pickling at 5,000 questions).
            group_keys = [cache.key("group", *map(known.of, group)) for group in groups]
            cache.remember(
                docs_dir,
                cache.generation_key(now, *options),
                # what a generation from the slugs.lock now in banks/ finds: no URL changed against it
                replace(  # with lists of its own, which the caller's result does not share (the cache holds it)
                    result,
                    files={},
                    written=[],
                    warnings=list(result.warnings),
                    url_changes=[] if lock_path.name in written else list(result.url_changes),
                ),
                sorted(result.files),
                keys,
                groups,
                None if left is not None and len(left) != len(result.files) else left,  # None: docs/ read
                group_keys,
            )

        def record_then_removals() -> None:  # what the lock's holder owes before it is released
            try:
                memo.save()
                record()
            finally:
                wait_for_removals()

        # In a process about to exit (scripts/build_pages.py), a forked child saves the model's shard,
        # writes the record and waits for the old docs tree's deletion, after this one has returned,
        # holding the lock until then: docs/ and the locks are complete now, and the next generation
        # waits for the lock before it reads the cache (`unchanged`, above). The shard's save (its new
        # entries appended, the related questions and inline links put aside) took ~0.1 s of a new
        # process's edit at 5,000 questions.
        if record_in_background and removals_can_be_handed_over() and parallel.detach(record_then_removals):
            lock.hand_over()
        else:
            memo.save()
            record()
    laps.lap("record")
    result.timings = laps.times
    return result


def check_content(site: Site, sources: Sources, problems: Problems) -> None:
    """What can only be checked once slugs and tags are known: translations that are stale or do not
    line up, notes about questions the bank does not have, questions no tag fits."""
    translations.check(site, sources.banks, problems)
    for bank, _ in sources.banks:
        mine = [n for n in sources.notes if Path(n.path).name == f"{bank.id}{notes.SUFFIX}"]
        notes.check_slugs(mine, bank.id, site, bank.path, problems)
    for entry in site.entries.values():
        if not entry.tags:
            q = entry.text[BANK_LANG]
            problems.warn(
                site.bank(entry.bank_id).source[BANK_LANG],
                q.line,
                f"no tag fits this question: add a keyword to {TAXONOMY} or `add_tags` in {entry.bank_id}{notes.SUFFIX}",
                q.text,
            )


def load_sources(
    banks_dir: Path, problems: Problems, memo: Memo = cache.NULL, pending: list[UnusedCheck] | None = None
) -> Sources:
    """Read every bank, translation, the taxonomy and the lock; all problems are collected. A bank
    file whose bytes `memo` has seen before is not parsed again.

    With `pending` (a list), the glossary's check for unused terms may go on in a side process on a
    large site (`warn_unused`): it is added to the list, and the caller finishes it (`finish_checks`)
    before reporting any problem."""
    if not banks_dir.is_dir():
        problems.error(banks_dir, 0, "banks folder not found")
        return Sources((), (), ())
    zh: dict[str, Path] = {}
    en: dict[str, Path] = {}
    inputs = scan_banks(banks_dir, problems)  # every other entry is reported there, and nothing else is opened
    data = inputs.data_files
    for path in inputs.bank_files:
        stem = path.name[: -len(".txt")]
        bank_id, _, suffix = stem.partition(".")
        if suffix not in ("", TRANSLATION_LANG):
            problems.error(
                path,
                0,
                f"unknown language suffix `.{suffix}`: name banks NAME.txt (Chinese) and NAME.{TRANSLATION_LANG}.txt "
                "(English)",
            )
            continue
        if not _ID.fullmatch(bank_id):
            problems.error(
                path,
                0,
                "bank file names must be lower-case ASCII letters, digits and hyphens "
                f"(it becomes the URL): rename it, e.g. to {_suggest(bank_id)}.txt",
            )
            continue
        if bank_id in RESERVED_IDS:
            problems.error(path, 0, f"`{bank_id}` is reserved for the site's own pages: rename the bank")
            continue
        (en if suffix else zh)[bank_id] = path
    for bank_id, path in en.items():
        if bank_id not in zh:
            problems.error(path, 0, f"translation without a bank: there is no {bank_id}.txt beside it")
    if not zh and not problems.errors:
        problems.error(banks_dir, 0, "no banks found: add a NAME.txt file")
    tags = load_taxonomy(data[TAXONOMY], problems) if TAXONOMY in data else ()
    if not (banks_dir / TAXONOMY).exists() and not (banks_dir / TAXONOMY).is_symlink():
        problems.error(banks_dir / TAXONOMY, 0, "taxonomy file not found")
    pairs = []
    digests: dict[str, tuple[bytes, ...]] = {}
    for bank_id, path in sorted(zh.items()):
        bank = _parse_cached(
            memo, problems, path, BANK_LANG, functools.partial(parse_bank, path, bank_id, BANK_LANG), digests
        )
        translation = (
            _parse_cached(
                memo,
                problems,
                en[bank_id],
                TRANSLATION_LANG,
                functools.partial(_parse_en, en[bank_id], bank_id),
                digests,
            )
            if bank_id in en
            else None
        )
        if bank is None:
            continue
        if bank_id in en and translation is not None:
            if not translations.is_keyed(translation) and not check_alignment(bank, translation, problems):
                translation = None
        elif bank_id not in en:
            problems.warn(
                path,
                0,
                f"no English translation ({bank_id}.en.txt): its English pages show the "
                "Chinese text under a 'not yet translated' notice",
            )
        pairs.append((bank, translation))
    lock = slugs.read_lock(data[LOCK], problems) if LOCK in data else []
    first: dict[str, int] = {}
    for e in lock:  # a hand-edited or badly merged lock must not publish over the site's own pages
        if e.bank in RESERVED_IDS:
            problems.error(banks_dir / LOCK, e.line, f"`{e.bank}` is reserved for the site's own pages", e.path)
        elif e.path in first:
            problems.error(banks_dir / LOCK, e.line, f"path listed twice (first at line {first[e.path]})", e.path)
        first.setdefault(e.path, e.line)
    glossary: tuple[GlossaryTerm, ...] = ()
    if GLOSSARY in data:  # optional: a banks folder without one builds without tooltips
        glossary = load_glossary(data[GLOSSARY], problems)
        searched = [b for pair in pairs for b in pair if b is not None]
        fork_from = PARALLEL_FROM if pending is not None else None
        check = warn_unused(glossary, searched, banks_dir / GLOSSARY, problems, memo, digests, fork_from=fork_from)
        if pending is not None:
            pending.append(check)
    tr_lock = translations.read_lock(data[translations.LOCK], problems) if translations.LOCK in data else {}
    found_notes: list[notes.NoteSource] = []
    for path in inputs.notes_files:
        if path.name[: -len(notes.SUFFIX)] not in zh:
            problems.error(
                path, 0, f"notes without a bank: there is no {path.name[: -len(notes.SUFFIX)]}.txt beside it"
            )
            continue
        found_notes += notes.load_notes(path, tags, problems)
    return Sources(tuple(pairs), tags, tuple(lock), glossary, tr_lock, tuple(found_notes), digests)


def _parse_cached(
    memo: Memo,
    problems: Problems,
    path: Path,
    kind: str,
    parse: Callable[[Problems, bytes | None], Bank | None],
    digests: dict[str, tuple[bytes, ...]],
) -> Bank | None:
    """`parse(problems, raw)` of the file's bytes, or what it gave for the same bytes before: the bank
    and the warnings, replayed. A file with errors is parsed every time (the build stops anyway).
    Its questions' digests, computed with the parse and kept with it, go into `digests`; their content
    hashes are kept with it too, and given back to the questions (hashing 10,000 took ~0.1 s of each
    new process's generation at 5,000 questions)."""
    if not memo.enabled:
        return parse(problems, None)
    try:
        raw = read_regular(path)
    except OSError:
        return parse(problems, None)  # the parser reads it again and reports why it cannot
    # The working folder is part of the key: messages name files relative to it.
    key = memo.key("parse", kind, str(path), os.getcwd(), raw)
    hit = memo.get(key)
    if hit is not MISSING:
        bank, warnings, named, hashes = hit
        problems.warnings.extend(warnings)
        for q, found_hash in zip(bank.questions, hashes, strict=True):
            remember_content_hash(q, found_hash)
    else:
        found = Problems()
        bank = parse(found, raw)
        problems.errors.extend(found.errors)
        problems.warnings.extend(found.warnings)
        named = tuple(cache.digest(q) for q in bank.questions) if bank is not None else ()
        if not found.errors and bank is not None:
            memo.put(key, (bank, found.warnings, named, tuple(content_hash(q) for q in bank.questions)))
    if bank is not None:
        digests[bank.path] = named
    return bank  # type: ignore[no-any-return]


def _parse_en(path: Path, bank_id: str, problems: Problems, raw: bytes | None) -> Bank | None:
    return translations.parse_translation(path, bank_id, problems, raw)


def check_alignment(zh: Bank, en: Bank, problems: Problems) -> bool:
    """A translation must match its bank question for question and block for block."""
    before = len(problems.errors)
    if len(zh.questions) != len(en.questions):
        problems.error(
            en.path,
            en.questions[-1].line if en.questions else 1,
            f"translation has {len(en.questions)} questions but {zh.path} has {len(zh.questions)} "
            f"(last Chinese question at {zh.path}:{zh.questions[-1].line})",
        )
    for qz, qe in zip(zh.questions, en.questions, strict=False):
        mismatch = translations.first_mismatch(qz, qe)  # lines may differ (blank lines), kinds may not
        if mismatch is None:
            continue
        line_e, what_e, where_z, what_z = mismatch
        problems.error(
            en.path,
            line_e,
            f"translation of question {qz.index + 1} does not line up: here it has "
            f"{what_e}, where {zh.path}:{where_z} has {what_z}",
        )
    return len(problems.errors) == before


def build_site_model(sources: Sources, memo: Memo = cache.NULL, known: cache.Digests | None = None) -> tuple[Site, str]:
    """Enrich the parsed banks: slugs (and the new lock text), tags, related questions, inline links.

    From PARALLEL_FROM questions on (with a second core), forked children tag the questions and
    find the inline links while this process reads each question's terms and relates them: the
    same results, each stage's work unchanged, about half the wait. Tags, inline links and related
    questions that `memo` holds for the same inputs are taken from it, and each question's terms
    (after an edit, all but one are as before). The questions' digests go into `known`, for the page
    keys (studysite/pages/render.py).
    """
    candidates = [
        # Only a translation tied by position names new questions in English; a keyed one names the slug.
        slugs.Candidate(bank.id, q, tr.questions[q.index] if tr and not translations.is_keyed(tr) else None)
        for bank, tr in sources.banks
        for q in bank.questions
    ]
    known = known if known is not None else cache.Digests()
    if memo.enabled:
        _name_questions(sources, known)
    slug_list, new_lock = _assign_slugs(candidates, sources, memo, known)
    slugs_of: dict[str, list[str]] = {bank.id: [] for bank, _ in sources.banks}
    for cand, slug in zip(candidates, slug_list, strict=True):
        slugs_of[cand.bank].append(slug)
    english = translations.attach(sources.banks, slugs_of, sources.translation_lock)
    candidates = [
        replace(c, en=english[slug][0] if slug in english else None)
        for c, slug in zip(candidates, slug_list, strict=True)
    ]
    note_of = {n.slug: n for n in sources.notes}
    fork = _forks(len(candidates))
    # What `memo` keys each stage's result by: a hash of each question in each language, the taxonomy.
    zh_d = [known.of(c.zh) for c in candidates] if memo.enabled else []
    en_d = [known.of(c.en) for c in candidates] if memo.enabled else []
    tax = cache.digest(sources.tags) if memo.enabled else b""
    tag_keys = [memo.key("tags", tax, z, e) for z, e in zip(zh_d, en_d, strict=True)]
    tags_of: list[tuple[str, ...]] = [memo.get(k) for k in tag_keys] if memo.enabled else [MISSING] * len(candidates)
    todo = [i for i, found in enumerate(tags_of) if found is MISSING]
    tagging = parallel.Side(
        lambda: [assign_tags(sources.tags, _both(candidates[i])) for i in todo], fork=_forks(len(todo))
    )
    untagged = [
        Entry(
            slug=slug,
            bank_id=cand.bank,
            index=cand.zh.index,
            text={BANK_LANG: cand.zh, TRANSLATION_LANG: cand.en or cand.zh},
            translated=cand.en is not None,
            tags=(),
            content_hash=content_hash(cand.zh),
            translates=english[slug][1] if slug in english else "",
            notes=note_of[slug].note if slug in note_of else None,
        )
        for cand, slug in zip(candidates, slug_list, strict=True)
    ]
    # Each converted language's questions (OpenCC: ~0.9 s of a cold generation at 5,000) that `memo`
    # does not hold yet, converted by a side process while this one relates and links: in a large site
    # also one edited question, whose converter's start (~0.09 s) is then not this process's either.
    to_convert, convert_keys = _to_convert(untagged, memo, known)
    converting = parallel.Side(
        lambda: [convert_question(q, config) for config, q, _ in to_convert], fork=fork and bool(to_convert)
    )
    texts = b"".join(zh_d) + b"".join(en_d)
    order = cache.digest([(e.slug, e.index) for e in untagged]) if memo.enabled else b""
    link_keys = {lang: memo.key("inline", lang, order, texts) for lang in LANGUAGES.written}
    inline = {lang: memo.get(link_keys[lang]) for lang in LANGUAGES.written} if memo.enabled else {}
    unlinked = [lang for lang in LANGUAGES.written if inline.get(lang, MISSING) is MISSING]
    # A language whose subjects are those of the last build (in this process, or put aside by the last
    # one): only the answers that changed are searched, here. Any other is linked whole by a side
    # process, with its subjects (found here already where a build's links were kept, whose subjects
    # then changed).
    held = _HELD_LINKS if memo.enabled else None
    numbers, held_related = (_TERM_NUMBERS, _HELD_RELATED) if memo.enabled else (None, None)
    first = _take_up(memo)
    terms = _QuestionTerms(untagged, zh_d, memo)
    kept = {lang: held.kept_subjects(lang) for lang in unlinked} if held is not None else {}
    subjects = {lang: links.subject_terms(untagged, lang) for lang, names in kept.items() if names is not None}
    quick = [lang for lang in subjects if kept[lang] == subjects[lang]]
    slow = [lang for lang in unlinked if lang not in quick]

    def link_whole() -> dict[Lang, tuple[dict[str, str], dict[str, tuple[tuple[str, str], ...]]]]:
        found = {lang: subjects[lang] if lang in subjects else links.subject_terms(untagged, lang) for lang in slow}
        return {lang: (found[lang], links.inline_links(untagged, lang, found[lang])) for lang in slow}

    linking = parallel.Side(link_whole, fork=fork and bool(slow))

    def text_d(lang: Lang) -> list[bytes]:
        """The digest of each question's text in `lang` (the Chinese where it has no translation)."""
        return [known.of(e.text[lang]) for e in untagged]

    try:
        # While a side process tags (unless no tag changed, the related questions below are computed
        # again): the terms they will ask for, those of the questions the numbers have not seen.
        if todo:
            terms.fetch(numbers)
        for i, found in zip(todo, tagging.result(), strict=True):
            tags_of[i] = memo.put(tag_keys[i], found) if memo.enabled else found
        tagged = [
            links.Tagged(e.slug, notes.pin_tags(tags, note_of.get(e.slug), sources.tags))
            for e, tags in zip(untagged, tags_of, strict=True)
        ]
        # Related questions weigh each question's terms, read from its Chinese text, and its tags.
        pairs = cache.digest([(e.slug, e.tags) for e in tagged]) if memo.enabled else b""
        related_key = memo.key("related", pairs, b"".join(zh_d))
        related = memo.get(related_key) if memo.enabled else MISSING
        if related is MISSING:
            related = memo.put(related_key, links.related_questions(tagged, terms, numbers, held_related, zh_d or None))
            if numbers is not None and held_related is not None and RELATED_ASIDE in first:
                memo.put_aside(RELATED_ASIDE, functools.partial(links.snapshot, numbers, held_related))
        if held is not None:
            for lang in quick:
                inline[lang] = memo.put(link_keys[lang], held.update(untagged, lang, subjects[lang], text_d(lang)))
        for lang, (names, linked) in linking.result().items():
            inline[lang] = memo.put(link_keys[lang], linked)
            if held is not None:
                held.keep(untagged, lang, names, linked, text_d(lang))
        if held is not None and unlinked and LINKS_ASIDE in first:
            memo.put_aside(LINKS_ASIDE, held.snapshot)
        converted = {
            (config, id(q)): (memo.put(key, found) if key is not None else found, key)
            for (config, q, key), found in zip(to_convert, converting.result(), strict=True)
        }
    except BaseException:
        tagging.cancel()
        linking.cancel()
        converting.cancel()
        raise
    # Each question's tags and related questions put in one copy of its entry (two copies took 0.1 s at 5,000).
    entries = [replace(e, tags=t.tags, related=related[e.slug]) for e, t in zip(untagged, tagged, strict=True)]
    banks = tuple(
        BankInfo(
            id=bank.id,
            titles={BANK_LANG: bank.title, TRANSLATION_LANG: translations.english_title(bank, tr)},
            slugs=tuple(slugs_of[bank.id]),
            translated=tr is not None and all(s in english for s in slugs_of[bank.id]),
            source={BANK_LANG: bank.path, **({TRANSLATION_LANG: tr.path} if tr else {})},
        )
        for bank, tr in sources.banks
    )
    # Every path ever published keeps a page, also when its whole bank was merged away or deleted.
    tombstones = tuple(
        Tombstone(e.slug, e.bank, e.state[6:] if e.state.startswith("moved:") else None, e.text)
        for e in sorted(new_lock, key=lambda e: e.path)
        if e.state != "live"
    )
    site = Site(
        banks=banks,
        entries={e.slug: e for e in entries},
        tags=sources.tags,
        glossary=sources.glossary,
        tombstones=tombstones,
        inline_links=inline,
    )
    # the generated languages (OpenCC), beside their source
    site = add_converted(site, _converting(memo, known, converted, convert_keys), _converting_text(memo))
    return site, slugs.write_lock(Path(), new_lock)


def _to_convert(
    entries: list[Entry], memo: Memo, known: cache.Digests
) -> tuple[list[tuple[str, Question, bytes | None]], dict[tuple[str, int], bytes]]:
    """The questions each converted language converts (its OpenCC configuration, the question of the
    language it comes from, the key `_converting` finds the result under) that `memo` does not hold,
    and the key of every one (by configuration and the source question's id)."""
    todo: list[tuple[str, Question, bytes | None]] = []
    keys: dict[tuple[str, int], bytes] = {}
    for item in converted_languages():
        for e in entries:
            question = e.text[item.convert_from]
            key = memo.key("converted", item.opencc, known.of(question)) if memo.enabled else None
            if key is not None:
                keys[item.opencc, id(question)] = key
            if key is None or not memo.holds(key):
                todo.append((item.opencc, question, key))
    return todo, keys


def _converting(
    memo: Memo,
    known: cache.Digests,
    ready: Mapping[tuple[str, int], tuple[Question, bytes | None]],
    keys: Mapping[tuple[str, int], bytes],
) -> Callable[[Question, str], Question]:
    """convert_question, or its result for the same question and OpenCC configuration: from `ready`
    (converted by a side process: by configuration and the source question's id; `keys`: the cache
    keys `_to_convert` computed for them, not computed again) or from `memo`
    (OpenCC took 10 of a 35 s warm generation at 5,000 questions). A converted question's digest is
    its key: equal key, equal question, so the pages made from it are found in the cache by it too."""

    def convert(question: Question, config: str) -> Question:
        done = ready.get((config, id(question)))
        if done is not None:
            found, done_key = done
            if done_key is not None:
                known.remember(found, done_key)
            return found
        if not memo.enabled:
            return convert_question(question, config)
        key = keys.get((config, id(question))) or memo.key("converted", config, known.of(question))
        found = memo.get(key)
        if found is MISSING:
            found = memo.put(key, convert_question(question, config))
        known.remember(found, key)
        return found

    return convert


def _converting_text(memo: Memo) -> Converter:
    """convert_text, or its result for the same text and OpenCC configuration from `memo`, each text
    looked up once: the bank titles, tag names, glossary and inline links' words are the same after
    nearly every edit, and with the questions converted by a side process this one then needs no
    converter (starting one took ~0.09 s, converting the links' words ~0.04 s at 5,000 questions)."""
    if not memo.enabled:
        return convert_text
    done: dict[tuple[str, str], str] = {}

    def convert(text: str, config: str) -> str:
        found = done.get((text, config))
        if found is None:
            key = memo.key("converted-text", config, text)
            found = memo.get(key)
            if found is MISSING:
                found = memo.put(key, convert_text(text, config))
            done[text, config] = found
        return found

    return convert


_TERM_NUMBERS = links.TermNumbers()
"""The related questions' term numbers, kept from one cached build to the next in this process."""
_HELD_RELATED = links.HeldRelated()
"""The last related questions and their inputs, kept from one cached build to the next in this process."""
_HELD_LINKS = links.HeldLinks()
"""Each answer's inline links, kept from one cached build to the next in this process."""


RELATED_ASIDE = "related"
"""The name the related questions' numbers and last call are put aside under in the model's shard
(links.RelatedSnapshot): a new process after an edit scores only the rows it can change."""
LINKS_ASIDE = "links"
"""The name each language's inline links are put aside under (links.HeldLinks.snapshot): a new process
after an edit searches only the answers that changed."""
ASIDES = (RELATED_ASIDE, LINKS_ASIDE)


def _take_up(memo: Memo) -> frozenset[str]:
    """What an earlier process put aside, where this process holds nothing yet: the related questions'
    term numbers and last call, and the inline links. Returns the names (ASIDES) this generation puts
    aside in turn: those this process held nothing of, and those the cache has none of (deleted since).

    Only a process's first generation puts them aside (`make site` has one): in `make serve` writing
    them after every edit cost ~0.1 s of ~2 s at 5,000 questions. A later process then takes up the
    server's first generation's, and scores and searches again what every edit since changed: still
    the same result (what it takes up is checked against what it builds, question by question)."""
    if not memo.enabled:
        return frozenset()
    empty = {name for name, held in ((RELATED_ASIDE, _HELD_RELATED), (LINKS_ASIDE, _HELD_LINKS)) if held.empty()}
    with cache.collection_paused():  # 0.19-0.21 s against 0.24-0.27 s for the first at 5,000 questions
        if RELATED_ASIDE in empty:
            snap = memo.aside(RELATED_ASIDE)
            if isinstance(snap, links.RelatedSnapshot):
                with contextlib.suppress(ValueError):  # it does not hang together: as if there were none
                    links.restore(_TERM_NUMBERS, _HELD_RELATED, snap)
        if LINKS_ASIDE in empty:
            with contextlib.suppress(ValueError):
                _HELD_LINKS.restore(memo.aside(LINKS_ASIDE))
    return frozenset(name for name in ASIDES if name in empty or not memo.has_aside(name))


class _QuestionTerms(Mapping[str, dict[str, float]]):
    """Each question's terms by slug (links.question_terms of its Chinese), computed or taken from
    `memo` when first asked for: after an edit, related_questions asks only for those of the questions
    its numbers have not seen (unpickling all 5,000 took 0.5 s in a new process)."""

    def __init__(self, entries: list[Entry], zh_d: list[bytes], memo: Memo) -> None:
        self._memo = memo
        self._digest = dict(zip((e.slug for e in entries), zh_d, strict=True)) if memo.enabled else {}
        self._entries = {e.slug: e for e in entries}
        self._found: dict[str, dict[str, float]] = {}

    def __getitem__(self, slug: str) -> dict[str, float]:
        found = self._found.get(slug)
        if found is None:
            question = self._entries[slug].text[BANK_LANG]
            if self._memo.enabled:
                key = self._memo.key("terms", self._digest[slug])
                found = self._memo.get(key)
                if found is MISSING:
                    found = self._memo.put(key, links.question_terms(question))
            else:
                found = links.question_terms(question)
            self._found[slug] = found
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def fetch(self, numbers: links.TermNumbers | None) -> None:
        """Find now the terms of every question whose digest `numbers` does not know (all without it)."""
        for slug in self._entries:
            if numbers is None or not numbers.knows(self._digest[slug]):
                self[slug]  # found now, and kept


def _assign_slugs(
    candidates: list[slugs.Candidate], sources: Sources, memo: Memo, known: cache.Digests
) -> tuple[list[str], list[slugs.LockEntry]]:
    """slugs.assign_slugs (a pure function of the questions, the lock and the glossary), or its result
    for the same inputs from `memo`."""
    terms = glossary_terms(sources.glossary)
    if not memo.enabled:
        return slugs.assign_slugs(candidates, list(sources.lock), terms)
    asked = [(c.bank, known.of(c.zh), known.of(c.en)) for c in candidates]
    key = memo.key("slugs", cache.digest((asked, sources.lock, terms)))
    found = memo.get(key)
    if found is MISSING:
        prints = []
        for c, (_, zh, _) in zip(candidates, asked, strict=True):  # after an edit, most answers are as before
            print_key = memo.key("answer-print", zh)
            known_print = memo.get(print_key)
            prints.append(memo.put(print_key, slugs.answer_print(c.zh)) if known_print is MISSING else known_print)
        found = memo.put(key, slugs.assign_slugs(candidates, list(sources.lock), terms, prints))
    return found  # type: ignore[no-any-return]


def _name_questions(sources: Sources, known: cache.Digests) -> None:
    """Each parsed question's digest, as computed when its file was parsed (and kept in the cache with
    the parse): the bank holds the very question objects that were hashed, or unpickled from them."""
    for pair in sources.banks:
        for bank in pair:
            named = sources.digests.get(bank.path) if bank is not None else None
            if bank is not None and named is not None and len(named) == len(bank.questions):
                for q, found in zip(bank.questions, named, strict=True):
                    known.remember(q, found)


def _read_or_none(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def finish_checks(pending: list[UnusedCheck]) -> None:
    """Finish the checks `load_sources` left going on (`pending`): their problems join the others."""
    for check in pending:
        check.finish()


def _forks(questions: int) -> bool:
    """Whether side jobs run in forked processes for a site of this many questions."""
    return questions >= PARALLEL_FROM and parallel.can_fork()


def _both(cand: slugs.Candidate) -> list[Question]:
    return [cand.zh] + ([cand.en] if cand.en else [])


def render_files(
    site: Site,
    repo_url: str = "",
    site_url: str = "",
    cached: Path | None = None,
    known: cache.Digests | None = None,
    keys: dict[str, bytes] | None = None,
) -> dict[str, str]:
    """All generated files: Chinese pages at the top of docs/, English ones under docs/en/.

    docs/ itself is in git only as its .gitignore (so a fresh clone has the folder MkDocs wants);
    the generator writes that file too, so swapping in a new tree keeps it. `cached`: the docs folder
    whose page cache to use, `known` digests of the model's parts, `keys` (see `render_language`).
    """
    files = {".gitignore": DOCS_GITIGNORE}
    known = _name_entries(site, cached, known)
    for lang in LANGS:
        files.update(render_language(site, lang, repo_url, site_url, cached, known, keys))
    return files


def render_and_swap(
    site: Site,
    docs_dir: Path,
    repo_url: str = "",
    site_url: str = "",
    then: Callable[[], None] | None = None,
    cached: Path | None = None,
    known: cache.Digests | None = None,
    last: Mapping[str, tuple[bytes, FileState]] | None = None,
    keys: dict[str, bytes] | None = None,
    keep_old: Path | None = None,
) -> Mapping[str, str]:
    """`render_files` written to a new docs tree that then replaces `docs_dir` in one step.

    From PARALLEL_FROM questions on (with a second core), each other language is rendered and written
    by a forked child of its own while this process does the main one: the same files, in about
    the time of the slowest language. A child sends back only the paths it wrote and their keys (its
    pages, ~100 MB at 5,000 questions, would cost more to send than to read again): the result reads
    them from docs/ when asked. `then` runs right after the swap (see `staged_tree`); `cached`, `known`
    and `keys` as in `render_language`. `last` (`cache.last_pages`): a page whose key is the one its
    file in docs/ was written from, in a file still as it was then, is linked into the new tree
    without being read (after an edit, nearly every page). `keep_old`: see `write.staged_tree`.
    """
    first, *others = LANGS
    fork = _forks(len(site.entries))
    known = _name_entries(site, cached, known)  # before forking: once for every language
    last = last or {}
    with staged_tree(docs_dir, then, keep_old) as stage:

        def language(lang: Lang) -> tuple[list[str], dict[str, bytes]]:
            own: dict[str, bytes] = {}
            files = render_language(site, lang, repo_url, site_url, cached, known, own)
            stage.write(files, _as_last(own, last))
            return list(files), own

        sides = [parallel.Side(functools.partial(language, lang), fork=fork) for lang in others]
        try:
            own: dict[str, bytes] = {}
            stage.write({".gitignore": DOCS_GITIGNORE})
            files = render_language(site, first, repo_url, site_url, cached, known, own)
            stage.write(files, _as_last(own, last))
            rest = [".gitignore"]
            for side in sides:
                paths, theirs = side.result()
                rest += paths
                own.update(theirs)
        except BaseException:
            for side in sides:
                side.cancel()
            raise
    if keys is not None:
        keys.update(own)
    return cache.DocsFiles(docs_dir, rest, held=files)


def _as_last(keys: Mapping[str, bytes], last: Mapping[str, tuple[bytes, FileState]]) -> dict[str, FileState]:
    """The pages rendered from the key their file in docs/ was written from: each with that file's state
    as the last generation left it (what the writer checks before it takes the file as it is)."""
    out = {}
    for path, key in keys.items():
        was = last.get(path)
        if was is not None and was[0] == key:
            out[path] = was[1]
    return out


_HELD_ENTRY_KEYS: dict[Entry, bytes] = {}
"""Each entry's page key (render.name_entries), kept from one cached build to the next in this process."""


def _name_entries(site: Site, cached: Path | None, known: cache.Digests | None) -> cache.Digests:
    """`known` (a new one when None) with every entry's page key, where pages come from a cache."""
    known = known if known is not None else cache.Digests()
    if cached is not None:
        name_entries(site, known, _HELD_ENTRY_KEYS)
    return known


def render_language(
    site: Site,
    lang: Lang,
    repo_url: str = "",
    site_url: str = "",
    cached: Path | None = None,
    known: cache.Digests | None = None,
    keys: dict[str, bytes] | None = None,
) -> cache.Texts:
    """One language's generated files, by their path in docs/ (English under en/).

    `cached`: a docs folder whose cache (studysite/cache.py) holds pages of earlier builds; pages
    whose inputs are unchanged are taken from it, and the shard of this language is written back
    (by the process that rendered it). `known`: digests of the model's questions (build_site_model's),
    found again by identity. `keys` gets the key of each page rendered from one (`Page.key`), by path.
    """
    prefix = "" if lang == LANGS[0] else f"{lang}/"
    urls: dict[str, str] = {}
    memo = cache.shard(cached, f"pages-{lang}")
    files = cache.Texts(memo)  # the pages the cache holds are read from it only when asked for
    for page in render_site(site, lang, repo_url, site_url, memo, known):
        path = prefix + page.path
        url = _url_of(path)
        if url in urls:  # a silent overwrite would lose a page
            raise ValueError(f"two generated pages would be served at /{url}: {urls[url]} and {path}")
        urls[url] = path
        if page.held:
            files.add_held(path, page.key)
        else:
            files.add(path, page.text)
        if keys is not None and page.key:
            keys[path] = page.key
    memo.save()
    return files


def _url_of(path: str) -> str:
    """The URL a docs file is served at (directory URLs): `a/b.md` and `a/b/index.html` are both /a/b/."""
    for suffix in ("/index.md", "/index.html"):
        if path.endswith(suffix):
            return path[: -len(suffix)] + "/"
    if path in ("index.md", "index.html"):
        return ""
    return path[:-3] + "/" if path.endswith(".md") else path


def _suggest(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "bank"


_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
