# cc-rag: retrieval for the agents that answer from documents.
# The first run builds its index (--db rag.sqlite in the test's directory).

=== a new index is built by itself; the route's category puts Saino first
$ echo '{"query":"営業時間は？","route":{"agent":"BusinessInfoAgent","category":"saino-cafe","request_type":"hours","language":"ja"}}' | cc-rag --db rag.sqlite | jq -c '[.retrieval.results[:2][].id, .retrieval.sources, .retrieval.language]'
> ["saino-hours-ja","ec-hours-ja",["knowledge_base"],"ja"]
2> cc-rag: indexed 86 passages from 10 files into 'rag.sqlite'

=== the whole record: results, a context cut at N characters, sources, language
$ echo '{"id":7,"query":"Is there parking?"}' | cc-rag --db rag.sqlite --limit 1 --context-chars 60
> {"id":7,"query":"Is there parking?","retrieval":{"results":[{"id":"ec-parking-en","title":"Parking","content":"Engineer Cafe has no parking of its own. If you come by car, please use one of the coin-operated car parks nearby.","score":8.4977,"language":"en","category":"facility-info","source":"knowledge_base"}],"context":"Parking\nEngineer Cafe has no parking of its own. If you come","sources":["knowledge_base"],"language":"en"}}

=== a turn that continues an earlier one is searched with route.search_query
$ printf '%s\n' '{"query":"サイノの方","route":{"agent":"BusinessInfoAgent","category":"saino-cafe","request_type":"hours","language":"ja","search_query":"カフェの営業時間は？ サイノの方"}}' '{"query":"土曜日も？","route":{"agent":"BusinessInfoAgent","category":"facility-info","request_type":"meeting-room","language":"ja","search_query":"2階の会議室は何時まで？ 土曜日も？"}}' | cc-rag --db rag.sqlite | jq -c '[.query, .retrieval.results[0].id]'
> ["サイノの方","saino-hours-ja"]
> ["土曜日も？","mr-hours-ja"]

=== the answer language: the route's, else language_detection's, else detected
$ printf '%s\n' '{"query":"料金は？","route":{"agent":"BusinessInfoAgent","category":"facility-info","request_type":"price","language":"en"}}' '{"query":"料金は？","language_detection":{"detected_language":"en"}}' '{"query":"料金は？"}' | cc-rag --db rag.sqlite | jq -c '[.retrieval.language, .retrieval.results[0].id]'
> ["en","ec-fees-ja"]
> ["en","ec-fees-ja"]
> ["ja","ec-fees-ja"]

=== Time, Memory and Clarification records pass through; no query is an error
$ cc-rag --db rag.sqlite
< {"query":"今何時？","route":{"agent":"TimeAgent","category":"current-time"}}
< {"query":"サイノの方","route":{"agent":"ClarificationAgent"}}
< {"id":3}
< {"query":42}
> {"query":"今何時？","route":{"agent":"TimeAgent","category":"current-time"}}
> {"query":"サイノの方","route":{"agent":"ClarificationAgent"}}
> {"id":3,"error":{"stage":"cc-rag","code":"no_query","message":"the record has no string \"query\"","line":3}}
> {"query":42,"error":{"stage":"cc-rag","code":"no_query","message":"the record has no string \"query\"","line":4}}
2> cc-rag: line 3: the record has no string "query"
2> cc-rag: line 4: the record has no string "query"
? 3

=== the context cap counts characters and never splits one
$ echo '"営業時間"' | cc-rag --db rag.sqlite --context-chars 10 | jq -c '.retrieval.context | [., length]'
> ["エンジニアカフェの営",10]

=== nothing found: empty results, no sources (web search is off unless configured)
$ echo '"明日の天気は？"' | cc-rag --db rag.sqlite | jq -c .retrieval
> {"results":[],"context":"","sources":[],"language":"ja"}

=== usage errors
$ cc-rag --db rag.sqlite extra 2> err; echo "exit $?"; head -n 1 err; cc-rag --context-chars x 2> err; echo "exit $?"; head -n 1 err
> exit 2
> cc-rag: unexpected argument 'extra'
> exit 2
> cc-rag: invalid --context-chars 'x': use 0 to 10000000
