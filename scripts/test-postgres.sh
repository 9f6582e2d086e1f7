#!/bin/sh
# Runs a command with TEST_DATABASE_URL pointing at a Postgres cluster made for it alone, then
# stops the cluster and deletes it. The cluster comes from Debian's postgresql package (installed
# here when missing and running as root), listens on a unix socket inside its temp dir and on no
# TCP address, and trusts local connections: it lives for one test run and holds nothing else.
#   sh scripts/test-postgres.sh go test -count=1 ./...
# Without the package and without root it runs the command anyway: the Postgres tests then say
# loudly that they skipped, and in CI (CI=true) they fail.
set -eu

find_bin() {
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n); do
		[ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && bin=$d
	done
	[ -n "${bin:-}" ]
}

bin=
if ! find_bin; then
	if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
		echo "installing postgresql for the SQL store tests (apt-get)"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
		find_bin || { echo "postgresql installed but no initdb under /usr/lib/postgresql" >&2; exit 1; }
	else
		echo "!!! postgresql is not installed: running without a test database (install Debian's postgresql to test the Postgres store)" >&2
		exec "$@"
	fi
fi

dir=$(mktemp -d /tmp/eo-pg.XXXXXX)
# initdb refuses to run as root, so root hands the cluster to the postgres system user.
as_owner() { "$@"; }
if [ "$(id -u)" = "0" ]; then
	chown postgres "$dir"
	as_owner() { runuser -u postgres -- "$@"; }
fi

cleanup() {
	if [ -f "$dir/data/postmaster.pid" ]; then
		as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
	fi
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The socket file is named after the port; it sits in our own dir, so any port number is free, but
# a random one keeps a stray client aimed at the default from finding this cluster.
port=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 20000 ))
as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 ||
	{ cat "$dir/initdb.log" >&2; exit 1; }
as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
	-o "-c listen_addresses='' -k $dir -p $port -c fsync=off -c full_page_writes=off -c max_connections=200" start >/dev/null ||
	{ cat "$dir/server.log" >&2; exit 1; }

TEST_DATABASE_URL="postgres://postgres@/postgres?host=$dir&port=$port&sslmode=disable"
export TEST_DATABASE_URL
echo "test-postgres: a throwaway cluster ($("$bin/postgres" --version)) at $dir"
status=0
"$@" || status=$?
exit $status
