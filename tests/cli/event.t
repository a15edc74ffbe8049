# cc-event: the asked time range and the events in it.  The clock is
# frozen at Wednesday 2025-01-15 10:00 in Asia/Tokyo (tests/lib.sh, make
# check); ranges are [start, end) in CC_TZ.  Conventions:
# ../shared/eval/README.md section 4 and cc-event(1).

=== full output: the specification's example, answered from the demo calendar
$ cc-event
< {"id":1,"query":"来週の勉強会"}
> {"id":1,"query":"来週の勉強会","events":{"time_range":"nextWeek","kind":"nextWeek","start":"2025-01-20T00:00:00+09:00","end":"2025-01-27T00:00:00+09:00","timezone":"Asia/Tokyo","expression":"来週","items":[{"title":"AI 勉強会 / AI study group","start":"2025-01-21T19:00:00+09:00","end":"2025-01-21T20:30:00+09:00","all_day":false,"description":"毎月第1・第3火曜。AIの論文やツールを持ち寄って学ぶ会。\nFirst and third Tuesday: papers and tools on AI, brought and shared.","location":"エンジニアカフェ 1F / Engineer Cafe 1F","url":"https://engineercafe.jp/","source":"calendar.ics"},{"title":"Makersスペース講習会（日曜に振替） / Makers-space training (moved to Sunday)","start":"2025-01-26T14:00:00+09:00","end":"2025-01-26T15:00:00+09:00","all_day":false,"description":"この回は日曜日に振替です。\nThis session moves to Sunday.","location":"エンジニアカフェ B1 Makersスペース / Engineer Cafe B1 Makers space","url":"https://engineercafe.jp/","source":"calendar.ics"}],"sources":[{"name":"calendar.ics","type":"ics","items":2}],"errors":[]}}

=== every expression of the issue, in both languages
$ cc-event | jq -r '[.query, .events.time_range // "null", .events.kind, .events.start, .events.end // "null"] | @tsv'
< "今日のイベントは？"
< "What events are scheduled this week?"
< "来週の勉強会を教えて"
< "今月のイベントはありますか？"
< "明日の夜"
< "tomorrow night"
< "明後日"
< "the day after tomorrow"
< "今週末"
< "this weekend"
< "来週末"
< "next weekend"
< "再来週"
< "the week after next"
< "来月"
< "next month"
< "1月20日"
< "Jan 20"
< "1/20"
< "金曜の夜"
< "Friday night"
< "今夜"
< "tonight"
< "今日から1週間"
< "the next 7 days"
< "次のイベントは？"
< "the next event"
< "イベントある？"
> 今日のイベントは？	today	today	2025-01-15T00:00:00+09:00	2025-01-16T00:00:00+09:00
> What events are scheduled this week?	thisWeek	thisWeek	2025-01-13T00:00:00+09:00	2025-01-20T00:00:00+09:00
> 来週の勉強会を教えて	nextWeek	nextWeek	2025-01-20T00:00:00+09:00	2025-01-27T00:00:00+09:00
> 今月のイベントはありますか？	thisMonth	thisMonth	2025-01-01T00:00:00+09:00	2025-02-01T00:00:00+09:00
> 明日の夜	thisWeek	tomorrow	2025-01-16T17:00:00+09:00	2025-01-17T00:00:00+09:00
> tomorrow night	thisWeek	tomorrow	2025-01-16T17:00:00+09:00	2025-01-17T00:00:00+09:00
> 明後日	thisWeek	dayAfterTomorrow	2025-01-17T00:00:00+09:00	2025-01-18T00:00:00+09:00
> the day after tomorrow	thisWeek	dayAfterTomorrow	2025-01-17T00:00:00+09:00	2025-01-18T00:00:00+09:00
> 今週末	thisWeek	thisWeekend	2025-01-18T00:00:00+09:00	2025-01-20T00:00:00+09:00
> this weekend	thisWeek	thisWeekend	2025-01-18T00:00:00+09:00	2025-01-20T00:00:00+09:00
> 来週末	nextWeek	nextWeekend	2025-01-25T00:00:00+09:00	2025-01-27T00:00:00+09:00
> next weekend	nextWeek	nextWeekend	2025-01-25T00:00:00+09:00	2025-01-27T00:00:00+09:00
> 再来週	null	weekAfterNext	2025-01-27T00:00:00+09:00	2025-02-03T00:00:00+09:00
> the week after next	null	weekAfterNext	2025-01-27T00:00:00+09:00	2025-02-03T00:00:00+09:00
> 来月	null	nextMonth	2025-02-01T00:00:00+09:00	2025-03-01T00:00:00+09:00
> next month	null	nextMonth	2025-02-01T00:00:00+09:00	2025-03-01T00:00:00+09:00
> 1月20日	nextWeek	date	2025-01-20T00:00:00+09:00	2025-01-21T00:00:00+09:00
> Jan 20	nextWeek	date	2025-01-20T00:00:00+09:00	2025-01-21T00:00:00+09:00
> 1/20	nextWeek	date	2025-01-20T00:00:00+09:00	2025-01-21T00:00:00+09:00
> 金曜の夜	thisWeek	weekday	2025-01-17T17:00:00+09:00	2025-01-18T00:00:00+09:00
> Friday night	thisWeek	weekday	2025-01-17T17:00:00+09:00	2025-01-18T00:00:00+09:00
> 今夜	today	today	2025-01-15T17:00:00+09:00	2025-01-16T00:00:00+09:00
> tonight	today	today	2025-01-15T17:00:00+09:00	2025-01-16T00:00:00+09:00
> 今日から1週間	thisMonth	nextNDays	2025-01-15T00:00:00+09:00	2025-01-22T00:00:00+09:00
> the next 7 days	thisMonth	nextNDays	2025-01-15T00:00:00+09:00	2025-01-22T00:00:00+09:00
> 次のイベントは？	thisWeek	nextUpcoming	2025-01-15T10:00:00+09:00	null
> the next event	thisWeek	nextUpcoming	2025-01-15T10:00:00+09:00	null
> イベントある？	thisWeek	thisWeek	2025-01-13T00:00:00+09:00	2025-01-20T00:00:00+09:00

=== traps of a literal port of extractTimeRange
$ cc-event | jq -r '[.query, .events.time_range // "null", .events.kind, .events.expression // "-"] | @tsv'
< "今週末のイベント"
< "再来週のイベント"
< "Today I Learned勉強会は今月ありますか"
< "I'm busy today — anything tomorrow?"
< "今日は来週のイベントについて聞きたい"
< "今週じゃなくて来週"
< "Not this week — next week's events, please"
< "今日から1週間のイベント"
> 今週末のイベント	thisWeek	thisWeekend	今週末
> 再来週のイベント	null	weekAfterNext	再来週
> Today I Learned勉強会は今月ありますか	thisMonth	thisMonth	今月
> I'm busy today — anything tomorrow?	thisWeek	tomorrow	tomorrow
> 今日は来週のイベントについて聞きたい	nextWeek	nextWeek	来週
> 今週じゃなくて来週	nextWeek	nextWeek	来週
> Not this week — next week's events, please	nextWeek	nextWeek	next week
> 今日から1週間のイベント	thisMonth	nextNDays	今日から1週間

=== extra fields: weekday, part of the day, days, month, title
$ cc-event | jq -c '.events | del(.items, .sources, .errors, .timezone)'
< "金曜の夜のイベント"
< "向こう3日間"
< "2月のイベント"
< "次のもくもく会はいつ？"
> {"time_range":"thisWeek","kind":"weekday","weekday":"friday","part_of_day":"night","start":"2025-01-17T17:00:00+09:00","end":"2025-01-18T00:00:00+09:00","expression":"金曜の夜"}
> {"time_range":"thisWeek","kind":"nextNDays","days":3,"start":"2025-01-15T00:00:00+09:00","end":"2025-01-18T00:00:00+09:00","expression":"向こう3日間"}
> {"time_range":null,"kind":"month","month":"2025-02","start":"2025-02-01T00:00:00+09:00","end":"2025-03-01T00:00:00+09:00","expression":"2月"}
> {"time_range":"thisWeek","kind":"nextUpcoming","title":"もくもく会","start":"2025-01-15T10:00:00+09:00","end":null,"expression":"次の"}

=== typed English: short forms and one-letter typos of time words
$ cc-event | jq -c '.events | [.kind, .time_range, .start[0:10], .end[0:10]]'
< "any events nxt wk?"
< "what's on this wknd"
< "events next mnth"
< "anything on satruday?"
< "events this weeekend"
< "events that match my interests"
> ["nextWeek","nextWeek","2025-01-20","2025-01-27"]
> ["thisWeekend","thisWeek","2025-01-18","2025-01-20"]
> ["nextMonth",null,"2025-02-01","2025-03-01"]
> ["weekday","thisWeek","2025-01-18","2025-01-19"]
> ["thisWeekend","thisWeek","2025-01-18","2025-01-20"]
> ["thisWeek","thisWeek","2025-01-13","2025-01-20"]

=== three days ahead, the rest of this week, two ranges at once
$ cc-event | jq -c '.events | [.kind, .time_range, .start[0:10], .end[0:10]]'
< "しあさってのイベントは？"
< "明々後日は何かある？"
< "events for the rest of this week"
< "今週の残りのイベントは？"
< "今週と来週のイベントは？"
< "events this weekend or next weekend"
> ["date","thisWeek","2025-01-18","2025-01-19"]
> ["date","thisWeek","2025-01-18","2025-01-19"]
> ["range","thisWeek","2025-01-15","2025-01-20"]
> ["range","thisWeek","2025-01-15","2025-01-20"]
> ["range","thisMonth","2025-01-13","2025-01-27"]
> ["range","thisMonth","2025-01-18","2025-01-27"]

=== days of the year by name: 大晦日, 元日, Christmas, New Year's Day (not a title)
$ cc-event | jq -c '.events | [.kind, .start[0:10]]'
< "大晦日のイベントは？"
< "元旦は何かある？"
< "クリスマスイブのイベント"
< "Is it open on New Year's Day?"
< "events on xmas eve"
> ["date","2025-12-31"]
> ["date","2025-01-01"]
> ["date","2025-12-24"]
> ["date","2025-01-01"]
> ["date","2025-12-24"]

=== a regular event by its name (events.conf event_name): its next dates
$ cc-event | jq -c '.events | [.kind, .title, (.items | map(.start[0:10]) | unique)]'
< "AI勉強会は何時から？"
< "メイカーズの講習会はいつ？"
< "来週のAI勉強会は？"
> ["nextUpcoming","AI 勉強会",["2025-01-21","2025-02-04","2025-02-18"]]
> ["nextUpcoming","Makers",["2025-01-18","2025-01-26","2025-02-01"]]
> ["nextWeek","AI 勉強会",["2025-01-21"]]

=== a recurrence fixture: each event in the range once, in order, at its local time
$ cc-event --ics "$top_srcdir"/tests/data/events/recur.ics | jq -r '.events | .kind, (.items[] | "\(.start) \(.end) \(.title)")'
< "今月のイベント"
> thisMonth
> 2025-01-01T19:00:00+09:00 2025-01-01T21:00:00+09:00 Weekly Wednesday (EXDATE 1/22)
> 2025-01-04T14:00:00+09:00 2025-01-04T15:00:00+09:00 Saturday class
> 2025-01-08T19:00:00+09:00 2025-01-08T21:00:00+09:00 Weekly Wednesday (EXDATE 1/22)
> 2025-01-11T14:00:00+09:00 2025-01-11T15:00:00+09:00 Saturday class
> 2025-01-13T12:00:00+09:00 2025-01-13T13:00:00+09:00 Second Monday lunch (COUNT=6)
> 2025-01-15T19:00:00+09:00 2025-01-15T21:00:00+09:00 Weekly Wednesday (EXDATE 1/22)
> 2025-01-18T14:00:00+09:00 2025-01-18T15:00:00+09:00 Saturday class
> 2025-01-20T19:00:00+09:00 2025-01-20T20:00:00+09:00 UTC talk (RDATE 1/27)
> 2025-01-24T00:00:00+09:00 2025-01-26T00:00:00+09:00 二日間のフェスティバル / Two-day festival
> 2025-01-26T16:00:00+09:00 2025-01-26T17:00:00+09:00 Saturday class (moved to Sunday 16:00)
> 2025-01-27T19:00:00+09:00 2025-01-27T20:00:00+09:00 UTC talk (RDATE 1/27)
> 2025-01-29T19:00:00+09:00 2025-01-29T21:00:00+09:00 Weekly Wednesday (EXDATE 1/22)

=== none outside the range: a week, with a moved and an excluded occurrence
$ cc-event --ics "$top_srcdir"/tests/data/events/recur.ics | jq -r '.events | .kind, (.items[] | "\(.start[5:16]) \(.title)")'
< "来週"
< "2月1日"
> nextWeek
> 01-20T19:00 UTC talk (RDATE 1/27)
> 01-24T00:00 二日間のフェスティバル / Two-day festival
> 01-26T16:00 Saturday class (moved to Sunday 16:00)
> date

=== a New York event across the DST change, shown in Tokyo
$ cc-event --ics "$top_srcdir"/tests/data/events/recur.ics | jq -r '.events.items[] | select(.title | startswith("New York")) | .start'
< "3月のイベント"
> 2025-03-04T00:00:00+09:00
> 2025-03-10T23:00:00+09:00
> 2025-03-17T23:00:00+09:00
> 2025-03-24T23:00:00+09:00

=== ... and in New York, at 10:00 on both sides of the change
$ CC_TZ=America/New_York cc-event --ics "$top_srcdir"/tests/data/events/recur.ics --now 2025-03-06T09:00:00-05:00 | jq -r '.events | .start, .end, (.items[] | .start + " " + .title)'
< "next week"
< "this weekend"
> 2025-03-10T00:00:00-04:00
> 2025-03-17T00:00:00-04:00
> 2025-03-10T10:00:00-04:00 New York stand-up (10:00 New York time)
> 2025-03-12T06:00:00-04:00 Weekly Wednesday (EXDATE 1/22)
> 2025-03-15T01:00:00-04:00 Saturday class
> 2025-03-08T00:00:00-05:00
> 2025-03-10T00:00:00-04:00
> 2025-03-08T00:00:00-05:00 Saturday class
> 2025-03-09T23:00:00-04:00 Second Monday lunch (COUNT=6)

=== the demo calendar keeps the New Year closure (EXRULE)
$ cc-event --now 2025-12-26T12:00:00+09:00 | jq -r '.events | .kind, (.items[] | .start[0:16] + " " + .title)'
< "next week"
< "再来週"
< "12月31日"
> nextWeek
> weekAfterNext
> 2026-01-06T19:00 AI 勉強会 / AI study group
> 2026-01-07T19:00 もくもく会 / Mokumoku night
> 2026-01-10T14:00 Makersスペース講習会 / Makers-space training
> date

=== two sources with the same events: each event is listed once
$ cc-event --ics "$CC_DATADIR"/engineer-cafe/calendar.ics --ics "$CC_DATADIR"/engineer-cafe/calendar.ics | jq -c '.events | [(.items | length), .sources]'
< "今週"
> [3,[{"name":"calendar.ics","type":"ics","items":3},{"name":"calendar.ics","type":"ics","items":3}]]

=== the next event: the title asked for filters the items
$ cc-event | jq -r '.events | .kind + " " + (.title // "-"), (.items[] | .start[0:16] + " " + .title)'
< "次のもくもく会はいつ？"
< "When is the next Meetup?"
> nextUpcoming もくもく会
> 2025-01-15T19:00 もくもく会 / Mokumoku night
> 2025-01-29T19:00 もくもく会 / Mokumoku night
> 2025-02-05T19:00 もくもく会 / Mokumoku night
> nextUpcoming Meetup
> 2025-01-17T19:00 Engineer Cafe Meetup（LT会） / Engineer Cafe Meetup (lightning talks)
> 2025-02-21T19:00 Engineer Cafe Meetup（LT会） / Engineer Cafe Meetup (lightning talks)
> 2025-03-21T19:00 Engineer Cafe Meetup（LT会） / Engineer Cafe Meetup (lightning talks)

=== --upcoming sets how many upcoming events are listed
$ cc-event --upcoming 1 | jq -c '[.events.items[].start]'
< "What's the next event?"
> ["2025-01-15T19:00:00+09:00"]

=== --now overrides CC_NOW
$ cc-event --now 2025-03-01T09:00:00+09:00 | jq -r '.events.start + " " + .events.kind'
< "今日"
> 2025-03-01T00:00:00+09:00 today

=== other agents' records pass through unchanged
$ cc-event
< {"query":"Wi-Fiのパスワードは？","route":{"agent":"FacilityAgent","category":"facility-info"}}
> {"query":"Wi-Fiのパスワードは？","route":{"agent":"FacilityAgent","category":"facility-info"}}

=== EventAgent records, and records with no route or no agent, are answered
$ cc-event | jq -c '[.id, .events.kind]'
< {"id":1,"query":"明日","route":{"agent":"EventAgent"}}
< {"id":2,"query":"明日"}
< {"id":3,"query":"明日","route":null}
< {"id":4,"query":"明日","route":{}}
> [1,"tomorrow"]
> [2,"tomorrow"]
> [3,"tomorrow"]
> [4,"tomorrow"]

=== a record without a query becomes an error record
$ cc-event
< {"id":"x","route":{"agent":"EventAgent"}}
> {"id":"x","route":{"agent":"EventAgent"},"error":{"stage":"cc-event","code":"no_query","message":"the record has no string \"query\"","line":1}}
2> cc-event: line 1: the record has no string "query"
? 3

=== a calendar file that cannot be read is a usage error
$ cc-event --ics nonexistent.ics
< "今日"
2> cc-event: cannot read calendar 'nonexistent.ics': No such file or directory
? 2

=== text that is not a calendar is a usage error
$ printf "hello\n" > x.ics; cc-event --ics x.ics
< "今日"
2> cc-event: cannot read calendar 'x.ics': not an iCalendar file (no BEGIN:VCALENDAR)
? 2

=== connpass needs its key in the environment
$ CC_CONNPASS_API_KEY= cc-event --connpass
< "今日"
2> cc-event: --connpass needs the API key in CC_CONNPASS_API_KEY
? 2

=== an unknown time zone is a usage error
$ CC_TZ=Mars/Olympus cc-event
< "今日"
2> cc-event: unknown time zone 'Mars/Olympus' in CC_TZ
? 2

=== a malformed --now is a usage error
$ cc-event --now tomorrow
< "今日"
2> cc-event: invalid --now 'tomorrow': expected ISO 8601 such as 2025-01-15T10:00:00+09:00
? 2

=== a bad number is a usage error
$ cc-event --timeout 0 2>&1 | head -n 2
< "今日"
> cc-event: invalid --timeout '0': expected 1 to 600
> usage: cc-event [--ics FILE|URL]... [--connpass] [--now TIME] [options]

=== --help goes to stdout and exits 0
$ cc-event --help | head -n 1
> usage: cc-event [--ics FILE|URL]... [--connpass] [--now TIME] [options]

=== --version names the package
$ cc-event --version | sed 's/[0-9][0-9.]*$/VERSION/'
> cc-event (concierge) VERSION

=== an operand is a usage error
$ cc-event file.ndjson 2>/dev/null
? 2


=== the event asked for is found whatever the spaces in its title ("AI勉強会" is "AI 勉強会")
$ cc-event | jq -r '[.events.kind, .events.items[0].title, .events.items[0].start] | @tsv'
< "次のAI勉強会はいつですか？"
> nextUpcoming	AI 勉強会 / AI study group	2025-01-21T19:00:00+09:00

=== a quoted title is a title, in English too, and the name inside the quotes is what is looked for
$ cc-event | jq -r '[.events.kind, .events.title // "-"] | @tsv'
< "When's the next 'Today I Learned' night?"
< "次の「もくもく会」はいつ？"
< "I'm busy today, what's on tomorrow?"
> nextUpcoming	Today I Learned
> nextUpcoming	もくもく会
> tomorrow	-
