#!/usr/bin/env bash
# Headless Chromium renders the docs site in tests/test_docs.py. Install Debian's package when missing.
set -euo pipefail
for c in chromium chromium-browser google-chrome; do command -v "$c" >/dev/null && exit 0; done
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "== installing chromium (Debian package) for the docs test"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
elif command -v sudo >/dev/null && command -v apt-get >/dev/null; then
  sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "chromium not found: install it (e.g. 'apt-get install chromium') for the docs test" >&2; exit 1
fi
