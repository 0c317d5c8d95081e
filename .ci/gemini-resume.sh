#!/usr/bin/env bash
# What the real Gemini CLI (pinned, from the npm registry) sends when it resumes stored sessions,
# before and after `toolmend repair`, against a loopback stub of the Gemini API.
# TOOLMEND=/path/to/toolmend skips the cargo build and uses that binary.
set -euo pipefail
cd "$(dirname "$0")/.."
GEMINI_VERSION=0.56.0
prefix=target/npm/gemini-cli-$GEMINI_VERSION
if ! command -v npm >/dev/null; then
    echo "gemini resume check: skipped, npm is not installed"
    exit 0
fi
if [ ! -x "$prefix/node_modules/.bin/gemini" ]; then
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "@google/gemini-cli@$GEMINI_VERSION" >/dev/null
fi
if [ -z "${TOOLMEND:-}" ]; then
    cargo build --locked --quiet --bin toolmend
    TOOLMEND=target/debug/toolmend
fi
# Real Gemini CLI sessions of the shared corpus join the check where it is present.
shopt -s nullglob
python3 tests/gemini_resume/check.py "$prefix/node_modules/.bin/gemini" "$TOOLMEND" ../shared/corpus/gemini-cli/*.json*
