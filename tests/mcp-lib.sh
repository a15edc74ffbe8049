# tests/mcp-lib.sh: what the cc-mcp tests share (sourced after tests/lib.sh):
# request lines, a run helper and checks on what came back.

init='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}'
inited='{"jsonrpc":"2.0","method":"notifications/initialized"}'

# call ID TOOL ARGS-JSON: a tools/call request line
call() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' "$1" "$2" "$3"
}

# mcp [OPTIONS]: cc-mcp on $T/in; replies in $T/out, stderr in $T/err, status in $st
mcp() {
	cc-mcp "$@" < "$T/in" > "$T/out" 2> "$T/err"
	st=$?
}

# all_protocol FILE: every line is a JSON-RPC 2.0 reply (nothing else on stdout)
all_protocol() {
	jq -e -s 'length > 0 and all(.[]; type == "object" and .jsonrpc == "2.0" and
	    has("id") and ((has("result")) != (has("error"))))' "$1" > /dev/null
}

# reply ID JQ: the reply to request ID (its id as JSON text) through jq -c
reply() {
	jq -c --argjson id "$1" "select(.id == \$id) | $2" "$T/out"
}

# text ID JQ: the tool answer (the text content, parsed) of reply ID through jq -c
text() {
	jq -c --argjson id "$1" "select(.id == \$id) | .result.content[0].text | fromjson | $2" "$T/out"
}
