/* The offline zip only (studysite/site/offline.py bakes the data in front of this): browsers refuse fetch()
   from file://, so the study scripts' requests for the question data and for a question's page are
   answered from scripts shipped beside the pages, the way each bank's nav.js is. Any other request
   goes to the real fetch (and fails as it would). Nothing here runs on the web site. */
(function () {
  "use strict";
  if (location.protocol !== "file:" || !window.fetch) return;
  var me = document.currentScript;
  var root = new URL("../../", me.src).href; // this file is <language root>/assets/qa/
  var data = window.qaFileData || {};
  var answers = null; // the answers' script, loaded on the first request for a question page
  var real = window.fetch;

  function key(input) {
    var href = new URL(typeof input === "string" ? input : input.url, location.href).href.split(/[?#]/)[0];
    if (href.indexOf(root) !== 0) return null;
    return decodeURI(href.slice(root.length)).replace(/index\.html$/, "");
  }

  function loadAnswers() {
    if (!answers) {
      answers = new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        script.src = root + "assets/qa/file-answers.js";
        script.onload = function () {
          resolve(window.qaFileAnswers || {});
        };
        script.onerror = reject;
        document.head.appendChild(script);
      });
    }
    return answers;
  }

  function reply(text, type) {
    return new Response(text, { status: 200, headers: { "Content-Type": type } });
  }

  window.fetch = function (input) {
    var path = key(input);
    var args = arguments;
    var self = this;
    if (path !== null && Object.hasOwn(data, path)) {
      return Promise.resolve(reply(data[path], "application/json"));
    }
    if (path !== null && /\/$/.test(path)) {
      return loadAnswers().then(function (pages) {
        if (Object.hasOwn(pages, path)) return reply(pages[path], "text/html");
        return real.apply(self, args);
      });
    }
    return real.apply(this, arguments);
  };
})();
