# cc-emotion: the record it writes, its session memory, its errors; and
# cc-route with the homework coach's rules, which read cc-emotion's
# decision through their input lines.

=== a confused child: moderate support, the cue that said so
$ cc-emotion -n | jq -c '.emotion | [.primary_emotion, .support_level, .action_recommended, .frustration, .debug_info.cues[0].class, .debug_info.cues[0].text]'
< {"query":"ひきざんのくりさがりがわかんない"}
> ["confused","moderate","continue",0.5,"confusion","わかんな"]

=== an angry わかんない！ is strong frustration
$ cc-emotion -n | jq -c '.emotion | [.primary_emotion, .support_level, .action_recommended, .debug_info.cues[0].class, .debug_info.cues[0].written_as, .debug_info.cues[0].modifier]'
< "わかんないのーー！"
> ["frustrated","intensive","encourage","frustration","confusion","strong"]

=== qualifiers soften, negation cancels
$ cc-emotion -n | jq -c '.emotion | [.primary_emotion, .support_level, .fatigue]'
< "ちょっとだけねむいけど わりざんやる"
< "つかれた"
< "つかれてないよ"
< "I'm a bit tired but I'll finish"
> ["tired","moderate",0.45]
> ["tired","intensive",0.8]
> ["neutral","minimal",0]
> ["tired","moderate",0.45]

=== cc-coach's numbers: three stumbles, fifteen minutes of work
$ cc-emotion -n | jq -c '.emotion | [.primary_emotion, .support_level, .action_recommended, .debug_info.session]'
< {"query":"8かな","coach":{"stumbles":3,"working_minutes":4}}
< {"query":"8かな","coach":{"stumbles":0,"working_minutes":15}}
> ["frustrated","intensive","encourage",{"stumbles":3,"working_minutes":4,"floors":[{"input":"stumbles","at_least":2,"class":"confusion","score":0.5},{"input":"stumbles","at_least":3,"class":"frustration","score":0.75}],"carried":null}]
> ["tired","intensive","rest",{"stumbles":0,"working_minutes":15,"floors":[{"input":"working_minutes","at_least":15,"class":"fatigue","score":0.65}],"carried":null}]

=== the session remembers: one calm turn after a tantrum is not yet neutral
$ cc-emotion | jq -c '.emotion | [.primary_emotion, .support_level, .frustration]'
< {"session_id":"e1","query":"もうやだ！"}
< {"session_id":"e1","query":"3たす5"}
< {"session_id":"e1","query":"3たす5"}
< {"session_id":"e2","query":"3たす5"}
> ["frustrated","intensive",0.85]
> ["frustrated","moderate",0.425]
> ["neutral","minimal",0.213]
> ["neutral","minimal",0]

=== the caller's scores are the update_emotion input (clamped, strict thresholds)
$ cc-emotion -n | jq -c '.emotion | [.primary_emotion, .support_level, .action_recommended, .frustration, .debug_info.source]'
< {"query":"3 + 5 = ?","emotion":{"frustration":0.7,"confidence":0.5,"fatigue":0.6,"excitement":0.5,"primary_emotion":"neutral"}}
< {"query":"3 + 5 = ?","emotion":{"frustration":1.5,"confidence":0,"fatigue":0.9,"excitement":0}}
> ["neutral","moderate","continue",0.7,"caller"]
> ["tired","intensive","rest",1,"caller"]

=== records it cannot read a feeling from pass through; bad ones become error records
$ cc-emotion -n > out; st=$?; jq -c '[.id, (.emotion | if type == "object" then .support_level else null end), .error.code]' out; exit $st
< {"id":1}
< {"id":2,"query":"x","emotion":{"frustration":0.5,"confidence":0.5,"fatigue":"high","excitement":0}}
< {"id":3,"query":"x","emotion":{"frustration":0.5,"confidence":0.5,"fatigue":0.5,"excitement":0,"primary_emotion":"angry"}}
< {"id":4,"query":"x","emotion":[1]}
< {"id":5,"query":"x","error":{"code":"earlier"}}
< {"id":6,"query":"x","emotion":null}
> [1,null,null]
> [2,null,"bad_emotion"]
> [3,null,"bad_emotion"]
> [4,null,"bad_emotion"]
> [5,null,"earlier"]
> [6,"minimal",null]
2> cc-emotion: line 2: emotion: Invalid fatigue: must be a number
2> cc-emotion: line 3: emotion: Invalid primary_emotion: angry. Must be one of: confident, confused, frustrated, happy, neutral, tired
2> cc-emotion: line 4: "emotion" is not an object
? 3

=== a line that is not JSON is an error record
$ cc-emotion -n > out; st=$?; jq -c '[.error.stage, .error.code]' out; exit $st
< not json
> ["cc-emotion","bad_json"]
2> cc-emotion: line 1: invalid JSON at column 1: unexpected character
? 3

=== cues that cannot be used stop it before any record
$ printf 'class x\ncue y 0.5 z\n' > bad.cues; cc-emotion -c bad.cues < /dev/null
2> cc-emotion: bad.cues:2: unknown class 'y' (declare it with 'class')
? 2

=== usage
$ cc-emotion --bogus
2> cc-emotion: unrecognized option '--bogus'
2> usage: cc-emotion [-nu] [-c FILE] < records.ndjson
2> Adds emotion {frustration, confidence, fatigue, excitement,
2> primary_emotion, support_level, action_recommended, debug_info} to each
2> NDJSON record from its "query", the numbers cc-coach puts in "coach"
2> and the session's last turn ("session_id").
2>   -c, --cues FILE    emotion cues (default: the domain's emotion.cues)
2>   -n, --no-memory    decide every record on its own
2>   -u, --unbuffered   flush after every record
2>   -h, --help         show this help
2>   -V, --version      show the version
? 2

=== the homework coach's routes: emotion first, then content, else ask
$ cc-emotion -n | cc-route -n --rules "$top_srcdir/share/concierge/homework-coach/routing.rules" | jq -r '.route | "\(.agent) \(.category) \(.request_type)"'
< "ひきざんきらい！"
< "さんたすご"
< "かんじのかきじゅん"
< "きょうなにしたっけ"
< "わからないよ"
< "4ばんがわからん"
< "こんにちは"
> encouragement_agent encouragement frustrated
> math_coach math arithmetic
> japanese_coach japanese kanji
> review_agent review recap
> encouragement_agent encouragement confused
> router_agent clarification clarification
> router_agent clarification clarification

=== cc-route reads emotion.support_level from the record (input support ...)
$ cc-route -n --rules "$top_srcdir/share/concierge/homework-coach/routing.rules" | jq -c '[.route.agent, .route.debug_info.classification.slots.support]'
< {"query":"さんたすご","emotion":{"support_level":"intensive"}}
< {"query":"さんたすご","emotion":{"support_level":"moderate"}}
< {"query":"さんたすご","emotion":{"support_level":7}}
< {"query":"さんたすご","emotion":{"support_level":null}}
< {"query":"さんたすご"}
> ["encouragement_agent","intensive"]
> ["math_coach","moderate"]
> ["math_coach","7"]
> ["math_coach",null]
> ["math_coach",null]

=== in a session, a turn with no subject of its own goes on with the last one
$ cc-emotion | cc-route --rules "$top_srcdir/share/concierge/homework-coach/routing.rules" | jq -r '.route.agent'
< {"session_id":"r1","query":"かんじのかきじゅん"}
< {"session_id":"r1","query":"できた！"}
< {"session_id":"r1","query":"4ばんがわからん"}
< {"session_id":"r2","query":"4ばんがわからん"}
> japanese_coach
> japanese_coach
> japanese_coach
> router_agent
