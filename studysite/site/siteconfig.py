"""Validate the site's own settings (`extra.qa` in mkdocs.yml / mkdocs.en.yml), blaming FILE:LINE and field.

MkDocs validates its own options; `extra` is free-form to it, so a typo there would otherwise surface
as a bare KeyError traceback from the plugin.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from ..errors import Problem, display_path
from ..i18n import FOLDER
from ..languages import SOURCES
from ..model import LANGS


def check_qa(qa: Any, config_file: str | Path | None) -> list[Problem]:
    """Every problem with the merged `extra.qa` of a loaded config, located in the file that sets it."""
    out: list[Problem] = []

    def bad(keys: tuple[str | int, ...], message: str) -> None:
        path, line = _locate(config_file, ("extra", "qa", *keys))
        field = ".".join(["extra", "qa", *(f"[{k}]" if isinstance(k, int) else k for k in keys)]).replace(".[", "[")
        out.append(Problem(path, line, f"{field}: {message}"))

    if not isinstance(qa, dict):
        bad((), "missing or not a mapping: it needs `lang`, `languages` and `repo_url` (see mkdocs.yml)")
        return out
    for key in ("lang", "languages"):
        if key not in qa:
            bad((), f"missing field `{key}`")
    languages = qa.get("languages")
    seen: set[str] = set()
    if "languages" in qa:
        if not isinstance(languages, list) or not languages:
            bad(("languages",), "must be a list of {lang, name, root, html_lang, hreflang, source} entries")
        else:
            roots = []
            for i, item in enumerate(languages):
                if not isinstance(item, dict):
                    bad(("languages", i), "must be a mapping {lang, name, root, html_lang, hreflang, source}")
                    continue
                for key in sorted(_REQUIRED - item.keys()):
                    bad(("languages", i), f"missing field `{key}`")
                for key in sorted(item.keys() - _REQUIRED - _OPTIONAL, key=str):
                    bad(("languages", i, key), f"unknown field (known: {', '.join(sorted(_REQUIRED | _OPTIONAL))})")
                code, root = item.get("lang"), item.get("root")
                if "lang" in item and not (isinstance(code, str) and _CODE.fullmatch(code)):
                    bad(("languages", i, "lang"), f"must be a language code like zh-Hant (got {code!r})")
                elif code in seen:
                    bad(("languages", i, "lang"), f"language {code!r} listed twice")
                elif "lang" in item and not (FOLDER / f"{code}.yml").is_file():
                    bad(("languages", i, "lang"), f"no interface catalogue studysite/strings/{code}.yml")
                seen.add(str(code))
                for key in ("name", "html_lang", "hreflang"):
                    if key in item and not (isinstance(item[key], str) and item[key].strip()):
                        bad(("languages", i, key), "must be a non-empty string")
                if "root" in item:
                    if isinstance(root, str) and _ROOT.fullmatch(root):
                        roots.append(root)
                    else:
                        bad(("languages", i, "root"), f'must be "" or a folder like "en/" (got {root!r})')
                source = item.get("source")
                if "source" in item and source not in SOURCES:
                    bad(("languages", i, "source"), f"must be one of {', '.join(SOURCES)} (got {source!r})")
                if root == "" and "config" in item:
                    bad(
                        ("languages", i, "config"), "the language at the site root is built from this file: no `config`"
                    )
                if root and not isinstance(item.get("config"), str):
                    bad(("languages", i, "config"), "missing: the MkDocs file this language is built from")
                if source == "converted":
                    for key in ("from", "opencc"):
                        if not isinstance(item.get(key), str):
                            bad(("languages", i), f"missing field `{key}` (a converted language needs it)")
                elif "from" in item or "opencc" in item:
                    bad(("languages", i), "`from` and `opencc` are only for `source: converted`")
            if roots and roots.count("") != 1:
                bad(("languages",), 'exactly one language must have root "" (the site root)')
            sources = [item.get("source") for item in languages if isinstance(item, dict)]
            if sources.count("bank") != 1:
                bad(("languages",), "exactly one language must have `source: bank` (the banks' language)")
            if sources.count("translation") > 1:
                bad(("languages",), "at most one language can have `source: translation`")
            for i, item in enumerate(languages):
                if isinstance(item, dict) and item.get("source") == "converted" and item.get("from") not in seen:
                    bad(("languages", i, "from"), f"{item.get('from')!r} is not among `languages`")
            if _codes(languages) != LANGS:
                bad(
                    ("languages",),
                    f"the languages must be the package's table ({', '.join(LANGS)}, from the project's mkdocs.yml)",
                )
    lang = qa.get("lang")
    if "lang" in qa and lang not in seen:
        bad(("lang",), f"must be one of {', '.join(LANGS)} (got {lang!r})")
    repo = qa.get("repo_url", "")
    if not (isinstance(repo, str) and (repo == "" or _URL.fullmatch(repo))):
        bad(("repo_url",), f'must be "" or an http(s):// address (got {repo!r})')
    return out


def _locate(config_file: str | Path | None, keys: tuple[str | int, ...]) -> tuple[str, int]:
    """File and line that set `keys`, following INHERIT; else the deepest of them found; line 0 when unknown."""
    if not config_file:
        return "mkdocs.yml", 0
    best = (0, display_path(Path(config_file)), 0)  # (depth found, file, line)
    for path, root in inherit_chain(Path(config_file)):
        node, depth, line = root, 0, 0
        for key in keys:
            child = _child(node, key)
            if child is None:
                break
            node, depth, line = child, depth + 1, child.start_mark.line + 1
        if depth > best[0]:
            best = (depth, display_path(path), line)
        if depth == len(keys):
            break
    return best[1], best[2]


def inherit_chain(config_file: Path) -> Iterator[tuple[Path, Any]]:
    """A config file and each file it INHERITs in turn, with its YAML node tree; it stops at the first
    that cannot be read or parsed (MkDocs reports that one)."""
    path = config_file
    for _ in range(5):  # INHERIT chains are short; never loop forever
        try:
            root = yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
        except (OSError, yaml.YAMLError):
            return
        yield path, root
        parent = _child(root, "INHERIT")
        if parent is None or not isinstance(parent.value, str):
            return
        path = path.parent / parent.value


def _child(node: Any, key: str | int) -> Any:
    if isinstance(node, yaml.MappingNode) and isinstance(key, str):
        return next((v for k, v in node.value if getattr(k, "value", None) == key), None)
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
        return node.value[key]
    return None


def _codes(languages: list[Any]) -> tuple[str, ...]:
    return tuple(str(item.get("lang")) for item in languages if isinstance(item, dict))


_REQUIRED = {"lang", "name", "root", "html_lang", "hreflang", "source"}
_OPTIONAL = {"config", "from", "opencc"}
_CODE = re.compile(r"[a-z]{2,3}(?:-[A-Za-z0-9]+)?")
_ROOT = re.compile(r"(?:[a-z]{2,3}(?:-[A-Za-z0-9]+)?/)?")
_URL = re.compile(r"https?://[^\s\"'<>]+")
