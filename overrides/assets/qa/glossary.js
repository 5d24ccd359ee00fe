/* The glossary page: a filter box that keeps only the terms whose names or definitions hold every word
   the reader typed (both languages, any case), and the letters of the jump list that still have terms. */
(function () {
  "use strict";
  var box = document.getElementById("qa-gl-filter");
  var article = box && box.closest("article");
  if (!article) return;
  var filter = box.closest(".qa-gl-filter");
  var count = filter.querySelector(".qa-gl-count");
  // Each term: its h2 and everything up to the next h2 or letter marker, all siblings of the filter
  // (inside the article, or inside the wrapper that marks the glossary for search, overrides/main.html).
  var marker = article.querySelector(".qa-gl-letter");
  var host = marker ? marker.parentNode : article;
  var terms = [];
  var letters = [];
  var current = null;
  var letter = null;
  [].forEach.call(host.children, function (node) {
    if (node.classList.contains("qa-gl-letter")) {
      letter = { node: node, terms: [] };
      letters.push(letter);
      current = null;
      return;
    }
    if (node.tagName === "H2" && letter) {
      current = { nodes: [node], text: "" };
      terms.push(current);
      letter.terms.push(current);
      return;
    }
    if (current) current.nodes.push(node);
  });
  // What a term is matched on: its names and definitions (not the titles of the questions that use it).
  terms.forEach(function (term) {
    term.text = term.nodes
      .filter(function (n) {
        return n.tagName === "H2" || n.classList.contains("qa-term");
      })
      .map(function (n) {
        return n.textContent;
      })
      .join(" ")
      .toLowerCase();
  });
  var jump = {};
  [].forEach.call(article.querySelectorAll(".qa-gl-jump a"), function (a) {
    jump[a.getAttribute("href").slice(1)] = a;
  });

  function apply() {
    var words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    terms.forEach(function (term) {
      term.show = words.every(function (w) {
        return term.text.indexOf(w) >= 0;
      });
      if (term.show) shown++;
      term.nodes.forEach(function (n) {
        n.hidden = !term.show;
      });
    });
    letters.forEach(function (l) {
      var any = l.terms.some(function (term) {
        return term.show;
      });
      l.node.hidden = !any;
      var link = jump[l.node.id];
      if (link) link.hidden = !any;
    });
    count.textContent = words.length
      ? shown
        ? count.getAttribute("data-qa-count").replace("{n}", shown).replace("{total}", terms.length)
        : count.getAttribute("data-qa-none")
      : "";
  }

  box.addEventListener("input", apply);
  filter.hidden = false;
  if (box.value) apply(); // a value the browser restored on Back
})();
