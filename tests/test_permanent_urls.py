"""Permanent URLs: a question keeps its URL through every edit; merged banks redirect; removed ones say so."""

from __future__ import annotations

import difflib
import random
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studysite.build import generate
from studysite.enrich.slugs import make_slug
from studysite.languages import LANGUAGES
from tests.sitekit import FIXTURE_BANKS, build_site, serve

TAXONOMY = (FIXTURE_BANKS / "taxonomy.yml").read_bytes()

# Two banks with translations; every question is (zh, en, zh answer, en answer).
ALPHA = [
    (
        "什么是张量并行？",
        "What is tensor parallelism?",
        "把权重矩阵按行或列切到多张卡上。",
        "Split weight matrices across GPUs.",
    ),
    (
        "流水线并行的气泡从哪里来？",
        "Where do pipeline bubbles come from?",
        "首尾阶段等待。",
        "Stages wait at start and end.",
    ),
    (
        "ZeRO-3 切分了什么？",
        "What does ZeRO-3 shard?",
        "参数、梯度和优化器状态。",
        "Parameters, gradients, optimizer state.",
    ),
]
BETA = [
    ("什么是KV Cache？", "What is the KV cache?", "缓存注意力的键和值。", "Cached attention keys and values."),
    ("PagedAttention解决什么问题？", "What does PagedAttention solve?", "显存碎片。", "Memory fragmentation."),
]

# A pool of distinct questions for the property test (not similar enough to be taken for edits).
POOL = [
    ("如何估计训练时间？", "How to estimate training time?"),
    ("NCCL有哪些通信原语？", "Which collectives does NCCL offer?"),
    ("Prefill和Decode有何不同？", "How do prefill and decode differ?"),
    ("为何需要梯度累积？", "Why accumulate gradients?"),
    ("FlashAttention省了哪些IO？", "Which IO does FlashAttention save?"),
    ("MoE路由负载如何均衡？", "How is MoE routing balanced?"),
    ("RDMA比TCP快在哪里？", "Where is RDMA faster than TCP?"),
    ("混合精度训练要注意什么？", "What matters in mixed-precision training?"),
    ("投机解码的接受率取决于什么？", "What sets the acceptance rate of speculative decoding?"),
    ("HBM带宽怎样限制解码？", "How does HBM bandwidth bound decoding?"),
    ("检查点多久存一次合适？", "How often should checkpoints be saved?"),
    ("NVLink与PCIe的带宽差多少？", "How far apart are NVLink and PCIe bandwidth?"),
]


def write_bank(banks: Path, bank_id: str, title: tuple[str, str], questions: list[tuple[str, str, str, str]]) -> None:
    zh = [title[0]] + [f"Q: {q}\n{a}" for q, _, a, _ in questions]
    en = [title[1]] + [f"Q: {q}\n{a}" for _, q, _, a in questions]
    (banks / f"{bank_id}.txt").write_text("\n".join(zh) + "\n", encoding="utf-8")
    (banks / f"{bank_id}.en.txt").write_text("\n".join(en) + "\n", encoding="utf-8")


def new_banks(root: Path) -> Path:
    banks = root / "banks"
    banks.mkdir(parents=True)
    (banks / "taxonomy.yml").write_bytes(TAXONOMY)
    return banks


def paths_by_question(banks: Path, out: Path) -> dict[str, str]:
    """Generate docs and return {Chinese question: 'bank/slug'} of every published question."""
    site = generate(banks, out).site
    return {e.text["zh"].text: f"{e.bank_id}/{e.slug}" for e in site.entries.values()}


def lock_lines(banks: Path) -> list[str]:
    return (banks / "slugs.lock").read_text(encoding="utf-8").splitlines()


# --- slugs never move -------------------------------------------------------------------------


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    first=st.lists(st.sampled_from(range(len(POOL))), min_size=1, max_size=8, unique=True),
    seed=st.integers(0, 2**32 - 1),
)
def test_reorder_insert_delete_never_change_a_slug(first: list[int], seed: int) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        banks = new_banks(Path(tmp))

        def publish(indices: list[int]) -> dict[str, str]:
            qs = [(POOL[i][0], POOL[i][1], f"答案{i}。", f"Answer {i}.") for i in indices]
            write_bank(banks, "pool", ("题库", "Bank"), qs)
            return paths_by_question(banks, Path(tmp) / "docs")

        before = publish(first)
        survivors = [i for i in first if rng.random() < 0.7]  # delete some
        inserted = [i for i in range(len(POOL)) if i not in first and rng.random() < 0.3]
        second = survivors + inserted
        rng.shuffle(second)  # reorder, with insertions anywhere
        if not second:
            second = [first[0]]
            survivors = [first[0]]
        after = publish(second)
        for i in survivors:
            assert after[POOL[i][0]] == before[POOL[i][0]], f"slug of {POOL[i][0]} changed"
        assert len(set(after.values())) == len(after)  # no two questions share a URL
        # A question deleted and later restored gets its old URL back.
        restored = publish(first)
        assert restored == before


def test_editing_wording_keeps_the_slug_and_the_lock_diff_is_one_line(tmp_path: Path) -> None:
    banks = new_banks(tmp_path)
    write_bank(banks, "alpha", ("题库甲", "Bank A"), ALPHA)
    before = paths_by_question(banks, tmp_path / "docs")
    lock_before = lock_lines(banks)
    edited = [*ALPHA]
    edited[1] = (
        "流水线并行中的气泡是从哪里来的？",
        "Where do the bubbles of pipeline parallelism come from?",
        *ALPHA[1][2:],
    )
    write_bank(banks, "alpha", ("题库甲", "Bank A"), edited)
    after = paths_by_question(banks, tmp_path / "docs")
    assert after[edited[1][0]] == before[ALPHA[1][0]]
    assert make_slug(edited[1][1]) != before[ALPHA[1][0]].split("/")[1]  # a fresh slug would differ
    changed = [d for d in difflib.ndiff(lock_before, lock_lines(banks)) if d[:1] in "+-"]
    answer = changed[0].rsplit("\t", 1)[1]  # the answer did not change, nor its fingerprint
    assert changed == [
        f"- {before[ALPHA[1][0]]}\tlive\t{ALPHA[1][0]}\t{answer}",
        f"+ {before[ALPHA[1][0]]}\tlive\t{edited[1][0]}\t{answer}",
    ]


def test_lock_file_is_deterministic(tmp_path: Path) -> None:
    texts = []
    for run in ("a", "b"):
        banks = new_banks(tmp_path / run)
        write_bank(banks, "alpha", ("题库甲", "Bank A"), ALPHA)
        write_bank(banks, "beta", ("题库乙", "Bank B"), BETA)
        generate(banks, tmp_path / run / "docs")
        texts.append((banks / "slugs.lock").read_bytes())
        generate(banks, tmp_path / run / "docs")  # a second build with the lock changes nothing
        assert (banks / "slugs.lock").read_bytes() == texts[-1]
    assert texts[0] == texts[1]
    body = [line for line in texts[0].decode().splitlines() if not line.startswith("#")]
    assert body == sorted(body) and len(body) == len(ALPHA) + len(BETA)


def test_reserved_slug_is_never_given(tmp_path: Path) -> None:
    """A question whose slug would be `index` must not overwrite its bank's page."""
    banks = new_banks(tmp_path)
    write_bank(banks, "alpha", ("题库甲", "Bank A"), [("索引是什么？", "Index?", "目录。", "A table.")])
    site = generate(banks, tmp_path / "docs").site
    (entry,) = site.entries.values()
    assert entry.slug != "index"
    assert "qa_bank" in (tmp_path / "docs" / "alpha" / "index.md").read_text(encoding="utf-8")


# --- merged banks and removed questions, in the built site ------------------------------------


@pytest.fixture(scope="module")
def merged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """Publish alpha + beta, then merge alpha into beta (dropping one question of each) and build the site."""
    work = tmp_path_factory.mktemp("merged")
    banks = new_banks(work)
    write_bank(banks, "alpha", ("题库甲", "Bank A"), ALPHA)
    write_bank(banks, "beta", ("题库乙", "Bank B"), BETA)
    before = paths_by_question(banks, work / "docs-before")
    lock_before = lock_lines(banks)
    # Merge: beta takes alpha's first two questions; alpha's third and beta's second are dropped.
    write_bank(banks, "beta", ("题库乙", "Bank B"), [BETA[0], ALPHA[0], ALPHA[1]])
    (banks / "alpha.txt").unlink()
    (banks / "alpha.en.txt").unlink()
    site = build_site(banks, work)
    lock_after = lock_lines(banks)
    after = {line.split("\t")[0]: line.split("\t")[1] for line in lock_after if not line.startswith("#")}
    return {"site": site, "before": before, "after": after, "lock": (lock_before, lock_after), "banks": banks}


def test_merge_updates_the_lock_with_a_small_diff(merged: dict) -> None:
    before, after = merged["before"], merged["after"]
    lock_before, lock_after = merged["lock"]
    moved = [before[ALPHA[0][0]], before[ALPHA[1][0]]]
    removed = [before[ALPHA[2][0]], before[BETA[1][0]]]
    for path in moved:
        assert after[path] == "moved:beta/" + path.split("/")[1]
        assert after["beta/" + path.split("/")[1]] == "live"
    for path in removed:
        assert after[path] == "removed"
    assert after[before[BETA[0][0]]] == "live"
    changed = [d for d in difflib.ndiff(lock_before, lock_after) if d[:1] in "+-"]
    # 2 moved (state changes) + 2 new live paths + 2 removed (state changes): nothing else moves.
    assert len([d for d in changed if d.startswith("+")]) == 6
    assert len([d for d in changed if d.startswith("-")]) == 4


def test_moved_question_redirects_in_both_languages(merged: dict, browser) -> None:  # type: ignore[no-untyped-def]
    site: Path = merged["site"]  # type: ignore[assignment]
    old = merged["before"][ALPHA[0][0]]  # type: ignore[index]
    slug = old.split("/")[1]
    for prefix in LANGUAGES.roots:
        page = (site / prefix / old / "index.html").read_text(encoding="utf-8")
        assert f'http-equiv="refresh" content="0; url=../../beta/{slug}/"' in page
        assert "location.search + location.hash" in page
        assert '<meta name="robots" content="noindex">' in page
    # The deleted bank's own page leads to the bank that took its questions.
    assert 'url=../beta/"' in (site / "alpha" / "index.html").read_text(encoding="utf-8")
    with serve(site) as base:
        page = browser.new_page()
        try:
            for prefix, heading in (("", ALPHA[0][0]), ("en/", ALPHA[0][1])):
                page.goto(f"{base}{prefix}{old}/?from=bookmark#qa-answer")
                page.wait_for_url(f"{base}{prefix}beta/{slug}/?from=bookmark#qa-answer", timeout=10_000)
                assert page.locator("h1").first.inner_text().strip() == heading
                page.goto(f"{base}{prefix}alpha/")
                page.wait_for_url(f"{base}{prefix}beta/", timeout=10_000)
        finally:
            page.close()


def test_removed_question_says_so_and_links_to_its_bank(merged: dict, browser) -> None:  # type: ignore[no-untyped-def]
    site: Path = merged["site"]  # type: ignore[assignment]
    removed_beta = merged["before"][BETA[1][0]]  # type: ignore[index]
    removed_alpha = merged["before"][ALPHA[2][0]]  # type: ignore[index]
    expect = {
        "": ("该问题已删除", "题库乙", "首页"),
        "en/": ("This question was removed", "Bank B", "Home"),
    }
    with serve(site) as base:
        page = browser.new_page()
        try:
            for prefix, (title, bank_title, home) in expect.items():
                response = page.goto(f"{base}{prefix}{removed_beta}/")
                assert response is not None and response.status == 200
                assert page.locator("h1").first.inner_text().strip() == title
                assert BETA[1][0] in page.locator("blockquote.qa-removed").inner_text()
                link = page.locator(".qa-removed-page a", has_text=bank_title)
                link.click()
                page.wait_for_url(f"{base}{prefix}beta/")
                # A question of a bank that no longer exists links home instead.
                page.goto(f"{base}{prefix}{removed_alpha}/")
                assert page.locator("h1").first.inner_text().strip() == title
                page.locator(".qa-removed-page a", has_text=home).click()
                page.wait_for_url(f"{base}{prefix}")
        finally:
            page.close()
    for prefix in LANGUAGES.roots:
        html = (site / prefix / removed_beta / "index.html").read_text(encoding="utf-8")
        assert re.search(r'<meta name="robots" content="noindex"', html)
        assert 'data-pagefind-ignore="all"' in html


def test_redirects_and_removed_pages_are_not_in_the_sitemap_or_search(merged: dict, browser) -> None:  # type: ignore[no-untyped-def]
    site: Path = merged["site"]  # type: ignore[assignment]
    before = merged["before"]
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    for question in (ALPHA[0][0], ALPHA[2][0], BETA[1][0]):
        assert f"/{before[question]}/" not in sitemap  # type: ignore[index]
    assert "/beta/" in sitemap
    with serve(site) as base:
        page = browser.new_page()
        try:
            for prefix, term in (("", "该问题已删除"), ("", "ZeRO"), ("en/", "removed"), ("en/", "ZeRO-3")):
                page.goto(f"{base}{prefix}")
                urls = page.evaluate(
                    """async (term) => {
                        const pagefind = await import(new URL("/pagefind/pagefind.js", location.origin).href);
                        const found = await pagefind.search(term);
                        return Promise.all(found.results.map(async (r) => (await r.data()).url));
                    }""",
                    term,
                )
                for url in urls:
                    assert before[ALPHA[2][0]] not in url and before[BETA[1][0]] not in url, (term, urls)  # type: ignore[index]
                    assert before[ALPHA[0][0]] not in url, (term, urls)  # type: ignore[index]
        finally:
            page.close()


def test_lock_is_a_fixed_point_after_the_site_build(merged: dict, tmp_path: Path) -> None:
    """Building again from the updated lock changes nothing: the maintainer commits one diff, once."""
    banks = tmp_path / "banks"
    shutil.copytree(merged["banks"], banks)  # type: ignore[arg-type]
    generate(banks, tmp_path / "docs")
    assert lock_lines(banks) == merged["lock"][1]  # type: ignore[index]
