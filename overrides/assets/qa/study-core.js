/* Study mode, shared basics: page language, URLs under the site's base, UI strings (strings.js), the question data,
   grade buttons, the cover over an answer and an answer fetched from its page. */
(function () {
  "use strict";

  var lang = QAStrings.lang;
  var config = {};
  try {
    config = JSON.parse(document.getElementById("__config").textContent);
  } catch (e) {
    /* not a Material page: URLs fall back to the current folder */
  }
  // Material's base is a relative path from this page to its language root ("." or "../..").
  var langRoot = new URL(String(config.base || ".").replace(/\/?$/, "/"), location.href);
  // Each language is built in its folder below the site root (mkdocs.yml `extra.qa.languages`: root),
  // so every language shares one origin and one set of marks.
  var siteRoot = new URL("../".repeat(QAStrings.root.split("/").length - 1) || "./", langRoot);
  var dataPromise = null;

  /** A module's translator, for the `js.<file>.` strings of the catalogues: strings(file)(key, {n: 3}). */
  var strings = QAStrings.scope;

  /** An absolute URL for a path relative to the language root ("ai-infra-3/slug/"). */
  function url(path) {
    return new URL(path, langRoot).href;
  }

  /** A link's path relative to the language root, without query or anchor; null when outside it. */
  function sitePath(href) {
    var target = new URL(href, location.href);
    if (target.origin !== langRoot.origin || target.pathname.indexOf(langRoot.pathname) !== 0) return null;
    return decodeURI(target.pathname.slice(langRoot.pathname.length));
  }

  /** The build's question data for this language (assets/qa/questions.json), fetched once, indexed. */
  function data() {
    if (!dataPromise) {
      dataPromise = fetch(url("assets/qa/questions.json"), { credentials: "same-origin" })
        .then(function (response) {
          if (!response.ok) throw new Error("questions.json: HTTP " + response.status);
          return response.json();
        })
        .then(function (d) {
          // prototype-free: a slug or URL such as "constructor" or "__proto__" is just a key
          d.bySlug = Object.create(null);
          d.byUrl = Object.create(null);
          d.tagById = Object.create(null);
          d.questions.forEach(function (q) {
            d.bySlug[q.slug] = q;
            d.byUrl[q.url] = q;
          });
          d.tags.forEach(function (tag) {
            d.tagById[tag.id] = tag;
          });
          return d;
        });
      dataPromise.catch(function () {
        dataPromise = null; // let a later call try again
      });
    }
    return dataPromise;
  }

  /** el("button", {class: "x", onclick: f}, ["text", child]): a DOM element; text is never parsed as HTML. */
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      var value = attrs[name];
      if (value === null || value === undefined || value === false) return;
      if (name.slice(0, 2) === "on") node.addEventListener(name.slice(2), value);
      else if (name === "text") node.textContent = value;
      else node.setAttribute(name, value === true ? "" : value);
    });
    (children || []).forEach(function (child) {
      if (child === null || child === undefined || child === false) return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  /** A keyboard hint (<kbd>), hidden on touch screens by study.css. */
  function kbd(key) {
    return el("kbd", { class: "qa-kbd", "aria-hidden": "true", text: key });
  }

  /**
   * What stands in place of an answer not yet shown: `text` (answer it first) and a button (key A)
   * that runs onReveal. `cls`: the view's own class; `attrs`: more attributes for the button. The
   * element, to put where the answer will be.
   */
  function cover(cls, text, buttonText, onReveal, attrs) {
    var button = el(
      "button",
      Object.assign(
        { type: "button", class: "qa-button qa-button--primary", "aria-keyshortcuts": "A", onclick: onReveal },
        attrs,
      ),
      [buttonText, " ", kbd("A")],
    );
    return el("div", { class: "qa-cover " + cls }, [el("p", { text: text }), button]);
  }

  /**
   * Show q's answer in `box`: a loading line at once, then the answer (`extra` after it, such as the
   * reader's note) or a line saying it did not load, and a link to the question's page in a new tab.
   * `words`: the view's {loading, failed, open}; nothing is written once `current()` is false (the
   * reader has moved on).
   */
  function showAnswer(box, q, words, current, extra) {
    box.hidden = false;
    box.replaceChildren(el("p", { class: "qa-panel__hint", text: words.loading }));
    var link = el("p", { class: "qa-mock__open" }, [
      el("a", { href: url(q.url), target: "_blank", rel: "noopener", text: words.open + " ↗" }),
    ]);
    answerOf(q).then(
      function (answer) {
        if (current()) box.replaceChildren.apply(box, extra ? [answer, extra, link] : [answer, link]);
      },
      function () {
        if (current()) box.replaceChildren(el("p", { text: words.failed }), link);
      },
    );
  }

  /** Whole seconds as m:ss (or h:mm:ss). */
  function clock(seconds) {
    seconds = Math.max(0, Math.floor(seconds));
    var h = Math.floor(seconds / 3600);
    var m = Math.floor((seconds % 3600) / 60);
    var s = seconds % 60;
    var mm = h ? (m < 10 ? "0" : "") + m : String(m);
    return (h ? h + ":" : "") + mm + ":" + (s < 10 ? "0" : "") + s;
  }

  var loading = {};

  /** Load a script or stylesheet of the site once, on demand; `path` is relative to the site root
      (both languages share one copy): load("assets/qa/vendor/uPlot.iife.min.js"). */
  function load(path) {
    if (!loading[path]) {
      loading[path] = new Promise(function (resolve, reject) {
        var href = new URL(path, siteRoot).href;
        var node = /\.css$/.test(path) ? el("link", { rel: "stylesheet", href: href }) : el("script", { src: href });
        node.addEventListener("load", resolve);
        node.addEventListener("error", function () {
          delete loading[path]; // let a later call try again
          reject(new Error(path + ": not loaded"));
        });
        document.head.appendChild(node);
      });
    }
    return loading[path];
  }

  var gradeText = strings("study-core");

  /** A time span as Anki shows it on a grade button: "10 min", "3 d", "2 mo", "1.5 y". */
  function interval(ms) {
    var min = ms / 60000;
    if (min < 1) return gradeText("now");
    if (min < 60) return gradeText("min", { n: Math.round(min) });
    var h = min / 60;
    if (h < 24) return gradeText("hour", { n: Math.round(h) });
    var d = h / 24;
    if (d < 30) return gradeText("day", { n: Math.round(d) });
    if (d < 365) return gradeText("month", { n: Math.round(d / 30) });
    return gradeText("year", { n: Math.round((d / 365) * 10) / 10 });
  }

  /**
   * Again / Hard / Good / Easy buttons (keys 1-4), each with room for the interval it would give.
   * onGrade(g) runs on a click; show(preview, now) writes the intervals ({1: dueMs, ...}).
   */
  function gradeButtons(onGrade) {
    var whens = {};
    var buttons = [1, 2, 3, 4].map(function (g) {
      whens[g] = el("span", { class: "qa-grade__when" });
      return el(
        "button",
        {
          type: "button",
          class: "qa-button qa-grade qa-grade--g" + g,
          "data-grade": String(g),
          "aria-keyshortcuts": String(g),
          title: gradeText("d" + g),
          onclick: function () {
            onGrade(g);
          },
        },
        [el("span", { class: "qa-grade__label" }, [gradeText("g" + g), " ", kbd(String(g))]), whens[g]],
      );
    });
    return {
      node: el("span", { class: "qa-grade__buttons" }, buttons),
      buttons: buttons,
      show: function (preview, now) {
        [1, 2, 3, 4].forEach(function (g) {
          // the name a screen reader says is the visible text: "Good 10 min" (the key hint is aria-hidden)
          whens[g].textContent = preview ? interval(preview[g] - now) : "";
        });
      },
    };
  }

  /** The name of a grade (1-4) in this page's language. */
  function gradeName(g) {
    return gradeText("g" + g);
  }

  /** The end of the reader's local day (ms), `days` days from today: what "due today" counts up to. */
  function endOfDay(now, days) {
    var d = new Date(now);
    d.setHours(24 * (1 + (days || 0)), 0, 0, 0);
    return d.getTime() - 1;
  }

  /**
   * The answer of a question, fetched from its page (a copy of its #qa-answer, links made absolute
   * and opened in a new tab so a session in this one goes on). Cached per URL.
   */
  function answerOf(q) {
    var pageUrl = url(q.url);
    if (!answers[pageUrl]) {
      answers[pageUrl] = fetch(pageUrl, { credentials: "same-origin" })
        .then(function (response) {
          if (!response.ok) throw new Error("HTTP " + response.status);
          return response.text();
        })
        .then(function (html) {
          var doc = new DOMParser().parseFromString(html, "text/html");
          var source = doc.getElementById("qa-answer");
          if (!source) throw new Error("no answer on " + pageUrl);
          var answer = document.importNode(source, true);
          answer.removeAttribute("id");
          answer.querySelectorAll("a[href]").forEach(function (a) {
            a.href = new URL(a.getAttribute("href"), pageUrl).href; // links were relative to the question page
            a.target = "_blank";
            a.rel = "noopener";
          });
          return answer;
        });
      answers[pageUrl].catch(function () {
        delete answers[pageUrl];
      });
    }
    return answers[pageUrl].then(function (answer) {
      return answer.cloneNode(true);
    });
  }
  var answers = Object.create(null);

  window.QAStudy = window.QAStudy || {};
  Object.assign(window.QAStudy, {
    lang: lang,
    locale: QAStrings.locale,
    langRoot: langRoot.href,
    siteRoot: siteRoot.href,
    strings: strings,
    url: url,
    sitePath: sitePath,
    data: data,
    el: el,
    kbd: kbd,
    cover: cover,
    showAnswer: showAnswer,
    clock: clock,
    load: load,
    interval: interval,
    gradeButtons: gradeButtons,
    gradeName: gradeName,
    endOfDay: endOfDay,
    answerOf: answerOf,
  });
})();
