/* Search: Pagefind behind Material's header search box (overrides/partials/search.html), with
   Material's look and keys. Nothing of the index loads with the page: pagefind.js is imported the
   first time the reader opens the box, and it picks this page's language index from <html lang>. */
(function () {
  "use strict";
  var box = document.querySelector("[data-qa-search]");
  var toggle = document.getElementById("__search");
  if (!box || !toggle) return;
  var input = box.querySelector(".md-search__input");
  var meta = box.querySelector(".md-search-result__meta");
  var list = box.querySelector(".md-search-result__list");
  var scroller = box.querySelector(".md-search__scrollwrap");

  var STRINGS = {
    zh: {
      placeholder: "键入以开始搜索",
      loading: "正在加载搜索索引…",
      none: "没有找到相关的题目",
      one: "找到 1 道相关题目",
      other: "找到 # 道相关题目",
      error: "搜索加载失败，请检查网络后重试",
      file: "搜索需要通过 HTTP 访问本站，直接打开的文件不能搜索",
    },
    en: {
      placeholder: "Type to start searching",
      loading: "Loading the search index…",
      none: "No matching questions",
      one: "1 matching question",
      other: "# matching questions",
      error: "Search could not load: check your connection and try again",
      file: "Search needs the site served over HTTP; it does not work in a file opened directly",
    },
  };
  var lang = (document.documentElement.lang || "en").toLowerCase().split("-")[0];
  var t = STRINGS[lang] || STRINGS.en;
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

  /* Pagefind, initialised (index metadata and WebAssembly loaded): searching only after that skips
     Pagefind's 50 ms polling for a first search that arrives while it loads. It runs on the page's
     thread, not in its web worker: starting the worker made the first results 25 % later (median
     of 30 cold starts on the seed site, 426 against 564 ms on a busy machine). The price: the first
     few searches of a 1,000-question site hold the page for 60 to 430 ms on that machine (chunks
     loading), later ones for under 50 ms. */
  function load() {
    if (!engine) {
      engine = import(bundle.href + "pagefind.js")
        .then(function (pagefind) {
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
    return n === 1 ? t.one : t.other.replace("#", String(n));
  }

  // The offline worker's background precache (overrides/sw.js) starts no download for a few seconds
  // after this: the search's own requests are not queued behind it. Said at most once a second.
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

  function query() {
    var q = input.value.trim();
    if (q === asked) return;
    asked = q;
    var mine = ++generation;
    pending = []; // the shown list's remaining results: not to be appended under this query
    if (!q) {
      list.textContent = "";
      status(t.placeholder);
      return;
    }
    // Mid-burst (this key within DEBOUNCE_MS of the last query's): wait for a pause rather than search
    // every key. An emptied box searched nothing, so the query typed into it next searches at once.
    var now = performance.now();
    var fast = now - edited < DEBOUNCE_MS;
    edited = now;
    if (location.protocol === "file:") return status(t.file);
    quietWorker();
    var cold = !ready; // typed while Pagefind loads: search as soon as it is there
    if (cold) status(t.loading);
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
        return show(mine, q, found.results, found.checked);
      })
      .catch(function () {
        if (mine === generation) {
          asked = null;
          status(t.error);
        }
      });
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
      }
    );
  }

  /* Render the first batch of `results` as their texts arrive, in their final order: of the first
     `checked` (the pages with the words together), those with the query exactly as typed first.
     Pagefind's exact search compares word stems, so "updates overhead" also finds "update overhead".
     A result is shown as soon as no text still on its way can move it, the first FIRST_PAINT
     together; the first screen no longer waits for all of the up to 20 texts these checks need. */
  function show(mine, q, results, checked) {
    if (!results.length) {
      list.textContent = "";
      status(t.none);
      return Promise.resolve();
    }
    var fetched = Math.min(results.length, Math.max(checked, BATCH));
    var head = Math.min(FIRST_PAINT, fetched);
    var pages = [];
    var literal = []; // of the first `checked`: the text has the query as typed
    var shown = 0;
    var words = terms(q);

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
        status(count(results.length));
      }
      for (; shown < upto; shown++) list.appendChild(item(pages[order[shown]], words));
    }

    function texts(from, to) {
      return Promise.all(
        results.slice(from, to).map(function (result, i) {
          return result.data().then(function (page) {
            pages[from + i] = page;
            literal[from + i] = from + i < checked && has(page, q);
            paint();
          });
        })
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
        })
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
        })
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
      })
    ).then(function (pages) {
      if (mine !== generation) return;
      if (fresh) {
        list.textContent = "";
        scroller.scrollTop = 0;
      }
      var words = terms(asked);
      pages.forEach(function (page) {
        list.appendChild(item(page, words));
      });
    });
    var step = done.finally(function () {
      if (rendering === step) rendering = null;
    });
    rendering = step;
    return step;
  }

  function item(page, words) {
    var li = el("li", "md-search-result__item");
    var link = el("a", "md-search-result__link");
    link.href = page.url;
    link.tabIndex = -1;
    var article = el("article", "md-search-result__article md-typeset");
    article.appendChild(el("div", "md-search-result__icon md-icon"));
    var title = el("h1");
    highlight(title, (page.meta && page.meta.title) || page.url, words);
    article.appendChild(title);
    var text = el("p");
    text.appendChild(page.raw_content ? teaser(page) : excerpt(page.excerpt || ""));
    article.appendChild(text);
    link.appendChild(article);
    li.appendChild(link);
    return li;
  }

  function el(tag, className) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    return node;
  }

  /* A few words of the answer around its matches, as text and <mark>s. Pagefind's own excerpt
     would often repeat the title shown just above it: its region is where the title's weighted
     matches are. Words are split as Pagefind splits them (zero-width spaces in Chinese). */
  function teaser(page) {
    var raw = page.raw_content;
    var zws = raw.indexOf("\u200B") >= 0;
    var words = zws ? raw.split("\u200B") : raw.split(/[^\S\uFEFF]+/);
    var answer = (page.anchors || []).filter(function (a) {
      return a.id === "qa-answer";
    })[0];
    var from = answer ? answer.location : 0;
    var hits = (page.locations || []).filter(function (at) {
      return at >= from;
    });
    var length = Math.min(EXCERPT_WORDS, words.length - from);
    var start = from;
    var most = 0;
    hits.forEach(function (h) {
      var n = hits.filter(function (at) {
        return at >= h && at < h + length;
      }).length;
      if (n > most) {
        most = n;
        start = h;
      }
    });
    start = Math.max(from, Math.min(start - Math.floor(length / 4), words.length - length));
    var out = document.createDocumentFragment();
    var run = start > from ? (zws ? "…" : "… ") : "";
    for (var i = start; i < start + length; i++) {
      // raw_content is the text with < and > escaped (Pagefind's excerpts are HTML); shown as text
      var word = words[i].replace(/&lt;/g, "<").replace(/&gt;/g, ">");
      var gap = zws || i === start ? "" : " ";
      if (hits.indexOf(i) >= 0) {
        var parts = /^([^\p{L}\p{N}]*)(.*?)([^\p{L}\p{N}]*)$/u.exec(word); // "(AllReduce)": mark the word only
        out.appendChild(document.createTextNode(run + gap + parts[1]));
        var mark = el("mark");
        mark.textContent = parts[2];
        out.appendChild(mark);
        run = parts[3];
      } else {
        run += gap + word;
      }
    }
    out.appendChild(document.createTextNode(run + (start + length < words.length ? (zws ? "…" : " …") : "")));
    return out;
  }

  /* Fallback (a Pagefind without raw_content): its excerpt is HTML, the page's text with < and >
     escaped and the matches in <mark>. Only text and <mark> are taken from it; the template is
     inert, so nothing in it loads or runs. */
  function excerpt(html) {
    var parsed = document.createElement("template");
    parsed.innerHTML = html;
    var out = document.createDocumentFragment();
    parsed.content.childNodes.forEach(function (node) {
      if (node.nodeName === "MARK") {
        var mark = el("mark");
        mark.textContent = node.textContent;
        out.appendChild(mark);
      } else {
        out.appendChild(document.createTextNode(node.textContent));
      }
    });
    return out;
  }

  /* What to mark in a title: the query, and its words of two or more characters as the browser
     segments them (single characters would mark stray parts of other Chinese words). */
  function terms(q) {
    var words = [q.toLowerCase()];
    if (window.Intl && Intl.Segmenter) {
      var segments = new Intl.Segmenter(lang, { granularity: "word" }).segment(q);
      for (var s of segments) if (s.isWordLike && s.segment.length > 1) words.push(s.segment.toLowerCase());
    } else {
      words = words.concat(q.toLowerCase().split(/\s+/));
    }
    return words.filter(Boolean);
  }

  /* The title as text, with the query's words marked (as Material marks them). */
  function highlight(node, text, words) {
    var lower = text.toLowerCase();
    var at = 0;
    while (at < text.length) {
      var best = -1;
      var len = 0;
      words.forEach(function (w) {
        var i = lower.indexOf(w, at);
        if (i >= 0 && (best < 0 || i < best || (i === best && w.length > len))) {
          best = i;
          len = w.length;
        }
      });
      if (best < 0) break;
      if (best > at) node.appendChild(document.createTextNode(text.slice(at, best)));
      var mark = el("mark");
      mark.textContent = text.slice(best, best + len);
      node.appendChild(mark);
      at = best + len;
    }
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

  status(t.placeholder);
  input.addEventListener("focus", function () {
    if (location.protocol !== "file:") {
      quietWorker();
      load().catch(function () {}); // fetch while the reader types
    }
    setTimeout(open); // after a header label's own toggling (it focuses the box too)
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
})();
