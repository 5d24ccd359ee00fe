"""Account for every entry of the banks folder: what the build reads, and a warning or error for the rest.

The build reads, from the top level of `banks/` only: `NAME.txt` and `NAME.en.txt` (banks and their
translations), `NAME.notes.yml` (editor's notes, studysite/sources/notes.py) and the data files `taxonomy.yml`,
`glossary.yml`, `slugs.lock` and `translations.lock`. Each must be a
regular file; a symbolic link to any of them is refused alike (the build would read, and the lock
write, a file outside the folder), and a FIFO, device, socket or folder by one of these names is an
error and is never opened (opening a FIFO blocks; a device can be endless). Names that are surely a
mistake for one of them are errors (`extra.TXT`, `Taxonomy.yml`, `taxonomy.yaml`, a name with leading
or trailing spaces). Everything else is a warning naming it (other files, subfolders, other
non-regular entries), so nothing in the folder is ignored in silence; under --strict these fail too.
Dot-files (`.DS_Store`, an editor's swap file, git's and the build's own temporary files) belong to
tools, not to the maintainer, and are passed over.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Problems

DATA_FILES = ("taxonomy.yml", "glossary.yml", "slugs.lock", "translations.lock")
"""The data files read beside the banks."""
NOTES_SUFFIX = ".notes.yml"
"""Ending of a bank's editor's notes file (studysite/sources/notes.py)."""


@dataclass
class Inputs:
    """The entries of a banks folder that the build may open."""

    bank_files: list[Path] = field(default_factory=list)
    """Regular `*.txt` files, sorted by name (their names are checked by the build)."""
    data_files: dict[str, Path] = field(default_factory=dict)
    """Each data file present as a regular file, by name."""
    notes_files: list[Path] = field(default_factory=list)
    """Regular `*.notes.yml` files (editor's notes), sorted by name."""


class NotRegularFile(OSError):
    """A path that is a FIFO, device, socket or folder where a file was expected."""


def scan_banks(banks_dir: Path, problems: Problems) -> Inputs:
    """Sort every entry of `banks_dir` into what is read and what is reported (see the module docstring)."""
    found = Inputs()
    try:
        with os.scandir(banks_dir) as entries:
            listing = sorted(entries, key=lambda e: e.name)
    except OSError as exc:
        problems.error(banks_dir, 0, f"cannot list the banks folder: {exc.strerror or exc}")
        return found
    for entry in listing:
        name = entry.name
        if name.startswith("."):
            continue
        path = Path(entry.path)
        readable = name.endswith((".txt", NOTES_SUFFIX)) or name in DATA_FILES
        kind = _kind(entry)
        if name != name.strip():
            problems.error(path, 0, f"file name {name!r} has leading or trailing spaces: rename it to {name.strip()!r}")
        elif not readable and _meant(name) is not None:
            problems.error(path, 0, f"`{name}` is not read as written: rename it to `{_meant(name)}`")
        elif readable and kind == "symbolic link":
            problems.error(path, 0, "symbolic links are not allowed in the banks folder: copy the file instead")
        elif readable and kind != "file":
            problems.error(path, 0, f"not a regular file (a {kind}): it is not read; put a text file here instead")
        elif name in DATA_FILES:
            found.data_files[name] = path
        elif name.endswith(NOTES_SUFFIX):
            found.notes_files.append(path)
        elif readable:
            found.bank_files.append(path)
        elif kind == "folder":
            problems.warn(path, 0, f"folder not read: banks are read from the top level of {banks_dir.name}/ only")
        else:
            article = "an" if kind[0] in "aeiou" else "a"
            problems.warn(
                path,
                0,
                f"{'file' if kind == 'file' else f'{article} {kind}'} not read: the banks folder holds NAME.txt, "
                f"NAME.en.txt, NAME{NOTES_SUFFIX} and {', '.join(DATA_FILES)}; move it elsewhere",
            )
    return found


def read_regular(path: Path) -> bytes:
    """The bytes of `path`, refusing (NotRegularFile) anything but a regular file without blocking on it.

    The banks scan already passes over FIFOs and devices; this holds should one take a file's place
    between the scan and the read: opening with O_NONBLOCK returns at once for a FIFO."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(0, "not a regular file (a FIFO, device, socket or folder)")
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read()
    finally:
        os.close(fd)


def _kind(entry: os.DirEntry[str]) -> str:
    """What the entry is, without following a symbolic link."""
    try:
        if entry.is_symlink():
            return "symbolic link"
        if entry.is_file(follow_symlinks=False):
            return "file"
        if entry.is_dir(follow_symlinks=False):
            return "folder"
        mode = entry.stat(follow_symlinks=False).st_mode
    except OSError:
        return "file that cannot be examined"
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def _meant(name: str) -> str | None:
    """The readable name `name` surely stands for (`.TXT`, `Taxonomy.yml`, `taxonomy.yaml`), or None."""
    lower = name.casefold()
    if lower.endswith(".yaml"):
        lower = lower[: -len(".yaml")] + ".yml"
    if lower in DATA_FILES or lower.endswith((".txt", NOTES_SUFFIX)):
        return lower
    return None
