# concierge: the driver.  Answers are checked for their facts, since the
# wording is cc-respond's; without cc-respond the driver shows the route
# and the best passage, which hold the same facts.

=== set-up: the first question builds the knowledge base index
$ concierge ask "hi" > /dev/null 2>&1

=== ask: the opening hours, in Japanese
$ concierge ask "エンジニアカフェの営業時間は？" | grep -c '9:00.*22:00'
> 1

=== ask: the opening hours, in English
$ concierge ask "What are Engineer Cafe's opening hours?" | grep -c '9:00 to 22:00'
> 1

=== ask --json: the whole record, routed
$ concierge ask --json "Wi-Fiのパスワードは？" | jq -c '[.query, .route.agent, .route.request_type, .language_detection.detected_language]'
> ["Wi-Fiのパスワードは？","FacilityAgent","wifi","ja"]

=== ask: the words of the question are joined, as the shell split them
$ concierge ask -j What time is it | jq -r .query
> What time is it

=== ask: quotes, $(...), backslashes and newlines reach the record as typed
$ concierge ask --json "$(printf 'say "hi" $(touch pwned) `id` \\n \\\\ %%s\nsecond line')" | jq -c .query; ls pwned 2>&1 | sed 's/.*pwned.*/no pwned file/'
> "say \"hi\" $(touch pwned) `id` \\n \\\\ %s\nsecond line"
> no pwned file

=== ask -s: a session remembers the clarification
$ concierge ask -s golden-1 "カフェの営業時間は？" > /dev/null; concierge ask -s golden-1 -j "サイノの方" | jq -c '.route | [.agent, .category, .request_type]'
> ["BusinessInfoAgent","saino-cafe","hours"]

=== ask: without -s no session is kept
$ concierge ask -j "カフェの営業時間は？" | jq -c '[.session_id, .route.debug_info.session.id]'
> [null,null]

=== ask: nothing to ask is a usage error
$ concierge ask
2> concierge: ask what?
2> usage: concierge [--domain D] [--store S] ask [-s SESSION] [-j] QUESTION...
2>        concierge [--domain D] run [-u] < queries.ndjson > records.ndjson
2>        concierge [--domain D] chat [cc-chat options]
2>        concierge [--domain D] stages [-p]
2>        concierge [--domain D] eval [cc-eval options] FILE...
2>        concierge domains
2>        concierge check [DOMAIN|DIR]...
2>        concierge [--store S] store migrate|check|prune [cc-store options]
2> Commands:
2>   ask      answer one question (words are joined); -s SESSION remembers the
2>            conversation, -j/--json prints the whole record
2>   run      run the domain's stages over NDJSON query records (-u: flush
2>            per record)
2>   chat     the interactive chat (cc-chat)
2>   stages   print the pipeline; -p/--path: one program path a line
2>   eval     score the pipeline on labelled files (cc-eval)
2>   domains  list the installed domains and what each answers
2>   check    check a domain's files (default: the one in use); exit 3 when
2>            there is a problem
2>   store    set up, check or prune the session store (cc-store)
2> Options:
2>   -D, --domain D  the domain: a name under the data directory or the path
2>                   of a folder (default $CC_DOMAIN, else the installed
2>                   default); also taken after ask, run and stages
2>   --store S       the session store: a directory (SQLite) or a
2>                   postgresql:// URI or conninfo (default $CC_STORE, else
2>                   SQLite in the state directory); no password in it
2>   -h, --help      show this help
2>   -V, --version   show the version
? 2

=== an unknown command is a usage error
$ concierge frobnicate 2>&1 >/dev/null | head -n 1; concierge frobnicate 2>/dev/null
> concierge: unknown command 'frobnicate'
? 2

=== run: every stage, records in, records out, in order
$ concierge run | jq -c '[.id, .route.agent, .route.language]'
< {"id":1,"query":"Wi-Fiのパスワードは？"}
< {"id":2,"query":"What events are on this week?"}
< {"id":3,"query":"今何時？"}
> [1,"FacilityAgent","ja"]
> [2,"EventAgent","en"]
> [3,"TimeAgent","ja"]

=== run: a bad line becomes an error record and the status says so
$ concierge run > out; s=$?; jq -c '.error.code // .route.agent' out; exit $s
< not json
< {"query":"Wi-Fi?"}
2> cc-detect-lang: line 1: invalid JSON at column 1: unexpected character
> "bad_json"
> "FacilityAgent"
? 3

=== stages: the pipeline begins with language detection and routing
$ concierge stages | cut -d ' ' -f 1-3
> cc-detect-lang | cc-route

=== stages: CC_STAGES overrides the list, --path prints it whole
$ CC_STAGES=/opt/x/cc-detect-lang:cc-route concierge stages; CC_STAGES=/opt/x/cc-detect-lang:cc-route concierge stages --path
> cc-detect-lang | cc-route
> /opt/x/cc-detect-lang
> cc-route

=== stages: the listed programs exist
$ concierge stages -p | while read -r p; do test -x "$p" && echo ok; done | sort -u
> ok

=== run: a stage that cannot be run is a usage error
$ echo '"hi"' | CC_STAGES=./no-such-stage concierge run 2>/dev/null
? 2

=== --version
$ concierge --version | sed 's/[0-9][0-9.]*$/N/'
> concierge N
