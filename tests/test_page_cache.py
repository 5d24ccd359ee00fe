"""A page's Markdown converted once (studysite/site/page_cache.py): a build that takes every page's HTML
from the cache writes the same site, says the same warnings (a strict build fails the same way), and
converts again the pages whose Markdown, address or link targets changed.

Real MkDocs builds, in this process, of a small project whose hooks file gives each page to a
PageCache as the plugin does (on_pre_build, on_pre_page, on_post_build).
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

HOOKS = """
from pathlib import Path
from studysite.site import page_cache

COUNTS = []
_open = {}


def on_pre_build(config):
    _open["cache"] = page_cache.for_build(config, Path(config.docs_dir), "zh")


def on_pre_page(page, config, files):
    _open["cache"].install(page)
    return page


def on_post_build(config):
    kept = _open.pop("cache")
    kept.save()
    COUNTS.append((kept.converted, kept.kept))
"""

CONFIG = """site_name: t
docs_dir: docs
theme:
  name: mkdocs
hooks:
  - hooks.py
markdown_extensions:
  - toc:
      permalink: true
  - attr_list
validation:
  anchors: warn
"""

PAGES = {
    "index.md": "# Home\n\nSee [the section](a.md#sec), [nothing](a.md#nosuch) and [a missing page](missing.md).\n",
    "a.md": "# A\n\n## Sec {#sec}\n\nText.\n",
    "b.md": "# B\n\n[back](index.md)\n",
}


@pytest.fixture(autouse=True)
def _dated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")  # the theme prints the build's date


def _project(root: Path) -> Path:
    (root / "docs").mkdir(parents=True)
    for name, text in PAGES.items():
        (root / "docs" / name).write_text(text, encoding="utf-8")
    (root / "hooks.py").write_text(HOOKS, encoding="utf-8")
    (root / "mkdocs.yml").write_text(CONFIG, encoding="utf-8")
    return root


def _build(
    root: Path, caplog: pytest.LogCaptureFixture, *, strict: bool = False
) -> tuple[dict[str, bytes], list[str], tuple[int, int]]:
    """Build the project; its site's files, the warnings logged, and (converted, kept) pages."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    config = load_config(str(root / "mkdocs.yml"), strict=strict)
    caplog.clear()
    mkdocs_log = logging.getLogger("mkdocs")
    mkdocs_log.addHandler(caplog.handler)  # MkDocs' logger does not pass records to the root
    try:
        config.plugins.on_startup(command="build", dirty=False)
        build(config)
    finally:
        mkdocs_log.removeHandler(caplog.handler)
    (hooks,) = config.hooks.values()  # the project's one hooks file
    site = root / "site"
    files = {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    return files, warnings, hooks.COUNTS[-1]


def test_a_build_from_kept_conversions_writes_the_same_site_and_says_the_same(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = _project(tmp_path)
    first, said, counts = _build(root, caplog)
    assert counts == (3, 0)
    assert any("missing.md" in w for w in said) and any("nosuch" in w for w in said), said
    again, said_again, counts = _build(root, caplog)
    assert counts == (0, 3)  # no page converted: every one was kept
    assert again == first
    assert sorted(said_again) == sorted(said)


def test_a_strict_build_fails_from_kept_conversions_as_it_did(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from mkdocs.exceptions import Abort

    root = _project(tmp_path)
    _build(root, caplog)
    with pytest.raises(Abort, match="warnings"):
        _build(root, caplog, strict=True)


def test_a_page_is_converted_again_when_what_it_reads_changes(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = _project(tmp_path)
    _build(root, caplog)
    (root / "docs" / "b.md").write_text("# B\n\n[back](index.md), changed\n", encoding="utf-8")
    files, _, counts = _build(root, caplog)
    assert counts == (1, 2)  # b.md's Markdown changed
    assert "changed" in files["b/index.html"].decode()
    (root / "docs" / "missing.md").write_text("# Now there\n", encoding="utf-8")
    files, said, counts = _build(root, caplog)
    assert counts == (4, 0)  # a new file: every link may resolve differently
    assert not any("missing.md" in w for w in said), said
    assert 'href="missing/"' in files["index.html"].decode()
