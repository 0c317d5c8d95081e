#!/usr/bin/env bash
# LangGraph's PostgresSaver tables, linted through a postgres:// URL against a real PostgreSQL
# server: installed from Debian when missing, started on 127.0.0.1 in a throw-away data
# directory, stopped on exit. The test makes (and drops) its own database. Needs the
# LangGraph environment of .ci/langgraph.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
    echo "== installing PostgreSQL (Debian package)"
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
fi
bin=$(dirname "$(ls -d /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -1)")
port=${TOOLMEND_PG_PORT:-54329}
data=$(mktemp -d /tmp/toolmend-pg.XXXXXX)
as_pg=()
if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$data"
    as_pg=(runuser -u postgres --)
fi
stop() {
    "${as_pg[@]}" "$bin/pg_ctl" -D "$data/db" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$data"
}
trap stop EXIT

echo "== PostgreSQL on 127.0.0.1:$port"
"${as_pg[@]}" "$bin/initdb" -D "$data/db" -U toolmend --auth=trust >/dev/null
"${as_pg[@]}" "$bin/pg_ctl" -D "$data/db" -l "$data/log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $data" start >/dev/null

echo "== LangGraph PostgresSaver tables: lint through postgres://"
TOOLMEND_PG_URL="postgres://toolmend@127.0.0.1:$port/postgres" \
    cargo test --locked --test langgraph_postgres
