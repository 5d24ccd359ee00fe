"""The site's languages, as one table read from the configuration (mkdocs.yml `extra.qa.languages`).

Nothing else in the package names a language: code that needs "the language the banks are written in",
"the language shown beside this one" or "this language's folder" asks the table. The table of the
project's own mkdocs.yml is read once (`LANGUAGES`); site/siteconfig.py checks a loaded config's table
and blames FILE:LINE.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

import yaml

from .project import ROOT

Source = Literal["bank", "translation", "converted"]
SOURCES: tuple[Source, ...] = ("bank", "translation", "converted")


@dataclass(frozen=True)
class Language:
    """One row of the table."""

    lang: str
    """Our code: the catalogue's name (studysite/strings/<lang>.yml) and the key of every per-language text."""
    name: str
    """The name the language switcher shows, in the language itself."""
    root: str
    """The folder below the site root, `""` for the main language, else like `en/`."""
    html_lang: str
    """The pages' `<html lang>` (Pagefind splits its index by it)."""
    hreflang: str
    """The value of hreflang links and sitemap alternates."""
    config: str
    """Its MkDocs configuration file beside mkdocs.yml (`mkdocs.en.yml`); `""` for the main language."""
    source: Source
    """`bank`: the banks' own language; `translation`: its own text files (`banks/NAME.<lang>.txt`);
    `converted`: generated from the language `convert_from` with OpenCC."""
    convert_from: str = ""
    """For `converted`: the language it is generated from."""
    opencc: str = ""
    """For `converted`: the OpenCC configuration (`s2twp`)."""


@dataclass(frozen=True)
class Languages:
    """The whole table, in its order (the main language first)."""

    items: tuple[Language, ...]
    """Every language."""

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(item.lang for item in self.items)

    @property
    def roots(self) -> tuple[str, ...]:
        """Each language's folder below the site root, in the table's order (`""` first)."""
        return tuple(item.root for item in self.items)

    def __getitem__(self, lang: str) -> Language:
        return self._by_lang[lang]

    @cached_property
    def _by_lang(self) -> dict[str, Language]:
        # asked for on every glossary term a page shows (tooltips): 0.1 s a language at 5,000 questions
        # as a search of the table
        return {item.lang: item for item in self.items}

    def __getstate__(self) -> dict[str, object]:
        """Its fields (a pickle, and so a digest, is the same whether `_by_lang` was asked for or not)."""
        return {name: value for name, value in self.__dict__.items() if name != "_by_lang"}

    def holding(self, path: str) -> Language:
        """The language whose folder holds `path` (a path below the site root): `holding`'s answer."""
        return holding(path, self.items)

    @property
    def main(self) -> Language:
        """The language at the site root (its config is mkdocs.yml; its build builds the others)."""
        return next(item for item in self.items if item.root == "")

    @property
    def bank(self) -> Language:
        """The language the banks are written in."""
        return next(item for item in self.items if item.source == "bank")

    @property
    def translation(self) -> Language | None:
        """The language with its own translated text files, if any."""
        return next((item for item in self.items if item.source == "translation"), None)

    @property
    def translation_code(self) -> str | None:
        """The translation's code, if there is one."""
        return self.translation.lang if self.translation else None

    @property
    def extra(self) -> tuple[Language, ...]:
        """The languages built from their own config file (all but the main one)."""
        return tuple(item for item in self.items if item.root != "")

    @property
    def written(self) -> tuple[str, ...]:
        """The languages people write (the banks' and the translation's), not the converted ones."""
        return tuple(item.lang for item in self.items if item.source != "converted")

    def base(self, lang: str) -> str:
        """The written language whose text `lang` shows (a converted language's source, else itself)."""
        return self[lang].convert_from or lang

    def beside(self, lang: str) -> str:
        """The language shown side by side with `lang`: the translation beside the bank language and
        its conversions, the bank language beside the translation."""
        item = self[lang]
        if item.source == "translation" or self.translation is None:
            return self.bank.lang
        return self.translation.lang


class _Rooted(Protocol):
    @property
    def root(self) -> str: ...


_R = TypeVar("_R", bound=_Rooted)


def holding(path: str, items: Iterable[_R]) -> _R:
    """The language of `items` whose folder holds `path`: the longest root it starts with (the main
    language's `""` holds every path no other root does). Not its `<html lang>`: 繁體中文 pages say zh-TW."""
    return max((item for item in items if path.startswith(item.root)), key=lambda item: len(item.root))


def from_table(table: list[dict[str, Any]]) -> Languages:
    """The typed table of a checked `extra.qa.languages` list (siteconfig.check_qa checks it first)."""
    return Languages(
        tuple(
            Language(
                lang=item["lang"],
                name=item["name"],
                root=item["root"],
                html_lang=item.get("html_lang", item["lang"]),
                hreflang=item.get("hreflang", item["lang"]),
                config=item.get("config", ""),
                source=item.get("source", "bank"),
                convert_from=item.get("from", ""),
                opencc=item.get("opencc", ""),
            )
            for item in table
        )
    )


def read_table(config_file: Path) -> list[dict[str, Any]]:
    """The raw `extra.qa.languages` list of a MkDocs file (MkDocs' own tags such as `!ENV` read as None)."""
    data = yaml.load(config_file.read_text(encoding="utf-8"), Loader=_TolerantLoader)  # a SafeLoader subclass
    return list(((data or {}).get("extra") or {}).get("qa", {}).get("languages") or [])


class _TolerantLoader(yaml.SafeLoader):
    """A safe loader that reads any tag it does not know (`!ENV`, `!!python/...`) as None."""


_TolerantLoader.add_multi_constructor("", lambda loader, suffix, node: None)

LANGUAGES: Languages = from_table(read_table(ROOT / "mkdocs.yml"))
"""The table of the project's mkdocs.yml, read once."""

BANK_LANG: str = LANGUAGES.bank.lang
"""The banks' language: the key of a question's own text (`entry.text[BANK_LANG]`), and the name the input
formats give its fields: glossary.yml `<lang>`, `<lang>_def`, `<lang>_forms`; notes `<lang>`, `q_<lang>`,
`a_<lang>`; taxonomy.yml `<lang>`. Its bank files are `banks/NAME.txt`."""
TRANSLATION_LANG: str = LANGUAGES.translation_code or ""
"""The translation's language: its files are `banks/NAME.<lang>.txt`, and the input formats name its fields
as they name the bank language's (glossary.yml `<lang>`, `<lang>_def`; notes `q_<lang>`; ...). `""` when
the table has no translation."""
