/* Offline reading: register the site's service worker (sw.js at the site root, named by data-qa-sw)
   once the page has loaded, so precaching never competes with the page itself. Only over http(s):
   a copy opened from file:// has no service workers. A reader who asked the browser to save data
   (Save-Data) gets no background download: pages then load from the network as usual. */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !("serviceWorker" in navigator) || !/^https?:$/.test(location.protocol)) return;
  if (navigator.connection && navigator.connection.saveData) return;
  var worker = new URL(script.getAttribute("data-qa-sw"), location.href).href;

  function register() {
    navigator.serviceWorker.register(worker).catch(function () {
      /* storage blocked (some private modes): the site still works online */
    });
  }

  if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
})();
