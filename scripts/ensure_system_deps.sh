#!/usr/bin/env bash
# Make sure the Debian packages the browser tests need are present: chromium (Lighthouse, the PDF
# edition), chromium-headless-shell (the same chromium without its UI: Playwright drives it), the
# driver, CJK fonts (without them Chinese renders as boxes), Java (Nu HTML checker) and poppler-utils
# (pdfinfo/pdftoppm: the PDF edition's tests).
# Installs them with apt when running as root; otherwise prints the exact command and fails.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromium-headless-shell >/dev/null 2>&1 || need+=(chromium-headless-shell)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
# Not `fc-list | grep -q`: grep quits at the first match, fc-list then dies of SIGPIPE, and under
# pipefail the pipeline fails, so installed fonts were now and then "missing" (apt-get update each time).
fonts=$(fc-list : family 2>/dev/null || true)
grep -qi "noto sans cjk" <<<"$fonts" || need+=(fonts-noto-cjk)
command -v java >/dev/null 2>&1 || need+=(default-jre-headless)
command -v pdfinfo >/dev/null 2>&1 || need+=(poppler-utils)
[ ${#need[@]} -eq 0 ] && exit 0
cmd="apt-get update && apt-get install -y --no-install-recommends ${need[*]}"
if [ "$(id -u)" = 0 ]; then
  echo "ensure_system_deps: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
else
  echo "ensure_system_deps: missing Debian packages: ${need[*]}" >&2
  echo "Run:  sudo sh -c '$cmd'" >&2
  exit 1
fi
