# tests/gate-lib.sh: what the gate's tests share (sourced after tests/lib.sh):
# the domain, a call helper, the stored state, and how an answer is
# compared with a peer vector's expectation.

CC_DOMAIN=code-intel
export CC_DOMAIN
sqlite=$top_builddir/tests/sqlite-tool
peer=$top_srcdir/tests/data/code-intel/peer

# gate SESSION TOOL [ARGS...]: cc-gate call (with $gate_opts); the answer in
# $T/ans, its messages in $T/ans.err, the exit status in $st.
gate_opts=
gate() {
	_sid=$1
	shift
	# shellcheck disable=SC2086 # options
	cc-gate $gate_opts -s "$_sid" call "$@" > "$T/ans" 2> "$T/ans.err"
	st=$?
}

# ans JQ: the answer through jq -c (for tap_check "..." test "$(ans .x)" = ...)
ans() {
	jq -c "$1" "$T/ans"
}

# phase SESSION: the session's phase, from get_session_status.
phase() {
	cc-gate -s "$1" call get_session_status 2> /dev/null | jq -r '.current_phase // "none"'
}

# state_get SESSION / state_put SESSION JSON: the stored state, as text.
state_get() {
	"$sqlite" "$CC_STATE_DIR/state-gate.db" query \
		"SELECT value FROM state WHERE session = '$1'"
}
state_put() {
	"$sqlite" "$CC_STATE_DIR/state-gate.db" exec \
		"UPDATE state SET value = ?2 WHERE session = ?1" "$1" "$2"
}

# A domain of the gate alone, for the stage form (its manifest names
# cc-gate in its pipeline; the data is the bundled domain's).
gate_domain() {
	mkdir -p "$T/gate-domain"
	cat > "$T/gate-domain/domain" <<-EOF
	name         gate-domain
	description  the phase gate alone
	pipeline     cc-gate
	agent        coder  tool:gate
	fallback     coder
	EOF
	ln -sf "$top_srcdir/share/concierge/code-intel/gate.conf" "$T/gate-domain/gate.conf"
	for f in synonyms guidance requirements; do
		ln -sf "$top_srcdir/share/concierge/code-intel/$f" "$T/gate-domain/$f"
	done
}

# A jq program: {want, got, status} -> the list of differences ([] when
# the answer is what the vector expects).  A set's members and the allowed
# reasons are compared in any order (the original printed them in Python's
# hash order, which changes from run to run).
gate_compare='
def norm: if type == "string" then
	gsub("\\{(?<s>[^{}]*)\\}"; "{" + (.s | split(", ") | sort | join(", ")) + "}")
	| gsub("Allowed reasons: \\[(?<s>[^\\]]*)\\]";
		"Allowed reasons: [" + (.s | split(", ") | sort | join(", ")) + "]")
	else . end;
def key: if test(":") then split(":")[0] else split(".")[0] end;
.want as $w | .got as $g | .status as $s |
[ $w | to_entries[] | .key as $k | .value as $v |
	( if $k == "missing_requirement_keys" then
		[($g.missing_requirements // [])[] | key] | unique
	  elif $k == "missing_requirements" then (($g.missing_requirements // []) | map(norm))
	  elif $k == "message" then ($g.message | norm)
	  elif $k == "phase_after" then ($g.next_phase // $s.current_phase)
	  elif $k == "current_phase" then ($g.current_phase // $s.current_phase)
	  elif $k == "rejected_slots" then [($g.validation_errors // [])[].slot]
	  elif $k == "session_risk_level" then $s.risk_level
	  elif $k == "warning" then ($g.warning != null)
	  else $g[$k] end ) as $have |
	( if $k == "missing_requirements" then ($v | map(norm))
	  elif $k == "message" then ($v | norm)
	  else $v end ) as $want |
	select($have != $want) |
	"\($k): expected \($want | tojson), got \($have | tojson)" ]
'
