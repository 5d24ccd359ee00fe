"""Shared fixtures: the seed site built once per session, served on 127.0.0.1, and a chromium browser."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sitekit import CHROMIUM, CHROMIUM_ARGS, build_site, copy_banks, serve


@pytest.fixture(scope="session")
def seed_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seed banks built into a complete bilingual site (strict)."""
    work = tmp_path_factory.mktemp("seed-site")
    return build_site(copy_banks(work / "banks"), work)


@pytest.fixture(scope="session")
def seed_url(seed_site: Path) -> Iterator[str]:
    with serve(seed_site) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
