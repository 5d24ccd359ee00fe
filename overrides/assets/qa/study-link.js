/* Study mode, moving progress without a server: the progress link (#progress=...), its QR code, and
   merging a link opened on this device after the reader confirms. Loaded on the stats page only. */
(function () {
  "use strict";
  var S = window.QAStudy;
  var host = document.querySelector("[data-qa-progress-link]");
  if (!host || !S.store || !S.store.snapshot) return;
  var el = S.el;
  var store = S.store;
  var PREFIX = "#progress=";
  // "1." names this encoding (deflate-raw + base64url of the snapshot's JSON), so a later one can differ.
  var ENCODING = "1.";
  // A QR code holds at most 2,953 bytes (version 40, byte mode, error correction L); phones read
  // codes that dense from a screen poorly, so the dialog says so above this many characters.
  var QR_MAX = 2953;
  var QR_EASY = 1200;
  var MAX_INFLATED = 64 * 1024 * 1024; // a link that inflates beyond this is refused, not held in memory
  var t = S.strings("study-link");

  var status = el("p", { class: "qa-move__status", role: "status" });
  var output = el("div", { class: "qa-move__output", hidden: true });
  var supported = typeof CompressionStream === "function" && typeof DecompressionStream === "function";

  host.classList.add("qa-panel");
  host.replaceChildren(
    el("div", { class: "qa-move__actions" }, [
      el("button", {
        type: "button",
        class: "qa-button qa-button--primary",
        "data-qa-action": "make-link",
        text: t("make"),
        disabled: !supported,
        onclick: makeLink,
      }),
    ]),
    output,
    status,
  );
  if (!supported) output.before(el("p", { class: "qa-panel__hint", text: t("unsupported") }));
  // opened as a page, or pasted into the address bar of this page already open (only the # changes)
  window.addEventListener("hashchange", received);
  received();

  function received() {
    if (location.hash.indexOf(PREFIX) === 0 && !document.querySelector("[data-qa-merge]"))
      receive(location.hash.slice(PREFIX.length));
  }

  function makeLink() {
    output.replaceChildren(); // the previous link is gone at once: never copy a stale one
    output.hidden = true;
    var doc = store.snapshot();
    var count = counts(doc);
    if (!count.cards) {
      output.hidden = true;
      status.textContent = t("empty");
      return;
    }
    var json = JSON.stringify(doc);
    encode(json).then(function (code) {
      var link = linkFor(code);
      var box = el("textarea", {
        class: "qa-move__url",
        readonly: true,
        rows: "3",
        "aria-label": t("linkLabel"),
        "data-qa-link": "",
        spellcheck: "false",
      });
      box.value = link;
      output.replaceChildren(
        box,
        el("p", {
          class: "qa-panel__hint",
          "data-qa-link-size": String(link.length),
          text: t("made", { cards: count.cards, reviews: count.reviews, chars: link.length, raw: json.length }),
        }),
        el("div", { class: "qa-move__actions" }, [
          el("button", {
            type: "button",
            class: "qa-button",
            "data-qa-action": "copy-link",
            text: t("copy"),
            onclick: function () {
              copy(box);
            },
          }),
          el("button", {
            type: "button",
            class: "qa-button",
            "data-qa-action": "show-qr",
            text: t("qr"),
            onclick: function () {
              showQr(link);
            },
          }),
          fileButton(),
        ]),
      );
      output.hidden = false;
      status.textContent = "";
    });
  }

  function copy(box) {
    box.focus();
    box.select();
    var done = function () {
      status.textContent = t("copied");
    };
    var failed = function () {
      status.textContent = t("copyFailed");
    };
    if (navigator.clipboard && navigator.clipboard.writeText)
      navigator.clipboard.writeText(box.value).then(done, failed);
    else failed();
  }

  function fileButton() {
    return el("button", {
      type: "button",
      class: "qa-button",
      "data-qa-action": "download-file",
      text: t("file"),
      onclick: downloadFile,
    });
  }

  /** The snapshot as a file, for links too large to scan (the import on the home page reads it). */
  function downloadFile() {
    var doc = Object.assign({}, store.snapshot(), { exported: new Date().toISOString() });
    var name = "qa-progress-" + new Date().toISOString().slice(0, 10) + ".json";
    var blob = new Blob([JSON.stringify(doc, null, 2) + "\n"], { type: "application/json" });
    var link = el("a", { href: URL.createObjectURL(blob), download: name, hidden: true });
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () {
      URL.revokeObjectURL(link.href);
    }, 10000);
  }

  function showQr(link) {
    var body = el("div", { class: "qa-qr__code", "data-qa-qr": "" });
    var close = el("button", { type: "button", class: "qa-button", text: t("close") });
    var box = el("dialog", { class: "qa-help qa-qr", "aria-labelledby": "qa-qr-title" }, [
      el("div", { class: "qa-help__inner md-typeset" }, [
        el("h2", { id: "qa-qr-title", text: t("qrTitle") }),
        body,
        close,
      ]),
    ]);
    close.addEventListener("click", function () {
      box.close();
    });
    box.addEventListener("click", function (event) {
      if (event.target === box) box.close();
    });
    box.addEventListener("close", function () {
      box.remove();
    });
    document.body.appendChild(box);
    box.showModal();
    if (new TextEncoder().encode(link).length > QR_MAX) {
      tooBig(body, link);
      return;
    }
    S.load("assets/qa/vendor/qrcode.js").then(drawQr, function () {
      // offline or a flaky network: say so, and offer what needs no script
      body.replaceChildren(el("p", { role: "alert", "data-qa-qr-failed": "", text: t("qrFailed") }), fileButton());
    });

    function drawQr() {
      var code;
      try {
        code = window.qrcode(0, "L");
        code.addData(link, "Byte");
        code.make();
      } catch (e) {
        tooBig(body, link); // "code length overflow": the capacity check above is the library's too
        return;
      }
      var svg = code.createSvgTag({ cellSize: 4, margin: 4, scalable: true, alt: t("qrTitle") });
      var picture = el("div", { class: "qa-qr__svg", "data-qa-qr-modules": String(code.getModuleCount()) });
      // the library's own markup (numbers and paths only; the link is not in it)
      picture.innerHTML = svg;
      body.replaceChildren(picture, el("p", { class: "qa-panel__hint", text: t("qrHint") }));
      if (link.length > QR_EASY)
        body.appendChild(el("p", { class: "qa-panel__hint", "data-qa-qr-dense": "", text: t("qrDense") }));
    }
  }

  function tooBig(body, link) {
    body.replaceChildren(
      el("p", { "data-qa-qr-too-big": "", text: t("qrTooBig", { chars: link.length, max: QR_MAX }) }),
      fileButton(),
    );
  }

  /** A link opened here: decode it, show what it carries, merge it only when the reader says so. */
  function receive(code) {
    if (!supported) {
      status.textContent = t("unsupported");
      return;
    }
    decode(code)
      .then(function (doc) {
        if (!doc || doc.format !== "qa-study-progress" || typeof doc.cards !== "object" || !doc.cards)
          throw new Error("format");
        confirmMerge(doc);
      })
      .catch(function () {
        status.setAttribute("role", "alert");
        status.textContent = t("bad");
      });
  }

  function confirmMerge(doc) {
    if (doc.site && doc.site !== new URL(S.siteRoot).pathname) {
      forgetLink(); // another site's progress: the store would refuse it, so nothing to confirm
      status.setAttribute("role", "alert");
      status.textContent = t("otherSite");
      return;
    }
    var incoming = counts(doc);
    var fresh = news(doc, store.snapshot());
    var mergeButton = el("button", {
      type: "button",
      class: "qa-button qa-button--primary",
      "data-qa-action": "merge-link",
      text: t("merge"),
    });
    var cancelButton = el("button", {
      type: "button",
      class: "qa-button",
      "data-qa-action": "cancel-link",
      text: t("cancel"),
    });
    var box = el("dialog", { class: "qa-help qa-merge", "aria-labelledby": "qa-merge-title", "data-qa-merge": "" }, [
      el("div", { class: "qa-help__inner md-typeset" }, [
        el("h2", { id: "qa-merge-title", text: t("incomingTitle") }),
        el("p", { "data-qa-merge-counts": "", text: t("incoming", incoming) }),
        el("p", { text: fresh.newCards || fresh.newReviews ? t("incomingNew", fresh) : t("incomingSame") }),
        el("p", { class: "qa-panel__hint", text: t("incomingSafe") }),
        el("div", { class: "qa-move__actions" }, [mergeButton, cancelButton]),
      ]),
    ]);
    var answered = false;
    mergeButton.addEventListener("click", function () {
      answered = true;
      box.close();
      apply(doc);
    });
    cancelButton.addEventListener("click", function () {
      box.close();
    });
    box.addEventListener("close", function () {
      box.remove();
      if (!answered) {
        forgetLink();
        status.textContent = t("cancelled");
      }
    });
    document.body.appendChild(box);
    box.showModal();
  }

  function apply(doc) {
    Promise.resolve()
      .then(function () {
        return store.merge(doc);
      })
      .then(
        function (result) {
          forgetLink();
          status.setAttribute("role", "status");
          status.textContent = result.dropped ? t("mergedDropped", result) : t("merged", result);
        },
        function (e) {
          var code = e && e.code;
          if (code === "format" || code === "site") forgetLink(); // trying again would not help
          status.setAttribute("role", "alert");
          // quota/unavailable: the link stays in the address bar, to try again
          status.textContent = t({ quota: "quota", format: "bad", site: "otherSite" }[code] || "unavailable");
        },
      );
  }

  /** Take the progress out of the address bar, so a reload does not offer the same merge again. */
  function forgetLink() {
    history.replaceState(history.state, "", location.pathname + location.search);
  }

  function linkFor(code) {
    return S.url("study/stats/") + PREFIX + ENCODING + code;
  }

  function counts(doc) {
    var out = { cards: 0, reviews: 0, notes: 0, suspended: 0 };
    Object.keys(doc.cards || {}).forEach(function (slug) {
      var card = doc.cards[slug] || {};
      out.cards += 1;
      out.reviews += Array.isArray(card.log) ? card.log.length : 0;
      if (card.note && card.note.text) out.notes += 1;
      if (card.suspended && card.suspended.on) out.suspended += 1;
    });
    return out;
  }

  /** What the link has that this browser does not: cards with no record here, reviews not here. */
  function news(doc, mine) {
    var out = { newCards: 0, newReviews: 0 };
    Object.keys(doc.cards || {}).forEach(function (slug) {
      var here = mine.cards && mine.cards[slug];
      if (!here) out.newCards += 1;
      var seen = {};
      ((here && here.log) || []).forEach(function (r) {
        seen[r.t + ":" + r.g] = true;
      });
      (doc.cards[slug].log || []).forEach(function (r) {
        if (!seen[r.t + ":" + r.g]) out.newReviews += 1;
      });
    });
    return out;
  }

  function encode(text) {
    var stream = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
    return new Response(stream).arrayBuffer().then(function (buffer) {
      return base64url(new Uint8Array(buffer));
    });
  }

  function decode(code) {
    return Promise.resolve().then(function () {
      if (code.indexOf(ENCODING) !== 0) throw new Error("encoding");
      var bytes = unbase64url(code.slice(ENCODING.length));
      var reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw")).getReader();
      var parts = [];
      var size = 0;
      function next() {
        return reader.read().then(function (chunk) {
          if (chunk.done) return new Blob(parts).text().then(JSON.parse);
          size += chunk.value.length;
          if (size > MAX_INFLATED) throw new Error("too large");
          parts.push(chunk.value);
          return next();
        });
      }
      return next();
    });
  }

  function base64url(bytes) {
    var binary = "";
    for (var i = 0; i < bytes.length; i += 0x8000) {
      binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function unbase64url(text) {
    if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("not base64url");
    var binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  S.link = { encode: encode, decode: decode, linkFor: linkFor };
})();
