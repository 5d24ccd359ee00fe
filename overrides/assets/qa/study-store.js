/* Study mode, the reader's progress: marks per question slug in localStorage, export, import, reset. */
(function () {
  "use strict";
  var S = window.QAStudy;
  // Marks belong to this site (several sites can share an origin, e.g. USER.github.io/REPO/);
  // both languages sit under the same root, so a mark made in one shows in the other.
  var SITE = "qa-study@" + new URL(S.siteRoot).pathname;
  var MARKS_KEY = SITE + ":marks";
  var MOCK_KEY = SITE + ":last-mock";
  var QUIZ_KEY = "qa-study:quiz-mode"; // also read by the inline script in overrides/main.html
  var FORMAT = "qa-study-progress";
  var VERSION = 1;
  var STATES = { know: true, review: true };
  var memory = {}; // when storage is unavailable (some private modes): marks last for this page only
  var listeners = [];
  var cache = null;

  function read(key) {
    try {
      return window.localStorage.getItem(key);
    } catch (e) {
      return key in memory ? memory[key] : null;
    }
  }

  function write(key, value) {
    try {
      if (value === null) window.localStorage.removeItem(key);
      else window.localStorage.setItem(key, value);
    } catch (e) {
      if (value === null) delete memory[key];
      else memory[key] = value;
    }
  }

  function validMark(mark) {
    return (
      !!mark &&
      typeof mark === "object" &&
      STATES[mark.state] === true &&
      typeof mark.hash === "string" &&
      typeof mark.time === "number" &&
      isFinite(mark.time)
    );
  }

  function validSlug(slug) {
    return /^[a-z0-9][a-z0-9-]*(\/[a-z0-9][a-z0-9-]*)?$/.test(slug);
  }

  /** Only well-formed marks survive: a hand-edited or foreign file cannot put junk into the store. */
  function clean(marks) {
    var out = {};
    Object.keys(marks || {}).forEach(function (slug) {
      var m = marks[slug];
      if (validSlug(slug) && validMark(m)) out[slug] = { state: m.state, hash: m.hash, time: m.time };
    });
    return out;
  }

  function marks() {
    if (!cache) {
      var stored = null;
      try {
        stored = JSON.parse(read(MARKS_KEY) || "null");
      } catch (e) {
        stored = null;
      }
      cache = clean(stored && stored.marks);
    }
    return cache;
  }

  function save(next) {
    cache = next;
    write(MARKS_KEY, Object.keys(next).length ? JSON.stringify({ version: VERSION, marks: next }) : null);
    notify();
  }

  function notify() {
    listeners.slice().forEach(function (fn) {
      fn();
    });
  }

  function copy() {
    return Object.assign({}, marks());
  }

  /** The mark of a question: {state: "know"|"review", hash, time} or null. */
  function get(slug) {
    return marks()[slug] || null;
  }

  /** Mark a question (state null clears it); returns the previous mark, for undo. */
  function set(slug, state, hash) {
    var previous = get(slug);
    var next = copy();
    if (state) next[slug] = { state: state, hash: hash || "", time: Date.now() };
    else delete next[slug];
    save(next);
    return previous;
  }

  /** Put back a mark exactly as it was (undo); null removes it. */
  function restore(slug, mark) {
    var next = copy();
    if (mark) next[slug] = mark;
    else delete next[slug];
    save(next);
  }

  /** Several marks at once ([{slug, state, hash}]), saved together. */
  function setMany(list) {
    var next = copy();
    var now = Date.now();
    list.forEach(function (item) {
      next[item.slug] = { state: item.state, hash: item.hash || "", time: now };
    });
    save(next);
  }

  /** True when the question's text changed after it was marked (its content hash differs). */
  function changed(mark, hash) {
    return !!(mark && hash && mark.hash && mark.hash !== hash);
  }

  /** Counts over questions ([{slug, hash}]): total, know, review, none, changed. */
  function stats(questions) {
    var all = marks();
    var out = { total: 0, know: 0, review: 0, none: 0, changed: 0 };
    questions.forEach(function (q) {
      var m = all[q.slug];
      out.total += 1;
      if (!m) out.none += 1;
      else out[m.state] += 1;
      if (changed(m, q.hash)) out.changed += 1;
    });
    return out;
  }

  function count() {
    return Object.keys(marks()).length;
  }

  /** The progress file: every mark, readable, with what it is and when it was made. */
  function exportText() {
    var doc = {
      format: FORMAT,
      version: VERSION,
      exported: new Date().toISOString(),
      site: S.siteRoot,
      marks: copy(),
    };
    return JSON.stringify(doc, null, 2) + "\n";
  }

  /** Merge a progress file: for each question the newer mark wins. Throws Error("format") on a foreign file. */
  function importText(text) {
    var doc;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new Error("format");
    }
    if (!doc || doc.format !== FORMAT || typeof doc.marks !== "object" || doc.version > VERSION) {
      throw new Error("format");
    }
    var incoming = clean(doc.marks);
    var next = copy();
    var result = { read: Object.keys(incoming).length, applied: 0, kept: 0 };
    Object.keys(incoming).forEach(function (slug) {
      var mine = next[slug];
      if (!mine || mine.time <= incoming[slug].time) {
        next[slug] = incoming[slug];
        result.applied += 1;
      } else {
        result.kept += 1;
      }
    });
    save(next);
    return result;
  }

  /** Forget every mark and the last mock interview. */
  function reset() {
    write(MOCK_KEY, null);
    save({});
  }

  function quizMode() {
    return read(QUIZ_KEY) === "1";
  }

  function setQuizMode(on) {
    write(QUIZ_KEY, on ? "1" : null);
    notify();
  }

  function lastMock() {
    try {
      var m = JSON.parse(read(MOCK_KEY) || "null");
      return m && Array.isArray(m.items) ? m : null;
    } catch (e) {
      return null;
    }
  }

  function saveMock(result) {
    write(MOCK_KEY, JSON.stringify(result));
  }

  /** Call fn after any change: on this page, or in another tab of the same site. */
  function onChange(fn) {
    listeners.push(fn);
  }

  window.addEventListener("storage", function (event) {
    if (event.key === null || event.key === MARKS_KEY || event.key === QUIZ_KEY) {
      cache = null;
      notify();
    }
  });

  S.store = {
    get: get,
    set: set,
    restore: restore,
    setMany: setMany,
    changed: changed,
    stats: stats,
    count: count,
    exportText: exportText,
    importText: importText,
    reset: reset,
    quizMode: quizMode,
    setQuizMode: setQuizMode,
    lastMock: lastMock,
    saveMock: saveMock,
    onChange: onChange,
  };
})();
