"""The front-end bundles: esbuild joins and minifies overrides/assets/qa/ per studysite/bundles.yml.

Each kind of page (question, page) gets `assets/qa/NAME.min.js` (deferred) and `NAME.min.css`, with
source maps whose sources are named by their path in this repository, so the output does not
depend on where the site is built. The scripts are plain IIFEs: an entry file of side-effect
imports bundles them in order without rewriting them as modules.

A language's scripts start with its interface strings (the catalogue's `js.` keys of the scripts that
kind of page runs, studysite/i18n.py): each language's folder gets bundles of its own, so no page
carries the strings in its HTML and the browser caches them with the script.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..errors import SiteError
from ..i18n import catalogues
from ..project import ROOT

SPEC = Path(__file__).with_name("bundles.yml")
SOURCES = ROOT / "overrides" / "assets" / "qa"
ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"
OUT = "assets/qa"
"""Where the bundles go, below each language's site folder."""
STRINGS_DATA = "strings-data.js"
"""The entry's first import in a language's script bundle: `window.qaStringsData = {...}` (strings.js reads it)."""
EVERY_PAGE = ("offline.js",)
"""Scripts every page loads besides its bundle (overrides/main.html)."""
ALONE = "alone"
"""The key of bundles.yml that lists files published on their own too (not a kind of page)."""


@dataclass(frozen=True)
class Bundle:
    """The files of one kind of page, in the order they run."""

    kind: str
    """`question` or `page` (overrides/main.html chooses)."""
    js: tuple[str, ...]
    """Script files of overrides/assets/qa/."""
    css: tuple[str, ...]
    """Stylesheets of overrides/assets/qa/."""


def load_bundles(spec: Path = SPEC) -> list[Bundle]:
    """The bundles of bundles.yml; a file it names that does not exist is an error naming both."""
    data = yaml.safe_load(spec.read_text(encoding="utf-8"))
    bundles = [
        Bundle(kind, tuple(v.get("js", ())), tuple(v.get("css", ()))) for kind, v in data.items() if kind != ALONE
    ]
    named = [(b.kind, name) for b in bundles for name in b.js + b.css] + [(ALONE, n) for n in data.get(ALONE, ())]
    missing = [
        f"{spec.name}: {kind}: no such file overrides/assets/qa/{name}"
        for kind, name in named
        if not (SOURCES / name).is_file()
    ]
    if missing:
        raise SiteError("\n".join(missing))
    return bundles


def load_alone(spec: Path = SPEC) -> tuple[str, ...]:
    """The files also published on their own (bundles.yml `alone`), for pages that load them on demand."""
    return tuple(yaml.safe_load(spec.read_text(encoding="utf-8")).get(ALONE, ()))


@functools.cache
def page_scripts() -> dict[str, tuple[str, ...]]:
    """The scripts a page of each kind may run: its bundle's, those it may load on demand (`alone`) and
    offline.js, which overrides/main.html adds to every page. The page carries their strings."""
    alone = tuple(name for name in load_alone() if name.endswith(".js"))
    return {b.kind: (*b.js, *alone, *EVERY_PAGE) for b in load_bundles() if b.js}


@dataclass(frozen=True)
class Target:
    """One language's site folder, which gets every bundle with that language's strings."""

    site_dir: Path
    lang: str
    root: str
    """Its folder below the site root (`""`, `en/`): strings.js gives it to the scripts."""


@dataclass(frozen=True)
class _Entry:
    """One bundle of the esbuild run: the entry file `folder/name` below the work folder, whose
    imports are `files` (the sources, copied into the work folder itself) after a language's strings."""

    folder: str
    name: str
    files: tuple[str, ...]
    label: str
    """What a source map names the entry file by, if esbuild lists it (`studysite/bundles.yml#LABEL`)."""
    lang: str | None = None
    """The language whose strings a script bundle starts with (`strings`, written as STRINGS_DATA in `folder`)."""
    strings: str = ""
    """Those strings as JSON (i18n.Catalogues.script_strings)."""
    alone: bool = False
    """A file published under its own name (bundles.yml `alone`): its map says which file it maps."""


def write_bundles(targets: list[Target], bundles: list[Bundle] | None = None) -> list[str]:
    """Build every bundle (the scripts once per language) into each language's site folder; returns the
    file names. One esbuild run builds them all, each bundle from an entry file in a folder of its own:
    the same bytes as one run per bundle and language (21 runs), in 0.16-0.24 s instead of 0.39-0.51 s
    and 0.22-0.32 s of CPU instead of 0.52-0.68 (five builds each, alternating, 2026-12-06): every site
    build, `make serve`'s first among them, and ~25 builds in `make test`."""
    if not ESBUILD.exists():
        raise SiteError(f"esbuild is not installed ({ESBUILD}). Run `npm ci` (make does it).")
    bundles = bundles if bundles is not None else load_bundles()
    alone = load_alone()
    scripts = page_scripts()
    bundled = {name for bundle in bundles for name in bundle.js + bundle.css}
    members = bundled - set(alone)
    with tempfile.TemporaryDirectory(prefix="studysite-bundles-") as tmp:
        work = Path(tmp)
        for name in bundled | set(alone):
            shutil.copyfile(SOURCES / name, work / name)  # the map's paths are then short and the same everywhere
        # the same in every language: stylesheets and the `alone` files
        shared = [_Entry("shared", f"{b.kind}.min.css", b.css, b.kind) for b in bundles if b.css]
        shared += [_Entry("shared", name, (name,), f"alone-{name.replace('.', '-')}", alone=True) for name in alone]
        own: list[list[_Entry]] = []
        for number, language in enumerate(targets):
            entries = []
            for bundle in bundles:
                if bundle.js:  # a folder of its own: the strings of the language for that kind of page
                    data = catalogues().script_strings(language.lang, language.root, scripts[bundle.kind])
                    folder = f"language-{number}-{bundle.kind}"
                    entries.append(_Entry(folder, f"{bundle.kind}.min.js", bundle.js, bundle.kind, language.lang, data))
            own.append(entries)
        _esbuild(work, [*shared, *(entry for entries in own for entry in entries)])
        names = [made for entry in shared for made in (entry.name, f"{entry.name}.map")]
        names += [made for entry in (own[0] if own else []) for made in (entry.name, f"{entry.name}.map")]
        for language, entries in zip(targets, own, strict=True):
            out = language.site_dir / OUT
            out.mkdir(parents=True, exist_ok=True)
            for entry in (*shared, *entries):
                for made in (entry.name, f"{entry.name}.map"):
                    shutil.copyfile(work / "out" / entry.folder / made, out / made)
            # MkDocs copied the theme's files too: a bundled one is loaded by no page (and the
            # offline worker would precache it for nothing).
            for name in members:
                (out / name).unlink(missing_ok=True)
    return names


def _esbuild(work: Path, entries: list[_Entry]) -> None:
    """esbuild's bundle of every entry, into work/out/FOLDER/NAME (each with NAME.map); the maps name
    their sources by their path in this repository."""
    for entry in entries:
        folder = work / entry.folder
        folder.mkdir(exist_ok=True)
        first = []
        if entry.lang is not None:
            (folder / STRINGS_DATA).write_text(f"window.qaStringsData = {entry.strings};\n", encoding="utf-8")
            first = [f'import "./{STRINGS_DATA}";\n']
        ext = entry.name.rsplit(".", 1)[1]
        lines = first + [f'import "../{name}";\n' if ext == "js" else f'@import "../{name}";\n' for name in entry.files]
        (folder / entry.name).write_text("".join(lines), encoding="utf-8")
    args = [str(ESBUILD), *(f"{e.folder}/{e.name}" for e in entries), "--bundle", "--minify", "--sourcemap"]
    args += ["--charset=utf8", "--log-level=warning", "--outdir=out", "--outbase=.", "--entry-names=[dir]/[name]"]
    args += ["--format=iife", "--target=es2019"]  # for the scripts (a stylesheet has no format, no ES target)
    proc = subprocess.run(
        args, cwd=work, capture_output=True, text=True, check=False, env=dict(os.environ, NO_COLOR="1")
    )
    if proc.returncode != 0:
        raise SiteError(f"esbuild failed for the front-end bundles (files of overrides/assets/qa/):\n{proc.stderr}")
    root = work.resolve()
    for entry in entries:
        source_map = work / "out" / entry.folder / f"{entry.name}.map"
        data = json.loads(source_map.read_text(encoding="utf-8"))
        data["sources"] = [_source_name(root, entry, (source_map.parent / s).resolve()) for s in data["sources"]]
        if entry.alone:
            data["file"] = entry.name
        source_map.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def _source_name(root: Path, entry: _Entry, path: Path) -> str:
    """What a map calls one of an entry's sources (`path`, resolved, in the work folder `root`): its file in
    overrides/assets/qa/, the catalogue of the language whose strings it is, or the bundle's line in
    bundles.yml (the entry file itself)."""
    if path.parent == root and path.name in entry.files:
        return f"overrides/assets/qa/{path.name}"
    if entry.lang is not None and path == root / entry.folder / STRINGS_DATA:
        return f"studysite/strings/{entry.lang}.yml"
    return f"studysite/bundles.yml#{entry.label}"
