"""One language table (mkdocs.yml `extra.qa.languages`): no code or template outside it names a language."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from studysite.languages import LANGUAGES, from_table, read_table

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent


def test_no_file_outside_the_table_names_a_language() -> None:
    # The input formats name the bank language and the translation's on purpose (glossary.yml `zh`,
    # `en_def`; notes `q_zh`; taxonomy.yml `en`; banks/NAME.en.txt), but the code reading them takes
    # the keys from the table (studysite/languages.py: BANK_LANG, TRANSLATION_LANG, LANGUAGES.written).
    found = literal_counts(ROOT)
    assert not found, f"language codes as string literals (take them from studysite/languages.py): {dict(found)}"


def test_the_search_finds_a_literal_in_python_templates_and_scripts(tmp_path: Path) -> None:
    (tmp_path / "studysite" / "pages").mkdir(parents=True)
    (tmp_path / "overrides" / "partials").mkdir(parents=True)
    (tmp_path / "studysite" / "pages" / "x.py").write_text('other = "en" if lang == "zh" else \'zh-Hant\'\n')
    (tmp_path / "overrides" / "partials" / "x.html").write_text('{% if lang == "zh" %}{% endif %}\n')
    (tmp_path / "overrides" / "x.js").write_text("const zh = lang === 'en';\n")
    assert literal_counts(tmp_path) == {
        "studysite/pages/x.py": 3,
        "overrides/partials/x.html": 1,
        "overrides/x.js": 1,
    }


def test_the_table_is_read_from_mkdocs_yml() -> None:
    table = from_table(read_table(ROOT / "mkdocs.yml"))
    assert table == LANGUAGES
    assert table.main.root == ""
    assert table.bank.lang == table.main.lang
    assert all((ROOT / item.config).is_file() for item in table.extra)
    assert all((ROOT / "studysite" / "strings" / f"{item.lang}.yml").is_file() for item in table.items)


def literal_counts(root: Path) -> Counter[str]:
    """How many quoted language codes (of the table, and any zh-*/en-* tag) each scanned file holds."""
    codes = {value for item in LANGUAGES.items for value in (item.lang, item.html_lang, item.hreflang)}
    alternatives = "|".join([*map(re.escape, sorted(codes, key=len, reverse=True)), r"(?:zh|en)-[A-Za-z]+"])
    pattern = re.compile(r"""(["'])(?:""" + alternatives + r")\1")
    found: Counter[str] = Counter()
    for folder, suffixes in (("studysite", {".py"}), ("overrides", {".html", ".js"})):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in suffixes or "vendor" in path.relative_to(root).parts:
                continue
            n = len(pattern.findall(path.read_text(encoding="utf-8")))
            if n:
                found[path.relative_to(root).as_posix()] = n
    return found
