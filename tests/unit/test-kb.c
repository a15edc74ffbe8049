/* Unit tests of the knowledge base: tokenizer, documents, index, search. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc_json.h"
#include "cc_kb.h"
#include "tap.h"

static int
collect(void *ctx, const char *tok, size_t n, int kind, int colocated)
{
	struct cc_buf *b = ctx;

	if (b->len)
		cc_buf_add(b, colocated ? "|" : " ", 1);
	cc_buf_add(b, tok, n);
	return 0;
}

/* Tokens of s, space-separated, colocated ones joined with '|'. */
static void
tokens_are(const char *s, int flags, const char *want, const char *what)
{
	struct cc_buf b = {0};

	cc_kb_tokenize(s, strlen(s), flags, collect, &b);
	cc_buf_add(&b, "", 0);
	is_str(b.data, want, "%s: %s", flags ? "query" : "passage", what);
	cc_buf_release(&b);
}

static void
query_is(const char *s, const char *want, const char *what)
{
	struct cc_buf b = {0};

	cc_kb_query_terms(s, strlen(s), &b);
	cc_buf_add(&b, "", 0);
	is_str(b.data, want, "query terms: %s", what);
	cc_buf_release(&b);
}

static void
test_tokenizer(void)
{
	const int Q = CC_KB_TOKENIZE_QUERY;

	/* two-character Japanese terms: the stock trigram tokenizer misses these */
	tokens_are("料金", Q, "料金|料|金",
	    "a two-kanji query: the bigram, and its ends alone");
	tokens_are("ご飯食べる", Q, "飯食|飯|食 べる",
	    "a kanji run may join two words: its ends alone too");
	tokens_are("料金", 0, "料金|料|金", "passages add Han unigrams beside bigrams");
	tokens_are("席", Q, "席", "a one-kanji query is a unigram");
	tokens_are("地下の席は？", 0, "地下|地|下 席",
	    "lone particles are not indexed");
	/* mixed text: script runs, Latin words, kana folded to hiragana */
	tokens_are("Engineer Cafeの営業時間", 0,
	    "engineer cafe 営業|営 業時|業 時間|時|間", "mixed Latin and kanji");
	tokens_are("サイノのコーヒー", Q, "さい いの こー ーひ ひー",
	    "katakana folds to hiragana, the long-vowel mark is kept");
	tokens_are("さいの", Q, "さい いの", "hiragana meets folded katakana");
	/* fullwidth and halfwidth: NFKC first */
	tokens_are("ＷｉＦｉ", Q, "wifi", "fullwidth Latin");
	tokens_are("ﾜｲﾌｧｲ", Q, "わい いふ ふあ あい", "halfwidth katakana");
	tokens_are("Wi-Fi", Q, "wi fi|wifi", "a hyphenated word is also joined");
	tokens_are("Ｗｉ－Ｆｉ", Q, "wi fi|wifi", "fullwidth hyphenated word");
	tokens_are("1,700円", 0, "1 700|1700 円", "digit groups are joined");
	tokens_are("What are Saino's opening hours?", Q, "saino opening hours",
	    "stop words dropped, possessive dropped (stemming is the index's)");
	tokens_are("何時間", Q, "何時 時間|間", "question kanji are not looked up alone");
	tokens_are("", Q, "", "empty text");
	tokens_are("？！…🎉", Q, "", "no letters, no tokens");
	tokens_are("\xff\xfe", Q, "", "invalid UTF-8 gives nothing");
	/* the query builder */
	query_is("料金はいくら？", "\"料金\" OR \"料\" OR \"金\"", "okurigana after kanji dropped");
	query_is("いくら？", "\"いく\" OR \"くら\"", "kana kept when it is all there is");
	query_is("もくもく会はいつ？", "\"もく\" OR \"くも\" OR \"会\"",
	    "kana words not after kanji are kept, repeats once");
	query_is("教えて", "", "request verbs carry no topic");
	query_is("the of and", "", "stop words only: nothing to search");
	query_is("Wi-Fiのパスワード", "\"wi\" OR \"fi\" OR \"wifi\" OR \"ぱす\" OR "
	    "\"すわ\" OR \"わー\" OR \"ーど\"", "quoted terms for FTS5");
}

static void
test_documents(void)
{
	static const char text[] =
	    "\xEF\xBB\xBF---\n"
	    "id: a-ja\n"
	    "title: タイトル\n"
	    "language: JA\n"
	    "request_types: [hours, price]\n"
	    "tags: x ,  y,,z\n"
	    "---\n"
	    "\n"
	    "本文です。\n"
	    "\n"
	    "---\n"
	    "id: b\n"
	    "title: no language\n"
	    "---\n"
	    "skipped\n"
	    "---\n"
	    "id: a-ja\n"
	    "title: duplicate\n"
	    "language: ja\n"
	    "---\n"
	    "---\n"
	    "id: c\n"
	    "title: unknown key\n"
	    "language: en\n"
	    "colour: red\n"
	    "---\n";
	struct cc_kbdoc_file f = { .path = "test.md" };

	fprintf(stderr, "(the messages below are expected)\n");
	cc_kbdoc_parse(&f, text, sizeof text - 1);
	is_int(f.n, 2, "two good passages");
	is_int(f.problems, 3, "three problems reported");
	is_str(f.docs[0].id, "a-ja", "id");
	is_str(f.docs[0].language, "ja", "language lower-cased");
	is_str(f.docs[0].request_types, "hours,price", "request types as a list");
	is_str(f.docs[0].tags, "x,y,z", "tags trimmed, empty items dropped");
	is_str(f.docs[0].body, "本文です。", "body trimmed");
	is_str(f.docs[0].category, "general", "category defaults to general");
	is_int(f.docs[0].line, 1, "line of the front matter");
	is_str(f.docs[1].id, "c", "a passage with an unknown key is kept");
	is_str(f.docs[1].body, "", "an empty body");
	cc_kbdoc_file_release(&f);
}

static void
write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	fputs(text, fp);
	fclose(fp);
}

static const char *
top(struct cc_kb *kb, const char *q, const char *lang, const char *cat,
    const char *rt, struct cc_kb_hits *h)
{
	struct cc_kb_query kq = { .text = q, .len = strlen(q), .language = lang,
	    .category = cat, .request_type = rt, .limit = 10 };

	if (cc_kb_search(kb, &kq, h) < 0 || h->n == 0)
		return "(none)";
	return h->v[0].id;
}

static void
test_index(void)
{
	char dir[] = "/tmp/cc-test-kb.XXXXXX", path[256], db[256], err[512];
	const char *dirs[1] = { dir };
	struct cc_kb *kb;
	struct cc_kb_build_stats st;
	struct cc_kb_hits h = {0};

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof path, "%s/a.md", dir);
	write_file(path,
	    "---\nid: ec-hours\ntitle: 営業時間\nlanguage: ja\n"
	    "category: facility-info\nrequest_types: hours\n---\n"
	    "営業時間は9時から22時です。\n"
	    "---\nid: saino-hours\ntitle: サイノの営業時間\nlanguage: ja\n"
	    "category: saino-cafe\nrequest_types: hours\n---\n"
	    "サイノの営業時間は12時からです。\n"
	    "---\nid: ec-hours-en\ntitle: Opening hours\nlanguage: en\n"
	    "category: facility-info\nrequest_types: hours\n---\n"
	    "Open from 9:00 to 22:00 (営業時間).\n");
	snprintf(path, sizeof path, "%s/b.md", dir);
	write_file(path,
	    "---\nid: b1\ntitle: 地下のスペース\nlanguage: ja\n"
	    "category: facility-info\nrequest_types: basement\n---\n"
	    "地下1階には無料のスペースがあります。料金はかかりません。\n");
	snprintf(db, sizeof db, "%s/sub/kb.sqlite", dir);

	kb = cc_kb_open(db, 0, err, sizeof err);
	ok(kb != NULL, "create an index in a new directory");
	if (!kb)
		return;
	ok(cc_kb_stale(kb, dirs, 1, NULL) == 1, "a new index is stale");
	ok(cc_kb_build(kb, dirs, 1, NULL, 0, &st) == 0, "build");
	is_int(st.passages, 4, "four passages");
	is_int(st.files_changed, 2, "two files read");
	ok(cc_kb_stale(kb, dirs, 1, NULL) == 0, "fresh after the build");
	ok(cc_kb_build(kb, dirs, 1, NULL, 0, &st) == 0 && st.files_kept == 2 &&
	    st.added == 0, "a second build reads nothing");
	cc_kb_close(kb);

	kb = cc_kb_open(db, CC_KB_READONLY, err, sizeof err);
	ok(kb != NULL, "open read-only");
	is_str(top(kb, "地下", "ja", NULL, NULL, &h), "b1", "a two-kanji query finds its passage");
	is_str(top(kb, "料金", "ja", NULL, NULL, &h), "b1", "料金 is found inside 料金は");
	is_str(top(kb, "営業時間", "ja", "saino-cafe", "hours", &h), "saino-hours",
	    "the route's category lifts Saino's hours");
	is_str(top(kb, "営業時間", "ja", "facility-info", "hours", &h), "ec-hours",
	    "and Engineer Cafe's when it is the subject");
	is_str(top(kb, "営業時間", "en", NULL, NULL, &h), "ec-hours-en",
	    "the answer language comes first");
	is_int(h.n, 3, "the other language follows");
	is_str(top(kb, "ｻｲﾉ", "ja", NULL, NULL, &h), "saino-hours",
	    "halfwidth katakana finds katakana");
	is_str(top(kb, "opening HOURS", "en", NULL, NULL, &h), "ec-hours-en",
	    "case and stemming");
	is_str(top(kb, "opened", "en", NULL, NULL, &h), "ec-hours-en",
	    "Porter stemming: opened finds Open");
	is_str(top(kb, "天気", "ja", NULL, NULL, &h), "(none)", "no match, no result");
	is_str(top(kb, "\"OR NEAR(*", "en", NULL, NULL, &h), "(none)",
	    "FTS5 syntax in a query is just text");
	cc_kb_close(kb);

	/* incremental: one file changes (its size too), one goes away */
	snprintf(path, sizeof path, "%s/b.md", dir);
	write_file(path,
	    "---\nid: b1\ntitle: 地下のスペース\nlanguage: ja\n---\n"
	    "地下には集中スペースがあります。\n"
	    "---\nid: b2\ntitle: 駐車場\nlanguage: ja\n---\n駐車場はありません。\n");
	snprintf(path, sizeof path, "%s/a.md", dir);
	unlink(path);
	kb = cc_kb_open(db, 0, err, sizeof err);
	ok(cc_kb_stale(kb, dirs, 1, NULL) == 1, "stale after the documents change");
	ok(cc_kb_build(kb, dirs, 1, NULL, 0, &st) == 0, "rebuild");
	is_int(st.passages, 2, "two passages now");
	is_int(st.files_changed, 1, "one file read again");
	is_str(top(kb, "駐車場", "ja", NULL, NULL, &h), "b2", "the new passage is found");
	is_str(top(kb, "営業時間", "ja", NULL, NULL, &h), "(none)",
	    "the removed file's passages are gone");
	cc_kb_close(kb);

	cc_kb_hits_release(&h);
	snprintf(path, sizeof path, "rm -rf '%s'", dir);
	if (system(path) != 0)
		ok(0, "clean up");
}

int
main(void)
{
	test_tokenizer();
	test_documents();
	test_index();
	return tap_done();
}
