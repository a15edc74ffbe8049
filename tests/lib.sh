# tests/lib.sh: TAP helpers and a pinned, private environment for shell tests.
# Sourced by every tests/*.test script (run by `make check`).
set -u

: "${top_srcdir:?run through make check}"
: "${top_builddir:?run through make check}"

tap_n=0
tap_failed=0

tap_ok() {	# tap_ok NAME
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1"
}

tap_fail() {	# tap_fail NAME [DIAGNOSTIC-FILE...]
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $1"
	shift
	for f in "$@"; do
		[ -s "$f" ] && head -n 40 "$f" | sed 's/^/#   /'
	done
	return 0
}

tap_check() {	# tap_check NAME COMMAND...: ok when the command succeeds
	name=$1
	shift
	if "$@" > "$T/check.out" 2>&1; then tap_ok "$name"; else tap_fail "$name" "$T/check.out"; fi
}

tap_done() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

# A private temporary directory, state directory and home for this script.
T=$(mktemp -d "${TMPDIR:-/tmp}/cc-test.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
CC_STATE_DIR=$T/state
HOME=$T/home
XDG_STATE_HOME=$T/xdg-state
mkdir -p "$HOME"
export CC_STATE_DIR HOME XDG_STATE_HOME
exec < /dev/null

# CC_TEST_STORE=pg: the same script against a private PostgreSQL
# (tests/pg-lib.sh); store_sql SQL reads the session store either way
# (the tables turns and answers).
if [ "${CC_TEST_STORE:-}" = pg ]; then
	. "$top_srcdir/tests/pg-lib.sh"
	store_sql() { pg_sql "$1"; }
else
	unset CC_STORE
	store_sql() {
		case $1 in
		*answers*) "$top_builddir/tests/sqlite-tool" "$CC_STATE_DIR/answers.db" query "$1" ;;
		*) "$top_builddir/tests/sqlite-tool" "$CC_STATE_DIR/sessions.db" query "$1" ;;
		esac
	}
fi
