/* Study mode, progress at a glance: counts and bars on the home, bank and tags pages, and a "review again" filter. */
(function () {
  "use strict";
  var S = window.QAStudy;
  var el = S.el;
  var store = S.store;
  var article = document.querySelector(".md-content article") || document.body;
  var panels = document.querySelectorAll("[data-qa-progress]");
  if (!panels.length) return;
  var t = S.strings({
    zh: {
      known: "已掌握 {know} / {total}",
      toReview: "再复习 {n}",
      changed: "有改动 {n}",
      filter: "筛选题目",
      all: "全部",
      review: "再复习",
      none: "未标记",
      know: "已掌握",
      empty: "没有符合条件的题目。",
      badgeKnow: "已掌握",
      badgeReview: "再复习",
      badgeChanged: "标记后有改动",
      showReview: "显示待复习的题（{n}）",
      hideReview: "收起待复习的题",
      noReview: "没有标为“再复习”的题。",
      start: "在题目页面上标记“已掌握”或“再复习”后，这里会显示你的进度。",
      overall: "全部题目",
      quiz: "测验模式（答案先隐藏）",
    },
    en: {
      known: "{know} / {total} known",
      toReview: "{n} to review",
      changed: "{n} changed",
      filter: "Filter questions",
      all: "All",
      review: "Review again",
      none: "Not marked",
      know: "Known",
      empty: "No question matches.",
      badgeKnow: "Known",
      badgeReview: "Review again",
      badgeChanged: "changed since you marked it",
      showReview: "Show the questions to review ({n})",
      hideReview: "Hide the questions to review",
      noReview: "No question is marked “review again”.",
      start: "Mark questions “know it” or “review again” on their pages and your progress shows here.",
      overall: "All questions",
      quiz: "Quiz mode (answers start hidden)",
    },
  });
  var FILTERS = ["all", "review", "none", "know"];

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

  function stateOf(q) {
    var m = store.get(q.slug);
    return { state: m ? m.state : "none", changed: store.changed(q.slug, q.hash) };
  }

  /** A bar (known, then to review) and "8 / 14 known · 3 to review". */
  function meter(questions, compact) {
    var s = store.stats(questions);
    var pct = function (n) {
      return s.total ? (100 * n) / s.total + "%" : "0";
    };
    var parts = [t("known", s)];
    if (s.review) parts.push(t("toReview", { n: s.review }));
    if (s.changed) parts.push(t("changed", { n: s.changed }));
    var bar = el("span", { class: "qa-meter__bar", "aria-hidden": "true" }, [
      el("span", { class: "qa-meter__know", style: "width:" + pct(s.know) }),
      el("span", { class: "qa-meter__review", style: "width:" + pct(s.review) }),
    ]);
    return el("span", { class: "qa-meter" + (compact ? " qa-meter--compact" : ""), "data-qa-known": s.know }, [
      bar,
      el("span", { class: "qa-meter__text", text: parts.join(" · ") }),
    ]);
  }

  function badges(q) {
    var st = stateOf(q);
    var out = el("span", { class: "qa-badges" });
    if (st.state === "know") out.appendChild(el("span", { class: "qa-badge qa-badge--know", text: "✓ " + t("badgeKnow") }));
    if (st.state === "review") {
      out.appendChild(el("span", { class: "qa-badge qa-badge--review", text: "↻ " + t("badgeReview") }));
    }
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
        [t(f), " ", counts[f]]
      );
      group.appendChild(buttons[f]);
    });
    return {
      node: group,
      update: function (questions, current) {
        var s = store.stats(questions);
        var n = { all: s.total, review: s.review, none: s.none, know: s.know };
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
  function bankPage(panel, d) {
    var list = article.querySelector(".qa-bank-list ol");
    if (!list) return;
    var items = questionItems(list, d);
    items.forEach(function (item, i) {
      item.li.value = i + 1; // numbers stay the bank's own while the filter hides items
    });
    var questions = items.map(function (item) {
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

  // --- the tags page: a meter per tag, badges, and the filter over every tag's list ---------------
  function tagsPage(panel, d) {
    var sections = [];
    Array.prototype.forEach.call(article.querySelectorAll('h2[id^="tag:"]'), function (h2) {
      var list = h2.nextElementSibling;
      while (list && list.tagName !== "UL" && list.tagName !== "H2") list = list.nextElementSibling;
      if (!list || list.tagName !== "UL") return;
      sections.push({ h2: h2, list: list, items: questionItems(list, d) });
    });
    var filter = "all";
    var empty = el("p", { class: "qa-filter__empty", hidden: true, text: t("empty") });
    panel.parentNode.insertBefore(empty, panel.nextSibling);
    var top = filterPanel(panel, pick);
    function render() {
      top.update(d.questions, filter);
      var any = false;
      sections.forEach(function (sec) {
        place(
          sec.h2,
          "qa-meter-slot",
          meter(
            sec.items.map(function (item) {
              return item.q;
            }),
            true
          )
        );
        var shown = 0;
        sec.items.forEach(function (item) {
          place(item.li, "qa-badges", badges(item.q));
          item.li.hidden = !matches(item.q, filter);
          if (!item.li.hidden) shown += 1;
        });
        sec.h2.hidden = sec.list.hidden = shown === 0;
        any = any || shown > 0;
      });
      empty.hidden = any;
    }
    function pick(f) {
      filter = f;
      render();
    }
    store.onChange(render);
    render();
  }

  // --- the home page: a meter on every bank and tag, the overall meter and the review list --------
  function homePage(panel, d) {
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
    Array.prototype.forEach.call(article.querySelectorAll("li"), function (li) {
      var a = li.querySelector(":scope > a[href]");
      var key = a && linkKey(a);
      if (key !== null && key !== undefined && byKey[key]) rows.push({ li: li, questions: byKey[key] });
    });
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
      "data-filter": "review",
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
      list
    );
    function render() {
      rows.forEach(function (row) {
        place(row.li, "qa-meter-slot", meter(row.questions, true));
      });
      meterHost.replaceChildren(meter(d.questions));
      quizBox.checked = store.quizMode();
      var review = d.questions.filter(function (q) {
        return stateOf(q).state === "review";
      });
      hint.textContent = !store.count() ? t("start") : review.length ? "" : t("noReview");
      hint.hidden = !hint.textContent;
      toggle.hidden = !review.length;
      toggle.textContent = open ? t("hideReview") : t("showReview", { n: review.length });
      toggle.setAttribute("aria-expanded", String(open));
      list.hidden = !open || !review.length;
      list.replaceChildren.apply(
        list,
        review.map(function (q) {
          return el("li", {}, [
            el("a", { href: S.url(q.url), text: q.title }),
            stateOf(q).changed ? el("span", { class: "qa-badge qa-badge--changed", text: t("badgeChanged") }) : null,
          ]);
        })
      );
    }
    store.onChange(render);
    render();
  }

  var pages = { bank: bankPage, tags: tagsPage, home: homePage };
  S.data().then(
    function (d) {
      Array.prototype.forEach.call(panels, function (panel) {
        var kind = panel.getAttribute("data-qa-progress");
        if (pages[kind]) {
          panel.classList.add("qa-panel");
          pages[kind](panel, d);
        }
      });
    },
    function () {
      // No question data (a copy opened from file:// cannot fetch it): leave the panels out.
      Array.prototype.forEach.call(panels, function (panel) {
        panel.hidden = true;
      });
    }
  );
})();
