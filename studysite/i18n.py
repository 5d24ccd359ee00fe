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
    "nav.review": {"zh": "今日复习", "en": "Review today"},
    "home.today": {"zh": "今日复习", "en": "Review today"},
    "review.title": {"zh": "今日复习", "en": "Review today"},
    "review.intro": {
        "zh": "今天到期的题目，加上每天限量的新题：先自己回答，再显示答案，按“重来 / 困难 / 良好 / 简单”评分"
        "（键盘 1–4）。下次复习的时间由 FSRS 间隔重复算法根据你的评分安排；记录只保存在你的浏览器里。",
        "en": "The questions due today, plus a daily number of new ones: answer each yourself, reveal the answer, "
        "then grade your recall Again, Hard, Good or Easy (keys 1-4). The FSRS spaced-repetition scheduler picks "
        "the next review from your grades; everything stays in your browser.",
    },
    "review.noscript": {
        "zh": "每日复习在你的浏览器中运行，需要启用 JavaScript。不启用时，仍可在题库页面中逐题阅读。",
        "en": "The daily review runs in your browser and needs JavaScript. Without it you can still read every "
        "question from its bank's page.",
    },
    "home.study": {"zh": "自测与进度", "en": "Test yourself"},
    "home.study.intro": {
        "zh": "在每道题的页面上，可以先遮住答案自己作答，再显示答案，按“重来 / 困难 / 良好 / 简单”评分，"
        "间隔重复算法（FSRS）据此安排下次复习；打开“测验模式”后，每一页的答案都先隐藏。还可以给题目写私人笔记，"
        "或暂停复习某道题。记录只保存在你的浏览器里（不会上传），可以导出为文件，在另一台设备上合并导入。按 ? 查看快捷键。",
        "en": "On every question page you can hide the answer, answer it yourself, then reveal it and grade your "
        "recall Again, Hard, Good or Easy; a spaced-repetition scheduler (FSRS) picks the next review from that. "
        "With quiz mode on, every answer starts hidden. You can keep a private note on a question, or suspend it. "
        "Everything stays in your browser (nothing is uploaded); export it to a file and merge it into another "
        "device. Press ? for keyboard shortcuts.",
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
    "tags.intro": {
        "zh": "每个标签及其题数；点开标签查看它的全部问题。",
        "en": "Every tag and how many questions it has; open one to see its questions.",
    },
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
        "print.part": {"zh": "第 {n} / {total} 部分", "en": "part {n} of {total}"},
        "print.part.intro": {
            "zh": "本部分为第 {first}–{last} 题（共 {n} 题）；页末的页码通往其余部分，PDF 版包含全部题目。",
            "en": "This part holds questions {first}–{last} of {n}; the page numbers at its end lead to "
            "the other parts, and the PDF holds them all.",
        },
        "print.online": {"zh": "在线版", "en": "Online edition"},
        "print.back": {"zh": "返回题库", "en": "Back to the bank"},
        "print.toc": {"zh": "目录", "en": "Contents"},
        "print.tags": {"zh": "标签", "en": "Tags"},
        "question.report": {"zh": "报告错误", "en": "Report an error"},
        "question.edit": {"zh": "编辑源文件（第 {line} 行）", "en": "Edit the source (line {line})"},
        "question.actions": {"zh": "纠错", "en": "Corrections"},
        "question.report.language": {"zh": "中文 (zh)", "en": "English (en)"},
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
            "zh": "你打开过的页面会自动保存在这个浏览器里，断网也能重读（不会额外下载）。想离线阅读更多，"
            "可以在这里下载整站或一种语言；每个题库的页面上也可以只下载那个题库。",
            "en": "Pages you open are kept in this browser as you read, so you can reread them offline (nothing "
            "extra is downloaded). To read more offline, download the whole site or one language here; each "
            "bank's page offers that bank alone.",
        },
        "bank.offline.intro": {
            "zh": "下载这个题库的全部页面和它的搜索数据，断网也能阅读和搜索。",
            "en": "Download every page of this bank and its search data, to read and search it offline.",
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
        "offline.gone.title": {"zh": "页面不存在", "en": "Page not found"},
        "offline.gone.body": {
            "zh": "这个网址在本站没有页面。",
            "en": "This site has no page at this address.",
        },
        "offline.gone.home": {"zh": "返回首页", "en": "Back to the home page"},
        # The download control (studysite/offline.py offline_control; overrides/assets/qa/offline.js)
        "offline.label": {"zh": "离线下载", "en": "Offline downloads"},
        "offline.scope.site": {"zh": "整站（中英双语）", "en": "The whole site (both languages)"},
        "offline.scope.lang": {"zh": "中文版全部页面", "en": "Every page in English"},
        "offline.scope.bank": {"zh": "这个题库", "en": "This bank"},
        "offline.get": {"zh": "下载（{size}）", "en": "Download ({size})"},
        "offline.cancel": {"zh": "取消", "en": "Cancel"},
        "offline.remove": {"zh": "删除", "en": "Remove"},
        "offline.progress": {"zh": "正在下载：{done} / {total}", "en": "Downloading: {done} of {total}"},
        "offline.stored": {"zh": "已保存，占用 {size}", "en": "Stored, {size}"},
        "offline.visited": {
            "zh": "这个浏览器里一共保存了本站 {n} 个文件，占用 {size}。",
            "en": "This browser holds {n} files of this site, {size} in all.",
        },
        "offline.savedata": {
            "zh": "你开启了省流量模式：本站不会自动保存页面；下载会使用你的移动数据。",
            "en": "Data Saver is on: nothing is saved automatically, and a download uses your data plan.",
        },
        "offline.failed.quota": {
            "zh": "下载未完成：这台设备的存储空间不够。已经保存的内容仍然保留。",
            "en": "The download stopped: there is not enough storage space on this device. What was already "
            "saved is kept.",
        },
        "offline.failed.network": {
            "zh": "下载未完成：网络中断了。已经保存的内容仍然保留，联网后可以再试。",
            "en": "The download stopped: the network went away. What was already saved is kept; try again "
            "when you are online.",
        },
        "offline.failed.other": {
            "zh": "下载未完成：网站刚刚更新了。请重新加载页面后再试；已经保存的内容仍然保留。",
            "en": "The download stopped: the site was just updated. Reload the page and try again; what was "
            "already saved is kept.",
        },
        "offline.cancelled": {
            "zh": "已取消。已经下载的文件仍然保留。",
            "en": "Cancelled. The files already downloaded are kept.",
        },
        "offline.done": {
            "zh": "下载完成：断网也能阅读和搜索。",
            "en": "Downloaded: you can read and search it offline.",
        },
        "offline.removed": {"zh": "已删除。", "en": "Removed."},
    }
)

# The stats page (studysite/render_study.py stats_page): plots, notes search, progress link, sync.
STRINGS.update(
    {
        "nav.stats": {"zh": "学习统计", "en": "Study stats"},
        "stats.title": {"zh": "学习统计", "en": "Study stats"},
        "stats.intro": {
            "zh": "你的复习记录：近 30 天每天复习了多少题、未来 14 天每天有多少题到期、各标签的记住率（复习时没有选"
            "“重来”的比例）。每张图下都有同样数字的表格。这些数据只在你的浏览器里计算，不会上传。",
            "en": "Your reviews: how many you did each day of the last 30 days, how many cards fall due on each of "
            "the next 14 days, and your recall by tag (the share of reviews not graded Again). Every plot has "
            "its numbers in a table below it. All of it is worked out in your browser; nothing is uploaded.",
        },
        "stats.notes": {"zh": "搜索你的笔记", "en": "Search your notes"},
        "stats.move": {"zh": "把进度带到另一台设备", "en": "Move your progress to another device"},
        "stats.move.intro": {
            "zh": "进度链接把你的全部进度（复习记录、笔记、暂停的题）压缩后放在网址的 # 之后：# 之后的部分浏览器"
            "不会发送给任何服务器。在另一台设备上打开这个链接，确认后即与那里的进度合并（每道题保留双方的复习记录）。"
            "手机可以直接扫描二维码。",
            "en": "A progress link carries all your progress (reviews, notes, suspended cards), compressed, after "
            "the # of its address: browsers never send that part to any server. Open it on another device and, "
            "once you confirm, it is merged with the progress there (each card keeps the reviews of both). "
            "A phone can scan it as a QR code.",
        },
        "stats.sync": {"zh": "用 GitHub 在设备间同步", "en": "Sync across devices with GitHub"},
        "stats.sync.intro": {
            "zh": "可选，默认关闭：连接你自己的 GitHub 仓库后，进度、笔记和暂停的题会保存到其中的一个文件里，"
            "每台连接了同一仓库的设备都与它合并。令牌只保存在这个浏览器里，只发送给 GitHub，"
            "不会出现在导出文件、进度链接或同步的文件里。未开启时，任何页面都不会向 GitHub 或其他网站发出请求。",
            "en": "Optional and off until you turn it on: connect a GitHub repository of your own and your "
            "progress, notes and suspended cards are kept in a file there, merged with every device connected "
            "to the same repository. The token stays in this browser and is sent to GitHub only, never into an "
            "export file, a progress link or the synced file. While sync is off, no page sends anything to GitHub or any other host.",
        },
        "stats.noscript": {
            "zh": "学习统计、进度链接和同步都在你的浏览器中运行，需要启用 JavaScript。",
            "en": "Stats, progress links and sync run in your browser and need JavaScript.",
        },
    }
)


# Bounded lists (studysite/listings.py): tag pages, a glossary term's questions, pages of a long list.
STRINGS.update(
    {
        "tags.all": {"zh": "全部标签", "en": "All tags"},
        "home.banks.all": {"zh": "查看全部 {n} 个题库", "en": "All {n} banks"},
        "home.downloads.more": {
            "zh": "其余 {n} 个题库的卡组、表格与打印版在各自的题库页面上。",
            "en": "The decks, spreadsheets and print editions of the other {n} banks are on each bank's page.",
        },
        "tag.title": {"zh": "标签：{name}", "en": "Tag: {name}"},
        "list.page": {"zh": "第 {n} / {total} 页", "en": "page {n} of {total}"},
        "list.pages": {"zh": "页码", "en": "Pages"},
        "list.prev": {"zh": "上一页", "en": "Previous page"},
        "list.next": {"zh": "下一页", "en": "Next page"},
        "glossary.more": {"zh": "查看全部 {n} 道题", "en": "All {n} questions"},
        "glossary.term_title": {"zh": "用到“{name}”的问题", "en": "Questions that use “{name}”"},
        "glossary.back": {"zh": "返回术语表中的“{name}”", "en": "Back to “{name}” in the glossary"},
    }
)


# Content: editor's notes (studysite/notes.py) and stale translations (studysite/translations.py).
STRINGS.update(
    {
        "note.label": {"zh": "编者注", "en": "Editor's note"},
        "note.ours": {
            "zh": "由本站编者补充，不属于原题库文本",
            "en": "added by this site's editors, not part of the question bank's text",
        },
        "note.kind.correction": {"zh": "编者更正", "en": "Editor's correction"},
        "note.kind.update": {"zh": "编者补充：新进展", "en": "Editor's update"},
        "note.kind.caveat": {"zh": "编者提示", "en": "Editor's caveat"},
        "note.kind.extra": {"zh": "编者补充", "en": "Editor's additions"},
        "note.followups": {"zh": "追问", "en": "Follow-up questions"},
        "note.references": {"zh": "参考资料", "en": "References"},
        "translation.stale": {
            "zh": "中文原文在这份英文翻译之后有过修改，翻译可能已过时。下方是当前的中文原文。",
            "en": "The Chinese was updated after this translation: the English above may be out of date. "
            "The current Chinese is shown below.",
        },
        "translation.current": {"zh": "当前中文原文", "en": "Current Chinese original"},
    }
)


def t(key: str, lang: Lang, **values: object) -> str:
    """The string `key` in `lang`, with `{name}` placeholders filled."""
    return STRINGS[key][lang].format(**values)
