/* Study mode on a question page: hide and reveal the answer, quiz mode, the four FSRS grades, suspend, a private note. */
(function () {
  "use strict";
  var S = window.QAStudy;
  var answer = document.getElementById("qa-answer");
  if (!answer) return;
  var root = document.documentElement;
  var HIDDEN = "qa-answer-hidden"; // on <html>; overrides/main.html sets it early when quiz mode is on
  var slug = answer.getAttribute("data-qa-slug");
  var hash = answer.getAttribute("data-qa-hash");
  var t = S.strings("study-quiz");
  var el = S.el;
  var store = S.store;
  var undoTo; // the review the last grade added (undefined: nothing to undo)

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
        class: "qa-icon-button qa-keyhelp",
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
  var cover = S.cover(
    "qa-cover--page",
    t("cover"),
    t("show"),
    function () {
      setHidden(false);
      answer.focus({ preventScroll: true });
    },
    { "aria-controls": "qa-answer" },
  );

  // --- the grades below the answer ------------------------------------------------------------
  var grades = S.gradeButtons(grade);
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
    grades.node,
    status,
    changedNote,
  ]);

  // --- suspend and the private note, under the grades -------------------------------------------
  var suspendButton = el("button", {
    type: "button",
    class: "qa-button qa-suspend",
    title: t("suspendHint"),
    "aria-pressed": "false",
    onclick: function () {
      if (!ready) return;
      var on = !store.card(slug).suspended;
      attempt(function () {
        store.setSuspended(slug, on);
        statusText.textContent = t(on ? "suspended" : "resumed");
      });
    },
  });
  var noteBox = el("textarea", {
    class: "qa-mynote__text",
    rows: "3",
    "aria-label": t("noteLabel"),
    oninput: function () {
      clearTimeout(noteTimer);
      noteTimer = setTimeout(saveNote, 600);
    },
    onblur: saveNote,
  });
  var noteStatus = el("span", { class: "qa-mynote__status", role: "status" });
  var note = el("details", { class: "qa-mynote" }, [
    el("summary", { text: t("note") }),
    noteBox,
    el("p", { class: "qa-mynote__hint" }, [t("noteHint"), " ", noteStatus]),
  ]);
  var cardTools = el("div", { class: "qa-card-tools" }, [suspendButton, note]);
  var noteTimer = null;

  answer.setAttribute("tabindex", "-1");
  answer.parentNode.insertBefore(bar, answer);
  answer.parentNode.insertBefore(cover, answer);
  answer.parentNode.insertBefore(cardTools, answer.nextSibling);
  answer.parentNode.insertBefore(marks, answer.nextSibling);
  noteBox.value = store.note(slug);
  note.open = !!noteBox.value;

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

  /** Run a store write; a failure is shown here too (the store also raises its banner). */
  function attempt(write) {
    try {
      write();
      return true;
    } catch (e) {
      statusText.textContent = t("failed", { why: e.code || e.message });
      return false;
    }
  }

  function grade(g) {
    if (hidden()) return; // grade what you saw: reveal first
    var entry;
    if (
      !attempt(function () {
        entry = store.grade(slug, g, hash);
      })
    )
      return;
    undoTo = entry;
    var c = scheduled() ? store.card(slug) : null;
    statusText.textContent = c
      ? t("graded", { grade: S.gradeName(g), when: S.interval(c.due - entry.t) })
      : t("gradedNoWhen", { grade: S.gradeName(g) });
    undoButton.hidden = false;
    if (onward) onward.hidden = false; // graded: on to the next one, as with flashcards
    render();
  }

  function undo() {
    if (undoTo === undefined) return;
    var entry = undoTo;
    if (
      !attempt(function () {
        store.undo(slug, entry);
      })
    )
      return;
    undoTo = undefined;
    statusText.textContent = t("undone");
    undoButton.hidden = true;
    render();
  }

  function saveNote() {
    clearTimeout(noteTimer);
    if (noteBox.value === store.note(slug)) return;
    var saved = attempt(function () {
      store.setNote(slug, noteBox.value);
    });
    // said beside the box too: an earlier "Saved." there must not stand for a note that was not
    noteStatus.textContent = saved ? t("noteSaved") : statusText.textContent;
  }

  var ready = false;
  function scheduled() {
    return ready;
  }

  function render() {
    var isHidden = hidden();
    toggle.textContent = "";
    toggle.appendChild(document.createTextNode(isHidden ? t("show") : t("hide")));
    toggle.appendChild(document.createTextNode(" "));
    toggle.appendChild(S.kbd("A"));
    toggle.setAttribute("aria-expanded", String(!isHidden));
    quizBox.checked = store.quizMode();
    var isChanged = store.changed(slug, hash);
    flag.hidden = !isChanged;
    changedNote.hidden = !isChanged;
    if (undoTo === undefined) undoButton.hidden = true;
    if (!ready) return;
    var c = store.card(slug);
    var now = Date.now();
    var kind = c.suspended ? "suspended" : c.state === "new" ? "new" : c.due <= S.endOfDay(now) ? "due" : "later";
    pill.hidden = false;
    pill.className = "qa-pill qa-pill--" + kind;
    pill.setAttribute("data-qa-card", kind);
    pill.textContent =
      kind === "later"
        ? t("pillLater", { when: S.interval(c.due - now) })
        : t("pill" + kind.charAt(0).toUpperCase() + kind.slice(1));
    if (c.last) pill.title = t("lastOn", { date: new Date(c.last).toLocaleString(S.locale) });
    else pill.removeAttribute("title");
    grades.show(store.preview(slug, now), now);
    suspendButton.textContent = t(c.suspended ? "resume" : "suspend");
    suspendButton.setAttribute("aria-pressed", String(c.suspended));
    if (document.activeElement !== noteBox && noteBox.value !== c.note) noteBox.value = c.note;
  }

  function follow(key) {
    var link = document.querySelector('a[data-qa-key="' + key + '"]');
    if (link) location.href = link.href;
  }

  S.keys.add(["a"], t("keyShow"), function () {
    setHidden(!hidden());
  });
  S.keys.add(["1", "2", "3", "4"], t("keyGrade"), function (event) {
    grade(parseInt(event.key, 10));
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
  store.ready().then(
    function () {
      // In a task of its own: when the schedule is ready at once, this callback would run at the end of
      // the bundle's first task, and the grades' preview (ts-fsrs, four grades: ~4 ms of CPU here) would
      // make that task a long one on a phone (issue 18; tests/test_page_load.py).
      setTimeout(function () {
        ready = true;
        render();
      }, 0);
    },
    function () {
      // No scheduler (its script did not load: offline before it was ever fetched): grades are still
      // kept, without the intervals they would give (render and grade say so)
    },
  );
  S.quiz = {
    reveal: function () {
      setHidden(false);
    },
  };
})();
