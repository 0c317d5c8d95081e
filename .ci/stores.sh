#!/usr/bin/env bash
# The real applications the app-store tests write their databases with (pinned, from the package
# registries only): the OpenAI Agents SDK (PyPI) in target/venvs/agents, and the OpenCode and
# Kilo CLI binaries (npm packages that carry the binary; no install scripts run) in
# target/npm-apps. Idempotent: a second run with everything in place only checks versions.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== real apps for the app-store tests (Agents SDK, OpenCode, Kilo)"

venv=target/venvs/agents
if ! "$venv/bin/python" -c 'import agents' >/dev/null 2>&1; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r fixtures/stores/requirements-agents.txt
fi

apps=target/npm-apps
want=$(tr '\n' ' ' < fixtures/stores/npm-apps.txt)
if [ "$(cat "$apps/.installed" 2>/dev/null)" != "$want" ]; then
    mkdir -p "$apps"
    # shellcheck disable=SC2086
    timeout 600 npm install --prefix "$apps" --no-audit --no-fund --ignore-scripts --no-save $want
    echo "$want" > "$apps/.installed"
fi
"$apps/node_modules/opencode-linux-x64/bin/opencode" --version
"$apps/node_modules/@kilocode/cli-linux-x64/bin/kilo" --version
