"""The words of a new question's slug when it has no English yet: its technical terms, else pinyin words.

`FSDP和ZeRO-3有什么异同？` -> `fsdp-zero-3`: the ASCII terms the Chinese question holds, in order, and
each Chinese glossary term it uses as the glossary's English name (`张量并行` -> `tensor-parallelism`).
Only a question with no such term is spelled in pinyin, a word at a time: the Chinese is cut at
function words (的, 什么, 如何 ...) and each piece is one pinyin word (`题库文本` -> `tikuwenben`), not a
syllable per character. pypinyin's own phrase list only holds words whose reading is ambiguous, so it
cannot segment; jieba could, but costs a 0.5 s dictionary load on every build and a dependency.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from ..languages import BANK_LANG, TRANSLATION_LANG
from ..model import GlossaryTerm


def glossary_terms(glossary: Iterable[GlossaryTerm]) -> dict[str, str]:
    """Chinese spelling of each glossary term -> its English name as slug words (`tensor-parallelism`)."""
    out: dict[str, str] = {}
    for term in glossary:
        # The bank language's spellings (those in Han script) -> the translation's name
        english = re.sub(r"\s*[（(].*?[)）]\s*", " ", term.names[TRANSLATION_LANG])  # "Tensor Parallelism (TP)"
        words = "-".join(_ascii_words(english))
        for form in (term.names[BANK_LANG], *term.forms[BANK_LANG]):
            if _HAN.search(form) and words:
                out.setdefault(form, words)
    return out


def chinese_slug_words(text: str, terms: dict[str, str], stop: frozenset[str]) -> list[str]:
    """Slug words for a Chinese question (its first sentence): terms if it has any, else pinyin words."""
    found: list[str] = []
    pieces: list[str] = []  # Han runs without a term, for the pinyin fallback
    for run in _RUNS.findall(text):
        if not _HAN.match(run):
            found += [w for w in _ascii_words(run) if w not in stop]
            continue
        rest = run
        for form in sorted((f for f in terms if f in run), key=len, reverse=True):
            if form in rest:
                found.append(terms[form])
                rest = rest.replace(form, "|")
        pieces += [p for p in rest.split("|") if p]
    if found:
        return list(dict.fromkeys("-".join(found).split("-")))
    return [w for piece in pieces for w in _pinyin_words(piece)]


def _pinyin_words(run: str) -> list[str]:
    from pypinyin import lazy_pinyin  # imported only when a question has neither English nor terms

    words = []
    for piece in _FUNCTION.split(run):
        if piece and piece not in _FUNCTION_WORDS:
            word = "".join(p for p in lazy_pinyin(piece) if p.isascii() and p.isalnum())
            if word:
                words.append(word)
    return words


def _ascii_words(text: str) -> list[str]:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    ascii_text = re.sub(r"(?<=[a-z])'(?=[a-z])", "", ascii_text)
    return [w for w in re.split(r"[^a-z0-9]+", ascii_text) if w]


_FUNCTION_WORDS = (
    "为什么 怎么办 怎么样 怎么 如何 什么 哪些 哪个 哪里 是否 有没有 分别 一个 一种 还是 以及 或者 如果 需要 可以 应该 "
    "进行 中的 时的 有 和 与 及 或 的 地 得 是 在 对 把 被 从 到 给 让 了 吗 呢 吧 啊 中 时 下 上 里 个 种 要 能 会 "
    "做 用 该 这 那 其 各 都 也 就 又 还 很 更 最 再"
).split()
_FUNCTION = re.compile("(" + "|".join(sorted(map(re.escape, _FUNCTION_WORDS), key=len, reverse=True)) + ")")
_RUNS = re.compile(r"[\u3400-\u9fff]+|[^\u3400-\u9fff]+")
_HAN = re.compile(r"[\u3400-\u9fff]")
