"""Fuzzing: random and mutated banks never crash the parser or the generator, never hang, never blow up memory.

Every case either builds or fails with BuildError whose problems name a file (and a line where there
is one). Any other exception is a bug; so is a case that runs past its time limit. A property test
checks that for valid banks every answer line lands on exactly one page per language.

Atheris is not used: the parser is pure Python, so coverage-guided byte fuzzing would explore the
same branches hypothesis reaches with structure-aware strategies (bank lines, markers, line
endings, odd characters), while needing a separate long-running harness outside `make test`.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
import tempfile
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from studysite.build import generate
from studysite.errors import BuildError, Problems
from studysite.sources.parse import parse_text
from tests.sitekit import ROOT, SEED, time_limit

SEED_ZH = (SEED / "ai-infra-3.txt").read_text(encoding="utf-8")
SEED_EN = (SEED / "ai-infra-3.en.txt").read_text(encoding="utf-8")
TAXONOMY = (SEED / "taxonomy.yml").read_text(encoding="utf-8")
LOCK = (SEED / "slugs.lock").read_text(encoding="utf-8")
GLOSSARY = (SEED / "glossary.yml").read_text(encoding="utf-8") if (SEED / "glossary.yml").exists() else ""

CASE_SECONDS = 20
"""A single case taking longer than this is a hang (the slowest take ~1 s on a loaded 2-core machine)."""

ODD = [
    "\ufeff",  # BOM in the middle
    "\r\n",
    "\r",
    "\n",
    "\n\n",
    "\x00",
    "\x07",
    "\x1b[31m",
    "\x85",
    "\u2028",
    "\u2029",
    "\u202e",  # right-to-left override
    "\u200f",  # right-to-left mark
    "\u200b",
    "\u3000",
    "\t",
    "：",
    "？",
    "。",
    "，",
    "（）",
    "１．",
    "😀",
    "👨‍👩‍👧",
    "\U0001f1e8\U0001f1f3",
    "Q:",
    "Q：",
    "Q: ",
    "\nQ: 新问题？\n",
    "\n- ",
    "\n1. ",
    "\n9999. ",
    "- ",
    "• ",
    "* ",
    "---",
    "<script>",
    "&amp;",
    "x" * 25_000,  # longer than a bank line may be
    "长" * 19_999,
    "\ud7ff",
    "\U0010ffff",
]
BENIGN = [
    "\ufeff",
    "\u202e",
    "\u200f",
    "\u200b",
    "\u3000",
    "\t",
    "，",
    "😀",
    "👨‍👩‍👧",
    "<b>",
    "&amp;",
]
"""Odd characters a bank may hold and still build."""
LINE_ENDINGS = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def mutated(draw: st.DrawFn, text: str, benign: bool = False) -> str:
    """`text` after a few random edits: inserted odd characters, deleted spans, duplicated and swapped lines.

    `benign` edits (odd characters, other line endings) should leave a bank that still builds.
    """
    ops = ["insert", "endings"] if benign else ["insert", "delete", "dup", "swap", "endings", "join"]
    snippets = st.sampled_from(BENIGN) if benign else st.one_of(st.sampled_from(ODD), st.text(max_size=12))
    for _ in range(draw(st.integers(0, 4 if benign else 6))):
        op = draw(st.sampled_from(ops))
        at = draw(st.integers(0, max(0, len(text))))
        if op == "insert":
            snippet = draw(snippets)
            text = text[:at] + snippet + text[at:]
        elif op == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 200)) :]
        elif op in ("dup", "swap") and text:
            lines = text.split("\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            if op == "dup":
                lines.insert(j, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif op == "endings":
            end = at + draw(st.integers(1, 2000))
            text = text[:at] + text[at:end].replace("\n", draw(LINE_ENDINGS)) + text[end:]
        elif op == "join":
            end = at + draw(st.integers(1, 500))
            text = text[:at] + text[at:end].replace("\n", " ") + text[end:]
    return text


LINE = st.one_of(
    st.sampled_from(ODD),
    st.text(max_size=60),
    st.builds(lambda s: "Q: " + s, st.text(max_size=40)),
    st.builds(lambda s: "- " + s, st.text(max_size=40)),
    st.builds(lambda n, s: f"{n}. {s}", st.integers(0, 10_000), st.text(max_size=40)),
    st.builds(lambda s: s + "：", st.text(max_size=30)),
)
RANDOM_BANK = st.builds(
    lambda lines, ends: "".join(line + end for line, end in zip(lines, ends, strict=False)),
    st.lists(LINE, max_size=40),
    st.lists(LINE_ENDINGS, min_size=40, max_size=40),
)


def check_problems(problems: list, allowed: set[str], max_line: int | None = None) -> None:
    """Each problem names a file the build read and a sensible line."""
    assert problems, "a failed build must say why"
    for p in problems:
        assert p.path in allowed, f"problem blames an unknown file: {p}"
        assert p.line >= 0 and (max_line is None or p.line <= max_line), f"line out of range: {p}"
        assert p.message.strip()
        assert str(p).startswith(f"{p.path}:{p.line}" if p.line else p.path)


# --- the parser ------------------------------------------------------------------------------


@pytest.mark.unit
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(RANDOM_BANK, mutated(SEED_ZH), mutated(SEED_EN)))
@example(text="标题\r\nQ: 问题？\r答案\ufeff。\n- 条目\u202e一\r\n")
@example(text="\ufeff\ufeff\n\n")
@example(text="标题\nQ: 😀？\n" + "长" * 25_000 + "\n")
def test_parser_never_crashes(text: str) -> None:
    problems = Problems()
    with time_limit(CASE_SECONDS):
        bank = parse_text(text, "fuzz.txt", "fuzz", "zh", problems)
    n_lines = len(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    if bank is None:
        check_problems(problems.errors, {"fuzz.txt"}, n_lines)
        return
    assert not problems.errors
    assert bank.title.strip() and 1 <= bank.title_line <= n_lines
    for q in bank.questions:
        assert q.text and q.blocks and bank.title_line < q.line <= n_lines


# --- nothing lost, nothing duplicated (issue 2's property) -----------------------------------

SAFE_TEXT = st.text(
    alphabet=st.characters(
        blacklist_categories=["Cc", "Cs", "Zl", "Zp"],
        blacklist_characters="\ufeff\x85",
    ),
    max_size=30,
)


@st.composite
def valid_bank(draw: st.DrawFn) -> tuple[str, dict[str, list[str]]]:
    """A bank that must build, and for each question (by its text) the visible text of each answer line."""
    counter = iter(range(10_000))
    lines = ["标题 " + draw(SAFE_TEXT)]
    answers: dict[str, list[str]] = {}
    for q in range(draw(st.integers(1, 8))):
        question = f"问题{q} {draw(SAFE_TEXT)}？"
        lines.append("Q: " + question)
        shown = answers.setdefault(re.sub(r"\s+", " ", question).strip(), [])
        for _ in range(draw(st.integers(1, 4))):
            kind = draw(st.sampled_from(["para", "list", "numbered"]))
            text = f"L{next(counter)}x {draw(SAFE_TEXT)}"
            if kind == "para":
                lines.append(text)
                shown.append(text)
                continue
            lines.append(f"引导 L{next(counter)}x：")
            shown.append(lines[-1])
            for n in range(draw(st.integers(1, 3))):
                item = f"L{next(counter)}x {draw(SAFE_TEXT)}。"
                lines.append(("- " if kind == "list" else f"{n + 1}. ") + item)
                shown.append(item)
            lines.append("")
    return "\n".join(lines) + "\n", answers


# --- the whole generator ---------------------------------------------------------------------


@st.composite
def banks_folder(draw: st.DrawFn) -> dict[str, str]:
    """A banks folder: one or two banks (random or mutated seed), maybe a translation, and mutated side files."""

    def sometimes(p: float) -> bool:
        return draw(st.integers(0, 99)) < p * 100

    files = {"taxonomy.yml": mutated(TAXONOMY) if sometimes(0.2) else TAXONOMY}
    kind = draw(st.sampled_from(["benign", "benign", "mutated", "random", "valid"]))
    valid = valid_bank().map(lambda bank: bank[0])
    files["a.txt"] = {
        "benign": mutated(SEED_ZH, True),
        "mutated": mutated(SEED_ZH),
        "random": RANDOM_BANK,
        "valid": valid,
    }[kind]
    if sometimes(0.5):
        files["a.en.txt"] = mutated(SEED_EN, True) if sometimes(0.7) else mutated(SEED_EN)
    if sometimes(0.3):
        files["b-2.txt"] = valid if sometimes(0.7) else RANDOM_BANK
    if sometimes(0.3):
        files["slugs.lock"] = mutated(LOCK.replace("ai-infra-3/", "a/"), sometimes(0.5))
    if GLOSSARY and sometimes(0.5):
        files["glossary.yml"] = mutated(GLOSSARY) if sometimes(0.3) else GLOSSARY
    return {name: value if isinstance(value, str) else draw(value) for name, value in files.items()}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(files=banks_folder())
def test_generator_builds_or_reports_file_and_line(files: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        banks = Path(tmp) / "banks"
        banks.mkdir()
        for name, text in files.items():
            (banks / name).write_bytes(text.encode("utf-8", errors="surrogatepass"))
        out = Path(tmp) / "docs"
        try:
            with time_limit(CASE_SECONDS):
                result = generate(banks, out)
        except BuildError as exc:
            event("reported FILE:LINE problems")
            check_problems(exc.problems, {str(banks / name) for name in files} | {str(banks)})
            assert not out.exists(), "a failed build must write nothing"
            return
        event(f"built {'with' if len(result.site.entries) else 'without'} questions")
        for entry in result.site.entries.values():
            assert (out / entry.path).is_file() and (out / "en" / entry.path).is_file()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bank=valid_bank())
def test_every_answer_line_lands_on_exactly_one_page(bank: tuple[str, dict[str, list[str]]]) -> None:
    text, answers = bank
    with tempfile.TemporaryDirectory() as tmp:
        banks = Path(tmp) / "banks"
        banks.mkdir()
        (banks / "taxonomy.yml").write_text(TAXONOMY, encoding="utf-8")
        (banks / "p.txt").write_text(text, encoding="utf-8")
        out = Path(tmp) / "docs"
        try:
            with time_limit(CASE_SECONDS):
                site = generate(banks, out).site
        except BuildError as exc:  # only a repeated question may fail (random text can collide)
            assert all("duplicate question" in p.message for p in exc.problems), exc
            return
        for prefix in ("", "en/"):
            shown = {e.slug: _answer_text(out / prefix / e.path) for e in site.entries.values()}
            for entry in site.entries.values():
                question = re.sub(r"\s+", " ", entry.text["zh"].text).strip()
                rest = shown[entry.slug]
                for line in answers[question]:
                    line = re.sub(r"\s+", " ", line).strip()
                    pages = [slug for slug, body in shown.items() if line in body]
                    assert pages == [entry.slug], f"{line!r} is on {pages}, not only on {entry.slug}"
                    rest = rest.replace(line, "", 1)
                assert not rest.strip(), f"{prefix}{entry.path}: answer shows text no bank line has: {rest!r}"


def _answer_text(page: Path) -> str:
    source = page.read_text(encoding="utf-8")
    start = source.index('<div class="qa-answer"')
    body = source[source.index(">", start) + 1 : source.index("</div>", start)]
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]*>", "", body))).strip()


# --- memory ----------------------------------------------------------------------------------


def big_bank(size: int) -> str:
    """A bank of about `size` bytes: many questions with lists, Chinese and English mixed."""
    parts = ["大题库 Big bank"]
    i = total = 0
    while total < size:
        block = (
            f"Q: 第{i}题：如何降低 KV Cache 在第 {i} 个集群上的显存占用？\n"
            f"分页管理显存、减少碎片；AllReduce 带宽 {i} GB/s，批处理提升吞吐。" * 3 + "\n"
            "要点：\n"
            f"- 把 KV Cache 量化到 FP8，访存量减半（{i}）。\n"
            f"- PagedAttention 按块分配显存（{i}）。\n"
            f"1. 预填充与解码分离部署（{i}）。\n"
        )
        parts.append(block)
        total += len(block.encode("utf-8"))
        i += 1
    return "\n".join(parts)


def test_parser_memory_is_proportional_to_input() -> None:
    peaks = {}
    for size in (1_000_000, 10_000_000):
        text = big_bank(size)
        tracemalloc.start()
        try:
            with time_limit(120):
                bank = parse_text(text, "big.txt", "big", "zh", Problems())
            peaks[size] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert bank is not None
        del bank, text
    assert peaks[10_000_000] < 15 * peaks[1_000_000], peaks


GENERATOR_MEMORY = """
import json, shutil, sys, tempfile
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from studysite.build import build_site_model, load_sources, render_files
from studysite.errors import Problems
from tests.test_fuzz import big_bank

def kib(field):
    status = Path("/proc/self/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith(field + ":")))

def run(size):
    tmp = Path(tempfile.mkdtemp())
    (tmp / "banks").mkdir()
    shutil.copy(Path(sys.argv[1]) / "tests" / "fixtures" / "banks" / "taxonomy.yml", tmp / "banks")  # the fixture copy
    (tmp / "banks" / "big.txt").write_text(big_bank(size), encoding="utf-8")
    problems = Problems()
    sources = load_sources(tmp / "banks", problems)
    site, _ = build_site_model(sources)
    files = render_files(site)
    shutil.rmtree(tmp)
    return len(files)

run(20_000)  # warm up: imports, pinyin tables, compiled patterns
before = kib("VmRSS")
Path("/proc/self/clear_refs").write_text("5")  # reset the peak (VmHWM) to the current size
pages = run(int(sys.argv[2]))
print(json.dumps({"kib": kib("VmHWM") - before, "pages": pages}))
"""


def test_generator_memory_is_proportional_to_input() -> None:
    """Peak memory of the whole pipeline (read, parse, model, render) for a 1 MB and a 10 MB bank.

    Measured as the growth of peak RSS (VmHWM, reset before the run) in a fresh, warmed-up process:
    tracemalloc makes this pipeline about six times slower, which would take the 10 MB case past a
    minute. Writing is left out: it holds one file at a time.
    """
    sizes = (1_000_000, 10_000_000)
    procs = {  # one process per size, side by side (two cores)
        size: subprocess.Popen(
            [sys.executable, "-c", GENERATOR_MEMORY, str(ROOT), str(size)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for size in sizes
    }
    used = {}
    for size, proc in procs.items():
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        used[size] = json.loads(out.strip().splitlines()[-1])
    assert used[10_000_000]["pages"] > 9 * used[1_000_000]["pages"]
    assert used[1_000_000]["kib"] > 0, used
    assert used[10_000_000]["kib"] < 15 * used[1_000_000]["kib"], used
