/* The sidebar's list of the bank's questions on bank and question pages. The HTML of a page carries
   only the site-wide navigation, the same at any size of site; the bank's questions come from the
   bank's nav.js (window.qaBankNav: its title and [slug, title] pairs), which the browser fetches once
   per bank and caches. Without JavaScript the page's own links (bank page, previous / next) remain.

   Cheap at any size of bank (issue 18: this was a 190 ms task on a phone): the list is cloned from
   one template item into a detached list that joins the page in one insertion, links are plain
   string joins (no URL object per question), off-screen items skip layout (content-visibility in
   site.css), the labels are not Material's .md-ellipsis (its bundle watches every one of those for
   overflow: 0.1 s per thousand), the list is built in a frame callback of its own and then CHUNK
   items per task, and the one measurement (the current question in view) waits for a layout the
   browser makes anyway. */
(function () {
  "use strict";
  var data = window.qaBankNav;
  var source = document.querySelector("script[data-qa-banknav]");
  var list = document.querySelector(".md-sidebar--primary .md-nav--primary > .md-nav__list");
  if (!data || !source || !list) return;
  var bank = new URL(".", source.src).href; // the bank's folder: nav.js sits in it
  var local = location.protocol === "file:"; // the offline zip: folders open as .../index.html
  var tail = local ? "/index.html" : "/";
  var here = location.href.replace(/[?#].*$/, "").replace(/index\.html$/, "");

  // In the next frame, not in the bundle's first run: on a phone the bundle's other scripts and this
  // list are then two tasks of a few milliseconds instead of one long one.
  requestAnimationFrame(build);

  var CHUNK = 250;
  var item, questions, current;

  function build() {
    item = document.createElement("li");
    item.className = "md-nav__item qa-banknav";
    item.appendChild(link(bank, data.title, "md-nav__link qa-banknav__bank"));
    questions = document.createElement("ul");
    questions.className = "md-nav__list qa-banknav__list";
    var template = document.createElement("li");
    template.className = "md-nav__item";
    template.appendChild(link("", "", "md-nav__link"));
    template.firstChild.firstChild.className = "qa-banknav__text"; // not md-ellipsis: see above
    current = null;
    var items = data.items;
    var i = 0;
    fill();

    // CHUNK items per task, the next chunk in a task of its own (a zero-delay timer), so that a large
    // bank's list never holds the main thread for one long task (1,000 items: 11-14 ms of CPU in one
    // task here, 45-57 ms on Lighthouse's 4x slower phone; now at most a quarter of that each).
    function fill() {
      for (var end = Math.min(i + CHUNK, items.length); i < end; i++) {
        var li = template.cloneNode(true);
        var a = li.firstChild;
        a.href = bank + items[i][0] + tail;
        a.firstChild.textContent = items[i][1];
        if (bank + items[i][0] + "/" === here) current = mark(a);
        questions.appendChild(li);
      }
      if (i < items.length) setTimeout(fill, 0);
      else show();
    }
  }

  function show() {
    item.appendChild(questions);
    list.appendChild(item);
    // The current question in view within the sidebar (not the page), as Material does for its own
    // links: once the sidebar has its height (Material sets it after the page is ready), measured in
    // a resize observer, which runs after a layout the browser made anyway.
    var scroller = list.closest(".md-sidebar__scrollwrap");
    if (!current || !scroller || !window.ResizeObserver) return;
    var watch = new ResizeObserver(function () {
      var top = current.getBoundingClientRect().top - scroller.getBoundingClientRect().top;
      if (top <= scroller.clientHeight * 0.6) return watch.disconnect(); // in view already
      if (scroller.scrollHeight <= scroller.clientHeight) return; // not a scrolling box yet
      scroller.scrollTop = top - scroller.clientHeight / 3;
      watch.disconnect();
    });
    watch.observe(scroller);
  }

  function link(url, text, className) {
    var a = document.createElement("a");
    a.className = className;
    if (url) a.href = url === bank ? (local ? bank + "index.html" : bank) : url;
    var label = document.createElement("span");
    label.className = "md-ellipsis";
    label.textContent = text;
    a.appendChild(label);
    if (url === bank && bank === here) mark(a);
    return a;
  }

  function mark(a) {
    a.className += " md-nav__link--active";
    a.setAttribute("aria-current", "page");
    return a;
  }
})();
