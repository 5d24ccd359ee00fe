"""Every string the interface shows, one catalogue per language (`strings/<lang>.yml`), checked and loaded once.

Python reads them with `t()` (or `STRINGS[key][lang]`), templates through `qa_t` (studysite/site/site_finish.py
page_context), the 404 page and the scripts through `Catalogues`. Add a key to every catalogue, never an
`if lang`.
"""

from __future__ import annotations

import functools
import json
import re
import string
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .errors import Problems, display_path
from .model import LANGS, Lang
from .sources.yamlfile import load_yaml

FOLDER = Path(__file__).with_name("strings")
"""Where the catalogues are: one `<lang>.yml` per language of model.LANGS."""
SCRIPTS = "js."
"""Keys below this prefix are the scripts' (`js.<file stem>.<key>`); the pages carry them as JSON."""


@dataclass(frozen=True)
class Catalogue:
    """One language's strings, as read from its file."""

    lang: Lang
    """The language code, as in mkdocs.yml `extra.qa.languages`."""
    path: Path
    """The file it was read from."""
    texts: Mapping[str, str]
    """Every key's text, `{name}` placeholders unfilled, in the file's order."""
    lines: Mapping[str, int]
    """The line of every key in `path` (also of those whose text was refused)."""


@dataclass(frozen=True)
class Catalogues:
    """Every language's catalogue, the same keys and placeholders in each (load_catalogues checks)."""

    by_lang: Mapping[Lang, Catalogue]
    """The catalogues in model.LANGS order."""
    _json: dict[tuple[str, str, tuple[str, ...]], str] = field(default_factory=dict, compare=False, repr=False)

    def __getitem__(self, lang: str) -> Mapping[str, str]:
        """One language's texts: `catalogues[lang]["404.title"]` (templates use this form)."""
        return self.by_lang[lang].texts  # type: ignore[index]

    def script_strings(self, lang: str, root: str, scripts: Iterable[str] | None = None) -> str:
        """What a page of `lang` gives its scripts (overrides/assets/qa/strings.js reads it): the language,
        its locale, its folder below the site root, and the `js.<file>.` strings of the files `scripts`
        names (None: of every script), as JSON that is safe inside a <script> element."""
        stems = tuple(sorted(name.rsplit(".", 1)[0] for name in scripts)) if scripts is not None else None
        key = (lang, root, stems if stems is not None else ("*",))
        if key not in self._json:
            texts = self[lang]
            prefixes = tuple(f"{SCRIPTS}{stem}." for stem in stems) if stems is not None else (SCRIPTS,)
            data = {
                "lang": lang,
                "locale": texts["locale"],
                "root": root,
                "strings": {k[len(SCRIPTS) :]: v for k, v in texts.items() if k.startswith(prefixes)},
            }
            text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
            self._json[key] = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        return self._json[key]


def load_catalogues(folder: Path = FOLDER, langs: Iterable[Lang] = LANGS) -> Catalogues:
    """Read and check every language's catalogue; every problem found is reported at once, as FILE:LINE.

    The first language is the reference: another catalogue's key must be in it and take the same
    placeholders. Raises errors.BuildError.
    """
    problems = Problems()
    found: dict[Lang, Catalogue] = {}
    for lang in langs:
        catalogue = _read(folder / f"{lang}.yml", lang, problems)
        if catalogue is not None:
            found[lang] = catalogue
    _compare(list(found.values()), problems)
    problems.raise_if_any()
    return Catalogues(found)


@functools.cache
def catalogues() -> Catalogues:
    """Every language's catalogue, read and checked once, on first use (generate() asks first, so that
    their problems are reported as the build's)."""
    return load_catalogues()


def t(key: str, lang: Lang, **values: object) -> str:
    """The string `key` in `lang`, with `{name}` placeholders filled."""
    return STRINGS[key][lang].format(**values)


class LangTexts(dict[str, str]):
    """One key's text in every language (language -> text), as `STRINGS[key]` gives it."""


def _read(path: Path, lang: Lang, problems: Problems) -> Catalogue | None:
    doc = load_yaml(path, problems)
    if doc is None:
        return None
    if not isinstance(doc.value, dict):
        problems.error(path, doc.line, "a catalogue is a mapping of `key: text` lines")
        return None
    for key in _REQUIRED:
        if key not in doc.value:
            problems.error(path, 1, f"`{key}` is missing: {_REQUIRED[key]}")
    texts: dict[str, str] = {}
    lines: dict[str, int] = {}
    for key, item in doc.value.items():
        lines[key] = item.line
        if not _KEY.fullmatch(key):
            problems.error(path, item.line, f"key `{key}`: letters, digits, `.`, `-` and `_` only")
        elif not isinstance(item.value, str):
            problems.error(path, item.line, f"`{key}` must be a text (quote it: `{key}: '…'`)", str(item.value))
        elif _placeholders(item.value, path, item.line, key, problems) is not None:
            texts[key] = item.value
    return Catalogue(lang, path, texts, lines)


def _placeholders(text: str, path: Path, line: int, key: str, problems: Problems) -> frozenset[str] | None:
    """The `{name}` placeholders of `text`; anything else in braces is a problem (the scripts fill only
    `{name}`, Python's format more)."""
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError as exc:
        problems.error(path, line, f"`{key}`: {exc} (a literal brace is written twice: {{{{ or }}}})", text)
        return None
    names = set()
    for _, name, spec, conversion in fields:
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            problems.error(path, line, f"`{key}`: placeholder {{{name}}} must be a plain {{name}}", text)
            return None
        names.add(name)
    return frozenset(names)


def _compare(catalogues: list[Catalogue], problems: Problems) -> None:
    """Every key in every catalogue, with the same placeholders as in the first (the reference)."""
    if not catalogues:
        return
    ref = catalogues[0]
    for cat in catalogues:
        for other in catalogues:
            for key in other.texts.keys() - cat.texts.keys() - _unreadable(cat, other):
                problems.error(
                    other.path,
                    other.lines[key],
                    f"`{key}` is missing from {display_path(cat.path)}: every language needs every key",
                )
    for cat in catalogues[1:]:
        for key in cat.texts.keys() & ref.texts.keys():
            mine, theirs = _names(cat.texts[key]), _names(ref.texts[key])
            if mine != theirs:
                unknown = ", ".join(f"{{{n}}}" for n in sorted(mine - theirs))
                lacking = ", ".join(f"{{{n}}}" for n in sorted(theirs - mine))
                where = f"{display_path(ref.path)}:{ref.lines[key]}"
                problems.error(
                    cat.path,
                    cat.lines[key],
                    f"`{key}`: "
                    + "; ".join(
                        part
                        for part in (
                            unknown and f"unknown placeholder {unknown} (not in {where})",
                            lacking and f"placeholder {lacking} of {where} is missing",
                        )
                        if part
                    ),
                    cat.texts[key],
                )


def _unreadable(cat: Catalogue, other: Catalogue) -> set[str]:
    """Keys `cat` has but could not read (already reported there): not also "missing"."""
    return {key for key in other.texts if key in cat.lines and key not in cat.texts}


def _names(text: str) -> frozenset[str]:
    return frozenset(name for _, name, _, _ in string.Formatter().parse(text) if name is not None)


def _strings(catalogues: Catalogues) -> dict[str, LangTexts]:
    ref = next(iter(catalogues.by_lang.values()))
    out: dict[str, LangTexts] = {}
    for key in ref.texts:
        texts = LangTexts({lang: cat.texts[key] for lang, cat in catalogues.by_lang.items()})
        out[key] = texts
    return out


class _Strings(Mapping[str, LangTexts]):
    """STRINGS: read on first use, not on import (a catalogue's problem is then a build error, not an
    import's traceback)."""

    def __getitem__(self, key: str) -> LangTexts:
        return _by_key()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(_by_key())

    def __len__(self) -> int:
        return len(_by_key())


@functools.cache
def _by_key() -> dict[str, LangTexts]:
    return _strings(catalogues())


_KEY = re.compile(r"[A-Za-z0-9_.-]+")
_REQUIRED = {
    "locale": "the language's locale for dates and numbers in the scripts, e.g. `locale: zh-CN`",
    "locale.og": "the language's Open Graph locale, e.g. `locale.og: zh_CN`",
}

STRINGS: Mapping[str, LangTexts] = _Strings()
"""Every key's text by language: `STRINGS["home.title"][lang]`."""
