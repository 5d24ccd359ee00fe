"""What happens around MkDocs' own build: per-page language links, the English build, search index, sitemap."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

log = logging.getLogger("mkdocs.hooks.studysite")
ROOT = Path(__file__).resolve().parent.parent
PAGEFIND = ROOT / "node_modules" / "@pagefind" / "linux-x64" / "bin" / "pagefind_extended"


def page_context(context: dict[str, Any], page: Any, config: Any) -> None:
    """Give templates this page's address in every language (switcher and hreflang)."""
    qa = config.extra["qa"]
    here = next(lang for lang in qa["languages"] if lang["lang"] == qa["lang"])
    site_root = (config.site_url or "").rstrip("/") + "/"
    site_root = (
        site_root[: len(site_root) - len(here["root"])]
        if here["root"] and site_root.endswith(here["root"])
        else site_root
    )
    context["qa_alternates"] = [
        {
            "lang": lang["lang"],
            "name": lang["name"],
            "absolute": site_root + lang["root"] + page.url,
            # relative to this language's site root, for mkdocs' `url` filter
            "site_path": ("../" if here["root"] else "") + lang["root"] + page.url,
            "current": lang["lang"] == qa["lang"],
        }
        for lang in qa["languages"]
    ]
    # Material prints these as <link rel="alternate" hreflang> and shows its switcher when set.
    config.extra["alternate"] = [
        {"name": a["name"], "lang": a["lang"], "link": a["absolute"]} for a in context["qa_alternates"]
    ]


def build_english(config: Any, dirty: bool) -> None:
    """Build mkdocs.en.yml into <site_dir>/en with the same strictness."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    en_file = Path(config.config_file_path).with_name("mkdocs.en.yml")
    en = load_config(
        str(en_file),
        site_dir=str(Path(config.site_dir) / "en"),
        site_url=config.site_url and config.site_url.rstrip("/") + "/en/",
        strict=config.strict,
    )
    en.plugins.on_startup(command="build", dirty=dirty)
    try:
        build(en, dirty=dirty)
    finally:
        en.plugins.on_shutdown()


def finish_site(site_dir: Path, config: Any) -> None:
    """Index both languages with Pagefind and write one sitemap with hreflang for both."""
    run_pagefind(site_dir)
    write_sitemap(site_dir, config)


def run_pagefind(site_dir: Path) -> None:
    binary = Path(os.environ.get("PAGEFIND_BINARY", PAGEFIND))
    if not binary.exists():
        log.warning("Pagefind not installed (%s): the site has no search. Run `npm ci` (make does it).", binary)
        return
    out = site_dir / "pagefind"
    if out.exists():
        shutil.rmtree(out)
    proc = subprocess.run(
        [str(binary), "--site", str(site_dir), "--output-subdir", "pagefind", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"pagefind failed:\n{proc.stdout}\n{proc.stderr}")


def write_sitemap(site_dir: Path, config: Any) -> None:
    """One sitemap for both languages: every page with its hreflang alternates (Google's format)."""
    root = (config.site_url or "").rstrip("/") + "/"
    pages = []
    for index in sorted(site_dir.rglob("index.html")):
        rel = index.parent.relative_to(site_dir).as_posix()
        rel = "" if rel == "." else rel + "/"
        if rel.startswith(("en/", "pagefind/", "assets/")) or rel == "en/":
            continue
        if not (site_dir / "en" / rel / "index.html").exists() or _is_redirect(index):
            continue
        pages.append(rel)
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">',
    ]
    for rel in pages:
        for _lang, prefix in (("zh", ""), ("en", "en/")):
            lines.append(f"  <url><loc>{escape(root + prefix + rel)}</loc>")
            for alt, alt_prefix in (("zh", ""), ("en", "en/")):
                lines.append(
                    f'    <xhtml:link rel="alternate" hreflang="{alt}" href="{escape(root + alt_prefix + rel)}"/>'
                )
            lines.append(f'    <xhtml:link rel="alternate" hreflang="x-default" href="{escape(root + rel)}"/>')
            lines.append("  </url>")
    lines.append("</urlset>")
    (site_dir / "sitemap.xml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for stale in (site_dir / "sitemap.xml.gz", site_dir / "en" / "sitemap.xml", site_dir / "en" / "sitemap.xml.gz"):
        stale.unlink(missing_ok=True)


def _is_redirect(index: Path) -> bool:
    with open(index, encoding="utf-8") as handle:
        head = handle.read(2048)
    return 'http-equiv="refresh"' in head or 'name="robots" content="noindex"' in head
