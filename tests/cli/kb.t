# cc-kb: build, search, list, stats and tokens on the bundled knowledge base.
# The index lives in the test's directory (--db kb.sqlite); timings are cut.

=== build reads every file once, then nothing
$ cc-kb --db kb.sqlite build | sed 's/, in [0-9.]* s$//'; cc-kb --db kb.sqlite build | sed 's/, in [0-9.]* s$//'
> 86 passages from 10 files (10 read, 0 unchanged): 86 added, 0 removed
> 86 passages from 10 files (0 read, 10 unchanged): 0 added, 0 removed

=== two-character Japanese terms (the stock trigram tokenizer finds nothing)
$ cc-kb --db kb.sqlite search -n 3 --lang ja 料金 | cut -f 1,3,4; cc-kb --db kb.sqlite search -n 3 --lang ja 地下 | cut -f 1,3,4
> 1	ec-fees-ja	エンジニアカフェの利用料金
> 2	mr-fees-ja	2階会議室の料金
> 3	mr-cancel-ja	2階会議室のキャンセル料
> 1	b1-overview-ja	地下1階（B1）のスペース
> 2	b1-mtg-ja	MTGスペース（地下の打ち合わせスペース）
> 3	ec-access-ja	アクセス（最寄り駅）

=== English, stop words dropped
$ cc-kb --db kb.sqlite search -n 3 --lang en "How much is a latte?" | cut -f 1,3,4
> 1	saino-prices-en	Saino prices
> 2	saino-menu-en	Saino menu
> 3	ec-fees-en	What using Engineer Cafe costs

=== the route's category and request type decide between two hours passages
$ cc-kb --db kb.sqlite search -n 2 --lang ja --category saino-cafe --request-type hours 営業時間 | cut -f 1,3; cc-kb --db kb.sqlite search -n 2 --lang ja --category facility-info --request-type hours 営業時間 | cut -f 1,3
> 1	saino-hours-ja
> 2	ec-hours-ja
> 1	ec-hours-ja
> 2	saino-hours-ja

=== nothing found: exit 1, no output
$ cc-kb --db kb.sqlite search 天気
? 1

=== --json
$ cc-kb --db kb.sqlite search --json -n 1 Wi-Fi | jq -c '{rank, id, language, category, request_types}'
> {"rank":1,"id":"ec-wifi-en","language":"en","category":"facility-info","request_types":"wifi"}

=== tokens: passages get Han unigrams beside bigrams; queries do not
$ cc-kb tokens "Wi-Fiのパスワードは？"; cc-kb tokens --query "Wi-Fiのパスワードは？"; cc-kb tokens "ＷｉＦｉ 料金 ﾜｲﾌｧｲ"
> wi fi|wifi ぱす すわ わー ーど
> "wi" OR "fi" OR "wifi" OR "ぱす" OR "すわ" OR "わー" OR "ーど"
> wifi 料金|料|金 わい いふ ふあ あい

=== list and stats
$ cc-kb --db kb.sqlite list | head -n 3; cc-kb --db kb.sqlite list | wc -l; cc-kb --db kb.sqlite stats | sed 1,3d
> ec-about-ja	ja	facility-info	-	エンジニアカフェとは
> ec-about-en	en	facility-info	-	What Engineer Cafe is
> ec-eligibility-ja	ja	facility-info	-	利用できる人
> 86
> files	10
> passages	86
> ja	43
> en	43
> categories	3
> vectors	0
> embedding_model	-

=== a bad passage is skipped and reported; the rest is indexed (exit 3)
$ mkdir bad && printf -- '---\nid: x\n---\nbody\n---\nid: y\ntitle: Y\nlanguage: en\n---\nfine\n' > bad/a.md && cc-kb --db bad.sqlite build bad > out 2> err; echo "exit $?"; sed 's/, in [0-9.]* s$//' out; sed "s|$PWD/||" err
> exit 3
> 1 passages from 1 files (1 read, 0 unchanged): 1 added, 0 removed
> cc-kb: bad/a.md:1: passage has no 'title': skipped

=== usage errors
$ cc-kb 2> err; echo "exit $?"; head -n 1 err; cc-kb frobnicate 2> err; echo "exit $?"; head -n 1 err; cc-kb --db kb.sqlite search 2> err; echo "exit $?"; head -n 1 err; cc-kb --db kb.sqlite build no-such-dir; echo "exit $?"
> exit 2
> cc-kb: no command: build, search, list, stats or tokens
> exit 2
> cc-kb: unknown command 'frobnicate'
> exit 2
> cc-kb: search: no query
> exit 2
2> cc-kb: no document folder 'no-such-dir'
