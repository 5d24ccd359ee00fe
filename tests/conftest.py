"""Shared fixtures: the seed site built once per run (shared by the xdist workers), served on 127.0.0.1, and a chromium browser.

Tiers (markers registered in pyproject.toml): `make unit` runs the tests marked `unit`, in-process
or with small generator runs, on tests/fixtures/banks; `make test` runs everything. A `unit` test
that reads the user's banks/ fails: `copy_banks` hands it the fixture banks, and opening a file
under banks/ raises.
"""

from __future__ import annotations

import fcntl
import functools
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import sitekit
from tests.sitekit import BROWSER, CHROMIUM_ARGS, build_site, copy_banks, serve

if os.environ.get("QA_CPU_BY_TEST"):  # each test's CPU into that file (tests/cpukit.py says how)
    from tests.cpukit import pytest_runtest_protocol  # noqa: F401 (a hook: pytest finds it here)


@pytest.fixture(scope="session")
def seed_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seed banks built into a complete site in every language (strict), once per run: under
    pytest-xdist the first worker to ask builds it in the run's shared temporary folder while holding a
    lock, and the others wait for it and read the same site (a build of three languages took 25-60 s
    of a loaded worker here). Tests only read it; a failed build leaves no mark, so the next worker
    to ask builds again and reports the same error."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # every worker's basetemp is a folder of the run's
    work, built = shared / "seed-site", shared / "seed-site.built"
    with open(shared / "seed-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not built.exists():
            shutil.rmtree(work, ignore_errors=True)
            build_site(copy_banks(work / "banks"), work)
            built.touch()
    return work / "site"


@pytest.fixture(scope="session")
def data(seed_site: Path) -> dict[str, dict[str, object]]:
    """The question data the seed site published, per language (what the pages are checked against)."""
    return sitekit.published_data(seed_site)


@pytest.fixture(scope="session")
def seed_url(seed_site: Path) -> Iterator[str]:
    # The seed site never changes during a run: served with GitHub Pages' max-age, the browser reuses
    # its files instead of revalidating each one on every load once their heuristic freshness (a
    # tenth of their age, seconds after the build) runs out: ~300 requests fewer per 45 loads, and
    # tests/test_reader.py 4.5 % less CPU (3 pairs alternating, 2026-12-06).
    with serve(seed_site, max_age=sitekit.PAGES_MAX_AGE) as url:
        sitekit.CONTEXTS.stable.add(url.rstrip("/"))  # its files never change: reused profiles may cache them
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=BROWSER, args=CHROMIUM_ARGS)
        yield b
        sitekit.CONTEXTS.close_all()
        b.close()


@pytest.fixture(autouse=True)
def _unit_tests_never_read_the_users_banks(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    if request.node.get_closest_marker("unit") is None:
        yield
        return
    monkeypatch.setattr(sitekit, "SEED", sitekit.FIXTURE_BANKS)
    _GUARD["on"] = True
    try:
        yield
    finally:
        _GUARD["on"] = False


_UNIT_MARK = "mark.unit"
"""How a test file marks its unit tests (`@pytest.mark.unit`, `pytestmark = pytest.mark.unit`)."""


@functools.cache
def _says_unit(path: Path) -> bool:
    """Whether the test file at `path` says _UNIT_MARK (read once per file and run)."""
    return _UNIT_MARK in path.read_text(encoding="utf-8")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """`make unit` (-m unit) does not import the test files that hold no unit test: 27 of 42, whose
    assertion rewriting and imports each xdist worker would otherwise pay for at start-up."""
    if config.getoption("markexpr") != "unit" or not collection_path.name.startswith("test_"):
        return None
    if collection_path.suffix != ".py" or _says_unit(collection_path):
        return None
    return True


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that drive chromium are marked `browser` (`-m "not browser"` leaves them out). The
    longest files run first, so that under xdist one of them is not what the others wait for at the end.
    A unit test in a file that does not say `mark.unit` would be left out of `make unit` without a
    word (pytest_ignore_collect): that fails the collection."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
        if item.get_closest_marker("unit") is not None and not _says_unit(item.path):
            raise pytest.UsageError(f"{item.nodeid} is a unit test, but its file never says {_UNIT_MARK}")
    items.sort(key=lambda item: _LONG_FIRST.get(item.path.name, len(_LONG_FIRST)))


# Test files by their time in `make test` (junit times of a run on this 2-core machine, 2026-12-02),
# slowest first: each xdist worker takes the next file when it is done (`--dist loadfile
# --no-loadscope-reorder`: without the second flag xdist orders files by their number of tests,
# which put the one-test, minute-long search evaluation last). Files that mostly wait (test_i18n's
# pages until the network is idle, test_serve's servers until a rebuild is served) run mid-way,
# beside a busy file, not at the end, where the other worker has nothing left to run (a run on
# 2026-12-06 ended with test_serve alone, the machine half idle for its last 20 s). list.sort is
# stable, so the order within a file stays; a file not listed runs after these, and a stale entry
# costs only balance.
_LONG_FIRST = {
    name + ".py": rank
    for rank, name in enumerate(
        (
            "test_lighthouse",
            "test_reader",
            "test_offline",
            "test_review",
            "test_reliability",
            "test_stats",
            "test_takeaway_browser",
            "test_quality",
            "test_search",
            "test_i18n",
            "test_fuzz",
            "test_search_eval",
            "test_serve",
            "test_study",
            "test_errors",
            "test_review_flows",
            "test_a11y",
            "test_cache",
            "test_locked_builds",
            "test_injection",
        )
    )
}
_BANKS = str(sitekit.USER_BANKS) + os.sep
_GUARD = {"on": False}


def _refuse_the_users_banks(event: str, args: tuple[object, ...]) -> None:
    # An audit hook sees every open() of this process, including those of the code under test.
    if event == "open" and _GUARD["on"] and isinstance(args[0], str) and os.path.abspath(args[0]).startswith(_BANKS):
        raise PermissionError(
            f"a unit test read {args[0]}: unit tests use tests/fixtures/banks (sitekit.FIXTURE_BANKS)"
        )


sys.addaudithook(_refuse_the_users_banks)
