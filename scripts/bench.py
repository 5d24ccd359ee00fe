#!/usr/bin/env python3
"""`make bench`: how build time, page weight and search cost grow from 14 to 5,000 questions.

For each corpus (the seed bank, and synthetic banks of ~50 questions at 14, 500 and 5,000
questions from scripts/synthetic_banks.py) it measures:

- the generator (parse + enrich + render + write: `studysite.build.generate`, in-process): cold
  (empty docs/, no generator cache: a fresh clone, CI), warm (nothing changed, with the docs/ and
  the cache, studysite/cache.py, of the run before: in the same process and in a new one) and after
  one edited answer (the same two ways);
- the full site build (`mkdocs build` of the bilingual site: Chinese build, English build,
  the built-site check, Pagefind, sitemap) in a work folder prepared like the tests do, and the
  floor: the same command on the already generated docs/ with STUDYSITE_SKIP_GENERATE=1, which only
  leaves out our generation (and the check of the built site against the banks); Pagefind and the
  sitemap are in both;
- peak memory of the build processes, question-page HTML size, site size;
- search in chromium: bytes fetched on a page load, before the first result and per later query,
  and the time from keyup to the first result;
- with `mkdocs serve` running, the time from saving an edited bank line to the page serving it;
- Lighthouse mobile scores of home, bank, question and tags pages in both languages (median of 3
  runs, served with gzip as GitHub Pages serves them), when node_modules/.bin/lighthouse exists;
- the daily review in chromium: opening study/review/ with 1,000 reviewed cards stored to its
  first question, grading one card, and the stored bytes per reviewed card (`measure_review`;
  `--review-only SITE` measures just that on an already built site).
- the generator alone at 1,000 and 100,000 questions in one bank: time and memory per question,
  PASS when those at 100,000 are within 1.5x of those at 1,000 (`--scaling-only` runs just this).

It prints one table and the targets of issue 8 as PASS/FAIL, and writes bench/results.md,
bench/plot.png and the table into README.md (between the bench markers). Work folders go to
/dev/shm/studysite-bench/ when it has room (see `work_folder`), and are deleted when the run ends,
also when it fails or is interrupted (they are memory: 1.9 GB after a whole `make bench`); else to
bench/out/ (git-ignored), which is kept. `--work` chooses (a folder chosen is kept). Run it on an
otherwise idle machine: other processes inflate timings.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gzip
import http.server
import json
import math
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Not for studysite (installed in .venv): for tests.* and scripts/synthetic_banks.py, which are not
# part of the package, also when tests/test_bench.py loads this file by its path.
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from synthetic_banks import write_corpus  # noqa: E402

from studysite import build as studybuild  # noqa: E402
from studysite import cache  # noqa: E402
from studysite.errors import Problems  # noqa: E402
from studysite.languages import LANGUAGES  # noqa: E402
from studysite.model import LANGS  # noqa: E402
from studysite.parallel import SERIAL_ENV, Side, can_fork  # noqa: E402
from studysite.write import build_lock, wait_for_removals  # noqa: E402
from tests.qualitykit import LIGHTHOUSE_QUIET_MS, lighthouse, serve_pages  # noqa: E402
from tests.sitekit import CHROMIUM, CHROMIUM_ARGS, MKDOCS_CLI, copy_banks, prepare_work  # noqa: E402

OUT = ROOT / "bench" / "out"
"""Work folders; `--work` (main) may move them."""
TMPFS_WORK = Path("/dev/shm/studysite-bench")
IN_MEMORY = False
"""Whether this run's work folders are the tmpfs one `work_folder` chose (not one given with --work)."""
RESULTS = ROOT / "bench" / "results.md"
PLOT = ROOT / "bench" / "plot.png"
SCALING = ROOT / "bench" / "scaling.md"
SCALING_TITLE = "# The generator at 1,000 and 100,000 questions (one bank)"
SCALING_ABOUT = (
    "Written by `make bench-scale` (scripts/bench.py --scaling-only), apart from `make bench`: the 100,000-question "
    "generation alone takes ~4 min and most of the machine's memory (~9 GB), so it runs by itself, not after "
    "the other measurements (a run of 2026-12-04 beside their work folders was killed for want of memory)."
)
README = ROOT / "README.md"
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
README_START = "<!-- bench:start (scripts/bench.py rewrites this part) -->"
README_END = "<!-- bench:end -->"

GEN_RUNS = {14: 3, 500: 3, 5000: 3}
"""Runs of the generator per size (median reported)."""
BUILD_RUNS = {14: 7, 500: 5, 5000: 3}
"""Runs of the full build and of the floor per size (median reported; interleaved). More where a pair is
cheap: two builds of the same site here differ by up to 15 % (500 questions: 12.4 and 14.5 s in one run,
2026-12-04), so the median of three pairs of 2-3 s or 12-15 s builds decided PASS or FAIL by chance
(seed 1.101x and 1.180x, 500 1.031x and 1.110x in runs minutes apart); seven and five pairs add about
a minute."""
SEARCH_FIRST_RUNS = 3
"""First queries, each in a fresh browser context (empty cache)."""
REBUILD_RUNS = 3
"""Edits timed under `mkdocs serve --dirty` (plain `mkdocs serve`: one)."""
FINISHED = "studysite: search index, downloads and offline files updated"
"""What the plugin logs when a --dirty rebuild's background steps are done (studysite/site/mkdocs_plugin.py)."""

# Queries: the first of each list is the first query; the others are "later" queries, each a new term.
QUERIES = {
    "zh": ["通信", "显存带宽", "投机解码", "负载均衡", "流水线并行", "共享内存", "AllReduce", "注意力"],
    "en": ["communication", "memory bandwidth", "speculative decoding", "load balancing", "pipeline", "AllReduce"],
}
SEARCH_PATH = re.compile(r"/pagefind/|search_index\.json|/workers/search")
"""Requests that belong to search (Pagefind, or Material's own index and worker)."""
COMPRESSIBLE = (".html", ".js", ".mjs", ".css", ".json", ".svg", ".xml", ".txt", ".webmanifest")
"""Types GitHub Pages serves gzip-compressed; Pagefind's index files are gzip already."""

# Header search: input and result selectors tried in order (Material's own, Pagefind UI, ours).
SEARCH_INPUTS = ("[data-qa-search-input]", ".pagefind-ui__search-input", "input.md-search__input")
SEARCH_RESULTS = (
    "[data-qa-search-result]",
    ".qa-search__result",
    ".pagefind-ui__result",
    ".md-search-result__item",
)


@dataclass
class Corpus:
    label: str
    questions: int
    banks: Path
    work: Path


@dataclass
class Row:
    """Everything measured for one corpus."""

    corpus: Corpus
    pages: int = 0
    gen: float = 0.0
    gen_warm: float = 0.0
    """Generator with nothing changed, in the process of the generations before (`make serve`)."""
    gen_warm_site: float = 0.0
    """Generator with nothing changed, as `make pages` runs it: scripts/build_pages.py in a new process."""
    gen_edit: float = 0.0
    """Generator after one answer line was edited, as `make serve` runs it: in the process of the
    generations before, after its first edit (from then on it holds every shard it uses), one process
    for every language (the server's threads rule out forking), docs/ updated in place."""
    gen_edit_site: float = 0.0
    """Generator after one answer line was edited, as `make pages` runs it: scripts/build_pages.py in a
    new process (interpreter and imports included), with the docs/ and cache of the generation before,
    until the command has returned (docs/ and the locks complete)."""
    gen_edit_recorded: float = 0.0
    """The same run until its record for the next generation was written, by a child that goes on after
    the command (studysite/build.py `record_in_background`): until the docs lock was free again."""
    gen_cpu: dict[str, float] = field(default_factory=dict)
    """CPU seconds (this process and its children) of the cold, warm and both edit runs: less
    sensitive to other load on the machine than the wall-clock times."""
    gen_serial: float = 0.0
    gen_edit_phases: dict[str, float] = field(default_factory=dict)
    """Medians of the edit runs' phases (studysite.build.PHASES: `Result.timings`)."""
    io_floor: float = 0.0
    gen_files: int = 0
    gen_phases: dict[str, float] = field(default_factory=dict)
    full: float = 0.0
    floor: float = 0.0
    full_runs: list[float] = field(default_factory=list)
    floor_runs: list[float] = field(default_factory=list)
    full_first: float = 0.0
    """The first full build, before the alternating runs: the generator's cache is warm (docs/ generated
    in-process first), the Anki/CSV files are made (their cache, .docs.cache/downloads/, is empty), and
    so are the pages' conversions and the site check's converted lines."""
    decks_remade: int = 0
    """Anki/CSV files the alternating full builds made instead of placing them (should be 0)."""
    ratio: float = 0.0
    """Median over the alternating runs of full / floor (each full build beside the floor run before it)."""
    peak_mb: float = 0.0
    floor_peak_mb: float = 0.0
    pagefind: float = 0.0
    post_build: dict[str, float] = field(default_factory=dict)
    page_median: int = 0
    page_max: int = 0
    page_max_gz: int = 0
    same_page: dict[str, int] = field(default_factory=dict)
    nav: tuple[int, int] = (0, 0)
    site_mb: float = 0.0
    search: dict[str, dict[str, Any]] = field(default_factory=dict)
    rebuild: dict[str, float] = field(default_factory=dict)
    lighthouse: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per page ("zh question"): each category's median score over LIGHTHOUSE_RUNS runs."""
    lighthouse_runs: dict[str, list[int]] = field(default_factory=dict)
    """Per page: the performance score of each run, in order."""
    lighthouse_cost: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """Seconds the Lighthouse runs took, and the 1-minute load average before and after them."""
    lighthouse_slowdown: list[float] = field(default_factory=list)
    """The CPU slowdown each Lighthouse run used, calibrated to the host (scripts/lighthouse_runs.mjs)."""
    lighthouse_frames: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    """Each page's runs: when the load event fired and when the first frame was painted (ms, as
    Lighthouse observed them, before its simulation): the Speed Index follows the first frame."""
    review: dict[str, float] = field(default_factory=dict)
    kinds: dict[str, tuple[int, str]] = field(default_factory=dict)
    """Largest HTML page of each kind (page_kinds): bytes and path in the site."""


# ---------------------------------------------------------------------------------------------
# corpora and the generator


STAGES: dict[str, float] = {}
"""Seconds each part of this run took, in the order they ran ("5000 builds": 312.4): where the
benchmark's own time goes, printed as each part ends and in the report's notes."""
BENCH_MINUTES = 15.0
"""What a whole `make bench` may take (issue 18), on this 2-core machine."""
WHOLE_RUN: dict[str, float] = {}
"""A whole run's minutes and the 1-minute load average at its start (`main`; none for a partial run)."""


@contextlib.contextmanager
def stage(name: str) -> Iterator[None]:
    """Time the block as the part `name` of the run (STAGES), and say so when it ends."""
    started = time.perf_counter()
    try:
        yield
    finally:
        STAGES[name] = STAGES.get(name, 0.0) + time.perf_counter() - started
        print(f"  ({name}: {STAGES[name]:.0f} s)", flush=True)


def work_folder(choice: str) -> Path:
    """Where the corpora are built. By default a memory file system: on the 2-core VMs we measure on,
    creating 10,000 small files on the ext4 disk took from 0.5 s to 10 s depending on what ran in the
    minutes before (perf: ext4_create spends the time in `recently_deleted`, the scan of inodes freed
    in the last minutes that ext4 does without a journal, and every build deletes a site). That
    measures the previous run, not this code; on tmpfs the same files take ~0.3 s every time.
    `--work bench/out` measures on the disk.
    """
    if choice != "auto":
        return Path(choice).resolve()
    shm = TMPFS_WORK.parent
    if shm.is_dir() and os.access(shm, os.W_OK) and shutil.disk_usage(shm).free > 4 << 30:
        return TMPFS_WORK
    return ROOT / "bench" / "out"


def use_work_folder(choice: str) -> None:
    """This run's work folder (OUT) for `--work CHOICE`, and whether it is the tmpfs one chosen for it."""
    global OUT, IN_MEMORY
    OUT = work_folder(choice)
    IN_MEMORY = choice == "auto" and OUT == TMPFS_WORK


def release_memory() -> None:
    """Delete the tmpfs work folder (`work_folder`): left there, its files would hold the machine's memory
    until the next reboot (1.9 GB after a whole `make bench`, 2026-12-06)."""
    if IN_MEMORY and TMPFS_WORK.exists():
        shutil.rmtree(TMPFS_WORK, ignore_errors=True)
        print(f"bench: deleted {TMPFS_WORK} (work folders in memory)", flush=True)


def make_corpus(label: str, questions: int) -> Corpus:
    work = OUT / f"{label}-{questions}"
    if work.exists():
        shutil.rmtree(work)
    banks = work / "banks"
    if label == "seed":
        copy_banks(banks)
        questions = sum(
            line.startswith("Q:")
            for p in banks.glob("*.txt")
            if not p.name.endswith(".en.txt")
            for line in p.read_text(encoding="utf-8").split("\n")
        )
    else:  # "one": every question in one bank (how large a bank page gets)
        write_corpus(banks, questions, per_bank=questions if label == "one" else 50, seed=0)
        # the seed's glossary (its terms are in the synthetic text): the glossary page is measured too
        shutil.copyfile(ROOT / "tests" / "fixtures" / "banks" / "glossary.yml", banks / "glossary.yml")
    return Corpus(label, questions, banks, work)


def time_generator(c: Corpus, runs: int) -> Generated:
    """generate() cold: into an empty folder without the generator's cache (a fresh clone, CI); warm:
    again, nothing changed, its output and cache there (every local rebuild); after an edit: one
    answer line changed, then generated with the previous output and cache, once as `make serve`
    does (in this process, without forks, in place: `Row.gen_edit`) and once more as `make site` does
    (a new process, as `make pages`: `Row.gen_edit_site`, and until its record is written:
    `Row.gen_edit_recorded`), and then with nothing changed in a new process again
    (`Row.gen_warm_site`). Medians of `runs` rounds; their CPU times go to `cpu`.
    Then one cold run in a single process (no forks, STUDYSITE_SERIAL=1); the median time of its
    phases (same functions, without the cache); and the I/O floor: plain creation of the same files
    in an empty folder, no logic. The corpus gets its slugs.lock first, as a repository has one."""
    docs = c.work / "gen-docs"
    studybuild.generate(c.banks, docs)  # the lock a repository keeps beside its banks
    cold, warm, edit, edit_site, recorded, warm_site = [], [], [], [], [], []
    cpus: dict[str, list[float]] = {"cold": [], "warm": [], "edit": [], "edit_site": [], "warm_site": []}
    edit_phases: dict[str, list[float]] = {name: [] for name in studybuild.PHASES}
    bank, line_no = _answer_line(c)
    original = bank.read_text(encoding="utf-8")
    try:
        for n in range(runs):
            shutil.rmtree(docs, ignore_errors=True)
            shutil.rmtree(cache.folder_for(docs), ignore_errors=True)  # cold is a fresh clone: no cache either
            for name, times in (
                ("cold", cold),
                ("warm", warm),
                ("edit", edit),
                ("edit_site", edit_site),
                ("warm_site", warm_site),
            ):
                if name == "edit":  # the server's first edit (it reads the shards it did not write): not timed
                    bank.write_text(_edited(original, line_no, f"第{n + 1}次修改，first"), encoding="utf-8")
                    _serve_generate(c.banks, docs)
                if name.startswith("edit"):
                    bank.write_text(_edited(original, line_no, f"第{n + 1}次修改，{name}"), encoding="utf-8")
                t, spent = time.perf_counter(), _cpu()
                if name == "warm_site":  # after the edit's record was written (the lock below)
                    _build_pages(c.banks, docs, unchanged=True)
                    times.append(time.perf_counter() - t)
                    cpus[name].append(_cpu() - spent)
                    continue
                if name == "edit_site":
                    _build_pages(c.banks, docs)
                    returned = time.perf_counter() - t
                    with build_lock(docs):  # held by the child writing the record until it is written
                        recorded.append(time.perf_counter() - t)
                    times.append(returned)
                    cpus[name].append(_cpu() - spent)  # without the record's child: not this process's
                    continue
                elif name == "edit":
                    result = _serve_generate(c.banks, docs)
                else:
                    result = studybuild.generate(c.banks, docs, update_lock=False)
                times.append(time.perf_counter() - t)
                cpus[name].append(_cpu() - spent)
                if name == "edit":
                    for phase, seconds in edit_phases.items():
                        seconds.append(result.timings.get(phase, 0.0))
    finally:
        bank.write_text(original, encoding="utf-8")
    shutil.rmtree(docs, ignore_errors=True)
    shutil.rmtree(cache.folder_for(docs), ignore_errors=True)
    os.environ[SERIAL_ENV] = "1"
    try:
        t = time.perf_counter()
        studybuild.generate(c.banks, docs, update_lock=False)
        serial = time.perf_counter() - t
    finally:
        del os.environ[SERIAL_ENV]
    phases: dict[str, list[float]] = {"parse": [], "enrich": [], "render+write": []}
    files: Mapping[str, str] = {}
    for _ in range(runs):
        t0 = time.perf_counter()
        sources = studybuild.load_sources(c.banks, Problems())
        t1 = time.perf_counter()
        site, _lock = studybuild.build_site_model(sources)
        t2 = time.perf_counter()
        files = studybuild.render_and_swap(site, docs)
        wait_for_removals()  # the old tree's deletion, which generate() overlaps with recording its result
        t3 = time.perf_counter()
        for name, seconds in zip(phases, (t1 - t0, t2 - t1, t3 - t2), strict=True):
            phases[name].append(seconds)
    data = {rel: text.encode("utf-8") for rel, text in files.items()}  # some are read back from docs/
    shutil.rmtree(docs, ignore_errors=True)
    scratch = c.work / "io-floor"
    shutil.rmtree(scratch, ignore_errors=True)
    t = time.perf_counter()
    for rel, blob in data.items():
        target = scratch / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob)
    io_floor = time.perf_counter() - t
    shutil.rmtree(scratch, ignore_errors=True)
    phase_medians = {k: statistics.median(v) for k, v in phases.items()}
    # Why two processes do not halve the time: one language's pages rendered alone, then again while a
    # forked process renders the other language.
    first, second = LANGS[:2]  # the bank language and its translation
    t = time.perf_counter()
    studybuild.render_language(site, first)
    phase_medians["render one language alone"] = time.perf_counter() - t
    other = Side(lambda: studybuild.render_language(site, second) and None, fork=can_fork())
    t = time.perf_counter()
    studybuild.render_language(site, first)
    phase_medians["the same beside the other language"] = time.perf_counter() - t
    other.result()
    return Generated(
        statistics.median(cold),
        statistics.median(warm),
        statistics.median(edit),
        statistics.median(edit_site),
        statistics.median(recorded),
        statistics.median(warm_site),
        {k: statistics.median(v) for k, v in cpus.items()},
        serial,
        phase_medians,
        io_floor,
        len(files),
        {phase: statistics.median(seconds) for phase, seconds in edit_phases.items()},
    )


@dataclass
class Generated:
    """What `time_generator` measured (seconds)."""

    cold: float
    warm: float
    edit: float
    edit_site: float
    edit_recorded: float
    warm_site: float
    cpu: dict[str, float]
    serial: float
    phases: dict[str, float]
    io_floor: float
    files: int
    edit_phases: dict[str, float]
    """Medians of each phase of the edit runs (`Result.timings`)."""


def _answer_line(c: Corpus) -> tuple[Path, int]:
    """The first answer line of the middle bank (0-based index in the file): the line an edit changes."""
    banks = sorted(p for p in c.banks.glob("*.txt") if not p.name.endswith(".en.txt"))
    bank = banks[len(banks) // 2]
    lines = bank.read_text(encoding="utf-8").split("\n")
    first = next(i for i, line in enumerate(lines) if line.startswith("Q:"))
    return bank, first + 1


def _edited(text: str, line_no: int, mark: str) -> str:
    """`text` with `mark` added to line `line_no` (before its last character, the line's full stop)."""
    lines = text.split("\n")
    lines[line_no] = lines[line_no][:-1] + f"（{mark}）" + lines[line_no][-1:]
    return "\n".join(lines)


def _serve_generate(banks: Path, docs: Path) -> studybuild.Result:
    """generate() as `make serve` runs it: in place, in one process (the server's threads rule out forks)."""
    os.environ[SERIAL_ENV] = "1"
    try:
        return studybuild.generate(banks, docs, update_lock=False, in_place=True)
    finally:
        del os.environ[SERIAL_ENV]


def _build_pages(banks: Path, docs: Path, *, unchanged: bool = False) -> None:
    """scripts/build_pages.py in a new process, as `make site` generates (the lock left as it is).
    `unchanged`: it must have found nothing changed."""
    cmd = [sys.executable, str(ROOT / "scripts" / "build_pages.py"), "--banks", str(banks), "--out", str(docs)]
    proc = subprocess.run([*cmd, "--no-lock-update"], capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(f"bench: build_pages.py failed:\n{proc.stderr[-2000:]}")
    if unchanged and "nothing changed" not in proc.stdout:
        raise SystemExit(f"bench: build_pages.py generated again where nothing changed:\n{proc.stdout[-2000:]}")


def _cpu() -> float:
    import resource

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


# ---------------------------------------------------------------------------------------------
# the generator at 1,000 and 100,000 questions (issue 13, point 11)

SCALING_SIZES = (1_000, 100_000)
"""Questions, all in one bank (the issue's case): time and memory per question must stay within
SCALING_LIMIT of those at the first size."""
SCALING_LIMIT = 1.5
_SCALING_CHILD = """
import json, resource, shutil, sys, time
from pathlib import Path
from studysite.build import generate
banks, docs = Path(sys.argv[1]), Path(sys.argv[2])
shutil.rmtree(docs, ignore_errors=True)
shutil.rmtree(docs.parent / f".{docs.name}.cache", ignore_errors=True)  # cold: no generator cache either
def cpu():
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
def status(field):  # KB; not ru_maxrss: Linux keeps the parent's peak across exec (the bench's, ~1 GB)
    return int(next(l.split()[1] for l in open("/proc/self/status") if l.startswith(field + ":")))
base = status("VmRSS")
wall, spent = time.perf_counter(), cpu()
generate(banks, docs, update_lock=False)
wall, spent = time.perf_counter() - wall, cpu() - spent
# the forked side processes' ru_maxrss is their own (they fork from this process, after its exec)
peak = max(status("VmHWM"), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(json.dumps({"wall": wall, "cpu": spent, "base_kb": base, "peak_kb": peak}))
"""


@dataclass
class Scale:
    """One size of the generator scaling row."""

    questions: int
    wall: float
    """Seconds of generate() into an empty folder."""
    cpu: float
    """CPU seconds of it (this process and its forked side processes): less sensitive to other load."""
    peak_mb: float
    """Peak resident memory of the process (or of a side process, when larger)."""
    grown_mb: float
    """Peak minus the memory before generate() (the interpreter and imports): what the questions cost."""
    error: str = ""
    """Why the run did not finish (its exit status and last lines), or empty."""


def measure_scaling(sizes: tuple[int, ...] = SCALING_SIZES) -> list[Scale]:
    """generate() of one bank of N synthetic questions, each size in a fresh process (so its peak
    memory is its own), into an empty folder under the work folder."""
    out = []
    for n in sizes:
        work = OUT / f"scale-{n}"
        banks = work / "banks"
        if not (banks / "syn-001.txt").exists():
            write_corpus(banks, n, per_bank=n, seed=0)
        proc = subprocess.run(
            [sys.executable, "-c", _SCALING_CHILD, str(banks), str(work / "docs")],
            capture_output=True,
            text=True,
            check=False,
        )
        shutil.rmtree(work / "docs", ignore_errors=True)
        if proc.returncode != 0:  # reported as a FAIL with its reason; the rest of the bench goes on
            killed = " (killed: out of memory? see dmesg)" if proc.returncode == -9 else ""
            tail = " ".join(proc.stderr.strip().splitlines()[-3:])[:400]
            out.append(
                Scale(n, math.nan, math.nan, math.nan, math.nan, f"exit {proc.returncode}{killed} {tail}".strip())
            )
            print(f"  scaling {n:,}: failed, {out[-1].error}", flush=True)
            continue
        got = json.loads(proc.stdout.strip().splitlines()[-1])
        out.append(Scale(n, got["wall"], got["cpu"], got["peak_kb"] / 1024, (got["peak_kb"] - got["base_kb"]) / 1024))
        print(f"  scaling {n:,}: {out[-1]}", flush=True)
    return out


def scaling_lines(scales: list[Scale]) -> list[str]:
    """The row as a table, and PASS/FAIL of time (wall and CPU) and memory per question against the limit."""
    lines = [
        "| questions (one bank) | generator | CPU | per question | CPU per question | peak memory | grown | grown per question |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for s in scales:
        n = s.questions
        if s.error:
            lines.append(f"| {n:,} | did not finish: {s.error} | | | | | | |")
            continue
        lines.append(
            f"| {n:,} | {s.wall:.1f} s | {s.cpu:.1f} s | {s.wall / n * 1e3:.2f} ms | {s.cpu / n * 1e3:.2f} ms "
            f"| {s.peak_mb:.0f} MB | {s.grown_mb:.0f} MB | {s.grown_mb * 1024 / n:.1f} KB |"
        )
    first, last = scales[0], scales[-1]
    failed = [s for s in scales if s.error]
    if failed:
        return [*lines, *(f"- FAIL: the generator at {s.questions:,} questions did not finish" for s in failed)]
    for what, a, b in (
        ("time", first.wall / first.questions, last.wall / last.questions),
        ("CPU time", first.cpu / first.questions, last.cpu / last.questions),
        ("memory", first.grown_mb / first.questions, last.grown_mb / last.questions),
    ):
        ratio = b / a if a else float("inf")
        verdict = "PASS" if ratio <= SCALING_LIMIT else "FAIL"
        lines.append(
            f"- {verdict}: {what} per question at {last.questions:,} is {ratio:.2f}x that at "
            f"{first.questions:,} (limit {SCALING_LIMIT}x)"
        )
    return lines


# ---------------------------------------------------------------------------------------------
# site builds


def run_build(c: Corpus, env: dict[str, str], *, skip_generate: bool) -> tuple[float, float]:
    """One `mkdocs build`; returns (seconds, peak RSS in MB of mkdocs and its children)."""
    env = dict(env)
    if skip_generate:
        env["STUDYSITE_SKIP_GENERATE"] = "1"
    else:
        env.pop("STUDYSITE_SKIP_GENERATE", None)
    log = c.work / ("floor.log" if skip_generate else "build.log")
    # --no-strict --quiet, as it ran before (--quiet drops warnings before strict mode counts them): a
    # synthetic corpus leaves some glossary terms unused, a warning that is not what is timed
    cmd = [sys.executable, "-m", "mkdocs", "build", "--no-strict", "--quiet", "-f", str(c.work / "mkdocs.yml")]
    with open(log, "wb") as out:
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=c.work, env=env, stdout=out, stderr=subprocess.STDOUT)
        # wait4 gives this child's own rusage, which includes its waited-for children (Pagefind).
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"bench: build of {c.work} failed; see {log}:\n{log.read_text()[-3000:]}")
    return seconds, usage.ru_maxrss / 1024


def time_pagefind(site: Path) -> float:
    from studysite.site.site_finish import PAGEFIND

    binary = Path(os.environ.get("PAGEFIND_BINARY", PAGEFIND))
    out = Path(str(site) + "-pagefind")
    shutil.rmtree(out, ignore_errors=True)
    t = time.perf_counter()
    subprocess.run(
        [str(binary), "--site", str(site), "--output-path", str(out), "--quiet"], check=True, capture_output=True
    )
    seconds = time.perf_counter() - t
    shutil.rmtree(out, ignore_errors=True)
    return seconds


def time_our_post_build(c: Corpus) -> dict[str, float]:
    """In-process times of our own post-build steps that the floor leaves out (the plugin runs them
    only after generating): the check of the built site against the banks, and the Anki/CSV downloads."""
    out: dict[str, float] = {}
    try:
        from studysite.site.verify import check_built_site
        from studysite.takeaway.anki import write_decks

        sources = studybuild.load_sources(c.banks, Problems())
        site, _lock = studybuild.build_site_model(sources)
        t = time.perf_counter()
        # with the lines the full builds' checks kept, as the plugin's check reads them
        check_built_site(sources.banks, site, c.work / "site", cache.shard(c.work / "docs", "check-lines"))
        out["check"] = time.perf_counter() - t
        scratch = c.work / "downloads-scratch"
        t = time.perf_counter()
        write_decks(site, scratch, "http://127.0.0.1:8000/", 0)
        out["downloads"] = time.perf_counter() - t
        shutil.rmtree(scratch, ignore_errors=True)
    except Exception as exc:  # the steps are someone else's and may change shape: report, don't fail
        print(f"  (post-build steps not timed: {exc!r})", flush=True)
    return out


def _decks_kept(c: Corpus) -> set[str]:
    """The files the docs folder's cache of Anki/CSV files holds, named by their inputs' keys (a build
    that makes a file keeps it under a new name, and drops the ones it did not use)."""
    folder = cache.folder_for(c.work / "docs") / "downloads"
    return set(os.listdir(folder)) if folder.is_dir() else set()


def question_pages(c: Corpus) -> list[tuple[str, str]]:
    """(bank, slug) of every question, from the generated docs/."""
    docs = c.work / "docs"
    return sorted(
        (p.parent.name, p.stem)
        for p in docs.glob("*/*.md")
        if p.stem != "index" and p.read_text(encoding="utf-8").find("qa-answer") >= 0
    )


def site_stats(row: Row) -> None:
    site = row.corpus.work / "site"
    html = [p for p in site.rglob("*.html") if "pagefind" not in p.parts]
    row.pages = len(html)
    sizes = []
    biggest = (0, Path())
    for bank, slug in question_pages(row.corpus):
        for prefix in (site, site / "en"):
            page = prefix / bank / slug / "index.html"
            size = page.stat().st_size
            sizes.append(size)
            biggest = max(biggest, (size, page))
    row.page_median = int(statistics.median(sizes))
    row.page_max = biggest[0]
    row.page_max_gz = len(gzip.compress(biggest[1].read_bytes(), 6))
    row.nav = _primary_nav(biggest[1].read_text(encoding="utf-8"))
    # The same question at every size: the first question of syn-001 (synthetic corpora only).
    first = sorted(question_pages(row.corpus))[0]
    for lang, prefix in (("zh", site), ("en", site / "en")):
        row.same_page[lang] = (prefix / first[0] / first[1] / "index.html").stat().st_size
    row.site_mb = sum(p.stat().st_size for p in site.rglob("*") if p.is_file()) / 1e6
    row.kinds = page_kinds(site)


PAGE_KINDS = (
    "home",
    "banks index",
    "bank",
    "question",
    "tags index",
    "tag page",
    "glossary",
    "glossary term",
    "review",
    "stats",
    "print",
)
"""The kinds of page that must stay bounded (issue 18): each at most PAGE_LIMIT bytes at 5,000 questions
and at most PAGE_GROWTH above its size at 500."""
PAGE_LIMIT = 100_000
PAGE_GROWTH = 1.10
_STUDY_KINDS = {"review": "review", "stats": "stats", "mock": "mock"}


def page_kind(rel: str) -> str:
    """The kind of a built HTML page from its path in the site (every language)."""
    rel = rel[len(LANGUAGES.holding(rel).root) :]
    parts = rel.split("/")[:-1]  # the folder: pages are <folder>/index.html
    if not parts:
        return "home"
    head = parts[0]
    if head == "banks":
        return "banks index"  # /banks/ and /banks/N/: every bank, when the home page lists only the first few
    if head == "tags":
        return "tags index" if len(parts) == 1 else "tag page"
    if head == "glossary":
        return "glossary" if len(parts) == 1 else "glossary term"
    if head == "study":
        return _STUDY_KINDS.get(parts[1] if len(parts) > 1 else "", "other")
    if head in ("assets", "downloads", "pagefind", "search") or rel.endswith("404.html"):
        return "other"
    if len(parts) == 1 or (len(parts) == 3 and parts[1] == "page"):
        return "bank"  # a bank's list, page 1 or /page/N/
    return "print" if parts[1] == "print" else "question"


def page_kinds(site: Path) -> dict[str, tuple[int, str]]:
    """The largest page of each kind: (bytes, path relative to the site)."""
    out: dict[str, tuple[int, str]] = {}
    for page in site.rglob("index.html"):
        rel = page.relative_to(site).as_posix()
        kind = page_kind(rel)
        size = page.stat().st_size
        if size > out.get(kind, (-1, ""))[0]:
            out[kind] = (size, rel)
    return out


def page_kind_lines(rows: list[Row]) -> list[str]:
    """A table of the largest page of each kind per corpus, then PASS/FAIL against the bounds."""
    kinds = [k for k in (*PAGE_KINDS, "mock") if any(k in r.kinds for r in rows)]
    head = "| largest page KB (path) | " + " | ".join(f"{r.corpus.label} {r.corpus.questions:,}" for r in rows) + " |"
    lines = [head, "|---|" + "---:|" * len(rows)]
    for kind in kinds:
        cells = [f"{_kb(r.kinds[kind][0])} (`{r.kinds[kind][1]}`)" if kind in r.kinds else "–" for r in rows]
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    lines.append("")
    for ok, text in page_targets(rows):
        lines.append(f"- **{'PASS' if ok else 'FAIL' if ok is False else 'n/a'}** {text}")
    return lines


def page_targets(rows: list[Row]) -> list[tuple[bool | None, str]]:
    """Every page kind at most 100 KB at 5,000 questions (every corpus of 5,000: also one bank of 5,000)
    and at most 10 % larger than at 500 (the synthetic corpora of 50-question banks)."""
    out: list[tuple[bool | None, str]] = []
    syn = {r.corpus.questions: r for r in rows if r.corpus.label == "syn"}
    mid, big = syn.get(500), syn.get(5000)
    for kind in PAGE_KINDS:
        for r in (r for r in rows if r.corpus.questions == 5000):
            if kind not in r.kinds:
                continue
            size, path = r.kinds[kind]
            out.append((size <= PAGE_LIMIT, f"{kind} <= 100 KB ({r.corpus.label} 5,000): {_kb(size)} KB, `{path}`"))
        if mid and big and kind in mid.kinds and kind in big.kinds:
            a, b = mid.kinds[kind][0], big.kinds[kind][0]
            out.append(
                (
                    b <= PAGE_GROWTH * a,
                    f"{kind} <= 10 % growth 500 -> 5,000: {_kb(a)} -> {_kb(b)} KB ({(b / a - 1) * 100:+.1f} %)",
                )
            )
    return out


def measure_pages(sizes: list[int], one_bank: int) -> list[Row]:
    """Only the page sizes: one full build per corpus (and one of `one_bank` questions in one bank)."""
    rows = []
    corpora = [("syn", n) for n in sizes] + ([("one", one_bank)] if one_bank else [])
    for label, n in corpora:
        c = make_corpus(label, n)
        row = Row(c)
        env = prepare_work(c.banks, c.work)
        t = time.perf_counter()
        run_build(c, env, skip_generate=False)
        print(f"bench: {label} {n:,} questions built in {time.perf_counter() - t:.1f} s", flush=True)
        row.kinds = page_kinds(c.work / "site")
        rows.append(row)
    return rows


def _primary_nav(page: str) -> tuple[int, int]:
    """(bytes, links) of Material's primary navigation (the sidebar nav) in a page."""
    start = page.find('<nav class="md-nav md-nav--primary"')
    if start < 0:
        return (0, 0)
    depth = 0
    for m in re.finditer(r"<nav\b|</nav>", page[start:]):
        depth += 1 if m.group() == "<nav" else -1
        if depth == 0:
            nav = page[start : start + m.end()]
            return (len(nav.encode("utf-8")), nav.count("<a "))
    return (0, 0)


# ---------------------------------------------------------------------------------------------
# search in chromium


QUIET = 0.5
"""Seconds without a request that end a page's load window or a query's (Playwright's "networkidle"
waits for the same 500 ms without a connection): what a page fetches after its load event until then
counts as its load (`_Log.settle`)."""


class _Log:
    """Every file the logging server sent (path, bytes), and the requests it is still answering."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.entries: list[tuple[float, str, int]] = []
        self.busy = 0
        self.last = time.perf_counter()  # when a request last began or ended

    def add(self, path: str, size: int) -> None:
        with self.lock:
            self.entries.append((time.perf_counter(), path, size))

    def begin(self) -> None:
        with self.lock:
            self.busy += 1
            self.last = time.perf_counter()
            self.lock.notify_all()

    def end(self) -> None:
        with self.lock:
            self.busy -= 1
            self.last = time.perf_counter()
            self.lock.notify_all()

    def settle(self, quiet: float = QUIET, limit: float = 60.0) -> None:
        """Wait until no request is being answered and none began or ended for `quiet` seconds (the
        page's scripts, the service worker and search have fetched what they were going to)."""
        give_up = time.perf_counter() + limit
        with self.lock:
            while True:
                now = time.perf_counter()
                left = self.last + quiet - now
                if self.busy == 0 and left <= 0:
                    return
                if now > give_up:
                    raise SystemExit(f"bench: requests still going on after {limit:.0f} s ({self.busy} open)")
                self.lock.wait(timeout=left if self.busy == 0 else give_up - now)

    def mark(self) -> int:
        with self.lock:
            return len(self.entries)

    def since(self, mark: int) -> list[tuple[float, str, int]]:
        with self.lock:
            return list(self.entries[mark:])


@contextlib.contextmanager
def logging_server(directory: Path) -> Iterator[tuple[str, _Log]]:
    """Serve `directory` on a free port and log every file sent (path, bytes)."""
    log = _Log()

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        # A request is open from its parsed request line until its answer is sent (not while a
        # connection waits for its next request, were one kept alive).
        def parse_request(self) -> bool:
            ok = super().parse_request()
            if ok:
                self.open_request = True
                log.begin()
            return ok

        def handle_one_request(self) -> None:
            self.open_request = False
            try:
                super().handle_one_request()
            finally:
                if self.open_request:
                    log.end()

        def copyfile(self, source: Any, outputfile: Any) -> None:
            data = source.read()
            outputfile.write(data)
            log.add(self.path.split("?", 1)[0], len(data))

        def end_headers(self) -> None:
            self.send_header("Cache-Control", "max-age=600")  # as a static host would allow
            super().end_headers()

    handler = functools.partial(Handler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", log
    finally:
        server.shutdown()
        server.server_close()


def search_bytes(site: Path, entries: list[tuple[float, str, int]]) -> tuple[int, int]:
    """(raw, as served with gzip) bytes of the search requests among `entries`."""
    raw = gz = 0
    for _, path, size in entries:
        if not SEARCH_PATH.search(path):
            continue
        raw += size
        gz += _gzip_size(site, path) if path.endswith(COMPRESSIBLE) else size
    return raw, gz


@functools.lru_cache(maxsize=4096)
def _gzip_size(site: Path, path: str) -> int:
    return len(gzip.compress((site / path.lstrip("/")).read_bytes(), 6))


_UI_SEARCH_JS = """
async ([q, inputs, results, timeout]) => {
  const input = inputs.map(s => document.querySelector(s)).find(Boolean);
  if (!input) return {error: "no search input"};
  const selector = results.join(",");
  const before = new Set(document.querySelectorAll(selector));
  const toggle = document.getElementById("__search");  // as a click on the search icon would
  if (toggle && !toggle.checked) { toggle.checked = true; toggle.dispatchEvent(new Event("change", {bubbles: true})); }
  input.focus();
  input.value = q;
  input.dispatchEvent(new Event("input", {bubbles: true}));
  const t0 = performance.now();
  input.dispatchEvent(new KeyboardEvent("keyup", {bubbles: true, key: q.slice(-1)}));
  return await new Promise(resolve => {
    const check = () => {
      const found = [...document.querySelectorAll(selector)].find(el => !before.has(el) && el.offsetParent !== null);
      if (found) return resolve({ms: performance.now() - t0});
      if (performance.now() - t0 > timeout) return resolve({error: "no result within " + timeout + " ms"});
      requestAnimationFrame(check);
    };
    check();
  });
}
"""

_API_SEARCH_JS = """
async ([q, timeout]) => {
  const t0 = performance.now();
  if (!window.__qaBenchPagefind) window.__qaBenchPagefind = await import("/pagefind/pagefind.js");
  const search = await window.__qaBenchPagefind.search(q);
  if (!search.results.length) return {error: "no results for " + q};
  await search.results[0].data();
  return {ms: performance.now() - t0, count: search.results.length};
}
"""


def measure_search(row: Row, browser: Any) -> None:
    """Search bytes and latency per language, through the header search (or Pagefind's API)."""
    c = row.corpus
    site = c.work / "site"
    text = {
        "zh": " ".join(p.read_text(encoding="utf-8") for p in c.banks.glob("*.txt") if ".en." not in p.name),
        "en": " ".join(p.read_text(encoding="utf-8") for p in c.banks.glob("*.en.txt")),
    }
    bank, slug = question_pages(c)[0]
    with logging_server(site) as (base, log):
        for lang, prefix in (("zh", ""), ("en", "en/")):
            queries = [q for q in QUERIES[lang] if q.casefold() in text[lang].casefold()]
            url = f"{base}{prefix}{bank}/{slug}/"
            result: dict[str, Any] = {"queries": queries}
            first_ms, first_bytes, later_ms, later_bytes, load_bytes = [], [], [], [], []
            mode = "ui"
            for attempt in range(SEARCH_FIRST_RUNS):
                context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
                page = context.new_page()
                mark = log.mark()
                page.goto(url, wait_until="load")
                log.settle()  # anything a page fetches after load counts as page load
                load_bytes.append(search_bytes(site, log.since(mark)))
                run = _search_once(page, queries[0], mode, log, site)
                if "error" in run and mode == "ui":
                    result["ui_error"] = run["error"]
                    mode = "api"
                    context.close()
                    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
                    page = context.new_page()
                    page.goto(url, wait_until="load")
                    log.settle()
                    run = _search_once(page, queries[0], mode, log, site)
                if "error" in run:
                    raise SystemExit(f"bench: search failed on {url}: {run['error']}")
                first_ms.append(run["ms"])
                first_bytes.append(run["bytes"])
                if attempt == 0:
                    for q in queries[1:]:
                        later = _search_once(page, q, mode, log, site)
                        if "error" in later:
                            raise SystemExit(f"bench: search for {q!r} failed on {url}: {later['error']}")
                        later_ms.append(later["ms"])
                        later_bytes.append(later["bytes"])
                context.close()
            result["offline"] = _offline_cost(browser, url, log, site, lang)
            result.update(
                mode=mode,
                load=max(load_bytes),
                first_ms=statistics.median(first_ms),
                first_bytes=_median_pair(first_bytes),
                later_ms=statistics.median(later_ms),
                later_ms_max=max(later_ms),
                later_bytes=_median_pair(later_bytes),
                later_bytes_max=max(later_bytes, key=lambda b: b[1]),
            )
            row.search[lang] = result


def _offline_cost(browser: Any, url: str, log: _Log, site: Path, lang: str) -> dict[str, Any]:
    """Issue 18.3, what offline reading costs a reader who never asked for a download: the bytes a first
    visit transfers beyond the same page with service workers blocked (target 0: overrides/assets/qa/
    offline.js registers nothing on a first visit), and what the second page adds once per deploy (the
    worker and its manifest; it keeps both pages from the HTTP cache). Plus the reader-chosen download
    of the language and of the site, gzip, as the control shows them (offline-manifest.json scopes)."""

    def visit(blocked: bool) -> tuple[int, int, Any]:
        context = browser.new_context(
            viewport={"width": 1280, "height": 900}, service_workers="block" if blocked else "allow"
        )
        page = context.new_page()
        mark = log.mark()
        page.goto(url, wait_until="load")
        log.settle()  # offline.js runs at load; anything it would start shows up here
        entries = log.since(mark)
        return sum(size for _, _, size in entries), sum(_gz(site, p, size) for _, p, size in entries), (context, page)

    raw_blocked, gz_blocked, (context, _) = visit(True)
    context.close()
    raw, gz, (context, page) = visit(False)
    mark = log.mark()
    page.goto(url.rsplit("/", 2)[0] + "/", wait_until="load")  # the second page: the bank's
    page.wait_for_function("!!navigator.serviceWorker.controller", timeout=60_000)
    log.settle()  # the worker's own requests (itself, the manifest, the two pages it keeps)
    worker = [(p, size) for _, p, size in log.since(mark) if p.rsplit("/", 1)[-1] in ("sw.js", "offline-manifest.json")]
    context.close()
    scopes = json.loads((site / "offline-manifest.json").read_text(encoding="utf-8"))["scopes"]
    return {
        "first_visit": (max(0, raw - raw_blocked), max(0, gz - gz_blocked)),
        "second_page": (sum(size for _, size in worker), sum(_gz(site, p, size) for p, size in worker)),
        "download_lang": scopes[f"lang:{lang}"],
        "download_site": scopes["site"],
    }


def _gz(site: Path, path: str, size: int) -> int:
    return _gzip_size(site, path) if path.endswith(COMPRESSIBLE) else size


def _search_once(page: Any, q: str, mode: str, log: _Log, site: Path) -> dict[str, Any]:
    mark = log.mark()
    if mode == "ui":
        run = page.evaluate(_UI_SEARCH_JS, [q, list(SEARCH_INPUTS), list(SEARCH_RESULTS), 8000])
    else:
        run = page.evaluate(_API_SEARCH_JS, [q, 8000])
    log.settle(0.3)  # the requests the result triggered (counted with this query)
    run["bytes"] = search_bytes(site, log.since(mark))
    return dict(run)


def _median_pair(pairs: list[tuple[int, int]]) -> tuple[int, int]:
    return int(statistics.median(p[0] for p in pairs)), int(statistics.median(p[1] for p in pairs))


# ---------------------------------------------------------------------------------------------
# rebuild with mkdocs serve


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return str(response.read().decode("utf-8"))
    except OSError:
        return ""


def measure_rebuild(row: Row, env: dict[str, str], dirty: bool) -> float:
    """Median seconds from saving an edited answer line until `mkdocs serve` serves the page with it."""
    c = row.corpus
    bank_id, slug, line_no = _editable_line(c)
    bank = c.banks / f"{bank_id}.txt"
    port = _free_port()
    # --no-strict: a synthetic corpus leaves some glossary terms unused, a warning that strict mode
    # turns into an abort (run_build's builds are not strict either)
    cmd = [sys.executable, "-c", MKDOCS_CLI, "serve", "--no-strict", "-a", f"127.0.0.1:{port}", "-f", "mkdocs.yml"]
    if dirty:
        cmd.append("--dirty")
    log_path = c.work / f"serve{'-dirty' if dirty else ''}.log"
    with open(log_path, "wb") as log:
        server = subprocess.Popen(
            cmd, cwd=c.work, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        url = f"http://127.0.0.1:{port}/{bank_id}/{slug}/"
        times = []
        try:
            deadline = time.monotonic() + 600
            while "qa-answer" not in _get(url):
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit(f"bench: mkdocs serve did not come up; see {log_path}")
                time.sleep(0.5)
            # The page is served once the first build is over, and the bank watcher watches from the
            # build's on_config on (studysite/site/bank_watch.py): a save from now on is seen.
            for n in range(REBUILD_RUNS if dirty else 1):  # a plain serve rebuild renders everything: once
                marker = f"BENCHEDIT{n}{'D' if dirty else 'F'}Z"
                lines = bank.read_text(encoding="utf-8").split("\n")
                text = re.sub(r"BENCHEDIT\d+[DF]Z", "", lines[line_no])
                cut = len(text) - 1 if text.endswith(("。", ".", "：", ":")) else len(text)
                lines[line_no] = text[:cut] + marker + text[cut:]
                t = time.perf_counter()
                bank.write_text("\n".join(lines), encoding="utf-8")  # saved in place, as most editors do
                while marker not in _get(url):
                    if time.perf_counter() - t > 300:
                        raise SystemExit(f"bench: edit not served within 300 s; see {log_path}")
                    time.sleep(0.05)
                times.append(time.perf_counter() - t)
                # The next save comes after this one has settled: with --dirty the site-wide steps
                # finish in the background after the page is served (the plugin logs when).
                settle = time.monotonic() + 180
                while dirty and log_path.read_text(errors="replace").count(FINISHED) < n + 1:
                    if time.monotonic() > settle:
                        break
                    time.sleep(0.2)
        finally:
            # Ctrl-C, as a reader stops `make serve`: MkDocs then deletes the site it served from a
            # temporary folder (after a SIGTERM, 118 MB at 500 questions stayed in /tmp each run)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGINT)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
        return statistics.median(times)


def _editable_line(c: Corpus) -> tuple[str, str, int]:
    """A question's first answer line: (bank id, slug, 0-based line index in the bank file)."""
    lock = (c.banks / "slugs.lock").read_text(encoding="utf-8")
    first_bank = sorted(p for p in c.banks.glob("*.txt") if ".en." not in p.name)[0]
    bank_id = first_bank.name[:-4]
    lines = first_bank.read_text(encoding="utf-8").split("\n")
    questions = [i for i, line in enumerate(lines) if line.startswith("Q:")]
    qi = questions[len(questions) // 2]
    question = lines[qi][2:].strip()
    # slugs.lock rows: bank/slug, state, question, answer fingerprint (tab-separated)
    slug = next(
        fields[0].split("/", 1)[1]
        for fields in (line.split("\t") for line in lock.split("\n"))
        if len(fields) >= 3 and fields[0].startswith(f"{bank_id}/") and fields[2] == question
    )
    return bank_id, slug, qi + 1


# ---------------------------------------------------------------------------------------------
# Lighthouse (the quality checks run it in tests; here: four pages at the smallest size)


# ---------------------------------------------------------------------------------------------
# the daily review in chromium (issue 14)

REVIEWED_CARDS = 1000
"""Cards with reviews in the store the review is measured with (a reader some months in)."""
REVIEWS_PER_CARD = 4
REVIEW_RUNS = 5
"""Page opens (each in a fresh context) and grades timed; medians reported."""


def measure_review(site: Path, browser: Any) -> dict[str, float]:
    """The review page of `site` opened with REVIEWED_CARDS reviewed cards stored (half of them due):
    ms from navigation start to the page's counts, from `load` to them, from Start to the first
    question shown; ms to grade one card (grade + its new schedule, the write included); stored
    bytes per reviewed card (UTF-8 of the document in localStorage)."""
    data = json.loads((site / "assets/qa/questions.json").read_text(encoding="utf-8"))
    slugs = [q["slug"] for q in data["questions"]][:REVIEWED_CARDS]
    now_ms = int(time.time() * 1000)
    day = 86_400_000
    cards = {}
    for k, slug in enumerate(slugs):
        # four Good reviews, spaced so that every other card is due now and the rest in weeks
        first = now_ms - (200 if k % 2 else 40) * day
        log = [{"t": first + i * (day if k % 2 else 3 * day), "g": 3} for i in range(REVIEWS_PER_CARD)]
        cards[slug] = {"log": log, "hash": data["questions"][k]["hash"]}
    doc = json.dumps({"format": "qa-study-progress", "version": 2, "site": "/", "cards": cards})
    seed = f"if (location.protocol === 'http:') localStorage.setItem('qa-study@/:study', {json.dumps(doc)});"
    opened, after_load, first_q, grades = [], [], [], []
    stored_bytes = 0
    with logging_server(site) as (url, _log):
        for _ in range(REVIEW_RUNS):
            context = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers="block")
            context.add_init_script(seed)
            page = context.new_page()
            page.goto(url + "study/review/", wait_until="load")
            page.wait_for_function("document.querySelector('.qa-review__counts')?.textContent")
            ready = page.evaluate("performance.now()")
            load_end = page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
            opened.append(ready)
            after_load.append(max(0.0, ready - load_end))
            page.evaluate(
                "() => { window.__t = performance.now(); document.querySelector('.qa-review__start').click(); }"
            )
            page.wait_for_selector(".qa-review__question")
            first_q.append(page.evaluate("performance.now() - window.__t"))
            grades.append(
                page.evaluate(
                    """(slugs) => { const S = QAStudy.store, times = [];
                    for (const slug of slugs) { const t = performance.now(); S.grade(slug, 3); S.card(slug);
                      times.push(performance.now() - t); }
                    times.sort((a, b) => a - b); return times[times.length >> 1]; }""",
                    slugs[:: max(1, len(slugs) // 20)][:20],
                )
            )
            stored_bytes = page.evaluate("new TextEncoder().encode(localStorage.getItem('qa-study@/:study')).length")
            context.close()
    return {
        "open_ms": statistics.median(opened),
        "after_load_ms": statistics.median(after_load),
        "first_question_ms": statistics.median(first_q),
        "grade_ms": statistics.median(grades),
        "bytes_per_card": stored_bytes / len(slugs),
        "cards": len(slugs),
    }


LIGHTHOUSE_RUNS = 3
LIGHTHOUSE_TARGET = 97
"""Mobile performance score each page's median must reach (issue 18)."""
LIGHTHOUSE_PAGES = ("home", "bank", "question", "tags")


def run_lighthouse(row: Row) -> None:
    """LIGHTHOUSE HOOK: the four category scores of the home, bank, question and tags pages in both
    languages, LIGHTHOUSE_RUNS runs each, one at a time, served as GitHub Pages serves the site
    (gzip, under /REPO/), in one chromium (scripts/lighthouse_runs.mjs), with Lighthouse's waits for
    a page to go quiet at 250 ms instead of 1,000 (tests/qualitykit.py LIGHTHOUSE_QUIET_MS: the same
    requests recorded and the same scores, ~1.5 s less a run); the runs go round the pages, so that a
    burst of load hits one run of each."""
    if not LIGHTHOUSE.exists():
        return
    c = row.corpus
    bank, slug = question_pages(c)[0]
    paths = {"home": "", "bank": f"{bank}/", "question": f"{bank}/{slug}/", "tags": "tags/"}
    started, load_before = time.perf_counter(), os.getloadavg()[0]
    scores: dict[str, list[dict[str, int]]] = {}
    with serve_pages(c.work / "site", compress=True) as base, tempfile.TemporaryDirectory() as out:
        runs = {
            f"{lang}-{kind}-{i}": (f"{lang} {kind}", base + prefix + paths[kind])
            for i in range(LIGHTHOUSE_RUNS)
            for lang, prefix in (("zh", ""), ("en", "en/"))
            for kind in LIGHTHOUSE_PAGES
        }
        proc = lighthouse(Path(out), {name: url for name, (_, url) in runs.items()})
        for name, (key, url) in runs.items():
            report_file = Path(out) / f"lighthouse-{name}.json"
            if not report_file.exists():
                print(f"bench: lighthouse failed on {url}: {proc.stdout[-500:]}{proc.stderr[-500:]}", file=sys.stderr)
                continue
            report = json.loads(report_file.read_text(encoding="utf-8"))
            row.lighthouse_slowdown.append(report["studysiteCalibration"]["cpuSlowdownMultiplier"])
            observed = report["audits"]["metrics"]["details"]["items"][0]
            row.lighthouse_frames.setdefault(key, []).append((observed["observedLoad"], observed["observedFirstPaint"]))
            scores.setdefault(key, []).append(
                {k: round((v.get("score") or 0) * 100) for k, v in report["categories"].items()}
            )
    for name, runs in scores.items():
        row.lighthouse[name] = {k: round(statistics.median(r[k] for r in runs)) for k in runs[0]}
        row.lighthouse_runs[name] = [r["performance"] for r in runs]
    row.lighthouse_cost = (time.perf_counter() - started, load_before, os.getloadavg()[0])


# ---------------------------------------------------------------------------------------------
# the report


def _kb(n: float) -> str:
    return f"{n / 1000:.1f}"


def _pair(p: tuple[int, int]) -> str:
    return f"{_kb(p[1])} ({_kb(p[0])})"


def table(rows: list[Row]) -> list[str]:
    head = "| | " + " | ".join(f"{r.corpus.label} {r.corpus.questions:,}" for r in rows) + " |"
    lines = [head, "|---|" + "---:|" * len(rows)]

    def add(name: str, fn: Callable[[Row], str]) -> None:
        cells = []
        for r in rows:
            try:
                cells.append(fn(r))
            except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError):
                cells.append("–")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")

    add("questions", lambda r: f"{r.corpus.questions:,}")
    add("banks", lambda r: str(len([p for p in r.corpus.banks.glob("*.txt") if ".en." not in p.name])))
    add("HTML pages (every language)", lambda r: f"{r.pages:,}")
    add("generator s, cold: into an empty docs/", lambda r: f"{r.gen:.2f}")
    add(
        "generator s, warm: nothing changed, as `make serve` runs it (the same process, its docs/ there)",
        lambda r: f"{r.gen_warm:.2f}",
    )
    add(
        "generator s, warm: nothing changed, as `make pages` runs it (a new process)",
        lambda r: f"{r.gen_warm_site:.2f}",
    )
    add(
        "generator s, after one edited answer, as `make serve` runs it (the same process, the previous docs/ there)",
        lambda r: f"{r.gen_edit:.2f}",
    )
    add(
        "generator s, after one edited answer, as `make pages` runs it (a new process)",
        lambda r: f"{r.gen_edit_site:.2f}",
    )
    add(
        "· the same until its record for the next generation is written (after the command returned)",
        lambda r: f"{r.gen_edit_recorded:.2f}",
    )
    add(
        "· CPU s: cold / nothing changed: `make serve` / `make pages` / after an edit: `make serve` / `make pages`",
        lambda r: (
            " / ".join(f"{r.gen_cpu[k]:.2f}" for k in ("cold", "warm", "warm_site", "edit", "edit_site"))
            if r.gen_cpu
            else "–"
        ),
    )
    add(
        "· after an edit (`make serve`), by phase: " + " / ".join(studybuild.PHASES) + " s",
        lambda r: " / ".join(f"{r.gen_edit_phases.get(k, 0.0):.2f}" for k in studybuild.PHASES),
    )
    add("· cold, in one process (no forked side jobs) s", lambda r: f"{r.gen_serial:.2f}")
    add("· I/O floor: just creating the same files s", lambda r: f"{r.io_floor:.2f}")
    add(
        "· warm phases: parse / enrich / render+write s",
        lambda r: " / ".join(f"{r.gen_phases[k]:.2f}" for k in ("parse", "enrich", "render+write")),
    )
    add(
        "· rendering one language alone / beside the other language s",
        lambda r: (
            f"{r.gen_phases['render one language alone']:.2f} / "
            f"{r.gen_phases['the same beside the other language']:.2f}"
        ),
    )
    add("full site build s", lambda r: f"{r.full:.1f}")
    add("floor: same build, generation skipped s", lambda r: f"{r.floor:.1f}")
    add("ratio full / floor (median of the runs' ratios)", lambda r: f"{r.ratio:.3f}")
    add("· Pagefind alone s (in both)", lambda r: f"{r.pagefind:.1f}")
    add(
        "· ours, full build only: site check / Anki+CSV s",
        lambda r: f"{r.post_build['check']:.1f} / {r.post_build['downloads']:.1f}",
    )
    add("build runs (each)", lambda r: str(len(r.full_runs)))
    add(
        "first full build (decks made; not in the median) s",
        lambda r: f"{r.full_first:.1f}",
    )
    add("peak memory MB (full / floor)", lambda r: f"{r.peak_mb:.0f} / {r.floor_peak_mb:.0f}")
    add("question page HTML KB: median", lambda r: _kb(r.page_median))
    add("question page HTML KB: largest (gzip)", lambda r: f"{_kb(r.page_max)} ({_kb(r.page_max_gz)})")
    add("· its sidebar nav KB (links)", lambda r: f"{_kb(r.nav[0])} ({r.nav[1]})")
    add("first question of the first bank KB zh / en", lambda r: f"{_kb(r.same_page['zh'])} / {_kb(r.same_page['en'])}")
    add("site on disk MB", lambda r: f"{r.site_mb:.1f}")
    for lang in ("zh", "en"):
        add(f"search {lang}: mode", lambda r, lang=lang: r.search[lang]["mode"])
        add(f"search {lang}: KB on page load gzip (raw)", lambda r, lang=lang: _pair(r.search[lang]["load"]))
        add(
            f"offline {lang}: first visit beyond the page (target 0) / second page, once per deploy, KB gzip (raw)",
            lambda r, lang=lang: (
                _pair(r.search[lang]["offline"]["first_visit"])
                + " / "
                + _pair(r.search[lang]["offline"]["second_page"])
            ),
        )
        add(
            f"offline {lang}: reader-chosen download KB gzip: this language / whole site",
            lambda r, lang=lang: (
                f"{_kb(r.search[lang]['offline']['download_lang'])} / {_kb(r.search[lang]['offline']['download_site'])}"
            ),
        )
        add(
            f"search {lang}: KB before first result gzip (raw)",
            lambda r, lang=lang: _pair(r.search[lang]["first_bytes"]),
        )
        add(
            f"search {lang}: KB per later query gzip (raw), median / max",
            lambda r, lang=lang: (
                _pair(r.search[lang]["later_bytes"]) + " / " + _pair(r.search[lang]["later_bytes_max"])
            ),
        )
        add(f"search {lang}: first result ms", lambda r, lang=lang: f"{r.search[lang]['first_ms']:.0f}")
        add(
            f"search {lang}: later results ms, median / max",
            lambda r, lang=lang: f"{r.search[lang]['later_ms']:.0f} / {r.search[lang]['later_ms_max']:.0f}",
        )
    add("rebuild after one edit s: `make serve` (`mkdocs serve --dirty`)", lambda r: f"{r.rebuild['dirty']:.1f}")
    add("rebuild after one edit s: plain `mkdocs serve` (renders every page)", lambda r: f"{r.rebuild['serve']:.1f}")
    for page in (f"{lang} {kind}" for lang in ("zh", "en") for kind in LIGHTHOUSE_PAGES):
        add(
            f"Lighthouse mobile {page}: perf/a11y/best/SEO, medians (perf of each run)",
            lambda r, page=page: (
                "/".join(str(r.lighthouse[page][k]) for k in ("performance", "accessibility", "best-practices", "seo"))
                + f" ({', '.join(map(str, r.lighthouse_runs[page]))})"
            ),
        )
    _review_rows(add)
    return lines


def _review_rows(add: Callable[[str, Callable[[Row], str]], None]) -> None:
    add(
        f"review page ms: navigation to ready / after load / Start to first question ({REVIEWED_CARDS:,} cards reviewed)",
        lambda r: f"{r.review['open_ms']:.0f} / {r.review['after_load_ms']:.0f} / {r.review['first_question_ms']:.0f}",
    )
    add(
        "review: grade one card ms / stored bytes per reviewed card",
        lambda r: f"{r.review['grade_ms']:.1f} / {r.review['bytes_per_card']:.0f}",
    )


def targets(rows: list[Row]) -> list[tuple[bool | None, str]]:
    """(passed, description); passed None = not measured."""
    syn = {r.corpus.questions: r for r in rows if r.corpus.label == "syn"}
    out: list[tuple[bool | None, str]] = []

    def check(cond: Callable[[], bool], text: Callable[[], str], what: str) -> None:
        try:
            out.append((cond(), f"{what}: {text()}"))
        except (KeyError, ZeroDivisionError, TypeError, AttributeError, ValueError):
            out.append((None, f"{what}: not measured"))

    big, mid, small = syn.get(5000), syn.get(500), syn.get(14)
    for what, seconds, cpu in (
        ("cold: empty docs/", "gen", "cold"),
        ("warm: nothing changed, as `make serve` runs it (the same process)", "gen_warm", "warm"),
        ("warm: nothing changed, as `make pages` runs it (a new process)", "gen_warm_site", "warm_site"),
        ("after one edited answer, as `make serve` runs it (the same process)", "gen_edit", "edit"),
        ("after one edited answer, as `make pages` runs it (a new process)", "gen_edit_site", "edit_site"),
    ):
        check(
            lambda s=seconds: 0 < getattr(big, s) < 2.0,
            lambda s=seconds, c=cpu: (
                f"{getattr(big, s):.2f} s (CPU {big.gen_cpu[c]:.2f} s)"  # type: ignore[union-attr]
                + (_edit_phases(big) if s == "gen_edit" else "")  # type: ignore[arg-type]
                + (
                    f"; its record for the next generation written by {big.gen_edit_recorded:.2f} s"  # type: ignore[union-attr]
                    if s == "gen_edit_site"
                    else ""
                )
            ),
            f"generator < 2 s at 5,000 questions, {what}",
        )
    check(
        lambda: all(
            b / 5000 <= 1.5 * m / 500
            for b, m in ((big.gen, mid.gen), (big.gen_warm, mid.gen_warm), (big.gen_warm_site, mid.gen_warm_site))  # type: ignore[union-attr]
        ),
        lambda: (
            f"cold {big.gen / 5:.2f} vs {mid.gen / 0.5:.2f} ms/question at 5,000 vs 500, "  # type: ignore[union-attr]
            f"nothing changed: `make serve` {big.gen_warm / 5:.2f} vs {mid.gen_warm / 0.5:.2f}, "  # type: ignore[union-attr]
            f"`make pages` {big.gen_warm_site / 5:.2f} vs {mid.gen_warm_site / 0.5:.2f} (linear: at most 1.5x)"  # type: ignore[union-attr]
        ),
        "generator grows linearly",
    )
    for r in rows:
        check(
            lambda r=r: r.ratio <= 1.10,
            lambda r=r: (
                f"median ratio {r.ratio:.3f}x of {len(r.full_runs)} alternating runs: full "
                f"{', '.join(f'{x:.1f}' for x in r.full_runs)} s, floor "
                f"{', '.join(f'{x:.1f}' for x in r.floor_runs)} s"
                + (f"; the full builds made {r.decks_remade} Anki/CSV files again" if r.decks_remade else "")
            ),
            f"full build <= 1.10 x floor ({r.corpus.label} {r.corpus.questions:,})",
        )
    check(lambda: big.page_max <= 60_000, lambda: f"{_kb(big.page_max)} KB", "largest question page <= 60 KB at 5,000")  # type: ignore[union-attr]
    check(
        lambda: big.page_max <= 1.10 * small.page_max,  # type: ignore[union-attr]
        lambda: (
            f"{_kb(big.page_max)} KB vs {_kb(small.page_max)} KB at 14 "  # type: ignore[union-attr]
            f"(+{(big.page_max / small.page_max - 1) * 100:.1f} %)"
        ),  # type: ignore[union-attr]
        "largest question page <= 10 % above its size at 14",
    )
    for lang in ("zh", "en"):
        s = (big.search or {}).get(lang) if big else None
        check(
            lambda s=s: s["load"][1] == 0,
            lambda s=s: f"{_kb(s['load'][1])} KB",
            f"search {lang}: no bytes on page load",
        )  # type: ignore[index]
        check(
            lambda s=s: s["first_bytes"][1] <= 300_000,  # type: ignore[index]
            lambda s=s: f"{_kb(s['first_bytes'][1])} KB gzip",  # type: ignore[index]
            f"search {lang}: <= 300 KB before the first result",
        )
        check(
            lambda s=s: s["first_ms"] <= 1000,
            lambda s=s: f"{s['first_ms']:.0f} ms",
            f"search {lang}: first result <= 1 s",
        )  # type: ignore[index]
        check(
            lambda s=s: s["later_ms"] <= 150,  # type: ignore[index]
            lambda s=s: f"median {s['later_ms']:.0f} ms, max {s['later_ms_max']:.0f} ms",  # type: ignore[index]
            f"search {lang}: later results <= 150 ms",
        )
    for r in [r for r in rows if r.search] or rows[:1]:  # the corpora whose search was measured
        for lang in ("zh", "en"):
            o = (r.search or {}).get(lang, {}).get("offline")
            check(
                lambda o=o: o["first_visit"][0] == 0,  # type: ignore[index]
                lambda o=o: f"{o['first_visit'][0]} bytes",  # type: ignore[index]
                f"offline {lang}: a first visit costs nothing beyond the page ({r.corpus.label} {r.corpus.questions:,})",
            )
    check(
        lambda: mid.rebuild["dirty"] <= 3.0,  # type: ignore[union-attr]
        lambda: f"{mid.rebuild['dirty']:.1f} s (plain `mkdocs serve`: {mid.rebuild.get('serve', float('nan')):.1f} s)",  # type: ignore[union-attr]
        "rebuild after one edit <= 3 s at 500, as `make serve` runs it (`mkdocs serve --dirty`)",
    )
    check(
        lambda: big.review["after_load_ms"] + big.review["first_question_ms"] <= 1000,  # type: ignore[union-attr]
        lambda: f"{big.review['after_load_ms'] + big.review['first_question_ms']:.0f} ms",  # type: ignore[union-attr]
        "review page of 5,000 questions: ready and at its first question <= 1 s after load",
    )
    check(
        lambda: big.review["grade_ms"] <= 50,  # type: ignore[union-attr]
        lambda: f"{big.review['grade_ms']:.1f} ms",  # type: ignore[union-attr]
        "grading one card <= 50 ms at 5,000 questions",
    )
    seed = next((r for r in rows if r.corpus.label == "seed" and r.lighthouse), None)
    for page in (f"{lang} {kind}" for lang in ("zh", "en") for kind in LIGHTHOUSE_PAGES):
        check(
            lambda page=page: seed.lighthouse[page]["performance"] >= LIGHTHOUSE_TARGET,  # type: ignore[union-attr]
            lambda page=page: (
                f"{seed.lighthouse[page]['performance']} (runs {', '.join(map(str, seed.lighthouse_runs[page]))}; "  # type: ignore[union-attr]
                f"load average {seed.lighthouse_cost[1]:.1f} before, {seed.lighthouse_cost[2]:.1f} after; "  # type: ignore[union-attr]
                f"CPU slowdown {min(seed.lighthouse_slowdown):.1f}-{max(seed.lighthouse_slowdown):.1f}x; "  # type: ignore[union-attr]
                + _first_frames(seed, page)  # type: ignore[arg-type]
                + ")"
            ),
            f"Lighthouse mobile performance >= {LIGHTHOUSE_TARGET}, median of {LIGHTHOUSE_RUNS}, {page}",
        )
    check(
        lambda: WHOLE_RUN["minutes"] <= BENCH_MINUTES,
        lambda: f"{WHOLE_RUN['minutes']:.1f} min (1-minute load average {WHOLE_RUN['load']:.1f} at its start)",
        f"`make bench` takes <= {BENCH_MINUTES:.0f} min",
    )
    return out


def plot(rows: list[Row]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    syn = sorted((r for r in rows if r.corpus.label == "syn" and r.full), key=lambda r: r.corpus.questions)
    if len(syn) < 2:
        return
    x = [r.corpus.questions for r in syn]
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4), dpi=110)
    a.plot(x, [r.full for r in syn], "o-", label="full site build")
    a.plot(x, [r.floor for r in syn], "s--", label="floor (MkDocs + Pagefind, no generation)")
    a.plot(x, [r.gen for r in syn], "^-", label="generator, cold")
    a.plot(x, [r.gen_warm_site for r in syn], "v:", label="generator, nothing changed (new process)")
    a.set_xscale("log")
    a.set_yscale("log")
    a.set_xlabel("questions")
    a.set_ylabel("seconds")
    a.set_title("Build time")
    a.grid(True, which="both", alpha=0.3)
    a.legend(fontsize=8)
    b.plot(x, [r.page_max / 1000 for r in syn], "o-", label="largest question page")
    b.plot(x, [r.page_median / 1000 for r in syn], "s--", label="median question page")
    b.axhline(60, color="grey", lw=0.8, ls=":", label="target 60 KB")
    b.set_xscale("log")
    b.set_ylim(0, max(70, max(r.page_max for r in syn) / 1000 * 1.15))
    b.set_xlabel("questions")
    b.set_ylabel("KB (HTML, uncompressed)")
    b.set_title("Question page size")
    b.grid(True, which="both", alpha=0.3)
    b.legend(fontsize=8)
    for axis in (a, b):
        axis.set_xticks(x, [f"{q:,}" for q in x])
        axis.minorticks_off()
    fig.tight_layout()
    PLOT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(PLOT)
    plt.close(fig)


def machine() -> str:
    cpu = ""
    with contextlib.suppress(OSError):
        cpu = next(
            (
                line.split(":", 1)[1].strip()
                for line in Path("/proc/cpuinfo").read_text().split("\n")
                if line.startswith("model name")
            ),
            "",
        )
    from importlib.metadata import version

    return (
        f"{os.cpu_count()} cores ({cpu or platform.machine()}), Python {platform.python_version()}, "
        f"mkdocs {version('mkdocs')}, mkdocs-material {version('mkdocs-material')}, "
        f"load average at start {os.getloadavg()[0]:.1f}"
    )


def target_lines(rows: list[Row]) -> list[str]:
    mark = {True: "PASS", False: "FAIL", None: "n/a"}
    return [f"- **{mark[ok]}** {desc}" for ok, desc in targets(rows)]


def _first_frames(row: Row, page: str) -> str:
    """When each run's first frame came, after its load event (as Lighthouse observed them)."""
    runs = row.lighthouse_frames.get(page, [])
    return "first frame " + ", ".join(f"{paint:.0f} ms (load {load:.0f})" for load, paint in runs)


def _edit_phases(row: Row) -> str:
    """Where an edit's generation spends its time: the gap to the target, phase by phase."""
    if not row.gen_edit_phases:
        return ""
    return "; by phase: " + ", ".join(f"{k} {row.gen_edit_phases[k]:.2f}" for k in studybuild.PHASES)


def report(rows: list[Row], notes: list[str], load_at_start: str) -> str:
    text = ["## Results", "", *table(rows), "", "## Targets (issue 8)", "", *target_lines(rows)]
    text += ["", "## Every page bounded (issue 18): the largest page of each kind", "", *page_kind_lines(rows)]
    text += ["", "## What the numbers come from (measured in this run)", ""]
    text += [f"- {n}" for n in explain(rows)]
    text += ["", "## How it was measured", "", *[f"- {n}" for n in notes], f"- Machine: {load_at_start}.", ""]
    return "\n".join(text)


def explain(rows: list[Row]) -> list[str]:
    """Measured reasons behind the numbers, computed from this run (no hand-written results)."""
    out = []
    syn = {r.corpus.questions: r for r in rows if r.corpus.label == "syn" and r.full}
    big = syn.get(max(syn)) if syn else None
    if big is not None:
        n = big.corpus.questions
        out.append(
            f"Generator at {n:,}: cold {big.gen:.2f} s, of which creating its {big.gen_files:,} Markdown "
            f"files alone (no logic) takes {big.io_floor:.2f} s here; with nothing changed (docs/ already "
            f"holds the same output) {big.gen_warm:.2f} s in `make serve`'s process, which holds the last "
            f"result, and {big.gen_warm_site:.2f} s as `make pages` runs it, a new process that starts the "
            "interpreter, reads the last generation's record and unpickles its result; both compare every "
            "bank file and every file of docs/ with the record. Warm phases: "
            + ", ".join(f"{k} {big.gen_phases[k]:.2f} s" for k in ("parse", "enrich", "render+write"))
            + f". In one process (no forked side jobs) the cold run takes {big.gen_serial:.2f} s: the two "
            f"processes save {big.gen_serial - big.gen:.2f} s, not half, because each runs slower beside "
            f"the other: rendering one language took {big.gen_phases['render one language alone']:.2f} s "
            f"alone and {big.gen_phases['the same beside the other language']:.2f} s while a second process "
            "rendered the other language."
        )
        if big.gen_edit_phases:
            out.append(
                f"Generator after one edited answer at {n:,}, as `make serve` runs it: {big.gen_edit:.2f} s"
                f"{_edit_phases(big)} s; as `make pages` runs it, in a new process: {big.gen_edit_site:.2f} s "
                f"until the command returned, {big.gen_edit_recorded:.2f} s until a child it leaves behind had "
                "written the record for the next generation (which waits for it under the docs lock). "
                "Each phase still visits every question: reading hashes every bank file and parses the "
                "edited one; the model finds every question's tags and terms in the cache and computes the "
                "related questions of all again (an answer's words weigh in the others' related questions); "
                "the pages stage computes every question's page key in each language, renders what changed "
                "and leaves (or links) every file whose key and state are as the last generation left them; "
                "the record pickles the whole result for the next run and reads docs/'s state. A new process "
                "also starts the interpreter, reads the cache's shards and unpickles what it uses, numbers "
                "every question's terms and searches every answer for inline links again (a process that "
                "generated before keeps those). The next step is incremental: work in proportion to what the "
                "edit changed."
            )
        ours = big.full - big.floor
        out.append(
            f"Full build minus floor at {n:,}: {ours:.1f} s. In the full build only: our generation "
            f"(~{big.gen_warm:.1f}-{big.gen:.1f} s), then "
            + (
                f"the Anki/CSV downloads ({big.post_build['downloads']:.1f} s alone), written by a forked "
                "process while the English build finishes, and the built-site check "
                f"({big.post_build['check']:.1f} s alone), run while Pagefind ({big.pagefind:.1f} s alone, "
                "in both builds) indexes the site; both add only what does not fit beside the other work. "
                if big.post_build
                else ""
            )
            + f"In both: MkDocs renders {big.pages:,} pages, each language in a process of its own side by "
            "side, then the sitemap, Pagefind with the offline zip's first part compressed beside it by a "
            "forked process, and the offline files (service worker manifest, the rest of the zip). The runs "
            "are single and the machine shared: compare the ratio across sizes, not one run."
        )
        navs = ", ".join(
            f"{r.corpus.questions:,}: {_kb(r.nav[0])} KB / {r.nav[1]} links"
            for r in sorted(syn.values(), key=lambda r: r.corpus.questions)
        )
        out.append(
            "Question-page size: the HTML sidebar holds only the site-wide pages (home, tags, glossary, mock "
            "interview), the same at every size; the bank's questions come from the bank's nav.js, fetched "
            f"once per bank and cached. Largest page's sidebar by size: {navs}."
        )
        for lang in ("zh", "en"):
            srch = big.search.get(lang)
            if srch and srch.get("offline"):
                off = srch["offline"]
                out.append(
                    f"Search ({lang}): {_kb(srch['load'][1])} KB gzip of search files on a page load (the page's "
                    "own requests, service worker blocked). Offline reading (issue 18.3): a first visit costs "
                    f"{off['first_visit'][1]} bytes gzip beyond the page (nothing is registered yet); the second "
                    f"page registers the worker, which fetches itself and the manifest ({_kb(off['second_page'][1])} KB "
                    "gzip, once per deploy) and keeps both pages from the HTTP cache. Nothing else downloads "
                    f"unless the reader asks: this language {_kb(off['download_lang'])} KB gzip, the whole site "
                    f"{_kb(off['download_site'])} KB gzip."
                )
    mid = syn.get(500)
    if mid is not None and mid.rebuild:
        out.append(
            "Rebuild under `mkdocs serve` at 500: "
            + ", ".join(f"{k} {v:.1f} s" for k, v in mid.rebuild.items())
            + ". `make serve` runs `mkdocs serve --dirty`: the generator rewrites only the pages whose "
            "Markdown changed, MkDocs renders only those, and the site-wide steps (check, downloads, Pagefind, "
            "offline files) finish in the background after the page is served. Plain `mkdocs serve` renders "
            "every page of every language on each change."
        )
    seed = next((r for r in rows if r.corpus.label == "seed" and r.lighthouse_frames), None)
    if seed is not None:
        early, late = [], []  # performance of the runs whose first frame came right after the load, and the others
        late_at = set()
        for page, frames in seed.lighthouse_frames.items():
            for (load, paint), score in zip(frames, seed.lighthouse_runs[page], strict=False):
                held = paint - load >= LATE_FRAME_MS
                (late if held else early).append(score)
                if held:
                    late_at.add(round(paint / 1000, 1))
        out.append(
            f"Lighthouse's first frame: in {len(late)} of {len(early) + len(late)} runs it came "
            f"{LATE_FRAME_MS} ms or more after the load event"
            + (f" (at {', '.join(f'{t:.1f}' for t in sorted(late_at))} s after the start)" if late_at else "")
            + "; "
            + (f"those scored {min(late)}-{max(late)} (median {statistics.median(late)}), " if late else "")
            + (f"the others {min(early)}-{max(early)} (median {statistics.median(early)}). " if early else "")
            + "The Speed Index follows the first frame (see How it was measured)."
        )
    return out


LATE_FRAME_MS = 500
"""A Lighthouse run whose first frame comes this long after the load event was held (`explain`)."""


def update_readme(table_lines: list[str]) -> None:
    text = README.read_text(encoding="utf-8")
    if README_START not in text or README_END not in text:
        return
    start = text.index(README_START) + len(README_START)
    end = text.index(README_END)
    README.write_text(text[:start] + "\n\n" + "\n".join(table_lines) + "\n\n" + text[end:], encoding="utf-8")


# ---------------------------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.py", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        default="500,5000",
        help="synthetic corpus sizes (default 500,5000; the seed bank is the 14-question row)",
    )
    parser.add_argument("--no-seed", action="store_true", help="leave out the seed bank")
    parser.add_argument(
        "--skip", default="", help="comma list of parts to skip: search,review,rebuild,lighthouse,build"
    )
    parser.add_argument("--no-write", action="store_true", help="do not write bench/results.md, plot, README")
    parser.add_argument("--review-only", metavar="SITE", help="only measure the daily review of an already built site")
    parser.add_argument(
        "--work",
        default="auto",
        help="folder for the corpora, docs and sites (default: a tmpfs folder when /dev/shm has room, else bench/out)",
    )
    parser.add_argument(
        "--pages-only",
        action="store_true",
        help="only the largest page of each kind at --sizes (and --one-bank N questions in one bank); writes nothing",
    )
    parser.add_argument(
        "--one-bank", type=int, default=5000, help="with --pages-only: one bank of N questions (0: none)"
    )
    parser.add_argument(
        "--gen-only",
        action="store_true",
        help="only the generator rows (cold, warm, after an edit) at --sizes and their targets; writes nothing",
    )
    parser.add_argument(
        "--build-only",
        action="store_true",
        help="only the full-build and floor rows at --sizes (alternating runs) and their targets; writes nothing",
    )
    parser.add_argument(
        "--scaling-only",
        action="store_true",
        help="only the generator scaling row (1,000 and 100,000 questions in one bank); writes nothing",
    )
    args = parser.parse_args(argv)
    if args.review_only:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            print(json.dumps(measure_review(Path(args.review_only), browser), indent=1))
            browser.close()
        return 0
    use_work_folder(args.work)
    if args.pages_only:
        OUT.mkdir(parents=True, exist_ok=True)
        os.environ["NO_MKDOCS_2_WARNING"] = "1"
        print("\n".join(page_kind_lines(measure_pages([int(s) for s in args.sizes.split(",") if s], args.one_bank))))
        return 0
    if args.scaling_only:
        OUT.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        lines = scaling_lines(measure_scaling())
        lines.append(f"\n`make bench-scale` took {(time.perf_counter() - started) / 60:.1f} min ({machine()}).")
        print("\n".join(lines))
        if not args.no_write:
            SCALING.write_text(
                SCALING_TITLE + "\n\n" + SCALING_ABOUT + "\n\n" + "\n".join(lines) + "\n", encoding="utf-8"
            )
            print(f"bench: wrote {SCALING.relative_to(ROOT)}")
        return 0
    sizes = [int(s) for s in args.sizes.split(",") if s]
    skip = set(filter(None, args.skip.split(",")))
    if args.gen_only or args.build_only:
        skip |= {"search", "review", "rebuild", "lighthouse"}
    os.environ["NO_MKDOCS_2_WARNING"] = "1"
    load_at_start, load_start = machine(), os.getloadavg()[0]
    started = time.perf_counter()
    OUT.mkdir(parents=True, exist_ok=True)
    corpora = ([] if args.no_seed else [("seed", 14)]) + [("syn", n) for n in sizes]
    rows: list[Row] = []
    for label, n in corpora:
        with stage(f"{n} corpus"):
            c = make_corpus(label, n)
        row = Row(c)
        rows.append(row)
        print(f"bench: {label} {c.questions:,} questions", flush=True)
        if not args.build_only:
            with stage(f"{n} generator"):
                g = time_generator(c, GEN_RUNS.get(n, 3))
            row.gen, row.gen_warm, row.gen_edit, row.gen_cpu, row.gen_serial = g.cold, g.warm, g.edit, g.cpu, g.serial
            row.gen_edit_site, row.gen_edit_recorded, row.gen_warm_site = g.edit_site, g.edit_recorded, g.warm_site
            row.gen_phases, row.io_floor, row.gen_files = g.phases, g.io_floor, g.files
            row.gen_edit_phases = g.edit_phases
            print(
                f"  generator cold {row.gen:.3f} s, warm {row.gen_warm:.3f} s (new process {row.gen_warm_site:.3f} s), "
                f"after an edit {row.gen_edit:.3f} s "
                f"(new process {row.gen_edit_site:.3f} s, its record written by {row.gen_edit_recorded:.3f} s) "
                f"(CPU {row.gen_cpu}), one process {row.gen_serial:.3f} s, I/O floor {row.io_floor:.3f} s, "
                f"phases {row.gen_phases}",
                flush=True,
            )
        if "build" in skip or args.gen_only:
            continue
        builds_started = time.perf_counter()
        env = prepare_work(c.banks, c.work)
        runs = BUILD_RUNS.get(n, 1)
        full, floor, peak, floor_peak = [], [], [], []
        # docs/ generated here first, the same generate() the plugin calls: the first full build's
        # generation finds the generator's cache warm. Then floor and full alternate, a full build last,
        # so the site measured below is a full build's.
        studybuild.generate(c.banks, c.work / "docs")
        # A first full build leaves what every later build finds kept: the decks (cache.Files), the
        # pages' conversions (studysite/site/page_cache.py), the site check's converted lines and the
        # plugin's own generation (its options are the configuration's, not this call's): the
        # alternating runs below are builds with nothing changed. Timed and reported apart
        # (`full_first`), not in the median.
        row.full_first = run_build(c, env, skip_generate=False)[0]
        kept = _decks_kept(c)
        for _ in range(runs):
            s, m = run_build(c, env, skip_generate=True)
            floor.append(s)
            floor_peak.append(m)
            s, m = run_build(c, env, skip_generate=False)
            full.append(s)
            peak.append(m)
        row.full_runs, row.floor_runs = full, floor
        row.decks_remade = len(_decks_kept(c) - kept)
        if row.decks_remade:
            print(f"  WARNING: the full builds made {row.decks_remade} Anki/CSV file(s) again", flush=True)
        row.full, row.floor = statistics.median(full), statistics.median(floor)
        row.ratio = statistics.median(a / b for a, b in zip(full, floor, strict=True))
        row.peak_mb, row.floor_peak_mb = max(peak), max(floor_peak)
        STAGES[f"{n} builds"] = time.perf_counter() - builds_started
        print(f"  ({n} builds: {STAGES[f'{n} builds']:.0f} s)", flush=True)
        with stage(f"{n} Pagefind, post-build steps and page sizes"):
            row.pagefind = time_pagefind(c.work / "site")
            row.post_build = time_our_post_build(c)
            site_stats(row)
        print(
            f"  first full {row.full_first:.1f} s, full {row.full:.1f} s (runs {[round(x, 1) for x in full]}), floor {row.floor:.1f} s "
            f"(runs {[round(x, 1) for x in floor]}), pagefind {row.pagefind:.1f} s, peak {row.peak_mb:.0f} MB, "
            f"pages {row.pages}, question page median {row.page_median} max {row.page_max}",
            flush=True,
        )
        if "rebuild" not in skip and label == "syn" and n <= 500:
            for mode, dirty in (("serve", False), ("dirty", True)):
                try:
                    with stage(f"{n} rebuild ({mode})"):
                        row.rebuild[mode] = measure_rebuild(row, env, dirty=dirty)
                except SystemExit as exc:  # report it in the table, keep measuring the rest
                    print(f"  {exc}", flush=True)
                    row.rebuild[mode] = float("nan")
            print(f"  rebuild {row.rebuild}", flush=True)
        if "lighthouse" not in skip and label == "seed":
            with stage("Lighthouse"):
                run_lighthouse(row)
            print(f"  lighthouse {row.lighthouse}", flush=True)
    if "search" not in skip and "build" not in skip:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for row in rows:
                with stage(f"{row.corpus.questions} search"):
                    measure_search(row, browser)
                print(f"  search {row.corpus.label} {row.corpus.questions}: {row.search}", flush=True)
                if "review" not in skip:
                    with stage(f"{row.corpus.questions} review"):
                        row.review = measure_review(row.corpus.work / "site", browser)
                    print(f"  review {row.corpus.label} {row.corpus.questions}: {row.review}", flush=True)
            browser.close()
    elapsed = time.perf_counter() - started
    whole = args.sizes == parser.get_default("sizes") and not args.no_seed and not skip
    if whole:  # the whole benchmark: its time is a target
        WHOLE_RUN.update(minutes=elapsed / 60, load=load_start)
    if args.gen_only or args.build_only:
        print(f"\nbench: {elapsed / 60:.1f} min")
        for passed, text in targets(rows):
            if passed is not None and (("generator" in text) if args.gen_only else ("full build" in text)):
                print(f"- {'PASS' if passed else 'FAIL'} {text}")
        return 0
    lh_cost = next((r.lighthouse_cost for r in rows if r.lighthouse), (0.0, 0.0, 0.0))
    notes = [
        "Generator: `studysite.build.generate()` in-process (parse + enrich + render + write; from "
        f"{studybuild.PARALLEL_FROM} questions on, tagging, inline links and each other language's pages run in forked "
        "processes). Cold: into an "
        "empty folder without the generator's cache (a fresh clone, CI); warm: again into its own output, "
        "with the cache the cold run left, nothing changed (every local rebuild), in the same process (as "
        "`make serve`, which holds the last result) and, after the edits below, in a new process "
        "(scripts/build_pages.py, as `make pages`); after an edit: one answer line changed, "
        "with the output and cache of the generation before, twice: as `make serve` generates (in the same "
        "process, which keeps the cache it saved in memory, after one untimed edit as a server's first; no "
        "forked side jobs, as the server's threads rule them out; docs/ updated in place), then with another "
        "edit as `make site` generates "
        "(scripts/build_pages.py in a new process, interpreter and imports included, the cache and what the "
        "process before put aside read from disk; it exits without the interpreter's teardown, as `make site`'s "
        "generation does not wait for one); "
        f"medians of {GEN_RUNS} runs by size; the phases are the same "
        "functions timed one by one without the cache (into a warm docs/). I/O floor: "
        "writing the same files into an empty folder with nothing else. The full builds below run with the "
        "generator's cache of the build before them, as a local `make site` does (CI has none).",
        "Full build: `mkdocs build` of the bilingual site in a work folder prepared by "
        "`tests/sitekit.prepare_work` (STUDYSITE_BANKS set), i.e. what `make site` runs: our generation of docs/, "
        "one MkDocs build per language, side by side, then the site's finishing steps: the check of the built site "
        "against the banks, the Anki/CSV downloads, Pagefind over every language, the sitemap and the offline "
        "files. Floor: the same command on the same, already generated docs/ with STUDYSITE_SKIP_GENERATE=1: "
        "the plugin then skips the generation and the two steps that need its result (the check and the "
        "downloads); MkDocs (every language, each in a process of its own), Pagefind, the "
        "sitemap and the offline files are in both. "
        "Floor and full runs alternate (docs/ generated in-process first, then one full build, timed apart, that "
        "makes the Anki/CSV files every later full build places from .docs.cache/downloads/ and leaves the "
        "pages' converted Markdown and the site check's converted lines kept: the alternating runs are "
        "rebuilds with nothing changed, and a full build that made any deck again would say so); "
        f"medians of {BUILD_RUNS} runs by size. "
        "The two excluded steps are also timed in-process ('ours, full build only').",
        "Peak memory: ru_maxrss of the build process and its children (Pagefind), from wait4().",
        f"Work folders (corpora, docs/, sites): {OUT} ({'tmpfs' + (', deleted when the run ends' if IN_MEMORY else '') + ', so file creation does not depend on what the disk did before; see work_folder() in scripts/bench.py' if OUT == TMPFS_WORK else 'on disk'}).",
        "Page sizes: every question page's index.html in Chinese and English; 'largest' is the biggest of them. "
        "The synthetic corpora share their first 14 questions, so 'first question of the first bank' is the same "
        "content at every size (its growth is navigation and links).",
        "Search: chromium (Debian, headless) against a local static server that logs every file sent; "
        "gzip = the size GitHub Pages would send (text types gzip-compressed at level 6; Pagefind's index "
        "files are compressed already). 'On page load' counts search requests during load and after it, "
        f"until {QUIET * 1000:.0f} ms pass with no request open (Playwright's networkidle waits as long), with "
        "service workers blocked; "
        "offline reading is measured apart: a first visit's bytes with service workers allowed minus the same "
        "page's with them blocked (each a fresh context, the same window), then the worker's own "
        "requests on the second page; the downloads' sizes are the manifest's gzip sizes of each scope. "
        f"First query: median of {SEARCH_FIRST_RUNS}, each in a fresh browser context (empty cache). "
        "Later queries: each a new term, in the same page. Time = keyup to the first visible result "
        "element (header search UI, mode 'ui') or, when the UI does not show results, Pagefind's own API "
        "(`import('/pagefind/pagefind.js')`, `search()`, first result's `data()`; mode 'api').",
        "Rebuild: `mkdocs serve --dirty` (what `make serve` runs) and plain `mkdocs serve` in the work folder; time from saving the bank file "
        "(written in place) with "
        "one answer line changed until the question page is served with the change "
        f"(polled every 50 ms); median of {REBUILD_RUNS} edits with --dirty, each after the previous one's "
        "background steps finished; one edit with plain serve.",
        f"Lighthouse 12 (mobile, default simulated throttling: a 4x slower CPU, 150 ms RTT, 1.6 Mbit/s) on "
        f"the seed site served as GitHub Pages serves it (gzip level 6 for text, `Cache-Control: max-age=600`, "
        f"under /REPO/: tests/qualitykit.serve_pages): home, bank, question and tags pages in both languages, "
        f"{LIGHTHOUSE_RUNS} runs each, one at a time, going round the pages; medians. Lighthouse's four waits "
        f"for a page to go quiet are {LIGHTHOUSE_QUIET_MS} ms instead of its default 1,000 (idle time; "
        "the same requests recorded and the same medians within a point, tests/qualitykit.py). The runs took "
        f"{lh_cost[0]:.0f} s (1-minute load average {lh_cost[1]:.1f} before, "
        f"{lh_cost[2]:.1f} after: scores drop under load, mostly through total blocking time). "
        "A run's first frame is sometimes held until 1 or 2 s after the start, long after the load event, "
        "and the Speed Index with it. It is Chromium's paint holding (compositor commits deferred after a "
        "navigation until the new page's first contentful paint or a timeout) in Lighthouse's mobile-emulated "
        "tab: with chromium's `--disable-features=PaintHolding` the question page painted before its load "
        "event in 8 runs of 8 (first paint 312-397 ms; scores 90-97, then set by total blocking time, "
        "136-217 ms in the 4 that printed it, and the simulated first contentful paint), against 8 held of 9 with it; without our "
        'render-blocking bundle (`blocking="render"`, which spares a phone a 0.27 layout shift) 0 of 5 '
        "were held, with a 0.27 shift and scores 78-86. Loads in Playwright were never held: from another "
        "page of the site, from about:blank, with mobile emulation and tracing (2026-12-03 and -04).",
        f"`make bench` took {elapsed / 60:.1f} min: "
        + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in STAGES.items())
        + ".",
    ]
    md = report(rows, notes, load_at_start)
    md += f"\n{SCALING_TITLE.lstrip('# ')}: [{SCALING.name}]({SCALING.name}), written by `make bench-scale` apart.\n"
    print()
    print(md)
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(
            "# Benchmark: 14 to 5,000 questions\n\nWritten by `make bench` (scripts/bench.py).\n\n"
            + md
            + "\n![Build time and question-page size against question count](plot.png)\n",
            encoding="utf-8",
        )
        plot(rows)
        update_readme([*table(rows), "", "Targets (issue 8):", "", *target_lines(rows)])
        print(f"bench: wrote {RESULTS.relative_to(ROOT)}, {PLOT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    finally:
        release_memory()
