/*
 * Numbers in words: reading a number written in digits, kanji, kana or
 * English; a child's answer; the problem and answer an utterance states;
 * and the answer-leak guard's matcher.
 *
 * Each entry point first folds the text into a copy (full-width ASCII to
 * ASCII, upper to lower case, katakana to hiragana, U+3000 to a space,
 * U+2212 to '-', a bad byte to 0x1A), on the stack when it is short, so
 * "ロクジュウハチ", "ろくじゅうはち" and "ＳＩＸＴＹ" read alike and every
 * word is found with a byte comparison.  The word lists are hiragana and
 * lower-case ASCII for that reason.  All lists go into one lexicon sorted
 * by first character, so a position costs one binary search and a few
 * comparisons, not one per word of every list.
 *
 * Japanese numerals are read by their grammar: a digit, then a multiplier
 * (十 百 千, じゅう ひゃく せん, with the sound changes びゃく ぴゃく ぜん and
 * the clipped いっ ろっ はっ じゅっ that only stand before a multiplier),
 * multipliers falling, 万 and 億 closing a group.  Two digits in a row are
 * not one number (さんご is the 九九 line "3 5", not 35), except kanji
 * digits written positionally with a zero (二〇二五).
 */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_text.h"
#include "coach/cc_calc.h"

/* Numbers are read in the C locale, whatever the program's locale. */
static locale_t
c_locale(void)
{
	static locale_t c;

	if (!c && !(c = newlocale(LC_ALL_MASK, "C", (locale_t)0)))
		cc_die(CC_EXIT_INTERNAL, "cannot make the C locale");
	return c;
}

/* ---- the words ---- */

enum { M_DIGIT, M_MULT, M_BIG, M_POINT };
#define F_NEEDS_MULT 1		/* いっ ろっ はっ: only before a multiplier */
#define F_AFTER_DIGIT 2		/* びゃく ぴゃく ぜん: only after a digit */
#define F_NEEDS_POINT 4		/* れい: zero only in れいてん (0.) */

struct morph {
	const char *w;
	int kind, flags;
	double v;
};

static const struct morph kana_morphs[] = {
	{ "ぜろ", M_DIGIT, 0, 0 }, { "れい", M_DIGIT, F_NEEDS_POINT, 0 },
	{ "いち", M_DIGIT, 0, 1 }, { "いっ", M_DIGIT, F_NEEDS_MULT, 1 },
	{ "に", M_DIGIT, 0, 2 }, { "さん", M_DIGIT, 0, 3 },
	{ "よん", M_DIGIT, 0, 4 }, { "し", M_DIGIT, 0, 4 },
	{ "ご", M_DIGIT, 0, 5 },
	{ "ろく", M_DIGIT, 0, 6 }, { "ろっ", M_DIGIT, F_NEEDS_MULT, 6 },
	{ "なな", M_DIGIT, 0, 7 }, { "しち", M_DIGIT, 0, 7 },
	{ "はち", M_DIGIT, 0, 8 }, { "はっ", M_DIGIT, F_NEEDS_MULT, 8 },
	{ "きゅう", M_DIGIT, 0, 9 }, { "く", M_DIGIT, 0, 9 },
	{ "じゅう", M_MULT, 0, 10 }, { "じゅっ", M_MULT, 0, 10 }, { "じっ", M_MULT, 0, 10 },
	{ "ひゃく", M_MULT, 0, 100 }, { "びゃく", M_MULT, F_AFTER_DIGIT, 100 },
	{ "ぴゃく", M_MULT, F_AFTER_DIGIT, 100 },
	{ "せん", M_MULT, 0, 1000 }, { "ぜん", M_MULT, F_AFTER_DIGIT, 1000 },
	{ "まん", M_BIG, 0, 1e4 }, { "おく", M_BIG, 0, 1e8 },
	{ "てん", M_POINT, 0, 0 },
	{ NULL, 0, 0, 0 }
};

static const struct morph kanji_morphs[] = {
	{ "〇", M_DIGIT, 0, 0 }, { "零", M_DIGIT, 0, 0 },
	{ "一", M_DIGIT, 0, 1 }, { "二", M_DIGIT, 0, 2 }, { "三", M_DIGIT, 0, 3 },
	{ "四", M_DIGIT, 0, 4 }, { "五", M_DIGIT, 0, 5 }, { "六", M_DIGIT, 0, 6 },
	{ "七", M_DIGIT, 0, 7 }, { "八", M_DIGIT, 0, 8 }, { "九", M_DIGIT, 0, 9 },
	{ "十", M_MULT, 0, 10 }, { "百", M_MULT, 0, 100 }, { "千", M_MULT, 0, 1000 },
	{ "万", M_BIG, 0, 1e4 }, { "億", M_BIG, 0, 1e8 },
	{ "点", M_POINT, 0, 0 },
	{ NULL, 0, 0, 0 }
};

/* The native counts: complete numbers by themselves (the index + 1). */
static const char *const native_counts[] = {
	"ひとつ", "ふたつ", "みっつ", "よっつ", "いつつ", "むっつ", "ななつ",
	"やっつ", "ここのつ", "とお", NULL
};

/* English number words: en_small[k] is k. */
static const char *const en_small[] = {
	"zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
	"nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen",
	"sixteen", "seventeen", "eighteen", "nineteen", NULL
};
static const char *const en_tens[] = {
	"twenty", "thirty", "forty", "fourty", "fifty", "sixty", "seventy",
	"eighty", "ninety", NULL
};
static const int en_tens_value[] = { 20, 30, 40, 40, 50, 60, 70, 80, 90 };

static const char *const kanji_mults[] = { "十", "百", "千", "万", "億", NULL };

/* A sign before a number. */
static const char *const minus_words[] = { "-", "まいなす", "minus", "negative", NULL };

/*
 * Counters and units a child writes after an answer: "8こ", "3本", "12cm".
 * The counters of other tasks (ばん, ページ, ねん, くみ) are not here: a
 * number with them is no answer.
 */
static const char *const counters[] = {
	"こ", "個", "つ", "ほん", "ぼん", "ぽん", "本", "まい", "枚", "ひき", "びき",
	"ぴき", "匹", "にん", "人", "さつ", "冊", "だい", "台", "えん", "円", "わ",
	"羽", "とう", "頭", "杯", "てん", "点", "さい", "歳",
	"才", "じかん", "時間", "ふん", "ぷん", "分", "びょう", "秒", "じ", "時",
	"にち", "日", "cm", "mm", "km", "m", "g", "kg", "l", "dl", "ml",
	"せんち", "めーとる", "りっとる", "ぐらむ", "きろ", "ど", "度", "ばい", "倍",
	"pieces", "piece", "apples", "yen", NULL
};

/* The counters of other tasks: a number before one is not arithmetic. */
static const char *const nonmath_counters[] = {
	"ばん", "番", "ばんめ", "番目", "ぺーじ", "page", "pages", "ねん", "年",
	"くみ", "組", "もん", "問", "もんめ", "問目", "ぎょう", "行", "ごう", "号",
	"がつ", "月", "かい", "回", "かいめ", "回目", "だん", "段", "grade", NULL
};

/* Endings, fillers and punctuation after an answer. */
static const char *const endings[] = {
	"です", "でした", "ですか", "だよね", "だよ", "だね", "だな", "だ", "よ",
	"ね", "な", "か", "かな", "かなあ", "かなー", "かも", "かもしれない",
	"でしょう", "でしょ", "だとおもう", "だとおもいます", "とおもう",
	"とおもいます", "だと思う", "と思う", "だと思います", "と思います",
	"であってる", "であってます", "であってますか", "であってるかな",
	"あってる", "あってますか", "でいい", "でいいの",
	"でいいですか", "でいいかな", "じゃない", "じゃないかな", "じゃないの",
	"になる", "になった", "になりました", "ー", "〜", "~", "っ", "!", "?",
	"。", ".", "、", ",", "♪", "…", "・", "right", "i think", "maybe",
	"is it right", "is that right", "correct", NULL
};

/* What may stand before an answer. */
static const char *const answer_prefixes[] = {
	"こたえは", "こたえ", "答えは", "答え", "答は", "えっと", "えーと", "えっとね",
	"えと", "うーん", "うんと", "たぶん", "じゃあ", "the answer is", "answer is",
	"answer", "it's", "it is", "is it", "i think it's", "i think", "maybe",
	"i got", "um", "uh", ":", "、", ",", NULL
};

/* Markers between a quotient and a remainder. */
static const char *const remainder_words[] = {
	"あまり", "余り", "あまりは", "余りは", "…", "‥", "...", "・・・",
	"remainder", "rem", "r", NULL
};

/* Words that hold a numeral but state no number. */
static const char *const numeral_idioms[] = {
	"一緒", "一度", "一回", "一生", "一応", "一般", "一瞬", "一方", "一体", "一気",
	"一旦", "一層", "一杯", "一心", "一番", "一部", "一人ひとり", "十分", "三角",
	"四角", "九九", "いちど", "いちばん", "くく", "じゅうぶん", "ごはん",
	"ごめん", "ごご", NULL
};
/* Kanji before 一 that make a word of it (統一, 唯一). */
static const char *const idiom_heads[] = {
	"統", "唯", "同", "第", "均", "画", "万", "逐", NULL
};
/* Places and units of counting, not amounts: 一の位, 十のくらい, 一つずつ. */
static const char *const not_amount_after[] = {
	"の位", "のくらい", "ずつ", NULL
};
/* What may follow a kana numeral that is a number and not part of a
   word: particles, endings, counters. */
static const char *const kana_followers[] = {
	"は", "が", "を", "に", "と", "も", "の", "で", "や", "へ", "ね", "よ", "か",
	"だ", "じゃ", "です", "でし", "って", "っ", "こ", "つ", "ほん", "ぼん", "ぽん",
	"まい", "ひき", "びき", "ぴき", "にん", "さつ", "だい", "えん", "かい", "さい",
	"わ", "とう", "ばい", "ふん", "ぷん", "びょう", "じ", "にち",
	"ばん", "てん", "ぶん", "あまり", "たす", "ひく", "かける", "わる",
	"ぐらい", "くらい", "ぐらむ", "せんち", "めーとる", NULL
};

struct opword {
	const char *w;
	char op;
	int word;	/* 1 a word (たす, plus); 2 only in "AとBをあわせる" */
};

static const struct opword opwords[] = {
	{ "+", '+', 0 }, { "-", '-', 0 }, { "*", '*', 0 }, { "×", '*', 0 },
	{ "/", '/', 0 }, { "÷", '/', 0 },
	{ "たす", '+', 1 }, { "たして", '+', 1 }, { "たしたら", '+', 1 },
	{ "たすと", '+', 1 }, { "たせば", '+', 1 }, { "足す", '+', 1 },
	{ "足して", '+', 1 }, { "足したら", '+', 1 }, { "足すと", '+', 1 },
	{ "ぷらす", '+', 1 }, { "plus", '+', 1 },
	{ "ひく", '-', 1 }, { "ひいて", '-', 1 }, { "ひいたら", '-', 1 },
	{ "ひくと", '-', 1 }, { "ひけば", '-', 1 }, { "引く", '-', 1 },
	{ "引いて", '-', 1 }, { "引いたら", '-', 1 }, { "引くと", '-', 1 },
	{ "まいなす", '-', 1 }, { "minus", '-', 1 }, { "take away", '-', 1 },
	{ "かける", '*', 1 }, { "かけて", '*', 1 }, { "かけたら", '*', 1 },
	{ "かけると", '*', 1 }, { "かければ", '*', 1 }, { "掛ける", '*', 1 },
	{ "掛けて", '*', 1 }, { "掛けたら", '*', 1 }, { "掛けると", '*', 1 },
	{ "times", '*', 1 }, { "x", '*', 1 }, { "multiplied by", '*', 1 },
	{ "わる", '/', 1 }, { "わって", '/', 1 }, { "わったら", '/', 1 },
	{ "わると", '/', 1 }, { "われば", '/', 1 }, { "割る", '/', 1 },
	{ "割って", '/', 1 }, { "割ったら", '/', 1 }, { "割ると", '/', 1 },
	{ "divided by", '/', 1 }, { "over", '/', 1 },
	/* "combine": an addition only in "AとBをあわせると" */
	{ "あわせる", '+', 2 }, { "あわせて", '+', 2 }, { "あわせると", '+', 2 },
	{ "あわせたら", '+', 2 }, { "合わせる", '+', 2 }, { "合わせて", '+', 2 },
	{ "合わせると", '+', 2 }, { "合わせたら", '+', 2 },
	{ NULL, 0, 0 }
};

static const char *const eq_words[] = {
	"=", "は", "わ", "って", "が", "is", "equals", "equal to", "makes", "いこーる",
	NULL
};
static const char *const question_words[] = {
	"いくつ", "なに", "なん", "なんですか", "what's", "whats", "what", "how much",
	"how many", NULL
};
static const char *const answer_marks[] = {
	"こたえ", "答え", "答", "answer", "it's", "its", "is it", "i got", "i get", NULL
};
static const char *const fillers[] = {
	"えっと", "えーと", "えと", "えっとね", "うーん", "うんと", "あのね", "たぶん",
	"じゃあ", "ねえ", "um", "uh", "i think", "maybe", "the", "well", "so", "hmm",
	NULL
};
/* Words before a number that make it a label, not an amount. */
static const char *const nonmath_heads[] = {
	"もんだい", "問題", "だい", "第", "p", "page", "no", "no.", "ぺーじ", NULL
};
static const char *const particle_words[] = { "と", "に", "から", "を", "で", "の", NULL };
static const char particle_codes[] = "tnkwdo";

/* The lines of the 九九 as they are recited, with their factors. */
static const struct kuku {
	const char *w;
	char a, b;
} kuku_lines[] = {
	{ "いんいち", 1, 1 }, { "いんに", 1, 2 }, { "いんさん", 1, 3 }, { "いんし", 1, 4 },
	{ "いんご", 1, 5 }, { "いんろく", 1, 6 }, { "いんしち", 1, 7 }, { "いんはち", 1, 8 },
	{ "いんく", 1, 9 },
	{ "にいち", 2, 1 }, { "ににん", 2, 2 }, { "にさん", 2, 3 }, { "にし", 2, 4 },
	{ "にご", 2, 5 }, { "にろく", 2, 6 }, { "にしち", 2, 7 }, { "にはち", 2, 8 },
	{ "にく", 2, 9 },
	{ "さんいち", 3, 1 }, { "さんに", 3, 2 }, { "さざん", 3, 3 }, { "さんし", 3, 4 },
	{ "さんご", 3, 5 }, { "さぶろく", 3, 6 }, { "さんしち", 3, 7 }, { "さんぱ", 3, 8 },
	{ "さんく", 3, 9 },
	{ "しいち", 4, 1 }, { "しに", 4, 2 }, { "しさん", 4, 3 }, { "しし", 4, 4 },
	{ "しご", 4, 5 }, { "しろく", 4, 6 }, { "ししち", 4, 7 }, { "しは", 4, 8 },
	{ "しく", 4, 9 },
	{ "ごいち", 5, 1 }, { "ごに", 5, 2 }, { "ごさん", 5, 3 }, { "ごし", 5, 4 },
	{ "ごご", 5, 5 }, { "ごろく", 5, 6 }, { "ごしち", 5, 7 }, { "ごは", 5, 8 },
	{ "ごっく", 5, 9 },
	{ "ろくいち", 6, 1 }, { "ろくに", 6, 2 }, { "ろくさん", 6, 3 }, { "ろくし", 6, 4 },
	{ "ろくご", 6, 5 }, { "ろくろく", 6, 6 }, { "ろくしち", 6, 7 }, { "ろくは", 6, 8 },
	{ "ろっく", 6, 9 },
	{ "しちいち", 7, 1 }, { "しちに", 7, 2 }, { "しちさん", 7, 3 }, { "しちし", 7, 4 },
	{ "しちご", 7, 5 }, { "しちろく", 7, 6 }, { "しちしち", 7, 7 }, { "しちは", 7, 8 },
	{ "しちく", 7, 9 },
	{ "はちいち", 8, 1 }, { "はちに", 8, 2 }, { "はちさん", 8, 3 }, { "はちし", 8, 4 },
	{ "はちご", 8, 5 }, { "はちろく", 8, 6 }, { "はちしち", 8, 7 }, { "はっぱ", 8, 8 },
	{ "はっく", 8, 9 },
	{ "くいち", 9, 1 }, { "くに", 9, 2 }, { "くさん", 9, 3 }, { "くし", 9, 4 },
	{ "くご", 9, 5 }, { "くろく", 9, 6 }, { "くしち", 9, 7 }, { "くは", 9, 8 },
	{ "くく", 9, 9 },
	{ NULL, 0, 0 }
};

/* ---- the lexicon: every list above, by first character ---- */

enum cat {
	L_KANA, L_KANJI, L_NATIVE, L_EN_SMALL, L_EN_TENS, L_KANJI_MULT, L_SIGN,
	L_COUNTER, L_NONMATH, L_END, L_PREFIX, L_REM, L_IDIOM, L_IDIOM_HEAD,
	L_NOT_AMOUNT, L_FOLLOWER, L_OP, L_EQ, L_Q, L_MARK, L_FILL, L_HEAD, L_PART,
	L_KUKU, L_NCAT
};

struct lex {
	const char *w;
	int32_t first;		/* the first character */
	unsigned short len;
	unsigned char cat;
	short idx;		/* in its list */
};

#define MAX_LEX 1024
static struct lex lexicon[MAX_LEX];
static size_t nlex;
/* Hiragana (U+3040 + k) that begin a numeral, an idiom or a remainder
   word: the leak guard skips every other kana without a lookup. */
static unsigned char kana_starts[96];
static pthread_once_t lex_once = PTHREAD_ONCE_INIT;

static void
lex_add(const char *w, int cat, int idx)
{
	size_t i = 0;

	if (nlex >= MAX_LEX)
		cc_die(CC_EXIT_INTERNAL, "too many coach words");
	lexicon[nlex] = (struct lex){ w, cc_utf8_next(w, strlen(w), &i),
	    (unsigned short)strlen(w), (unsigned char)cat, (short)idx };
	nlex++;
}

static void
lex_add_list(const char *const *list, int cat)
{
	for (int k = 0; list[k]; k++)
		lex_add(list[k], cat, k);
}

/* By first character, then longest first: the first match is the longest. */
static int
lex_cmp(const void *a, const void *b)
{
	const struct lex *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	return x->cat - y->cat;
}

static void
lex_build(void)
{
	for (int k = 0; kana_morphs[k].w; k++)
		lex_add(kana_morphs[k].w, L_KANA, k);
	for (int k = 0; kanji_morphs[k].w; k++)
		lex_add(kanji_morphs[k].w, L_KANJI, k);
	for (int k = 0; opwords[k].w; k++)
		lex_add(opwords[k].w, L_OP, k);
	for (int k = 0; kuku_lines[k].w; k++)
		lex_add(kuku_lines[k].w, L_KUKU, k);
	lex_add_list(native_counts, L_NATIVE);
	lex_add_list(en_small, L_EN_SMALL);
	lex_add_list(en_tens, L_EN_TENS);
	lex_add_list(kanji_mults, L_KANJI_MULT);
	lex_add_list(minus_words, L_SIGN);
	lex_add_list(counters, L_COUNTER);
	lex_add_list(nonmath_counters, L_NONMATH);
	lex_add_list(endings, L_END);
	lex_add_list(answer_prefixes, L_PREFIX);
	lex_add_list(remainder_words, L_REM);
	lex_add_list(numeral_idioms, L_IDIOM);
	lex_add_list(idiom_heads, L_IDIOM_HEAD);
	lex_add_list(not_amount_after, L_NOT_AMOUNT);
	lex_add_list(kana_followers, L_FOLLOWER);
	lex_add_list(eq_words, L_EQ);
	lex_add_list(question_words, L_Q);
	lex_add_list(answer_marks, L_MARK);
	lex_add_list(fillers, L_FILL);
	lex_add_list(nonmath_heads, L_HEAD);
	lex_add_list(particle_words, L_PART);
	qsort(lexicon, nlex, sizeof *lexicon, lex_cmp);
	for (size_t k = 0; k < nlex; k++)
		if ((lexicon[k].cat == L_KANA || lexicon[k].cat == L_NATIVE ||
		    lexicon[k].cat == L_IDIOM || lexicon[k].cat == L_REM) &&
		    lexicon[k].first >= 0x3040 && lexicon[k].first < 0x30A0)
			kana_starts[lexicon[k].first - 0x3040] = 1;
}

static int
letter(int32_t cp)
{
	return cp >= 'a' && cp <= 'z';
}

/* The first entry whose first character is cp (nlex when none). */
static size_t
lex_first(int32_t cp)
{
	size_t lo = 0, hi = nlex;

	pthread_once(&lex_once, lex_build);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lexicon[mid].first < cp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Does the word x stand at s[i] (folded text)?  An ASCII word ending in a
   letter must end there: "one" is not read in "ones". */
static int
lex_here(const char *s, size_t len, size_t i, const struct lex *x)
{
	return len - i >= x->len && memcmp(s + i, x->w, x->len) == 0 &&
	    !(letter((unsigned char)x->w[x->len - 1]) && i + x->len < len &&
	    letter((unsigned char)s[i + x->len]));
}

/*
 * The longest word of category cat at s[i] of folded text: its end, or 0;
 * *idx (if not NULL) its index in its list.
 */
static size_t
lex_find(const char *s, size_t len, size_t i, int cat, int *idx)
{
	size_t j = i;
	int32_t cp;

	if (i >= len)
		return 0;
	cp = cc_utf8_next(s, len, &j);
	for (size_t k = lex_first(cp); k < nlex && lexicon[k].first == cp; k++)
		if (lexicon[k].cat == cat && lex_here(s, len, i, &lexicon[k])) {
			if (idx)
				*idx = lexicon[k].idx;
			return i + lexicon[k].len;
		}
	return 0;
}

/* The longest word of every category at s[i], in one pass: end[c] (0:
   none) and idx[c]. */
static void
lex_all(const char *s, size_t len, size_t i, size_t end[L_NCAT], int idx[L_NCAT])
{
	size_t j = i;
	int32_t cp;

	memset(end, 0, L_NCAT * sizeof *end);
	if (i >= len)
		return;
	cp = cc_utf8_next(s, len, &j);
	for (size_t k = lex_first(cp); k < nlex && lexicon[k].first == cp; k++) {
		const struct lex *x = &lexicon[k];

		if (!end[x->cat] && lex_here(s, len, i, x)) {
			end[x->cat] = i + x->len;
			idx[x->cat] = x->idx;
		}
	}
}

/* ---- the folded copy ---- */

static int32_t
fold(int32_t cp)
{
	if (cp >= 0xFF01 && cp <= 0xFF5E)
		cp -= 0xFEE0;
	if (cp >= 'A' && cp <= 'Z')
		cp += 'a' - 'A';
	else if (cp >= 0x30A1 && cp <= 0x30F6)
		cp -= 0x60;
	else if (cp == 0x3000)
		cp = ' ';
	else if (cp == 0x2212)
		cp = '-';
	else if (cp == 0x2019)	/* what’s */
		cp = '\'';
	return cp;
}

/* Texts up to this long are folded on the stack; longer ones (rare: a
   child's utterance or a hint is a line) on the heap. */
#define FOLD_STACK 2048

struct folded {
	char *s;
	size_t len;
	char *heap;
	char buf[FOLD_STACK];
};

/*
 * Fold s[0..len) into f.  Folding never lengthens a character, and a bad
 * byte becomes the one byte 0x1A, so the copy is at most len bytes.
 */
static void
fold_text(struct folded *f, const char *s, size_t len)
{
	size_t i = 0, o = 0;

	f->heap = NULL;
	f->s = len < sizeof f->buf ? f->buf : (f->heap = cc_xmalloc(len + 1));
	while (i < len) {
		size_t at = i;
		int32_t cp = cc_utf8_next(s, len, &i);

		if (cp == 0xFFFD && i - at == 1) {
			f->s[o++] = 0x1A;
			continue;
		}
		cp = fold(cp);
		if (cp < 0x80) {
			f->s[o++] = (char)cp;
		} else if (cp < 0x800) {
			f->s[o++] = (char)(0xC0 | cp >> 6);
			f->s[o++] = (char)(0x80 | (cp & 0x3F));
		} else if (cp < 0x10000) {
			f->s[o++] = (char)(0xE0 | cp >> 12);
			f->s[o++] = (char)(0x80 | (cp >> 6 & 0x3F));
			f->s[o++] = (char)(0x80 | (cp & 0x3F));
		} else {
			f->s[o++] = (char)(0xF0 | cp >> 18);
			f->s[o++] = (char)(0x80 | (cp >> 12 & 0x3F));
			f->s[o++] = (char)(0x80 | (cp >> 6 & 0x3F));
			f->s[o++] = (char)(0x80 | (cp & 0x3F));
		}
	}
	f->s[o] = '\0';
	f->len = o;
}

static void
folded_release(struct folded *f)
{
	free(f->heap);
	f->heap = NULL;
}

/* Where byte fe of the folded copy of s lies in s. */
static size_t
unfolded_pos(const char *s, size_t len, size_t fe)
{
	size_t i = 0, o = 0;

	while (i < len && o < fe) {
		size_t at = i;
		int32_t cp = cc_utf8_next(s, len, &i);

		if (cp == 0xFFFD && i - at == 1)
			o++;
		else
			cp = fold(cp), o += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
	}
	return i;
}

/* The character at s[*i] of folded text, advancing *i; -1 at the end. */
static int32_t
fnext(const char *s, size_t len, size_t *i)
{
	if (*i >= len)
		return -1;
	return cc_utf8_next(s, len, i);
}

static int32_t
fpeek(const char *s, size_t len, size_t i)
{
	return fnext(s, len, &i);
}

/* The character that ends just before byte i, or -1 at the start. */
static int32_t
fprev(const char *s, size_t i)
{
	size_t k = i;

	if (i == 0)
		return -1;
	while (k > 0 && i - k < 4 && ((unsigned char)s[k - 1] & 0xC0) == 0x80)
		k--;
	if (k > 0)
		k--;
	return fnext(s, i, &k);
}

static int
blank(int32_t cp)
{
	return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\v' ||
	    cp == '\f';
}

static int
hiragana(int32_t cp)
{
	return cp >= 0x3041 && cp <= 0x309F;
}

static int
digit(int32_t cp)
{
	return cp >= '0' && cp <= '9';
}

static size_t
skip_blanks(const char *s, size_t len, size_t i)
{
	while (i < len && blank((unsigned char)s[i]))
		i++;
	return i;
}

/* The end of lit when folded s[i] begins with it, else 0 (an ASCII word
   must end there too). */
static size_t
lit_at(const char *s, size_t len, size_t i, const char *lit)
{
	size_t ll = strlen(lit);

	if (len - i < ll || i > len || memcmp(s + i, lit, ll) != 0)
		return 0;
	if (letter((unsigned char)lit[ll - 1]) && i + ll < len && letter((unsigned char)s[i + ll]))
		return 0;
	return i + ll;
}

/* ---- reading numbers (in folded text) ---- */

enum numkind { NK_DIGITS = 1, NK_KANJI, NK_KANA, NK_ENGLISH };

struct numread {
	double value;
	size_t end;
	enum numkind kind;
	int parts;		/* morphemes or words read */
	int decimals;		/* digits after the point */
	int lead_zero;		/* digits: "07" */
	int lone;		/* kana: a single digit morpheme (に し ご く) */
	/* kana ending in the digit に: the number without it, for "じゅうに"
	   read as "じゅう" + the particle に */
	double alt_value;
	size_t alt_end;
};

/* The longest numeral morpheme at s[i]; its end or 0. */
static size_t
morph_at(const char *s, size_t len, size_t i, int kanji, const struct morph **m)
{
	int k = 0;
	size_t e = lex_find(s, len, i, kanji ? L_KANJI : L_KANA, &k);

	if (e)
		*m = kanji ? &kanji_morphs[k] : &kana_morphs[k];
	return e;
}

static int
kanji_numeral(int32_t cp)
{
	return cp == 0x3007 || cp == 0x96F6 || cp == 0x4E00 || cp == 0x4E8C ||
	    cp == 0x4E09 || cp == 0x56DB || cp == 0x4E94 || cp == 0x516D ||
	    cp == 0x4E03 || cp == 0x516B || cp == 0x4E5D || cp == 0x5341 ||
	    cp == 0x767E || cp == 0x5343 || cp == 0x4E07 || cp == 0x5104;
}

/* A run of ASCII digits standing as one digit of a kanji numeral (the 5 of
   2千5百): its end and value, or 0. */
static size_t
digit_coefficient(const char *s, size_t len, size_t i, double *v)
{
	size_t j = i;
	int n = 0;

	*v = 0;
	while (j < len && digit((unsigned char)s[j]) && n < 4) {
		*v = *v * 10 + (s[j] - '0');
		j++;
		n++;
	}
	if (!n || (j < len && (digit((unsigned char)s[j]) || s[j] == '.')))
		return 0;
	return j;
}

/*
 * A Japanese numeral at s[i] by the grammar above; cur0 >= 0 continues
 * one whose coefficient was written in digits (3万, 2千).  Returns the end,
 * 0 when no number is there.
 */
static size_t
read_japanese(const char *s, size_t len, size_t i, int kanji, double cur0,
    struct numread *nr)
{
	double total = 0, section = 0, cur = cur0, last_mult = 1e9, last_big = 1e12;
	size_t end = i, last_at = i;
	const struct morph *m = NULL, *last = NULL;
	struct morph digits;	/* outlives the loop: last may point to it */
	int parts = 0;

	for (;;) {
		size_t e = morph_at(s, len, i, kanji, &m);

		if (!e && kanji && cur < 0 && parts &&
		    (e = digit_coefficient(s, len, i, &digits.v))) {
			/* 2千5百: digits between kanji multipliers */
			digits.kind = M_DIGIT;
			digits.flags = 0;
			digits.w = "";
			m = &digits;
		}
		if (!e)
			break;
		if (m->kind == M_DIGIT) {
			const struct morph *n = NULL;

			if (cur >= 0)
				break;	/* two digits: the number ended */
			if ((m->flags & F_NEEDS_MULT) &&
			    (!morph_at(s, len, e, kanji, &n) || n->kind != M_MULT))
				break;
			if ((m->flags & F_NEEDS_POINT) &&
			    (!morph_at(s, len, e, kanji, &n) || n->kind != M_POINT))
				break;
			cur = m->v;
		} else if (m->kind == M_MULT) {
			if ((m->flags & F_AFTER_DIGIT) && cur < 0)
				break;
			if (m->v >= last_mult)
				break;	/* 十百: not falling */
			section += (cur < 0 ? 1 : cur) * m->v;
			cur = -1;
			last_mult = m->v;
		} else if (m->kind == M_BIG) {
			double group = section + (cur < 0 ? 0 : cur);

			if (group == 0 || m->v >= last_big)
				break;
			total += group * m->v;
			section = 0;
			cur = -1;
			last_mult = 1e9;
			last_big = m->v;
		} else {	/* a point: decimals, one digit morpheme each */
			size_t j = e;
			double frac = 0, scale = 0.1;
			int nd = 0;

			if (parts == 0 && cur0 < 0)
				break;
			for (;;) {
				const struct morph *d = NULL;
				size_t de = morph_at(s, len, j, kanji, &d);

				if (!de || d->kind != M_DIGIT || (d->flags & F_NEEDS_MULT))
					break;
				frac += d->v * scale;
				scale /= 10;
				nd++;
				j = de;
			}
			if (!nd)
				break;
			nr->decimals = nd;
			total += frac;
			end = j;
			parts++;
			last = NULL;
			break;
		}
		last = m;
		last_at = i;
		i = end = e;
		parts++;
	}
	if (!parts)
		return 0;
	nr->value = total + section + (cur < 0 ? 0 : cur);
	nr->end = end;
	nr->parts = parts;
	nr->lone = parts == 1 && last && last->kind == M_DIGIT;
	if (last && last->kind == M_DIGIT && last->v == 2 && parts > 1 && !kanji) {
		/* "じゅうに" may be じゅう and the particle に; "じゅうにん" and
		   "じゅうにち" are that and a counter, never 12 */
		int32_t after = fpeek(s, len, end);

		nr->alt_value = nr->value - 2;
		nr->alt_end = last_at;
		if (after == 0x3093 /* ん */ || after == 0x3061 /* ち */) {
			nr->value = nr->alt_value;
			nr->end = last_at;
			nr->alt_end = 0;
		}
	}
	return nr->end;
}

/* Kanji digits written positionally with a zero: 二〇二五, 一〇〇. */
static size_t
read_kanji_positional(const char *s, size_t len, size_t i, struct numread *nr)
{
	const struct morph *m = NULL;
	double v = 0;
	int n = 0, zero = 0;
	size_t e;

	while ((e = morph_at(s, len, i, 1, &m)) && m->kind == M_DIGIT) {
		v = v * 10 + m->v;
		zero |= m->v == 0;
		n++;
		i = e;
	}
	if (n < 2 || !zero)
		return 0;
	nr->value = v;
	nr->end = i;
	nr->parts = n;
	return i;
}

/* English number words: "sixty-eight", "a hundred and five", "two
   thousand", "three point five". */
static size_t
read_english(const char *s, size_t len, size_t i, struct numread *nr)
{
	double total = 0, small = 0, hundreds = 0;
	int parts = 0, have_unit = 0, have_tens = 0, k = 0;
	size_t end = i, e;

	for (;;) {
		size_t j = i;

		if (parts) {	/* between words: blanks, a hyphen, "and" */
			size_t a;

			j = skip_blanks(s, len, j);
			if (j < len && s[j] == '-')
				j = skip_blanks(s, len, j + 1);
			else if ((a = lit_at(s, len, j, "and")) && (hundreds || total))
				j = skip_blanks(s, len, a);
		}
		if ((e = lit_at(s, len, j, "a")) && !parts) {
			size_t h = skip_blanks(s, len, e);

			if (lit_at(s, len, h, "hundred") || lit_at(s, len, h, "thousand")) {
				small = 1;
				have_unit = 1;
				parts++;
				i = end = e;
				continue;
			}
		}
		if ((e = lex_find(s, len, j, L_EN_SMALL, &k))) {
			if (have_unit || (have_tens && k >= 10) || (parts && k == 0))
				break;
			small += k;
			have_unit = 1;
		} else if ((e = lex_find(s, len, j, L_EN_TENS, &k))) {
			if (have_unit || have_tens)
				break;
			small += en_tens_value[k];
			have_tens = 1;
		} else if ((e = lit_at(s, len, j, "hundred"))) {
			if (!small || small >= 10 || hundreds)
				break;
			hundreds = small * 100;
			small = 0;
			have_unit = have_tens = 0;
		} else if ((e = lit_at(s, len, j, "thousand")) || (e = lit_at(s, len, j, "million"))) {
			double big = s[j] == 't' ? 1e3 : 1e6;
			double group = hundreds + small;

			if (!group)
				break;
			total += group * big;
			hundreds = small = 0;
			have_unit = have_tens = 0;
		} else if ((e = lit_at(s, len, j, "point")) && parts) {
			double frac = 0, scale = 0.1;
			int nd = 0;
			size_t p = e;

			for (;;) {
				size_t d = skip_blanks(s, len, p), de = lex_find(s, len, d, L_EN_SMALL, &k);

				if (!de || k > 9)
					break;
				frac += k * scale;
				scale /= 10;
				nd++;
				p = de;
			}
			if (!nd)
				break;
			total += frac;
			nr->decimals = nd;
			end = p;
			parts++;
			break;
		} else {
			break;
		}
		parts++;
		i = end = e;
	}
	if (!parts)
		return 0;
	nr->value = total + hundreds + small;
	nr->end = end;
	nr->parts = parts;
	return end;
}

/* Digits, with thousands separators and a decimal point; a kanji
   multiplier after whole digits continues the number (3万). */
static size_t
read_digits(const char *s, size_t len, size_t i, struct numread *nr)
{
	char buf[CC_CALC_NUMLEN];
	size_t n = 0, j = i, group_len = 0;
	int first_group = 1, ok = 1;

	for (;;) {	/* the whole part */
		if (j < len && digit((unsigned char)s[j])) {
			if (n + 2 < sizeof buf)
				buf[n++] = s[j];
			else
				ok = 0;
			group_len++;
			j++;
			continue;
		}
		if (j < len && s[j] == ',' && (first_group ? group_len <= 3 : group_len == 3)) {
			/* a separator only before exactly three digits */
			size_t k = j + 1;
			int d = 0;

			while (d < 4 && k < len && digit((unsigned char)s[k]))
				d++, k++;
			if (d == 3) {
				first_group = 0;
				group_len = 0;
				j++;
				continue;
			}
		}
		break;
	}
	if (!first_group && group_len != 3)
		return 0;
	nr->lead_zero = n > 1 && buf[0] == '0';
	if (j + 1 < len && s[j] == '.' && digit((unsigned char)s[j + 1])) {
		if (n + 2 < sizeof buf)
			buf[n++] = '.';
		j++;
		while (j < len && digit((unsigned char)s[j])) {
			if (n + 2 < sizeof buf)
				buf[n++] = s[j];
			else
				ok = 0;
			nr->decimals++;
			j++;
		}
	}
	buf[n] = '\0';
	if (!ok)
		return 0;
	nr->value = strtod_l(buf, NULL, c_locale());
	nr->end = j;
	nr->parts = 1;
	if (!isfinite(nr->value))
		return 0;
	if (!nr->decimals && lex_find(s, len, j, L_KANJI_MULT, NULL)) {
		struct numread k = {0};

		if (read_japanese(s, len, j, 1, nr->value, &k) > j) {
			nr->value = k.value;
			nr->end = k.end;
			nr->parts += k.parts;
			nr->decimals = k.decimals;
		}
	}
	return nr->end;
}

/* Any number at s[i]; 0 when none.  No boundary rules: callers add them. */
static size_t
read_number(const char *s, size_t len, size_t i, struct numread *nr)
{
	int32_t cp = fpeek(s, len, i);
	int k;
	size_t e;

	memset(nr, 0, sizeof *nr);
	if (digit(cp)) {
		nr->kind = NK_DIGITS;
		return read_digits(s, len, i, nr);
	}
	if (kanji_numeral(cp)) {
		nr->kind = NK_KANJI;
		if (read_kanji_positional(s, len, i, nr))
			return nr->end;
		memset(nr, 0, sizeof *nr);
		nr->kind = NK_KANJI;
		return read_japanese(s, len, i, 1, -1, nr);
	}
	if (hiragana(cp)) {
		nr->kind = NK_KANA;
		if ((e = lex_find(s, len, i, L_NATIVE, &k))) {
			nr->value = k + 1;
			nr->end = e;
			nr->parts = 1;
			return e;
		}
		return read_japanese(s, len, i, 0, -1, nr);
	}
	if (letter(cp) && !letter(fprev(s, i))) {
		nr->kind = NK_ENGLISH;
		return read_english(s, len, i, nr);
	}
	return 0;
}

/* A sign at s[i]: the end after it (and blanks), *neg set; else i. */
static size_t
read_sign(const char *s, size_t len, size_t i, int *neg)
{
	size_t e;

	*neg = 0;
	if ((e = lex_find(s, len, i, L_SIGN, NULL))) {
		*neg = 1;
		return skip_blanks(s, len, e);
	}
	if (i < len && s[i] == '+')
		return skip_blanks(s, len, i + 1);
	return i;
}

size_t
cc_calc_scan_number(const char *s, size_t len, double *value)
{
	struct folded f;
	struct numread nr;
	size_t e;

	*value = 0;
	if (!s)
		return 0;
	fold_text(&f, s, len);
	if ((e = read_number(f.s, f.len, 0, &nr)))
		*value = nr.value;
	folded_release(&f);
	return e ? unfolded_pos(s, len, e) : 0;
}

int
cc_calc_read_number(const char *s, size_t len, double *value)
{
	struct folded f;
	struct numread nr;
	size_t i, e;
	int neg, r = -1;

	*value = 0;
	if (!s)
		return -1;
	fold_text(&f, s, len);
	i = read_sign(f.s, f.len, skip_blanks(f.s, f.len, 0), &neg);
	if ((e = read_number(f.s, f.len, i, &nr)) && skip_blanks(f.s, f.len, e) == f.len) {
		*value = neg ? -nr.value : nr.value;
		r = 0;
	}
	folded_release(&f);
	return r;
}

/* ---- a child's answer ---- */

/* After s[i] only endings, blanks and punctuation?  (An optional counter
   first when counter is set.) */
static int
only_endings(const char *s, size_t len, size_t i, int counter)
{
	size_t e;

	i = skip_blanks(s, len, i);
	/* a counter, unless an ending is longer there (じゃない is no じ) */
	if (counter && (e = lex_find(s, len, i, L_COUNTER, NULL)) &&
	    e > lex_find(s, len, i, L_NONMATH, NULL) && e > lex_find(s, len, i, L_END, NULL))
		i = e;
	for (;;) {
		i = skip_blanks(s, len, i);
		if (i >= len)
			return 1;
		if (!(e = lex_find(s, len, i, L_END, NULL)))
			return 0;
		i = e;
	}
}

/* Skip a counter (not one of another task's) at s[i]. */
static size_t
skip_counter(const char *s, size_t len, size_t i)
{
	size_t e, j = skip_blanks(s, len, i);

	if ((e = lex_find(s, len, j, L_COUNTER, NULL)) && e > lex_find(s, len, j, L_NONMATH, NULL))
		return e;
	return i;
}

/*
 * An answer at s[i]: a number, or a quotient, a remainder word and a
 * remainder, each maybe with a counter.  Returns the end, 0 when none.
 */
static size_t
read_answer_at(const char *s, size_t len, size_t i, struct cc_calc_answer *a)
{
	struct numread q, r;
	size_t e, j;
	int neg;

	i = read_sign(s, len, i, &neg);
	if (!(e = read_number(s, len, i, &q)))
		return 0;
	a->kind = CC_CALC_ANSWER_NUMBER;
	a->value = neg ? -q.value : q.value;
	a->remainder = 0;
	j = skip_blanks(s, len, skip_counter(s, len, e));
	if ((j = lex_find(s, len, j, L_REM, NULL))) {
		j = skip_blanks(s, len, j);
		if (!neg && read_number(s, len, j, &r)) {
			a->kind = CC_CALC_ANSWER_REMAINDER;
			a->remainder = r.value;
			return skip_counter(s, len, r.end);
		}
		if (!neg && (e = lit_at(s, len, j, "なし"))) {	/* 2あまりなし: none left */
			a->kind = CC_CALC_ANSWER_REMAINDER;
			return e;
		}
	}
	return e;
}

static void
parse_answer(const char *s, size_t len, struct cc_calc_answer *a)
{
	size_t i = 0, e;

	memset(a, 0, sizeof *a);
	for (;;) {	/* こたえは, えっと, ... */
		i = skip_blanks(s, len, i);
		if (!(e = lex_find(s, len, i, L_PREFIX, NULL)))
			break;
		i = e;
	}
	if (!(e = read_answer_at(s, len, i, a)) ||
	    !only_endings(s, len, e, a->kind == CC_CALC_ANSWER_NUMBER))
		memset(a, 0, sizeof *a);
}

void
cc_calc_parse_answer(const char *s, size_t len, struct cc_calc_answer *a)
{
	struct folded f;

	memset(a, 0, sizeof *a);
	if (!s)
		return;
	fold_text(&f, s, len);
	parse_answer(f.s, f.len, a);
	folded_release(&f);
}

/* ---- the leak guard ---- */

/* Kana before a numeral that end a word: particles. */
static int
kana_left_ok(int32_t prev)
{
	static const int32_t particles[] = {
		0x306F /* は */, 0x304C /* が */, 0x3092 /* を */, 0x3068 /* と */,
		0x3082 /* も */, 0x306E /* の */, 0x3067 /* で */, 0x3084 /* や */,
		0x3078 /* へ */, 0x306B /* に */, 0x306D /* ね */, 0x3088 /* よ */,
		0x3066 /* て */,
	};

	if (prev < 0 || (!hiragana(prev) && !digit(prev)))
		return 1;
	for (size_t k = 0; k < sizeof particles / sizeof particles[0]; k++)
		if (prev == particles[k])
			return 1;
	return 0;
}

static int
kana_right_ok(const char *s, size_t len, size_t e)
{
	int32_t next = fpeek(s, len, e);

	return next < 0 || !hiragana(next) || lex_find(s, len, e, L_FOLLOWER, NULL);
}

/* 1 if x, written with d decimals, says v: equal, or v rounded to d
   places (a reply's "0.3" for 0.30000000000000004).  Signs aside: a dash
   before a number is as often punctuation as a minus. */
static int
says(double x, int d, double v)
{
	x = fabs(x);
	v = fabs(v);
	if (fabs(x - v) <= 1e-9 * fmax(1, v))
		return 1;
	return d > 0 && d < 16 && fabs(x - v) <= 0.5 * pow(10, -d) * (1 + 1e-9);
}

struct target {
	int remainder;
	double v, q, r;
	int nq, nr, marked;	/* remainder: counts, and "あまり R" seen */
};

/* Note a number stated in the text; 1 when it settles the question. */
static int
note(struct target *t, double x, int d, int after_marker)
{
	if (!t->remainder)
		return says(x, d, t->v);
	if (says(x, d, t->r)) {
		t->nr++;
		if (after_marker)
			t->marked = 1;
	}
	if (says(x, d, t->q))
		t->nq++;
	return t->marked || (t->nq && t->nr && (t->q != t->r || t->nq >= 2));
}

/* 1 if the kanji 一 at s[i] ends a word (統一, 唯一, 第一). */
static int
after_idiom_head(const char *s, size_t i)
{
	for (int h = 0; idiom_heads[h]; h++) {
		size_t hl = strlen(idiom_heads[h]);

		if (i >= hl && memcmp(s + i - hl, idiom_heads[h], hl) == 0)
			return 1;
	}
	return 0;
}

static int
states(const char *text, size_t len, const struct target *t0)
{
	struct target t = *t0;
	size_t i = 0, marker_end = (size_t)-1;

	pthread_once(&lex_once, lex_build);
	while (i < len) {
		struct numread nr;
		int32_t cp = fpeek(text, len, i), prev;
		size_t e, after;
		int ok = 1;

		/* most characters begin nothing: skip them without a lookup */
		if (hiragana(cp) ? !kana_starts[cp - 0x3040] :
		    !(digit(cp) || letter(cp) || kanji_numeral(cp) || cp == 0x4F59 /* 余 */ ||
		    cp == 0x2026 || cp == 0x2025 || cp == '.' || cp == 0x30FB)) {
			fnext(text, len, &i);
			continue;
		}
		prev = fprev(text, i);
		if (t.remainder && (e = lex_find(text, len, i, L_REM, NULL)) &&
		    !(letter(cp) && letter(prev))) {
			/* "あまり 2", "あまりは2": what follows is the remainder */
			after = skip_blanks(text, len, e);
			while ((e = lit_at(text, len, after, "は")) || (e = lit_at(text, len, after, "が")) ||
			    (e = lit_at(text, len, after, ":")) || (e = lit_at(text, len, after, "=")))
				after = skip_blanks(text, len, e);
			marker_end = after;
			i = after > i ? after : i + 1;
			continue;
		}
		if ((e = lex_find(text, len, i, L_IDIOM, NULL)) &&
		    (!hiragana(cp) || kana_left_ok(prev))) {
			i = e;
			continue;
		}
		if (!(e = read_number(text, len, i, &nr))) {
			fnext(text, len, &i);
			continue;
		}
		if (nr.kind == NK_KANA)	/* right after あまり: a remainder */
			ok = marker_end == i || (kana_left_ok(prev) && !digit(prev));
		else if (nr.kind == NK_KANJI && nr.parts == 1 && nr.value == 1)
			ok = !after_idiom_head(text, i);
		after = e;
		if (lex_find(text, len, after, L_NOT_AMOUNT, NULL) ||
		    lex_find(text, len, skip_counter(text, len, after), L_NOT_AMOUNT, NULL))
			ok = 0;
		if (ok && nr.kind == NK_KANA && !kana_right_ok(text, len, e)) {
			ok = 0;
			/* "じゅうにする": じゅう and the particle に */
			if (nr.alt_end && kana_right_ok(text, len, nr.alt_end) &&
			    note(&t, nr.alt_value, 0, marker_end == i))
				return 1;
		}
		if (ok && note(&t, nr.value, nr.decimals, marker_end == i))
			return 1;
		if (nr.kind == NK_DIGITS || ok)
			i = e;	/* never start again inside a number: 168 holds no 68 */
		else
			fnext(text, len, &i);
	}
	return 0;
}

int
cc_calc_states_value(const char *text, size_t len, const char *answer)
{
	struct cc_calc_answer a;
	struct target t = {0};
	struct folded f;
	int r;

	if (!text || !answer)
		return 0;
	cc_calc_parse_answer(answer, strlen(answer), &a);
	if (a.kind == CC_CALC_ANSWER_NONE)
		return 0;
	t.remainder = a.kind == CC_CALC_ANSWER_REMAINDER;
	t.v = t.q = a.value;
	t.r = a.remainder;
	fold_text(&f, text, len);
	r = states(f.s, f.len, &t);
	folded_release(&f);
	return r;
}
/* ---- what an utterance states ---- */

enum tk {
	K_NUM, K_OP, K_EQ, K_Q, K_REM, K_MARK, K_FILL, K_END, K_COUNTER,
	K_NONMATH, K_HEAD, K_PART, K_LP, K_RP, K_OTHER
};

struct token {
	enum tk kind;
	char op;		/* K_OP: + - * /; K_PART: t(と) n(に) k(から) w(を) d(で) */
	int word;		/* K_OP: 1 spelt as a word (たす, plus); 2 only in
				   "AとBをあわせる" */
	int dash;		/* K_OP: '-' or '/', which also join dates and labels */
	struct numread num;	/* K_NUM */
	size_t start, end;
};

#define MAX_TOKENS 96





/* The word kinds of a token after numbers and operators, in the order
   that breaks a tie. */
static const struct {
	int cat;
	enum tk kind;
} kinds[] = {
	{ L_EQ, K_EQ }, { L_Q, K_Q }, { L_REM, K_REM }, { L_MARK, K_MARK },
	{ L_FILL, K_FILL }, { L_END, K_END }, { L_COUNTER, K_COUNTER },
	{ L_NONMATH, K_NONMATH }, { L_HEAD, K_HEAD }, { L_PART, K_PART },
};

/* Split folded text into tokens; returns how many (at most max). */
static size_t
tokenize(const char *s, size_t len, struct token *t, size_t max)
{
	size_t n = 0, i = 0;

	while (n < max) {
		struct token c = { .kind = K_OTHER };
		size_t e, best, end[L_NCAT];
		int32_t cp;
		int idx[L_NCAT];

		i = skip_blanks(s, len, i);
		if (i >= len)
			break;
		c.start = i;
		cp = fpeek(s, len, i);
		/* candidates, the longest wins; on a tie the earlier kind */
		best = 0;
		if ((e = read_number(s, len, i, &c.num)) > best) {
			best = e;
			c.kind = K_NUM;
		}
		lex_all(s, len, i, end, idx);
		if (end[L_IDIOM] >= best && end[L_IDIOM]) {	/* ごはん is no ご */
			best = end[L_IDIOM];
			c.kind = K_OTHER;
		}
		if (end[L_OP] > best) {
			best = end[L_OP];
			c.kind = K_OP;
			c.op = opwords[idx[L_OP]].op;
			c.word = opwords[idx[L_OP]].word;
			c.dash = !strcmp(opwords[idx[L_OP]].w, "-") || !strcmp(opwords[idx[L_OP]].w, "/");
		}
		for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
			if (end[kinds[k].cat] > best) {
				best = end[kinds[k].cat];
				c.kind = kinds[k].kind;
				if (c.kind == K_PART)
					c.op = particle_codes[idx[L_PART]];
			}
		if (!best && (cp == '(' || cp == ')')) {
			best = i;
			fnext(s, len, &best);
			c.kind = cp == '(' ? K_LP : K_RP;
		}
		if (!best) {	/* anything else: a character, or a whole ASCII word */
			size_t j = i;

			c.kind = K_OTHER;
			fnext(s, len, &j);
			if (letter(cp))
				while (letter(fpeek(s, len, j)) || fpeek(s, len, j) == '\'')
					fnext(s, len, &j);
			best = j;
		}
		c.end = best;
		t[n++] = c;
		i = best;
	}
	return n;
}

/* Append text to buf (of CC_CALC_EXPRLEN); -1 when it does not fit. */
static int
put(char *buf, size_t *bl, const char *text)
{
	size_t n = strlen(text);

	if (*bl + n + 1 > CC_CALC_EXPRLEN)
		return -1;
	memcpy(buf + *bl, text, n + 1);
	*bl += n;
	return 0;
}

/* Append v as the evaluator and the answer reader read it back: never
   in exponent form (1e-05), which neither takes. */
static int
put_number(char *buf, size_t *bl, double v)
{
	char num[CC_CALC_NUMLEN];

	if (strchr(cc_calc_format(v, num), 'e'))
		return -1;
	return put(buf, bl, num);
}

/*
 * An answer in tokens t[j..n): [-] NUM [counter] [remainder-word NUM
 * [counter]].  Writes it to out; returns the token after it, or 0.
 */
static size_t
token_answer(const struct token *t, size_t n, size_t j, char out[CC_CALC_EXPRLEN])
{
	char buf[CC_CALC_EXPRLEN];
	size_t bl = 0;
	int neg = 0;

	out[0] = '\0';
	if (j + 1 < n && t[j].kind == K_OP && t[j].op == '-' && t[j + 1].kind == K_NUM) {
		neg = 1;
		j++;
	}
	if (j >= n || t[j].kind != K_NUM ||
	    put_number(buf, &bl, neg ? -t[j].num.value : t[j].num.value) < 0)
		return 0;
	j++;
	if (j < n && t[j].kind == K_COUNTER)
		j++;
	if (j < n && t[j].kind == K_NONMATH)
		return 0;	/* "3ばん": a label */
	if (!neg && j + 1 < n && t[j].kind == K_REM && t[j + 1].kind == K_NUM) {
		if (put(buf, &bl, "あまり") < 0 || put_number(buf, &bl, t[j + 1].num.value) < 0)
			return 0;
		j += 2;
		if (j < n && t[j].kind == K_COUNTER)
			j++;
		if (j < n && t[j].kind == K_NONMATH)
			return 0;
	}
	memcpy(out, buf, bl + 1);
	return j;
}

/* The answer stated after a problem that ends before token j: "= 8",
   "は8", "8" (the particle dropped). */
static void
answer_after(const struct token *t, size_t n, size_t j, struct cc_calc_utterance *u)
{
	size_t e;

	while (j < n && t[j].kind == K_COUNTER)
		j++;
	if (j < n && t[j].kind == K_EQ) {
		j++;
		while (j < n && (t[j].kind == K_MARK || t[j].kind == K_FILL || t[j].kind == K_EQ))
			j++;
	}
	if ((e = token_answer(t, n, j, u->answer)) && !(e < n && t[e].kind == K_OP))
		return;
	u->answer[0] = '\0';
}

/*
 * The first run of numbers and operators that is a valid expression with
 * at least one operation.  Returns the token after it, 0 when none.
 */
static size_t
find_chain(const struct token *t, size_t n, struct cc_calc_utterance *u)
{
	for (size_t k = 0; k < n; k++) {
		char buf[CC_CALC_EXPRLEN];
		size_t bl = 0, j = k, good = 0, good_len = 0;
		int operand = 1, depth = 0, nops = 0, words = 0, lead0 = 0, nonmath = 0;
		char sym = 0;
		int same_sym = 1;
		struct cc_calc_expr e;

		if (t[k].kind != K_NUM && t[k].kind != K_LP &&
		    !(t[k].kind == K_OP && t[k].op == '-' && !t[k].word))
			continue;
		buf[0] = '\0';
		while (j < n) {
			const struct token *c = &t[j];

			if (operand) {
				if (c->kind == K_NUM) {
					if (put_number(buf, &bl, c->num.value) < 0)
						break;
					lead0 |= c->num.lead_zero;
					operand = 0;
					j++;
					if (j < n && t[j].kind == K_COUNTER)
						j++;
					if (j < n && t[j].kind == K_NONMATH) {
						nonmath = 1;
						break;
					}
					if (!depth && nops) {
						good = j;
						good_len = bl;
					}
					continue;
				}
				if (c->kind == K_LP && put(buf, &bl, "(") == 0) {
					depth++;
					j++;
					continue;
				}
				if (c->kind == K_OP && c->op == '-' && !c->word &&
				    (j == k || t[j - 1].kind == K_LP) && put(buf, &bl, "-") == 0) {
					j++;
					continue;
				}
				break;
			}
			if (c->kind == K_OP && c->word != 2) {
				char o[2] = { c->op, 0 };

				if (put(buf, &bl, o) < 0)
					break;
				if (c->word || !c->dash)
					words++;	/* たす, ÷: arithmetic for sure */
				else if (!sym)
					sym = c->op;
				else if (sym != c->op)
					same_sym = 0;
				nops++;
				operand = 1;
				j++;
				continue;
			}
			if (c->kind == K_RP && depth > 0 && put(buf, &bl, ")") == 0) {
				depth--;
				j++;
				if (!depth && nops) {
					good = j;
					good_len = bl;
				}
				continue;
			}
			break;
		}
		if (!good || nonmath)
			continue;
		buf[good_len] = '\0';
		/*
		 * Numbers joined only by '-' or '/' signs are as often dates,
		 * codes or labels (2025-01-15, 1/15の, もんだい3-2) as sums;
		 * ÷ and the words are not.
		 */
		if (!words && same_sym && (sym == '-' || sym == '/') &&
		    (nops >= 2 || lead0 || (k > 0 && t[k - 1].kind == K_HEAD) ||
		    (good < n && t[good].kind == K_PART && t[good].op == 'o')))
			continue;
		if (cc_calc_parse(buf, good_len, &e, NULL, 0) != CC_CALC_OK)
			continue;
		memcpy(u->expr, buf, good_len + 1);
		return good;
	}
	return 0;
}

/*
 * "AとBをたす", "AにBをかける", "AからBをひく", "AをBでわる", "AとBを
 * あわせると": the problem in particles.  Returns the token after the
 * verb, 0 when none.
 */
static size_t
find_particles(const struct token *t, size_t n, struct cc_calc_utterance *u)
{
	for (size_t k = 0; k + 3 < n; k++) {
		size_t j = k + 1, bl = 0;
		char p1, p2 = 0, op[2] = { 0, 0 };
		double a, b;
		int fits;

		if (t[k].kind != K_NUM)
			continue;
		a = t[k].num.value;
		if (j < n && t[j].kind == K_COUNTER)
			j++;
		if (j >= n)
			break;
		if (t[j].kind == K_PART)
			p1 = t[j].op;
		else if (t[j].kind == K_NUM && t[j].num.kind == NK_KANA && t[j].num.lone &&
		    t[j].num.value == 2)
			p1 = 'n';	/* に read as the digit 2 */
		else
			continue;
		j++;
		if (j >= n || t[j].kind != K_NUM)
			continue;
		b = t[j].num.value;
		j++;
		if (j < n && t[j].kind == K_COUNTER)
			j++;
		if (j < n && t[j].kind == K_PART && (t[j].op == 'w' || t[j].op == 'd'))
			p2 = t[j++].op;
		if (j >= n || t[j].kind != K_OP || !t[j].word)
			continue;
		op[0] = t[j].op;
		switch (op[0]) {
		case '+': fits = (p1 == 't' || p1 == 'n') && p2 != 'd'; break;
		case '*': fits = ((p1 == 't' || p1 == 'n') && p2 != 'd') || (p1 == 'w' && p2 == 'd'); break;
		case '-': fits = p1 == 'k' && p2 != 'd'; break;
		default: fits = p1 == 'w' && p2 == 'd'; break;
		}
		if (!fits || put_number(u->expr, &bl, a) < 0 || put(u->expr, &bl, op) < 0 ||
		    put_number(u->expr, &bl, b) < 0 ||
		    cc_calc_eval(u->expr, bl, &a, NULL, 0) != CC_CALC_OK) {
			u->expr[0] = '\0';
			continue;
		}
		return j + 1;
	}
	return 0;
}


/* One digit 1-9 as a factor is recited (kana or kanji), at s[i]. */
static size_t
factor_at(const char *s, size_t len, size_t i, int *d)
{
	const struct morph *m = NULL;
	size_t e = morph_at(s, len, i, 0, &m);

	if (!e)
		e = morph_at(s, len, i, 1, &m);
	if (!e || m->kind != M_DIGIT || m->flags || m->v < 1)
		return 0;
	*d = (int)m->v;
	return e;
}

/* A whole utterance that is a 九九 line: "くしち ろくじゅうさん", "にさんがろく",
   "九七六十三".  Fills u; 1 when it is one. */
/* The product after a 九九 line's factors at s[i], when it ends the
   utterance: 1 and u filled. */
static int
recitation_tail(const char *s, size_t len, size_t i, int a, int b, int table,
    struct cc_calc_utterance *u)
{
	struct numread p;
	size_t e, bl = 0;

	i = skip_blanks(s, len, i);
	if ((e = lit_at(s, len, i, "が")))
		i = skip_blanks(s, len, e);
	if (!read_number(s, len, i, &p) || p.kind == NK_ENGLISH || p.decimals ||
	    !only_endings(s, len, p.end, 0))
		return 0;
	/* a slip is worth checking, a different sentence is not */
	if (p.value < (a > b ? a : b) || p.value > 100 ||
	    (!table && fabs(p.value - a * b) > 10))
		return 0;
	snprintf(u->expr, sizeof u->expr, "%d*%d", a, b);
	if (put_number(u->answer, &bl, p.value) < 0)
		u->answer[0] = '\0';
	u->recitation = 1;
	return 1;
}

/*
 * A whole utterance that is a 九九 line: "くしち ろくじゅうさん",
 * "にさんがろく", "ごはち よんじゅう", "九七六十三".  The recited forms of
 * the table first, longest first (しちしち before しちし), then any two
 * digits as they are read alone.  Fills u; 1 when it is one.
 */
static int
recitation(const char *s, size_t len, struct cc_calc_utterance *u)
{
	size_t i = 0, e, e2, tried = (size_t)-1;
	int a = 0, b = 0;

	for (;;) {
		i = skip_blanks(s, len, i);
		if (!(e = lex_find(s, len, i, L_FILL, NULL)))
			break;
		i = e;
	}
	for (;;) {	/* the table's matches, from the longest down */
		size_t best = 0;
		int ba = 0, bb = 0;

		for (int k = 0; kuku_lines[k].w; k++)
			if ((e = lit_at(s, len, i, kuku_lines[k].w)) > best && e < tried) {
				best = e;
				ba = kuku_lines[k].a;
				bb = kuku_lines[k].b;
			}
		if (!best)
			break;
		if (recitation_tail(s, len, best, ba, bb, 1, u))
			return 1;
		tried = best;
	}
	if ((e = factor_at(s, len, i, &a)) &&
	    (e2 = factor_at(s, len, skip_blanks(s, len, e), &b)) &&
	    recitation_tail(s, len, e2, a, b, 0, u))
		return 1;
	memset(u, 0, sizeof *u);
	return 0;
}

static int
from_words(const char *text, size_t len, struct cc_calc_utterance *u)
{
	struct token t[MAX_TOKENS];
	size_t n, j, e;

	if (recitation(text, len, u))
		return CC_CALC_HAS_EXPR | (u->answer[0] ? CC_CALC_HAS_ANSWER : 0);
	n = tokenize(text, len, t, MAX_TOKENS);
	if ((j = find_chain(t, n, u)) || (j = find_particles(t, n, u))) {
		answer_after(t, n, j, u);
		return CC_CALC_HAS_EXPR | (u->answer[0] ? CC_CALC_HAS_ANSWER : 0);
	}
	/* no problem: an answer alone, "こたえは15だとおもう", "36であってる？" */
	j = 0;
	while (j < n && (t[j].kind == K_FILL || t[j].kind == K_MARK || t[j].kind == K_END ||
	    (t[j].kind == K_EQ && j > 0 && t[j - 1].kind == K_MARK)))
		j++;
	if (!(e = token_answer(t, n, j, u->answer)))
		return 0;
	for (j = e; j < n; j++)
		if (t[j].kind != K_END && t[j].kind != K_FILL) {
			u->answer[0] = '\0';
			return 0;
		}
	return CC_CALC_HAS_ANSWER;
}

int
cc_calc_from_words(const char *text, size_t len, struct cc_calc_utterance *u)
{
	struct folded f;
	int r;

	memset(u, 0, sizeof *u);
	if (!text)
		return 0;
	fold_text(&f, text, len);
	r = from_words(f.s, f.len, u);
	folded_release(&f);
	return r;
}
