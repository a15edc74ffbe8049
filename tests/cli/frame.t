# cc-frame: seed 003's QueryFrame, the record it writes, and its errors.
# Domain code-intel (share/concierge/code-intel/); cc-frame(1).

=== seed 003's example: four slots quoted, checked, rated (MEDIUM: the issue is 7 code points)
$ cc-frame -D code-intel | jq -c '.frame | [.extractor, .target_feature, .trigger_condition, .observed_issue, .desired_action, .valid, .missing_slots, .risk_level, .exploration_requirements.required_slot_evidence]'
< {"query":"ログイン機能でパスワードが空のときエラーが出ないのでチェックを追加して","intent":"MODIFY"}
> ["rules","ログイン機能","パスワードが空のとき","エラーが出ない","チェックを追加",true,[],"MEDIUM",["target_feature"]]

=== English; the intent from route.intent, else the record's, normalised; else INVESTIGATE
$ cc-frame -D code-intel | jq -c '.frame | [.intent, .intent_from, .target_feature, .trigger_condition, .observed_issue, .risk_level]'
< {"query":"The mobile menu stays open after navigating to another page","route":{"intent":"modify"},"intent":"QUESTION"}
< {"query":"The mobile menu stays open after navigating to another page","intent":"Modify"}
< {"query":"The mobile menu stays open after navigating to another page","intent":"DELETE"}
< {"query":"The mobile menu stays open after navigating to another page"}
> ["MODIFY","route","mobile menu","after navigating to another page","stays open","LOW"]
> ["MODIFY","record","mobile menu","after navigating to another page","stays open","LOW"]
> ["INVESTIGATE","record","mobile menu","after navigating to another page",null,"LOW"]
> ["INVESTIGATE","default","mobile menu","after navigating to another page",null,"LOW"]

=== an action without an issue is HIGH (seed 003), with the guidance for what is missing
$ cc-frame -D code-intel | jq -c '.frame | [.desired_action, .risk_level, .missing_slots, .investigation_guidance.recommended_tools, .exploration_requirements.symbols_identified, .reply.key]'
< {"query":"`legacy_export.py` を削除して","intent":"MODIFY"}
> ["削除","HIGH",["trigger_condition","observed_issue"],["search_text","find_definitions","query"],5,"frame.HIGH"]

=== a general question names no feature
$ cc-frame -D code-intel | jq -c '.frame | [.missing_slots, .risk_level, .reply.key, .exploration_requirements.symbols_identified]'
< {"query":"Pythonとは？","intent":"QUESTION"}
> [["target_feature","trigger_condition","observed_issue","desired_action"],"LOW","frame.question",1]

=== the caller's slots (set_query_frame): each checked; a quote not in the request is rejected
$ cc-frame -D code-intel | jq -c '.frame | [.extractor, .target_feature, .observed_issue, .valid, .rejected_slots, .risk_level]'
< {"query":"ログイン機能でエラーが発生する","intent":"MODIFY","extracted":{"target_feature":{"value":"認証システム","quote":"認証システムで"},"observed_issue":{"value":"エラー","quote":"エラーが発生"},"desired_action":null}}
> ["caller",null,"エラー",false,[{"slot":"target_feature","reason":"not_quoted","value":"認証システム","quote":"認証システムで"}],"HIGH"]

=== every reason a slot is refused
$ cc-frame -D code-intel | jq -c '[.frame.rejected_slots[] | [.slot, .reason]]'
< {"query":"ログイン機能でエラー","extracted":{"target_feature":{"quote":"ログイン機能"},"trigger_condition":{"value":"x","quote":""},"observed_issue":{"value":"ログアウト","quote":"ログイン機能"},"desired_action":"直して"}}
> [["target_feature","no_value"],["trigger_condition","no_quote"],["observed_issue","inconsistent"],["desired_action","no_value"]]

=== the NL -> symbol check: symbols_identified against target_feature, with the synonym dictionary
$ cc-frame -D code-intel | jq -c '.frame.nl_symbol_mapping'
< {"query":"ログイン機能でエラーが出る","intent":"MODIFY","symbols_identified":["LoginService","DatabaseHelper","AuthController",7]}
< {"query":"ログイン機能でエラーが出る","intent":"MODIFY","symbols_identified":["DatabaseHelper"]}
< {"query":"ログイン機能でエラーが出る","intent":"MODIFY"}
> {"term":"ログイン機能","matched":["LoginService","AuthController"],"valid":true}
> {"term":"ログイン機能","matched":[],"valid":false}
> null

=== one line in, one line out; other members pass through; bad lines become error records (exit 3)
$ cc-frame -D code-intel > o.json; st=$?; jq -c 'if .error then [.error.code, .error.line] else [.id, .extra, (.frame | type)] end' o.json; exit $st
< not json
< {"id":"a","extra":{"keep":[1,2]},"query":"これ直しといて"}
< {"id":"b"}
< {"id":"c","query":"x","extracted":"target_feature"}
< {"id":"d","query":"x","error":{"stage":"cc-route","code":"no_query"}}
< "バグを直して"
> ["bad_json",1]
> ["a",{"keep":[1,2]},"object"]
> ["no_query",3]
> ["bad_extracted",4]
> ["no_query",null]
> [null,null,"object"]
2> cc-frame: line 1: invalid JSON at column 1: unexpected character
2> cc-frame: line 3: the record has no string "query"
2> cc-frame: line 4: "extracted" is not an object of slots
? 3

=== a domain whose pipeline does not run cc-frame: records pass untouched
$ cc-frame -D engineer-cafe
< {"query":"ログイン機能を直して"}
> {"query":"ログイン機能を直して"}

=== the pipeline: route, frame and the reply in the request's words
$ concierge --domain code-intel ask "ろぐあうとぼたんが反応しない"
> [relaxed]MODIFY・リスクMEDIUM：対象は「ろぐあうとぼたん」。不明なスロット：trigger_condition, desired_action。search_text, find_definitions, find_references, analyze_structure で確かめてください。

=== options: help, version, a bad option, an argument, a patterns file that cannot be used
$ cc-frame --help | head -n 1; cc-frame --version | cut -c1-9; cc-frame --bogus 2>&1 | head -n 1; cc-frame extra 2>&1 | head -n 1; printf 'target_feature (x\n' > bad.patterns; cc-frame -D code-intel -p bad.patterns < /dev/null; echo "exit $?"; cc-frame -D code-intel -p missing.patterns < /dev/null; echo "exit $?"
> usage: cc-frame [-u] [--patterns FILE] [--no-llm] < records.ndjson
> cc-frame 
> cc-frame: unrecognized option '--bogus'
> cc-frame: unexpected argument 'extra'
> exit 2
> exit 2
2> cc-frame: bad.patterns:1: bad pattern: missing closing parenthesis at byte 2 of '(x'
2> cc-frame: cannot open 'missing.patterns': No such file or directory
