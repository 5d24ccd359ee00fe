#!/usr/bin/env python3
"""`make search-eval`: how well the site's search finds and ranks pages on a 1,000-question corpus.

Builds a synthetic bilingual corpus (scripts/synthetic_banks.py) into a work folder, builds the whole
site as the tests do, draws queries from phrases that occur in only a few pages, types each one into
the site's search box in chromium (the real UI: overrides/assets/qa/search.js driving Pagefind) and
checks the results against what the pages really contain.

Answer key, per language, from the built question pages (title + answer, the text Pagefind indexes):
  relevant pages  the pages whose text contains the phrase: Chinese as a substring; English as whole
                  words, ignoring case (a page with only "routes" does not contain "route")
  right pages     the relevant pages where the phrase is most prominent: in the title beats not in the
                  title, then more occurrences; pages tied on both are all right
Queries: Chinese phrases are one word or two adjacent words (as jieba segments the text, unspaced like
显存带宽), in turn; English ones two adjacent words (no single English word of the corpus is in fewer
than 20 pages); each occurs in 1 to 5 pages of its language.
Figures: recall (relevant pages anywhere in the result list, over all relevant pages), top-1 rate (the
first result is a right page), time from the keyup to the first rendered results (the first query
of each language includes loading Pagefind and its index).
Targets (issue 3): recall 1.0 in both languages, top-1 >= 0.90 in Chinese and >= 0.80 in English.
The exit status is 1 when one is missed.
"""

from __future__ import annotations

import argparse
import html
import json
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Not for studysite (installed in .venv): for tests.sitekit and scripts/synthetic_banks.py.
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from synthetic_banks import write_corpus  # noqa: E402

from studysite.languages import LANGUAGES  # noqa: E402
from studysite.site import engine  # noqa: E402
from tests.sitekit import BROWSER, CHROMIUM_ARGS, prepare_work, serve  # noqa: E402

TARGETS = {"zh": 0.90, "en": 0.80}
"""Share of queries whose first result must be a right page."""
MAX_PAGES = 5
"""A query phrase occurs in at most this many pages of its language."""
PREFIX = {"zh": "", "en": "en/"}
SIZES = {"zh": (1, 2), "en": (2,)}
"""Words per query phrase, in turn. Every single English word of the corpus is in 20+ pages."""
STOP_EN = frozenset(
    "the and for with from that this are was were been has have had its into than then also can not but "
    "each which what when where why how does more most less such use used using only other both same one "
    "two per via may should would will about between while there their them they these those you your "
    "a an of in on at to by as is be or it so if no do".split()
)


@dataclass(frozen=True)
class Page:
    """A built question page: what Pagefind indexes of it."""

    url: str
    """Path from the site root, as search results link it: /bank/slug/ or /en/bank/slug/."""
    title: str
    """The question."""
    text: str
    """Title and answer, one line per block."""


@dataclass
class Query:
    """A query phrase and its answer key."""

    phrase: str
    relevant: list[str]
    """URLs of the pages that contain the phrase."""
    right: list[str]
    """URLs of the relevant pages where it is most prominent."""
    results: list[str] = field(default_factory=list)
    """The result list as far as it was read (until every relevant page showed, or its end)."""
    total: int = 0
    """Results the search reported."""
    ms: float = 0.0
    """Keyup to the first rendered results."""

    @property
    def found(self) -> int:
        return len(set(self.relevant) & set(self.results))

    @property
    def first_right(self) -> bool:
        return bool(self.results) and self.results[0] in self.right


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="search_eval.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=1000, help="questions in the corpus (default 1000)")
    parser.add_argument("--zh", type=int, default=50, help="Chinese queries (default 50)")
    parser.add_argument("--en", type=int, default=30, help="English queries (default 30)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the corpus and of the query draw")
    parser.add_argument("--work", type=Path, help="work folder (default: a temporary one, removed after)")
    parser.add_argument("--site", type=Path, help="an already built site to evaluate (skips corpus and build)")
    parser.add_argument("--ranking", help="JSON: Pagefind ranking to try instead of search.js's (tuning)")
    parser.add_argument("--json", type=Path, help="also write the figures and every query here")
    args = parser.parse_args(argv)

    work = args.work or Path(tempfile.mkdtemp(prefix="search-eval-"))
    try:
        started = time.monotonic()
        site = args.site or _build(work, args.questions, args.seed)
        built = time.monotonic()
        if args.ranking:
            _set_ranking(site, json.loads(args.ranking))
        rng = random.Random(args.seed)
        pages = {lang: read_pages(site, lang) for lang in ("zh", "en")}
        queries = {lang: draw_queries(pages[lang], lang, getattr(args, lang), rng) for lang in ("zh", "en")}
        run_queries(site, queries)
        figures = {lang: summary(qs) for lang, qs in queries.items()}
        strays = stray_results(site, queries)
        print(
            f"search_eval: {len(pages['zh'])} Chinese and {len(pages['en'])} English question pages, "
            f"site ready in {built - started:.0f} s, queries run in {time.monotonic() - built:.0f} s"
        )
        print(_report(queries, figures))
        for url in strays:
            print(f"  FAIL: a result links to {url}, which is no page of the site")
        if args.json:
            payload = {
                "figures": figures,
                "strays": strays,
                "targets": TARGETS,
                "queries": {
                    lang: [asdict(q) | {"first_right": q.first_right} for q in qs] for lang, qs in queries.items()
                },
            }
            args.json.write_text(json.dumps(payload, ensure_ascii=False, indent=1), encoding="utf-8")
        missed = [lang for lang, f in figures.items() if f["recall"] < 1.0 or f["top1"] < TARGETS[lang]]
        return 1 if missed or strays else 0
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


def read_pages(site: Path, lang: str) -> list[Page]:
    """Every question page of a language (the pages Pagefind indexes: they have data-pagefind-body)."""
    root = site / "en" if lang == "en" else site
    pages = []
    for index in sorted(root.rglob("index.html")):
        rel = index.parent.relative_to(site).as_posix()
        if lang == "zh" and any(f"{rel}/".startswith(other.root) for other in LANGUAGES.extra):
            continue  # the other editions (English, 繁體中文) are other indexes, not the Chinese box's answers
        source = index.read_text(encoding="utf-8")
        if "data-pagefind-body" not in source:
            continue
        title = re.search(r"<h1[^>]*>(.*?)</h1>", source, re.DOTALL)
        answer = re.search(r'<div class="qa-answer".*?</div>', source, re.DOTALL)
        if not (title and answer):
            continue
        text = _text(title.group(1)) + "\n" + _text(answer.group(0))
        pages.append(Page(url=f"/{rel}/", title=_text(title.group(1)), text=text))
    return pages


def draw_queries(pages: list[Page], lang: str, count: int, rng: random.Random) -> list[Query]:
    """`count` phrases of SIZES[lang] adjacent words that occur in 1 to MAX_PAGES pages."""
    tokenize = _zh_words if lang == "zh" else _en_words
    seen: set[str] = set()
    queries: list[Query] = []
    tries = 0
    while len(queries) < count:
        tries += 1
        if tries > count * 2000:
            raise SystemExit(f"search_eval: found only {len(queries)} {lang} phrases in {MAX_PAGES} pages or fewer")
        page = pages[int(rng.random() * len(pages))]
        lines = [line for line in page.text.split("\n") if line]
        words = tokenize(lines[int(rng.random() * len(lines))])
        size = SIZES[lang][len(queries) % len(SIZES[lang])]
        if len(words) < size:
            continue
        at = int(rng.random() * (len(words) - size + 1))
        chunk = words[at : at + size]
        if None in chunk:
            continue
        phrase = ("" if lang == "zh" else " ").join(chunk)
        if phrase.lower() in seen:
            continue
        seen.add(phrase.lower())
        key = answer_key(pages, lang, phrase)
        if key is not None:
            queries.append(key)
    return queries


def answer_key(pages: list[Page], lang: str, phrase: str) -> Query | None:
    """The relevant and the right pages of a phrase; None if it is in more than MAX_PAGES pages."""
    if lang == "zh":

        def count(text: str) -> int:
            return text.count(phrase)
    else:
        pattern = re.compile(r"(?<![A-Za-z0-9])" + re.escape(phrase) + r"(?![A-Za-z0-9])", re.IGNORECASE)

        def count(text: str) -> int:
            return len(pattern.findall(text))

    scored = [(bool(count(p.title)), count(p.text), p.url) for p in pages]
    scored = [s for s in scored if s[1]]
    if not scored or len(scored) > MAX_PAGES:
        return None
    best = max(s[:2] for s in scored)
    return Query(phrase=phrase, relevant=[s[2] for s in scored], right=[s[2] for s in scored if s[:2] == best])


def run_queries(site: Path, queries: dict[str, list[Query]]) -> None:
    """Type every query into the search box of its language's home page, one page per language."""
    from playwright.sync_api import sync_playwright

    with serve(site) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=BROWSER, args=CHROMIUM_ARGS)
        try:
            for lang, qs in queries.items():
                context = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers="block")
                page = context.new_page()
                page.goto(base + PREFIX[lang])
                for q in qs:
                    shown = page.evaluate(_SEARCH, q.phrase)
                    q.ms, q.total, q.results = shown["ms"], shown["total"], shown["links"]
                    while len(q.results) < q.total and q.found < len(q.relevant):
                        more = page.evaluate(_MORE, len(q.results))
                        if len(more) <= len(q.results):
                            break
                        q.results = more
                context.close()
        finally:
            browser.close()


def stray_results(site: Path, queries: dict[str, list[Query]]) -> list[str]:
    """Result links that are no page of the built site: a missing page, or one in a hidden folder (a
    build's scratch copy that Pagefind indexed beside the real one)."""
    strays = set()
    for qs in queries.values():
        for q in qs:
            for url in q.results:
                path = url.split("#")[0].strip("/")
                if any(part.startswith(".") for part in path.split("/")) or not (site / path / "index.html").is_file():
                    strays.add(url)
    return sorted(strays)


def summary(queries: list[Query]) -> dict[str, float]:
    times = sorted(q.ms for q in queries)
    return {
        "queries": len(queries),
        "recall": sum(q.found for q in queries) / sum(len(q.relevant) for q in queries),
        "top1": sum(q.first_right for q in queries) / len(queries),
        "first_ms": queries[0].ms,
        "median_ms": statistics.median(times),
        "p95_ms": times[min(len(times) - 1, round(0.95 * (len(times) - 1)))],
        "max_ms": times[-1],
    }


def _build(work: Path, questions: int, seed: int) -> Path:
    """The corpus, built into work/site by the site's own configs, theme and plugin, finished with only
    the English build and Pagefind (the plugin's `finish: search`): downloads, offline copy and checks
    of the full build add minutes on 1,000 questions and nothing a search sees."""
    banks = work / "banks"
    write_corpus(banks, questions, per_bank=50, seed=seed)
    env = prepare_work(banks, work)
    config = work / "mkdocs.yml"  # mkdocs.en.yml inherits the plugin's options
    text = config.read_text(encoding="utf-8")
    if "\n  - studysite\n" not in text:
        raise SystemExit("search_eval: no `- studysite` plugin in mkdocs.yml to set `finish: search` on")
    config.write_text(
        text.replace("\n  - studysite\n", "\n  - studysite:\n      finish: search\n", 1), encoding="utf-8"
    )
    # not strict (it never was): the synthetic corpus leaves some glossary terms unused, which does
    # not change what a search finds
    cmd = engine.current().site_command(config, work / "site", strict=False)
    proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"search_eval: site build failed:\n{proc.stdout}\n{proc.stderr}")
    return work / "site"


def _set_ranking(site: Path, ranking: dict[str, object]) -> None:
    """Replace the ranking in the built site's bundles (both languages), to try settings quickly:
    the `ranking: RANKING` option search.js gives Pagefind, minified to `ranking:X`."""
    for script in sorted(site.glob("**/assets/qa/*.min.js")):
        source = script.read_text(encoding="utf-8")
        if not _RANKING.search(source):
            raise SystemExit(f"search_eval: no `ranking:` option in {script}")
        script.write_text(_RANKING.sub(lambda _: f"ranking:{json.dumps(ranking)}", source, count=1), "utf-8")


def _text(fragment: str) -> str:
    """Text of an HTML fragment: one line per block, entities decoded."""
    text = re.sub(r"</(p|li|h1|div)>|<br\s*/?>", "\n", fragment)
    text = html.unescape(re.sub(r"<[^>]+>", "", text))
    return "\n".join(" ".join(line.split()) for line in text.split("\n") if line.strip())


def _zh_words(line: str) -> list[str | None]:
    """jieba's words of a line; None for a word that is not Chinese or shorter than 2 characters."""
    import jieba

    jieba.setLogLevel(60)
    return [w if len(w) >= 2 and _HAN.fullmatch(w) else None for w in jieba.lcut(line)]


def _en_words(line: str) -> list[str | None]:
    """Words of a line; None for stop words, short words and punctuation, so phrases never span them."""
    out: list[str | None] = []
    for token in re.findall(r"[A-Za-z0-9'-]+|[^\sA-Za-z0-9'-]+", line):
        word = token.lower()
        out.append(word if re.fullmatch(r"[a-z]{3,}", word) and word not in STOP_EN else None)
    return out


def _report(queries: dict[str, list[Query]], figures: dict[str, dict[str, float]]) -> str:
    lines = []
    for lang, f in figures.items():
        ok = f["recall"] >= 1.0 and f["top1"] >= TARGETS[lang]
        lines.append(
            f"  {lang}: {f['queries']} queries  recall {f['recall']:.3f}  right page first {f['top1']:.2f} "
            f"(target {TARGETS[lang]:.2f})  keyup->results median {f['median_ms']:.0f} ms, 95th {f['p95_ms']:.0f} ms, "
            f"max {f['max_ms']:.0f} ms, first query {f['first_ms']:.0f} ms  {'PASS' if ok else 'FAIL'}"
        )
        for q in queries[lang]:
            if q.found < len(q.relevant) or not q.first_right:
                missing = sorted(set(q.relevant) - set(q.results))
                lines.append(
                    f"    {q.phrase!r}: first {q.results[:1]}, right {q.right}"
                    + (f", not found {missing}" if missing else "")
                )
    return "\n".join(lines)


_HAN = re.compile(r"[\u3400-\u9fff]+")
_RANKING = re.compile(r"\branking:[A-Za-z_$][\w$]*")

# Clear the box, then type the query as an IME commits it; resolves when results (or "none") show.
_SEARCH = """async (query) => {
  const input = document.querySelector(".md-search__input");
  const list = document.querySelector(".md-search-result__list");
  const meta = document.querySelector(".md-search-result__meta");
  input.focus();
  input.value = "";
  input.dispatchEvent(new Event("input", {bubbles: true}));
  const idle = meta.textContent;
  input.value = query;
  const start = performance.now();
  input.dispatchEvent(new Event("input", {bubbles: true}));
  input.dispatchEvent(new KeyboardEvent("keyup", {bubbles: true, key: query.slice(-1)}));
  const ms = await new Promise((resolve) => {
    const check = () => {
      if (list.children.length || (meta.textContent !== idle && !meta.textContent.includes("…"))) {
        observer.disconnect();
        resolve(performance.now() - start);
      }
    };
    const observer = new MutationObserver(check);
    observer.observe(list, {childList: true});
    observer.observe(meta, {childList: true, characterData: true, subtree: true});
    setTimeout(() => { observer.disconnect(); resolve(Infinity); }, 20000);
  });
  await new Promise((r) => setTimeout(r, 0));  // the count follows the list
  const total = list.children.length ? Number((meta.textContent.match(/\\d+/) || ["0"])[0]) : 0;
  return {ms, total, links: [...list.querySelectorAll("a.md-search-result__link")].map((a) => a.getAttribute("href"))};
}"""

# Scroll to the end of the result list, as a reader does to see more, until it links more than the
# `known` pages the caller has read (texts still arriving may have added some since); resolves with
# the list's links (no more than `known` after 5 s: the list has ended).
_MORE = """async (known) => {
  const list = document.querySelector(".md-search-result__list");
  const scroller = document.querySelector(".md-search__scrollwrap");
  const links = () => [...list.querySelectorAll("a.md-search-result__link")].map((a) => a.getAttribute("href"));
  for (let i = 0; i < 100 && links().length <= known; i++) {
    scroller.scrollTop = scroller.scrollHeight;
    scroller.dispatchEvent(new Event("scroll"));
    await new Promise((r) => setTimeout(r, 50));
  }
  return links();
}"""


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
