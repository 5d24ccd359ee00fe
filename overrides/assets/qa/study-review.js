/* Study mode, the daily review: due questions and today's new ones, one at a time, graded with FSRS; resumable. */
(function () {
  "use strict";
  var S = window.QAStudy;
  var host = document.querySelector("[data-qa-review]");
  if (!host) return;
  var el = S.el;
  var store = S.store;
  var AGAIN_WITHIN = 20 * 60000; // a card due again this soon comes back in the same session (learning steps)
  var t = S.strings("study-review");
  var data = null;
  var run = null; // {queue: [slug], i, done: [{slug, g}], started, filter, revealed}
  var view = null; // the live parts of the question view
  var live = el("p", { class: "qa-review__live", "aria-live": "polite", role: "status" });

  function show(node, focus) {
    host.replaceChildren(node, live);
    if (focus) focus.focus({ preventScroll: false });
  }

  function persist() {
    try {
      store.saveSession("review", run);
    } catch (e) {
      /* the store showed the reader its banner; the session goes on in this page */
    }
  }

  // --- setup: filters, the daily limit for new questions, and what is there today -----------------
  function setupView() {
    run = null;
    view = null;
    var saved = store.session("review");
    var filter = (saved && saved.lastFilter) || {};
    var bankSelect = el("select", { id: "qa-review-bank", onchange: update }, [
      el("option", { value: "", text: t("any") }),
    ]);
    data.banks.forEach(function (bank) {
      bankSelect.appendChild(el("option", { value: bank.id, text: bank.title, selected: bank.id === filter.bank }));
    });
    var tagSelect = el("select", { id: "qa-review-tag", onchange: update }, [
      el("option", { value: "", text: t("any") }),
    ]);
    data.tags.forEach(function (tag) {
      tagSelect.appendChild(el("option", { value: tag.id, text: tag.name, selected: tag.id === filter.tag }));
    });
    var limit = el("input", {
      id: "qa-review-new",
      type: "number",
      min: "0",
      max: "9999",
      inputmode: "numeric",
      class: "qa-mock__number",
      value: String(store.settings().newPerDay),
      onchange: function () {
        var n = parseInt(limit.value, 10);
        if (isFinite(n) && n >= 0) {
          try {
            store.setSettings({ newPerDay: n });
          } catch (e) {
            /* reported by the store */
          }
        }
        update();
      },
    });
    var counts = el("p", { class: "qa-review__counts", role: "status" });
    var startButton = el("button", {
      type: "submit",
      class: "qa-button qa-button--primary qa-review__start",
      text: t("start"),
    });
    var form = el("form", { class: "qa-review__setup", "aria-label": t("setup") }, [
      el("div", { class: "qa-review__filters" }, [
        el("label", { for: "qa-review-bank", text: t("bank") }),
        bankSelect,
        el("label", { for: "qa-review-tag", text: t("tag") }),
        tagSelect,
        el("label", { for: "qa-review-new", text: t("newPerDay") }),
        limit,
      ]),
      counts,
      startButton,
    ]);
    function current() {
      return { bank: bankSelect.value || null, tag: tagSelect.value || null };
    }
    function update() {
      var now = Date.now();
      var q = store.today(data, now, current());
      var n = q.due.length + q.fresh.length;
      counts.textContent = n
        ? t("counts", { due: q.due.length, fresh: q.fresh.length })
        : t("nothing") + " " + t("tomorrow", { n: dueTomorrow(current(), now) });
      startButton.disabled = !n;
    }
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var f = current();
      var q = store.today(data, Date.now(), f);
      var queue = q.due.concat(q.fresh);
      if (!queue.length) return;
      run = { queue: queue, i: 0, done: [], started: Date.now(), filter: f, lastFilter: f, revealed: false };
      persist();
      questionView(true);
    });
    update();
    var nodes = [form];
    if (saved && saved.queue && saved.i < saved.queue.length) nodes.unshift(resumeBox(saved));
    show(el("div", {}, nodes));
  }

  function resumeBox(saved) {
    var date = new Date(saved.started).toLocaleString(S.locale);
    return el("div", { class: "qa-resume", role: "region", "aria-label": t("resumeTitle") }, [
      el("p", { class: "qa-resume__title", text: t("resumeTitle") }),
      el("p", { text: t("resumeLine", { n: saved.queue.length, left: saved.queue.length - saved.i, date: date }) }),
      el("button", {
        type: "button",
        class: "qa-button qa-button--primary",
        "data-qa-action": "resume",
        text: t("resume"),
        onclick: function () {
          run = saved;
          questionView(true);
        },
      }),
      " ",
      el("button", {
        type: "button",
        class: "qa-button",
        "data-qa-action": "discard",
        text: t("discard"),
        onclick: function () {
          store.saveSession("review", { lastFilter: saved.filter || {} });
          setupView();
        },
      }),
    ]);
  }

  function dueTomorrow(filter, now) {
    var end = S.endOfDay(now, 1);
    return (
      store.due(end).filter(function (slug) {
        var q = data.bySlug[slug];
        return q && (!filter.bank || q.bank === filter.bank) && (!filter.tag || q.tags.indexOf(filter.tag) >= 0);
      }).length - store.today(data, now, filter).due.length
    );
  }

  // --- one question: think, reveal, grade ----------------------------------------------------------
  /** Show the question at run.i; `announce`: true, or text said first (the last grade) to a screen reader. */
  function questionView(announce) {
    // questions gone from the site since the session started (a redeploy) are skipped
    while (run.i < run.queue.length && !data.bySlug[run.queue[run.i]]) run.i += 1;
    if (run.i >= run.queue.length) return summaryView();
    var q = data.bySlug[run.queue[run.i]];
    var left = run.queue.length - run.i;
    S.answerOf(q).catch(function () {}); // fetch while the reader thinks
    var title = el("h2", { class: "qa-review__question", tabindex: "-1", text: q.title });
    var answerBox = el("div", { class: "qa-review__answer", hidden: true });
    var think = S.cover("qa-review__think", t("think"), t("reveal"), reveal);
    var grades = S.gradeButtons(grade);
    var gradeBar = el(
      "div",
      { class: "qa-marks qa-review__grade", role: "group", "aria-label": t("ask"), hidden: true },
      [el("span", { class: "qa-marks__ask", text: t("ask") }), grades.node],
    );
    var tags = el(
      "p",
      { class: "qa-mock__tags-line" },
      q.tags.map(function (id) {
        return data.tagById[id] ? el("span", { class: "qa-chip qa-chip--small", text: data.tagById[id].name }) : null;
      }),
    );
    var node = el("section", { class: "qa-review__run", "aria-label": t("setup") }, [
      el("div", { class: "qa-mock__head" }, [
        el("span", { class: "qa-review__left", "data-qa-left": String(left), text: t("left", { n: left }) }),
        el("span", { class: "qa-mock__total", text: t("of", { i: run.done.length + 1 }) }),
        el("button", { type: "button", class: "qa-link qa-mock__end", text: t("end"), onclick: summaryView }),
      ]),
      tags,
      title,
      think,
      answerBox,
      gradeBar,
    ]);
    view = { q: q, think: think, answerBox: answerBox, gradeBar: gradeBar, grades: grades };
    show(node, title);
    var said = t("announce", { i: run.done.length + 1, left: left, title: q.title });
    live.textContent = typeof announce === "string" ? announce + " " + said : said;
    if (run.revealed) reveal();
  }

  function reveal() {
    if (!view || !view.think || !view.think.isConnected) return;
    var v = view;
    var q = v.q;
    if (!run.revealed) {
      run.revealed = true;
      persist();
    }
    v.think.hidden = true;
    var note = store.card(q.slug).note;
    var noteBlock = note
      ? el("div", { class: "qa-review__note" }, [
          el("p", { class: "qa-marks__ask", text: t("note") }),
          el("p", { text: note }),
        ])
      : null;
    S.showAnswer(
      v.answerBox,
      q,
      { loading: t("loading"), failed: t("failed"), open: t("open") },
      function () {
        return view === v;
      },
      noteBlock,
    );
    var now = Date.now();
    v.grades.show(store.preview(q.slug, now), now);
    v.gradeBar.hidden = false;
    v.grades.buttons[2].focus({ preventScroll: true });
  }

  function grade(g) {
    if (!view || !run || !run.revealed || !view.gradeBar.isConnected) return;
    var q = view.q;
    try {
      store.grade(q.slug, g, q.hash);
    } catch (e) {
      // Storage refused it: the store keeps the review in memory (its banner says so and offers the
      // export), so the session goes on rather than asking for the same grade again.
    }
    var c = store.card(q.slug);
    run.done.push({ slug: q.slug, g: g });
    if (c.due - Date.now() <= AGAIN_WITHIN) run.queue.push(q.slug);
    run.i += 1;
    run.revealed = false;
    persist();
    var said = t("announceGrade", { grade: S.gradeName(g), when: S.interval(c.due - Date.now()) });
    if (run.i < run.queue.length) questionView(said);
    else summaryView(said);
  }

  // --- the end: what was done, what comes tomorrow --------------------------------------------------
  function summaryView(said) {
    var done = run ? run.done : [];
    var filter = (run && run.filter) || {};
    var counts = { g1: 0, g2: 0, g3: 0, g4: 0 };
    var distinct = Object.create(null);
    done.forEach(function (item) {
      counts["g" + item.g] += 1;
      distinct[item.slug] = true;
    });
    var seconds = run ? (Date.now() - run.started) / 1000 : 0;
    try {
      store.saveSession("review", { lastFilter: filter });
    } catch (e) {
      /* reported */
    }
    run = null;
    view = null;
    var heading = el("h2", { tabindex: "-1", text: t("summary") });
    var line = done.length
      ? t(
          done.length === 1 ? "summaryLineOne" : "summaryLine",
          Object.assign({ n: done.length, distinct: Object.keys(distinct).length, time: S.clock(seconds) }, counts),
        )
      : t("summaryNone");
    show(
      el("section", { class: "qa-review__summary" }, [
        heading,
        el("p", { class: "qa-review__line", text: line }),
        el("p", { class: "qa-review__tomorrow", text: t("tomorrow", { n: dueTomorrow(filter, Date.now()) }) }),
        el("div", { class: "qa-mock__actions" }, [
          el("button", { type: "button", class: "qa-button qa-button--primary", text: t("back"), onclick: setupView }),
        ]),
      ]),
      heading,
    );
    live.textContent = (typeof said === "string" ? said + " " : "") + line;
  }

  S.keys.add(["a"], t("keyReveal"), reveal);
  S.keys.add(["1", "2", "3", "4"], t("keyGrade"), function (event) {
    grade(parseInt(event.key, 10));
  });

  Promise.all([S.data(), store.ready()]).then(
    function (all) {
      data = all[0];
      var saved = store.session("review");
      // back here (reload, Back, a closed tab) in the middle of a session: offer to resume it
      setupView();
      if (saved && saved.queue && saved.i < saved.queue.length) {
        var resume = host.querySelector('[data-qa-action="resume"]');
        if (resume) resume.focus({ preventScroll: true });
      }
    },
    function () {
      host.replaceChildren(el("p", { role: "alert", "data-qa-unavailable": "", text: t("unavailable") }));
    },
  );
})();
