/* Study mode, progress you can see: reviews per day (last 30 days), cards due per day (next 14) and
   recall by tag, each drawn by uPlot (loaded by this page only) with its numbers in a table, and a
   search over the reader's notes. Everything is worked out from store.snapshot() in this browser. */
(function () {
  "use strict";
  var S = window.QAStudy;
  var host = document.querySelector("[data-qa-stats]");
  var notesHost = document.querySelector("[data-qa-notes-search]");
  if (!host || !S.store || !S.store.snapshot) return;
  var el = S.el;
  var store = S.store;
  var DAY = 86400000;
  var PAST = 30;
  var AHEAD = 14;
  var t = S.strings("study-stats");
  var locale = S.locale;
  var plots = [];

  Promise.all([S.data(), store.ready ? store.ready() : null]).then(
    function (results) {
      var data = results[0];
      draw(data);
      store.onChange(function () {
        draw(data);
      });
      watchScheme(data);
    },
    function () {
      draw({ questions: [], tags: [], bySlug: {}, tagById: {} });
    },
  );

  function draw(data) {
    var numbers = compute(store.snapshot(), data, Date.now());
    plots.forEach(function (p) {
      p.destroy();
    });
    plots = [];
    if (!numbers.reviews) {
      host.replaceChildren(el("p", { class: "qa-panel__hint", "data-qa-stats-empty": "", text: t("none") }));
    } else {
      var sections = [
        section("reviews", t("reviews"), numbers.perDay, [t("day"), t("count")], "bars"),
        section("due", t("due"), numbers.duePerDay, [t("day"), t("dueCount")], "bars"),
        numbers.byTag.length
          ? section("recall", t("recall"), numbers.byTag, [t("tag"), t("rate"), t("tagReviews")], "recall")
          : el("p", { class: "qa-panel__hint", text: t("noTags") }),
      ];
      host.replaceChildren.apply(
        host,
        [
          el("p", {
            class: "qa-stats__summary",
            "data-qa-stats-summary": "",
            text: t("summary", {
              reviews: numbers.reviews,
              cards: numbers.cards,
              due: numbers.dueToday,
              recall: percent(numbers.recall),
            }),
          }),
        ].concat(sections),
      );
    }
    if (notesHost) notes(data);
  }

  /** The numbers behind the three plots (also what the tables show). */
  function compute(doc, data, now) {
    var today = startOfDay(now);
    var perDay = [];
    var i;
    for (i = PAST - 1; i >= 0; i -= 1) perDay.push({ day: addDays(today, -i), value: 0 });
    var duePerDay = [];
    for (i = 0; i < AHEAD; i += 1) duePerDay.push({ day: addDays(today, i), value: 0 });
    var tags = {};
    var out = { reviews: 0, cards: 0, recalled: 0, dueToday: 0, perDay: perDay, duePerDay: duePerDay };
    var first = perDay[0].day;
    Object.keys(doc.cards || {}).forEach(function (slug) {
      var card = doc.cards[slug];
      var log = (card.log || []).filter(function (r) {
        return !card.reset || r.t > card.reset; // reviews before a reset no longer count
      });
      if (!log.length) return;
      out.cards += 1;
      var q = data.bySlug[slug];
      log.forEach(function (r) {
        out.reviews += 1;
        if (r.g > 1) out.recalled += 1;
        if (r.t >= first) {
          var index = dayIndex(first, r.t);
          if (index >= 0 && index < PAST) perDay[index].value += 1;
        }
        (q ? q.tags : []).forEach(function (tag) {
          if (!tags[tag]) tags[tag] = { reviews: 0, recalled: 0 };
          var entry = tags[tag];
          entry.reviews += 1;
          if (r.g > 1) entry.recalled += 1;
        });
      });
      if (card.suspended && card.suspended.on) return;
      var state = store.card(slug);
      var due = state && state.due !== null && state.due !== undefined ? new Date(state.due).getTime() : NaN;
      if (!isFinite(due)) return;
      var ahead = Math.max(0, dayIndex(today, due));
      if (ahead < AHEAD) duePerDay[ahead].value += 1;
      if (ahead === 0) out.dueToday += 1;
    });
    out.recall = out.reviews ? out.recalled / out.reviews : 0;
    out.byTag = (data.tags || [])
      .filter(function (tag) {
        return tags[tag.id];
      })
      .map(function (tag) {
        var entry = tags[tag.id];
        return { label: tag.name, value: entry.recalled / entry.reviews, reviews: entry.reviews };
      });
    return out;
  }

  /** A heading, the plot (hidden from screen readers: the table says the same) and the table. */
  function section(id, title, rows, heads, kind) {
    var headingId = "qa-stats-" + id;
    var chart = el("div", { class: "qa-stats__plot", "aria-hidden": "true", "data-qa-plot": id });
    var table = el("table", { class: "qa-stats__table", "data-qa-table": id, "aria-labelledby": headingId }, [
      el("thead", {}, [
        el(
          "tr",
          {},
          heads.map(function (h) {
            return el("th", { scope: "col", text: h });
          }),
        ),
      ]),
      el(
        "tbody",
        {},
        rows.map(function (row, index) {
          var cells = [
            el("th", {
              scope: "row",
              text: kind === "recall" ? row.label : dayLabel(row.day, id === "due" && index === 0),
            }),
          ];
          if (kind === "recall")
            cells.push(el("td", { text: percent(row.value) }), el("td", { text: String(row.reviews) }));
          else cells.push(el("td", { text: String(row.value) }));
          return el("tr", {}, cells);
        }),
      ),
    ]);
    var node = el("section", { class: "qa-stats__section", "data-qa-stats-section": id }, [
      el("h2", { id: headingId, text: title }),
      chart,
      el("div", { class: "qa-stats__scroll", tabindex: "0", role: "region", "aria-labelledby": headingId }, [table]),
    ]);
    plot(chart, rows, kind, id);
    return node;
  }

  function plot(chart, rows, kind, id) {
    Promise.all([S.load("assets/qa/vendor/uPlot.min.css"), S.load("assets/qa/vendor/uPlot.iife.min.js")]).then(
      function () {
        if (!chart.isConnected) return; // redrawn meanwhile
        var colours = palette();
        var xs = rows.map(function (row, i) {
          return kind === "recall" ? i : row.day / 1000;
        });
        var ys = rows.map(function (row) {
          return kind === "recall" ? Math.round(row.value * 1000) / 10 : row.value;
        });
        var width = Math.max(240, chart.clientWidth || 600);
        // tag names that do not fit side by side are drawn slanted, with room below for the longest
        var longest = kind === "recall" ? labelWidth(rows) : 0;
        var slant = kind === "recall" && (longest + 12) * rows.length > width - 50;
        var axisSize = slant ? Math.min(160, Math.ceil(longest * 0.65) + 24) : 40;
        var height = 160 + axisSize; // the plot area keeps its height whatever room the labels take
        var options = {
          width: width,
          height: height,
          legend: { show: false },
          cursor: { show: false },
          scales: {
            x:
              kind === "recall"
                ? { time: false, range: [-0.5, rows.length - 0.5] }
                : { time: true, range: [xs[0] - 43200, xs[xs.length - 1] + 43200] },
            y: { range: kind === "recall" ? [0, 100] : [0, Math.max(4, Math.max.apply(null, ys) + 1)] },
          },
          axes: [
            {
              stroke: colours.text,
              grid: { show: false },
              ticks: { stroke: colours.grid },
              space: kind === "recall" ? 10 : 48,
              incrs: kind === "recall" ? [1] : [86400, 86400 * 2, 86400 * 7],
              values: function (u, splits) {
                return splits.map(function (v) {
                  return kind === "recall" ? (rows[v] ? rows[v].label : "") : shortDay(v * 1000);
                });
              },
              rotate: slant ? 40 : 0, // uPlot: positive is counter-clockwise, each label ending at its tick
              size: slant ? axisSize : 40,
            },
            {
              stroke: colours.text,
              grid: { stroke: colours.grid, width: 1 },
              ticks: { stroke: colours.grid },
              values: function (u, splits) {
                return splits.map(function (v) {
                  return kind === "recall" ? v + "%" : String(v);
                });
              },
            },
          ],
          series: [
            {},
            {
              stroke: colours.bar,
              fill: colours.fill,
              width: 1,
              paths: window.uPlot.paths.bars({ size: [0.7, 48] }),
              points: { show: false },
            },
          ],
        };
        var u = new window.uPlot(options, [xs, ys], chart);
        u.root.setAttribute("data-qa-plot-drawn", id);
        plots.push(u);
        if (window.ResizeObserver) {
          new ResizeObserver(function () {
            if (chart.clientWidth && Math.abs(chart.clientWidth - u.width) > 4)
              u.setSize({ width: chart.clientWidth, height: height });
          }).observe(chart);
        }
      },
      function (error) {
        chart.removeAttribute("aria-hidden");
        chart.replaceChildren(el("p", { class: "qa-panel__hint", text: t("plotFailed", { reason: error.message }) }));
      },
    );
  }

  /** The width in pixels of the longest row label, in the font uPlot draws axis labels with. */
  function labelWidth(rows) {
    var context = document.createElement("canvas").getContext("2d");
    context.font = "12px system-ui, -apple-system, sans-serif";
    return rows.reduce(function (most, row) {
      return Math.max(most, context.measureText(row.label).width);
    }, 0);
  }

  /** Colours from Material's palette variables, so the plots follow light and dark schemes. */
  function palette() {
    var style = getComputedStyle(document.body);
    function v(name, fallback) {
      return style.getPropertyValue(name).trim() || fallback;
    }
    return {
      bar: v("--md-primary-fg-color", "#3f51b5"),
      fill: v("--md-primary-fg-color--light", "#5d6cc0"),
      text: v("--md-default-fg-color--light", "rgba(0,0,0,.54)"),
      grid: v("--md-default-fg-color--lightest", "rgba(0,0,0,.07)"),
    };
  }

  /** Redraw when the reader switches light/dark (Material sets data-md-color-scheme on <body>). */
  function watchScheme(data) {
    new MutationObserver(function () {
      draw(data);
    }).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme", "data-md-color-primary"] });
  }

  /** The notes search: every note with its question, filtered as the reader types, matches marked. */
  function notes(data) {
    var doc = store.snapshot();
    var all = Object.keys(doc.cards || {})
      .filter(function (slug) {
        var note = doc.cards[slug].note;
        return note && typeof note.text === "string" && note.text.trim();
      })
      .map(function (slug) {
        var q = data.bySlug[slug];
        return {
          slug: slug,
          q: q,
          title: q ? q.title : t("removed", { slug: slug }),
          text: doc.cards[slug].note.text,
          t: doc.cards[slug].note.t || 0,
        };
      })
      .sort(function (a, b) {
        return b.t - a.t;
      });
    var previous = notesHost.querySelector("input");
    var query = previous ? previous.value : "";
    var input = el("input", {
      type: "search",
      id: "qa-notes-q",
      class: "qa-sync__input",
      "aria-describedby": "qa-notes-count",
      placeholder: t("searchHint"),
      "data-qa-notes-q": "",
    });
    input.value = query;
    var count = el("p", { id: "qa-notes-count", class: "qa-panel__hint", role: "status" });
    var list = el("ul", { class: "qa-notes__list", "data-qa-notes-list": "" });
    function update() {
      var words = input.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
      var found = all.filter(function (n) {
        var hay = (n.title + "\n" + n.text).toLowerCase();
        return words.every(function (w) {
          return hay.indexOf(w) >= 0;
        });
      });
      count.textContent = !all.length
        ? t("notesNone")
        : !words.length
          ? t("notesCount", { n: all.length })
          : found.length
            ? t("notesFound", { n: found.length, total: all.length })
            : t("notesNothing", { q: input.value.trim() });
      list.replaceChildren.apply(
        list,
        found.map(function (n) {
          return el("li", { class: "qa-notes__item", "data-qa-note": n.slug }, [
            n.q
              ? el("a", { href: S.url(n.q.url), class: "qa-notes__title" }, marked(n.title, words))
              : el("span", { class: "qa-notes__title", text: n.title }),
            el("p", { class: "qa-notes__text" }, marked(n.text, words)),
          ]);
        }),
      );
    }
    input.addEventListener("input", update);
    notesHost.classList.add("qa-panel");
    notesHost.replaceChildren(
      el("label", { for: "qa-notes-q", class: "qa-panel__title", text: t("search") }),
      input,
      count,
      list,
    );
    if (previous && document.activeElement === previous) input.focus();
    update();
  }

  /** Text with each occurrence of the words in <mark> (as DOM nodes: a note is never parsed as HTML). */
  function marked(text, words) {
    if (!words.length) return [text];
    var lower = text.toLowerCase();
    var out = [];
    var at = 0;
    while (at < text.length) {
      var best = -1;
      var len = 0;
      words.forEach(function (w) {
        var i = lower.indexOf(w, at);
        if (i >= 0 && (best < 0 || i < best)) {
          best = i;
          len = w.length;
        }
      });
      if (best < 0) break;
      if (best > at) out.push(text.slice(at, best));
      out.push(el("mark", { text: text.slice(best, best + len) }));
      at = best + len;
    }
    if (at < text.length) out.push(text.slice(at));
    return out;
  }

  function startOfDay(ms) {
    var d = new Date(ms);
    d.setHours(0, 0, 0, 0);
    return d.getTime();
  }

  function addDays(ms, n) {
    var d = new Date(ms);
    d.setDate(d.getDate() + n);
    return d.getTime();
  }

  /** Whole local days from the day starting at `from` to the day holding `ms` (DST-safe). */
  function dayIndex(from, ms) {
    return Math.round((startOfDay(ms) - from) / DAY);
  }

  function dayLabel(ms, today) {
    if (today) return t("today");
    return new Date(ms).toLocaleDateString(locale, { weekday: "short", month: "short", day: "numeric" });
  }

  function shortDay(ms) {
    return new Date(ms).toLocaleDateString(locale, { month: "numeric", day: "numeric" });
  }

  function percent(x) {
    return Math.round(x * 100) + "%";
  }

  S.stats = { compute: compute };
})();
