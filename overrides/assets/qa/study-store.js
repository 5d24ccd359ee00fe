/* Study mode, the reader's progress: one versioned document of reviews per site in localStorage, merged, never clobbered. */
(function () {
  "use strict";
  var S = window.QAStudy;
  // Progress belongs to this site (several sites can share an origin, e.g. USER.github.io/REPO/);
  // both languages sit under the same root, so a review made in one counts in the other.
  var SITE_PATH = new URL(S.siteRoot).pathname;
  var SITE = "qa-study@" + SITE_PATH;
  var KEY = SITE + ":study"; // the document (format below)
  var V1_KEY = SITE + ":marks"; // version 1: "know it" / "review again" marks, migrated once
  var MOCK_KEY = SITE + ":last-mock";
  var SETTINGS_KEY = SITE + ":settings";
  var SESSION_KEY = SITE + ":session:"; // + "review" | "mock": a session in progress
  var QUIZ_KEY = "qa-study:quiz-mode"; // also read by the inline script in overrides/main.html
  var FORMAT = "qa-study-progress";
  var VERSION = 2;
  var GRADES = [1, 2, 3, 4]; // ts-fsrs Rating: Again, Hard, Good, Easy
  var UNDONE_ID = /^\d{1,16}:[1-4]$/; // a review taken back, as "t:g"
  var MAX_UNDONE = 200; // per card: the newest are kept (older ones predate any copy still around)
  var V1_GRADE = { know: 3, review: 1 }; // a v1 mark becomes one review at its time
  var DEFAULT_SETTINGS = { newPerDay: 10 };
  var FSRS_PATH = "assets/qa/vendor/ts-fsrs.js"; // copied from node_modules by studysite/site/vendor.py

  var memory = Object.create(null); // when storage cannot be read at all (some private modes)
  var listeners = [];
  var doc = null; // the document in memory; cards is a prototype-free map (any slug is safe)
  var states = new Map(); // slug -> {log, reset, card}: FSRS state replayed from the log, cached
  var unsaved = false; // the last write failed: memory holds reviews that storage does not
  var fsrsPromise = null;
  var scheduler = null;

  // --- the document: validation and the pure per-card merge ---------------------------------------

  /** An empty version-2 document of this site. */
  function emptyDoc() {
    return { format: FORMAT, version: VERSION, site: SITE_PATH, cards: Object.create(null) };
  }

  function validSlug(slug) {
    return typeof slug === "string" && /^[a-z0-9][a-z0-9-]*(\/[a-z0-9][a-z0-9-]*)?$/.test(slug);
  }

  function time(value) {
    return typeof value === "number" && isFinite(value) && value >= 0 && value < 1e14;
  }

  /** A stored or imported card record, cleaned: null when nothing of it is usable. */
  function cleanCard(raw) {
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) return null;
    var out = { log: [] };
    if (Array.isArray(raw.log)) {
      raw.log.forEach(function (e) {
        if (e && time(e.t) && GRADES.indexOf(e.g) >= 0) out.log.push({ t: e.t, g: e.g });
      });
    }
    if (typeof raw.hash === "string" && raw.hash.length <= 128) out.hash = raw.hash;
    if (raw.note && typeof raw.note.text === "string" && time(raw.note.t) && raw.note.text.length <= 20000) {
      out.note = { text: raw.note.text, t: raw.note.t };
    }
    if (raw.suspended && typeof raw.suspended.on === "boolean" && time(raw.suspended.t)) {
      out.suspended = { on: raw.suspended.on, t: raw.suspended.t };
    }
    if (time(raw.reset)) out.reset = raw.reset;
    if (Array.isArray(raw.undone)) {
      // reviews the reader took back ("t:g"): recorded, so that another device's copy cannot bring them back
      out.undone = raw.undone.filter(function (id) {
        return typeof id === "string" && UNDONE_ID.test(id);
      });
      if (!out.undone.length) delete out.undone;
    }
    var usable = out.log.length || out.note || out.suspended || out.reset || out.undone;
    return usable ? normalCard(out) : null;
  }

  /** Sorted by time, duplicates (same t and g) once, reviews before the reset forgotten. */
  function normalCard(card) {
    var seen = Object.create(null);
    if (card.undone) {
      card.undone = card.undone
        .filter(function (id, i, all) {
          return all.indexOf(id) === i;
        })
        .sort()
        .slice(-MAX_UNDONE);
      card.undone.forEach(function (id) {
        seen[id] = true; // a review taken back stays out of the log
      });
    }
    card.log = card.log
      .filter(function (e) {
        var id = e.t + ":" + e.g;
        if (seen[id] || (card.reset && e.t <= card.reset)) return false;
        seen[id] = true;
        return true;
      })
      .sort(function (a, b) {
        return a.t - b.t || a.g - b.g;
      });
    return card;
  }

  function newest(a, b) {
    if (!a) return b;
    if (!b) return a;
    return b.t > a.t ? b : a;
  }

  function lastT(card) {
    return card && card.log.length ? card.log[card.log.length - 1].t : -1;
  }

  /** One card of two devices: union of reviews; note, suspension and reset: the newest wins. */
  function mergeCard(a, b) {
    if (!a) return copyCard(b);
    if (!b) return copyCard(a);
    var out = { log: a.log.concat(b.log) };
    var hashFrom = lastT(b) > lastT(a) ? b : a;
    if (hashFrom.hash !== undefined) out.hash = hashFrom.hash;
    else if ((a.hash || b.hash) !== undefined) out.hash = a.hash || b.hash;
    var note = newest(a.note, b.note);
    if (note) out.note = { text: note.text, t: note.t };
    var suspended = newest(a.suspended, b.suspended);
    if (suspended) out.suspended = { on: suspended.on, t: suspended.t };
    var reset = Math.max(a.reset || 0, b.reset || 0);
    if (reset) out.reset = reset;
    if (a.undone || b.undone) out.undone = (a.undone || []).concat(b.undone || []);
    return normalCard(out);
  }

  function copyCard(card) {
    return card ? JSON.parse(JSON.stringify(card)) : card;
  }

  /** Merge two version-2 documents card by card (pure: neither argument changes). */
  function mergeDocs(a, b) {
    var out = emptyDoc();
    [a, b].forEach(function (d) {
      if (!d || !d.cards) return;
      Object.keys(d.cards).forEach(function (slug) {
        out.cards[slug] = mergeCard(out.cards[slug], d.cards[slug]);
      });
    });
    return out;
  }

  /**
   * Read any progress document (version 1 marks or version 2 cards) into a clean version-2 one.
   * `known`: this site's slugs (an object or Set; null skips the check). Throws Error("format")
   * with .code "format" for a foreign file, .code "site" for another site's file.
   */
  function validate(raw, known) {
    if (!raw || typeof raw !== "object" || raw.format !== FORMAT || !(raw.version === 1 || raw.version === 2)) {
      throw coded("format", "not a progress file of this site");
    }
    if (raw.site !== undefined && siteOf(raw.site) !== SITE_PATH) {
      var err = coded("site", "a progress file of another site");
      err.site = String(raw.site);
      throw err;
    }
    var source = raw.version === 1 ? fromV1(raw.marks) : raw.cards;
    if (!source || typeof source !== "object") throw coded("format", "no cards in the file");
    var out = emptyDoc();
    var reasons = { slug: 0, unknown: 0, record: 0 };
    var kept = 0;
    Object.keys(source).forEach(function (slug) {
      if (!validSlug(slug)) {
        reasons.slug += 1;
        return;
      }
      if (known && !has(known, slug)) {
        reasons.unknown += 1;
        return;
      }
      var card = cleanCard(source[slug]);
      if (!card) {
        reasons.record += 1;
        return;
      }
      out.cards[slug] = card;
      kept += 1;
    });
    var dropped = reasons.slug + reasons.unknown + reasons.record;
    return { doc: out, kept: kept, dropped: dropped, reasons: reasons };
  }

  function fromV1(marks) {
    if (!marks || typeof marks !== "object") return null;
    var cards = Object.create(null);
    Object.keys(marks).forEach(function (slug) {
      var m = marks[slug];
      var g = m && V1_GRADE[m.state];
      cards[slug] =
        g && time(m.time) ? { log: [{ t: m.time, g: g }], hash: typeof m.hash === "string" ? m.hash : "" } : null;
    });
    return cards;
  }

  function siteOf(site) {
    try {
      return new URL(String(site), location.href).pathname;
    } catch (e) {
      return String(site);
    }
  }

  function has(known, slug) {
    if (typeof known.has === "function") return known.has(slug);
    return Object.hasOwn(known, slug);
  }

  function coded(code, message) {
    var err = new Error(message);
    err.code = code;
    return err;
  }

  // --- storage: read, write then read back, say when it failed ------------------------------------

  function rawRead(key) {
    try {
      return window.localStorage.getItem(key);
    } catch (e) {
      return key in memory ? memory[key] : null;
    }
  }

  /** Write (null removes) and read back; throws Error with .code "quota" | "unavailable", storage unchanged. */
  function rawWrite(key, value) {
    var storage;
    try {
      storage = window.localStorage;
      if (value === null) storage.removeItem(key);
      else storage.setItem(key, value);
    } catch (e) {
      var quota = e && (e.name === "QuotaExceededError" || e.code === 22 || e.code === 1014);
      throw coded(quota ? "quota" : "unavailable", String((e && e.message) || e));
    }
    if (storage.getItem(key) !== value) throw coded("unavailable", "storage did not keep what was written");
  }

  function load() {
    if (doc) return doc;
    var stored = null;
    try {
      stored = JSON.parse(rawRead(KEY) || "null");
    } catch (e) {
      stored = null;
    }
    if (stored) {
      try {
        doc = validate(stored, null).doc;
      } catch (e) {
        doc = emptyDoc();
      }
    } else {
      doc = migrateV1();
    }
    return doc;
  }

  /** Version-1 marks become reviews (know it: Good, review again: Again, at their times), once. */
  function migrateV1() {
    var old = null;
    try {
      old = JSON.parse(rawRead(V1_KEY) || "null");
    } catch (e) {
      old = null;
    }
    if (!old || !old.marks) return emptyDoc();
    var migrated = validate({ format: FORMAT, version: 1, marks: old.marks }, null).doc;
    try {
      rawWrite(KEY, JSON.stringify(migrated));
      rawWrite(V1_KEY, null); // only once the new document is safely stored
    } catch (e) {
      unsaved = true; // the marks stay where they were; this page works from memory
    }
    return migrated;
  }

  /** Store `next` as the document; on failure memory keeps it (to export) unless `atomic`, then throws. */
  function save(next, atomic) {
    var text = JSON.stringify(next);
    try {
      rawWrite(KEY, text);
    } catch (e) {
      if (!atomic) {
        doc = next;
        unsaved = true;
        notify();
        report(e);
      }
      throw e;
    }
    doc = next; // unchanged records keep their identity, and so their cached schedule
    unsaved = false;
    notify();
  }

  /** A copy of the document with one card changed by `edit(card)` (a fresh record when missing). */
  function withCard(slug, edit) {
    var next = { format: FORMAT, version: VERSION, site: SITE_PATH, cards: Object.create(null) };
    var current = load().cards;
    Object.keys(current).forEach(function (s) {
      next.cards[s] = current[s];
    });
    var card = copyCard(current[slug]) || { log: [] };
    edit(card);
    next.cards[slug] = normalCard(card);
    return next;
  }

  function notify() {
    listeners.slice().forEach(function (fn) {
      fn();
    });
  }

  // --- scheduling: ts-fsrs, loaded only when a page asks for it -----------------------------------

  /** Resolves when the scheduler is loaded (card(), due() and preview() need it). */
  function ready() {
    if (!fsrsPromise) {
      fsrsPromise = new Promise(function (resolve, reject) {
        if (window.FSRS && window.FSRS.fsrs) return resolve();
        var script = document.createElement("script");
        script.src = new URL(FSRS_PATH, S.siteRoot).href;
        script.async = true;
        script.setAttribute("data-qa-vendor", "ts-fsrs");
        script.onload = function () {
          if (window.FSRS && window.FSRS.fsrs) resolve();
          else reject(new Error("ts-fsrs did not load"));
        };
        script.onerror = function () {
          reject(new Error("ts-fsrs did not load"));
        };
        document.head.appendChild(script);
      }).then(function () {
        // No fuzz: the same log always replays to the same schedule, on every device.
        scheduler = window.FSRS.fsrs(window.FSRS.generatorParameters({ enable_fuzz: false }));
      });
      fsrsPromise.catch(function () {
        fsrsPromise = null;
      });
    }
    return fsrsPromise;
  }

  function needScheduler() {
    if (!scheduler) throw new Error("study-store: call QAStudy.store.ready() before asking for a schedule");
    return scheduler;
  }

  /** The FSRS card replayed from a record's log (null: never reviewed since its reset). */
  function replay(slug, record) {
    var cached = states.get(slug);
    if (cached && cached.record === record) return cached.card;
    var f = needScheduler();
    var card = null;
    record.log.forEach(function (e) {
      var at = new Date(e.t);
      card = f.next(card || window.FSRS.createEmptyCard(at), at, e.g).card;
    });
    states.set(slug, { record: record, card: card });
    return card;
  }

  /**
   * A question's schedule: {reviews, state ("new"|"learning"|"review"|"relearning"), due (ms),
   * stability, difficulty, reps, lapses, last (ms), suspended, hash, note, firstReview}. Needs ready().
   */
  function card(slug) {
    var record = load().cards[slug];
    var c = record && record.log.length ? replay(slug, record) : null;
    return {
      reviews: record ? record.log.length : 0,
      state: c ? STATE_NAMES[c.state] : "new",
      due: c ? c.due.getTime() : null,
      stability: c ? c.stability : 0,
      difficulty: c ? c.difficulty : 0,
      reps: c ? c.reps : 0,
      lapses: c ? c.lapses : 0,
      last: record && record.log.length ? lastT(record) : null,
      firstReview: record && record.log.length ? record.log[0].t : null,
      suspended: !!(record && record.suspended && record.suspended.on),
      hash: record && record.hash !== undefined ? record.hash : null,
      note: record && record.note ? record.note.text : "",
    };
  }
  var STATE_NAMES = ["new", "learning", "review", "relearning"];

  /** What each grade would schedule now: {1: dueMs, 2: …, 3: …, 4: …}. Needs ready(). */
  function preview(slug, now) {
    var f = needScheduler();
    now = now || Date.now();
    var record = load().cards[slug];
    var at = new Date(now);
    var c = (record && record.log.length && replay(slug, record)) || window.FSRS.createEmptyCard(at);
    var out = {};
    GRADES.forEach(function (g) {
      out[g] = f.next(c, at, g).card.due.getTime();
    });
    return out;
  }

  /** Slugs reviewed before, not suspended, due at or before `now` (ms), soonest first. Needs ready(). */
  function due(now) {
    now = now === undefined ? Date.now() : now;
    var cards = load().cards;
    var out = [];
    Object.keys(cards).forEach(function (slug) {
      var record = cards[slug];
      if (!record.log.length || (record.suspended && record.suspended.on)) return;
      var c = replay(slug, record);
      if (c && c.due.getTime() <= now) out.push({ slug: slug, due: c.due.getTime() });
    });
    out.sort(function (a, b) {
      return a.due - b.due || (a.slug < b.slug ? -1 : 1);
    });
    return out.map(function (x) {
      return x.slug;
    });
  }

  /**
   * Today's review over the question data `d` (QAStudy.data()): {due: [slug], fresh: [slug],
   * introduced}: the due ones (by the end of today) in `filter` ({bank, tag}; empty: all), soonest
   * first, and new ones in site order up to the daily limit less those first seen today. Needs ready().
   */
  function today(d, now, filter) {
    filter = filter || {};
    now = now || Date.now();
    var inScope = function (q) {
      return !!q && (!filter.bank || q.bank === filter.bank) && (!filter.tag || q.tags.indexOf(filter.tag) >= 0);
    };
    var dueSlugs = due(S.endOfDay(now)).filter(function (slug) {
      return inScope(d.bySlug[slug]);
    });
    var dayStart = S.endOfDay(now, -1) + 1;
    var cards = load().cards;
    var introduced = 0;
    Object.keys(cards).forEach(function (slug) {
      var c = cards[slug];
      if (c.log.length && c.log[0].t >= dayStart) introduced += 1;
    });
    var left = Math.max(0, settings().newPerDay - introduced);
    var fresh = [];
    for (var i = 0; i < d.questions.length && fresh.length < left; i++) {
      var q = d.questions[i];
      var c = cards[q.slug];
      if (inScope(q) && !(c && (c.log.length || (c.suspended && c.suspended.on)))) fresh.push(q.slug);
    }
    return { due: dueSlugs, fresh: fresh, introduced: introduced };
  }

  // --- what readers do ----------------------------------------------------------------------------

  /** Record a review (g: 1 Again, 2 Hard, 3 Good, 4 Easy) of the answer with `hash`; returns the entry (for undo). */
  function grade(slug, g, hash) {
    if (!validSlug(slug) || GRADES.indexOf(g) < 0) throw new Error("study-store: bad grade " + slug + " " + g);
    var entry = { t: Date.now(), g: g };
    var next = withCard(slug, function (c) {
      var last = lastT(c);
      if (entry.t <= last) entry.t = last + 1; // two grades in one millisecond stay two reviews
      c.log.push(entry);
      if (typeof hash === "string") c.hash = hash;
    });
    save(next);
    return { t: entry.t, g: entry.g };
  }

  /** Take back one review (the entry grade() returned). */
  function undo(slug, entry) {
    save(
      withCard(slug, function (c) {
        c.log = c.log.filter(function (e) {
          return !(e.t === entry.t && e.g === entry.g);
        });
        // recorded, so the deletion wins when another device (sync, a file, a link) still has the review
        c.undone = (c.undone || []).concat([entry.t + ":" + entry.g]);
      }),
    );
  }

  /** The reader's note on a question ("" when none); needs no scheduler. */
  function note(slug) {
    var c = load().cards[slug];
    return c && c.note ? c.note.text : "";
  }

  function setNote(slug, text) {
    save(
      withCard(slug, function (c) {
        c.note = { text: String(text), t: Date.now() };
      }),
    );
  }

  function setSuspended(slug, on) {
    save(
      withCard(slug, function (c) {
        c.suspended = { on: !!on, t: Date.now() };
      }),
    );
  }

  /** Forget a question's reviews (recorded, so a merge with an older copy does not bring them back). */
  function reset(slug) {
    save(
      withCard(slug, function (c) {
        c.reset = Date.now();
      }),
    );
  }

  /** Forget every review (notes and suspensions stay), and the last mock interview. */
  function resetAll() {
    var now = Date.now();
    var next = emptyDoc();
    var cards = load().cards;
    Object.keys(cards).forEach(function (slug) {
      var c = copyCard(cards[slug]);
      c.reset = Math.max(now, lastT(c) + 1);
      next.cards[slug] = normalCard(c);
    });
    save(next);
    try {
      rawWrite(MOCK_KEY, null);
    } catch (e) {
      /* the document said it; the old summary is harmless */
    }
  }

  /**
   * Merge a progress document (v1 or v2) into this store: validated against this site and its
   * questions, written, then read back. Resolves to {kept, dropped, reasons, reviews} (kept:
   * cards of the file now in storage; reviews: reviews that were new here). Rejects with .code
   * "format" | "site" | "quota" | "unavailable"; then nothing changed.
   */
  function merge(incoming) {
    return S.data().then(function (d) {
      var v = validate(incoming, d.bySlug);
      var next = mergeDocs(load(), v.doc);
      var before = countReviews(load());
      save(next, true);
      // read back: what storage holds now is what we report
      var stored = validate(JSON.parse(rawRead(KEY) || "null"), null).doc;
      var kept = 0;
      Object.keys(v.doc.cards).forEach(function (slug) {
        var mine = stored.cards[slug];
        var theirs = v.doc.cards[slug];
        var all =
          mine &&
          theirs.log.every(function (e) {
            return (
              (mine.reset && e.t <= mine.reset) ||
              mine.log.some(function (m) {
                return m.t === e.t && m.g === e.g;
              })
            );
          });
        if (all) kept += 1;
      });
      return {
        kept: kept,
        dropped: v.dropped + (v.kept - kept),
        reasons: v.reasons,
        reviews: countReviews(stored) - before,
      };
    });
  }

  function countReviews(d) {
    var n = 0;
    Object.keys(d.cards).forEach(function (slug) {
      n += d.cards[slug].log.length;
    });
    return n;
  }

  /** A deep copy of the whole document (version 2). */
  function snapshot() {
    var copy = JSON.parse(JSON.stringify(load()));
    copy.site = SITE_PATH;
    return copy;
  }

  /** The progress file: the document, readable, with when it was exported. */
  function exportText() {
    var d = snapshot();
    return (
      JSON.stringify(
        { format: FORMAT, version: VERSION, exported: new Date().toISOString(), site: d.site, cards: d.cards },
        null,
        1,
      ) + "\n"
    );
  }

  /** Import a progress file's text: merge(). Rejects with .code "format" for text that is not one. */
  function importText(text) {
    var parsed;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      return Promise.reject(coded("format", "not JSON"));
    }
    return merge(parsed);
  }

  /** Questions with reviews (or a note, or suspended), any order. */
  function slugs() {
    return Object.keys(load().cards);
  }

  function reviewed(slug) {
    var c = load().cards[slug];
    return !!(c && c.log.length);
  }

  /** True when the question's text changed after it was last graded (its content hash differs). */
  function changed(slug, hash) {
    var c = load().cards[slug];
    return !!(c && c.log.length && hash && c.hash && c.hash !== hash);
  }

  function count() {
    return countReviews(load());
  }

  // --- small side records: settings, sessions, quiz mode, the last mock ---------------------------

  function readJson(key) {
    try {
      return JSON.parse(rawRead(key) || "null");
    } catch (e) {
      return null;
    }
  }

  /** Write a side record; a failure is reported to the reader and thrown. */
  function writeJson(key, value) {
    try {
      rawWrite(key, value === null ? null : JSON.stringify(value));
    } catch (e) {
      report(e);
      throw e;
    }
  }

  function settings() {
    var s = unsavedSettings || readJson(SETTINGS_KEY) || {};
    var n = parseInt(s.newPerDay, 10);
    return { newPerDay: isFinite(n) && n >= 0 && n <= 9999 ? n : DEFAULT_SETTINGS.newPerDay };
  }

  function setSettings(values) {
    var next = Object.assign(settings(), values);
    try {
      writeJson(SETTINGS_KEY, next);
      unsavedSettings = null;
    } catch (e) {
      // the reader was told (the banner); this page goes on with what they chose, as with a grade
      unsavedSettings = next;
      notify();
      throw e;
    }
    notify();
  }
  var unsavedSettings = null;

  /** A session in progress ("review" or "mock"), or null. */
  function session(name) {
    var s = readJson(SESSION_KEY + name);
    return s && typeof s === "object" ? s : null;
  }

  function saveSession(name, value) {
    writeJson(SESSION_KEY + name, value);
  }

  function clearSession(name) {
    try {
      rawWrite(SESSION_KEY + name, null);
    } catch (e) {
      /* nothing to lose */
    }
  }

  function quizMode() {
    return rawRead(QUIZ_KEY) === "1";
  }

  function setQuizMode(on) {
    try {
      rawWrite(QUIZ_KEY, on ? "1" : null);
    } catch (e) {
      memory[QUIZ_KEY] = on ? "1" : null;
    }
    notify();
  }

  function lastMock() {
    var m = readJson(MOCK_KEY);
    return m && Array.isArray(m.items) ? m : null;
  }

  function saveMock(result) {
    writeJson(MOCK_KEY, result);
  }

  /** Call fn after any change: on this page, or in another tab of the same site. */
  function onChange(fn) {
    listeners.push(fn);
  }

  // --- telling the reader when storage failed -----------------------------------------------------

  var t = S.strings("study-store");
  var banner = null;

  /** Show the reader that a write failed, with an export button (the progress in memory). */
  function report(error) {
    var code = error && error.code === "quota" ? "quota" : "unavailable";
    if (!document.body) return;
    if (!banner) {
      banner = S.el("div", { class: "qa-storage-alert", role: "alert", "data-qa-storage": code });
      document.body.appendChild(banner);
    }
    banner.setAttribute("data-qa-storage", code);
    banner.replaceChildren(
      S.el("p", { text: t(code) }),
      S.el("button", { type: "button", class: "qa-button qa-button--primary", text: t("export"), onclick: download }),
      S.el("button", {
        type: "button",
        class: "qa-button",
        text: t("close"),
        onclick: function () {
          banner.remove();
          banner = null;
        },
      }),
    );
  }

  /** Save the progress file (what is in memory, saved or not); returns its file name. */
  function download() {
    var name = "qa-progress-" + new Date().toISOString().slice(0, 10) + ".json";
    var blob = new Blob([exportText()], { type: "application/json" });
    var link = S.el("a", { href: URL.createObjectURL(blob), download: name, hidden: true });
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () {
      URL.revokeObjectURL(link.href);
    }, 10000);
    return name;
  }

  window.addEventListener("storage", function (event) {
    if (event.key === null || event.key === KEY || event.key === QUIZ_KEY || event.key === SETTINGS_KEY) {
      if (!unsaved) {
        doc = null;
        states.clear();
      }
      notify();
    }
  });

  S.store = {
    FORMAT: FORMAT,
    VERSION: VERSION,
    KEY: KEY,
    ready: ready,
    snapshot: snapshot,
    merge: merge,
    mergeDocs: mergeDocs,
    mergeCard: mergeCard,
    validate: validate,
    grade: grade,
    undo: undo,
    card: card,
    preview: preview,
    due: due,
    today: today,
    reviewed: reviewed,
    note: note,
    setNote: setNote,
    setSuspended: setSuspended,
    reset: reset,
    resetAll: resetAll,
    slugs: slugs,
    changed: changed,
    count: count,
    unsaved: function () {
      return unsaved;
    },
    exportText: exportText,
    importText: importText,
    download: download,
    report: report,
    settings: settings,
    setSettings: setSettings,
    session: session,
    saveSession: saveSession,
    clearSession: clearSession,
    quizMode: quizMode,
    setQuizMode: setQuizMode,
    lastMock: lastMock,
    saveMock: saveMock,
    onChange: onChange,
  };
})();
