# cc-route: the examples of seed 000, the record it writes, and its errors.
# Each case uses its own session id; the state directory is the test's own.

=== spec: an hours question
$ cc-route | jq -c '.route | [.agent, .category, .request_type, .language, .confidence, .debug_info.classification.reason]'
< {"query":"エンジニアカフェの営業時間を教えてください","sessionId":"session_abc123"}
> ["BusinessInfoAgent","facility-info","hours","ja",0.9,"Hours keywords detected"]

=== spec: a context-dependent follow-up inherits hours
$ cc-route | jq -c '.route | [.agent, .request_type, .debug_info.classification.context.inherited]'
< {"query":"エンジニアカフェの営業時間を教えてください","session_id":"spec-2"}
< {"query":"土曜日も同じ時間ですか？","session_id":"spec-2"}
> ["BusinessInfoAgent","hours",false]
> ["BusinessInfoAgent","hours",true]

=== spec: a memory question
$ cc-route | jq -c '.route | [.agent, .category, .request_type]'
< {"query":"さっき何を聞いたか覚えてる？","sessionId":"spec-3"}
> ["MemoryAgent","memory",null]

=== spec: an ambiguous cafe question asks which cafe
$ cc-route | jq -c '.route | [.agent, .category, .request_type, .language, .confidence, .debug_info.classification.reason]'
< {"query":"カフェの営業時間は？","session_id":"spec-4"}
> ["ClarificationAgent","cafe-clarification-needed",null,"ja",0.7,"Ambiguous cafe query"]

=== spec: the context patterns (土曜, 日曜, 平日, saino, そっち, それ) follow the last topic
$ cc-route | jq -r '.route | "\(.agent) \(.category) \(.request_type)"'
< {"query":"営業時間は？","session_id":"spec-5"}
< {"query":"日曜日は？","session_id":"spec-5"}
< {"query":"平日も同じ？","session_id":"spec-5"}
< {"query":"sainoの方は？","session_id":"spec-5"}
< {"query":"そっちの料金は？","session_id":"spec-5"}
< {"query":"それは何時まで？","session_id":"spec-5"}
> BusinessInfoAgent facility-info hours
> BusinessInfoAgent facility-info hours
> BusinessInfoAgent facility-info hours
> BusinessInfoAgent saino-cafe hours
> BusinessInfoAgent saino-cafe price
> BusinessInfoAgent saino-cafe hours

=== spec: memory-like words in business questions are not memory questions
$ cc-route -n | jq -r '.route | "\(.agent) \(.request_type)"'
< "どんなメニューがありますか？"
< "Does it open before 9am?"
< "履歴書の書き方を教えて"
< "地下のスペースは前に予約した方がいい？"
> BusinessInfoAgent null
> BusinessInfoAgent hours
> GeneralKnowledgeAgent null
> FacilityAgent basement

=== spec: the request types and their agents
$ cc-route -n | jq -r '.route | "\(.agent) \(.category) \(.request_type)"'
< "Wi-Fiのパスワードは？"
< "料金はいくらですか"
< "エンジニアカフェはどこにありますか？"
< "電源はありますか？"
< "地下のMTGスペースを使いたい"
< "2階の会議室を予約したい"
< "来週の勉強会を教えて"
< "今何時？"
< "最新のAI技術について教えて"
> FacilityAgent facility-info wifi
> BusinessInfoAgent facility-info price
> BusinessInfoAgent facility-info location
> FacilityAgent facility-info facility
> FacilityAgent facility-info basement
> BusinessInfoAgent facility-info meeting-room
> EventAgent events event
> TimeAgent current-time null
> GeneralKnowledgeAgent general null

=== normalisation: fullwidth, halfwidth kana, kana-only speech, spaces, typos
$ cc-route -n | jq -r '.route | "\(.agent) \(.category) \(.request_type) \(.language)"'
< "ＷＩＦＩのパスワード"
< "ﾜｲﾌｧｲ ﾊﾟｽﾜｰﾄﾞ"
< "えいぎょうじかんは"
< "ちかの しゅうちゅうすぺーす つかえる？"
< "エンジニア カフェ の 場所"
< "才能カフェのメニュー"
< "cafe opning hours"
< "wat time u close"
> FacilityAgent facility-info wifi ja
> FacilityAgent facility-info wifi ja
> BusinessInfoAgent facility-info hours ja
> FacilityAgent facility-info basement ja
> BusinessInfoAgent facility-info location ja
> BusinessInfoAgent saino-cafe null ja
> ClarificationAgent cafe-clarification-needed null en
> BusinessInfoAgent facility-info hours en

=== clarification: the answer names the cafe, the aspect comes from the question
$ cc-route | jq -r '.route | "\(.agent) \(.category) \(.request_type) \(.debug_info.classification.context.inherited)"'
< {"query":"カフェの営業時間は？","session_id":"cl-1"}
< {"query":"サイノの方","session_id":"cl-1"}
> ClarificationAgent cafe-clarification-needed null false
> BusinessInfoAgent saino-cafe hours true

=== clarification: meeting rooms resolved by floor or price, dropped on a topic change
$ cc-route | jq -r '.route | "\(.agent) \(.request_type)"'
< {"query":"会議室の料金は？","session_id":"cl-2"}
< {"query":"2階のほうです","session_id":"cl-2"}
< {"query":"Can I book a meeting room?","session_id":"cl-3"}
< {"query":"The free one","session_id":"cl-3"}
< {"query":"会議室を使いたい","session_id":"cl-4"}
< {"query":"Wi-Fiのパスワードは？","session_id":"cl-4"}
< {"query":"2F","session_id":"cl-4"}
> ClarificationAgent null
> BusinessInfoAgent meeting-room
> ClarificationAgent null
> FacilityAgent basement
> ClarificationAgent null
> FacilityAgent wifi
> FacilityAgent wifi

=== sessions: events decide their follow-ups; clock and memory turns are skipped
$ cc-route | jq -r '.route | "\(.agent) \(.request_type)"'
< {"query":"今週のイベントは？","session_id":"ev-1"}
< {"query":"土曜日は？","session_id":"ev-1"}
< {"query":"参加費は？","session_id":"ev-1"}
< {"query":"今何時？","session_id":"ev-1"}
< {"query":"さっき何を聞いた？","session_id":"ev-1"}
< {"query":"場所はどこ？","session_id":"ev-1"}
> EventAgent event
> EventAgent event
> EventAgent event
> TimeAgent null
> MemoryAgent null
> EventAgent event

=== language: a turn with no letters answers in the session's language
$ cc-route | jq -r '.route.language'
< {"query":"Can I book a meeting room?","session_id":"lang-1"}
< {"query":"B1","session_id":"lang-1"}
< {"query":"B1","session_id":"lang-2"}
> en
> en
> ja

=== without a session id a record is routed with no memory
$ cc-route | jq -r '.route | "\(.agent) \(.debug_info.session.id) \(.debug_info.session.turn)"'
< {"query":"営業時間は？"}
< {"query":"土曜日は？"}
> BusinessInfoAgent null null
> BusinessInfoAgent null null

=== an earlier language_detection is used, not recomputed
$ cc-detect-lang | cc-route -n | jq -c '.route.debug_info.language_detection.cue, .route.language'
< "password教えて"
> "ja-frame"
> "ja"

=== the debug record says which rules fired and what matched
$ cc-route -n | jq -c '.route.debug_info.classification | {matched, slots, text}'
< "サイノのラストオーダーは何時ですか"
> {"matched":{"hours":"らすとおーだー","saino":"さいの"},"slots":{"entity":"saino","aspect":"hours","topic":"hours"},"text":"さいののらすとおーだーは何時ですか"}

=== a record without a query is an error record
$ cc-route -n
< {"id":1}
> {"id":1,"error":{"stage":"cc-route","code":"no_query","message":"the record has no string \"query\"","line":1}}
2> cc-route: line 1: the record has no string "query"
? 3

=== a rules file that does not exist
$ mkdir rd && cp "$CC_DATADIR/engineer-cafe/domain" rd/ && cc-route --domain ./rd < /dev/null
2> cc-route: cannot open './rd/routing.rules': No such file or directory
? 2

=== a bad pattern names the file, the line and the pattern
$ printf 'cue hours 営業(時間\n' > bad.rules && cc-route -r bad.rules < /dev/null
2> cc-route: bad.rules:1: hours: bad pattern '営業(時間': missing closing parenthesis at byte 13
? 2

=== an unknown cue in a condition
$ printf 'cue hours x\nslot agent\n  A when hour\n' > bad2.rules && cc-route -r bad2.rules < /dev/null
2> cc-route: bad2.rules:3: unknown cue 'hour'
? 2

=== a rule outside a slot, and an unknown directive
$ printf '  A when x\n' > bad3.rules && cc-route -r bad3.rules < /dev/null; printf 'kue x y\n' > bad4.rules && cc-route -r bad4.rules < /dev/null
2> cc-route: bad3.rules:1: indented rule outside a slot
2> cc-route: bad4.rules:1: unknown directive 'kue'
? 2

=== a memory window that is not a number
$ cc-route --memory-window soon < /dev/null
2> cc-route: invalid memory window 'soon': expected seconds
? 2

=== a state directory that cannot be used: a warning, and routing goes on
$ touch plain && CC_STATE_DIR=plain/state cc-route | jq -r .route.agent
< {"query":"営業時間は？","session_id":"ro"}
< {"query":"Wi-Fiは？","session_id":"ro"}
> BusinessInfoAgent
> FacilityAgent
2> cc-route: session memory unavailable, routing without context: cannot create 'plain/state': Not a directory

=== a detector's verdict is copied as it came, even without a cue; one that is not an object is detected again
$ cc-route -n | jq -c '[.route.language, .route.debug_info.language_detection]'
< {"query":"営業時間は？","language_detection":{"detected_language":"en"}}
< {"query":"hello","language_detection":"x"}
> ["en",{"detected_language":"en"}]
> ["en",{"detected_language":"en","confidence":0.9,"is_mixed":false,"cue":"en-frame"}]

=== upper-cased inputs read the record's own members; output lines add members to the route
$ printf 'cue why なぜ|\\bwhy\\b\ncue where どこ|\\bwhere\\b\ninput asked kind upper\nslot a\n  why when why\nslot b\n  where when where\ncount n why where\nslot agent\n  =asked when asked=QUICK\n  slow when asked?\n  many when n>=2\n  one otherwise\noutput aspects list a b\noutput matches number n\noutput asked_for flag asked\n' > f.rules && cc-route -n -r f.rules | jq -c '.route | [.agent, .aspects, .matches, .asked_for]'
< {"query":"why and where?"}
< {"query":"なぜ？","kind":"quick"}
< {"query":"なぜ？","kind":7}
< {"query":"x","kind":null}
> ["many",["why","where"],2,false]
> ["QUICK",["why"],1,true]
> ["slow",["why"],1,true]
> ["one",[],0,false]

=== an output line may not name a member cc-route writes itself
$ printf 'slot agent\n  A otherwise\noutput confidence agent\n' > o.rules && cc-route -r o.rules < /dev/null
2> cc-route: o.rules:3: output 'confidence' is a member cc-route writes itself
? 2
