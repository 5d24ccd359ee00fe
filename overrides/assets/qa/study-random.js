/* Study mode, "random question": a header button (and the `r` key) that opens any other question. */
(function () {
  "use strict";
  var S = window.QAStudy;
  var t = S.strings("study-random");
  // Material Design Icons "dice-5-outline" (Apache 2.0), as shipped with Material for MkDocs.
  var ICON =
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" aria-hidden="true"><path d="M19 5v14H5V5zm0-2H5' +
    "c-1.1 0-2 .9-2 2v14c0 1.1.9 2 2 2h14c1.1 0 2-.9 2-2V5c0-1.1-.9-2-2-2M7.5 6C6.7 6 6 6.7 6 7.5S6.7 9 7.5 9 9 8.3 " +
    "9 7.5 8.3 6 7.5 6m9 9c-.8 0-1.5.7-1.5 1.5s.7 1.5 1.5 1.5 1.5-.7 1.5-1.5-.7-1.5-1.5-1.5m0-9c-.8 0-1.5.7-1.5 1.5S" +
    "15.7 9 16.5 9 18 8.3 18 7.5 17.3 6 16.5 6M12 10.5c-.8 0-1.5.7-1.5 1.5s.7 1.5 1.5 1.5 1.5-.7 1.5-1.5-.7-1.5-1.5-" +
    '1.5M7.5 15c-.8 0-1.5.7-1.5 1.5S6.7 18 7.5 18 9 17.3 9 16.5 8.3 15 7.5 15"/></svg>';

  function current() {
    var answer = document.getElementById("qa-answer");
    return answer ? answer.getAttribute("data-qa-slug") : null;
  }

  function go() {
    S.data().then(
      function (d) {
        var here = current();
        var pool = d.questions.filter(function (q) {
          return q.slug !== here;
        });
        if (!pool.length) pool = d.questions;
        if (!pool.length) return;
        var pick = pool[Math.floor(Math.random() * pool.length)];
        location.href = S.url(pick.url);
      },
      function () {
        window.alert(t("failed"));
      },
    );
  }

  var header = document.querySelector(".md-header__inner");
  if (header) {
    var button = S.el("button", {
      type: "button",
      class: "md-header__button md-icon qa-random",
      title: t("label") + " (R)",
      "aria-label": t("label"),
      onclick: go,
    });
    button.innerHTML = ICON; // a constant, never data
    var before = header.querySelector('label[for="__search"]') || header.querySelector(".md-header__source");
    header.insertBefore(button, before);
  }
  S.keys.add(["r"], t("label"), go, "site");
  S.random = go;
})();
