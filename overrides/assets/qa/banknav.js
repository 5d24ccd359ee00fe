/* The sidebar's list of the bank's questions on bank and question pages. The HTML of a page carries
   only the site-wide navigation, the same at any size of site; the bank's questions come from the
   bank's nav.js (window.qaBankNav: its title and [slug, title] pairs), which the browser fetches once
   per bank and caches. Without JavaScript the page's own links (bank page, previous / next) remain. */
(function () {
  "use strict";
  var data = window.qaBankNav;
  var source = document.querySelector("script[data-qa-banknav]");
  var list = document.querySelector(".md-sidebar--primary .md-nav--primary > .md-nav__list");
  if (!data || !source || !list) return;
  var bank = new URL(".", source.src); // the bank's folder: nav.js sits in it
  var local = location.protocol === "file:"; // the offline zip: folders open as .../index.html

  function href(url) {
    return local ? url.href + "index.html" : url.href;
  }
  function here(url) {
    var path = location.pathname.replace(/index\.html$/, "");
    return url.pathname === path;
  }
  function link(url, text, extra) {
    var a = document.createElement("a");
    a.className = "md-nav__link" + (extra || "");
    a.href = href(url);
    var label = document.createElement("span");
    label.className = "md-ellipsis";
    label.textContent = text;
    a.appendChild(label);
    if (here(url)) {
      a.className += " md-nav__link--active";
      a.setAttribute("aria-current", "page");
    }
    return a;
  }

  var item = document.createElement("li");
  item.className = "md-nav__item qa-banknav";
  item.appendChild(link(bank, data.title, " qa-banknav__bank"));
  var questions = document.createElement("ul");
  questions.className = "md-nav__list qa-banknav__list";
  var current = null;
  data.items.forEach(function (pair) {
    var li = document.createElement("li");
    li.className = "md-nav__item";
    var a = link(new URL(pair[0] + "/", bank), pair[1]);
    if (a.hasAttribute("aria-current")) current = a;
    li.appendChild(a);
    questions.appendChild(li);
  });
  item.appendChild(questions);
  list.appendChild(item);

  // The current question in view within the sidebar (not the page), as Material does for its own links.
  var scroller = list.closest(".md-sidebar__scrollwrap");
  if (current && scroller) {
    var top = current.getBoundingClientRect().top - scroller.getBoundingClientRect().top;
    if (top > scroller.clientHeight * 0.6) scroller.scrollTop = top - scroller.clientHeight / 3;
  }
})();
