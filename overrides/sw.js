/* Offline reading on the reader's terms: keep what the reader opened, and what the reader asked for.
 *
 * studysite/site/offline.py writes the served copy at the site root (one worker for every language) with
 * VERSION, a hash of every file of the build, baked in: each deploy with a change gives new bytes here,
 * which is what makes the browser install the new worker. Everything it stores is checked against the
 * build's manifest (SHA-256 of every file), so a cache only ever holds the bytes of its own build, and
 * a page served from it only ever gets files of that build. Nothing is downloaded in the background.
 *
 *   install   fetch offline-manifest.json (must be this VERSION); from the previous version's cache,
 *             copy every file this build did not change; the scopes the reader downloaded (CHOSEN)
 *             are completed from the network (the reader chose them), nothing else is. Any failure:
 *             nothing activates. Downloads pause while the reader searches (search.js; QUIET_MS).
 *   activate  delete every other version's cache, take control of open pages.
 *   fetch     cache first; a miss goes to the network and is kept if its bytes are this build's (what
 *             the reader opens, unless Save-Data); offline, a page never saved gets a short notice.
 *   message   from overrides/assets/qa/offline.js: "activate" (a page found this worker waiting: Chromium
 *             can leave it so despite skipWaiting), "keep" (what pages loaded before this worker ran,
 *             read from the HTTP cache only: never fetched again), "status", "download" a scope
 *             (with progress), "cancel", "remove", "busy" (search.js).
 */
"use strict";

const VERSION = "__QA_OFFLINE_VERSION__";
const TEXT = __QA_OFFLINE_TEXT__;
const PREFIX = "qa-offline-";
const CACHE = PREFIX + VERSION;
const MANIFEST = "offline-manifest.json";
const PARALLEL = 4;
/* While the reader searches, the page says so (search.js posts {qa: "busy"} with each query) and
   a download starts no new file until QUIET_MS after the last one: the search's own requests then
   have the connection and the CPU to themselves. */
const QUIET_MS = 3000;
const ROOT = new URL("./", self.location.href).href;
/* In each version's cache, beside the site's files: what the reader chose, and the Save-Data flag. */
const CHOSEN = ROOT + "__qa-offline/chosen.json";

let manifestOfCache = null;
let storedList = null;
let busyUntil = 0;
let running = null; // the download under way: {scope, done, total, abort}

self.addEventListener("message", (event) => {
  const m = event.data || {};
  if (m.qa === "busy") busyUntil = Date.now() + QUIET_MS;
  // a page found this worker waiting: Chromium can leave it so despite skipWaiting (offline.js)
  else if (m.qa === "activate") self.skipWaiting();
  else if (m.qa === "cancel" && running) running.abort.abort();
  else event.waitUntil(answer(m, event.source).catch(() => {}));
});

async function answer(m, source) {
  // Every page says whether Save-Data is on: from then on, what it browses is kept or not.
  if (typeof m.saveData === "boolean" && (await chosen()).saveData !== m.saveData)
    await choose({ saveData: m.saveData });
  if (m.qa === "keep") await keepLoaded(m.urls || []);
  else if (m.qa === "status") source.postMessage(await status(m.scopes || []));
  else if (m.qa === "download") await download(m.scope, m.scopes || [m.scope]);
  else if (m.qa === "remove") await remove(m.scope, m.scopes || [m.scope]);
}

self.addEventListener("install", (event) => {
  event.waitUntil(install().then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      const names = await caches.keys();
      await Promise.all(names.filter((n) => n.startsWith(PREFIX) && n !== CACHE).map((n) => caches.delete(n)));
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const path = sitePath(request.url);
  if (path === null || path === "sw.js" || path === MANIFEST || path.startsWith("downloads/")) return;
  event.respondWith(respond(event, request, path));
});

async function respond(event, request, path) {
  // The exact key: every key is stored without its query (sitePath), so a request with one finds its
  // file too. Chromium's `ignoreSearch` compares every entry of the cache (crbug.com/682677): with
  // 3,496 files downloaded (500 questions, one language) a page took 0.29 CPU-s to load against 0.19.
  const hit = await caches.match(ROOT + path, { cacheName: CACHE });
  if (hit) return hit;
  try {
    const response = await fetch(request);
    if (response.ok && !(await chosen()).saveData) {
      event.waitUntil(keepIfThisBuild(path, response.clone()).catch(() => {}));
    }
    return response;
  } catch (error) {
    if (request.mode === "navigate") return (await neverExisted(path)) || notSaved(path);
    throw error;
  }
}

/* Offline, an address this build never had gets the site's own "not found" page (when a download
   stored it), else a short one in its language: not "not saved", as saving it would not help. */
async function neverExisted(path) {
  const files = await manifest();
  if (!files.size || files.has(path) || files.has(path + "/")) return null;
  const page = await caches.match(ROOT + "404.html", { cacheName: CACHE });
  if (!page) return notice(path, "gone", 404);
  return new Response(await page.blob(), { status: 404, headers: { "Content-Type": "text/html; charset=utf-8" } });
}

/* A file fetched on a visit joins this version's cache only if it is this build's file, byte for byte. */
async function keepIfThisBuild(path, response) {
  const entry = (await manifest()).get(path);
  if (!entry || !(await caches.has(CACHE))) return;
  const bytes = await response.arrayBuffer();
  if ((await sha(bytes)) !== entry.hash) return; // a newer deploy: its worker will cache it
  await (await caches.open(CACHE)).put(ROOT + path, stored(bytes, response.headers.get("Content-Type")));
  noteStored(path, true);
}

/* The site paths this version's cache holds: its keys listed once in this worker's life, then kept up
   to date by each put and delete here (`noteStored`). Listing them took ~41 ms for 3,496 files, each
   time the control asked (every home and bank page), and a download asked the cache for each file of
   its scope in turn (~0.7 ms a file) before it fetched the first. */
function storedPaths() {
  if (!storedList) {
    storedList = caches.open(CACHE).then(async (cache) => new Set((await cache.keys()).map((r) => sitePath(r.url))));
    storedList.catch(() => {
      storedList = null; // listed again when next asked
    });
  }
  return storedList;
}

/* After a put (`present`) or a delete of `path` has completed: in the order they completed, also while
   the listing is under way (it may or may not have seen the change; the note settles it). */
function noteStored(path, present) {
  if (storedList) storedList.then((paths) => (present ? paths.add(path) : paths.delete(path))).catch(() => {});
}

async function manifest() {
  if (!manifestOfCache) {
    manifestOfCache = caches.match(ROOT + MANIFEST, { cacheName: CACHE }).then(async (r) => {
      const files = new Map();
      if (r) for (const f of entries(await r.json())) files.set(f.url, f);
      return files;
    });
  }
  return manifestOfCache;
}

/* What the reader chose, as this version's cache holds it: {scopes: [...], saveData} (the pages say
   whether Save-Data is on; the worker's own navigator.connection too, where it has one). */
async function chosen(name = CACHE) {
  const r = await caches.match(CHOSEN, { cacheName: name });
  const c = r ? await r.json() : { scopes: [], saveData: false };
  c.saveData = !!(c.saveData || (self.navigator.connection && self.navigator.connection.saveData));
  return c;
}

let choosing = Promise.resolve();
async function choose(change) {
  // one change at a time: a download's end and a page's Save-Data flag must not overwrite each other
  choosing = choosing.then(async () => {
    const r = await caches.match(CHOSEN, { cacheName: CACHE });
    const c = { ...(r ? await r.json() : { scopes: [], saveData: false }), ...change };
    const cache = await caches.open(CACHE);
    await cache.put(CHOSEN, stored(new TextEncoder().encode(JSON.stringify(c)), "application/json"));
  });
  return choosing;
}

/* A new version: the previous cache's files this build did not change are copied (visited pages and
   downloads alike); the reader's chosen scopes are completed from the network; nothing else. */
async function install() {
  const response = await fetch(ROOT + MANIFEST, { cache: "no-cache" });
  if (!response.ok) throw new Error(`offline: ${MANIFEST}: HTTP ${response.status}`);
  const text = await response.text();
  const wanted = JSON.parse(text);
  if (wanted.version !== VERSION) throw new Error(`offline: ${MANIFEST} is build ${wanted.version}, not ${VERSION}`);
  const files = entries(wanted);
  const byUrl = new Map(files.map((f) => [f.url, f]));
  const cache = await caches.open(CACHE);
  const sources = [CACHE, ...(await caches.keys()).filter((n) => n.startsWith(PREFIX) && n !== CACHE)];
  const scopes = new Set();
  const kept = new Set();
  let saveData = false;
  for (const name of sources.slice(1)) {
    const before = await chosen(name);
    saveData = saveData || before.saveData;
    for (const s of before.scopes) scopes.add(s);
    for (const request of await (await caches.open(name)).keys()) {
      const f = byUrl.get(sitePath(request.url));
      if (f) kept.add(f);
    }
  }
  const must = new Set(files.filter((f) => [...scopes].some((s) => inScope(f, s))));
  const sameBytes = new Map(); // hash -> Promise<[bytes, type]>: identical files (both languages' assets) load once
  const store = async (f) => {
    if (!sameBytes.has(f.hash)) {
      sameBytes.set(
        f.hash,
        reuse(f, sources).then((got) => got || (must.has(f) ? fetchChecked(f) : null)),
      );
    }
    const got = await sameBytes.get(f.hash);
    if (got) {
      await cache.put(ROOT + f.url, stored(got[0], got[1]));
      noteStored(f.url, true);
    }
  };
  await pool([...new Set([...must, ...kept])].map((f) => () => store(f)));
  await choose({ scopes: [...scopes], saveData });
  // Written last: a cache with its manifest is complete.
  await cache.put(ROOT + MANIFEST, stored(new TextEncoder().encode(text), "application/json"));
}

/* Files pages loaded before this worker controlled them (a first visit): read from the browser's
   HTTP cache only ("only-if-cached": never a new request), kept if they are this build's. */
async function keepLoaded(urls) {
  if ((await chosen()).saveData) return;
  const files = await manifest();
  const cache = await caches.open(CACHE);
  for (const url of new Set(urls)) {
    const path = sitePath(url);
    const f = path === null ? null : files.get(path);
    if (!f || (await cache.match(ROOT + path))) continue;
    let r;
    try {
      r = await fetch(ROOT + path, { cache: "only-if-cached", mode: "same-origin" });
    } catch {
      continue; // not in the HTTP cache: it stays unsaved until the reader opens it again
    }
    if (r.ok) await keepIfThisBuild(path, r);
  }
}

/* Is a manifest entry part of a scope? studysite/site/offline.py scope_files is the same rule. */
function inScope(f, scope) {
  const [what, lang, bank] = scope.split(":");
  if (f.kind === "visit") return false;
  if (what === "site") return true;
  if (f.lang !== "" && f.lang !== lang) return false;
  if (what === "lang") return true;
  if (f.kind === "page") return f.lang === lang && f.bank === bank;
  return f.bank === "" || f.bank === bank;
}

/* What the control shows: for each scope, how much of it is stored; what the cache holds in all;
   the download under way. */
async function status(scopes) {
  const files = await manifest();
  const have = await storedPaths();
  let n = 0;
  let bytes = 0;
  for (const p of have) {
    const f = files.get(p);
    if (f) {
      n++;
      bytes += f.size;
    }
  }
  const out = { qa: "status", files: n, bytes, scopes: {}, chosen: (await chosen()).scopes };
  for (const s of scopes) {
    const all = [...files.values()].filter((f) => inScope(f, s));
    const got = all.filter((f) => have.has(f.url));
    out.scopes[s] = { files: all.length, stored: got.length, bytes: got.reduce((a, f) => a + f.size, 0) };
  }
  out.running = running && { scope: running.scope, done: running.done, total: running.total };
  return out;
}

/* The reader's download of a scope: every file not yet stored, with progress to every open page.
   Failures (quota, network, a deploy under way) and Cancel keep what was stored. */
async function download(scope, scopes) {
  if (running) return;
  const files = [...(await manifest()).values()].filter((f) => inScope(f, scope));
  const cache = await caches.open(CACHE);
  const have = await storedPaths();
  const missing = files.filter((f) => !have.has(f.url));
  const job = { scope, done: 0, total: files.reduce((a, f) => a + f.gz, 0), abort: new AbortController() };
  job.done = job.total - missing.reduce((a, f) => a + f.gz, 0);
  running = job;
  let outcome = "done";
  try {
    await tell({ qa: "progress", scope, done: job.done, total: job.total });
    await pool(
      missing.map((f) => async () => {
        if (job.abort.signal.aborted) return;
        const [bytes, type] = await fetchChecked(f, job.abort.signal);
        await cache.put(ROOT + f.url, stored(bytes, type));
        noteStored(f.url, true);
        job.done += f.gz;
        await tell({ qa: "progress", scope, done: job.done, total: job.total });
      }),
    );
    if (job.abort.signal.aborted) outcome = "cancelled";
    else {
      const c = await chosen();
      if (!c.scopes.includes(scope)) await choose({ scopes: [...c.scopes, scope] });
    }
  } catch (error) {
    outcome = job.abort.signal.aborted
      ? "cancelled"
      : error && error.name === "QuotaExceededError"
        ? "failed.quota"
        : error instanceof TypeError
          ? "failed.network"
          : "failed.other";
    job.abort.abort(); // the other downloads under way stop too
  }
  running = null;
  // The new state first, then what happened: a page shows the outcome only when its buttons already
  // offer what comes next (a reader who reads "Removed." finds Download, not Remove).
  await tell(await status(scopes));
  await tell({ qa: "finished", scope, outcome });
}

/* Remove a scope: its files leave the cache, except those another chosen scope still holds. */
async function remove(scope, scopes) {
  const c = await chosen();
  const others = c.scopes.filter((s) => s !== scope);
  const cache = await caches.open(CACHE);
  for (const f of (await manifest()).values()) {
    if (inScope(f, scope) && !others.some((s) => inScope(f, s))) {
      await cache.delete(ROOT + f.url);
      noteStored(f.url, false);
    }
  }
  await choose({ scopes: others });
  await tell(await status(scopes)); // before the outcome, as after a download
  await tell({ qa: "finished", scope, outcome: "removed" });
}

async function tell(message) {
  for (const c of await self.clients.matchAll({ type: "window", includeUncontrolled: true })) c.postMessage(message);
}

/* The language whose folder holds a path: the longest matching root. */
function languageOf(path, languages) {
  let best = languages[0];
  for (const l of languages) if (path.startsWith(l.root) && l.root.length > best.root.length) best = l;
  return best;
}

async function reuse(f, sources) {
  for (const name of sources) {
    const r = await caches.match(ROOT + f.url, { cacheName: name });
    if (!r) continue;
    const bytes = await r.arrayBuffer();
    if ((await sha(bytes)) === f.hash) return [bytes, r.headers.get("Content-Type")];
  }
  return null;
}

async function fetchChecked(f, signal) {
  const r = await fetch(ROOT + f.url, { cache: "no-cache", signal });
  if (!r.ok) throw new Error(`offline: ${f.url}: HTTP ${r.status}`);
  const bytes = await r.arrayBuffer();
  if ((await sha(bytes)) !== f.hash) throw new Error(`offline: ${f.url} is not the file of build ${VERSION}`);
  return [bytes, r.headers.get("Content-Type")];
}

function notSaved(path) {
  return notice(path, "missing", 503);
}

/* A page of its own for an address the worker cannot answer offline: TEXT's strings under `key`. */
function notice(path, key, code) {
  const lang = languageOf(path, TEXT.languages);
  const t = TEXT.strings[lang.lang][key];
  const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");
  const html =
    `<!doctype html><html lang="${esc(lang.lang)}"><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(t.title)}</title>` +
    // Dark as the site is: the reader's choice on the site (Material keeps it under the site root), else the system's.
    `<style>:root{color-scheme:light dark}.dark{color-scheme:dark;background:#1e2129;color:#e2e4e9}` +
    `.light{color-scheme:light;background:#fff;color:#000}.dark a{color:#a4b2ff}` +
    `@media (prefers-color-scheme:dark){:root:not(.light){background:#1e2129;color:#e2e4e9}` +
    `:root:not(.light) a{color:#a4b2ff}}</style>` +
    `<script>try{var p=JSON.parse(localStorage.getItem(${JSON.stringify(new URL(ROOT).pathname + ".__palette")}));` +
    `var s=p&&p.color&&p.color.media!=="(prefers-color-scheme)"&&p.color.scheme;` +
    `if(s)document.documentElement.className=s==="slate"?"dark":"light"}catch(e){}</script>` +
    `<body style="font:1rem/1.6 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem">` +
    `<h1 style="font-size:1.4rem">${esc(t.title)}</h1><p>${esc(t.body)}</p>` +
    `<p><a href="${esc(ROOT + lang.root)}">${esc(t.home)}</a></p></body></html>`;
  return new Response(html, { status: code, headers: { "Content-Type": "text/html; charset=utf-8" } });
}

/* The path below the site root that a URL names ("" for the home page, "foo/" for foo/index.html). */
function sitePath(url) {
  const u = new URL(url);
  u.search = "";
  u.hash = "";
  if (!u.href.startsWith(ROOT)) return null;
  const path = u.href.slice(ROOT.length);
  return path === "index.html" || path.endsWith("/index.html") ? path.slice(0, -"index.html".length) : path;
}

function entries(m) {
  return m.files.map(([url, size, hash, kind, lang, gz, bank]) => ({ url, size, hash, kind, lang, gz, bank }));
}

function stored(bytes, type) {
  return new Response(bytes, { headers: { "Content-Type": type || "application/octet-stream" } });
}

async function sha(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0"))
    .join("")
    .slice(0, 16);
}

/* Runs `tasks`, PARALLEL at a time. After a failure no task starts, and the first error is thrown once
   every task under way has ended: what comes after (the outcome the pages are told, the status) then
   sees every file those tasks stored, and no late progress message follows it. */
async function pool(tasks) {
  let next = 0;
  let failed = null;
  const worker = async () => {
    while (next < tasks.length && !failed) {
      await quiet();
      if (next < tasks.length && !failed) {
        try {
          await tasks[next++]();
        } catch (error) {
          failed = failed || { error };
        }
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  if (failed) throw failed.error;
}

/* Resolves once the reader has not searched for QUIET_MS. */
async function quiet() {
  for (let wait = busyUntil - Date.now(); wait > 0; wait = busyUntil - Date.now()) {
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
