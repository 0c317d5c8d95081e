#!/usr/bin/env bash
# LangGraph databases checked with the real library: a virtual environment with the pinned
# packages of tests/langgraph/requirements.txt (made again only when that file changes), then
# the database tests with the Python-backed check required (tests/langgraph.rs).
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/venvs/langgraph
req=tests/langgraph/requirements.txt
stamp="$venv/.requirements"
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$req" "$stamp"; then
    echo "== LangGraph virtual environment ($req)"
    rm -rf "$venv"
    python3 -m venv "$venv"
    timeout 600 "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$req"
    cp "$req" "$stamp"
fi
echo "== LangGraph databases: lint, repair, read back with LangGraph"
TOOLMEND_REQUIRE_LANGGRAPH=1 cargo test --locked --test langgraph
