/* Search: Pagefind behind Material's header search box (overrides/partials/search.html), with
   Material's look and keys. Nothing of the index loads with the page: pagefind.js is imported the
   first time the reader opens the box, and it picks this page's language index from <html lang>.
   Results are question pages and glossary terms (one entry per term, leading to its anchor); they
   show the text exactly and mark the words as typed (marksFor()); a query found nowhere as typed
   offers the site's closest terms (closest()); an index that a deploy replaced is reloaded (stale()). */
(function () {
  "use strict";
  var box = document.querySelector("[data-qa-search]");
  var toggle = document.getElementById("__search");
  if (!box || !toggle) return;
  var input = box.querySelector(".md-search__input");
  var meta = box.querySelector(".md-search-result__meta");
  var list = box.querySelector(".md-search-result__list");
  var resultBox = box.querySelector(".md-search-result");
  var scroller = box.querySelector(".md-search__scrollwrap");

  var lang = QAStrings.lang;
  var t = QAStrings.scope("search");
  // Pagefind's ranking options (empty: its defaults). Measured with scripts/search_eval.py on 1,000
  // questions (200 queries): title weight 1 to 20, termFrequency 0.5, pageLength 0.25, termSaturation
  // 0.8 to 2 and termSimilarity 0.5 moved the right-page-first rate by 0.04 at most without the two
  // steps below, and not at all with them: phraseFirst and the literal check in show() are what rank
  // the right page first. `search_eval.py --ranking JSON` tries other values.
  var RANKING = {};
  var BATCH = 10; // results rendered at a time; more as the list scrolls (as Material does)
  var DEBOUNCE_MS = 60; // keys closer than this are one burst, searched when it pauses (see query())
  var FIRST_PAINT = 3; // results shown together first; the rest of the batch follows as it arrives
  var EXCERPT_WORDS = 32; // of the answer, under each result's title
  var LITERAL_CHECKS = 20; // phrase matches checked for the query exactly as typed (their text is fetched)
  var CLOSEST = 5; // site terms offered when a query finds nothing
  var GLOSSARY_TERMS = 3; // glossary terms listed at most (a common word is in many definitions)
  var LATIN = /^[!-~]+$/; // a word of ASCII letters, digits and signs

  var config = JSON.parse(document.getElementById("__config").textContent);
  var langRoot = new URL(config.base.replace(/\/?$/, "/"), location.href);
  var bundle = new URL(box.getAttribute("data-qa-pagefind"), langRoot);
  var siteRoot = new URL("../", bundle); // Pagefind's result URLs are relative to the site root

  var engine = null; // Promise of a Pagefind instance, once the reader opens search
  var ready = false; // it has loaded
  var asked = null; // the query being shown (trimmed)
  var generation = 0; // bumps with every query: late answers to older queries are dropped
  var pending = []; // results of the shown query not rendered yet
  var edited = -Infinity; // when a query was last typed (performance.now()); not an emptied box
  var rendering = null; // the batch being rendered (batches append in order, one at a time)
  var loadedVersion = null; // the index the engine holds: pagefind-entry.json as text
  var siteTerms = null; // Promise of this language's search-terms.json (the closest-term offers)

  /* Pagefind, initialised (index metadata and WebAssembly loaded): searching only after that skips
     Pagefind's 50 ms polling for a first search that arrives while it loads. It runs on the page's
     thread, not in its web worker: starting the worker made the first results 25 % later (median
     of 30 cold starts on the seed site, 426 against 564 ms on a busy machine). The price: the first
     few searches of a 1,000-question site hold the page for 60 to 430 ms on that machine (chunks
     loading), later ones for under 50 ms. */
  function load() {
    if (!engine) {
      var version = indexVersion().then(
        function (v) {
          loadedVersion = v;
        },
        function () {}, // unknown: stale() then says no, and search works as before
      );
      engine = Promise.all([import(bundle.href + "pagefind.js"), version])
        .then(function (both) {
          var pagefind = both[0];
          var instance = pagefind.createInstance({
            basePath: bundle.pathname,
            baseUrl: siteRoot.pathname,
            ranking: RANKING,
            noWorker: true,
          });
          return instance.init().then(function () {
            ready = true;
            return instance;
          });
        })
        .catch(function (error) {
          engine = null; // let the next keystroke try again
          throw error;
        });
    }
    return engine;
  }

  function open() {
    if (!toggle.checked) toggle.click(); // a click, as Material does: its listeners see the change
  }

  function close() {
    if (toggle.checked) toggle.click();
    input.blur();
  }

  function status(text) {
    meta.textContent = text;
  }

  function count(n) {
    return n === 1 ? t("one") : t("other", { n: n });
  }

  // A download the reader asked the offline worker for (overrides/sw.js) starts no new file for a few
  // seconds after this: the search's own requests are not queued behind it. Said at most once a second.
  var told = 0;
  function quietWorker() {
    var sw = navigator.serviceWorker;
    var now = Date.now();
    if (!sw || now - told < 1000) return;
    told = now;
    sw.getRegistration()
      .then(function (registration) {
        var worker = registration && (registration.installing || registration.waiting || registration.active);
        if (worker) worker.postMessage({ qa: "busy" });
      })
      .catch(function () {});
  }

  function query(again) {
    var q = input.value.trim();
    if (q === asked && !again) return;
    asked = q;
    var mine = ++generation;
    pending = []; // the shown list's remaining results: not to be appended under this query
    if (!q) {
      list.textContent = "";
      status(t("placeholder"));
      busy(false);
      return;
    }
    busy(true);
    // Mid-burst (this key within DEBOUNCE_MS of the last query's): wait for a pause rather than search
    // every key. An emptied box searched nothing, so the query typed into it next searches at once.
    var now = performance.now();
    var fast = now - edited < DEBOUNCE_MS;
    edited = now;
    if (location.protocol === "file:") {
      busy(false);
      return status(t("file"));
    }
    quietWorker();
    var cold = !ready; // typed while Pagefind loads: search as soon as it is there
    if (cold) status(t("loading"));
    load()
      .then(function (pagefind) {
        if (mine !== generation) return null; // typed on while Pagefind loaded
        if (cold || !fast) return find(pagefind, q);
        pagefind.preload(q).catch(function () {}); // the words' index chunks load while the reader types on
        return new Promise(function (resolve) {
          setTimeout(resolve, DEBOUNCE_MS);
        }).then(function () {
          return mine === generation ? find(pagefind, q) : null;
        });
      })
      .then(function (found) {
        if (!found || mine !== generation) return; // superseded by a later keystroke
        return show(mine, q, found.results, found.checked, again);
      })
      .then(function () {
        if (mine === generation) busy(false);
      })
      .catch(function () {
        if (mine !== generation) return;
        if (!again) {
          // A result's text is gone (a deploy removed the old build's fragments): reload the index, once.
          reset();
          return query(true);
        }
        asked = null;
        status(t("error"));
        busy(false);
      });
  }

  /* The results are being filled in (aria-busy, on the list's container: the list itself is
     role=presentation): assistive technology waits, and so can a test. */
  function busy(on) {
    resultBox.setAttribute("aria-busy", on ? "true" : "false");
  }

  /* pagefind-entry.json as the server has it now (it names the index's chunk hashes). */
  function indexVersion() {
    return fetch(bundle.href + "pagefind-entry.json", { cache: "no-cache" }).then(function (r) {
      if (!r.ok) throw new Error("pagefind-entry.json: HTTP " + r.status);
      return r.text();
    });
  }

  /* Resolves true when the site now has another index than the one this page loaded. */
  function stale() {
    if (loadedVersion === null) return Promise.resolve(false);
    return indexVersion().then(
      function (now) {
        return now !== loadedVersion;
      },
      function () {
        return false; // offline, say: the loaded index is the best there is
      },
    );
  }

  /* Forget the loaded index: the next query loads the site's current one. */
  function reset() {
    engine = null;
    ready = false;
    loadedVersion = null;
  }

  /* The query's results in Pagefind's order with those that have its words together first, and how
     many of those first to check for the query exactly as typed (show() does, with their texts).
     The plain and the phrase search run together: they need the same index chunks. */
  function find(pagefind, q) {
    var quoted = /^\s*".+"\s*$/.test(q);
    return Promise.all([pagefind.search(q), quoted ? null : pagefind.search('"' + q.replace(/"/g, "") + '"')]).then(
      function (both) {
        var all = both[0].results;
        if (!all.length) {
          return byCharacters(pagefind, q).then(function (results) {
            return { results: results, checked: 0 };
          });
        }
        if (quoted) return { results: all, checked: 0 };
        var exact = both[1].results;
        return { results: phraseFirst(all, exact), checked: Math.min(exact.length, LITERAL_CHECKS) };
      },
    );
  }

  /* Render the first batch of `results` as their texts arrive, in their final order: of the first
     `checked` (the pages with the words together), those with the query exactly as typed first.
     Pagefind's exact search compares word stems, so "updates overhead" also finds "update overhead".
     A result is shown as soon as no text still on its way can move it, the first FIRST_PAINT
     together; the first screen no longer waits for all of the up to 20 texts these checks need. */
  function show(mine, q, results, checked, again) {
    /* Nothing has the words as typed. Perhaps a new deploy replaced the index this page loaded (its
       chunks now 404, which Pagefind takes for "no such word", and its fragments stay in memory):
       then the same query again on the new index, once. Else the site's closest terms. */
    function unfound() {
      return (again ? Promise.resolve(false) : stale()).then(function (old) {
        if (mine !== generation) return;
        if (old) {
          reset();
          return query(true);
        }
        if (!list.querySelector(".md-search-result__link")) status(t("none", { q: q }));
        return closest(q).then(function (near) {
          if (mine === generation && near.length) list.insertBefore(offers(near), list.firstChild);
        });
      });
    }
    if (!results.length) {
      list.textContent = "";
      return unfound();
    }
    var fetched = Math.min(results.length, Math.max(checked, BATCH));
    var head = Math.min(FIRST_PAINT, fetched);
    var pages = [];
    var literal = []; // of the first `checked`: the text has the query as typed
    var shown = 0;

    /* Indexes into `results` of the places that no text still on its way can change, in order. */
    function settled() {
      var first = [];
      var other = [];
      var i = 0;
      for (; i < checked && pages[i]; i++) (literal[i] ? first : other).push(i);
      if (i < checked) return first; // a text on its way may be a literal match, ahead of `other`
      var order = first.concat(other);
      for (; i < fetched && pages[i]; i++) order.push(i);
      return order;
    }

    function paint() {
      if (mine !== generation) return;
      var order = settled();
      var upto = Math.min(order.length, BATCH);
      if (!shown) {
        if (upto < head) return;
        list.textContent = "";
        scroller.scrollTop = 0;
      }
      // Pagefind's results, with the glossary as the number of its terms shown (once its text is in)
      var n = results.length;
      pages.forEach(function (page) {
        if (page) n += entries(page, q) - 1;
      });
      status(n ? count(n) : t("none", { q: q }));
      for (; shown < upto; shown++) list.appendChild(item(pages[order[shown]], q));
    }

    function texts(from, to) {
      return Promise.all(
        results.slice(from, to).map(function (result, i) {
          return result.data().then(function (page) {
            pages[from + i] = page;
            literal[from + i] = from + i < checked && has(page, q);
            paint();
          });
        }),
      );
    }

    // The first screen's texts alone, then the rest: asked for together, the first ones shared the
    // connections (six per host over HTTP/1.1) and this thread with texts the first screen can do without.
    var step = texts(0, head)
      .then(function () {
        if (mine === generation) return texts(head, fetched);
      })
      .then(function () {
        if (mine !== generation) return;
        pending = settled()
          .map(function (i) {
            return results[i];
          })
          .concat(results.slice(fetched))
          .slice(shown);
        // Found, but not as typed (a typo, say: Pagefind matched its pieces): the close terms too.
        var typed = pages.some(function (page) {
          return page && hasWords(page, q);
        });
        if (!typed) return unfound();
      });
    var done = step.finally(function () {
      if (rendering === done) rendering = null;
    });
    rendering = done;
    return done;
  }

  /* Pages with the query's words together and in order (Pagefind's "exact" search) first, then
     pages that only contain the words; each group in Pagefind's order. Pagefind ranks by the words
     alone, so without this a page about 显存带宽 or "bank conflict" loses to pages that mention 显存
     and 带宽, or bank and conflict, apart but often. */
  function phraseFirst(all, exact) {
    var phrase = {};
    exact.forEach(function (r) {
      phrase[r.id] = true;
    });
    var listed = {};
    all.forEach(function (r) {
      listed[r.id] = true;
    });
    return all
      .filter(function (r) {
        return phrase[r.id];
      })
      .concat(
        exact.filter(function (r) {
          return !listed[r.id];
        }),
        all.filter(function (r) {
          return !phrase[r.id];
        }),
      );
  }

  /* Nothing found, yet a page may have the text: the browser cut the query into words otherwise than
     Pagefind cut the page (中 | 小学生 | 所以 against 中小 | 学生 | 所以). Search its Chinese characters
     one by one and keep the pages whose text has the query as typed. */
  function byCharacters(pagefind, q) {
    var characters = q.replace(/[\u3400-\u9fff]/g, " $& ").trim();
    if (characters.indexOf(" ") < 0) return Promise.resolve([]);
    return pagefind.search(characters).then(function (found) {
      var head = found.results.slice(0, LITERAL_CHECKS);
      return Promise.all(
        head.map(function (result) {
          return result.data();
        }),
      ).then(function (pages) {
        return head.filter(function (result, i) {
          return has(pages[i], q);
        });
      });
    });
  }

  /* The page's text has the query as typed (ignoring case and runs of spaces). */
  function has(page, q) {
    var text = page.content.toLowerCase().replace(/\s+/g, " ");
    return text.indexOf(q.toLowerCase().replace(/\s+/g, " ")) >= 0;
  }

  /* Render the next batch of results; `fresh` replaces what the list shows. */
  function more(mine, fresh) {
    var batch = pending.splice(0, BATCH);
    var done = Promise.all(
      batch.map(function (result) {
        return result.data();
      }),
    ).then(function (pages) {
      if (mine !== generation) return;
      if (fresh) {
        list.textContent = "";
        scroller.scrollTop = 0;
      }
      pages.forEach(function (page) {
        list.appendChild(item(page, asked));
      });
    });
    var step = done.finally(function () {
      if (rendering === step) rendering = null;
    });
    rendering = step;
    return step;
  }

  /* One result as list items: a question page is one; the glossary page is one per matching term,
     each leading to the term's anchor (Pagefind's sub-results: its sections under an <h2 id>). */
  function item(page, q) {
    var marks = marksFor(q, original(page));
    var glossary = page.meta && page.meta.qa_kind === "glossary";
    if (!glossary)
      return entry(page.url, (page.meta && page.meta.title) || page.url, teaser(page, marks, "qa-answer"), marks);
    var out = document.createDocumentFragment();
    terms(page, q).forEach(function (sub) {
      var node = entry(sub.url, sub.title, teaser(page, marks, sub.anchor.id), marks);
      node.querySelector("h1").prepend(el("span", "qa-search-kind", t("glossary")));
      out.appendChild(node);
    });
    return out;
  }

  /* The glossary's terms (its sections under an <h2 id>, Pagefind's sub-results) to show for `q`:
     those that have every typed word (see words()), else those that have one of them; those whose
     name has one first; at most GLOSSARY_TERMS. Pagefind also lists sections that have only pieces
     of a Chinese word (模型 of 模型算力利用率), and a common word is in many definitions. */
  function terms(page, q) {
    var words = wordPatterns(q);
    var sep = (page.raw_content || "").indexOf("\u200B") >= 0 ? "" : " ";
    var found = function (text) {
      text = text.toLowerCase();
      return words.filter(function (re) {
        re.lastIndex = 0;
        return re.test(text);
      }).length;
    };
    var sections = (page.sub_results || [])
      .filter(function (sub) {
        return sub.anchor && sub.anchor.id && sub.anchor.element === "h2";
      })
      .map(function (sub, i) {
        var n = found(section(page, sub.anchor.id, true).join(sep));
        return { sub: sub, n: n, named: found(sub.title || "") > 0, i: i };
      });
    var all = sections.filter(function (s) {
      return s.n === words.length;
    });
    return (
      all.length
        ? all
        : sections.filter(function (s) {
            return s.n > 0;
          })
    )
      .sort(function (a, b) {
        return b.named - a.named || a.i - b.i;
      })
      .slice(0, GLOSSARY_TERMS)
      .map(function (s) {
        return s.sub;
      });
  }

  /* A pattern per typed word: the word as typed; for a Latin word, any word starting with its stem
     (Pagefind stems English: "updates" finds "update"). */
  function wordPatterns(q) {
    return typedWords(q).map(function (word) {
      return LATIN.test(word) ? pattern(stem(word), true) : pattern(word);
    });
  }

  /* How many entries `page` makes in the list (the glossary: one per term shown), once its text is in. */
  function entries(page, q) {
    return page.meta && page.meta.qa_kind === "glossary" ? terms(page, q).length : 1;
  }

  /* Each typed word occurs in the page's text (see wordPatterns()). */
  function hasWords(page, q) {
    var text = original(page)
      .replace(/\u200B/g, "")
      .toLowerCase();
    return wordPatterns(q).every(function (re) {
      return re.test(text);
    });
  }

  function entry(url, heading, text, marks) {
    var li = el("li", "md-search-result__item");
    var link = el("a", "md-search-result__link");
    link.href = url;
    link.tabIndex = -1;
    var article = el("article", "md-search-result__article md-typeset");
    article.appendChild(el("div", "md-search-result__icon md-icon"));
    var title = el("h1");
    highlight(title, heading, marks);
    article.appendChild(title);
    var p = el("p");
    p.appendChild(text);
    article.appendChild(p);
    link.appendChild(article);
    li.appendChild(link);
    return li;
  }

  /* Nothing found: the site's terms closest to the query, each a button that searches it. */
  function offers(near) {
    var li = el("li", "md-search-result__item qa-search-closest");
    li.appendChild(el("span", "", t("closest")));
    near.forEach(function (term) {
      var button = el("button", "qa-search-term", term);
      button.type = "button";
      button.addEventListener("click", function () {
        input.value = term;
        input.focus();
        query();
      });
      li.appendChild(document.createTextNode(" "));
      li.appendChild(button);
    });
    return li;
  }

  /* Up to CLOSEST terms of this language's list (glossary names and spellings, tag names; written
     by studysite/site/search_terms.py, fetched the first time a query finds nothing) within a small
     edit distance of the query, closest first, ignoring case. */
  function closest(q) {
    if (!siteTerms) {
      siteTerms = fetch(new URL("search-terms.json", langRoot).href)
        .then(function (r) {
          if (!r.ok) throw new Error("search-terms.json: HTTP " + r.status);
          return r.json();
        })
        .then(function (data) {
          return data.terms;
        })
        .catch(function () {
          siteTerms = null; // try again on the next query that finds nothing
          return [];
        });
    }
    var want = q.toLowerCase();
    var limit = Math.max(1, Math.floor(Array.from(want).length / 3));
    return siteTerms.then(function (all) {
      return all
        .map(function (term, i) {
          return { term: term, i: i, d: distance(want, term.toLowerCase(), limit) };
        })
        .filter(function (c) {
          return c.d <= limit;
        })
        .sort(function (a, b) {
          return a.d - b.d || a.i - b.i;
        })
        .slice(0, CLOSEST)
        .map(function (c) {
          return c.term;
        });
    });
  }

  /* Levenshtein distance over code points, or limit + 1 once it must exceed `limit`. */
  function distance(a, b, limit) {
    var i, j, up, diagonal, least;
    a = Array.from(a);
    b = Array.from(b);
    if (Math.abs(a.length - b.length) > limit) return limit + 1;
    var row = [];
    for (j = 0; j <= b.length; j++) row.push(j);
    for (i = 1; i <= a.length; i++) {
      diagonal = row[0];
      row[0] = i;
      least = i;
      for (j = 1; j <= b.length; j++) {
        up = row[j];
        row[j] = Math.min(up + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
        diagonal = up;
        least = Math.min(least, row[j]);
      }
      if (least > limit) return limit + 1;
    }
    return row[b.length];
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  /* The page's text exactly as Pagefind indexed it, with its word breaks (U+200B in Chinese).
     raw_content escapes < and > but not &, so its "&lt;" may be a "<" or the text "&lt;";
     page.content (the same text unescaped, without the breaks) tells which. */
  function original(page) {
    var raw = page.raw_content || "";
    var text = page.content;
    if (typeof text !== "string" || !/&[lg]t;/.test(raw)) return raw;
    var out = "";
    var r = 0;
    for (var i = 0; i < text.length; i++) {
      while (raw.charCodeAt(r) === 0x200b) {
        out += "\u200B";
        r++;
      }
      out += text[i];
      r += text[i] === "<" || text[i] === ">" ? 4 : 1;
    }
    return out + raw.slice(r);
  }

  /* A few words of the section `anchor` (the answer, a glossary term) around its matches, as text
     and <mark>s. Pagefind's own excerpt would often repeat the title shown just above it (its region
     is where the title's weighted matches are), and it marks the words Pagefind matched, pieces of
     Chinese words included; this marks `marks` (see marksFor). */
  function teaser(page, marks, anchor) {
    var zws = (page.raw_content || "").indexOf("\u200B") >= 0;
    var sep = zws ? "" : " ";
    var body = section(page, anchor);
    var starts = [];
    var at = 0;
    body.forEach(function (w) {
      starts.push(at);
      at += w.length + sep.length;
    });
    var joined = body.join(sep);
    var hits = []; // index in `body` of each word a mark starts in
    matches(joined, marks).forEach(function (m) {
      var k = 0;
      while (k + 1 < starts.length && starts[k + 1] <= m.index) k++;
      hits.push(k);
    });
    var length = Math.min(EXCERPT_WORDS, body.length);
    var start = 0;
    var most = 0;
    hits.forEach(function (h) {
      var n = hits.filter(function (k) {
        return k >= h && k < h + length;
      }).length;
      if (n > most) {
        most = n;
        start = h;
      }
    });
    start = Math.max(0, Math.min(start - Math.floor(length / 4), body.length - length));
    var out = document.createDocumentFragment();
    if (start > 0) out.appendChild(document.createTextNode(zws ? "…" : "… "));
    var shown = el("span");
    highlight(shown, body.slice(start, start + length).join(sep), marks);
    while (shown.firstChild) out.appendChild(shown.firstChild);
    if (start + length < body.length) out.appendChild(document.createTextNode(zws ? "…" : " …"));
    return out;
  }

  /* The words of the section `anchor` (the answer: all after it; a glossary term: up to the next
     anchor, without its heading, the result's title, unless `heading`), as Pagefind split the text
     (U+200B in Chinese, spaces otherwise). No such anchor: the whole text. */
  function section(page, anchor, heading) {
    var text = original(page);
    var zws = text.indexOf("\u200B") >= 0;
    var words = zws ? text.split("\u200B") : text.split(/[^\S\uFEFF]+/);
    var anchors = page.anchors || [];
    var at = anchors.findIndex(function (a) {
      return a.id === anchor;
    });
    if (at < 0) return words;
    var from = anchors[at].location;
    if (anchor === "qa-answer") return words.slice(from);
    var next = anchors.slice(at + 1).filter(function (b) {
      return b.location > from;
    })[0];
    var body = words.slice(from, next ? next.location : words.length);
    if (heading) return body;
    var chars = (anchors[at].text || "").replace(/\s+/g, "").length;
    var k = 0;
    for (var seen = 0; k < body.length && seen < chars; k++) seen += body[k].replace(/\s+/g, "").length;
    return body.slice(k);
  }

  /* What to mark in one result: the words the reader typed (split at spaces only: an unspaced
     Chinese query is one word), each as typed wherever the result's text has it. A typed word the
     text does not have marks its parts instead, as Pagefind matched the page: the browser's words of
     two or more characters for Chinese (显存带宽: 显存 and 带宽), and for a Latin word the words that
     start with its stem (updates: update, updated). Never a single Chinese character the reader did
     not type alone, so 负优化 marks neither 优 nor 负载, and 显存 not the 存 of 访存. */
  function marksFor(q, text) {
    var lower = text.replace(/\u200B/g, "").toLowerCase();
    var marks = [];
    typedWords(q).forEach(function (word) {
      var whole = pattern(word);
      if (whole.test(lower)) marks.push(whole);
      else if (LATIN.test(word)) marks.push(pattern(stem(word), true));
      else if (window.Intl && Intl.Segmenter) pieces(word, marks);
    });
    return marks;
  }

  function pieces(word, marks) {
    for (var s of new Intl.Segmenter(lang, { granularity: "word" }).segment(word)) {
      if (!s.isWordLike || Array.from(s.segment).length < 2) continue;
      marks.push(LATIN.test(s.segment) ? pattern(stem(s.segment), true) : pattern(s.segment));
    }
  }

  function typedWords(q) {
    return (q || "").toLowerCase().replace(/"/g, " ").split(/\s+/).filter(Boolean);
  }

  /* A typed word as a pattern: anywhere for Chinese; for a Latin word, at the start of a word (and
     for a stem, the rest of that word too). */
  function pattern(word, rest) {
    var quoted = word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (LATIN.test(word) && /^[\p{L}\p{N}]/u.test(word)) quoted = "(?<![\\p{L}\\p{N}])" + quoted;
    return new RegExp(quoted + (rest ? "[\\p{L}\\p{N}]*" : ""), "giu");
  }

  function stem(word) {
    var m = /^(.{3,}?)(?:ing|ed|es|s)$/.exec(word);
    return m ? m[1] : word;
  }

  /* Where the marks match in `text`: leftmost first, the longest of those starting together. */
  function matches(text, marks) {
    var found = [];
    var at = 0;
    while (at < text.length && marks.length) {
      var best = null;
      marks.forEach(function (re) {
        re.lastIndex = at;
        var m = re.exec(text);
        if (m && m[0] && (!best || m.index < best.index || (m.index === best.index && m[0].length > best.length))) {
          best = { index: m.index, length: m[0].length };
        }
      });
      if (!best) break;
      found.push(best);
      at = best.index + best.length;
    }
    return found;
  }

  /* `text` into `node` as text, with `marks` marked (as Material marks them). */
  function highlight(node, text, marks) {
    var at = 0;
    matches(text, marks).forEach(function (m) {
      if (m.index > at) node.appendChild(document.createTextNode(text.slice(at, m.index)));
      node.appendChild(el("mark", "", text.slice(m.index, m.index + m.length)));
      at = m.index + m.length;
    });
    if (at < text.length) node.appendChild(document.createTextNode(text.slice(at)));
  }

  function typing(target) {
    if (!target || !target.tagName) return false;
    if (target.isContentEditable) return true;
    return /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) && !/^(checkbox|radio)$/i.test(target.type);
  }

  /* Keys as in Material: f, s, / open search; in search, Esc and Tab close it, the arrows move
     through the results, Enter opens the focused (or the first) result, other keys type. */
  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing || event.keyCode === 229) return;
    if (!toggle.checked) {
      if ((event.key === "/" || event.key === "s" || event.key === "f") && !typing(document.activeElement)) {
        event.preventDefault();
        open(); // directly: the focus event below is deferred while the document itself lacks focus
        input.focus();
        input.select();
      }
      return;
    }
    var active = document.activeElement;
    switch (event.key) {
      case "Escape":
      case "Tab":
        if (event.key === "Escape") event.preventDefault();
        close();
        break;
      case "Enter":
        if (active === input) {
          event.preventDefault();
          var first = list.querySelector(".md-search-result__link");
          if (first) first.click();
        }
        break;
      case "ArrowUp":
      case "ArrowDown":
        var stops = [input].concat([].slice.call(list.querySelectorAll(".md-search-result__link")));
        var i = Math.max(0, stops.indexOf(active));
        stops[(i + stops.length + (event.key === "ArrowUp" ? -1 : 1)) % stops.length].focus();
        event.preventDefault();
        break;
      default:
        if (active !== input && event.key.length === 1) input.focus();
    }
  }

  status(t("placeholder"));
  input.addEventListener("focus", function () {
    if (location.protocol !== "file:") {
      quietWorker();
      load().catch(function () {}); // fetch while the reader types
    }
    // After a header label's own toggling (it focuses the box too); not if the box lost the focus
    // meanwhile: an Esc pressed right after f, s or / (input runs before timers) closes search for good.
    setTimeout(function () {
      if (document.activeElement === input) open();
    });
  });
  // Typed text: not the pinyin an input method shows while it composes, only what it commits.
  function typed(event) {
    if (!event.isComposing) query();
  }
  input.addEventListener("input", typed);
  input.addEventListener("keyup", typed);
  input.addEventListener("compositionend", query);
  box.querySelector("form").addEventListener("submit", function (event) {
    event.preventDefault(); // Enter is handled in onKey
  });
  box.querySelector("form").addEventListener("reset", function () {
    setTimeout(function () {
      input.focus();
      query();
    });
  });
  // The header's magnifier (phones) opens the box; focusing here is what brings up the keyboard on iOS.
  document.querySelectorAll(".md-header__button[for='__search']").forEach(function (label) {
    label.addEventListener("click", function () {
      input.focus();
    });
  });
  toggle.addEventListener("change", function () {
    if (!toggle.checked) input.blur();
  });
  box.addEventListener("click", function (event) {
    if (event.target instanceof Element && event.target.closest("a")) close(); // a result: same-page links too
  });
  scroller.addEventListener("scroll", function () {
    if (pending.length && !rendering && scroller.scrollTop + scroller.clientHeight > scroller.scrollHeight - 200) {
      more(generation, false);
    }
  });
  window.addEventListener("keydown", onKey);
  // A new build took over this page (overrides/assets/qa/offline.js says so): the next query loads
  // the new index, and the query on show is asked again at once.
  document.addEventListener("qa:new-version", function () {
    reset();
    if (asked) query(true);
  });
})();
