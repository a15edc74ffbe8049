# tests/pg-lib.sh: a private PostgreSQL cluster for one test script, on a
# Unix socket in its temporary directory (no TCP), stopped when the
# script ends; CC_STORE names a fresh database in it.  Sourced by lib.sh
# when CC_TEST_STORE=pg (the *-pg.test scripts).  initdb refuses root:
# as root (CI), the cluster runs as the unprivileged `postgres` user the
# Debian package creates.  Skips the script only when no server is
# installed (scripts/deps installs one).
#   pg_start, pg_stop [MODE]   start it again, stop it (default fast)
#   pg_sql SQL                 run SQL in the store's schema, print rows
#                              (columns separated by tabs, as sqlite-tool)
pg_bin=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -n 1)}
if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/initdb" ] || [ ! -x "$pg_bin/pg_ctl" ]; then
	echo "1..0 # SKIP no PostgreSQL server (initdb, pg_ctl) installed: scripts/deps installs it"
	exit 0
fi
pg_dir=$T/pg
mkdir -p "$pg_dir"
if [ "$(id -u)" = 0 ]; then
	id postgres > /dev/null 2>&1 || {
		echo "1..0 # SKIP running as root and no 'postgres' user to run the cluster as"
		exit 0
	}
	chown postgres "$pg_dir"
	chmod 711 "$T"
	# util-linux's, in /usr/sbin, which a user's PATH may not have
	runuser=$(command -v runuser || echo /usr/sbin/runuser)
	as_pg() { "$runuser" -u postgres -- "$@"; }
else
	as_pg() { "$@"; }
fi
pg_port=5432
# tests need no durability against a crash of the machine (bench/store
# sets its own: PG_SETTINGS)
pg_settings=${PG_SETTINGS:--c fsync=off}
pg_start() {
	as_pg "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/log" -w -t 60 \
	    -o "-k $pg_dir -p $pg_port -c listen_addresses= $pg_settings" start > /dev/null
}
pg_stop() {
	as_pg "$pg_bin/pg_ctl" -D "$pg_dir/data" -m "${1:-fast}" -w stop > /dev/null 2>&1
}
trap 'pg_stop immediate; rm -rf "$T"' EXIT
trap 'exit 1' HUP INT TERM
# the superuser is named after the user running the tests, so libpq's
# default user name is it; trust: only this user's socket directory reaches it
as_pg "$pg_bin/initdb" -D "$pg_dir/data" -U "$(id -un)" --auth=trust -E UTF8 \
    --locale=C.UTF-8 -N > "$pg_dir/initdb.log" 2>&1 || {
	sed 's/^/# /' "$pg_dir/initdb.log"
	echo "Bail out! initdb failed"
	exit 1
}
pg_start || { sed 's/^/# /' "$pg_dir/log"; echo "Bail out! the cluster did not start"; exit 1; }
"$pg_bin/createdb" -h "$pg_dir" -p $pg_port concierge || { echo "Bail out! createdb failed"; exit 1; }
CC_STORE="postgresql:///concierge?host=$pg_dir&port=$pg_port"
export CC_STORE
pg_sql() {
	"$pg_bin/psql" -X -A -t -q -F '	' -v ON_ERROR_STOP=1 "$CC_STORE" \
	    -c 'SET search_path = concierge' -c "$1"
}
