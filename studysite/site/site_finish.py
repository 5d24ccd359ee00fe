"""What happens around MkDocs' own build: per-page language links, the other languages' builds, search index, sitemap."""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from .. import cache, parallel
from ..errors import Problem, SiteError, os_error
from ..i18n import catalogues
from ..languages import Language, Languages, from_table
from ..project import ROOT
from . import engine

log = logging.getLogger("mkdocs.plugins.studysite")
_STARTED = time.perf_counter()
PAGEFIND = ROOT / "node_modules" / ".bin" / "pagefind"
"""The npm package's own launcher: it runs the extended binary of this platform's `@pagefind/*` package."""


def step(what: str) -> None:
    """Log a build step with the seconds since the process started (`mkdocs build --verbose` shows them)."""
    log.debug("studysite: %.1f s: %s", time.perf_counter() - _STARTED, what)


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
            "html_lang": lang["html_lang"],
            "hreflang": lang["hreflang"],
            "name": lang["name"],
            "absolute": site_root + lang["root"] + page.url,
            # relative to this page: up to this language's root, up to the site root, down again
            "href": "../" * page.url.count("/") + "../" * here["root"].count("/") + lang["root"] + page.url,
            "current": lang["lang"] == qa["lang"],
            "root": lang["root"],
            "og_locale": catalogues()[lang["lang"]]["locale.og"],
        }
        for lang in qa["languages"]
    ]
    # This language's UI strings (studysite/i18n.py) for theme overrides: {{ qa_t["nav.tags"] }}; the
    # catalogue itself, read once per process (building a dict per page was 4 % of a 5,000 build's CPU)
    context["qa_t"] = catalogues()[qa["lang"]]
    # Material prints these as <link rel="alternate" hreflang> and shows its switcher when set.
    config.extra["alternate"] = [
        {"name": a["name"], "lang": a["hreflang"], "link": a["absolute"]} for a in context["qa_alternates"]
    ]


def languages_of(config: Any) -> Languages:
    """The language table of a loaded, checked config (siteconfig.check_qa)."""
    return from_table(config.extra["qa"]["languages"])


def build_others(config: Any, dirty: bool) -> None:
    """Build every other language's config into <site_dir>/<root> with the same strictness, in this process."""
    site_engine = engine.current()
    for item in languages_of(config).extra:
        conf_file, site_dir, site_url, strict = _language_args(config, item)
        site_engine.build(conf_file, site_dir, site_url=site_url, strict=strict, dirty=dirty)


def _language_args(config: Any, item: Language) -> tuple[Path, Path, str, bool]:
    """The config file, site folder, address and strictness of `item`'s build, from the main config's."""
    main_file = Path(config.config_file_path)
    conf = main_file.with_name(item.config) if item.config else main_file
    site_url = config.site_url and config.site_url.rstrip("/") + "/" + item.root
    return conf, Path(config.site_dir) / item.root.rstrip("/"), site_url or "", bool(config.strict)


class LanguageBuild:
    """One language's site, built by the engine in a child process, beside the other languages' builds.

    The builds are independent (each language has its own docs folder, generated before any starts),
    and MkDocs renders on one core: side by side they take about the time of the longest one on
    enough cores. The main language's build (the driver starts one too) writes the site folder itself.
    MkDocs empties the site folder before it writes but leaves its hidden entries
    alone, so every other language is written into <site_dir>/.<lang>-build and `finish` moves it
    to <site_dir>/<root>. A killed build's leftover goes with its site folder (`make site` stages
    the whole site and cleans up killed stagings) or is removed by the next build here.
    `env`: the child's environment (None: this process's).
    """

    def __init__(self, config: Any, item: Language, env: dict[str, str] | None = None) -> None:
        conf_file, site_dir, site_url, strict = _language_args(config, item)
        self.item = item
        self.final = site_dir
        self.scratch = site_dir if not item.root else self.final.with_name(f".{item.lang}-build")
        if item.root:
            shutil.rmtree(self.scratch, ignore_errors=True)
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (open until finish() or cancel())
        self.done = False
        site_engine = engine.current()
        # The child dies with this process: a killed build must not leave it writing into a folder
        # the next build cleans up. Forked where that is safe (no other threads: not in `mkdocs serve`'s
        # rebuilds, beside its server): it starts with this process's interpreter, imports and memory,
        # where a new one spends ~0.3 s of CPU starting, importing and reading before it builds.
        self.proc: subprocess.Popen[bytes] | parallel.Program
        if parallel.can_fork():
            main = functools.partial(site_engine.child_build, conf_file, self.scratch, site_url=site_url, strict=strict)
            self.proc = parallel.Program(main, output=self.log.fileno(), env=env)
        else:
            cmd = site_engine.build_command(conf_file, self.scratch, site_url=site_url, strict=strict)
            parent = os.getpid()
            self.proc = subprocess.Popen(
                cmd, stdout=self.log, stderr=subprocess.STDOUT, env=env, preexec_fn=lambda: parallel.die_with(parent)
            )

    def finish(self) -> None:
        """Wait for the child, pass its log on, and put its site in place (raises SiteError if it failed:
        an operating-system failure as its one line, `site/x.html: no space left on device (ENOSPC)`).
        Once: a second call returns at once."""
        if self.done:
            return
        self.done = True
        code = self.proc.wait()
        self.log.seek(0)
        text = self.log.read().decode("utf-8", "replace")
        self.log.close()
        failure = _os_failure(text) if code != 0 else None
        if failure is None:
            # Each record once, at its own level, named by language: `WARNING -  en: ...`. Lines without
            # a level (a record's continuation, a traceback) take the last record's, or ERROR if it failed.
            level = logging.ERROR if code != 0 else logging.INFO
            for line in text.splitlines():
                record = _LOG_RECORD.match(line)
                if record:
                    level, line = logging.getLevelNamesMapping()[record["level"]], record["message"]
                log.log(level, "%s: %s", self.item.lang, line)
        if code != 0:
            if self.item.root:
                shutil.rmtree(self.scratch, ignore_errors=True)
            if failure is not None:
                failure.filename = failure.filename or str(self.scratch)  # what the engine was writing
                raise SiteError(os_error(failure))
            raise SiteError(
                f"the {self.item.name} site ({self.item.config or 'the main config'}) failed to build "
                f"(exit {code}; its log is above)"
            )
        if self.item.root:
            shutil.rmtree(self.final, ignore_errors=True)
            os.replace(self.scratch, self.final)

    def running(self) -> bool:
        return self.proc.poll() is None

    def cancel(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        if self.item.root:
            shutil.rmtree(self.scratch, ignore_errors=True)


class LanguageBuilds:
    """A LanguageBuild of each of `items`, all started at once (the machine's cores run them side by side)."""

    def __init__(self, config: Any, items: Iterable[Language], env: dict[str, str] | None = None) -> None:
        self.builds: list[LanguageBuild] = []
        try:
            for item in items:
                self.builds.append(LanguageBuild(config, item, env))
        except BaseException:
            self.cancel()
            raise

    def finish(self) -> None:
        """Wait for each child in turn and put its site in place; the first failure cancels the rest."""
        try:
            for build in self.builds:
                build.finish()
        except BaseException:
            self.cancel()
            raise

    def running(self) -> bool:
        return any(build.running() for build in self.builds)

    def cancel(self) -> None:
        for build in self.builds:
            build.cancel()


def _os_failure(log_text: str) -> OSError | None:
    """The OSError that ended a child's Python traceback (its last line,
    `OSError: [Errno 28] No space left on device: 'x'`), None for any other end. A copy's error names
    both files (`'src' -> 'dst'`): the one written to is the one it concerns."""
    lines = [line for line in log_text.splitlines() if line.strip()]
    match = _OS_ERROR_LINE.match(lines[-1]) if lines and "Traceback" in log_text else None
    if match is None:
        return None
    number, message, path = int(match["errno"]), match["message"], match["to"] or match["path"]
    return OSError(number, message, path) if path is not None else OSError(number, message)


_LOG_RECORD = re.compile(r"^(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL) *-  (?P<message>.*)$")
"""A record of an engine's log (engine.py): its level name, padded, then `-  ` and the message."""
_OS_ERROR_LINE = re.compile(
    r"^(?:\w+\.)*\w*(?:Error|Exception): \[Errno (?P<errno>\d+)\] (?P<message>[^:]+?)"
    r"(?:: '(?P<path>.*?)'(?: -> '(?P<to>.*)')?)?$"
)


def write_language_bundles(site_dir: Path, config: Any) -> None:
    """The front-end bundles into each language's folder, once every language's pages are in place
    (~0.1 s; before finish_site, whose offline step hashes every file)."""
    from .bundles import Target, write_bundles

    write_bundles([Target(site_dir / item.root, item.lang, item.root) for item in languages_of(config).items])
    step("front-end bundles written (esbuild)")


def log_problem(problem: Problem) -> None:
    """A FILE:LINE problem of a site check, logged as an error (what MkDocs' strict mode counts)."""
    log.error(str(problem))


def finish_site(
    site_dir: Path,
    config: Any,
    generated: Any = None,
    downloads: Any = None,
    report: Callable[[Problem], None] = log_problem,
) -> None:
    """Check nothing was lost or invented, index both languages with Pagefind, write one sitemap.

    `generated` is the build.Result the pages came from (None: nothing to check against). Pagefind
    runs as a child process while this one checks the site and writes the downloads, and a forked
    child zips the site for file:// (all three only read the HTML pages Pagefind reads, and Pagefind
    indexes nothing they write; the zip takes Pagefind's files and the decks last). `downloads` is what
    `start_downloads` returned when they started earlier. `report` receives each FILE:LINE problem
    of a failed check before the SiteError.
    """
    from .offline import begin_zip, finish_offline, site_languages
    from .vendor import copy_vendor

    copy_vendor(site_dir)  # the browser libraries (studysite/vendor.py), before the offline files hash the site
    if downloads is None and generated is not None:
        downloads = start_downloads(site_dir, config, generated, fork=False)
    write_sitemap(site_dir, config)
    if generated is not None:
        from .search_terms import write_search_terms

        write_search_terms(site_dir, generated.site, config.extra["qa"]["languages"])
    step("sitemap written")
    # Every page is in place now: the offline zip's first part (every file but Pagefind's; the decks
    # last, once the gate opens) is compressed by a forked child beside Pagefind, which leaves part of
    # the second core idle.
    decks_written = parallel.Gate()
    zip_first = begin_zip(site_dir, site_languages(config), fork=True, decks=decks_written)
    pagefind: subprocess.Popen[str] | None = None
    try:
        pagefind = start_pagefind(site_dir)
        if generated is not None and generated.sources is not None:
            from .verify import check_built_site, check_lists

            # a bank's lines converted for a generated language, kept beside docs/ as the pages' cache is
            lines = cache.shard(Path(config.docs_dir), "check-lines")
            problems = check_built_site(generated.sources.banks, generated.site, site_dir, lines)
            lines.save()
            problems += check_lists(generated.site, site_dir)
            for problem in problems:
                report(problem)
            if problems:
                raise SiteError(f"{len(problems)} bank line(s) or page(s) do not match the built site (see above)")
        step("built site checked against the banks")
        if downloads is not None:
            written = downloads.result()
            log.info("studysite: wrote %d deck and CSV file(s) into %s", len(written), site_dir / "downloads")
        decks_written.open()
        step("downloads written")
        wait_pagefind(pagefind, site_dir, _languages(config), report)
        step("search index written (Pagefind)")
    except BaseException:
        if downloads is not None:
            downloads.cancel()
        zip_first.cancel()
        if pagefind is not None:
            stop_pagefind(pagefind)
        raise
    finally:
        decks_written.open()
    # Last: it hashes the finished site (a file changed after it would fail the worker's checks).
    finish_offline(site_dir, config, zip_first)


def start_downloads(site_dir: Path, config: Any, generated: Any, *, fork: bool) -> parallel.Side[list[str]]:
    """The Anki decks and CSV files, written by a forked child from now on (`fork`), or in this
    process when `result()` asks for them. They come from the site model, not from the built pages:
    `on_post_build` starts them while the English build is still running, on the core the Chinese
    build has just freed."""
    return parallel.Side(lambda: write_downloads(site_dir, config, generated), fork=fork and parallel.can_fork())


def write_downloads(site_dir: Path, config: Any, generated: Any) -> list[str]:
    """The Anki decks and CSV files of every bank and tag, into <site>/downloads/ (studysite/anki.py)."""
    from ..takeaway.anki import source_date, write_decks
    from .settings import source_epoch

    banks = generated.sources.banks if generated.sources is not None else ()
    folders = {Path(b.path).parent for pair in banks for b in pair if b is not None}
    # every input a note depends on: bank texts, translations, taxonomy (tags), glossary
    # (not the locks: the build itself rewrites them, so their time is the build's clock)
    paths = [
        p
        for folder in folders
        for p in folder.iterdir()
        if p.is_file() and not p.name.startswith(".") and p.name not in ("slugs.lock", "translations.lock")
    ]
    # The last commit's time in a clean checkout (the same in every clone), else the files' times.
    stamp = source_epoch(sorted(folders)[0]) if folders else ""
    return write_decks(
        generated.site,
        site_dir,
        config.site_url or "",
        int(stamp) if stamp.isdigit() else source_date(paths),
        cache.files(Path(config.docs_dir), "downloads"),  # the files the last build made, by their inputs
    )


def run_pagefind(site_dir: Path, config: Any) -> None:
    wait_pagefind(start_pagefind(site_dir), site_dir, _languages(config))


def start_pagefind(site_dir: Path) -> subprocess.Popen[str]:
    """Start indexing both languages. A site without search is a failed build, not a warning."""
    binary = Path(os.environ.get("PAGEFIND_BINARY", PAGEFIND))
    if not binary.exists():
        raise SiteError(
            f"Pagefind is not installed ({binary}): the site would have no search. Run `npm ci` (make does it)."
        )
    out = site_dir / "pagefind"
    if out.exists():
        shutil.rmtree(out)
    return subprocess.Popen(
        [str(binary), "--site", str(site_dir), "--output-subdir", "pagefind", "--quiet"]
        # The theme's chrome (header with the page title, skip link, back-to-top) is not content:
        # indexed, it would make removed-question pages (content data-pagefind-ignore) findable.
        + [arg for sel in (".md-header", ".md-skip", ".md-top") for arg in ("--exclude-selectors", sel)]
        # Of a question page (data-pagefind-body, overrides/main.html) only the title and the answer
        # (Pagefind skips <nav>, so the tags too): related questions, bank link and pager would
        # otherwise match other questions' words.
        + ["--exclude-selectors", ".qa-search-body > :not(h1):not(.qa-answer)"]
        # Of the glossary, each term's heading (a result leads to its anchor), names and definitions;
        # not the page's own title and intro, nor the questions that use a term.
        + ["--exclude-selectors", ".qa-search-glossary > :not(h2):not(.qa-term)"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # The launcher (node) runs the binary as its child: a session of their own lets a failed build
        # stop both (stop_pagefind), not only the launcher.
        start_new_session=True,
    )


def stop_pagefind(proc: subprocess.Popen[str]) -> None:
    """End Pagefind and the binary its launcher started."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def wait_pagefind(
    proc: subprocess.Popen[str], site_dir: Path, languages: list[str], report: Callable[[Problem], None] = log_problem
) -> None:
    """Wait for the index, then check that every language has one (a missing index fails the build)."""
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise SiteError(f"pagefind failed:\n{out}\n{err}")
    from .verify import check_search

    problems = check_search(site_dir, languages)
    for problem in problems:
        report(problem)
    if problems:
        raise SiteError(f"search is missing from the built site ({len(problems)} problem(s), see above)")


def write_sitemap(site_dir: Path, config: Any) -> None:
    """One sitemap for every language: every page with its hreflang alternates (Google's format)."""
    root = (config.site_url or "").rstrip("/") + "/"
    table = languages_of(config)
    main, others = table.main, table.extra
    skipped = (*(item.root for item in others), "pagefind/", "assets/")
    pages = []
    for index in sorted(site_dir.rglob("index.html")):
        rel = index.parent.relative_to(site_dir).as_posix()
        rel = "" if rel == "." else rel + "/"
        if rel.startswith(skipped):
            continue
        if not all((site_dir / item.root / rel / "index.html").exists() for item in others) or _is_redirect(index):
            continue
        pages.append(rel)
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">',
    ]
    for rel in pages:
        for item in table.items:
            lines.append(f"  <url><loc>{escape(root + item.root + rel)}</loc>")
            for alt in table.items:
                lines.append(
                    f'    <xhtml:link rel="alternate" hreflang="{alt.hreflang}" href="{escape(root + alt.root + rel)}"/>'
                )
            lines.append(
                f'    <xhtml:link rel="alternate" hreflang="x-default" href="{escape(root + main.root + rel)}"/>'
            )
            lines.append("  </url>")
    lines.append("</urlset>")
    (site_dir / "sitemap.xml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    stale = [site_dir / "sitemap.xml.gz"]
    stale += [site_dir / item.root / name for item in others for name in ("sitemap.xml", "sitemap.xml.gz")]
    for path in stale:
        path.unlink(missing_ok=True)
    # Crawlers read robots.txt only at a host's root: this one counts on a custom domain or a
    # USER.github.io site; under /REPO/ it is harmless, and the sitemap is found through it or Search Console.
    robots = f"User-agent: *\nAllow: /\n\nSitemap: {root}sitemap.xml\n"
    (site_dir / "robots.txt").write_text(robots, encoding="utf-8")


def _is_redirect(index: Path) -> bool:
    with open(index, encoding="utf-8") as handle:
        head = handle.read(16384).split("</head>", 1)[0]  # Material's <head> runs past 2 KB
    return 'http-equiv="refresh"' in head or 'name="robots" content="noindex"' in head


def _languages(config: Any) -> list[str]:
    """The site's languages (extra.qa.languages) as Pagefind names their indexes (their <html lang>,
    lower-cased): each must have its own search index."""
    return [item["html_lang"].lower() for item in config.extra["qa"]["languages"]]
