/* Lighthouse runs one after another in one chromium and one Node process (tests/test_lighthouse.py
 * and scripts/bench.py):
 *
 *   CHROME_PATH=/usr/bin/chromium node scripts/lighthouse_runs.mjs [--no-performance=NAME,...] [--quiet-ms=N] OUT_DIR NAME=URL [NAME=URL ...]
 *
 * writes OUT_DIR/lighthouse-NAME.json for each run: the report `lighthouse URL --output=json` writes,
 * with the settings the command line had here (mobile, the four categories, no full-page screenshot),
 * less the audits of weight 0 that cost a run time and score nothing (SKIPPED_AUDITS). The runs named
 * by --no-performance leave the performance category out (no trace, no load simulation: 2-2.5 s less
 * a run on this 2-core machine), for pages whose speed nobody reads from the report.
 * Started once instead of once per page, Node, Lighthouse and chromium cost about 3 s less a run (of
 * about 12 on this 2-core machine). Lighthouse still resets the origin's storage and the browser's
 * cache before each page, so every run is a first visit. Prints "NAME done" or "NAME failed: why" per
 * run, in order; the exit status is 1 if any failed.
 *
 * The CPU slowdown is calibrated for each run, as Lighthouse's docs ask on a host that is not a
 * high-end desktop (docs/throttling.md, "Calibrating the CPU slowdown"): Lighthouse's default 4x
 * turns a host with a BenchmarkIndex of about 1,533 into its mid-tier phone, but this shared 2-core
 * machine measures 300 to 1,600 as its load moves, and 4x on a host at 400 emulates a phone four
 * times slower than the one the score is about (Lighthouse itself warns under 1,000). So the first
 * run first measures the host with Lighthouse's own benchmark (its computeBenchmarkIndex page
 * function, in this chromium); every later run takes the index Lighthouse itself measured at the
 * start of the run before it (its report's environment.benchmarkIndex, the same function, ~10 s
 * earlier), which spares each run a second benchmark (one second of one core). A run takes the
 * multiplier Lighthouse's calibration calculator gives for the index (multiplierFor), at most
 * Lighthouse's default 4x (DEFAULT_SLOWDOWN). The report keeps both:
 * `configSettings.throttling.cpuSlowdownMultiplier` and `studysiteCalibration` (with the calculator's
 * own value, `calculated`, and where the index came from, `measured`). A run without the performance
 * category is not slowed: nothing it scores depends on the CPU's speed.
 */
import { writeFileSync } from "node:fs";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import defaultConfig from "lighthouse/core/config/default-config.js";
import { pageFunctions } from "lighthouse/core/lib/page-functions.js";
import puppeteer from "puppeteer-core";

/** The CPU slowdown that makes a host of this BenchmarkIndex Lighthouse's mid-tier phone: the
 * piecewise-linear mapping of Lighthouse's CPU throttling calculator (linked from its throttling
 * docs): 150 -> 1x, 800 -> 2x, 1300 -> 3x, then one more per 233 (1533 -> 4x, the default).
 * Slower hosts than 150 get 1x: no slowdown at all. */
function multiplierFor(index) {
  if (index >= 1300) return 3 + (index - 1300) / 233;
  if (index >= 800) return 2 + (index - 800) / 500;
  if (index >= 150) return 1 + (index - 150) / 650;
  return 1;
}

/** Lighthouse's own mobile slowdown, the most a run uses: on a host the benchmark finds faster than
 * Lighthouse's reference (about 1,533) the calculator asks for more (2,300 -> 7.3x), but that
 * benchmark is one second of one core in an empty tab, and the page then shares this 2-core machine
 * with the rest of the suite: with 6-7.5x the question and tags pages scored 82-90 under the second
 * test worker's load (2026-12-02 19:07, load average 5), where the default 4x is what a developer's
 * own Lighthouse run applies. Hosts slower than the reference still get less (the calibration's
 * purpose: a loaded CI host measured 313-920). The report keeps the calculator's value. */
const DEFAULT_SLOWDOWN = 4;

/** The host's BenchmarkIndex now, measured as Lighthouse measures it, in a blank tab of `browser`. */
async function benchmarkIndex(browser) {
  const page = await browser.newPage();
  try {
    return await page.evaluate(pageFunctions.computeBenchmarkIndex);
  } finally {
    await page.close();
  }
}

const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"];

/** Audits left out: each has weight 0 in Lighthouse 12's default config (no category score moves) and
 * costs every run time. `bf-cache` navigates away and back to test the back/forward cache; the two
 * screenshot audits encode the filmstrip and the last frame (the speed index reads the trace's own
 * screenshots, not these). Four pages took 30.8-38.2 s with them skipped against 37.6-40.5 s
 * without, on this 2-core machine (2026-12-03, the seed site, two rounds), scores within their usual spread. */
const SKIPPED_AUDITS = ["bf-cache", "screenshot-thumbnails", "final-screenshot"];
for (const [category, { auditRefs }] of Object.entries(defaultConfig.categories)) {
  for (const ref of auditRefs) {
    if (SKIPPED_AUDITS.includes(ref.id) && ref.weight !== 0) {
      console.error(`lighthouse_runs: ${ref.id} now weighs ${ref.weight} in ${category}: it can no longer be skipped`);
      process.exit(2);
    }
  }
}

const args = process.argv.slice(2);
/** The value of option `name` (--NAME=VALUE) if it comes next in `args`, taken off them; else null. */
function option(name) {
  const prefix = `--${name}=`;
  return args[0]?.startsWith(prefix) ? args.shift().slice(prefix.length) : null;
}
const withoutPerformance = new Set(option("no-performance")?.split(",") ?? []);
const quietMs = option("quiet-ms");
const scoredOnly = option("scored-only") === "yes";
/** --scored-only=yes: leave out every audit of weight 0 in Lighthouse's categories but accessibility
 * (a category's score is the weighted mean of its audits, so no score moves): the performance category's
 * diagnostics and opportunities (unused JavaScript and CSS, long tasks, the treemap from our source
 * maps, ...), whose gatherers cost each run time. The test asks only for the scores; the benchmark
 * reads diagnostics (the metrics, the main thread's tasks) and keeps them. */
const UNSCORED = scoredOnly
  ? Object.entries(defaultConfig.categories)
      .filter(([category]) => category !== "accessibility") // one axe run gives all of its audits
      .flatMap(([, { auditRefs }]) => auditRefs.filter((ref) => ref.weight === 0).map((ref) => ref.id))
  : [];
/** --quiet-ms=N: Lighthouse's four waits after a page's first paint, its load, the network's and the
 * main thread's last activity (1,000 ms each by default) set to N ms: wall-clock time a run spends
 * idle. The test and the benchmark use 250 (tests/qualitykit.py LIGHTHOUSE_QUIET_MS says what that
 * was measured to change: nothing but the time). */
const waits =
  quietMs === null
    ? {}
    : Object.fromEntries(
        ["pauseAfterFcpMs", "pauseAfterLoadMs", "networkQuietThresholdMs", "cpuQuietThresholdMs"].map((k) => [
          k,
          Number(quietMs),
        ]),
      );
const [out, ...runs] = args;
if (!out || !runs.length || runs.some((r) => r.indexOf("=") < 1) || Object.values(waits).some((v) => !(v >= 0))) {
  console.error(
    "usage: node scripts/lighthouse_runs.mjs [--no-performance=NAME,...] [--quiet-ms=N] [--scored-only=yes] OUT_DIR NAME=URL [NAME=URL ...]",
  );
  process.exit(2);
}
const chrome = await chromeLauncher.launch({ chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu"] });
const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
let failed = 0;
/** The BenchmarkIndex Lighthouse measured at the start of the last run, if it measured one. */
let lastIndex = null;
try {
  for (const run of runs) {
    const at = run.indexOf("=");
    const name = run.slice(0, at);
    try {
      const performance = !withoutPerformance.has(name);
      let calibration = null;
      if (performance) {
        const measured = lastIndex === null ? "before this run" : "by Lighthouse in the run before";
        const index = lastIndex ?? (await benchmarkIndex(browser));
        const calculated = Math.round(multiplierFor(index) * 100) / 100;
        const multiplier = Math.min(calculated, DEFAULT_SLOWDOWN);
        calibration = { benchmarkIndex: index, measured, cpuSlowdownMultiplier: multiplier, calculated };
      }
      const result = await lighthouse(run.slice(at + 1), {
        port: chrome.port,
        output: "json",
        logLevel: "error",
        onlyCategories: performance ? CATEGORIES : CATEGORIES.filter((c) => c !== "performance"),
        formFactor: "mobile",
        disableFullPageScreenshot: true,
        skipAudits: [...SKIPPED_AUDITS, ...UNSCORED],
        throttling: { cpuSlowdownMultiplier: calibration ? calibration.cpuSlowdownMultiplier : 1 },
        ...waits,
      });
      if (!result) throw new Error("Lighthouse returned no result");
      lastIndex = result.lhr.environment?.benchmarkIndex ?? null;
      const report = { ...result.lhr, studysiteCalibration: calibration };
      writeFileSync(`${out}/lighthouse-${name}.json`, JSON.stringify(report));
      const said = calibration
        ? `benchmark index ${calibration.benchmarkIndex} measured ${calibration.measured}, CPU slowdown ${calibration.cpuSlowdownMultiplier}x, calculator ${calibration.calculated}x`
        : "no performance category, not slowed";
      console.log(`${name} done (${said})`);
    } catch (error) {
      failed++;
      console.log(`${name} failed: ${error && error.stack ? error.stack : error}`);
    }
  }
} finally {
  await browser.disconnect();
  await chrome.kill();
}
process.exit(failed ? 1 : 0);
