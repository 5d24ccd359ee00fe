"""The interface string catalogues (studysite/strings/<lang>.yml): one per language, the same keys and
placeholders in each, every problem reported as FILE:LINE, and every string the code asks for present."""

from __future__ import annotations

import json
import re
import string
from pathlib import Path

import pytest
import yaml

from studysite.errors import BuildError
from studysite.i18n import FOLDER, STRINGS, catalogues, load_catalogues, t
from studysite.model import LANGS
from studysite.site.bundles import SOURCES, page_scripts

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parent.parent


def _placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_every_language_has_a_catalogue_with_the_same_keys_and_placeholders() -> None:
    # read with plain safe_load, not the loader under test
    data = {lang: yaml.safe_load((FOLDER / f"{lang}.yml").read_text(encoding="utf-8")) for lang in LANGS}
    first, *others = LANGS
    assert len(data[first]) > 400
    for lang in others:
        assert list(data[lang]) == list(data[first]), f"{lang}.yml: keys differ from {first}.yml (or their order)"
        for key, text in data[first].items():
            assert _placeholders(data[lang][key]) == _placeholders(text), f"{lang}.yml: {key}"
    assert sorted(path.stem for path in FOLDER.glob("*.yml")) == sorted(LANGS)


def test_python_reads_the_catalogues() -> None:
    assert STRINGS["home.title"] == {
        "zh": "AI Infra 面试题库",
        "en": "AI Infra Interview Questions",
        "zh-Hant": "AI Infra 面試題庫",
    }
    assert t("glossary.count", "en", n=3, total=9) == "3 of 9 terms"
    assert t("print.part", "zh", n=1, total=2) == "第 1 / 2 部分"
    # the 404 page's texts, as its template reads them (the plugin passes catalogues() as qa_strings)
    assert catalogues()["en"]["404.title"] == "Page not found"


def test_every_key_the_python_code_names_is_in_the_catalogues() -> None:
    named = set()
    for path in (ROOT / "studysite").rglob("*.py"):
        named |= set(re.findall(r"""\bt\(\s*["']([\w.-]+)["']""", path.read_text(encoding="utf-8")))
    assert len(named) > 100
    assert sorted(named - STRINGS.keys()) == []


def test_every_literal_key_a_script_asks_for_is_in_its_files_strings() -> None:
    """A script gets its translator with S.strings("file") or QAStrings.scope("file"); each t("key") it
    calls with a literal key must be `js.<file>.<key>` in the catalogues (computed keys are not seen)."""
    checked = 0
    for path in sorted(SOURCES.glob("*.js")):
        src = path.read_text(encoding="utf-8")
        scopes = re.findall(r"""(?:S\.strings|QAStrings\.scope|\bstrings)\(\s*"([\w-]+)"\s*\)""", src)
        if not scopes:
            continue
        assert scopes == [path.stem], f"{path.name} reads another file's strings: {scopes}"
        for key in re.findall(r"""\b(?:t|gradeText)\(\s*"([\w.-]+)"[,)]""", src):
            assert f"js.{path.stem}.{key}" in STRINGS, f"{path.name}: t({key!r}) has no string"
            checked += 1
    assert checked > 150


def test_a_page_carries_the_strings_of_the_scripts_it_runs_as_safe_json() -> None:
    scripts = page_scripts()
    assert "strings.js" in scripts["question"] and "offline.js" in scripts["question"]
    carried = json.loads(catalogues().script_strings("en", "en/", scripts["question"]))
    assert carried["lang"] == "en" and carried["root"] == "en/" and carried["locale"] == "en"
    assert carried["strings"]["study-quiz.show"] == STRINGS["js.study-quiz.show"]["en"]
    assert not any(k.startswith("study-stats.") for k in carried["strings"])  # the stats page's script
    every = json.loads(catalogues().script_strings("zh", ""))
    assert every["locale"] == "zh-CN" and len(every["strings"]) == sum(1 for k in STRINGS if k.startswith("js."))


def test_the_json_cannot_end_its_script_element(tmp_path: Path) -> None:
    for lang in LANGS:
        (tmp_path / f"{lang}.yml").write_text(
            "locale: x\nlocale.og: x\njs.a.b: '</script><b>&amp;'\n", encoding="utf-8"
        )
    text = load_catalogues(tmp_path).script_strings("zh", "", ["a.js"])
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text)["strings"]["a.b"] == "</script><b>&amp;"


def _errors(tmp_path: Path, files: dict[str, str]) -> str:
    for lang, text in files.items():
        (tmp_path / f"{lang}.yml").write_text(text, encoding="utf-8")
    with pytest.raises(BuildError) as caught:
        load_catalogues(tmp_path, langs=tuple(files))  # type: ignore[arg-type]
    return str(caught.value)


def test_a_missing_key_names_the_file_and_line_that_has_it(tmp_path: Path) -> None:
    message = _errors(tmp_path, {"zh": "a: 一\nb: 二\nc: 三\n", "en": "a: one\nc: three\n"})
    assert re.search(r"zh\.yml:2: `b` is missing from \S*en\.yml", message), message
    message = _errors(tmp_path, {"zh": "a: 一\n", "en": "a: one\n# extra\nd: four\n"})
    assert re.search(r"en\.yml:3: `d` is missing from \S*zh\.yml", message), message


def test_an_unknown_or_missing_placeholder_names_the_line(tmp_path: Path) -> None:
    message = _errors(tmp_path, {"zh": "a: '{n} 道题'\nb: 好\n", "en": "b: fine\na: '{count} questions'\n"})
    assert re.search(
        r"en\.yml:2: `a`: unknown placeholder \{count\} \(not in \S*zh\.yml:1\); "
        r"placeholder \{n\} of \S*zh\.yml:1 is missing",
        message,
    ), message


def test_malformed_catalogues_name_the_line(tmp_path: Path) -> None:
    message = _errors(tmp_path, {"zh": "a: 一\nb: [二\n", "en": "a: one\nb: two\n"})
    assert re.search(r"zh\.yml:\d+: invalid YAML", message), message
    message = _errors(tmp_path, {"zh": "a: 一\nb: 3\n", "en": "a: one\nb: '3'\n"})
    assert re.search(r"zh\.yml:2: `b` must be a text", message), message
    assert "missing from" not in message  # the refused key is not also "missing"
    message = _errors(tmp_path, {"zh": "a: '{n!r} 个'\nb: '{ 个'\n", "en": "a: '{n}'\nb: x\n"})
    assert re.search(r"zh\.yml:1: `a`: placeholder \{n\} must be a plain \{name\}", message), message
    assert re.search(r"zh\.yml:2: `b`: .*brace", message), message
    message = _errors(tmp_path, {"zh": "locale.og: zh_CN\n", "en": "locale.og: en_US\n"})
    assert re.search(r"zh\.yml:1: `locale` is missing", message), message
    message = _errors(tmp_path, {"zh": "- a\n", "en": "a: one\n"})
    assert re.search(r"zh\.yml:1: a catalogue is a mapping", message), message
    message = _errors(tmp_path, {"zh": "a: 一\na: 二\n", "en": "a: one\n"})
    assert re.search(r"zh\.yml:2: field `a` given twice", message), message
    (tmp_path / "zh.yml").unlink()
    with pytest.raises(BuildError, match=r"zh\.yml: cannot read file"):
        load_catalogues(tmp_path, langs=("zh", "en"))
