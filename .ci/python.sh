#!/usr/bin/env bash
# CI for the Python package (docs/python.md): build the wheel with the pinned maturin, install
# it into a fresh virtual environment, run the pytest suite there (API, CLI parity with the
# Rust binary, LangChain, the Dask example on a two-worker local cluster, the action's steps),
# then `pre-commit try-repo` both hooks on a throwaway git repository holding a broken log.
# Needs Python 3.11, PyPI and the Rust toolchain. Timings: see docs/python.md.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
started=$SECONDS
py=${PYTHON:-python3.11}
venvs=target/venvs
tools=$venvs/tools
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off

step() { echo "== python: $* ($((SECONDS - started)) s)"; }

step "tools (maturin, pre-commit) from python/requirements-tools.txt"
if ! cmp -s python/requirements-tools.txt "$tools/requirements.txt" 2>/dev/null; then
  rm -rf "$tools"
  "$py" -m venv "$tools"
  "$tools/bin/pip" install --quiet -r python/requirements-tools.txt
  cp python/requirements-tools.txt "$tools/requirements.txt"
fi

step "clippy on the extension crate; the library without the CLI feature (no clap)"
cargo clippy --locked -p toolmend-python --all-targets --quiet -- -D warnings
cargo check --locked -p toolmend --lib --no-default-features --quiet

step "maturin build (release wheel)"
rm -rf target/wheels
timeout 900 "$tools/bin/maturin" build --locked --release --quiet --out target/wheels
wheel=$(ls target/wheels/toolmend-*.whl)

step "fresh virtual environment with the wheel"
rm -rf "$venvs/wheel-test"
"$py" -m venv "$venvs/wheel-test"
"$venvs/wheel-test/bin/pip" install --quiet -r python/requirements-test.txt "$wheel"

step "pytest"
cargo build --locked --quiet --bin toolmend
# Run from outside the checkout so `import toolmend` can only be the installed wheel. A
# skipped test fails (TOOLMEND_NO_SKIP), and collecting no test is a usage error, not exit 5.
(cd target && TOOLMEND_NO_SKIP=1 TOOLMEND_BIN="$root/target/debug/toolmend" timeout 600 \
  "$root/$venvs/wheel-test/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests")

step "pre-commit try-repo on a repository with a broken log"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git init -q "$work/repo"
cp fixtures/python/rows.jsonl "$work/repo/session.jsonl"
printf '[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]\n' \
  > "$work/repo/healthy.json"
git -C "$work/repo" add .
# pre-commit pip-installs the hook repository, which builds the extension again from a clone:
# share this checkout's target directory (registry crates are reused) and build it with the
# dev profile, which compiles much faster than release; the hook's behaviour is the same.
export PRE_COMMIT_HOME="$work/pre-commit-home" CARGO_TARGET_DIR="$root/target"
export MATURIN_PEP517_ARGS="--profile dev"
hook() { (cd "$work/repo" && timeout 900 "$root/$tools/bin/pre-commit" try-repo "$root" "$1" --all-files --color never); }
if hook toolmend > "$work/lint.out" 2>&1; then
  cat "$work/lint.out"; echo "the toolmend hook passed a broken log"; exit 1
fi
grep -q "session.jsonl:2:200: TM001 \[dangling-tool-call\]" "$work/lint.out" || { cat "$work/lint.out"; exit 1; }
if hook toolmend-repair > "$work/repair.out" 2>&1; then
  cat "$work/repair.out"; echo "the toolmend-repair hook did not change the broken log"; exit 1
fi
grep -q "files were modified by this hook" "$work/repair.out" || { cat "$work/repair.out"; exit 1; }
hook toolmend > "$work/again.out" 2>&1 || { cat "$work/again.out"; echo "still broken after repair"; exit 1; }

step "done"
