/* Study mode, moving progress between devices: export it to a JSON file, merge one in, reset. */
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
      about:
        "复习记录、笔记和暂停的题只保存在这个浏览器里。导出为 JSON 文件，就能在另一台设备或浏览器上导入：" +
        "导入会合并两边的记录（每道题的复习记录取并集，笔记以较新的为准），不会覆盖。",
      export: "导出进度",
      import: "导入进度…",
      reset: "重置进度…",
      exported: "已导出 {n} 道题的记录：{file}",
      imported: "已合并 {kept} 道题的记录（新增 {reviews} 次复习），已写入并核对。",
      dropped: "另有 {n} 条未导入：{why}。",
      whyUnknown: "{n} 道题本站没有",
      whySlug: "{n} 个题目标识无效",
      whyRecord: "{n} 条记录格式不对",
      bad: "“{file}”不是本站导出的进度文件，没有导入任何内容。",
      site: "“{file}”来自另一个网站（{site}），没有导入任何内容。",
      quota: "浏览器的存储空间不够，没有导入任何内容（原有进度保持不变）。",
      unavailable: "这个浏览器不允许本站保存进度，没有导入任何内容。",
      confirm: "确定清除全部 {n} 次复习记录吗？笔记和暂停的题会保留。此操作不能撤销（可以先导出进度备份）。",
      cleared: "已清除全部复习记录。",
      nothing: "还没有任何复习记录。",
    },
    en: {
      title: "Your progress file",
      about:
        "Reviews, notes and suspended questions are kept in this browser only. Export them to a JSON file to import " +
        "on another device or browser: importing merges both sides (every review of both is kept, the newer note " +
        "wins); it never overwrites.",
      export: "Export progress",
      import: "Import progress…",
      reset: "Reset progress…",
      exported: "Exported the progress of {n} questions: {file}",
      imported: "Merged the progress of {kept} questions ({reviews} new reviews), written and checked.",
      dropped: "{n} more were not imported: {why}.",
      whyUnknown: "{n} questions this site does not have",
      whySlug: "{n} malformed question ids",
      whyRecord: "{n} malformed records",
      bad: "“{file}” is not a progress file from this site; nothing was imported.",
      site: "“{file}” comes from another site ({site}); nothing was imported.",
      quota: "This browser's storage is too full: nothing was imported (your progress is unchanged).",
      unavailable: "This browser does not let the site store progress: nothing was imported.",
      confirm:
        "Clear all {n} reviews? Notes and suspended questions stay. This cannot be undone (you can export your " +
        "progress first).",
      cleared: "All reviews cleared.",
      nothing: "There are no reviews yet.",
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
            text += " " + t("dropped", { n: result.dropped, why: why.join(S.lang === "en" ? ", " : "，") });
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
