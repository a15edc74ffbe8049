# cc-respond: the composed answer of every agent, in both languages.
# Records are written by hand here, so these cases do not depend on the
# knowledge base or the calendar; tests/answers.test runs the pipeline.

=== BusinessInfo: the passage in the answer language about the asked place
$ cc-respond | jq -c .response
< {"query":"営業時間は？","route":{"agent":"BusinessInfoAgent","category":"facility-info","request_type":"hours","language":"ja"},"retrieval":{"results":[{"id":"h-en","content":"Open 9-22.","language":"en","category":"facility-info","source":"knowledge_base","score":9},{"id":"s-ja","content":"サイノは12時から。","language":"ja","category":"saino-cafe","source":"knowledge_base","score":8},{"id":"h-ja","content":"9時から22時まで。","language":"ja","category":"facility-info","source":"knowledge_base","score":7}]}}
> {"text":"[relaxed]9時から22時まで。","emotion":"helpful","agent_name":"BusinessInfoAgent","language":"ja","metadata":{"confidence":0.8,"category":"facility-info","request_type":"hours","sources":["knowledge_base"],"processing_info":{"enhanced_rag":false,"composer":"rules","passages":["h-ja"]}}}

=== BusinessInfo: Saino's passage when Saino was asked about
$ cc-respond --text
< {"query":"Saino hours?","route":{"agent":"BusinessInfoAgent","category":"saino-cafe","request_type":"hours","language":"en"},"retrieval":{"results":[{"id":"ec","content":"Engineer Cafe: 9:00-22:00.","language":"en","category":"facility-info","source":"knowledge_base","score":9},{"id":"saino","content":"Saino: 12:00-20:30.","language":"en","category":"saino-cafe","source":"knowledge_base","score":8}]}}
> [relaxed]Saino: 12:00-20:30.

=== Facility: nothing found is the apologetic answer, not a guess
$ cc-respond --camel | jq -c .response
< {"query":"q","route":{"agent":"FacilityAgent","category":"facility-info","request_type":"wifi","language":"en"},"retrieval":{"results":[]}}
> {"text":"[sad]I'm sorry, I couldn't find that information. Please ask the staff at reception.","emotion":"apologetic","agentName":"FacilityAgent","language":"en","metadata":{"confidence":0.3,"category":"facility-info","requestType":"wifi","sources":["fallback"],"processingInfo":{"enhancedRag":false,"composer":"rules","passages":[]}}}

=== Event: the events of the range, in order, in the answer's language (ja)
$ cc-respond | jq -c .response
< {"query":"q","route":{"agent":"EventAgent","category":"events","request_type":"event","language":"ja"},"events":{"time_range":"thisWeek","kind":"thisWeek","items":[{"title":"もくもく会 / Mokumoku night","start":"2025-01-15T19:00:00+09:00","end":"2025-01-15T21:00:00+09:00","description":"静かに作業する夜。\nA quiet night of work.","source":"calendar"},{"title":"AI 勉強会 / AI study group","start":"2025-01-17T19:00:00+09:00","end":"2025-01-17T20:30:00+09:00","source":"calendar"}],"errors":[]}}
> {"text":"[happy]今週は以下のイベントがあります：\n\n- もくもく会\n  時間: 2025/01/15（水）19:00 - 21:00\n  静かに作業する夜。\n\n- AI 勉強会\n  時間: 2025/01/17（金）19:00 - 20:30\n  説明なし","emotion":"excited","agent_name":"EventAgent","language":"ja","metadata":{"confidence":0.8,"category":"events","request_type":"event","sources":["calendar","knowledge_base"],"processing_info":{"enhanced_rag":false,"composer":"rules","passages":[],"events":2}}}

=== Event: the same in English
$ cc-respond --text
< {"query":"q","route":{"agent":"EventAgent","category":"events","request_type":"event","language":"en"},"events":{"time_range":"thisWeek","kind":"thisWeek","items":[{"title":"もくもく会 / Mokumoku night","start":"2025-01-15T19:00:00+09:00","end":"2025-01-15T21:00:00+09:00","description":"静かに作業する夜。\nA quiet night of work.","source":"calendar"},{"title":"AI 勉強会 / AI study group","start":"2025-01-17T19:00:00+09:00","end":"2025-01-17T20:30:00+09:00","source":"calendar"}],"errors":[]}}
> [happy]Here are the events this week:
>
> - Mokumoku night
>   Time: Wed, Jan 15, 2025, 7:00 PM - 9:00 PM
>   A quiet night of work.
>
> - AI study group
>   Time: Fri, Jan 17, 2025, 7:00 PM - 8:30 PM
>   No description

=== Event: none found names the range (seed 004), confidence 0.7
$ cc-respond | jq -c '.response | [.text, .emotion, .metadata.confidence]'
< {"query":"q","route":{"agent":"EventAgent","category":"events","request_type":"event","language":"ja"},"events":{"kind":"nextWeek","items":[],"errors":[]}}
< {"query":"q","route":{"agent":"EventAgent","category":"events","request_type":"event","language":"en"},"events":{"kind":"tomorrow","start":"2025-01-16T00:00:00+09:00","items":[],"errors":[]}}
< {"query":"q","route":{"agent":"EventAgent","category":"events","request_type":"event","language":"en"},"events":{"kind":"weekday","start":"2025-01-17T00:00:00+09:00","items":[],"errors":[]}}
> ["[sad]来週のエンジニアカフェでの予定されたイベントが見つかりませんでした。最新のイベント情報については、公式ウェブサイトをご確認いただくか、スタッフにお問い合わせください。","apologetic",0.7]
> ["[sad]I couldn't find any scheduled events tomorrow at Engineer Cafe. Please check the official website or contact the staff for the most up-to-date event information.","apologetic",0.7]
> ["[sad]I couldn't find any scheduled events on Friday, January 17 at Engineer Cafe. Please check the official website or contact the staff for the most up-to-date event information.","apologetic",0.7]

=== Event: with the calendar down, the knowledge base answers (seed 004 fallback)
$ cc-respond | jq -c '.response | [.text, .metadata.processing_info.passages]'
< {"query":"q","route":{"agent":"EventAgent","category":"events","request_type":"event","language":"en"},"events":{"kind":"thisWeek","items":[],"errors":[{"source":"https://calendar.example/...","code":"timeout"}]},"retrieval":{"results":[{"id":"ev-en","content":"Mokumoku every Wednesday.","language":"en","category":"events","source":"knowledge_base","score":20}]}}
> ["[relaxed]I couldn't check the calendar, but these are the regular events:\n\nMokumoku every Wednesday.",["ev-en"]]

=== Clarification: the two cafes, and the two kinds of meeting room
$ cc-respond --text
< {"query":"q","route":{"agent":"ClarificationAgent","category":"cafe-clarification-needed","request_type":null,"language":"ja"}}
< {"query":"q","route":{"agent":"ClarificationAgent","category":"cafe-clarification-needed","request_type":null,"language":"en"}}
< {"query":"q","route":{"agent":"ClarificationAgent","category":"meeting-room-clarification-needed","request_type":null,"language":"ja"}}
> [surprised]どちらのカフェについてでしょうか？ 無料のコワーキングスペース「エンジニアカフェ」と、館内のカフェ＆バー「サイノ」があります。
> [surprised]Which cafe do you mean? There is Engineer Cafe, the free coworking space, and Saino, the cafe & bar inside it.
> [surprised]どちらの会議室についてでしょうか？ 2階の有料の会議室（福岡市の管理）と、地下1階の無料のMTGスペースなどがあります。

=== Time: now in CC_TZ, in each language
$ cc-respond --text
< {"query":"q","route":{"agent":"TimeAgent","category":"current-time","request_type":null,"language":"ja"}}
< {"query":"q","route":{"agent":"TimeAgent","category":"current-time","request_type":null,"language":"en"}}
> [relaxed]現在は2025年1月15日（水）10時00分です。
> [relaxed]It is 10:00 AM on Wednesday, January 15, 2025.

=== Time: another zone
$ CC_TZ=America/New_York cc-respond --text --no-emotion
< {"query":"q","route":{"agent":"TimeAgent","category":"current-time","request_type":null,"language":"en"}}
> It is 8:00 PM on Tuesday, January 14, 2025.

=== GeneralKnowledge: confidence by sources (seed 002)
$ cc-respond | jq -c '.response | [.metadata.confidence, .metadata.sources, .emotion]'
< {"query":"エンジニアカフェについて","route":{"agent":"GeneralKnowledgeAgent","category":"general","request_type":null,"language":"ja"},"retrieval":{"results":[{"id":"about","content":"無料のコワーキングスペースです。","language":"ja","category":"facility-info","source":"knowledge_base","score":20},{"id":"w","title":"記事","content":"利用者が増えています。","url":"https://example.org/b","language":"ja","source":"web_search","score":1}]}}
< {"query":"エンジニアカフェについて","route":{"agent":"GeneralKnowledgeAgent","category":"general","request_type":null,"language":"ja"},"retrieval":{"results":[{"id":"about","content":"無料のコワーキングスペースです。","language":"ja","category":"facility-info","source":"knowledge_base","score":20}]}}
< {"query":"latest AI trends","route":{"agent":"GeneralKnowledgeAgent","category":"general","request_type":null,"language":"en"},"retrieval":{"results":[{"id":"w1","title":"AI news","content":"Models grew.","url":"https://example.org/a","language":"en","source":"web_search","score":1}]}}
< {"query":"明日の天気は？","route":{"agent":"GeneralKnowledgeAgent","category":"general","request_type":null,"language":"ja"},"retrieval":{"results":[{"id":"e","content":"明日のイベント","language":"ja","category":"events","source":"knowledge_base","score":6}]}}
> [0.9,["knowledge_base","web_search"],"helpful"]
> [0.8,["knowledge_base"],"helpful"]
> [0.6,["web_search"],"helpful"]
> [0.3,["fallback"],"apologetic"]

=== GeneralKnowledge: tags by the spec's rules ([happy] for tech news)
$ cc-respond --text
< {"query":"latest AI trends","route":{"agent":"GeneralKnowledgeAgent","category":"general","request_type":null,"language":"en"},"retrieval":{"results":[{"id":"w1","title":"AI news","content":"Models grew.","url":"https://example.org/a","language":"en","source":"web_search","score":1}]}}
< {"query":"明日の天気は？","route":{"agent":"GeneralKnowledgeAgent","category":"general","request_type":null,"language":"ja"},"retrieval":{"results":[]}}
> [happy]According to a current web search:
> - AI news: Models grew. (https://example.org/a)
> [sad]申し訳ございません。ご質問に答えるための具体的な情報が見つかりませんでした。質問を言い換えていただくか、別のことについてお尋ねください。

=== Memory: what this session asked, with the answers, from the session store
$ cc-route | cc-respond --text
< {"session_id":"m1","query":"カフェは何時まで？"}
< {"session_id":"m1","query":"今何時？"}
< {"session_id":"m1","query":"さっき何を聞いた？"}
< {"session_id":"m2","query":"What did I ask before?"}
> [surprised]どちらのカフェについてでしょうか？ 無料のコワーキングスペース「エンジニアカフェ」と、館内のカフェ＆バー「サイノ」があります。
> [relaxed]現在は2025年1月15日（水）10時00分です。
> [relaxed]この会話でいただいたご質問です：
> 1. 「カフェは何時まで？」
>    → どちらのカフェについてでしょうか？ 無料のコワーキングスペース「エンジニアカフェ」と、館内のカフェ＆バー「サイノ」があります。
> 2. 「今何時？」
>    → 現在は2025年1月15日（水）10時00分です。
> [sad]I'm sorry, I have no record of earlier questions in this conversation.

=== a record with no route is an error record
$ cc-respond
< {"query":"hi"}
> {"query":"hi","error":{"stage":"cc-respond","code":"no_route","message":"the record has no route and query: run it through cc-route first","line":1}}
2> cc-respond: line 1: the record has no route and query: run it through cc-route first
? 3

=== with --text, bad lines are reported on stderr only
$ cc-respond --text
< not json
2> cc-respond: line 1: invalid JSON at column 1: unexpected character
? 3

=== missing response texts are a usage error naming the file
$ mkdir d && cp "$CC_DATADIR/engineer-cafe/domain" d/ && cc-respond --domain ./d < /dev/null
2> cc-respond: cannot open './d/responses': No such file or directory
? 2

=== a domain without a manifest is a usage error naming it
$ CC_DATADIR=/nonexistent cc-respond < /dev/null
2> cc-respond: /nonexistent/engineer-cafe/domain: cannot read the domain manifest: No such file or directory (every domain folder has one: see cc-domain(5))
? 2

=== Event: none in the range, and what the knowledge base says of the regular ones
$ cc-respond --text
< {"query":"q","route":{"agent":"EventAgent","category":"events","request_type":"event","language":"en"},"events":{"kind":"nextWeek","items":[],"errors":[]},"retrieval":{"results":[{"id":"ev-en","content":"Mokumoku every Wednesday.","language":"en","category":"events","source":"knowledge_base","score":20}]}}
> [sad]I couldn't find any scheduled events next week at Engineer Cafe. Please check the official website or contact the staff for the most up-to-date event information.
>
> The regular events:
> Mokumoku every Wednesday.

=== BusinessInfo: a passage that is a list gets a lead line, and only that passage is quoted
$ cc-respond | jq -c '.response | [.text, .metadata.processing_info.passages]'
< {"query":"サイノ","route":{"agent":"BusinessInfoAgent","category":"saino-cafe","request_type":"hours","language":"ja"},"retrieval":{"results":[{"id":"h","title":"サイノの営業時間","content":"- 月〜木: 12:00–20:30","language":"ja","category":"saino-cafe","source":"knowledge_base","score":10},{"id":"c","title":"休業日","content":"最終月曜日は休みです。","language":"ja","category":"saino-cafe","source":"knowledge_base","score":9}]}}
> ["[relaxed]サイノの営業時間をご案内します。\n- 月〜木: 12:00–20:30",["h"]]

=== tool: what a domain stage decided, in its domain's words (tool:KEY in the manifest)
$ cp -R "$top_srcdir/tests/data/toy-bakery" tool && printf 'agent counter tool:till\n' >> tool/domain && printf 'till.total ja helpful [happy]{item}は{price}円です。\n' >> tool/responses && cc-respond --domain ./tool | jq -c '.response | [.text, .confidence // .metadata.confidence, .metadata.sources, .agent_name]'
< {"query":"q","route":{"agent":"counter","language":"ja"},"till":{"reply":{"key":"till.total","vars":{"item":"クロワッサン","price":"210","n":3},"confidence":0.95}}}
> ["[happy]クロワッサンは210円です。",0.95,["tool"],"counter"]

=== tool: no reply from the stage is the domain's apology, not a guess
$ cp -R "$top_srcdir/tests/data/toy-bakery" tool2 && printf 'agent counter tool:till\n' >> tool2/domain && cc-respond --domain ./tool2 --text
< {"query":"q","route":{"agent":"counter","language":"en"},"till":{"total":210}}
< {"query":"q","route":{"agent":"counter","language":"en"},"till":{"reply":{"key":"no.such.text"}}}
> [sad]Sorry, I don't know that. Please ask at the counter.
> [sad]Sorry, I don't know that. Please ask at the counter.
