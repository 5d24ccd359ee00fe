/* The side-by-side view (双语对照): under each block of an answer, its translation, on a switch the reader's
   browser remembers for every page and both languages (they share one origin: / and /en/).

   The page ships the other language's blocks hidden, outside the answer (studysite/pages/render.py
   bilingual_source); this script puts each one under its original the first time the view is on:
   a paragraph under a paragraph, a list item's translation inside that item. */
(function () {
  "use strict";
  var KEY = "qa-reader:bilingual"; // "1": on; absent: off (the default)
  var sources = [].slice.call(document.querySelectorAll("[data-qa-bi-for]"));
  var bar = document.querySelector(".qa-bi-bar");
  if (!sources.length || !bar) return;
  var button = bar.querySelector(".qa-bi-toggle");
  var status = bar.querySelector(".qa-bi-status");
  var built = false;

  function remembered() {
    try {
      return localStorage.getItem(KEY) === "1";
    } catch (e) {
      return false;
    }
  }

  function remember(on) {
    try {
      if (on) localStorage.setItem(KEY, "1");
      else localStorage.removeItem(KEY);
      return true;
    } catch (e) {
      return false;
    }
  }

  function line(node, tag) {
    var copy = document.createElement(tag);
    copy.className = (node.className + " qa-bi-line").trim();
    copy.lang = node.closest("[lang]") ? node.closest("[lang]").lang : "";
    copy.setAttribute("data-pagefind-ignore", "all");
    while (node.firstChild) copy.appendChild(node.firstChild);
    return copy;
  }

  // Pair the answer's blocks with the source's, in order; a list whose item counts differ (never
  // the case for an aligned translation) gets the whole translated list after it instead.
  function weave(source) {
    var answer = document.getElementById(source.getAttribute("data-qa-bi-for"));
    if (!answer) return;
    var note = source.firstElementChild;
    if (source.hasAttribute("data-qa-bi-missing")) {
      if (note) answer.insertBefore(line(note, "p"), answer.firstChild);
      return;
    }
    var mine = [].slice.call(answer.children);
    var theirs = [].slice.call(source.children);
    mine.forEach(function (block, i) {
      var other = theirs[i];
      if (!other) return;
      var lists = /^(UL|OL)$/;
      var items = block.children;
      var translated = other.children;
      if (lists.test(block.tagName) && lists.test(other.tagName) && items.length === translated.length) {
        [].forEach.call(items, function (item, j) {
          item.appendChild(line(translated[j], "span"));
        });
        return;
      }
      var copy = lists.test(other.tagName) ? other.cloneNode(true) : line(other, "p");
      if (copy.tagName !== "P") {
        copy.classList.add("qa-bi-line");
        copy.lang = source.lang;
      }
      block.parentNode.insertBefore(copy, block.nextSibling);
    });
  }

  function show(on) {
    if (on && !built) {
      sources.forEach(weave);
      built = true;
    }
    document.documentElement.classList.toggle("qa-bi-on", on);
    button.setAttribute("aria-pressed", on ? "true" : "false");
  }

  button.addEventListener("click", function () {
    var on = button.getAttribute("aria-pressed") !== "true";
    show(on);
    // A setting the browser refuses to keep is said, not lost in silence.
    status.textContent = remember(on) ? "" : status.getAttribute("data-qa-unsaved");
  });
  bar.hidden = false;
  show(remembered());
})();
