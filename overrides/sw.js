/* Offline reading: keep one build of the site (pages, assets, search) in the browser and serve it from there.
 *
 * studysite/offline.py writes the served copy at the site root (one worker for every language) with
 * VERSION, a hash of every file of the build, baked in: each deploy with a change gives new bytes here,
 * which is what makes the browser install the new worker. Everything it stores is checked against the
 * build's manifest (SHA-256 of every file), so a cache only ever holds the bytes of its own build, and
 * a page served from it only ever gets files of that build.
 *
 *   install   fetch offline-manifest.json (must be this VERSION), precache its "shell" (theme assets,
 *             search runtime), the search index of the reader's language and as many pages as
 *             PAGE_BUDGET allows (see choose()); unchanged files are copied from the
 *             previous version's cache instead of downloaded again. Any failure: nothing activates.
 *             Downloads pause while the reader searches (a message from search.js; see QUIET_MS).
 *   activate  delete every other version's cache, take control of open pages.
 *   fetch     cache first (the whole site of this build); a miss goes to the network and is kept if
 *             its bytes are this build's (pages visited beyond the budget); offline, a page that was
 *             never saved gets a short notice in its language.
 */
"use strict";

const VERSION = "__QA_OFFLINE_VERSION__";
const TEXT = __QA_OFFLINE_TEXT__;
const PREFIX = "qa-offline-";
const CACHE = PREFIX + VERSION;
const MANIFEST = "offline-manifest.json";
/* Pages (and other languages' search data) precached beyond the shell, in uncompressed bytes (about a
   fifth of that over a gzip connection). Kept small because it downloads in the background after the
   first visit, often on a phone: the seed and banks of a hundred or so questions fit whole; larger
   sites keep the rest as they are visited (the zip on the home page is the complete offline copy). */
const PAGE_BUDGET = 6 * 1024 * 1024;
const PARALLEL = 6;
/* While the reader searches, the page says so (search.js posts {qa: "busy"} with each query) and
   the background precache starts no new download until QUIET_MS after the last one: the search's
   own requests then have the connection and the CPU to themselves. */
const QUIET_MS = 3000;
const ROOT = new URL("./", self.location.href).href;

let manifestOfCache = null;
let busyUntil = 0;

self.addEventListener("message", (event) => {
  if (event.data && event.data.qa === "busy") busyUntil = Date.now() + QUIET_MS;
});

self.addEventListener("install", (event) => {
  event.waitUntil(precache().then(() => self.skipWaiting()));
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
  const hit = await caches.match(ROOT + path, { cacheName: CACHE, ignoreSearch: true });
  if (hit) return hit;
  try {
    const response = await fetch(request);
    if (response.ok) event.waitUntil(keepIfThisBuild(path, response.clone()).catch(() => {}));
    return response;
  } catch (error) {
    if (request.mode === "navigate") return (await neverExisted(path)) || notSaved(path);
    throw error;
  }
}

/* Offline, an address this build never had gets the site's own "not found" page (cached with the
   pages), not "not saved": saving it would not help. */
async function neverExisted(path) {
  const files = await manifest();
  if (!files.size || files.has(path) || files.has(path + "/")) return null;
  const page = await caches.match(ROOT + "404.html", { cacheName: CACHE });
  if (!page) return null;
  return new Response(await page.blob(), { status: 404, headers: { "Content-Type": "text/html; charset=utf-8" } });
}

/* A file fetched on a visit joins this version's cache only if it is this build's file, byte for byte. */
async function keepIfThisBuild(path, response) {
  const entry = (await manifest()).get(path);
  if (!entry || !(await caches.has(CACHE))) return;
  const bytes = await response.arrayBuffer();
  if ((await sha(bytes)) !== entry.hash) return; // a newer deploy: its worker will cache it
  await (await caches.open(CACHE)).put(ROOT + path, stored(bytes, response.headers.get("Content-Type")));
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

async function precache() {
  const response = await fetch(ROOT + MANIFEST, { cache: "no-cache" });
  if (!response.ok) throw new Error(`offline: ${MANIFEST}: HTTP ${response.status}`);
  const text = await response.text();
  const wanted = JSON.parse(text);
  if (wanted.version !== VERSION) throw new Error(`offline: ${MANIFEST} is build ${wanted.version}, not ${VERSION}`);
  const files = entries(wanted);
  const chosen = choose(files, await readerPlace(wanted.languages));
  const cache = await caches.open(CACHE);
  const sources = [CACHE, ...(await caches.keys()).filter((n) => n.startsWith(PREFIX) && n !== CACHE)];
  // Pages kept on earlier visits stay if this build did not change them.
  const byUrl = new Map(files.map((f) => [f.url, f]));
  const precached = new Set(chosen);
  const visited = new Set();
  for (const name of sources.slice(1)) {
    for (const request of await (await caches.open(name)).keys()) {
      const f = byUrl.get(sitePath(request.url));
      if (f && !precached.has(f)) visited.add(f);
    }
  }
  const sameBytes = new Map(); // hash -> Promise<[bytes, type]>: identical files (both languages' assets) load once
  const store = async (f, mustHave) => {
    if (!sameBytes.has(f.hash))
      sameBytes.set(
        f.hash,
        reuse(f, sources).then((got) => got || (mustHave ? download(f) : null)),
      );
    const got = await sameBytes.get(f.hash);
    if (got) await cache.put(ROOT + f.url, stored(got[0], got[1]));
  };
  await pool([...chosen.map((f) => () => store(f, true)), ...[...visited].map((f) => () => store(f, false))]);
  // Written last: a cache with its manifest is complete.
  await cache.put(ROOT + MANIFEST, stored(new TextEncoder().encode(text), "application/json"));
}

/* Shell and the reader's search data always; then, while the budget lasts, the reader's language:
   its top pages (home, banks, tags), the banks the reader has open, the rest; then other languages. */
function choose(files, place) {
  const chosen = files.filter((f) => f.kind === "shell" || (f.kind === "search" && f.lang === place.lang));
  const root = place.root.length;
  const mine = files.filter((f) => f.kind === "page" && f.lang === place.lang);
  const top = (f) => f.url.slice(root).split("/").length <= 2;
  const reading = (f) => place.sections.some((s) => f.url.startsWith(s));
  const rest = [
    ...mine.filter(top),
    ...mine.filter((f) => !top(f) && reading(f)),
    ...mine.filter((f) => !top(f) && !reading(f)),
    ...files.filter((f) => f.lang && f.lang !== place.lang && (f.kind === "search" || f.kind === "page")),
  ];
  let budget = PAGE_BUDGET;
  for (const f of rest) {
    if (f.size > budget) break;
    chosen.push(f);
    budget -= f.size;
  }
  return chosen;
}

/* Where the reader is while the worker installs: the language (its pages come first) and the
   sections (banks) of the open pages. */
async function readerPlace(languages) {
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const paths = windows.map((c) => sitePath(c.url)).filter((p) => p !== null);
  const lang = languageOf(paths.length ? paths[0] : "", languages);
  const sections = [];
  for (const p of paths) {
    const l = languageOf(p, languages);
    const slash = p.indexOf("/", l.root.length);
    if (l.lang === lang.lang && slash > l.root.length) sections.push(p.slice(0, slash + 1));
  }
  return { lang: lang.lang, root: lang.root, sections };
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

async function download(f) {
  const r = await fetch(ROOT + f.url, { cache: "no-cache" });
  if (!r.ok) throw new Error(`offline: ${f.url}: HTTP ${r.status}`);
  const bytes = await r.arrayBuffer();
  if ((await sha(bytes)) !== f.hash) throw new Error(`offline: ${f.url} is not the file of build ${VERSION}`);
  return [bytes, r.headers.get("Content-Type")];
}

function notSaved(path) {
  const lang = languageOf(path, TEXT.languages);
  const t = TEXT.strings[lang.lang];
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
  return new Response(html, { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } });
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
  return m.files.map(([url, size, hash, kind, lang]) => ({ url, size, hash, kind, lang }));
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

async function pool(tasks) {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      await quiet();
      if (next < tasks.length) await tasks[next++]();
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
}

/* Resolves once the reader has not searched for QUIET_MS. */
async function quiet() {
  for (let wait = busyUntil - Date.now(); wait > 0; wait = busyUntil - Date.now()) {
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
