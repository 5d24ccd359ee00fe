"""Command line for translators: start or update a translation, report what is left, mark reviews.

python scripts/translations.py report              # per bank: translated / stale / missing
python scripts/translations.py template NAME       # write banks/NAME.en.txt (keeps what is translated)
python scripts/translations.py reviewed BANK/SLUG  # the English still holds for the current Chinese
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .build import LOCK, build_site_model, check_content, load_sources
from .errors import BuildError, Problems
from .sources import translations


def main(argv: list[str], default_banks: Path) -> int:
    parser = argparse.ArgumentParser(prog="translations.py", description=__doc__.splitlines()[0])
    parser.add_argument("--banks", type=Path, default=default_banks, help="folder of bank files (default: banks/)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("report", help="per bank: translated / stale / missing, and the lines to look at")
    one = sub.add_parser("template", help="write banks/NAME.en.txt: every question, untranslated lines marked [zh]")
    one.add_argument("bank")
    rev = sub.add_parser("reviewed", help="record that the English of BANK/SLUG still holds")
    rev.add_argument("paths", nargs="+", metavar="BANK/SLUG")
    args = parser.parse_args(argv)
    problems = Problems()
    sources = load_sources(args.banks, problems)
    try:
        problems.raise_if_any()
        site, lock_text = build_site_model(sources)
        check_content(site, sources, Problems())  # stale and orphan warnings are what `report` lists
    except BuildError as exc:
        for problem in exc.problems:
            print(f"error: {problem}", file=sys.stderr)
        return 1
    if args.command == "report":
        print(translations.report(site, sources.banks), end="")
        return 0
    if args.command == "reviewed":
        unknown = translations.reviewed(args.banks / translations.LOCK, site, args.paths)
        for p in unknown:
            print(f"error: {p}: not a translated question (bank/slug, see banks/{translations.LOCK})", file=sys.stderr)
        return 1 if unknown else 0
    pair = next(((zh, en) for zh, en in sources.banks if zh.id == args.bank), None)
    if pair is None:
        print(f"error: no bank `{args.bank}` in {args.banks} (name it without .txt)", file=sys.stderr)
        return 1
    zh, en = pair
    target = args.banks / f"{zh.id}.en.txt"
    text = translations.template(site, zh, en)
    _write(target, text)
    # The keys are slugs: publish the new questions' slugs now, so the next build gives them the same.
    _write(args.banks / LOCK, lock_text)
    left = sum(1 for s in site.bank(zh.id).slugs if not site.entries[s].translated)
    print(f"translations: wrote {target} ({len(site.bank(zh.id).slugs)} questions, {left} still marked [zh])")
    return 0


def _write(path: Path, text: str) -> None:
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
