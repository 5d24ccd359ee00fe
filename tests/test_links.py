"""Cross-links on the seed bank: the relations a reader expects, and first-mention inline links."""

from __future__ import annotations

import pytest

from studysite.build import build_site_model, load_sources
from studysite.errors import Problems
from studysite.model import Site
from tests.sitekit import SEED

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
