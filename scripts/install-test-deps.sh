#!/bin/sh
# What the test suite needs beyond Python packages, installed when missing (quick when
# everything is there already): Debian's Chromium for the browser tests (driven by
# Playwright's Python package, never a downloaded browser), Debian's Squid (a real shared
# cache in front of the service: per-viewer responses are never served across viewers) and
# the npm packages of package-lock.json (the OpenAPI linter; openapi-typescript and tsc for
# the generated TypeScript client tests; axe-core, the accessibility audit the web client's
# browser tests inject into the page). Run from the repository's root, as root on CI.
set -eu
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" -eq 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        echo "install-test-deps: /usr/bin/chromium is missing; run as root to install it" >&2
    fi
fi

if ! command -v squid >/dev/null 2>&1 && [ ! -x /usr/sbin/squid ]; then
    if [ "$(id -u)" -eq 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq squid >/dev/null
    else
        echo "install-test-deps: squid is missing; run as root to install it" >&2
    fi
fi

# npm ci only when the lockfile changed since the last install (a stamp in node_modules).
stamp=node_modules/.lock-sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    npm ci --no-audit --no-fund --loglevel=error
    echo "$want" >"$stamp"
fi
