/* GitHub sync on pages other than the stats page: off until the reader turns it on; then the sync
   script (and its styles) load once the page has loaded, and sync in the background. */
(function () {
  "use strict";
  var S = window.QAStudy;
  if (!S || document.querySelector("[data-qa-stats]")) return; // the stats page's bundle has it
  try {
    var key = "qa-study@" + new URL(S.siteRoot).pathname + ":sync";
    if (!/"on":true/.test(window.localStorage.getItem(key) || "")) return;
  } catch (e) {
    return;
  }
  function start() {
    // Not loaded (offline, a flaky network): this page does not sync, and nothing is lost; the
    // progress is stored here, and the next page that loads the script syncs it.
    S.load("assets/qa/stats.css").catch(function () {});
    S.load("assets/qa/study-sync.js").catch(function () {});
  }
  if (document.readyState === "complete") start();
  else window.addEventListener("load", start);
})();
