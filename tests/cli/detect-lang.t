# cc-detect-lang: the reply language, is_mixed, and the evidence that decided.
# Conventions: ../shared/eval/README.md section 3; cc-detect-lang(1).

=== full output for a mixed Japanese question
$ cc-detect-lang
< {"query":"Engineer Cafeの営業時間は？"}
> {"query":"Engineer Cafeの営業時間は？","language_detection":{"detected_language":"ja","confidence":0.85,"is_mixed":true,"ambiguous":false,"cue":"ja-frame","first_script":"en","scripts":{"hiragana":2,"han":4,"latin":12},"words":{"latin":2,"en_function":0,"en_content":0,"romaji":0}}}

=== grammar decides, not the nouns
$ cc-detect-lang | jq -r '[.query, .language_detection.detected_language, .language_detection.is_mixed, .language_detection.cue] | @tsv'
< "エンジニアカフェの営業時間を教えてください"
< "password教えて"
< "What is 営業時間?"
< "エンジニアカフェ opening hours?"
< "npm installでエラーが出ます"
< "Is there Wi-Fi in the basement?"
> エンジニアカフェの営業時間を教えてください	ja	false	ja-frame
> password教えて	ja	true	ja-frame
> What is 営業時間?	en	true	en-frame
> エンジニアカフェ opening hours?	en	true	en-content
> npm installでエラーが出ます	ja	true	ja-frame
> Is there Wi-Fi in the basement?	en	false	en-frame

=== kana-only speech, halfwidth and fullwidth input (NFKC first)
$ cc-detect-lang | jq -r '[.query, .language_detection.detected_language, .language_detection.is_mixed] | @tsv'
< "えいぎょうじかんは"
< "ﾜｲﾌｧｲ ﾊﾟｽﾜｰﾄﾞ"
< "ＷｉＦｉ"
< "ＥＮＧＩＮＥＥＲ ＣＡＦＥ ＨＯＵＲＳ"
> えいぎょうじかんは	ja	false
> ﾜｲﾌｧｲ ﾊﾟｽﾜｰﾄﾞ	ja	false
> ＷｉＦｉ	en	false
> ＥＮＧＩＮＥＥＲ ＣＡＦＥ ＨＯＵＲＳ	en	false

=== no letters fall back to Japanese, as the spec does when detection fails
$ cc-detect-lang | jq -r '[.query, .language_detection.detected_language, .language_detection.cue] | @tsv'
< ""
< "123"
< "🎉🎉"
< "B1"
< "1F? 2F?"
< "？"
> 	ja	no-letters
> 123	ja	no-letters
> 🎉🎉	ja	no-letters
> B1	ja	no-letters
> 1F? 2F?	ja	no-letters
> ？	ja	no-letters

=== romaji, net slang, other scripts, bare names
$ cc-detect-lang | jq -r '[.query, .language_detection.detected_language, .language_detection.ambiguous, .language_detection.cue] | @tsv'
< "ima nanji?"
< "arigatou gozaimasu"
< "www"
< "营业时间是几点？"
< "영업시간이 어떻게 되나요?"
< "Сколько стоит?"
< "Saino"
< "made in japan"
> ima nanji?	ja	true	romaji
> arigatou gozaimasu	ja	true	romaji
> www	ja	true	romaji-slang
> 营业时间是几点？	ja	true	han-only
> 영업시간이 어떻게 되나요?	en	true	hangul
> Сколько стоит?	en	true	other-script
> Saino	en	true	latin-name
> made in japan	en	false	en-frame

=== bilingual duplicates: the first script wins, marked ambiguous
$ cc-detect-lang | jq -r '[.query, .language_detection.detected_language, .language_detection.ambiguous] | @tsv'
< "営業時間 / opening hours"
< "Wi-Fi ワイファイ"
> 営業時間 / opening hours	ja	true
> Wi-Fi ワイファイ	en	true
