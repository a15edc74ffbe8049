/*
 * Casual spellings as standard ones (cc_casual.h).  Visitors write the
 * way they speak: a Hakata local asks 「今日開いとる？」 or 「なんができると？」,
 * a teenager 「あんがと〜🙏」 or "heyyy", an English speaker "is it yasumi
 * on dec 30?".  The routing rules are written once, in standard Japanese
 * and English; rather than a rule per phrasing, the folded text is
 * rewritten here before any rule reads it, by a few grammatical patterns:
 *
 *   - the progressive 〜とる / 〜よる (Fukuoka, western Japan) is 〜てる:
 *     開いとる, やっとる, 営業しとる, 空いとらん; 営業しよる, 開きよる;
 *   - sentence-final particles: と？ is の？ (なんができると？), なん？ is
 *     なの？ (誰なん？), やろ is だろ, けん is から; ばい and っちゃ add no
 *     meaning and go;
 *   - a few casual words: あんがと, おはよ, ほな, あんた, なんが;
 *   - English chat: letters held down (hiii, heyyy, byeee), cya, thks,
 *     "r u"; romaji words of the venue's aspects (yasumi, heijitsu,
 *     doyoubi, yoyaku);
 *   - emoji, pictographs and variation selectors become spaces, so
 *     "👋 hi" still begins with its greeting.
 *
 * Each pattern looks at the character before it (the stem of a verb, not
 * any kana) and, for a final particle, at what follows (the end of the
 * sentence), so 写真とる, によると and ちょっと are left alone.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_text.h"
#include "cc_casual.h"

struct out {
	char *s;
	size_t n, cap;
};

static void
put(struct out *o, const char *s, size_t n)
{
	if (o->n + n + 1 > o->cap) {
		o->cap = (o->n + n + 1) * 2;
		o->s = cc_xrealloc(o->s, o->cap);
	}
	memcpy(o->s + o->n, s, n);
	o->n += n;
}

/* Emoji, pictographs, dingbats, arrows and the joiners between them. */
static int
symbol(int32_t c)
{
	return (c >= 0x2190 && c <= 0x21FF) || (c >= 0x2300 && c <= 0x23FF) ||
	    (c >= 0x25A0 && c <= 0x27BF) || (c >= 0x2B00 && c <= 0x2BFF) ||
	    (c >= 0x1F000 && c <= 0x1FAFF) || (c >= 0xFE00 && c <= 0xFE0F) ||
	    c == 0x200D || c == 0x20E3 || (c >= 0xE0020 && c <= 0xE007F);
}

/* Where a sentence may end: the end, punctuation, a space, ー, a symbol. */
static int
sentence_end(const char *s, size_t len, size_t i)
{
	size_t j = i;
	int32_t c;

	if (i >= len)
		return 1;
	c = cc_utf8_next(s, len, &j);
	return c == '?' || c == '!' || c == '.' || c == ',' || c == ' ' ||
	    c == '~' || c == 0x3002 || c == 0x3001 || c == 0x30FC || symbol(c);
}

/* The last character written, or 0. */
static int32_t
last_char(const struct out *o, size_t *at)
{
	size_t i = o->n;

	if (!i)
		return 0;
	while (i > 0 && ((unsigned char)o->s[i - 1] & 0xC0) == 0x80)
		i--;
	if (i > 0)
		i--;
	if (at)
		*at = i;
	{
		size_t j = i;

		return cc_utf8_next(o->s, o->n, &j);
	}
}

/* 1 if the character c is one of the UTF-8 string set's. */
static int
one_of(int32_t c, const char *set)
{
	size_t i = 0, n = strlen(set);

	while (i < n)
		if (cc_utf8_next(set, n, &i) == c)
			return 1;
	return 0;
}

static int
kana(int32_t c)
{
	return (c >= 0x3041 && c <= 0x30FF);
}

enum {
	END = 1,	/* the sentence ends after it */
	ENDISH = 2,	/* it ends, or a particle follows (と, の, か, ...) */
	WORD = 4,	/* no kana before it */
	STEM = 8,	/* the verb's i-stem before it becomes its te-form */
	AFTER = 16,	/* something is before it (not the whole text) */
	NOT_U = 32,	/* no う after it (おはよ, not おはよう) */
};

struct jrule {
	const char *from, *to;
	const char *prev;	/* the characters allowed before it; NULL any */
	unsigned flags;
};

/*
 * the stems before the progressive とる: 開い, やっ, 営業し, 来 (small
 * kana are large by now: やっとる is やつとる)
 */
#define TE "いつしちきぎみびりえせてねべめれじ来居見"

static const struct jrule jrules[] = {
	{ "とります", "てます", TE, 0 },
	{ "とらへん", "てない", TE, 0 },
	{ "とらん", "てない", TE, 0 },
	{ "とつた", "てた", TE, 0 },
	{ "とつて", "てて", TE, 0 },
	{ "とる", "てる", TE, 0 },
	{ "とー", "てる", TE, 0 },
	{ "どらん", "でない", "ん", 0 },
	{ "どつた", "でた", "ん", 0 },
	{ "どる", "でる", "ん", 0 },
	{ "どー", "でる", "ん", 0 },
	{ "よる", "る", "しきちりいみびぎ", STEM | ENDISH },
	{ "よー", "る", "しきちりいみびぎ", STEM | ENDISH },
	{ "やけん", "だから", NULL, AFTER | END },
	{ "けん", "から", "るたいだんすうく", END },
	{ "ばつてん", "けど", NULL, 0 },
	{ "と", "の", "るたう", END },
	{ "なん", "なの", NULL, AFTER | END },
	{ "つちや", "", NULL, AFTER | END },
	{ "ちや", "", "るたんだよ", END },
	{ "ばい", "", "るただよねす", END },
	{ "やろ", "だろ", NULL, AFTER | END },
	{ "あんがとう", "ありがとう", NULL, WORD },
	{ "あんがと", "ありがと", NULL, WORD },
	{ "おおきに", "ありがとう", NULL, WORD },
	{ "おはよ", "おはよう", NULL, WORD | NOT_U },
	{ "あんた", "あなた", NULL, WORD },
	{ "なんが", "なにが", NULL, WORD },
	{ "どげな", "どんな", NULL, WORD },
	{ "どげん", "どう", NULL, WORD },
	{ "ほなね", "じゃあね", NULL, WORD },
	{ "ほなまた", "またね", NULL, WORD },
	{ "ほな", "じゃあね", NULL, WORD | END },
	{ "ほな", "じゃあ", NULL, WORD },
};

/*
 * Loanwords that fold to what a pattern reads (katakana is hiragana by
 * now): タイトル is not 〜とる, サイト？ is no final と, 何月 no なんが.
 */
static const char *const loanwords[] = {
	"たいとる", "けとる", "ぼとる", "さいと", "なんがつ",
};

static int
loanword(const char *s, size_t len, size_t i, const char *from)
{
	for (size_t k = 0; k < sizeof loanwords / sizeof *loanwords; k++) {
		const char *w = loanwords[k], *at = strstr(w, from);
		size_t off, wl = strlen(w);

		if (!at)
			continue;
		off = (size_t)(at - w);
		if (off <= i && i - off + wl <= len && memcmp(s + i - off, w, wl) == 0)
			return 1;
	}
	return 0;
}

/* The te-form of an i-stem: し -> して, き -> いて, り -> って, み -> んで. */
static const char *
te_form(int32_t c)
{
	switch (c) {
	case 0x3057: return "して";	/* し */
	case 0x304D: return "いて";	/* き */
	case 0x304E: return "いで";	/* ぎ */
	case 0x3061: case 0x308A: case 0x3044: return "って";	/* ち り い */
	case 0x307F: case 0x3073: return "んで";	/* み び */
	}
	return NULL;
}

/* The character after a match at s[i..] is a particle that may end it. */
static int
endish(const char *s, size_t len, size_t i)
{
	size_t j = i;

	if (sentence_end(s, len, i))
		return 1;
	return one_of(cc_utf8_next(s, len, &j), "とのんかねよわけ");
}

/* Try the Japanese patterns at s[i]; the bytes consumed, or 0. */
static size_t
japanese(struct out *o, const char *s, size_t len, size_t i)
{
	size_t at = 0;
	int32_t prev = last_char(o, &at);

	for (size_t k = 0; k < sizeof jrules / sizeof *jrules; k++) {
		const struct jrule *r = &jrules[k];
		size_t n = strlen(r->from);
		const char *te = NULL;

		if (n > len - i || memcmp(s + i, r->from, n) != 0)
			continue;
		if (r->prev && !(prev && one_of(prev, r->prev)))
			continue;
		if ((r->flags & AFTER) && (!prev || prev == ' '))
			continue;
		if ((r->flags & WORD) && kana(prev))
			continue;
		if ((r->flags & END) && !sentence_end(s, len, i + n))
			continue;
		if ((r->flags & ENDISH) && !endish(s, len, i + n))
			continue;
		if ((r->flags & NOT_U) && i + n + 3 <= len &&
		    memcmp(s + i + n, "う", 3) == 0)
			continue;
		if (loanword(s, len, i, r->from))
			continue;
		if (r->flags & STEM) {
			if (!(te = te_form(prev)))
				continue;
			o->n = at;	/* the stem's last kana, rewritten */
			put(o, te, strlen(te));
		}
		put(o, r->to, strlen(r->to));
		return n;
	}
	return 0;
}

/* English chat words and romaji words of the venue's aspects. */
static const struct {
	const char *from, *to;
} words[] = {
	{ "cya", "see you" }, { "ttyl", "bye" }, { "byee", "bye" },
	{ "thks", "thanks" }, { "thnks", "thanks" }, { "tks", "thanks" },
	{ "tnx", "thanks" }, { "tq", "thanks" }, { "heyy", "hey" },
	{ "hii", "hi" }, { "helo", "hello" },
	{ "yasumi", "closed" }, { "kyuukan", "closed" }, { "kyukan", "closed" },
	{ "kyuukanbi", "closed" }, { "kyukanbi", "closed" },
	{ "teikyuubi", "closed" }, { "teikyubi", "closed" },
	{ "heijitsu", "weekdays" }, { "heijitu", "weekdays" },
	{ "shuumatsu", "weekend" }, { "shumatsu", "weekend" },
	{ "getsuyoubi", "monday" }, { "getsuyobi", "monday" },
	{ "kayoubi", "tuesday" }, { "kayobi", "tuesday" },
	{ "suiyoubi", "wednesday" }, { "suiyobi", "wednesday" },
	{ "mokuyoubi", "thursday" }, { "mokuyobi", "thursday" },
	{ "kinyoubi", "friday" }, { "kinyobi", "friday" },
	{ "doyoubi", "saturday" }, { "doyobi", "saturday" },
	{ "nichiyoubi", "sunday" }, { "nichiyobi", "sunday" },
	{ "ashita", "tomorrow" }, { "kyou", "today" },
	{ "yoyaku", "booking" }, { "kaigishitsu", "meeting room" },
	{ "tatemono", "building" }, { "oyasumi", "good night" },
	{ "sayonara", "goodbye" }, { "sayounara", "goodbye" },
	{ "ikura", "how much" },
};

static int
letter(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* The ASCII word at s[i..i+n): letters held down let go, then the table. */
static void
english(struct out *o, const char *s, size_t len, size_t i, size_t n)
{
	char w[40];
	size_t m = 0;

	if (n >= sizeof w) {
		put(o, s + i, n);
		return;
	}
	for (size_t k = 0; k < n; k++) {
		size_t run = 1;

		while (k + run < n && lower(s[i + k + run]) == lower(s[i + k]))
			run++;
		/* hiii, byeee: one at the end; goooood: two inside */
		for (size_t r = 0; r < (run < 3 || run == n ? run : k + run == n ? 1 : 2); r++)
			w[m++] = s[i + k];
		k += run - 1;
	}
	w[m] = '\0';
	for (size_t k = 0; k < sizeof words / sizeof *words; k++) {
		const char *f = words[k].from;
		size_t j = 0;

		while (j < m && f[j] && lower(w[j]) == f[j])
			j++;
		if (j == m && !f[j]) {
			put(o, words[k].to, strlen(words[k].to));
			return;
		}
	}
	/* "r u a bot", "r they open": are */
	if (m == 1 && lower(w[0]) == 'r' && i + n + 2 < len && s[i + n] == ' ') {
		static const char *const next[] = { "u ", "you ", "they ", "we ", "u?", "you?" };
		for (size_t k = 0; k < sizeof next / sizeof *next; k++)
			if (len - (i + n + 1) >= strlen(next[k]) &&
			    strncmp(s + i + n + 1, next[k], strlen(next[k])) == 0) {
				put(o, "are", 3);
				return;
			}
	}
	put(o, w, m);
}

char *
cc_casual(const char *s, size_t len, size_t *outlen)
{
	struct out o = {0};
	size_t i = 0;

	o.cap = len + 16;
	o.s = cc_xmalloc(o.cap);
	while (i < len) {
		unsigned char c = (unsigned char)s[i];

		if (letter(c) && (i == 0 || !letter(s[i - 1]))) {
			size_t n = 0;

			while (i + n < len && letter(s[i + n]))
				n++;
			if (i + n < len && ((s[i + n] >= '0' && s[i + n] <= '9') ||
			    s[i + n] == '\'' || s[i + n] == '.')) {
				put(&o, s + i, n);	/* part of something else: b1f, www.x.jp */
			} else {
				english(&o, s, len, i, n);
			}
			i += n;
			continue;
		}
		if (c >= 0xE2) {	/* kana and symbols are 3 or 4 bytes */
			size_t j = i, used;
			int32_t cp = cc_utf8_next(s, len, &j);

			if (symbol(cp)) {
				if (o.n && o.s[o.n - 1] != ' ')
					put(&o, " ", 1);
				i = j;
				continue;
			}
			if (kana(cp) && (used = japanese(&o, s, len, i))) {
				i += used;
				continue;
			}
			put(&o, s + i, j - i);
			i = j;
			continue;
		}
		if (c == ' ' && (!o.n || o.s[o.n - 1] == ' ')) {
			i++;
			continue;
		}
		put(&o, s + i, 1);
		i++;
	}
	while (o.n && o.s[o.n - 1] == ' ')
		o.n--;
	if (o.n == len && memcmp(o.s, s, len) == 0) {
		free(o.s);
		return NULL;
	}
	o.s[o.n] = '\0';
	if (outlen)
		*outlen = o.n;
	return o.s;
}
