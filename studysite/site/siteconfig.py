"""Validate the site's own settings (`extra.qa` in mkdocs.yml / mkdocs.en.yml), blaming FILE:LINE and field.

MkDocs validates its own options; `extra` is free-form to it, so a typo there would otherwise surface
as a bare KeyError traceback from the plugin.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from ..errors import Problem, display_path
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
    lang = qa.get("lang")
    if "lang" in qa and lang not in LANGS:
        bad(("lang",), f"must be one of {', '.join(LANGS)} (got {lang!r})")
    languages = qa.get("languages")
    if "languages" in qa:
        if not isinstance(languages, list) or not languages:
            bad(("languages",), "must be a list of {lang, name, root} entries")
        else:
            seen: set[str] = set()
            roots = []
            for i, item in enumerate(languages):
                if not isinstance(item, dict):
                    bad(("languages", i), "must be a mapping {lang, name, root}")
                    continue
                for key in sorted({"lang", "name", "root"} - item.keys()):
                    bad(("languages", i), f"missing field `{key}`")
                code, name, root = item.get("lang"), item.get("name"), item.get("root")
                if "lang" in item and code not in LANGS:
                    bad(("languages", i, "lang"), f"must be one of {', '.join(LANGS)} (got {code!r})")
                elif code in seen:
                    bad(("languages", i, "lang"), f"language {code!r} listed twice")
                seen.add(str(code))
                if "name" in item and not (isinstance(name, str) and name.strip()):
                    bad(("languages", i, "name"), "must be a non-empty string")
                if "root" in item:
                    if isinstance(root, str) and _ROOT.fullmatch(root):
                        roots.append(root)
                    else:
                        bad(("languages", i, "root"), f'must be "" or a folder like "en/" (got {root!r})')
            if roots and roots.count("") != 1:
                bad(("languages",), 'exactly one language must have root "" (the site root)')
            if lang in LANGS and lang not in seen:
                bad(("lang",), f"{lang!r} is not among `languages`")
    repo = qa.get("repo_url", "")
    if not (isinstance(repo, str) and (repo == "" or _URL.fullmatch(repo))):
        bad(("repo_url",), f'must be "" or an http(s):// address (got {repo!r})')
    return out


def _locate(config_file: str | Path | None, keys: tuple[str | int, ...]) -> tuple[str, int]:
    """File and line that set `keys`, following INHERIT; else the deepest of them found; line 0 when unknown."""
    if not config_file:
        return "mkdocs.yml", 0
    path = Path(config_file)
    best = (0, display_path(path), 0)  # (depth found, file, line)
    for _ in range(5):  # INHERIT chains are short; never loop forever
        try:
            root = yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
        except (OSError, yaml.YAMLError):
            break
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
        parent = _child(root, "INHERIT")
        if parent is None or not isinstance(parent.value, str):
            break
        path = path.parent / parent.value
    return best[1], best[2]


def _child(node: Any, key: str | int) -> Any:
    if isinstance(node, yaml.MappingNode) and isinstance(key, str):
        return next((v for k, v in node.value if getattr(k, "value", None) == key), None)
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
        return node.value[key]
    return None


_ROOT = re.compile(r"(?:[a-z]{2,3}(?:-[a-z0-9]+)?/)?")
_URL = re.compile(r"https?://[^\s\"'<>]+")
