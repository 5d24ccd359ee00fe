/* Offline reading: register the site's service worker (sw.js at the site root, named by data-qa-sw)
   once the page has loaded, so precaching never competes with the page itself. Only over http(s):
   a copy opened from file:// has no service workers. A reader who asked the browser to save data
   (Save-Data) gets no background download: pages then load from the network as usual.

   Updates: a page the worker serves is its build's copy, so after a deploy the reader would read the
   old text until the new worker has the new build. Each page load asks for a new sw.js (the browser's
   own check on navigation skips some), as does an open page when it comes back to the foreground
   and every CHECK_MS. When a
   new worker takes over an open page (it claims every page once the whole new build is stored), the
   page offers "new version: reload" and tells the search box (event qa:new-version), whose loaded
   index belongs to the old build. */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !("serviceWorker" in navigator) || !/^https?:$/.test(location.protocol)) return;
  if (navigator.connection && navigator.connection.saveData) return;
  var worker = new URL(script.getAttribute("data-qa-sw"), location.href).href;
  var CHECK_MS = 60 * 60 * 1000;
  var STRINGS = {
    zh: { text: "本站有新版本。", reload: "重新加载", dismiss: "关闭提示" },
    en: { text: "A new version of this site is available.", reload: "Reload", dismiss: "Dismiss" },
  };
  var lang = (document.documentElement.lang || "en").toLowerCase().split("-")[0];
  var t = STRINGS[lang] || STRINGS.en;
  var sw = navigator.serviceWorker;
  // A first visit's worker also takes over the page: that is no new version.
  var controlled = !!sw.controller;

  sw.addEventListener("controllerchange", function () {
    if (!controlled) {
      controlled = true;
      return;
    }
    offer();
    document.dispatchEvent(new CustomEvent("qa:new-version"));
  });

  function register() {
    sw.register(worker)
      .then(function (registration) {
        var check = function () {
          registration.update().catch(function () {}); // offline: the next check will do
        };
        if (controlled) check(); // the browser's own check on navigation skips some (Chromium: throttled)
        document.addEventListener("visibilitychange", function () {
          if (document.visibilityState === "visible") check();
        });
        setInterval(check, CHECK_MS);
      })
      .catch(function () {
        /* storage blocked (some private modes): the site still works online */
      });
  }

  /* The prompt: a status line (read out by screen readers, takes no focus) with Reload and Dismiss. */
  function offer() {
    if (document.querySelector(".qa-update")) return;
    var bar = document.createElement("div");
    bar.className = "qa-update";
    bar.setAttribute("role", "status");
    var text = document.createElement("span");
    text.textContent = t.text;
    var reload = document.createElement("button");
    reload.type = "button";
    reload.className = "qa-update__reload";
    reload.textContent = t.reload;
    reload.addEventListener("click", function () {
      location.reload();
    });
    var dismiss = document.createElement("button");
    dismiss.type = "button";
    dismiss.className = "qa-update__dismiss";
    dismiss.setAttribute("aria-label", t.dismiss);
    dismiss.title = t.dismiss;
    dismiss.textContent = "×";
    dismiss.addEventListener("click", function () {
      bar.remove();
    });
    bar.append(text, " ", reload, dismiss);
    document.body.appendChild(bar);
  }

  if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
})();
