#!/usr/bin/env bash
# What the real Codex CLI (pinned, from the npm registry) sends when it resumes rollouts, before
# and after `toolmend repair`, against a loopback stub of the Responses API.
set -euo pipefail
cd "$(dirname "$0")/.."
CODEX_VERSION=0.171.0
prefix=target/npm/codex-$CODEX_VERSION
if ! command -v npm >/dev/null; then
    echo "codex resume check: skipped, npm is not installed"
    exit 0
fi
if [ ! -x "$prefix/node_modules/.bin/codex" ]; then
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "@openai/codex@$CODEX_VERSION" >/dev/null
fi
cargo build --locked --quiet --bin toolmend
python3 tests/codex_resume/check.py "$prefix/node_modules/.bin/codex" target/debug/toolmend
