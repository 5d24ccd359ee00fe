/* Offline reading on the reader's terms: the pages the reader opens are kept as they browse, and more
   only when the reader asks (the "Offline reading" control). Only over http(s): a copy opened from
   file:// has no service workers (and its pages drop this script, studysite/site/offline.py).

   Keeping what was read: a first visit registers nothing, so it costs nothing beyond the page; it
   notes the site files it loaded (localStorage PENDING). From the next page on, the worker (sw.js at
   the site root, named by data-qa-sw) is registered and told what those pages loaded: it reads them
   from the browser's HTTP cache, never from the network, and keeps this build's bytes. A page the
   worker controls is kept as it loads. With Save-Data on, nothing is kept unless the reader downloads.

   The control (studysite/site/offline.py offline_control: scopes, their compressed sizes and the strings
   in the page's language): each scope shows its size and Download; then progress and Cancel; then
   what it takes on the device and Remove; a failed download says why and keeps what was stored.

   Updates: a page the worker serves is its build's copy, so after a deploy the reader would read the
   old text until the new worker has the new build. Each page load asks for a new sw.js (the browser's
   own check on navigation skips some), as does an open page when it comes back to the foreground
   and every CHECK_MS; a new worker left waiting is asked to take over. When a new worker takes over
   an open page (it claims every page once the new build's copy of what the reader kept is stored),
   the page offers "new version: reload" and tells the search box (event qa:new-version), whose
   loaded index belongs to the old build. */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !("serviceWorker" in navigator) || !/^https?:$/.test(location.protocol)) return;
  var worker = new URL(script.getAttribute("data-qa-sw"), location.href).href;
  var root = new URL("./", worker).href;
  var saveData = !!(navigator.connection && navigator.connection.saveData);
  var CHECK_MS = 60 * 60 * 1000;
  var NUDGE_MS = 1000;
  var NUDGES = 60;
  var PENDING = "qa-offline:pending";
  var PENDING_MAX = 400;
  // strings.js (in the page's bundle, which runs first) holds the page language's strings
  var t = window.QAStrings ? QAStrings.scope("offline") : String;
  var sw = navigator.serviceWorker;
  // A first worker also takes over the page: that is no new version.
  var controlled = !!sw.controller;
  var registering = null;

  sw.addEventListener("controllerchange", function () {
    if (!controlled) {
      controlled = true;
      return;
    }
    offer();
    document.dispatchEvent(new CustomEvent("qa:new-version"));
  });

  function start() {
    var here = loaded();
    sw.getRegistration(root)
      .then(function (registration) {
        if (registration) return keep(here);
        if (saveData) return;
        var earlier = pending();
        if (earlier.length) return keep(earlier.concat(here)); // the second page: now the worker
        remember(here); // a first visit: nothing beyond the page
      })
      .catch(function () {});
    control();
  }

  /* Register (once per page load) and hand the worker what pages loaded without it. */
  function keep(urls) {
    return register().then(function () {
      return sw.ready.then(function (registration) {
        registration.active.postMessage({ qa: "keep", urls: urls, saveData: saveData });
        try {
          localStorage.removeItem(PENDING);
        } catch (_e) {}
      });
    });
  }

  function register() {
    if (!registering) {
      registering = sw.register(worker).then(function (registration) {
        // A new worker calls skipWaiting() as it installs, yet Chromium can leave it waiting when the
        // deploy lands during an open tab's update check (4 of 12 runs of tests/test_offline.py's
        // update-prompt test). Asking it again is one more try: 12 of 12 such runs passed with it,
        // though full runs still left a worker waiting now and then (the old worker's unfinished
        // events hold an activation back; the browser may not try again once they end). So a page that
        // finds a worker waiting asks it again every NUDGE_MS until it takes over, NUDGES times at most.
        var nudging = null;
        var nudge = function () {
          if (nudging || !registration.waiting) return;
          var tries = 0;
          var again = function () {
            var waiting = registration.waiting;
            if (!waiting || tries++ >= NUDGES) {
              nudging = null;
              return;
            }
            waiting.postMessage({ qa: "activate" });
            nudging = setTimeout(again, NUDGE_MS);
          };
          again();
        };
        registration.addEventListener("updatefound", function () {
          var installing = registration.installing;
          if (installing)
            installing.addEventListener("statechange", function () {
              if (installing.state === "installed") nudge();
            });
        });
        var check = function () {
          nudge();
          registration.update().then(nudge, function () {}); // offline: the next check will do
        };
        if (controlled) check(); // the browser's own check on navigation skips some (Chromium: throttled)
        document.addEventListener("visibilitychange", function () {
          if (document.visibilityState === "visible") check();
        });
        setInterval(check, CHECK_MS);
        return registration;
      });
      registering.catch(function () {
        /* storage blocked (some private modes): the site still works online */
      });
    }
    return registering;
  }

  /* The site files this page loaded: itself and every resource below the site root. */
  function loaded() {
    var urls = [location.href.split("#")[0]];
    performance.getEntriesByType("resource").forEach(function (e) {
      if (e.name.indexOf(root) === 0) urls.push(e.name.split("#")[0]);
    });
    return urls;
  }

  function pending() {
    try {
      return JSON.parse(localStorage.getItem(PENDING) || "[]");
    } catch (_e) {
      return [];
    }
  }

  function remember(urls) {
    try {
      localStorage.setItem(PENDING, JSON.stringify(pending().concat(urls).slice(-PENDING_MAX)));
    } catch (_e) {}
  }

  /* The control: one row per scope, a summary of what is stored, a status line for outcomes. */
  function control() {
    var box = document.querySelector(".qa-offline-control");
    if (!box) return;
    var text = JSON.parse(box.getAttribute("data-qa-offline-text"));
    var sizes = JSON.parse(box.getAttribute("data-qa-offline-sizes") || "{}");
    var scopes = box.getAttribute("data-qa-offline-scopes").split(" ");
    var rows = {};
    var list = el("ul", "qa-offline-control__list");
    list.setAttribute("aria-label", text.label);
    scopes.forEach(function (scope) {
      var row = { li: el("li", "qa-offline-control__row"), scope: scope };
      row.label = el("span", "qa-offline-control__label", text["scope." + scope.split(":")[0]]);
      row.state = el("span", "qa-offline-control__state");
      row.bar = el("progress", "qa-offline-control__bar");
      row.bar.setAttribute("aria-label", row.label.textContent);
      row.bar.hidden = true;
      row.button = el("button", "qa-button qa-offline-control__button");
      row.button.type = "button";
      row.button.addEventListener("click", function () {
        act(row);
      });
      row.li.append(row.label, " ", row.state, row.bar, " ", row.button);
      list.appendChild(row.li);
      rows[scope] = row;
      idle(row);
    });
    var summary = el("p", "qa-offline-control__summary");
    summary.hidden = true;
    var note = el("p", "qa-offline-control__note", text.savedata);
    note.hidden = !saveData;
    var said = el("p", "qa-offline-control__said");
    said.setAttribute("role", "status");
    box.append(note, list, summary, said);
    box.hidden = false;

    function idle(row) {
      row.mode = "get";
      row.state.textContent = "";
      row.bar.hidden = true;
      row.button.textContent = text.get.replace("{size}", size(sizes[row.scope] || 0));
      row.button.classList.add("qa-button--primary");
    }

    function act(row) {
      said.textContent = "";
      if (row.mode === "get") {
        if (navigator.storage && navigator.storage.persist) navigator.storage.persist().catch(function () {});
        progress(row, 0, sizes[row.scope] || 0);
        register()
          .then(function () {
            return sw.ready;
          })
          .then(function (registration) {
            registration.active.postMessage({ qa: "download", scope: row.scope, scopes: scopes, saveData: saveData });
          })
          .catch(function () {
            idle(row);
            said.textContent = text["failed.other"];
          });
      } else if (row.mode === "cancel") {
        post({ qa: "cancel" });
      } else {
        post({ qa: "remove", scope: row.scope, scopes: scopes });
      }
    }

    function progress(row, done, total) {
      row.mode = "cancel";
      row.bar.hidden = false;
      row.bar.max = total || 1;
      row.bar.value = done;
      row.state.textContent = text.progress.replace("{done}", size(done)).replace("{total}", size(total));
      row.button.textContent = text.cancel;
      row.button.classList.remove("qa-button--primary");
    }

    function show(status) {
      Object.keys(rows).forEach(function (scope) {
        var row = rows[scope];
        var s = status.scopes[scope];
        if (status.running && status.running.scope === scope) {
          progress(row, status.running.done, status.running.total);
        } else if (s && status.chosen.indexOf(scope) >= 0) {
          row.mode = "remove";
          row.bar.hidden = true;
          row.state.textContent = text.stored.replace("{size}", size(s.bytes));
          row.button.textContent = text.remove;
          row.button.classList.remove("qa-button--primary");
        } else idle(row);
      });
      summary.hidden = !status.files;
      summary.textContent = text.visited.replace("{n}", status.files).replace("{size}", size(status.bytes));
    }

    sw.addEventListener("message", function (event) {
      var m = event.data || {};
      if (m.qa === "status") show(m);
      else if (m.qa === "progress" && rows[m.scope]) progress(rows[m.scope], m.done, m.total);
      else if (m.qa === "finished") said.textContent = text[m.outcome] || "";
    });
    post({ qa: "status", scopes: scopes });

    function post(message) {
      sw.getRegistration(root)
        .then(function (registration) {
          var active = registration && registration.active;
          if (active) active.postMessage(message);
        })
        .catch(function () {});
    }
  }

  function el(tag, cls, content) {
    var e = document.createElement(tag);
    e.className = cls;
    if (content) e.textContent = content;
    return e;
  }

  function size(bytes) {
    return bytes < 1024 * 1024 ? Math.max(1, Math.round(bytes / 1024)) + " KB" : (bytes / 1048576).toFixed(1) + " MB";
  }

  /* The prompt: a status line (read out by screen readers, takes no focus) with Reload and Dismiss. */
  function offer() {
    if (document.querySelector(".qa-update")) return;
    var bar = document.createElement("div");
    bar.className = "qa-update";
    bar.setAttribute("role", "status");
    var text = document.createElement("span");
    text.textContent = t("text");
    var reload = document.createElement("button");
    reload.type = "button";
    reload.className = "qa-update__reload";
    reload.textContent = t("reload");
    reload.addEventListener("click", function () {
      location.reload();
    });
    var dismiss = document.createElement("button");
    dismiss.type = "button";
    dismiss.className = "qa-update__dismiss";
    dismiss.setAttribute("aria-label", t("dismiss"));
    dismiss.title = t("dismiss");
    dismiss.textContent = "×";
    dismiss.addEventListener("click", function () {
      bar.remove();
    });
    bar.append(text, " ", reload, dismiss);
    document.body.appendChild(bar);
  }

  if (document.readyState === "complete") start();
  else window.addEventListener("load", start, { once: true });
})();
