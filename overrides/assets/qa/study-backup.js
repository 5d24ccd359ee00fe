/* Study mode, moving progress between devices: export it to a JSON file, merge one in, reset. */
(function () {
  "use strict";
  var S = window.QAStudy;
  var host = document.querySelector("[data-qa-backup]");
  if (!host) return;
  var el = S.el;
  var store = S.store;
  var t = S.strings("study-backup");

  var status = el("p", { class: "qa-backup__status", role: "status" });
  var picker = el("input", {
    type: "file",
    accept: ".json,application/json",
    class: "qa-backup__file",
    hidden: true,
    onchange: function () {
      var file = picker.files && picker.files[0];
      picker.value = "";
      if (file) importFile(file);
    },
  });

  function exportFile() {
    var name = store.download();
    status.textContent = t("exported", { n: store.slugs().length, file: name });
  }

  function importFile(file) {
    file
      .text()
      .then(function (text) {
        return store.importText(text);
      })
      .then(
        function (result) {
          var text = t("imported", result);
          if (result.dropped) {
            var why = [];
            if (result.reasons.unknown) why.push(t("whyUnknown", { n: result.reasons.unknown }));
            if (result.reasons.slug) why.push(t("whySlug", { n: result.reasons.slug }));
            if (result.reasons.record) why.push(t("whyRecord", { n: result.reasons.record }));
            text += " " + t("dropped", { n: result.dropped, why: why.join(t("listSep")) });
          }
          status.textContent = text;
        },
        function (e) {
          var code = (e && e.code) || "format";
          if (code === "site") status.textContent = t("site", { file: file.name, site: e.site });
          else if (code === "quota" || code === "unavailable") status.textContent = t(code);
          else status.textContent = t("bad", { file: file.name });
        },
      );
  }

  function reset() {
    var n = store.count();
    if (!n) {
      status.textContent = t("nothing");
      return;
    }
    if (!window.confirm(t("confirm", { n: n }))) return;
    try {
      store.resetAll();
      status.textContent = t("cleared");
    } catch (e) {
      status.textContent = t(e.code === "quota" ? "quota" : "unavailable");
    }
  }

  host.classList.add("qa-panel");
  host.replaceChildren(
    el("div", { class: "qa-panel__title", text: t("title") }),
    el("p", { class: "qa-panel__hint", text: t("about") }),
    el("div", { class: "qa-backup__actions" }, [
      el("button", {
        type: "button",
        class: "qa-button",
        "data-qa-action": "export",
        text: t("export"),
        onclick: exportFile,
      }),
      el("button", {
        type: "button",
        class: "qa-button",
        "data-qa-action": "import",
        text: t("import"),
        onclick: function () {
          picker.click();
        },
      }),
      el("button", {
        type: "button",
        class: "qa-button qa-button--danger",
        "data-qa-action": "reset",
        text: t("reset"),
        onclick: reset,
      }),
      picker,
    ]),
    status,
  );
})();
