"""Every string the generated pages show, in both languages. Add a key here, never an `if lang`."""

from __future__ import annotations

from .model import Lang

STRINGS: dict[str, dict[Lang, str]] = {
    "home.title": {"zh": "AI Infra 面试题库", "en": "AI Infra Interview Questions"},
    "home.intro": {
        "zh": "面向 AI 基础设施（训练、推理、通信、GPU 架构）面试的题库：每道题一个页面，带标签、相关问题和中英双语对照。",
        "en": "A question bank for AI-infrastructure interviews (training, inference, communication, GPU "
        "architecture): one page per question, with tags, related questions, and Chinese and English side by side.",
    },
    "home.search": {
        "zh": "按 / 或 s 键搜索（中文词不必加空格，如“显存带宽”；英文术语如 AllReduce、KV Cache 也能搜到）。",
        "en": "Press / or s to search; technical terms such as AllReduce, KV cache or prefill are found "
        "anywhere in an answer.",
    },
    "home.banks": {"zh": "题库", "en": "Question banks"},
    "home.tags": {"zh": "按主题学习", "en": "Study by topic"},
    "home.count": {"zh": "{n} 道题", "en": "{n} questions"},
    "home.count.one": {"zh": "{n} 道题", "en": "{n} question"},
    "home.other_lang": {"zh": "Read in English", "en": "中文版"},
    "nav.home": {"zh": "首页", "en": "Home"},
    "nav.tags": {"zh": "标签", "en": "Tags"},
    "tags.title": {"zh": "标签", "en": "Tags"},
    "tags.intro": {"zh": "每个标签下的全部问题。", "en": "Every question, by tag."},
    "bank.intro": {
        "zh": "本题库共 {n} 道题，按原题顺序排列。",
        "en": "This bank has {n} questions, in their original order.",
    },
    "question.related": {"zh": "相关问题", "en": "Related questions"},
    "question.bank": {"zh": "所属题库", "en": "From the bank"},
    "question.prev": {"zh": "上一题", "en": "Previous question"},
    "question.next": {"zh": "下一题", "en": "Next question"},
    "question.pager": {"zh": "本题库内翻页", "en": "Questions in this bank"},
    "question.answer": {"zh": "答案", "en": "Answer"},
    "question.untranslated": {
        "zh": "",
        "en": "Not yet translated: this question has no English translation yet, so the Chinese original is "
        "shown below.",
    },
    "removed.title": {"zh": "该问题已删除", "en": "This question was removed"},
    "removed.body": {
        "zh": "这道题已从题库中删除。原题目：",
        "en": "This question has been removed from its bank. It read:",
    },
    "removed.back": {"zh": "返回题库：", "en": "Back to the bank:"},
}


def t(key: str, lang: Lang, **values: object) -> str:
    """The string `key` in `lang`, with `{name}` placeholders filled."""
    return STRINGS[key][lang].format(**values)
