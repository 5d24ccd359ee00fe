/* Study mode, opt-in sync through the reader's own GitHub repository (the contents API): read the
   file, merge it into this browser's progress, write the merge back with the file's sha, and on a
   conflicting write (another device wrote in between) read, merge and write again. Loaded on the
   stats page (its settings) and, once the reader turned sync on, on every page (main.html). */
(function () {
  "use strict";
  var S = window.QAStudy;
  if (!S || !S.store || !S.store.snapshot) return;
  var el = S.el;
  var store = S.store;
  var SITE = "qa-study@" + new URL(S.siteRoot).pathname;
  var SETTINGS_KEY = SITE + ":sync";
  // The token has a key of its own: nothing that exports, links or syncs progress reads it.
  var TOKEN_KEY = SITE + ":sync-token";
  // Tests point sync at a stand-in of the API on 127.0.0.1; readers never set this.
  var API_KEY = SITE + ":sync-api";
  var API = "https://api.github.com";
  var ATTEMPTS = 4; // one write plus three retries after conflicting writes
  var QUIET = 3000; // ms without changes before progress made on a page is synced
  var DEFAULT_PATH = "qa-study-progress.json";
  var t = S.strings("study-sync");

  var running = null; // the sync in progress (one at a time)
  var again = false; // progress changed while a sync ran: sync once more after it
  var merging = false; // our own store.merge: its change event is not the reader's
  var timer = null;
  var panel = document.querySelector("[data-qa-sync]");
  var view = panel ? settingsView(panel) : null;

  var watching = false;
  if (settings().on) {
    watch();
    // after the page has loaded: a sync is never part of a page load
    if (document.readyState === "complete") setTimeout(sync);
    else
      window.addEventListener("load", function () {
        setTimeout(sync);
      });
  }

  /** While sync is on: progress made on this page is synced once the reader pauses, and when back online. */
  function watch() {
    if (watching) return;
    watching = true;
    store.onChange(function () {
      if (merging || !settings().on) return;
      clearTimeout(timer);
      timer = setTimeout(sync, QUIET);
    });
    window.addEventListener("online", function () {
      sync();
    });
  }

  /** One sync: read, merge, write; retried on a conflicting write. Resolves to a result, never rejects. */
  function sync() {
    if (running) {
      again = true;
      return running;
    }
    var config = settings();
    var token = read(TOKEN_KEY);
    if (!config.on || !token) return Promise.resolve(null);
    if (view) view.busy();
    running = attempt(config, token, 1)
      .then(
        function (result) {
          save(Object.assign(settings(), { last: Date.now(), error: null }));
          return result;
        },
        function (error) {
          var failure = { code: error.code || "network", status: error.status || 0, n: ATTEMPTS, t: Date.now() };
          save(Object.assign(settings(), { error: failure }));
          return { error: failure };
        },
      )
      .then(function (result) {
        running = null;
        if (view) view.show(result);
        else if (result && result.error) toast(result.error);
        if (again) {
          again = false;
          sync();
        }
        return result;
      });
    return running;
  }

  function attempt(config, token, n) {
    return getFile(config, token).then(function (remote) {
      merging = true;
      // this browser gets the other devices' progress first
      return Promise.resolve(remote.doc && store.merge(remote.doc)).then(
        function () {
          merging = false;
          return upload(remote);
        },
        function (e) {
          merging = false;
          var code = e && e.code;
          throw failure(code === "site" || code === "format" ? "foreign" : code === "quota" ? "quota" : "unavailable");
        },
      );
    });

    function upload(remote) {
      var merged = remote.doc ? store.mergeDocs(remote.doc, store.snapshot()) : store.snapshot();
      var cards = Object.keys(merged.cards || {}).length;
      if (remote.doc && canonical(merged) === canonical(remote.doc)) return { cards: cards, wrote: false };
      return putFile(config, token, merged, remote.sha).then(
        function () {
          return { cards: cards, wrote: true };
        },
        function (error) {
          // 409: the file changed since we read it; 422: it appeared since we found none
          if ((error.status === 409 || error.status === 422) && n < ATTEMPTS) return attempt(config, token, n + 1);
          if (error.status === 409 || error.status === 422) throw failure("conflict");
          throw error;
        },
      );
    }
  }

  function getFile(config, token) {
    var query = config.branch ? "?ref=" + encodeURIComponent(config.branch) : "";
    return request("GET", contentsUrl(config) + query, token).then(function (response) {
      if (response.status === 404) return { doc: null, sha: null };
      return response.json().then(function (body) {
        // above 1 MB the API sends no content (encoding "none"); the raw media type still returns it
        var text =
          body.encoding === "none" || (!body.content && body.size > 0)
            ? request("GET", contentsUrl(config) + query, token, null, "application/vnd.github.raw+json").then(
                function (raw) {
                  return raw.text();
                },
              )
            : Promise.resolve(fromBase64(String(body.content || "")));
        return text.then(function (content) {
          var doc = parsed(content);
          if (!doc || doc.format !== "qa-study-progress" || typeof doc.cards !== "object") throw failure("foreign");
          return { doc: doc, sha: body.sha };
        });
      });
    });
  }

  function putFile(config, token, doc, sha) {
    var body = {
      message: "Study progress: " + Object.keys(doc.cards || {}).length + " cards (" + location.host + ")",
      content: toBase64(JSON.stringify(doc) + "\n"),
    };
    if (sha) body.sha = sha;
    if (config.branch) body.branch = config.branch;
    return request("PUT", contentsUrl(config), token, body);
  }

  /** fetch with GitHub's headers; resolves to the response on 2xx and on a GET's 404, rejects otherwise. */
  function request(method, url, token, body, accept) {
    var options = {
      method: method,
      // GitHub allows caching contents for 60 s: a cached read would hand back a stale sha
      cache: "no-store",
      credentials: "omit",
      referrerPolicy: "no-referrer",
      headers: {
        Accept: accept || "application/vnd.github+json",
        Authorization: "Bearer " + token,
        "X-GitHub-Api-Version": "2022-11-28",
      },
    };
    if (body) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    return fetch(url, options).then(
      function (response) {
        if (response.ok || (method === "GET" && response.status === 404)) return response;
        var code = { 401: "e401", 403: "e403", 404: "e404" }[response.status] || "http";
        throw failure(code, response.status);
      },
      function () {
        throw failure("network");
      },
    );
  }

  function contentsUrl(config) {
    var base = (read(API_KEY) || API).replace(/\/+$/, "");
    var path = config.path.split("/").map(encodeURIComponent).join("/");
    return (
      base + "/repos/" + encodeURIComponent(config.owner) + "/" + encodeURIComponent(config.repo) + "/contents/" + path
    );
  }

  /** The settings panel on the stats page: a form while off, the state and two buttons while on. */
  function settingsView(host) {
    var status = el("p", { class: "qa-sync__status", role: "status", "aria-live": "polite" });
    var alert = el("p", { class: "qa-sync__error", role: "alert" });
    var body = el("div", { class: "qa-sync__body" });
    host.classList.add("qa-panel");
    host.replaceChildren(body, status, alert);
    render();

    function render() {
      var config = settings();
      alert.textContent = config.error ? message(config.error) : "";
      if (config.on && read(TOKEN_KEY)) body.replaceChildren.apply(body, onView(config));
      else body.replaceChildren(form());
    }

    function onView(config) {
      return [
        el("p", {
          "data-qa-sync-state": "on",
          text: t("on", { repo: config.owner + "/" + config.repo, path: config.path }),
        }),
        el("p", {
          class: "qa-panel__hint",
          text: config.last ? t("last", { time: new Date(config.last).toLocaleString(S.locale) }) : t("never"),
        }),
        el("div", { class: "qa-move__actions" }, [
          el("button", {
            type: "button",
            class: "qa-button qa-button--primary",
            "data-qa-action": "sync-now",
            text: t("now"),
            onclick: sync,
          }),
          el("button", {
            type: "button",
            class: "qa-button qa-button--danger",
            "data-qa-action": "sync-off",
            text: t("turnOff"),
            onclick: turnOff,
          }),
        ]),
      ];
    }

    function form() {
      var repo = field("repo", "text", t("repo"), "", "octocat/study");
      var path = field("path", "text", t("path"), DEFAULT_PATH, "");
      var branch = field("branch", "text", t("branch"), "", "main");
      var token = field("token", "password", t("token"), "", "github_pat_…");
      var node = el("form", { class: "qa-sync__form", "data-qa-sync-state": "off", novalidate: true }, [
        repo.row,
        path.row,
        branch.row,
        token.row,
        el("p", { class: "qa-panel__hint", id: "qa-sync-token-help", text: t("tokenHelp") }),
        el("button", {
          type: "submit",
          class: "qa-button qa-button--primary",
          "data-qa-action": "sync-on",
          text: t("turnOn"),
        }),
      ]);
      token.input.setAttribute("aria-describedby", "qa-sync-token-help");
      token.input.setAttribute("autocomplete", "off");
      node.addEventListener("submit", function (event) {
        event.preventDefault();
        var name = repo.input.value
          .trim()
          .replace(/^https:\/\/github\.com\//, "")
          .replace(/\.git$|\/$/g, "");
        var parts = name.split("/");
        var file = path.input.value.trim().replace(/^\/+/, "");
        var problem = !/^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/.test(name)
          ? [repo.input, "badRepo"]
          : !file || /(^|\/)\.\.?(\/|$)/.test(file)
            ? [path.input, "badPath"]
            : !token.input.value.trim()
              ? [token.input, "badToken"]
              : null;
        if (problem) {
          alert.textContent = t(problem[1]);
          problem[0].focus();
          return;
        }
        if (!write(TOKEN_KEY, token.input.value.trim())) {
          alert.textContent = t("unavailable");
          return;
        }
        save({
          on: true,
          owner: parts[0],
          repo: parts[1],
          path: file,
          branch: branch.input.value.trim(),
          last: 0,
          error: null,
        });
        alert.textContent = "";
        render();
        watch();
        sync();
      });
      return node;
    }

    function field(name, type, label, value, placeholder) {
      var id = "qa-sync-" + name;
      var input = el("input", {
        id: id,
        name: name,
        type: type,
        class: "qa-sync__input",
        placeholder: placeholder || null,
        spellcheck: "false",
        autocapitalize: "off",
      });
      input.value = value;
      return {
        input: input,
        row: el("p", { class: "qa-sync__field" }, [el("label", { for: id, text: label }), input]),
      };
    }

    function turnOff() {
      clearTimeout(timer);
      write(TOKEN_KEY, null);
      write(SETTINGS_KEY, null);
      render();
      status.textContent = t("off");
    }

    return {
      busy: function () {
        status.textContent = t("syncing");
      },
      show: function (result) {
        render();
        status.textContent = !result || result.error ? "" : result.wrote ? t("done", result) : t("unchanged");
      },
    };
  }

  /** A failed background sync on any other page: said once, with the way to the settings. */
  function toast(error) {
    var old = document.querySelector(".qa-sync-toast");
    if (old) old.remove();
    var box = el("div", { class: "qa-sync-toast", role: "alert" }, [
      el("span", { text: t("toast", { message: message(error) }) + " " }),
      el("a", { href: S.url("study/stats/") + "#sync", text: t("toastLink") }),
      el("button", {
        type: "button",
        class: "qa-button",
        text: t("dismiss"),
        onclick: function () {
          box.remove();
        },
      }),
    ]);
    document.body.appendChild(box);
  }

  function message(error) {
    var config = settings();
    return t(error.code, {
      status: error.status,
      n: error.n || ATTEMPTS,
      repo: (config.owner || "") + "/" + (config.repo || ""),
      path: config.path || "",
    });
  }

  function failure(code, status) {
    var error = new Error(code);
    error.code = code;
    error.status = status || 0;
    return error;
  }

  function settings() {
    try {
      var value = JSON.parse(read(SETTINGS_KEY) || "null");
      return value && typeof value === "object" ? value : {};
    } catch (e) {
      return {};
    }
  }

  function save(value) {
    write(SETTINGS_KEY, JSON.stringify(value));
  }

  function read(key) {
    try {
      return window.localStorage.getItem(key);
    } catch (e) {
      return null;
    }
  }

  function write(key, value) {
    try {
      if (value === null) window.localStorage.removeItem(key);
      else window.localStorage.setItem(key, value);
      return true;
    } catch (e) {
      return false;
    }
  }

  /** JSON with sorted keys, so two equal documents compare equal whatever order their keys came in. */
  function canonical(value) {
    if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
    if (value && typeof value === "object") {
      return (
        "{" +
        Object.keys(value)
          .sort()
          .filter(function (k) {
            return value[k] !== undefined;
          })
          .map(function (k) {
            return JSON.stringify(k) + ":" + canonical(value[k]);
          })
          .join(",") +
        "}"
      );
    }
    return JSON.stringify(value);
  }

  function toBase64(text) {
    var bytes = new TextEncoder().encode(text);
    var binary = "";
    for (var i = 0; i < bytes.length; i += 0x8000)
      binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(binary);
  }

  /** The file's text from the API's base64 (wrapped at 60 characters); "" when it is not base64. */
  function fromBase64(text) {
    var binary;
    try {
      binary = atob(text.replace(/\s+/g, ""));
    } catch (e) {
      return "";
    }
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return new TextDecoder().decode(bytes);
  }

  function parsed(text) {
    try {
      return JSON.parse(text);
    } catch (e) {
      return null;
    }
  }

  S.sync = { sync: sync, settings: settings };
})();
