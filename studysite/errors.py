"""One error type that blames a file and line, and a collector that reports every problem at once."""

from __future__ import annotations

import errno
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input, located at FILE:LINE."""

    path: str
    """File the problem is in, as given to the build (relative where possible)."""
    line: int
    """1-based line number; 0 when the problem concerns the whole file."""
    message: str
    """What is wrong, in one sentence."""
    excerpt: str = ""
    """The offending source line, shown under the message."""

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        text = f"{where}: {self.message}"
        if self.excerpt:
            text += f"\n    {_clip(self.excerpt)}"
        return text


class BuildError(Exception):
    """Raised once with every problem found; the build then stops and writes nothing."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems, key=lambda p: (p.path, p.line, p.message))
        super().__init__("\n".join(str(p) for p in self.problems))


class SiteError(Exception):
    """A site step (render, bundles, search index, built-site check, offline files) failed; the message
    says why, after any FILE:LINE problems have been logged. The MkDocs plugin passes it on as
    MkDocs' PluginError; `python -m studysite site` prints it."""


@dataclass
class Problems:
    """Collects problems (and warnings) across stages so the user sees all of them at once."""

    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

    def error(self, path: str | Path, line: int, message: str, excerpt: str = "") -> None:
        self.errors.append(Problem(display_path(path), line, message, excerpt))

    def warn(self, path: str | Path, line: int, message: str, excerpt: str = "") -> None:
        self.warnings.append(Problem(display_path(path), line, message, excerpt))

    def raise_if_any(self, strict: bool = False) -> None:
        found = list(self.errors)
        if strict:
            found += [Problem(w.path, w.line, "(strict) " + w.message, w.excerpt) for w in self.warnings]
        if found:
            raise BuildError(found)


def os_error(exc: OSError) -> str:
    """An operating-system failure in one line: the path it concerns and what the system said.

    `[Errno 28] No space left on device: 'docs/x.md'` becomes `docs/x.md: no space left on device (ENOSPC)`.
    """
    name = errno.errorcode.get(exc.errno or 0, "")
    what = (exc.strerror or str(exc)).rstrip(".")
    what = what[:1].lower() + what[1:]
    hint = _OS_HINTS.get(name, "")
    where = display_path(exc.filename) if exc.filename else "(no path)"
    if exc.filename2:
        where += f" -> {display_path(exc.filename2)}"
    return f"{where}: {what}{f' ({name})' if name else ''}{hint}"


def display_path(path: str | Path) -> str:
    """A path relative to the working directory when it is below it, so messages stay short."""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(p)


def _clip(text: str, limit: int = 160) -> str:
    shown = "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in text[:limit])
    return shown + ("…" if len(text) > limit else "")


_OS_HINTS = {
    "ENOSPC": ": free some space and build again",
    "EDQUOT": ": free some space and build again",
    "EROFS": ": the folder is on a read-only file system; build into a writable one",
    "EACCES": ": no permission; check who owns the folder",
    "EPERM": ": not permitted; check who owns the folder",
    "EBUSY": ": the folder is in use (a mount point?); build into a folder inside it with --site-dir",
}
