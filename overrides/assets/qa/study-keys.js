/* Study mode, the keyboard: shortcuts the study widgets register, and the help overlay opened with `?`. */
(function () {
  "use strict";
  var S = window.QAStudy;
  var t = S.strings("study-keys");
  // Material's own keys (search: f, s, /; pages: n, p, comma, period) stay Material's.
  var THEIRS = { f: 1, s: 1, "/": 1, n: 1, p: 1, ",": 1, ".": 1 };
  var bindings = [];
  var dialog = null;

  /** Bind keys (["a"]) to run(event); label says what it does; group "page" or "site". */
  function add(keys, label, run, group) {
    keys = [].concat(keys);
    keys.forEach(function (key) {
      if (THEIRS[key]) throw new Error("study-keys: `" + key + "` belongs to Material");
      bindings = bindings.filter(function (b) {
        return b.keys.indexOf(key) < 0;
      });
    });
    bindings.push({ keys: keys, label: label, run: run, group: group || "page" });
  }

  function typing(target) {
    if (!target || !target.tagName) return false;
    if (target.isContentEditable) return true;
    var tag = target.tagName;
    if (tag === "TEXTAREA" || tag === "SELECT") return true;
    return tag === "INPUT" && !/^(checkbox|radio|button|submit|reset|range|color|file)$/i.test(target.type);
  }

  function searchOpen() {
    var toggle = document.getElementById("__search");
    return !!(toggle && toggle.checked);
  }

  function normal(key) {
    return key.length === 1 ? key.toLowerCase() : key;
  }

  function label(key) {
    return key.length === 1 ? key.toUpperCase() : key;
  }

  function onKey(event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.isComposing || event.keyCode === 229) return; // an IME is composing (Chinese input)
    if (typing(event.target) || searchOpen()) return;
    var key = normal(event.key || "");
    if (key === "?") {
      event.preventDefault();
      toggleHelp();
      return;
    }
    if (dialog && dialog.open) return; // the overlay has the keyboard: Esc closes it
    for (var i = bindings.length - 1; i >= 0; i--) {
      if (bindings[i].keys.indexOf(key) >= 0) {
        event.preventDefault();
        bindings[i].run(event);
        return;
      }
    }
  }

  function row(keys, text) {
    var keysCell = S.el("dt", {}, []);
    keys.forEach(function (key, i) {
      if (i) keysCell.appendChild(document.createTextNode(" " + t("or") + " "));
      keysCell.appendChild(S.el("kbd", { text: label(key) }));
    });
    return [keysCell, S.el("dd", { text: text })];
  }

  function section(title, rows) {
    var list = S.el("dl", { class: "qa-help__list" });
    rows.forEach(function (r) {
      r.forEach(function (node) {
        list.appendChild(node);
      });
    });
    return S.el("section", {}, [S.el("h3", { text: title }), list]);
  }

  function build() {
    var groups = { page: [], site: [] };
    bindings.forEach(function (b) {
      groups[b.group].push(row(b.keys, b.label));
    });
    groups.site.push(row(["?"], t("help")));
    var close = S.el("button", { type: "button", class: "qa-button qa-help__close", text: t("close") });
    var box = S.el("dialog", { class: "qa-help", "aria-labelledby": "qa-help-title" }, [
      S.el("div", { class: "qa-help__inner md-typeset" }, [
        S.el("h2", { id: "qa-help-title", text: t("title") }),
        groups.page.length ? section(t("page"), groups.page) : null,
        section(t("site"), groups.site),
        // P / N follow <link rel=prev|next> (reader.js adds them on question pages): listed only where they work
        section(
          t("theme"),
          [row(["f", "s", "/"], t("search"))].concat(
            !document.querySelector("link[rel=prev], link[rel=next]")
              ? []
              : [row(["p", "n"], t(document.querySelector(".qa-pager") ? "questions" : "pages"))],
          ),
        ),
        S.el("p", { class: "qa-help__note", text: t("note") }),
        close,
      ]),
    ]);
    close.addEventListener("click", function () {
      box.close();
    });
    box.addEventListener("click", function (event) {
      if (event.target === box) box.close(); // a click on the backdrop
    });
    box.addEventListener("close", function () {
      box.remove();
      dialog = null;
    });
    return box;
  }

  /** Open the help overlay (or close it when open). */
  function toggleHelp() {
    if (dialog && dialog.open) {
      dialog.close();
      return;
    }
    dialog = build();
    document.body.appendChild(dialog);
    dialog.showModal();
  }

  document.addEventListener("keydown", onKey);
  S.keys = { add: add, help: toggleHelp, label: label };
})();
