#!/usr/bin/env bash
# The real Claude Code client resumes toolmend's repairs whole: for every Claude Code session
# file of the tests (fixtures/claude-code-tree, and ../shared/corpus/claude-code when present),
# repair it, resume it with the pinned client against a loopback stub that records what the
# client sends (tests/claude_resume), and check that every message is kept, the pairing is
# valid, and the client patched nothing. Needs npm (skipped, saying so, without it); bounded
# time. Not needed by `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=2.1.332
PREFIX=target/claude-code
if ! command -v npm >/dev/null 2>&1; then
    echo "== claude-resume: SKIPPED — npm is not installed, so the real Claude Code client cannot be run"
    exit 0
fi
installed=$(node -p "require('./$PREFIX/node_modules/@anthropic-ai/claude-code/package.json').version" 2>/dev/null || true)
if [ "$installed" != "$VERSION" ]; then
    echo "== claude-resume: installing @anthropic-ai/claude-code@$VERSION from the npm registry"
    timeout 600 npm install --prefix "$PREFIX" --no-audit --no-fund --loglevel=error \
        "@anthropic-ai/claude-code@$VERSION" >/dev/null
fi
# The package's own binary comes in a platform package; its postinstall (which only links it)
# is not run.
CLAUDE=$(ls "$PREFIX"/node_modules/@anthropic-ai/claude-code-*/claude 2>/dev/null | head -1)
if [ -z "$CLAUDE" ]; then
    CLAUDE="$PREFIX/node_modules/@anthropic-ai/claude-code/bin/claude.exe"
fi
"$CLAUDE" --version

cargo build --locked --quiet
TOOLMEND=target/debug/toolmend
# The session files of the tests (not their pinned repaired outputs), and the corpus.
sessions=()
for f in fixtures/claude-code/*.jsonl fixtures/claude-code-tree/*.jsonl ../shared/corpus/claude-code/*.jsonl; do
    case "$f" in *.repaired.jsonl) ;; *) [ -f "$f" ] && sessions+=("$f") ;; esac
done
export CLAUDE_RESUME_TIMEOUT=60
echo "== claude-resume: repairs with --orphans note"
timeout 1200 python3 tests/claude_resume/check.py "$CLAUDE" "$TOOLMEND" \
    "${sessions[@]}" -- --orphans note
echo "== claude-resume: results without their call (server tool, plain, on another branch, before a compaction, under a reused uuid), --orphans drop"
timeout 300 python3 tests/claude_resume/check.py "$CLAUDE" "$TOOLMEND" \
    fixtures/claude-code-tree/{server-orphan,orphan-result,fork-split,compact-split,dup-conflict}.jsonl \
    -- --orphans drop
