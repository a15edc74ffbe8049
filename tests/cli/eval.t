# cc-eval: the report, the JSON summary, thresholds and usage, on a small
# labelled file routed by cc-route alone (a stable pipeline).

=== the report: accuracy, breakdowns, confusion, misses (escaped)
$ cc-eval --stages cc-route -
< {"id":"a","query":"Wi-Fiのパスワードは？","expect":{"agent":"FacilityAgent","category":"facility-info","request_type":"wifi","language":"ja"},"ambiguous":false}
< {"id":"b","query":"コーヒーはいくら？","expect":{"agent":"BusinessInfoAgent","category":"saino-cafe","request_type":"price","language":"ja"},"ambiguous":true,"alt":[{"agent":"ClarificationAgent","category":"cafe-clarification-needed","request_type":null,"language":"ja"}]}
< {"id":"c","query":"What time is it?","expect":{"agent":"TimeAgent","category":"current-time","request_type":null,"language":"en"},"ambiguous":false}
< {"id":"d","query":"営業時間は？","expect":{"agent":"BusinessInfoAgent","category":"hours","request_type":"hours","language":"ja"},"ambiguous":false}
< {"id":"e","query":"\u001b]0;pwned\u0007 hours?","expect":{"agent":"EventAgent","category":"calendar","request_type":"event","language":"en"},"ambiguous":false}
> -: routing, 5 queries
>   strict              4/5        80.0%   all fields as expected
>   lenient             4/5        80.0%   expected or an alt label
>   clear-cut           3/4        75.0%   strict, on rows not marked ambiguous
>   agent               4/5        80.0%
>   category            4/5        80.0%
>   request_type        4/5        80.0%
>   language            5/5       100.0%
> by language               n  strict lenient
>   ja                      3  100.0%  100.0%
>   en                      2   50.0%   50.0%
> by agent                  n  strict lenient  recall precision
>   FacilityAgent           1  100.0%  100.0%  100.0%  100.0%
>   BusinessInfoAgent       2  100.0%  100.0%  100.0%   66.7%
>   TimeAgent               1  100.0%  100.0%  100.0%  100.0%
>   EventAgent              1    0.0%    0.0%    0.0%       -
> agent confusion (rows expected, columns got)
>                         Facil Busin  Time Event
>   FacilityAgent             1     .     .     .
>   BusinessInfoAgent         .     2     .     .
>   TimeAgent                 .     .     1     .
>   EventAgent                .     1     .     .
> misses: 1 (0 accepted by an alt label)
>   e "^[]0;pwned^G hours?"
>     expected EventAgent calendar event en
>     got      BusinessInfoAgent facility-info hours en

=== --json: the summary
$ cc-eval --json --stages cc-route - | jq -c '{kind, rows, scored, strict, lenient, clear, by_language, confusion, misses: [.misses[] | {id, got, alt_ok}]}'
< {"id":"a","query":"Wi-Fiのパスワードは？","expect":{"agent":"FacilityAgent","category":"facility-info","request_type":"wifi","language":"ja"},"ambiguous":false}
< {"id":"b","query":"コーヒーはいくら？","expect":{"agent":"BusinessInfoAgent","category":"saino-cafe","request_type":"price","language":"ja"},"ambiguous":true,"alt":[{"agent":"ClarificationAgent","category":"cafe-clarification-needed","request_type":null,"language":"ja"}]}
< {"id":"c","query":"What time is it?","expect":{"agent":"TimeAgent","category":"current-time","request_type":null,"language":"en"},"ambiguous":false}
< {"id":"d","query":"営業時間は？","expect":{"agent":"BusinessInfoAgent","category":"hours","request_type":"hours","language":"ja"},"ambiguous":false}
< {"id":"e","query":"\u001b]0;pwned\u0007 hours?","expect":{"agent":"EventAgent","category":"calendar","request_type":"event","language":"en"},"ambiguous":false}
> {"kind":"routing","rows":5,"scored":5,"strict":{"right":4,"total":5,"accuracy":0.8},"lenient":{"right":4,"total":5,"accuracy":0.8},"clear":{"right":3,"total":4,"accuracy":0.75},"by_language":{"ja":{"strict":{"right":3,"total":3,"accuracy":1},"lenient":{"right":3,"total":3,"accuracy":1}},"en":{"strict":{"right":1,"total":2,"accuracy":0.5},"lenient":{"right":1,"total":2,"accuracy":0.5}}},"confusion":{"FacilityAgent":{"FacilityAgent":1},"BusinessInfoAgent":{"BusinessInfoAgent":2},"TimeAgent":{"TimeAgent":1},"EventAgent":{"BusinessInfoAgent":1}},"misses":[{"id":"e","got":{"agent":"BusinessInfoAgent","category":"facility-info","request_type":"hours","language":"en"},"alt_ok":false}]}

=== --min-accuracy: below the threshold exits 1
$ cc-eval -q --stages cc-route -m clear=80% -m lenient=0.8 - > /dev/null
< {"id":"a","query":"Wi-Fiのパスワードは？","expect":{"agent":"FacilityAgent","category":"facility-info","request_type":"wifi","language":"ja"},"ambiguous":false}
< {"id":"b","query":"コーヒーはいくら？","expect":{"agent":"BusinessInfoAgent","category":"saino-cafe","request_type":"price","language":"ja"},"ambiguous":true,"alt":[{"agent":"ClarificationAgent","category":"cafe-clarification-needed","request_type":null,"language":"ja"}]}
< {"id":"c","query":"What time is it?","expect":{"agent":"TimeAgent","category":"current-time","request_type":null,"language":"en"},"ambiguous":false}
< {"id":"d","query":"営業時間は？","expect":{"agent":"BusinessInfoAgent","category":"hours","request_type":"hours","language":"ja"},"ambiguous":false}
< {"id":"e","query":"\u001b]0;pwned\u0007 hours?","expect":{"agent":"EventAgent","category":"calendar","request_type":"event","language":"en"},"ambiguous":false}
2> cc-eval: -: clear accuracy 3/4 (75.0%) is below 80%
? 1

=== --misses 0 lists none
$ cc-eval --stages cc-route -n 0 - | tail -n 2
< {"id":"a","query":"Wi-Fiのパスワードは？","expect":{"agent":"FacilityAgent","category":"facility-info","request_type":"wifi","language":"ja"},"ambiguous":false}
< {"id":"b","query":"コーヒーはいくら？","expect":{"agent":"BusinessInfoAgent","category":"saino-cafe","request_type":"price","language":"ja"},"ambiguous":true,"alt":[{"agent":"ClarificationAgent","category":"cafe-clarification-needed","request_type":null,"language":"ja"}]}
< {"id":"c","query":"What time is it?","expect":{"agent":"TimeAgent","category":"current-time","request_type":null,"language":"en"},"ambiguous":false}
< {"id":"d","query":"営業時間は？","expect":{"agent":"BusinessInfoAgent","category":"hours","request_type":"hours","language":"ja"},"ambiguous":false}
< {"id":"e","query":"\u001b]0;pwned\u0007 hours?","expect":{"agent":"EventAgent","category":"calendar","request_type":"event","language":"en"},"ambiguous":false}
> misses: 1 (0 accepted by an alt label)
>   ... 1 more (cc-eval --json lists them all)

=== no file: standard input
$ cc-eval --stages cc-route -n 0 | head -n 2
< {"id":"a","query":"Wi-Fiのパスワードは？","expect":{"agent":"FacilityAgent","category":"facility-info","request_type":"wifi","language":"ja"},"ambiguous":false}
> -: routing, 1 queries
>   strict              1/1       100.0%   all fields as expected

=== a bad option is a usage error
$ cc-eval --frob 2>&1 | head -n 2
> cc-eval: unrecognized option '--frob'
> usage: cc-eval [-jq] [-P N] [-m [METRIC=]X]... [-o FILE] [-S STAGES]

=== an unknown metric is a usage error
$ cc-eval -m recall=90% -
2> cc-eval: invalid metric in 'recall=90%': expected strict, lenient or clear
? 2

=== a threshold above 100% is a usage error
$ cc-eval -m 101% -
2> cc-eval: invalid accuracy '101%': above 100%
? 2

=== a file that is not labelled data
$ cc-eval --stages cc-route -
< {"query":"hello"}
2> cc-eval: -:1: not a labelled record of a known kind (expect.agent, turns, expect.language with text, expect.time_range)
2> cc-eval: -: no labelled queries
? 3

=== a missing file
$ cc-eval --stages cc-route no-such-file
2> cc-eval: cannot open 'no-such-file': No such file or directory
? 2

=== eval-accept is one way: a label of general accepts branch-unclear, not the other way round
$ cp -R "$top_srcdir/tests/data/toy-bakery" acc && printf 'eval-accept category general branch-unclear\n' >> acc/domain && cc-eval -D ./acc --stages cc-route --json - | jq -c '[.strict.right, [.misses[].id]]'
< {"id":"a","query":"営業時間は？","expect":{"agent":"which_shop","category":"general","request_type":null}}
< {"id":"b","query":"こんにちは","expect":{"agent":"small_talk","category":"branch-unclear","request_type":null}}
> [1,["b"]]
