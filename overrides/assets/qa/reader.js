/* The reader's side, small things on every page: the home page's random-question button, the
   previous/next keys (P/N) on question pages, focus that never lands on what cannot be seen (the
   closed search box, the closed drawer) and returns where it was after the `?` help, and form
   messages in the page's language. */
(function () {
  "use strict";
  var S = window.QAStudy;
  var t = QAStrings.scope("reader");

  // The home page's "random question": the header's dice does the same (study-random.js).
  [].forEach.call(document.querySelectorAll("[data-qa-random]"), function (button) {
    if (!S || !S.random) return;
    button.addEventListener("click", S.random);
    button.hidden = false;
  });

  // P / N (Material's keys for previous / next page) follow <link rel=prev|next>: point them at
  // this question's neighbours in its bank, which the pager links to.
  ["prev", "next"].forEach(function (rel) {
    var a = document.querySelector(".qa-pager a[rel=" + rel + "]");
    if (!a || document.querySelector("link[rel=" + rel + "]")) return;
    var link = document.createElement("link");
    link.rel = rel;
    link.href = a.href;
    document.head.appendChild(link);
  });

  // What is closed takes no focus: the search results while the search is closed, the search box
  // where it is an overlay (narrow screens), the navigation where it is a drawer (inert until
  // opened: Material's toggles are checkboxes it clicks, which fires "change").
  var search = document.getElementById("__search");
  var drawer = document.getElementById("__drawer");
  var overlaySearch = window.matchMedia("(max-width: 59.9375em)");
  var drawerNav = window.matchMedia("(max-width: 76.1875em)");
  function closedStaysOut() {
    var open = !!(search && search.checked);
    // Out of the Tab order, but still focusable by the theme when it opens the search.
    var results = document.querySelector(".md-search__scrollwrap");
    if (results) results.tabIndex = open ? 0 : -1;
    var input = document.querySelector(".md-search__input");
    if (input) input.tabIndex = overlaySearch.matches && !open ? -1 : 0;
    var nav = document.querySelector(".md-sidebar--primary");
    if (nav) nav.inert = drawerNav.matches && !(drawer && drawer.checked);
  }
  // Capture on the document: this runs before the theme's own listeners on the toggles, which move
  // focus into what just opened.
  document.addEventListener(
    "change",
    function (event) {
      if (event.target === search || event.target === drawer) closedStaysOut();
    },
    true,
  );
  [overlaySearch, drawerNav].forEach(function (query) {
    if (query.addEventListener) query.addEventListener("change", closedStaysOut);
  });
  closedStaysOut();

  // A dialog closed by Esc, its button or the backdrop gives the keyboard back to what had it.
  var opener = null;
  document.addEventListener(
    "keydown",
    function (event) {
      if (event.key === "?" && !document.querySelector("dialog[open]")) opener = document.activeElement;
    },
    true,
  );
  document.addEventListener(
    "close",
    function (event) {
      var back = opener;
      opener = null;
      if (event.target.tagName === "DIALOG" && back && back !== document.body && document.contains(back)) {
        setTimeout(function () {
          back.focus();
        });
      }
    },
    true,
  );

  // Downloads (decks, CSV, PDF, the zip) are not kept offline: when the site cannot be reached, say so
  // beside the link instead of leaving the reader on the browser's error page or a failed download.
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[href]");
    if (!link || link.hasAttribute("data-qa-checked") || event.defaultPrevented) return;
    var url = new URL(link.href, location.href);
    if (url.protocol === "file:" || url.origin !== location.origin || url.pathname.indexOf("/downloads/") < 0) return;
    event.preventDefault();
    fetch(url.href, { method: "HEAD", cache: "no-store" })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        link.setAttribute("data-qa-checked", "");
        link.click();
        link.removeAttribute("data-qa-checked");
      })
      .catch(function () {
        var block = link.closest("p, li, div") || link.parentNode;
        var note = block.querySelector(".qa-offline-note");
        if (!note) {
          note = document.createElement("span");
          note.className = "qa-offline-note";
          note.setAttribute("role", "alert");
          block.appendChild(note);
        }
        note.textContent = t("offline");
      });
  });

  // Number fields: the browser words its own message in its own language; say it in the page's.
  document.addEventListener(
    "invalid",
    function (event) {
      var field = event.target;
      if (!field || field.type !== "number") return;
      var v = field.validity;
      var message = v.rangeOverflow
        ? t("tooBig", { max: field.max })
        : v.rangeUnderflow
          ? t("tooSmall", { min: field.min })
          : v.badInput || v.stepMismatch
            ? t("notNumber")
            : "";
      if (message) field.setCustomValidity(message);
    },
    true,
  );
  document.addEventListener(
    "input",
    function (event) {
      if (event.target && event.target.type === "number") event.target.setCustomValidity("");
    },
    true,
  );
})();
