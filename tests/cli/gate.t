# cc-gate: its usage, the registry, a call's answer and exit status, and its
# messages.  The data is the bundled code-intel domain's; each case has its
# own session id in the test's own state directory.

=== --help prints the usage to stdout
$ cc-gate --help | head -n 3
> usage: cc-gate [options] call TOOL [JSON-ARGS | -]
>        cc-gate [options] tools
>        cc-gate [options]          (a stage: records with a "gate" request)

=== an unknown command is a usage error
$ cc-gate bogus 2>&1 >/dev/null | head -n 1; cc-gate bogus 2>/dev/null; echo "exit $?"
> cc-gate: unknown command 'bogus'
> exit 2

=== call needs a tool
$ cc-gate call 2>&1 >/dev/null | head -n 1; cc-gate call 2>/dev/null; echo "exit $?"
> cc-gate: call: expected TOOL [JSON-ARGS | -]
> exit 2

=== a bad option is a usage error
$ cc-gate --frobnicate 2>&1 >/dev/null | head -n 1
> cc-gate: unrecognized option '--frobnicate'

=== an empty session id is a usage error
$ CC_DOMAIN=code-intel cc-gate -s '' call get_session_status; echo "exit $?"
> exit 2
2> cc-gate: invalid session id: 1 to 256 bytes

=== a domain without a gate says so
$ cc-gate call get_session_status 2>&1 | sed 's|/[^ ]*/share/concierge/|.../|'; cc-gate call get_session_status 2>/dev/null; echo "exit $?"
> cc-gate: cannot open '.../engineer-cafe/gate.conf': No such file or directory (the domain has no gate: cc-gate serves a domain with gate.conf, see cc-gate(1))
> exit 2

=== a repository that is not there
$ CC_DOMAIN=code-intel cc-gate --repo ./nowhere call get_session_status; echo "exit $?"
> exit 2
2> cc-gate: repository './nowhere': No such file or directory

=== tools lists the original's gate tools
$ cc-gate tools | jq -r '.tools[] | "\(.name) \(.inputSchema.required // [] | join(","))"'
> start_session intent,query
> set_query_frame 
> get_session_status 
> submit_understanding symbols_identified,entry_points,files_analyzed
> submit_semantic hypotheses,devrag_reason
> submit_verification verified
> check_write_target file_path
> record_outcome session_id,outcome,analysis
> get_outcome_stats 

=== start_session: the session, its phase, the allowed tools
$ CC_DOMAIN=code-intel cc-gate -s cli-1 call start_session '{"intent": "INVESTIGATE", "query": "Router classの仕組みを教えて"}' | jq -c '[.success, .session_id, .intent, .current_phase, (.allowed_tools | length), .query_frame.status]'
> [true,"cli-1","INVESTIGATE","EXPLORATION",10,"pending"]

=== the extraction prompt ends with the query
$ CC_DOMAIN=code-intel cc-gate -s cli-2 call start_session '{"intent": "MODIFY", "query": "ログイン機能直して"}' | jq -r '.query_frame.extraction_prompt' | tail -n 2
>
> クエリ: ログイン機能直して

=== a QUESTION starts READY
$ CC_DOMAIN=code-intel cc-gate -s cli-3 call start_session '{"intent": "QUESTION", "query": "Pythonとは？"}' | jq -c '[.current_phase, .allowed_tools]'
> ["READY",["*"]]

=== a blocked tool: the answer on stdout, a message on stderr, exit 3
$ CC_DOMAIN=code-intel cc-gate -s cli-4 call start_session '{"intent": "MODIFY", "query": "x"}' > /dev/null; CC_DOMAIN=code-intel cc-gate -s cli-4 call devrag_search | jq -c '[.error, .current_phase]'; CC_DOMAIN=code-intel cc-gate -s cli-4 call devrag_search > /dev/null 2>&1; echo "exit $?"
> ["phase_blocked","EXPLORATION"]
> exit 3
2> cc-gate: devrag_search: phase_blocked: devrag is not allowed in EXPLORATION phase. First use code-intel tools (query, find_definitions, find_references). Then call submit_understanding. Server will evaluate if devrag is needed.

=== arguments that are no JSON
$ CC_DOMAIN=code-intel cc-gate -s cli-5 call start_session '{intent: MODIFY}'; echo "exit $?"
> exit 3
2> cc-gate: the arguments are not JSON: expected an object, such as '{"file_path": "auth/login.py"}'

=== a missing argument
$ CC_DOMAIN=code-intel cc-gate -s cli-6 call start_session '{"intent": "MODIFY"}'; echo "exit $?"
> {"error":"invalid_arguments","message":"argument 'query' is required"}
> exit 3
2> cc-gate: start_session: invalid_arguments: argument 'query' is required

=== arguments from standard input
$ CC_DOMAIN=code-intel cc-gate -s cli-7 call start_session - | jq -r .intent
< {"intent": "IMPLEMENT", "query": "ログイン機能を追加して"}
> IMPLEMENT

=== a message quoting the agent is escaped on the terminal
$ CC_DOMAIN=code-intel cc-gate -s cli-8 call start_session '{"intent": "QUESTION", "query": "x"}' > /dev/null; CC_DOMAIN=code-intel cc-gate -s cli-8 call "$(printf 'evil\033[2Jtool')" > /dev/null
2> cc-gate: evil^[[2Jtool: unknown_tool: Unknown tool: evil^[[2Jtool
? 3

=== --pretty indents the answer
$ CC_DOMAIN=code-intel cc-gate --pretty call get_outcome_stats | head -n 4
> {
>   "total": 0,
>   "by_outcome": {
>     "success": 0,
