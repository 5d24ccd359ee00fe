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


def write_bundles(targets: list[Target], bundles: list[Bundle] | None = None) -> list[str]:
    """Build every bundle (the scripts once per language) into each language's site folder; returns the file names."""
    if not ESBUILD.exists():
        raise SiteError(f"esbuild is not installed ({ESBUILD}). Run `npm ci` (make does it).")
    bundles = bundles if bundles is not None else load_bundles()
    alone = load_alone()
    scripts = page_scripts()
    members = {name for bundle in bundles for name in bundle.js + bundle.css} - set(alone)
    with tempfile.TemporaryDirectory(prefix="studysite-bundles-") as tmp:
        work = Path(tmp)
        shared: list[str] = []  # the same in every language: stylesheets and the `alone` files
        for bundle in bundles:
            if bundle.css:
                shared += _esbuild(work, bundle.kind, "css", bundle.css)
        for name in alone:  # minified under its own name, so the pages' on-demand loads find it
            ext = name.rsplit(".", 1)[1]
            kind = f"alone-{name.replace('.', '-')}"
            for made in _esbuild(work, kind, ext, (name,)):
                target = made.replace(f"{kind}.min.{ext}", name)
                (work / "out" / made).rename(work / "out" / target)
                shared.append(target)
            _rename_map(work / "out", f"{kind}.min.{ext}", name)
        names = list(shared)
        for language in targets:
            out = language.site_dir / OUT
            out.mkdir(parents=True, exist_ok=True)
            for name in shared:
                shutil.copyfile(work / "out" / name, out / name)
            for bundle in bundles:
                if bundle.js:
                    data = catalogues().script_strings(language.lang, language.root, scripts[bundle.kind])
                    built = _esbuild(work, bundle.kind, "js", bundle.js, strings=(language.lang, data))
                    for name in built:
                        shutil.move(work / "out" / name, out / name)
                    if language is targets[0]:
                        names += built
            # MkDocs copied the theme's files too: a bundled one is loaded by no page (and the
            # offline worker would precache it for nothing).
            for name in members:
                (out / name).unlink(missing_ok=True)
    return names


def _esbuild(
    work: Path, kind: str, ext: str, files: tuple[str, ...], strings: tuple[str, str] | None = None
) -> list[str]:
    """esbuild's bundle of `files` (a script bundle starts with `strings`: a language and its JSON)."""
    entry = work / f"_entry-{kind}.{ext}"  # never a member's name (a kind may be named like one of its files)
    if ext == "js":
        first = ""
        if strings is not None:
            (work / STRINGS_DATA).write_text(f"window.qaStringsData = {strings[1]};\n", encoding="utf-8")
            first = f'import "./{STRINGS_DATA}";\n'
        entry.write_text(first + "".join(f'import "./{name}";\n' for name in files), encoding="utf-8")
    else:
        entry.write_text("".join(f'@import "./{name}";\n' for name in files), encoding="utf-8")
    for name in files:  # beside the entry, so the map's paths are short and the same on every machine
        shutil.copyfile(SOURCES / name, work / name)
    out = f"{kind}.min.{ext}"
    args = [str(ESBUILD), entry.name, "--bundle", "--minify", "--sourcemap", "--charset=utf8"]
    args += ["--log-level=warning", f"--outfile=out/{out}"]
    if ext == "js":
        args += ["--format=iife", "--target=es2019"]
    proc = subprocess.run(
        args, cwd=work, capture_output=True, text=True, check=False, env=dict(os.environ, NO_COLOR="1")
    )
    if proc.returncode != 0:
        raise SiteError(f"esbuild failed for the {kind} {ext} bundle:\n{proc.stderr}")
    source_map = work / "out" / f"{out}.map"
    data = json.loads(source_map.read_text(encoding="utf-8"))
    # ../NAME (relative to out/) -> overrides/assets/qa/NAME: where a reader of the map finds the file
    data["sources"] = [
        f"overrides/assets/qa/{Path(s).name}"
        if Path(s).name in files
        else f"studysite/strings/{strings[0]}.yml"
        if strings is not None and Path(s).name == STRINGS_DATA
        else f"studysite/bundles.yml#{kind}"
        for s in data["sources"]
    ]
    source_map.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    return [out, f"{out}.map"]


def _rename_map(out: Path, built: str, name: str) -> None:
    """A file built as `built` and renamed to `name`: its map and its sourceMappingURL follow."""
    code = out / name
    text = code.read_text(encoding="utf-8").replace(f"sourceMappingURL={built}.map", f"sourceMappingURL={name}.map")
    code.write_text(text, encoding="utf-8")
    data = json.loads((out / f"{name}.map").read_text(encoding="utf-8"))
    data["file"] = name
    (out / f"{name}.map").write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
