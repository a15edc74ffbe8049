# cc-coach: the tools' command line, the session state and the parent
# report.  Session ids begin with cli-coach- (the state directory is shared
# by every case of tests/cli).

=== tools: the registry, every tool of the seed
$ cc-coach tools | awk '/^[a-z]/ { print $1, $2 }'
> calculate_and_verify built
> manage_hint built
> check_curriculum built
> record_progress built
> analyze_homework_image built
> update_emotion built

=== call: a tool's result, one line of JSON
$ cc-coach call manage_hint '{"session_id":"s1","action":"advance"}'
> {"current_level":1,"max_level":3,"hint_template":"問題を もういちど ゆっくり よんでみよう。なにを きかれて いるかな？","can_advance":true,"hints_used_total":1,"problem_id":null}

=== call: without -s every call starts from a fresh state
$ cc-coach call manage_hint '{"action":"advance"}' | jq -c .current_level; cc-coach call manage_hint '{"action":"advance"}' | jq -c .current_level
> 1
> 1

=== call: with -s the state carries from one call to the next
$ for i in 1 2; do cc-coach call manage_hint '{"action":"advance"}' -s cli-coach-carry | jq -c .current_level; done; cc-coach state -s cli-coach-carry | jq -c '[.hint_level, .hints_used_total]'
> 1
> 2
> [2,2]

=== call: a new problem starts at level 0, solving it ends it
$ s=cli-coach-problems; cc-coach call manage_hint '{"action":"advance","problem_id":"p1"}' -s $s | jq -c .current_level; cc-coach call manage_hint '{"action":"get_current","problem_id":"p2"}' -s $s | jq -c '[.current_level, .hints_used_total]'; cc-coach call manage_hint '{"action":"advance"}' -s $s > /dev/null; cc-coach call record_progress '{"outcome":"hint_solved"}' -s $s | jq -c '[.points_earned, .streak]'; cc-coach state -s $s | jq -c '[.hint_level, .problem, .solved[0].problem_id, .solved[0].hints_used]'
> 1
> [0,1]
> [2,1]
> [0,null,"p2",1]

=== call: arguments given as a JSON string that holds an object
$ cc-coach call check_curriculum '"{\"grade_level\":2,\"subject\":\"japanese\",\"topic\":\"kanji_grade2\"}"' | jq -c '[.matched, .title, .related_topics]'
> ["table","2年の漢字（160字）",["reading","writing"]]

=== call: arguments from standard input
$ cc-coach call check_curriculum - | jq -c '[.matched, .related_topics]'
< {"grade_level": 3, "subject": "math", "topic": "division"}
> ["table",["multiplication","fractions"]]

=== call: a tool's error is printed as its result, exit 3, nothing stored
$ cc-coach call manage_hint '{"action":"bogus"}' -s cli-coach-err; echo "status $?"; cc-coach state -s cli-coach-err
> {"error":"Unknown action: bogus"}
> status 3
> {}

=== call: an invalid outcome, exit 3
$ cc-coach call record_progress '{"outcome":"invalid","hints_used":0}'
> {"error":"Unknown outcome: invalid"}
? 3

=== call: arguments of the wrong type are an error result
$ cc-coach call record_progress '{"outcome":"self_solved","hints_used":"two"}'
> {"error":"hints_used must be a number from 0 to 1000000"}
? 3

=== call: bad JSON arguments, exit 3
$ cc-coach call manage_hint '{"action":'
2> cc-coach: the tool's arguments: not valid JSON
? 3

=== call: arguments that are not an object, exit 3
$ cc-coach call manage_hint '[1,2]'
2> cc-coach: the tool's arguments: expected a JSON object, not array
? 3

=== call: a string that does not hold an object, exit 3
$ cc-coach call manage_hint '"advance"'
2> cc-coach: the tool's arguments: not valid JSON
? 3

=== call: an unknown tool is a usage error
$ cc-coach call frobnicate '{}' 2>&1 >/dev/null | head -1; cc-coach call frobnicate '{}' 2>/dev/null; echo "status $?"
> cc-coach: unknown tool 'frobnicate' (cc-coach tools lists them)
> status 2

=== call: a missing argument is a usage error
$ cc-coach call manage_hint 2>&1 >/dev/null | head -1; cc-coach call manage_hint 2>/dev/null; echo "status $?"
> cc-coach: call: expected the tool's JSON arguments
> status 2

=== call: update_emotion stores the emotion with the session; an invalid one is an error and stores nothing
$ cc-coach call update_emotion '{"frustration":0.8,"confidence":0.1,"fatigue":0.1,"excitement":0.1,"primary_emotion":"frustrated"}' -s cli-emo; cc-coach call update_emotion '{"frustration":0.1,"confidence":0.1,"fatigue":0.1,"excitement":0.1,"primary_emotion":"grumpy"}' -s cli-emo > /dev/null; echo "status $?"; cc-coach state -s cli-emo | jq -c '.emotion | [.frustration, .primary_emotion, .support_level]'
> {"primary_emotion":"frustrated","support_level":"intensive","action_recommended":"encourage"}
> status 3
> [0.8,"frustrated","intensive"]

=== state: the emotion state is shown merged in as "emotion"
$ cc-coach state -s cli-coach-state --set '{"total_points":4,"emotion":{"frustration":0.2}}'; cc-coach state -s cli-coach-state
> {"total_points":4,"emotion":{"frustration":0.2}}

=== state: a tool sees the emotion and keeps it
$ cc-coach state -s cli-coach-emo --set '{"emotion":{"x":1}}'; cc-coach call record_progress '{"outcome":"self_solved"}' -s cli-coach-emo > /dev/null; cc-coach state -s cli-coach-emo | jq -c '[.total_points, .emotion]'
> [3,{"x":1}]

=== state: --set replaces the coach's state
$ s=cli-coach-replace; cc-coach state -s $s --set '{"streak":2}'; cc-coach state -s $s --set '{"total_points":1}'; cc-coach state -s $s
> {"total_points":1}

=== state: --set needs an object, and an object for emotion
$ cc-coach state -s cli-coach-bad --set '[1]'; echo "status $?"; cc-coach state -s cli-coach-bad --set '{"emotion":5}'; echo "status $?"; cc-coach state -s cli-coach-bad
> status 3
> status 3
> {}
2> cc-coach: --set: expected a JSON object, not array
2> cc-coach: --set: "emotion" must be a JSON object

=== state: a session is needed
$ cc-coach state 2>&1 >/dev/null | head -1; cc-coach state 2>/dev/null; echo "status $?"
> cc-coach: state: expected -s SESSION
> status 2

=== report: a parent report of today, text
$ cc-coach state -s cli-coach-report --set "$(cat)"; cc-coach report -s cli-coach-report
< {"total_points":9,"streak":1,"best_streak":2,"solved":[{"problem_id":"y1","subject":"math","expression":"1 + 1","outcome":"self_solved","points":3,"hints_used":0,"at":"2025-01-14T01:00:00Z"},{"problem_id":"p1","subject":"math","expression":"8 + 5","outcome":"self_solved","points":3,"hints_used":0,"time_spent_seconds":60,"at":"2025-01-15T00:40:00Z"},{"problem_id":"p2","subject":"japanese","text":"「森」を書こう","outcome":"hint_solved","points":2,"hints_used":2,"time_spent_seconds":240,"at":"2025-01-15T00:50:00Z"},{"problem_id":"p3","subject":"math","expression":"13 - 8","outcome":"guided_solved","points":1,"hints_used":3,"stumbles":2,"time_spent_seconds":300,"at":"2025-01-15T00:58:00Z"}],"achievements":[{"id":"first_problem","at":"2025-01-14T01:00:00Z"},{"id":"points_10","at":"2025-01-15T00:50:00Z"}]}
> 今日の学習レポート（2025年1月15日）
>
> 算数：2問（自分で1問、一緒に1問）、ヒント3回、4ポイント
>   - 8 + 5：自分で解けました（ヒント0回、3ポイント）
>   - 13 - 8：コーチと一緒に解きました（ヒント3回、1ポイント）
>
> 国語：1問（ヒントで1問）、ヒント2回、2ポイント
>   - 「森」を書こう：ヒントを使って解けました（ヒント2回、2ポイント）
>
> ポイント：今日 6ポイント（合計 9ポイント）
> 連続正解：1問（最高 2問）
> 学習時間：約10分
> 今日もらった称号：ポイント 10 たっせい
>
> ひとこと：コーチと一緒に、最後まであきらめずに取り組みました。少しずつ自分でできることが増えています。

=== report: Markdown, with what the child's problems say escaped
$ cc-coach state -s cli-coach-md --set '{"solved":[{"subject":"math","expression":"2 * 3 * 4","outcome":"self_solved","points":3,"at":"2025-01-15T00:40:00Z"}]}'; cc-coach report -s cli-coach-md --format markdown
> # 今日の学習レポート（2025年1月15日）
>
> ## 算数：1問（自分で1問）、ヒント0回、3ポイント
>
> - 2 \* 3 \* 4：自分で解けました（ヒント0回、3ポイント）
>
> - ポイント：今日 3ポイント（合計 0ポイント）
> - 連続正解：0問（最高 0問）
>
> > ひとこと：今日はすべての問題を自分の力で解きました。自分で考える力がついています。

=== report: JSON, in English
$ cc-coach report -s cli-coach-report -f json -l en | jq -c '[.date, .problems_total, .points_today, [.subjects[] | .name], [.problems[] | .outcome_text], .achievements[0].title, .minutes_today]'
> ["2025-01-15",3,6,["Math","Japanese"],["solved on their own","solved with hints","solved together with the coach"],"10 Points",10]

=== report: a session with nothing today
$ cc-coach report -s cli-coach-nobody --lang en
> Today's study report (2025-01-15)
>
> No problems were recorded today.
>
> Points: 0 today (0 in all)
> Solved in a row: 0 (best 0)
>
> A word from the coach: Nothing is recorded yet today, but sitting down to study is already a great first step.

=== report: control characters from the state are escaped
$ cc-coach state -s cli-coach-esc --set '{"solved":[{"subject":"japanese","text":"\u001b[2Jあ","outcome":"hint_solved","points":2,"hints_used":1,"at":"2025-01-15T00:40:00Z"}]}'; cc-coach report -s cli-coach-esc | sed -n 4p
>   - ^[[2Jあ：ヒントを使って解けました（ヒント1回、2ポイント）

=== report: an unknown format or language is a usage error
$ cc-coach report -s x -f pdf 2>&1 | head -1; cc-coach report -s x -l fr 2>/dev/null; echo "status $?"
> cc-coach: unknown format 'pdf': text, markdown or json
> status 2

=== the data folder: another domain without the coach's files
$ CC_DOMAIN=engineer-cafe cc-coach call manage_hint '{"action":"advance"}' 2>&1 | sed 's|/[^ ]*/share/concierge/|DATA/|'; cc-coach --domain nowhere call manage_hint '{"action":"advance"}' 2>/dev/null; echo "status $?"
> cc-coach: cannot open 'DATA/engineer-cafe/calc-hints': No such file or directory
> status 2

=== options: --set belongs to state, -s to a command; without one, cc-coach is a stage
$ cc-coach call manage_hint '{}' --set '{}' 2>&1 | head -1; cc-coach -s x < /dev/null 2>&1 | head -1; cc-coach frob 2>&1 | head -1; echo '"3+4は？"' | cc-coach -n | jq -c '.coach | [.event, .problem.expression, .answer_request.request_type]'
> cc-coach: --set is an option of the state command
> cc-coach: -s, --set, -f and -l belong to a command
> cc-coach: unknown command 'frob': call, state, report or tools
> ["new_problem","3+4","explicit"]

=== options: --help and --version
$ cc-coach --help | head -1; cc-coach --version | sed 's/[0-9][0-9.]*/N/'
> usage: cc-coach [-u] [-n] < records.ndjson
> cc-coach (concierge) N
