/* Lighthouse runs one after another in one chromium and one Node process (tests/test_lighthouse.py
 * and scripts/bench.py):
 *
 *   CHROME_PATH=/usr/bin/chromium node scripts/lighthouse_runs.mjs OUT_DIR NAME=URL [NAME=URL ...]
 *
 * writes OUT_DIR/lighthouse-NAME.json for each run: the report `lighthouse URL --output=json` writes,
 * with the settings the command line had here (mobile, the four categories, no full-page screenshot).
 * Started once instead of once per page, Node, Lighthouse and chromium cost about 3 s less a run (of
 * about 12 on this 2-core machine). Lighthouse still resets the origin's storage and the browser's
 * cache before each page, so every run is a first visit. Prints "NAME done" or "NAME failed: why" per
 * run, in order; the exit status is 1 if any failed.
 */
import { writeFileSync } from "node:fs";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";

const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"];

const [out, ...runs] = process.argv.slice(2);
if (!out || !runs.length || runs.some((r) => r.indexOf("=") < 1)) {
  console.error("usage: node scripts/lighthouse_runs.mjs OUT_DIR NAME=URL [NAME=URL ...]");
  process.exit(2);
}
const chrome = await chromeLauncher.launch({ chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu"] });
let failed = 0;
try {
  for (const run of runs) {
    const at = run.indexOf("=");
    const name = run.slice(0, at);
    try {
      const result = await lighthouse(run.slice(at + 1), {
        port: chrome.port,
        output: "json",
        logLevel: "error",
        onlyCategories: CATEGORIES,
        formFactor: "mobile",
        disableFullPageScreenshot: true,
      });
      if (!result) throw new Error("Lighthouse returned no result");
      writeFileSync(`${out}/lighthouse-${name}.json`, result.report);
      console.log(`${name} done`);
    } catch (error) {
      failed++;
      console.log(`${name} failed: ${error && error.stack ? error.stack : error}`);
    }
  }
} finally {
  await chrome.kill();
}
process.exit(failed ? 1 : 0);
