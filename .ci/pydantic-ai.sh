#!/usr/bin/env bash
# The real pydantic-ai for tests/pydantic_ai_real.rs, in target/venvs/pydantic-ai (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/venvs/pydantic-ai
req=tests/python/pydantic-ai-requirements.txt
if [ ! -x "$venv/bin/python" ]; then
  python3.11 -m venv "$venv" 2>/dev/null || python3 -m venv "$venv"
fi
if ! cmp -s "$req" "$venv/.installed" 2>/dev/null; then
  timeout 600 "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
  cp "$req" "$venv/.installed"
fi
