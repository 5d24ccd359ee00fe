"""Load a small YAML data file keeping the line of every value, so errors can say FILE:LINE and field.

Data files are small hand-written lists, so the YAML they may use is limited, each limit a FILE:LINE
error before anything is built from the document: no aliases (`*name`: nested ones multiply a few
hundred bytes into billions of values), at most MAX_DEPTH levels of nesting (a deep document would
exhaust Python's stack), and no control character in any string, as in bank text (a tab is fine, and
so is the line break a `|` or `>` block ends with).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..errors import Problems
from .inputs import read_regular

MAX_DEPTH = 32
"""Nesting levels a data file may use (the taxonomy and the glossary need 4)."""


@dataclass(frozen=True)
class Located:
    """A YAML value with the line it starts on."""

    value: Any
    """A str, int, float, bool, None, list of Located, or dict of str to Located."""
    line: int
    """1-based line."""


def load_yaml(path: Path, problems: Problems) -> Located | None:
    """Parse `path` with PyYAML's safe composer; syntax errors become FILE:LINE problems."""
    try:
        text = read_regular(path).decode("utf-8-sig")
    except OSError as exc:
        problems.error(path, 0, f"cannot read file: {exc.strerror or exc}")
        return None
    except UnicodeDecodeError as exc:
        problems.error(path, 0, f"file is not UTF-8 (offset {exc.start}): re-save it as UTF-8")
        return None
    try:
        if not _within_limits(text, path, problems):
            return None
        node = _compose(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 0
        problems.error(path, line, f"invalid YAML: {exc.problem or exc.context}")
        return None
    except yaml.reader.ReaderError as exc:  # a character YAML refuses, located by offset only
        problems.error(path, text.count("\n", 0, exc.position) + 1, f"invalid YAML: {_reader_problem(exc)}")
        return None
    except yaml.YAMLError as exc:
        problems.error(path, 0, f"invalid YAML: {exc}")
        return None
    if node is None:
        problems.error(path, 1, "file is empty")
        return None
    return _convert(node, path, problems, yaml.SafeLoader(""))


def check_fields(
    item: Located, allowed: dict[str, type], required: set[str], path: Path, what: str, problems: Problems
) -> dict[str, Located] | None:
    """Validate a mapping against an allow list of fields and their types; report every mismatch.

    Types: `str` a non-empty string, `list` a list of non-empty strings, `tuple` a list of mappings.
    """
    if not isinstance(item.value, dict):
        problems.error(path, item.line, f"{what} must be a mapping of fields ({', '.join(allowed)})")
        return None
    fields: dict[str, Located] = item.value
    ok = True
    for key, val in fields.items():
        if key not in allowed:
            problems.error(path, val.line, f"{what}: unknown field `{key}` (allowed: {', '.join(allowed)})")
            ok = False
        elif not _is(val.value, allowed[key]):
            problems.error(path, val.line, f"{what}: field `{key}` must be {_describe(allowed[key])}")
            ok = False
    for key in sorted(required - fields.keys()):
        problems.error(path, item.line, f"{what}: missing field `{key}`")
        ok = False
    return fields if ok else None


def _is(value: Any, kind: type) -> bool:
    if kind is str:
        return isinstance(value, str) and bool(value.strip())
    if kind is tuple:  # a list of mappings, each checked by the caller
        return isinstance(value, list)
    if kind is list:
        return isinstance(value, list) and all(isinstance(v.value, str) and v.value.strip() for v in value)
    return isinstance(value, kind)


def _describe(kind: type) -> str:
    names: dict[type, str] = {str: "a non-empty string", list: "a list of non-empty strings", tuple: "a list"}
    return names.get(kind, kind.__name__)


def _compose(text: str) -> yaml.Node | None:
    """The document's node tree, by libyaml when PyYAML has it (~20x faster); a document it rejects
    is composed again by PyYAML's own parser, so problems read the same with or without libyaml."""
    if _FAST_LOADER is not None:
        try:
            return yaml.compose(text, Loader=_FAST_LOADER)
        except yaml.YAMLError:
            pass
    return yaml.compose(text, Loader=yaml.SafeLoader)


def _convert(node: yaml.Node, path: Path, problems: Problems, scalars: yaml.SafeLoader) -> Located:
    line = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Located] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, str):
                problems.error(path, key_node.start_mark.line + 1, "keys must be plain strings")
                continue
            if key in out:
                problems.error(path, key_node.start_mark.line + 1, f"field `{key}` given twice")
            out[key] = _convert(value_node, path, problems, scalars)
        return Located(out, line)
    if isinstance(node, yaml.SequenceNode):
        return Located([_convert(n, path, problems, scalars) for n in node.value], line)
    # Scalars: let the safe constructor decide int/bool/str, without building any object.
    value = scalars.construct_object(node)  # type: ignore[no-untyped-call]
    if isinstance(value, str):
        found = _FORBIDDEN.search(value.rstrip("\n"))
        if found is not None:
            problems.error(
                path,
                line,
                f"control character U+{ord(found.group()):04X} in text: delete it"
                + (" (write the value on one line)" if found.group() in "\n\r" else ""),
                value,
            )
    return Located(value, line)


def _within_limits(text: str, path: Path, problems: Problems) -> bool:
    """Walk the document's events (no tree is built): an alias or nesting beyond MAX_DEPTH is an error.

    A document the fast parser rejects passes here; composing it then reports its syntax error."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_FAST_LOADER or yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                problems.error(
                    path,
                    event.start_mark.line + 1,
                    f"YAML alias `*{event.anchor}` is not allowed in a data file: write the value out in full",
                )
                return False
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    problems.error(
                        path,
                        event.start_mark.line + 1,
                        f"YAML nested more than {MAX_DEPTH} levels deep: a data file needs only a few",
                    )
                    return False
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        pass
    return True


def _reader_problem(exc: yaml.reader.ReaderError) -> str:
    char = exc.character if isinstance(exc.character, str) else chr(exc.character)
    return f"character U+{ord(char):04X} is not allowed in YAML: delete it"


_FAST_LOADER = getattr(yaml, "CSafeLoader", None)
_FORBIDDEN = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")
"""As in bank text (parse.py): C0 and C1 controls but the tab."""
