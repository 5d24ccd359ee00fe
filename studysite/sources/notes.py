"""Editor's notes (banks/NAME.notes.yml): our corrections, follow-ups and references, never the bank's text.

Each note names its question by slug and gives, in both languages, what the answer misses or gets
wrong, follow-up questions (追问) with short answers, references (title + https URL), and tags to add
to or remove from that one question. Rendered below the answer in a box that says it is not part of
the bank (question pages, print edition, Anki back side); hidden with the answer in quiz mode.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path

from ..errors import Problems
from ..i18n import t
from ..languages import BANK_LANG, LANGUAGES
from ..model import EditorNote, FollowUp, Lang, Reference, Site, Tag
from .inputs import NOTES_SUFFIX
from .yamlfile import Located, check_fields, load_yaml

SUFFIX = NOTES_SUFFIX
KINDS = ("correction", "update", "caveat", "extra")
"""What a note is: it corrects the answer, brings it up to date, adds a caveat, or only adds follow-ups."""


@dataclass(frozen=True)
class NoteSource:
    """A note as read, before its slug is known to be a question of the bank."""

    slug: str
    """The question it is about."""
    note: EditorNote
    """The note."""
    add_tags: tuple[str, ...]
    """Tag ids pinned on the question whatever its keywords."""
    remove_tags: tuple[str, ...]
    """Tag ids taken off the question whatever its keywords."""
    path: str
    """The notes file."""
    line: int
    """Line of the `slug:` field."""


def load_notes(path: Path, tags: tuple[Tag, ...], problems: Problems) -> list[NoteSource]:
    """Validate one notes file; every malformed field is reported with its line."""
    doc = load_yaml(path, problems)
    if doc is None:
        return []
    top = (
        check_fields(doc, {"notes": tuple}, {"notes"}, path, "notes file", problems)
        if isinstance(doc.value, dict)
        else None
    )
    if top is None:
        if not isinstance(doc.value, dict):
            problems.error(path, doc.line, "notes file must be a mapping with a `notes:` list")
        return []
    tag_ids = {tag.id for tag in tags}
    out: list[NoteSource] = []
    seen: dict[str, int] = {}
    for item in top["notes"].value:
        fields = check_fields(item, _FIELDS, {"slug"}, path, "note", problems)
        if fields is None:
            continue
        slug = fields["slug"].value.strip()
        if slug in seen:
            problems.error(path, fields["slug"].line, f"note: `{slug}` already has a note (line {seen[slug]})")
            continue
        seen[slug] = fields["slug"].line
        ok = _together(fields, LANGUAGES.written, "note", path, problems, item.line)
        kind = fields["kind"].value.strip() if "kind" in fields else ("correction" if BANK_LANG in fields else "extra")
        if kind not in KINDS:
            problems.error(path, fields["kind"].line, f"note: field `kind` must be one of {', '.join(KINDS)}")
            ok = False
        followups = []
        for f in fields["followups"].value if "followups" in fields else []:
            ff = check_fields(f, _FOLLOWUP, set(_FOLLOWUP), path, "follow-up", problems)
            if ff is None:
                ok = False
                continue
            followups.append(
                FollowUp(
                    {lang: ff[f"q_{lang}"].value.strip() for lang in LANGUAGES.written},
                    {lang: ff[f"a_{lang}"].value.strip() for lang in LANGUAGES.written},
                )
            )
        references = []
        for r in fields["references"].value if "references" in fields else []:
            rf = check_fields(r, _REFERENCE, set(_REFERENCE), path, "reference", problems)
            if rf is None:
                ok = False
                continue
            url = rf["url"].value.strip()
            if not url.startswith("https://") or any(c.isspace() or c in "\"'<>" for c in url):
                problems.error(path, rf["url"].line, f"reference: `url` must be an https:// address (got {url!r})")
                ok = False
                continue
            references.append(Reference(rf["title"].value.strip(), url))
        pins: dict[str, tuple[str, ...]] = {}
        for key in ("add_tags", "remove_tags"):
            ids = tuple(v.value.strip() for v in fields[key].value) if key in fields else ()
            for tag_id in ids:
                if tag_id not in tag_ids:
                    problems.error(path, fields[key].line, f"note: `{key}` names tag `{tag_id}`, not in the taxonomy")
                    ok = False
            pins[key] = ids
        if set(pins["add_tags"]) & set(pins["remove_tags"]):
            problems.error(path, fields["add_tags"].line, "note: a tag cannot be both added and removed")
            ok = False
        if BANK_LANG not in fields and not followups and not references and not any(pins.values()):
            written = "/".join(f"`{lang}`" for lang in LANGUAGES.written)
            problems.error(path, item.line, f"note: gives nothing (add {written}, followups, references or tags)")
            ok = False
        if not ok:
            continue
        text = {lang: _paragraphs(fields[lang].value) if lang in fields else () for lang in LANGUAGES.written}
        note = EditorNote(kind, text, tuple(followups), tuple(references), item.line)  # type: ignore[arg-type]
        out.append(NoteSource(slug, note, pins["add_tags"], pins["remove_tags"], str(path), fields["slug"].line))
    return out


def check_slugs(notes: list[NoteSource], bank_id: str, site: Site, bank_file: str, problems: Problems) -> None:
    """A note must name a question of its bank: a slug never published is an error (a typo); one whose
    question was removed, or now lives in another bank, warns (the note still follows a moved question)."""
    gone = {stone.slug for stone in site.tombstones if stone.bank_id == bank_id}
    for n in notes:
        entry = site.entries.get(n.slug)
        if entry is not None and entry.bank_id == bank_id:
            continue
        if entry is not None:
            problems.warn(
                n.path,
                n.line,
                f"note: `{n.slug}` is now in {entry.bank_id}.txt: move the note to {entry.bank_id}{SUFFIX}",
            )
        elif n.slug in gone:
            problems.warn(n.path, n.line, f"note: `{n.slug}` was removed from {bank_file}: delete the note")
        else:
            problems.error(n.path, n.line, f"note: `{n.slug}` is not a question of {bank_file} (see banks/slugs.lock)")


def pin_tags(tags: tuple[str, ...], note: NoteSource | None, order: tuple[Tag, ...]) -> tuple[str, ...]:
    """A question's tags after its note's `add_tags` / `remove_tags`, in taxonomy order."""
    if note is None:
        return tags
    chosen = (set(tags) | set(note.add_tags)) - set(note.remove_tags)
    return tuple(tag.id for tag in order if tag.id in chosen)


def note_html(note: EditorNote, lang: Lang, *, quiz: bool = True, heading: str = "p") -> str:
    """The note box: a label that it is ours, the note, the follow-ups (as disclosures on screen, `quiz`)
    and the references. `quiz` adds the class study.css hides with the answer."""
    css = "qa-note qa-with-answer" if quiz else "qa-note"
    label = t(f"note.kind.{note.kind}", lang)
    # role=note, not <aside>: a print edition has many notes, and landmarks must each be unique
    out = [f'<div role="note" class="{css}" data-qa-note="{note.kind}" aria-label="{escape(t("note.label", lang))}">']
    out.append(
        f'<p class="qa-note__label"><strong>{escape(label)}</strong>'
        f'<span class="qa-note__ours">{escape(t("note.ours", lang))}</span></p>'
    )
    out.extend(f"<p>{escape(p)}</p>" for p in note.text[lang])
    if note.followups:
        out.append(f'<{heading} class="qa-note__head">{escape(t("note.followups", lang))}</{heading}>')
        for f in note.followups:
            if quiz:
                out.append(
                    f'<details class="qa-note__followup"><summary>{escape(f.question[lang])}</summary>'
                    f"<p>{escape(f.answer[lang])}</p></details>"
                )
            else:
                out.append(
                    f'<p class="qa-note__followup"><strong>{escape(f.question[lang])}</strong><br>'
                    f"{escape(f.answer[lang])}</p>"
                )
    if note.references:
        out.append(f'<{heading} class="qa-note__head">{escape(t("note.references", lang))}</{heading}>')
        out.append('<ul class="qa-note__refs">')
        out.extend(
            f'<li><a href="{escape(r.url)}" rel="noopener">{escape(r.title)}</a>'
            # on screen the host says where a link goes; on paper and cards the whole address is needed
            f' <span class="qa-note__url">{escape(_host(r.url) if quiz else r.url)}</span></li>'
            for r in note.references
        )
        out.append("</ul>")
    out.append("</div>")
    return "\n".join(out)


def _together(
    fields: dict[str, Located], keys: tuple[str, ...], what: str, path: Path, problems: Problems, line: int
) -> bool:
    """All of `keys` (one per written language) or none."""
    given = [key for key in keys if key in fields]
    if given and len(given) < len(keys):
        missing = next(key for key in keys if key not in fields)
        names = " and ".join(f"`{key}`" for key in keys)
        problems.error(path, line, f"{what}: {names} go together (both languages): add `{missing}`")
        return False
    return True


def _paragraphs(text: str) -> tuple[str, ...]:
    return tuple(" ".join(p.split()) for p in text.split("\n\n") if p.strip())


def _host(url: str) -> str:
    return url.split("/", 3)[2]


# The note's text, and each follow-up's question and answer, once per written language (the table's
# bank and translation languages): `zh`, `en`; `q_zh`, `q_en`, `a_zh`, `a_en`.
_FIELDS: dict[str, type] = {
    "slug": str,
    "kind": str,
    **{lang: str for lang in LANGUAGES.written},
    "followups": tuple,
    "references": tuple,
    "add_tags": list,
    "remove_tags": list,
}
_FOLLOWUP: dict[str, type] = {
    **{f"q_{lang}": str for lang in LANGUAGES.written},
    **{f"a_{lang}": str for lang in LANGUAGES.written},
}
_REFERENCE: dict[str, type] = {"title": str, "url": str}
