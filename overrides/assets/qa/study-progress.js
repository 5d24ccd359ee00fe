/* Study mode, progress at a glance: due and learned counts on the home, bank and tags pages, filters, "N due today". */
(function () {
  "use strict";
  var S = window.QAStudy;
  var el = S.el;
  var store = S.store;
  var article = document.querySelector(".md-content article") || document.body;
  var panels = document.querySelectorAll("[data-qa-progress]");
  if (!panels.length) return;
  var t = S.strings("study-progress");
  var FILTERS = ["all", "due", "new", "learned"];

  /** A link's place on the site: path relative to the language root plus its decoded anchor. */
  function linkKey(a) {
    var path = S.sitePath(a.href);
    if (path === null) return null;
    var hash = new URL(a.href).hash;
    try {
      hash = decodeURIComponent(hash);
    } catch (e) {
      /* a malformed escape: compare it as written */
    }
    return path + hash;
  }

  /** Where a question stands today: new, due (today), learned (graduated, later), learning (later), suspended. */
  function stateOf(q) {
    var c = store.card(q.slug);
    var state = c.suspended
      ? "suspended"
      : c.state === "new"
        ? "new"
        : c.due <= S.endOfDay(Date.now())
          ? "due"
          : c.state === "review"
            ? "learned"
            : "learning";
    return { state: state, changed: store.changed(q.slug, q.hash) };
  }

  /** Counts over questions: total, learned, due, new, suspended, changed. */
  function stats(questions) {
    var out = { total: 0, learned: 0, due: 0, new: 0, learning: 0, suspended: 0, changed: 0 };
    questions.forEach(function (q) {
      var st = stateOf(q);
      out.total += 1;
      out[st.state] += 1;
      if (st.changed) out.changed += 1;
    });
    return out;
  }

  /** A bar (learned, then due) and "8 / 14 learned · 3 due today". */
  function meter(questions, compact) {
    var s = stats(questions);
    var pct = function (n) {
      return s.total ? (100 * n) / s.total + "%" : "0";
    };
    var parts = [t("known", s)];
    if (s.due) parts.push(t("dueN", { n: s.due }));
    if (s.changed) parts.push(t("changed", { n: s.changed }));
    var bar = el("span", { class: "qa-meter__bar", "aria-hidden": "true" }, [
      el("span", { class: "qa-meter__know", style: "width:" + pct(s.learned) }),
      el("span", { class: "qa-meter__review", style: "width:" + pct(s.due) }),
    ]);
    return el(
      "span",
      { class: "qa-meter" + (compact ? " qa-meter--compact" : ""), "data-qa-learned": s.learned, "data-qa-due": s.due },
      [bar, el("span", { class: "qa-meter__text", text: parts.join(" · ") })],
    );
  }

  function badges(q) {
    var st = stateOf(q);
    var out = el("span", { class: "qa-badges" });
    var names = { learned: "✓ " + t("badgeLearned"), due: "↻ " + t("badgeDue"), suspended: t("badgeSuspended") };
    if (names[st.state])
      out.appendChild(el("span", { class: "qa-badge qa-badge--" + st.state, text: names[st.state] }));
    if (st.changed) out.appendChild(el("span", { class: "qa-badge qa-badge--changed", text: t("badgeChanged") }));
    return out;
  }

  /** Put `node` into `host` in place of what was put there before. */
  function place(host, cls, node) {
    var old = host.querySelector(":scope > ." + cls);
    node.classList.add(cls);
    if (old) host.replaceChild(node, old);
    else host.appendChild(node);
  }

  /** The question links of a list: [{li, q}] for every item that links to a question. */
  function questionItems(list, d) {
    var items = [];
    Array.prototype.forEach.call(list.querySelectorAll(":scope > li"), function (li) {
      var a = li.querySelector("a[href]");
      var q = a && d.byUrl[S.sitePath(a.href)];
      if (q) items.push({ li: li, q: q });
    });
    return items;
  }

  function matches(q, filter) {
    return filter === "all" || stateOf(q).state === filter;
  }

  /** All / Review again / Not marked / Known, each with its count; update() keeps the same buttons (and focus). */
  function filterBar(onPick) {
    var buttons = {};
    var counts = {};
    var group = el("div", { class: "qa-filter", role: "group", "aria-label": t("filter") });
    FILTERS.forEach(function (f) {
      counts[f] = el("span", { class: "qa-filter__count" });
      buttons[f] = el(
        "button",
        {
          type: "button",
          class: "qa-filter__button",
          "data-filter": f,
          onclick: function () {
            onPick(f);
          },
        },
        [t(f), " ", counts[f]],
      );
      group.appendChild(buttons[f]);
    });
    return {
      node: group,
      update: function (questions, current) {
        var s = stats(questions);
        var n = { all: s.total, due: s.due, new: s.new, learned: s.learned };
        FILTERS.forEach(function (f) {
          buttons[f].setAttribute("aria-pressed", String(f === current));
          counts[f].textContent = String(n[f]);
        });
      },
    };
  }

  /** A panel with a meter (redrawn on every change) above a filter bar. */
  function filterPanel(panel, onPick) {
    var meterHost = el("div", { class: "qa-panel__meter" });
    var bar = filterBar(onPick);
    panel.replaceChildren(meterHost, bar.node);
    return {
      update: function (questions, filter) {
        meterHost.replaceChildren(meter(questions));
        bar.update(questions, filter);
      },
    };
  }

  // --- a bank page: its list with a badge per question, the bank's meter and the filter ----------
  // (and a tag's page: the same list, of one tag's questions). A long list is paged
  // (studysite/pages/listings.py): the meter counts the whole bank or tag, the badges and filter this page.
  function bankPage(panel, d) {
    var list = article.querySelector(".qa-bank-list ol");
    if (!list) return;
    var items = questionItems(list, d);
    var first = list.start || 1;
    items.forEach(function (item, i) {
      item.li.value = first + i; // numbers stay the list's own while the filter hides items
    });
    var bankId = panel.getAttribute("data-qa-bank");
    var tagId = panel.getAttribute("data-qa-tag");
    var questions = d.questions.filter(function (q) {
      return bankId ? q.bank === bankId : tagId ? q.tags.indexOf(tagId) >= 0 : false;
    });
    if (!questions.length)
      questions = items.map(function (item) {
        return item.q;
      });
    var filter = "all";
    var empty = el("p", { class: "qa-filter__empty", hidden: true, text: t("empty") });
    list.parentNode.insertBefore(empty, list.nextSibling);
    var top = filterPanel(panel, pick);
    function render() {
      top.update(questions, filter);
      var shown = 0;
      items.forEach(function (item) {
        place(item.li, "qa-badges", badges(item.q));
        item.li.hidden = !matches(item.q, filter);
        if (!item.li.hidden) shown += 1;
      });
      empty.hidden = shown > 0;
    }
    function pick(f) {
      filter = f;
      render();
    }
    store.onChange(render);
    render();
  }

  /** The list items under `selector` whose own link leads to a bank's or a tag's page, each with
   *  that bank's or tag's questions: the rows that get a meter. */
  function listRows(d, selector) {
    var byKey = {};
    d.banks.forEach(function (bank) {
      byKey[bank.url] = d.questions.filter(function (q) {
        return q.bank === bank.id;
      });
    });
    d.tags.forEach(function (tag) {
      byKey[tag.url] = d.questions.filter(function (q) {
        return q.tags.indexOf(tag.id) >= 0;
      });
    });
    var rows = [];
    Array.prototype.forEach.call(article.querySelectorAll(selector), function (li) {
      var a = li.querySelector(":scope > a[href]");
      var key = a && linkKey(a);
      if (key !== null && key !== undefined && byKey[key]) rows.push({ li: li, questions: byKey[key] });
    });
    return rows;
  }

  // --- the tags and banks indexes: a meter on every tag or bank (its questions are on its own pages)
  function tagsPage(panel, d) {
    var rows = listRows(d, ".qa-index > li");
    var meterHost = el("div", { class: "qa-panel__meter" });
    panel.replaceChildren(el("div", { class: "qa-panel__title", text: t("overall") }), meterHost);
    function render() {
      meterHost.replaceChildren(meter(d.questions));
      rows.forEach(function (row) {
        place(row.li, "qa-meter-slot", meter(row.questions, true));
      });
    }
    store.onChange(render);
    render();
  }

  // --- the home page: a meter on every bank and tag, the overall meter and the review list --------
  function homePage(panel, d) {
    var rows = listRows(d, "li");
    var open = false;
    var quizBox = el("input", {
      type: "checkbox",
      role: "switch",
      class: "qa-switch__input",
      onchange: function () {
        store.setQuizMode(quizBox.checked);
      },
    });
    var meterHost = el("div", { class: "qa-panel__meter" });
    var hint = el("p", { class: "qa-panel__hint" });
    var toggle = el("button", {
      type: "button",
      class: "qa-button",
      "aria-controls": "qa-review-list",
      "data-filter": "due",
      onclick: function () {
        open = !open;
        render();
      },
    });
    var list = el("ul", { id: "qa-review-list", class: "qa-review-list" });
    panel.replaceChildren(
      el("div", { class: "qa-panel__title", text: t("overall") }),
      meterHost,
      hint,
      el("label", { class: "qa-switch" }, [
        quizBox,
        el("span", { class: "qa-switch__track", "aria-hidden": "true" }),
        el("span", { text: t("quiz") }),
      ]),
      toggle,
      list,
    );
    function render() {
      rows.forEach(function (row) {
        place(row.li, "qa-meter-slot", meter(row.questions, true));
      });
      meterHost.replaceChildren(meter(d.questions));
      quizBox.checked = store.quizMode();
      var review = d.questions.filter(function (q) {
        return stateOf(q).state === "due";
      });
      hint.textContent = !store.count() ? t("start") : review.length ? "" : t("noDue");
      hint.hidden = !hint.textContent;
      toggle.hidden = !review.length;
      toggle.textContent = open ? t("hideDue") : t("showDue", { n: review.length });
      toggle.setAttribute("aria-expanded", String(open));
      list.hidden = !open || !review.length;
      list.replaceChildren.apply(
        list,
        review.map(function (q) {
          return el("li", {}, [
            el("a", { href: S.url(q.url), text: q.title }),
            stateOf(q).changed ? el("span", { class: "qa-badge qa-badge--changed", text: t("badgeChanged") }) : null,
          ]);
        }),
      );
    }
    store.onChange(render);
    render();
  }

  // --- the home page's top: how many are due today, and the way into the review ------------------
  function todayBlock(host, d) {
    var line = el("p", { class: "qa-today__line", role: "status" });
    var start = host.querySelector("a");
    host.insertBefore(line, host.firstChild);
    function render() {
      var now = Date.now();
      var q = store.today(d, now);
      var counts = { due: q.due.length, fresh: q.fresh.length };
      line.textContent = counts.due
        ? t("today", { due: counts.due, fresh: counts.fresh })
        : counts.fresh
          ? t("todayNone", { fresh: counts.fresh })
          : t("todayDone");
      line.setAttribute("data-qa-due", String(counts.due));
      if (start) start.textContent = t("start_n", { n: counts.due + counts.fresh });
    }
    store.onChange(render);
    render();
  }

  var pages = { bank: bankPage, tags: tagsPage, home: homePage };
  // Before the first paint (overrides/main.html holds it until this script has run): each panel's
  // frame and a place for every row's meter, empty and as tall as they will be (study.css, under
  // PENDING), so that nothing on the page moves when the data arrives; what it leaves unfilled goes.
  var PENDING = "qa-progress-pending";
  document.documentElement.classList.add(PENDING);
  Array.prototype.forEach.call(panels, function (panel) {
    if (pages[panel.getAttribute("data-qa-progress")]) panel.classList.add("qa-panel");
  });
  Array.prototype.forEach.call(article.querySelectorAll("li"), function (li) {
    if (li.querySelector(":scope > a[href]") && li.querySelector(":scope > .qa-count"))
      place(li, "qa-meter-slot", el("span", { class: "qa-meter qa-meter--pending", "aria-hidden": "true" }));
  });
  function settled() {
    Array.prototype.forEach.call(article.querySelectorAll(".qa-meter--pending"), function (node) {
      node.remove();
    });
    document.documentElement.classList.remove(PENDING);
  }
  Promise.all([S.data(), store.ready()]).then(
    function (all) {
      var d = all[0];
      var today = document.querySelector("[data-qa-today]");
      if (today) todayBlock(today, d);
      Array.prototype.forEach.call(panels, function (panel) {
        var kind = panel.getAttribute("data-qa-progress");
        if (pages[kind]) pages[kind](panel, d);
      });
      settled();
    },
    function () {
      // No question data or scheduler (a copy opened from file:// cannot fetch the data): leave the panels out.
      Array.prototype.forEach.call(panels, function (panel) {
        panel.hidden = true;
      });
      settled();
    },
  );
})();
