/* Study mode, shared basics: page language, URLs under the site's base, UI strings, the question data. */
(function () {
  "use strict";

  var lang = /^en\b/i.test(document.documentElement.lang || "") ? "en" : "zh";
  var config = {};
  try {
    config = JSON.parse(document.getElementById("__config").textContent);
  } catch (e) {
    /* not a Material page: URLs fall back to the current folder */
  }
  // Material's base is a relative path from this page to its language root ("." or "../..").
  var langRoot = new URL(String(config.base || ".").replace(/\/?$/, "/"), location.href);
  // The English site is built one folder below the Chinese one (mkdocs.en.yml: site_dir site/en),
  // so both languages share one origin and one set of marks.
  var siteRoot = lang === "en" ? new URL("../", langRoot) : langRoot;
  var dataPromise = null;

  /** Translator for a module's {zh: {...}, en: {...}} dictionary: t("key", {n: 3}). */
  function strings(dict) {
    var table = dict[lang] || dict.zh;
    return function (key, values) {
      var text = Object.prototype.hasOwnProperty.call(table, key) ? table[key] : key;
      return String(text).replace(/\{(\w+)\}/g, function (all, name) {
        return values && name in values ? values[name] : all;
      });
    };
  }

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

  /** Whole seconds as m:ss (or h:mm:ss). */
  function clock(seconds) {
    seconds = Math.max(0, Math.floor(seconds));
    var h = Math.floor(seconds / 3600);
    var m = Math.floor((seconds % 3600) / 60);
    var s = seconds % 60;
    var mm = h ? (m < 10 ? "0" : "") + m : String(m);
    return (h ? h + ":" : "") + mm + ":" + (s < 10 ? "0" : "") + s;
  }

  window.QAStudy = window.QAStudy || {};
  Object.assign(window.QAStudy, {
    lang: lang,
    langRoot: langRoot.href,
    siteRoot: siteRoot.href,
    strings: strings,
    url: url,
    sitePath: sitePath,
    data: data,
    el: el,
    kbd: kbd,
    clock: clock,
  });
})();
