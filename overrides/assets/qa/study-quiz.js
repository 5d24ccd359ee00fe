/* Study mode on a question page: hide and reveal the answer, quiz mode, "know it" / "review again" marks. */
(function () {
  "use strict";
  var S = window.QAStudy;
  var answer = document.getElementById("qa-answer");
  if (!answer) return;
  var root = document.documentElement;
  var HIDDEN = "qa-answer-hidden"; // on <html>; overrides/main.html sets it early when quiz mode is on
  var slug = answer.getAttribute("data-qa-slug");
  var hash = answer.getAttribute("data-qa-hash");
  var t = S.strings({
    zh: {
      tools: "自测",
      show: "显示答案",
      hide: "隐藏答案",
      quiz: "测验模式",
      quizHint: "打开后，每道题的答案都先隐藏，直到你点开",
      keys: "键盘快捷键",
      cover: "答案已隐藏。先自己回答，再显示答案。",
      ask: "掌握得怎么样？",
      know: "已掌握",
      review: "再复习",
      marked_know: "已标记为“已掌握”。",
      marked_review: "已标记为“再复习”。",
      cleared: "已清除标记。",
      undone: "已撤销。",
      undo: "撤销",
      next: "下一题 →",
      changed: "标记后有改动",
      changedLong: "你标记之后，这道题的内容改过了：请重新看一遍答案，再标记一次。",
      markedOn: "标记于 {date}",
      keyShow: "显示 / 隐藏答案",
      keyKnow: "标记为“已掌握”（再按一次取消）",
      keyReview: "标记为“再复习”（再按一次取消）",
      keyUndo: "撤销上一次标记",
      keyQuiz: "打开 / 关闭测验模式",
      keyNext: "下一题",
      keyPrev: "上一题",
    },
    en: {
      tools: "Test yourself",
      show: "Show answer",
      hide: "Hide answer",
      quiz: "Quiz mode",
      quizHint: "When on, every question's answer starts hidden until you reveal it",
      keys: "Keyboard shortcuts",
      cover: "The answer is hidden. Answer the question yourself, then reveal it.",
      ask: "How well do you know it?",
      know: "Know it",
      review: "Review again",
      marked_know: "Marked “know it”.",
      marked_review: "Marked “review again”.",
      cleared: "Mark cleared.",
      undone: "Undone.",
      undo: "Undo",
      next: "Next question →",
      changed: "changed since you marked it",
      changedLong:
        "This question changed since you marked it: read the answer again, then mark it again.",
      markedOn: "marked {date}",
      keyShow: "Show / hide the answer",
      keyKnow: "Mark “know it” (again to clear)",
      keyReview: "Mark “review again” (again to clear)",
      keyUndo: "Undo the last mark",
      keyQuiz: "Quiz mode on / off",
      keyNext: "Next question",
      keyPrev: "Previous question",
    },
  });
  var el = S.el;
  var store = S.store;
  var undoTo; // the mark before the last change (undefined: nothing to undo)

  // --- the bar above the answer --------------------------------------------------------------
  var toggle = el("button", {
    type: "button",
    class: "qa-button qa-quiz__toggle",
    "aria-controls": "qa-answer",
    "aria-keyshortcuts": "A",
    onclick: function () {
      setHidden(!hidden());
    },
  });
  var pill = el("span", { class: "qa-pill", hidden: true });
  var flag = el("span", { class: "qa-flag", hidden: true, text: t("changed") });
  var quizBox = el("input", {
    type: "checkbox",
    role: "switch",
    class: "qa-switch__input",
    onchange: function () {
      setQuiz(quizBox.checked);
    },
  });
  var bar = el("div", { class: "qa-quiz", role: "group", "aria-label": t("tools") }, [
    toggle,
    el("span", { class: "qa-quiz__state" }, [pill, flag]),
    el("span", { class: "qa-quiz__end" }, [
      el("label", { class: "qa-switch", title: t("quizHint") }, [
        quizBox,
        el("span", { class: "qa-switch__track", "aria-hidden": "true" }),
        el("span", { text: t("quiz") }),
      ]),
      el("button", {
        type: "button",
        class: "qa-icon-button",
        title: t("keys") + " (?)",
        "aria-label": t("keys"),
        text: "?",
        onclick: function () {
          S.keys.help();
        },
      }),
    ]),
  ]);

  // --- the cover shown in place of a hidden answer -------------------------------------------
  var reveal = el("button", {
    type: "button",
    class: "qa-button qa-button--primary",
    "aria-controls": "qa-answer",
    "aria-keyshortcuts": "A",
    onclick: function () {
      setHidden(false);
      answer.focus({ preventScroll: true });
    },
  }, [t("show"), " ", S.kbd("A")]);
  var cover = el("div", { class: "qa-cover qa-cover--page" }, [el("p", { text: t("cover") }), reveal]);

  // --- the marks below the answer -------------------------------------------------------------
  function markButton(state, symbol, key) {
    return el("button", {
      type: "button",
      class: "qa-button qa-mark qa-mark--" + state,
      "data-mark": state,
      "aria-pressed": "false",
      "aria-keyshortcuts": key,
      onclick: function () {
        mark(state);
      },
    }, [el("span", { class: "qa-mark__icon", "aria-hidden": "true", text: symbol }), t(state), " ", S.kbd(key)]);
  }
  var knowButton = markButton("know", "✓", "1");
  var reviewButton = markButton("review", "↻", "2");
  var statusText = el("span", {});
  var undoButton = el("button", {
    type: "button",
    class: "qa-link",
    hidden: true,
    text: t("undo"),
    onclick: undo,
  });
  var nextLink = document.querySelector('a[data-qa-key="next"]');
  var onward = nextLink
    ? el("a", { class: "qa-marks__next", href: nextLink.href, hidden: true, text: t("next") })
    : null;
  var status = el("span", { class: "qa-marks__status", role: "status" }, [statusText, " ", undoButton, " ", onward]);
  var changedNote = el("p", { class: "qa-changed", hidden: true, text: t("changedLong") });
  var marks = el("div", { class: "qa-marks", role: "group", "aria-label": t("ask") }, [
    el("span", { class: "qa-marks__ask", text: t("ask") }),
    el("span", { class: "qa-marks__buttons" }, [knowButton, reviewButton]),
    status,
    changedNote,
  ]);

  answer.setAttribute("tabindex", "-1");
  answer.parentNode.insertBefore(bar, answer);
  answer.parentNode.insertBefore(cover, answer);
  answer.parentNode.insertBefore(marks, answer.nextSibling);

  function hidden() {
    return root.classList.contains(HIDDEN);
  }

  function setHidden(on) {
    root.classList.toggle(HIDDEN, on);
    render();
  }

  function setQuiz(on) {
    store.setQuizMode(on);
    setHidden(on);
  }

  function mark(state) {
    var current = store.get(slug);
    var next = current && current.state === state && !store.changed(slug, hash) ? null : state;
    undoTo = store.set(slug, next, hash);
    statusText.textContent = next ? t("marked_" + next) : t("cleared");
    undoButton.hidden = false;
    if (onward) onward.hidden = !next; // marked: on to the next one, as with flashcards
    render();
  }

  function undo() {
    if (undoTo === undefined) return;
    store.restore(slug, undoTo);
    undoTo = undefined;
    statusText.textContent = t("undone");
    undoButton.hidden = true;
    render();
  }

  function render() {
    var isHidden = hidden();
    toggle.textContent = "";
    toggle.appendChild(document.createTextNode(isHidden ? t("show") : t("hide")));
    toggle.appendChild(document.createTextNode(" "));
    toggle.appendChild(S.kbd("A"));
    toggle.setAttribute("aria-expanded", String(!isHidden));
    quizBox.checked = store.quizMode();
    var m = store.get(slug);
    var isChanged = store.changed(slug, hash);
    pill.hidden = !m;
    pill.className = "qa-pill" + (m ? " qa-pill--" + m.state : "");
    pill.textContent = m ? t(m.state) : "";
    if (m) pill.title = t("markedOn", { date: new Date(m.time).toLocaleString(S.lang === "en" ? "en" : "zh-CN") });
    flag.hidden = !isChanged;
    changedNote.hidden = !isChanged;
    knowButton.setAttribute("aria-pressed", String(!!m && m.state === "know" && !isChanged));
    reviewButton.setAttribute("aria-pressed", String(!!m && m.state === "review" && !isChanged));
    if (undoTo === undefined) undoButton.hidden = true;
  }

  function follow(key) {
    var link = document.querySelector('a[data-qa-key="' + key + '"]');
    if (link) location.href = link.href;
  }

  S.keys.add(["a"], t("keyShow"), function () {
    setHidden(!hidden());
  });
  S.keys.add(["1"], t("keyKnow"), function () {
    mark("know");
  });
  S.keys.add(["2"], t("keyReview"), function () {
    mark("review");
  });
  S.keys.add(["u"], t("keyUndo"), undo);
  S.keys.add(["q"], t("keyQuiz"), function () {
    setQuiz(!store.quizMode());
  });
  if (document.querySelector('a[data-qa-key="next"]')) {
    S.keys.add(["j"], t("keyNext"), function () {
      follow("next");
    });
  }
  if (document.querySelector('a[data-qa-key="prev"]')) {
    S.keys.add(["k"], t("keyPrev"), function () {
      follow("prev");
    });
  }

  store.onChange(render);
  // The quiz-mode switch may have changed in another tab since this page was loaded: follow it.
  if (store.quizMode() && !hidden()) root.classList.add(HIDDEN);
  render();
  S.quiz = { reveal: function () { setHidden(false); } };
})();
