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
    "home.count.banks": {"zh": "{n} 个题库", "en": "{n} banks"},
    "home.count.banks.one": {"zh": "{n} 个题库", "en": "{n} bank"},
    "home.count.tags": {"zh": "{n} 个主题", "en": "{n} topics"},
    "home.count.tags.one": {"zh": "{n} 个主题", "en": "{n} topic"},
    "home.ways": {"zh": "从这里开始", "en": "Start here"},
    "home.way.review": {"zh": "今日复习", "en": "Review today"},
    "home.way.random": {"zh": "随机抽题", "en": "Pick one at random"},
    "home.way.topics": {"zh": "按主题浏览", "en": "Browse by topic"},
    "home.tags": {"zh": "按主题学习", "en": "Study by topic"},
    "home.count": {"zh": "{n} 道题", "en": "{n} questions"},
    "home.count.one": {"zh": "{n} 道题", "en": "{n} question"},
    "home.other_lang": {"zh": "Read in English", "en": "中文版"},
    "nav.home": {"zh": "首页", "en": "Home"},
    "nav.tags": {"zh": "标签", "en": "Tags"},
    "nav.mock": {"zh": "模拟面试", "en": "Mock interview"},
    "home.study": {"zh": "自测与进度", "en": "Test yourself"},
    "home.study.intro": {
        "zh": "在每道题的页面上，可以先遮住答案自己作答，再显示答案，并标记“已掌握”或“再复习”；打开“测验模式”后，"
        "每一页的答案都先隐藏。标记只保存在你的浏览器里（不会上传），可以导出为文件，在另一台设备上导入。按 ? 查看快捷键。",
        "en": "On every question page you can hide the answer, answer it yourself, then reveal it and mark the "
        "question “know it” or “review again”; with quiz mode on, every answer starts hidden. Marks stay in "
        "your browser (nothing is uploaded); export them to a file and import it on another device. Press ? for "
        "keyboard shortcuts.",
    },
    "home.mock": {"zh": "模拟面试", "en": "Mock interview"},
    "home.mock.about": {
        "zh": "模拟面试：按你选的标签随机抽题，一次一道、计时作答，最后按标签汇总薄弱点。",
        "en": "Mock interview: a random draw of questions on the topics you pick, one at a time against the clock, "
        "then your weak spots by topic.",
    },
    "mock.title": {"zh": "模拟面试", "en": "Mock interview"},
    "mock.intro": {
        "zh": "选择标签和题数，随机抽题，一次一道并计时。先自己回答（最好说出声），再显示答案，按“会 / 部分会 / 不会”"
        "自评。结束后按标签汇总薄弱点，自评结果同时记入你的学习进度。",
        "en": "Pick topics and a number of questions for a random draw, shown one at a time with a timer. Answer "
        "each one yourself (out loud is best), then reveal the answer and grade yourself: know it, partly, or "
        "don't know. At the end you get your weak spots by topic, and your grades go into your progress marks.",
    },
    "mock.noscript": {
        "zh": "模拟面试在你的浏览器中运行，需要启用 JavaScript。不启用时，仍可在题库页面中逐题阅读。",
        "en": "The mock interview runs in your browser and needs JavaScript. Without it you can still read every "
        "question from its bank's page.",
    },
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
    "bilingual.toggle": {"zh": "中英对照", "en": "Side by side with Chinese"},
    "bilingual.missing": {
        "zh": "这道题还没有英文翻译。",
        "en": "This question has no English translation yet: the Chinese original is what this page shows.",
    },
    "bilingual.unsaved": {
        "zh": "此浏览器不允许保存设置：换页后对照视图会关闭。",
        "en": "This browser does not let the site save settings: the side-by-side view turns off on the next page.",
    },
    "removed.title": {"zh": "该问题已删除", "en": "This question was removed"},
    "removed.body": {
        "zh": "这道题已从题库中删除。原题目：",
        "en": "This question has been removed from its bank. It read:",
    },
    "removed.back": {"zh": "返回题库：", "en": "Back to the bank:"},
    "removed.home": {"zh": "它所在的题库也已不存在。返回：", "en": "Its bank no longer exists either. Back to:"},
    "redirect.title": {"zh": "页面已移动", "en": "Page moved"},
    "redirect.body": {"zh": "此页面已移动。", "en": "This page has moved."},
    "redirect.link": {"zh": "前往新页面", "en": "Go to the new page"},
}

# Take-away: Anki decks and CSV, the print edition, the glossary, and "report an error" links.
STRINGS.update(
    {
        "punct.colon": {"zh": "：", "en": ": "},
        "punct.sep": {"zh": " · ", "en": " · "},
        "nav.glossary": {"zh": "术语表", "en": "Glossary"},
        "home.glossary": {
            "zh": "术语表：{n} 个中英对照的领域术语及定义",
            "en": "Glossary: {n} terms of the field in Chinese and English, with definitions",
        },
        "home.downloads": {"zh": "下载与打印", "en": "Downloads and print"},
        "glossary.title": {"zh": "术语表", "en": "Glossary"},
        "glossary.intro": {
            "zh": "答案中用到的 {n} 个领域术语，中英对照，附简短定义。答案里每个术语第一次出现时带虚线下划线："
            "鼠标悬停（手机上轻点）即可看到它的译名和定义。",
            "en": "The {n} terms of the field that the answers use, in English and Chinese, with short "
            "definitions. In an answer, a term's first use is underlined with dots: hover over it (tap it "
            "on a phone) to see its translation and definition.",
        },
        "glossary.other_name": {"zh": "英文", "en": "Chinese"},
        "glossary.other_def": {"zh": "英文定义", "en": "In Chinese"},
        "glossary.used_in": {"zh": "用到它的问题：", "en": "Questions that use it:"},
        "glossary.filter": {"zh": "筛选术语", "en": "Filter the terms"},
        "glossary.jump": {"zh": "按拼音首字母跳转", "en": "Jump to a letter"},
        "glossary.count": {"zh": "显示 {n} / {total} 个术语", "en": "{n} of {total} terms"},
        "glossary.none": {"zh": "没有匹配的术语。", "en": "No term matches."},
        "glossary.unused": {"zh": "暂无问题用到这个术语。", "en": "No question uses this term yet."},
        "downloads.title": {"zh": "下载与打印", "en": "Downloads and print"},
        "downloads.anki": {"zh": "Anki 卡组", "en": "Anki decks"},
        "downloads.variant.zh": {"zh": "中文", "en": "Chinese"},
        "downloads.variant.en": {"zh": "英文", "en": "English"},
        "downloads.variant.zh-en": {"zh": "中英双语", "en": "Bilingual"},
        "downloads.csv": {"zh": "表格", "en": "Spreadsheet"},
        "downloads.csv.link": {
            "zh": "CSV（中英对照，可导入 Excel 和其他闪卡工具）",
            "en": "CSV (Chinese and English, for Excel and other flashcard apps)",
        },
        "downloads.print": {"zh": "打印版", "en": "Print edition"},
        "downloads.print.page": {"zh": "网页（可直接打印）", "en": "web page (print it from the browser)"},
        "downloads.pdf": {"zh": "PDF（A4）", "en": "PDF (A4)"},
        "downloads.hint": {
            "zh": "题库更新后重新导入新卡组即可：已有卡片会被更新而不会重复，复习记录保留。",
            "en": "When the bank changes, import the new deck again: existing cards are updated, not "
            "duplicated, and keep their review history.",
        },
        "downloads.tags.title": {"zh": "按标签下载 Anki 卡组", "en": "Anki decks by tag"},
        "print.title": {"zh": "{bank}（打印版）", "en": "{bank} (print edition)"},
        "print.intro": {
            "zh": "共 {n} 道题，含全部答案和标签。用浏览器的打印功能（Ctrl+P，Mac 上 ⌘P）打印或另存为 PDF。",
            "en": "All {n} questions with their answers and tags. Use the browser's Print command "
            "(Ctrl+P, or ⌘P on a Mac) to print it or save it as a PDF.",
        },
        "print.count": {"zh": "共 {n} 道题", "en": "{n} questions"},
        "print.online": {"zh": "在线版", "en": "Online edition"},
        "print.back": {"zh": "返回题库", "en": "Back to the bank"},
        "print.toc": {"zh": "目录", "en": "Contents"},
        "print.tags": {"zh": "标签", "en": "Tags"},
        "question.report": {"zh": "报告错误", "en": "Report an error"},
        "question.edit": {"zh": "编辑源文件（第 {line} 行）", "en": "Edit the source (line {line})"},
        "question.actions": {"zh": "纠错", "en": "Corrections"},
        "question.report.body": {
            "zh": "题目：{question}\n题库：{bank}\n页面：{slug}\n源文件：{file} 第 {line} 行\n\n"
            "哪里有错？应该怎么改？\n\n",
            "en": "Question: {question}\nBank: {bank}\nPage: {slug}\nSource: {file} line {line}\n\n"
            "What is wrong, and what should it say?\n\n",
        },
        "anki.deck": {"zh": "AI Infra 面试题库", "en": "AI Infra Interview Questions"},
        "anki.deck.zh-en": {"zh": "AI Infra 面试题库（中英双语）", "en": "AI Infra Interview Questions (bilingual)"},
        "anki.tags": {"zh": "标签", "en": "Tags"},
        "anki.source": {"zh": "网页版", "en": "Web page"},
        "anki.description": {
            "zh": "由题库自动生成，与网站同步：{url}。重新导入新版本会更新已有卡片，不会重复。",
            "en": "Generated from the question bank, in step with the site: {url}. Importing a newer "
            "version updates existing cards instead of duplicating them.",
        },
    }
)

# Offline reading: the home page's section, the zip's notice, the service worker's "not saved" page.
STRINGS.update(
    {
        "home.offline": {"zh": "离线阅读", "en": "Offline reading"},
        "home.offline.intro": {
            "zh": "本站打开过一次后，这个浏览器断网也能继续阅读和搜索。",
            "en": "After one visit, this site keeps working in this browser without a network, search included.",
        },
        "home.offline.zip": {"zh": "下载整站压缩包", "en": "Download the whole site as a zip"},
        "home.offline.zip.about": {
            "zh": "（{size}，中英双语；解压后打开其中的 index.html 即可阅读）",
            "en": " ({size}, both languages; unzip it and open index.html)",
        },
        "zip.notice.title": {"zh": "离线副本", "en": "Offline copy"},
        "zip.notice": {
            "zh": "直接打开这些文件即可使用：全部页面和链接、模拟面试、学习进度与标记、下载（Anki、CSV、打印版）。"
            "只有搜索需要本地网页服务器：在解压出的文件夹里运行 {command}，然后打开 {url}。",
            "en": "Straight from these files: every page and link, the mock interview, your progress and marks, and "
            "the downloads (Anki, CSV, print). Only search needs a local web server: in the unzipped folder run "
            "{command}, then open {url}.",
        },
        "offline.missing.title": {"zh": "这个页面还没有离线保存", "en": "This page is not saved for offline reading"},
        "offline.missing.body": {
            "zh": "现在没有网络，而这个页面还没有保存到本机。联网后打开一次，以后离线也能阅读。",
            "en": "There is no network, and this page has not been saved on this device yet. Open it once "
            "while online to read it offline later.",
        },
        "offline.missing.home": {"zh": "返回首页", "en": "Back to the home page"},
    }
)


def t(key: str, lang: Lang, **values: object) -> str:
    """The string `key` in `lang`, with `{name}` placeholders filled."""
    return STRINGS[key][lang].format(**values)
