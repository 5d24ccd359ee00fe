/* Study mode, moving progress between devices: export the marks to a JSON file, import one, reset. */
(function () {
  "use strict";
  var S = window.QAStudy;
  var host = document.querySelector("[data-qa-backup]");
  if (!host) return;
  var el = S.el;
  var store = S.store;
  var t = S.strings({
    zh: {
      title: "进度文件",
      about: "标记只保存在这个浏览器里。导出为 JSON 文件，就能在另一台设备或浏览器上导入（同一道题以较新的标记为准）。",
      export: "导出进度",
      import: "导入进度…",
      reset: "重置进度…",
      exported: "已导出 {n} 条标记：{file}",
      imported: "已导入 {n} 条标记。",
      importedKept: "已导入 {n} 条标记；另有 {k} 条本机的标记更新，予以保留。",
      bad: "“{file}”不是本站导出的进度文件，没有导入任何内容。",
      confirm: "确定清除全部 {n} 条标记吗？此操作不能撤销（可以先导出进度备份）。",
      cleared: "已清除全部标记。",
      nothing: "还没有任何标记。",
    },
    en: {
      title: "Your progress file",
      about:
        "Marks are kept in this browser only. Export them to a JSON file to import on another device or browser " +
        "(for each question the newer mark wins).",
      export: "Export progress",
      import: "Import progress…",
      reset: "Reset progress…",
      exported: "Exported {n} marks: {file}",
      imported: "Imported {n} marks.",
      importedKept: "Imported {n} marks; {k} newer marks in this browser were kept.",
      bad: "“{file}” is not a progress file from this site; nothing was imported.",
      confirm: "Clear all {n} marks? This cannot be undone (you can export your progress first).",
      cleared: "All marks cleared.",
      nothing: "There are no marks yet.",
    },
  });

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
    var name = "qa-progress-" + new Date().toISOString().slice(0, 10) + ".json";
    var blob = new Blob([store.exportText()], { type: "application/json" });
    var link = el("a", { href: URL.createObjectURL(blob), download: name, hidden: true });
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () {
      URL.revokeObjectURL(link.href);
    }, 10000);
    status.textContent = t("exported", { n: store.count(), file: name });
  }

  function importFile(file) {
    file.text().then(function (text) {
      try {
        var result = store.importText(text);
        status.textContent = result.kept
          ? t("importedKept", { n: result.applied, k: result.kept })
          : t("imported", { n: result.applied });
      } catch (e) {
        status.textContent = t("bad", { file: file.name });
      }
    });
  }

  function reset() {
    var n = store.count();
    if (!n) {
      status.textContent = t("nothing");
      return;
    }
    if (!window.confirm(t("confirm", { n: n }))) return;
    store.reset();
    status.textContent = t("cleared");
  }

  host.classList.add("qa-panel");
  host.replaceChildren(
    el("div", { class: "qa-panel__title", text: t("title") }),
    el("p", { class: "qa-panel__hint", text: t("about") }),
    el("div", { class: "qa-backup__actions" }, [
      el("button", { type: "button", class: "qa-button", "data-qa-action": "export", text: t("export"), onclick: exportFile }),
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
    status
  );
})();
