# The record contract (cc-record(5)), exercised through cc-detect-lang.
# `jq -c` trims the detector's evidence where only the record shape matters.

=== other fields pass through in order, the key is appended
$ cc-detect-lang | jq -c '{id, n, query, l: .language_detection.detected_language}'
< {"id":"q1","n":1,"query":"hi"}
> {"id":"q1","n":1,"query":"hi","l":"en"}

=== numbers beyond 2^53 are kept digit for digit
$ cc-detect-lang | sed 's/,"language_detection".*/}/'
< {"id":12345678901234567890123,"query":"x"}
> {"id":12345678901234567890123,"query":"x"}

=== whitespace is compacted, CRLF tolerated, blank lines skipped
$ cc-detect-lang | sed 's/,"language_detection".*/}/'
<% {  "query" : "a b" ,\t"x" : [1, 2] }\r\n
<
<%    \r\n
<% {"query":"c"}\r\n
> {"query":"a b","x":[1,2]}
> {"query":"c"}

=== a bare JSON string is taken as {"query": ...}
$ cc-detect-lang | jq -c '[.query, .language_detection.detected_language]'
< "営業時間は？"
> ["営業時間は？","ja"]

=== a line that is not JSON becomes an error record; the stream goes on
$ cc-detect-lang | jq -c 'if .error then . else .query end'
< {"query":"one"}
< {"query": "two"
< {"query":"three"}
> "one"
> {"error":{"stage":"cc-detect-lang","code":"bad_json","message":"invalid JSON at column 16: '}' expected","line":2},"input":"{\"query\": \"two\""}
> "three"
2> cc-detect-lang: line 2: invalid JSON at column 16: '}' expected
? 0

=== the exit status is 3 when any line was bad
$ cc-detect-lang > /dev/null
< [1, 2]
< {"query":"ok"}
2> cc-detect-lang: line 1: a record must be a JSON object or string
? 3

=== a record without a query keeps its fields and gains an error
$ cc-detect-lang
< {"id":"x","query":42}
> {"id":"x","query":42,"error":{"stage":"cc-detect-lang","code":"no_query","message":"the record has no string \"query\"","line":1}}
2> cc-detect-lang: line 1: the record has no string "query"
? 3

=== error records of earlier stages pass through untouched
$ cc-detect-lang
< {"error":{"stage":"cc-route","code":"x","message":"m","line":4},"input":"zz"}
> {"error":{"stage":"cc-route","code":"x","message":"m","line":4},"input":"zz"}

=== a NUL byte inside a string is kept, written as \u0000
$ cc-detect-lang | jq -c '.query | explode'
<% {"query":"a\000b"}\n
> [97,0,98]

=== a NUL byte outside a string is bad input, kept in the error record
$ cc-detect-lang | jq -c '.error.code, .input'
<% {"query":"ab"}\000\n
> "bad_json"
> "{\"query\":\"ab\"}\u0000"
2> cc-detect-lang: line 1: invalid JSON at column 15: extra text after the value
? 0

=== invalid UTF-8 inside a string is replaced, the record survives
$ cc-detect-lang | jq -c '[.query, .language_detection.detected_language]'
<% {"query":"caf\377 hours"}\n
> ["caf� hours","en"]

=== nesting deeper than 512 levels is an error record, not a crash
$ perl -e 'print "{\"a\":" x 600, "\n"' | cc-detect-lang | jq -c '.error.code'
> "bad_json"
2> cc-detect-lang: line 1: invalid JSON at column 2561: nested too deeply
? 0

=== nesting libjq cannot parse (over 256) still gives an error record
$ perl -e 'print "{\"query\":\"\xff\",\"a\":", "[" x 300, "]" x 300, "}\n"' | cc-detect-lang | jq -c '.error.code'
> "bad_json"
2> cc-detect-lang: line 1: invalid JSON: nested too deeply for libjq
? 0

=== a lone surrogate escape is replaced
$ cc-detect-lang | jq -c '.query | explode'
< {"query":"a\ud800b\udc00"}
> [97,65533,98,65533]

=== --unbuffered is accepted
$ cc-detect-lang --unbuffered | jq -r .language_detection.detected_language
< {"query":"hello"}
> en

=== --help goes to stdout and exits 0
$ cc-detect-lang --help | head -n 1
> usage: cc-detect-lang [--unbuffered] [--domain NAME|DIR] < records.ndjson

=== --version names the package
$ cc-detect-lang --version | sed 's/[0-9][0-9.]*$/VERSION/'
> cc-detect-lang (concierge) VERSION

=== an unknown option is a usage error
$ cc-detect-lang --frobnicate 2>&1 >/dev/null | head -n 2
> cc-detect-lang: unrecognized option '--frobnicate'
> usage: cc-detect-lang [--unbuffered] [--domain NAME|DIR] < records.ndjson
? 0

=== an unknown option exits 2
$ cc-detect-lang -q 2>/dev/null
? 2

=== an operand is a usage error
$ cc-detect-lang file.ndjson 2>/dev/null
? 2

=== raw control characters in strings (a pasted tab) are read as if escaped
$ printf '{"query":"a\tb","id":"x\001"}\n{"q\tk":1,"query":"c"}\n' | cc-detect-lang | jq -c '[.query, .id, .error]'
> ["a\tb","x\u0001",null]
> ["c",null,null]
