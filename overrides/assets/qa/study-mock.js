/* Study mode, the mock interview: pick topics, answer a random draw against the clock, grade, see weak spots. */
(function () {
  "use strict";
  var S = window.QAStudy;
  var host = document.querySelector("[data-qa-mock]");
  if (!host) return;
  var el = S.el;
  var store = S.store;
  var TARGET_SECONDS = 180; // a typical interview answer; the clock turns amber after it
  var GRADES = ["know", "partly", "dont"];
  var FSRS_GRADE = { know: 3, partly: 2, dont: 1 }; // each self-grade is a review: Good, Hard, Again
  var t = S.strings("study-mock");
  var data = null;
  var run = null; // the interview in progress: {questions, i, items, started, shownAt, revealed, answers}
  var ticker = null;

  function shuffle(list) {
    var a = list.slice();
    for (var i = a.length - 1; i > 0; i--) {
      var j = Math.floor(Math.random() * (i + 1));
      var x = a[i];
      a[i] = a[j];
      a[j] = x;
    }
    return a;
  }

  function show(view, focus) {
    host.replaceChildren(view);
    if (focus) focus.focus({ preventScroll: false });
  }

  function tagNames(q) {
    return q.tags
      .map(function (id) {
        return data.tagById[id] ? data.tagById[id].name : null;
      })
      .filter(Boolean);
  }

  // --- setup ------------------------------------------------------------------------------------
  function setupView() {
    stopTicker();
    run = null;
    var tagBoxes = data.tags.map(function (tag) {
      var n = data.questions.filter(function (q) {
        return q.tags.indexOf(tag.id) >= 0;
      }).length;
      var box = el("input", { type: "checkbox", name: "tag", value: tag.id, onchange: update });
      return el("label", { class: "qa-chip" }, [
        box,
        el("span", { text: tag.name }),
        el("span", { class: "qa-chip__count", text: String(n) }),
      ]);
    });
    function scopeRadio(value, label, checked) {
      return el("label", { class: "qa-radio" }, [
        el("input", { type: "radio", name: "scope", value: value, checked: checked, onchange: update }),
        el("span", { text: label }),
      ]);
    }
    var countInput = el("input", {
      type: "number",
      id: "qa-mock-count",
      name: "count",
      min: "1",
      value: "5",
      inputmode: "numeric",
      class: "qa-mock__number",
    });
    var available = el("span", { class: "qa-mock__available" });
    var startButton = el("button", { type: "submit", class: "qa-button qa-button--primary", text: t("start") });
    var form = el("form", { class: "qa-mock__setup", "aria-label": t("setup") }, [
      el("fieldset", { class: "qa-mock__tags" }, [el("legend", { text: t("tags") })].concat(tagBoxes)),
      el("fieldset", { class: "qa-mock__scope" }, [
        el("legend", { text: t("scope") }),
        scopeRadio("all", t("scopeAll"), true),
        scopeRadio("open", t("scopeOpen"), false),
        scopeRadio("review", t("scopeReview"), false),
      ]),
      el("div", { class: "qa-mock__count" }, [
        el("label", { for: "qa-mock-count", text: t("count") }),
        countInput,
        available,
      ]),
      startButton,
    ]);

    function pool() {
      var picked = Array.prototype.filter
        .call(form.querySelectorAll('input[name="tag"]'), function (b) {
          return b.checked;
        })
        .map(function (b) {
          return b.value;
        });
      var scope = form.querySelector('input[name="scope"]:checked').value;
      return data.questions.filter(function (q) {
        var inTags =
          !picked.length ||
          q.tags.some(function (id) {
            return picked.indexOf(id) >= 0;
          });
        var c = store.card(q.slug);
        var inScope =
          scope === "all" ||
          (scope === "review" && c.state !== "new" && !c.suspended && c.due <= S.endOfDay(Date.now())) ||
          (scope === "open" && (c.state !== "review" || store.changed(q.slug, q.hash)));
        return inTags && inScope;
      });
    }
    function update() {
      var n = pool().length;
      available.textContent = n ? t("available", { n: n }) : t("none");
      available.classList.toggle("qa-mock__available--none", !n);
      countInput.max = String(Math.max(n, 1));
      startButton.disabled = !n;
    }
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var candidates = pool();
      var n = Math.min(Math.max(parseInt(countInput.value, 10) || 1, 1), candidates.length);
      if (!n) return;
      start(shuffle(candidates).slice(0, n), pickedTags());
    });
    function pickedTags() {
      return Array.prototype.filter
        .call(form.querySelectorAll('input[name="tag"]'), function (b) {
          return b.checked;
        })
        .map(function (b) {
          return b.value;
        });
    }
    update();

    var view = el("div", {}, [form]);
    var saved = store.session("mock");
    if (saved && Array.isArray(saved.slugs) && saved.i < saved.slugs.length) view.insertBefore(resumeBox(saved), form);
    var last = store.lastMock();
    if (last && last.items.length) {
      var know = last.items.filter(function (item) {
        return item.grade === "know";
      }).length;
      var date = new Date(last.time).toLocaleDateString(S.locale);
      view.appendChild(
        el("p", { class: "qa-mock__last" }, [
          t("last", { date: date, n: last.items.length, know: know }),
          " ",
          el("button", {
            type: "button",
            class: "qa-link",
            text: t("showLast"),
            onclick: function () {
              summaryView(last, false);
            },
          }),
        ]),
      );
    }
    show(view);
  }

  function resumeBox(saved) {
    var date = new Date(saved.started).toLocaleString(S.locale);
    return el("div", { class: "qa-resume", role: "region", "aria-label": t("resumeTitle") }, [
      el("p", { class: "qa-resume__title", text: t("resumeTitle") }),
      el("p", { text: t("resumeLine", { n: saved.slugs.length, done: saved.items.length, date: date }) }),
      el("button", {
        type: "button",
        class: "qa-button qa-button--primary",
        "data-qa-action": "resume",
        text: t("resume"),
        onclick: function () {
          var questions = saved.slugs
            .map(function (slug) {
              return data.bySlug[slug];
            })
            .filter(Boolean);
          run = {
            questions: questions,
            i: Math.min(saved.i, questions.length),
            items: saved.items,
            started: saved.started,
            tags: saved.tags || [],
            answers: {},
          };
          run.resumeRevealed = saved.revealed;
          if (run.i < run.questions.length) questionView();
          else finish();
        },
      }),
      " ",
      el("button", {
        type: "button",
        class: "qa-button",
        "data-qa-action": "discard",
        text: t("discard"),
        onclick: function () {
          store.clearSession("mock");
          setupView();
        },
      }),
    ]);
  }

  /** Keep the interview in storage: a reload, Back, a link or a closed tab can resume it. */
  function persist() {
    if (!run) return;
    try {
      store.saveSession("mock", {
        slugs: run.questions.map(function (q) {
          return q.slug;
        }),
        i: run.i,
        items: run.items,
        started: run.started,
        tags: run.tags,
        revealed: !!run.revealed,
      });
    } catch (e) {
      /* the store showed its banner; the interview goes on in this page */
    }
  }

  // --- one question at a time -------------------------------------------------------------------
  function start(questions, tags) {
    run = { questions: questions, i: 0, items: [], started: Date.now(), tags: tags || [], answers: {} };
    questionView();
  }

  function questionView() {
    var q = run.questions[run.i];
    run.shownAt = Date.now();
    run.revealed = null;
    S.answerOf(q).catch(function () {}); // fetch while the reader thinks (its links open in a new tab)
    var timer = el("span", { class: "qa-mock__timer", role: "timer", "aria-label": t("timer"), text: "0:00" });
    var total = el("span", { class: "qa-mock__total" });
    var steps = el("span", { class: "qa-mock__steps", "aria-hidden": "true" });
    run.questions.forEach(function (other, k) {
      var item = run.items[k];
      steps.appendChild(
        el("span", {
          class: "qa-mock__step" + (item ? " qa-mock__step--" + item.grade : k === run.i ? " qa-mock__step--now" : ""),
        }),
      );
    });
    var title = el("h2", { class: "qa-mock__question", tabindex: "-1", text: q.title });
    var answerBox = el("div", { class: "qa-mock__answer", hidden: true, "aria-live": "polite" });
    var think = S.cover("qa-mock__think", t("think"), t("reveal"), reveal);
    var gradeBar = el(
      "div",
      { class: "qa-mock__grade", role: "group", "aria-label": t("grade"), hidden: true },
      [el("span", { class: "qa-marks__ask", text: t("grade") })].concat(
        GRADES.map(function (g, k) {
          return el(
            "button",
            {
              type: "button",
              class: "qa-button qa-grade qa-grade--" + g,
              "data-grade": g,
              "aria-keyshortcuts": String(k + 1),
              onclick: function () {
                grade(g);
              },
            },
            [t(g), " ", S.kbd(String(k + 1))],
          );
        }),
      ),
    );
    var view = el(
      "section",
      { class: "qa-mock__run", "aria-label": t("progress", { i: run.i + 1, n: run.questions.length }) },
      [
        el("div", { class: "qa-mock__head" }, [
          el("span", { class: "qa-mock__progress", text: t("progress", { i: run.i + 1, n: run.questions.length }) }),
          timer,
          total,
          el("button", { type: "button", class: "qa-link qa-mock__end", text: t("end"), onclick: finish }),
        ]),
        steps,
        el(
          "p",
          { class: "qa-mock__tags-line" },
          tagNames(q).map(function (name) {
            return el("span", { class: "qa-chip qa-chip--small", text: name });
          }),
        ),
        title,
        think,
        answerBox,
        gradeBar,
      ],
    );
    run.view = { timer: timer, total: total, think: think, answerBox: answerBox, gradeBar: gradeBar };
    tick();
    stopTicker();
    ticker = setInterval(tick, 1000);
    show(view, title);
    persist();
    if (run.resumeRevealed) {
      run.resumeRevealed = false;
      reveal();
    }
  }

  function tick() {
    if (!run || !run.view) return;
    var now = Date.now();
    var spent = ((run.revealed || now) - run.shownAt) / 1000;
    run.view.timer.textContent = S.clock(spent);
    run.view.timer.classList.toggle("qa-mock__timer--over", spent > TARGET_SECONDS);
    run.view.total.textContent = t("total", { time: S.clock((now - run.started) / 1000) });
  }

  function stopTicker() {
    if (ticker) clearInterval(ticker);
    ticker = null;
  }

  function reveal() {
    if (!run || !run.view || run.revealed) return;
    var q = run.questions[run.i];
    var v = run.view;
    run.revealed = Date.now();
    tick();
    v.think.hidden = true;
    var words = { loading: t("loading"), failed: t("failed"), open: t("open") };
    S.showAnswer(v.answerBox, q, words, function () {
      return run && run.questions[run.i] === q;
    });
    v.gradeBar.hidden = false;
    persist();
    var first = v.gradeBar.querySelector("button");
    if (first) first.focus({ preventScroll: true });
  }

  function grade(g) {
    if (!run || !run.revealed) return;
    var q = run.questions[run.i];
    try {
      store.grade(q.slug, FSRS_GRADE[g], q.hash); // at once: a grade is never lost with the page
    } catch (e) {
      /* the store's banner says so and offers export; the interview goes on */
    }
    run.items.push({ slug: q.slug, grade: g, secs: Math.round((run.revealed - run.shownAt) / 1000) });
    run.i += 1;
    if (run.i < run.questions.length) questionView();
    else finish();
  }

  function finish() {
    stopTicker();
    if (!run || !run.items.length) {
      store.clearSession("mock");
      setupView();
      return;
    }
    var result = {
      time: Date.now(),
      total: Math.round((Date.now() - run.started) / 1000),
      items: run.items,
      tags: run.tags,
    };
    try {
      store.saveMock(result);
    } catch (e) {
      /* reported by the store */
    }
    store.clearSession("mock");
    run = null;
    summaryView(result, true);
  }

  // --- the summary ------------------------------------------------------------------------------
  function gradePill(g) {
    return el("span", { class: "qa-badge qa-badge--" + g, text: t(g) });
  }

  function summaryView(result, fed) {
    stopTicker();
    var items = result.items.filter(function (item) {
      return data.bySlug[item.slug];
    });
    var counts = { know: 0, partly: 0, dont: 0 };
    items.forEach(function (item) {
      counts[item.grade] += 1;
    });
    // by tag: every tag of every question counts (a question can be in several)
    var byTag = {};
    var order = [];
    // Only the topics of this run: the picked ones (a question's other tags are not what was asked).
    var picked = result.tags && result.tags.length ? result.tags : null;
    items.forEach(function (item) {
      var q = data.bySlug[item.slug];
      var own = picked
        ? q.tags.filter(function (id) {
            return picked.indexOf(id) >= 0;
          })
        : q.tags;
      var ids = own.length ? own : [""];
      ids.forEach(function (id) {
        if (!byTag[id]) {
          byTag[id] = { id: id, know: 0, partly: 0, dont: 0, weak: [] };
          order.push(id);
        }
        byTag[id][item.grade] += 1;
        if (item.grade !== "know") byTag[id].weak.push(item);
      });
    });
    var rows = order.map(function (id) {
      return byTag[id];
    });
    rows.sort(function (a, b) {
      var wa = a.dont * 2 + a.partly;
      var wb = b.dont * 2 + b.partly;
      return wb - wa || order.indexOf(a.id) - order.indexOf(b.id);
    });
    function tagName(id) {
      return id && data.tagById[id] ? data.tagById[id].name : t("other");
    }
    function questionLink(item) {
      var q = data.bySlug[item.slug];
      return el("li", {}, [
        el("a", { href: S.url(q.url), text: q.title }),
        " ",
        gradePill(item.grade),
        " ",
        el("span", { class: "qa-mock__secs", text: S.clock(item.secs) }),
      ]);
    }
    var n = items.length || 1;
    var score = el("span", { class: "qa-meter__bar qa-mock__score", "aria-hidden": "true" }, [
      el("span", { class: "qa-meter__know", style: "width:" + (100 * counts.know) / n + "%" }),
      el("span", { class: "qa-mock__partly", style: "width:" + (100 * counts.partly) / n + "%" }),
      el("span", { class: "qa-mock__dont", style: "width:" + (100 * counts.dont) / n + "%" }),
    ]);
    var table = el("table", { class: "qa-mock__bytag" }, [
      el("thead", {}, [
        el("tr", {}, [
          el("th", { scope: "col", text: t("tag") }),
          el("th", { scope: "col", text: t("know") }),
          el("th", { scope: "col", text: t("partly") }),
          el("th", { scope: "col", text: t("dont") }),
        ]),
      ]),
      el(
        "tbody",
        {},
        rows.map(function (row) {
          return el("tr", { class: row.weak.length ? "qa-mock__row--weak" : null, "data-tag": row.id }, [
            el("th", { scope: "row" }, [
              tagName(row.id),
              row.weak.length ? el("span", { class: "qa-badge qa-badge--review", text: t("weak") }) : null,
            ]),
            el("td", { text: String(row.know) }),
            el("td", { text: String(row.partly) }),
            el("td", { text: String(row.dont) }),
          ]);
        }),
      ),
    ]);
    var weakRows = rows.filter(function (row) {
      return row.weak.length;
    });
    var weakBlock = el("div", { class: "qa-mock__weak" });
    if (!weakRows.length) weakBlock.appendChild(el("p", { text: t("noWeak") }));
    // each weak question once, under the first (weakest) of its topics
    var listed = Object.create(null);
    weakRows.forEach(function (row) {
      var fresh = row.weak.filter(function (item) {
        if (listed[item.slug]) return false;
        listed[item.slug] = true;
        return true;
      });
      if (!fresh.length) return;
      weakBlock.appendChild(el("h4", { "data-tag": row.id, text: tagName(row.id) }));
      weakBlock.appendChild(el("ul", {}, fresh.map(questionLink)));
    });
    var weakSlugs = items
      .filter(function (item) {
        return item.grade !== "know";
      })
      .map(function (item) {
        return data.bySlug[item.slug];
      });
    var heading = el("h2", { tabindex: "-1", text: t("summary") });
    var actions = el("div", { class: "qa-mock__actions" }, [
      weakSlugs.length
        ? el("button", {
            type: "button",
            class: "qa-button qa-button--primary",
            text: t("retry", { n: weakSlugs.length }),
            onclick: function () {
              start(shuffle(weakSlugs), result.tags);
            },
          })
        : null,
      el("button", { type: "button", class: "qa-button", text: t("again"), onclick: setupView }),
    ]);
    var view = el("section", { class: "qa-mock__summary" }, [
      heading,
      el("p", {
        class: "qa-mock__line",
        text: t(items.length === 1 ? "summaryLineOne" : "summaryLine", {
          n: items.length,
          time: S.clock(result.total),
          know: counts.know,
          partly: counts.partly,
          dont: counts.dont,
        }),
      }),
      score,
      actions,
      fed ? el("p", { class: "qa-panel__hint", text: t("fed", counts) }) : null,
      el("h3", { text: t("weakSpots") }),
      weakBlock,
      el("h3", { text: t("byTag") }),
      table,
      el("h3", { text: t("allQuestions") }),
      el("ol", { class: "qa-mock__all" }, items.map(questionLink)),
    ]);
    show(view, heading);
  }

  S.keys.add(["a"], t("keyReveal"), reveal);
  GRADES.forEach(function (g, k) {
    S.keys.add([String(k + 1)], t("key" + g.charAt(0).toUpperCase() + g.slice(1)), function () {
      grade(g);
    });
  });

  Promise.all([S.data(), store.ready()]).then(
    function (all) {
      data = all[0];
      setupView();
      var resume = host.querySelector('[data-qa-action="resume"]');
      if (resume) resume.focus({ preventScroll: true });
    },
    function () {
      // Without the question data or the scheduler (offline, a flaky network) there is nothing to draw from.
      host.replaceChildren(el("p", { role: "alert", "data-qa-unavailable": "", text: t("unavailable") }));
    },
  );
})();
