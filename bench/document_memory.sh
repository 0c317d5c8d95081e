#!/usr/bin/env bash
# Peak memory of `lint` and `repair` on a pretty-printed JSON document, against its size.
#
#   bash bench/document_memory.sh [MB ...]        (default: 25 100)
#
# Writes the document bench/compare.py benchmarks (same generator, same seed) into a temporary
# directory, runs the release build of toolmend on one thread under GNU time, and prints each
# command's peak resident memory and its ratio to the file size. A benchmark, not a test: the
# target for a JSON document is a peak of about 1.5 times the file.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(25 100)
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time)" >&2; exit 2; }
CARGO_INCREMENTAL=0 cargo build --release --quiet
bin=target/release/toolmend
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-8s %-30s %8s %10s %7s\n' size command seconds "peak MB" "× file"
for mb in "${sizes[@]}"; do
    doc="$work/doc$mb.json"
    python3 -c 'import random, sys
sys.path.insert(0, "bench")
import compare
compare.write_doc(sys.argv[1], int(float(sys.argv[2]) * 1e6), random.Random(7))' "$doc" "$mb"
    bytes=$(stat -c %s "$doc")
    run() {
        local label=$1
        shift
        # Exit status 1 (findings) is expected; GNU time then writes a line before its own.
        /usr/bin/time -o "$work/time" -f '%e %M' "$@" >/dev/null 2>&1 || true
        read -r secs kb < <(tail -n 1 "$work/time")
        awk -v l="$label" -v s="$secs" -v kb="$kb" -v b="$bytes" -v mb="$mb" \
            'BEGIN { printf "%-8s %-30s %8s %10.0f %7.2f\n", mb " MB", l, s, kb / 1024, kb * 1024 / b }'
    }
    run "lint -j1" "$bin" lint -j1 "$doc"
    run "repair -j1 > stdout" "$bin" repair -j1 "$doc"
    run "repair -j1 -o OUT" "$bin" repair -j1 "$doc" -o "$work/out.json"
    run "repair -j1 --check" "$bin" repair -j1 --check "$doc"
    cp "$doc" "$work/copy.json"
    run "repair -j1 --in-place" "$bin" repair -j1 --in-place "$work/copy.json"
    run "repair -j1 --duplicate-ids" "$bin" repair -j1 --duplicate-ids re-id --check "$doc"
    rm -f "$work/out.json" "$work/copy.json" "$doc"
done
