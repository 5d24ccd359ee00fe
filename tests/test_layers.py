"""The package's folders are its layers: a module imports from its own layer and the layers below, never above."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

PACKAGE = Path(__file__).resolve().parent.parent / "studysite"

LAYERS = [
    # Shared by every layer: the typed model, errors, the one writer, forked side
    # jobs, where the project's own files are, the generator's cache, the language table.
    {"model", "errors", "write", "parallel", "project", "cache", "languages"},
    {"sources", "i18n"},  # files -> typed model; the interface strings are files too (studysite/strings/)
    {"enrich"},  # tags, slugs, links
    {"pages"},  # renderers: (model, language) -> Markdown
    {"build"},  # the pipeline: sources -> enrich -> pages -> write
    {"site", "takeaway"},  # around MkDocs: plugin, English build, search, offline; Anki, CSV, PDF
    {"cli", "translate_cli", "__main__"},  # command lines
]
"""Lowest first. A name is a top-level module or a subpackage of studysite/; one set is one layer."""


def test_no_module_imports_from_a_higher_layer() -> None:
    wrong = [
        f"studysite.{module} ({_name(layer_of(module))}) imports studysite.{target} ({_name(layer_of(target))}), a higher layer"
        for module, target in imports()
        if -1 < layer_of(module) < layer_of(target)
    ]
    assert not wrong, "\n".join(wrong)


def test_no_import_cycles() -> None:
    """No module imports itself through others, late (function-level) imports included: a layer's
    modules form a ladder too, and a late import hides a cycle without removing it."""
    graph: dict[str, set[str]] = {}
    for module, target in imports():
        if module != target:
            graph.setdefault(module, set()).add(target)
    cycles = [" -> ".join([*cycle, cycle[0]]) for cycle in _cycles(graph)]
    assert not cycles, "import cycles (move what both sides need into a module below them):\n" + "\n".join(cycles)


def test_every_module_has_a_layer() -> None:
    named = set().union(*LAYERS)
    tops = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir() if p.suffix == ".py" or _is_package(p)}
    unplaced = sorted(tops - named - {"__init__"})
    assert not unplaced, f"put each in a layer folder, or name it in LAYERS (tests/test_layers.py): {unplaced}"


def test_only_the_engine_adapter_builds_with_mkdocs() -> None:
    """Every engine build goes through studysite/site/engine.py; the MkDocs calls live in its adapter."""
    adapter = PACKAGE / "site" / "engine_mkdocs.py"
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == adapter:
            continue
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text, str(path))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            wrong += [
                f"{path.name}:{node.lineno}: imports {name}" for name in names if name.startswith("mkdocs.commands")
            ]
        if '"-m", "mkdocs"' in text:
            wrong.append(f"{path.name}: runs `-m mkdocs`")
    assert not wrong, "call engine.current() instead:\n" + "\n".join(wrong)


def layer_of(module: str) -> int:
    """The rank of a module named `a.b.c` inside studysite (its first part names the layer); -1 if none
    (test_every_module_has_a_layer reports it)."""
    first = module.split(".")[0]
    return next((rank for rank, names in enumerate(LAYERS) if first in names), -1)


def imports() -> list[tuple[str, str]]:
    """(importer, imported) for every import of a studysite module, late and TYPE_CHECKING ones included."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        module = ".".join(parts)
        if module == "__init__":
            continue
        package = list(parts[:-1])
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[: len(package) - (node.level - 1)]
                elif node.module and (node.module == "studysite" or node.module.startswith("studysite.")):
                    base, node_module = [], node.module.removeprefix("studysite").lstrip(".")
                    found += _targets(module, base, node_module, node.names)
                    continue
                else:
                    continue
                found += _targets(module, base, node.module or "", node.names)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("studysite."):
                        found.append((module, alias.name.removeprefix("studysite.")))
    return found


def _targets(module: str, base: list[str], name: str, names: list[ast.alias]) -> list[tuple[str, str]]:
    target = [*base, *name.split(".")] if name else base
    if not target:  # `from . import x` at the top: each x is a module
        return [(module, alias.name) for alias in names]
    if _is_package(PACKAGE.joinpath(*target)):  # `from .sources import notes`: notes is a module
        return [
            (module, ".".join([*target, alias.name]))
            if PACKAGE.joinpath(*target, alias.name + ".py").exists()
            else (module, ".".join(target))
            for alias in names
        ]
    return [(module, ".".join(target))]


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One shortest cycle through each module that is on a cycle, each cycle once, in a stable order."""
    found: dict[frozenset[str], list[str]] = {}
    for start in sorted(graph):
        # breadth-first from start's imports back to start: the shortest way round
        came_from: dict[str, str] = {}
        queue = [start]
        while queue and start not in came_from:
            here = queue.pop(0)
            for there in sorted(graph.get(here, ())):
                if there not in came_from:
                    came_from[there] = here
                    queue.append(there)
        if start in came_from:
            path = [start]
            while (back := came_from[path[-1]]) != start:
                path.append(back)
            cycle = [start, *reversed(path[1:])]
            found.setdefault(frozenset(cycle), cycle)
    return list(found.values())


def _name(rank: int) -> str:
    return "/".join(sorted(LAYERS[rank]))


def _is_package(path: Path) -> bool:
    return (path / "__init__.py").is_file()
