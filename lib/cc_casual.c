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
 *     "r u", a dropped final g (goin, nothin); romaji words of the
 *     venue's aspects (yasumi, heijitsu, doyoubi, yoyaku);
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
		o->cap = (o->n + n + 1) * 2 + 32;
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
 * now), and a phrase: タイトル is not 〜とる, サイト？ and によると have no
 * final と, 何月 no なんが, ネットって no 〜とって.
 */
static const char *const loanwords[] = {
	"たいとる", "けとる", "ぼとる", "さいと", "なんがつ", "によると",
	/* a word in ット or イト before って: インターネットって is no
	 * やっとって (やっていて) */
	"ねつとつて", "けつとつて", "せつとつて", "ぼつとつて", "かつとつて",
	"ひつとつて", "きつとつて", "みつとつて", "ばいとつて", "ないとつて",
	"らいとつて",
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

/* 1 if a pattern begins with the kana c: most kana are turned away here. */
static int
begins(int32_t c)
{
	switch (c) {
	case 0x3068: case 0x3069: case 0x3088: case 0x3084: case 0x3051:	/* と ど よ や け */
	case 0x3070: case 0x306A: case 0x3064: case 0x3061: case 0x3042:	/* ば な つ ち あ */
	case 0x304A: case 0x307B:	/* お ほ */
		return 1;
	}
	return 0;
}

/* Try the Japanese patterns at s[i]; the bytes consumed, or 0. */
static size_t
japanese(struct out *o, const char *s, size_t len, size_t i)
{
	size_t at = 0;
	int32_t prev;

	prev = last_char(o, &at);
	for (size_t k = 0; k < sizeof jrules / sizeof *jrules; k++) {
		const struct jrule *r = &jrules[k];
		size_t n;
		const char *te = NULL;

		if (memcmp(s + i, r->from, 3) != 0)	/* every pattern begins with a kana */
			continue;
		n = strlen(r->from);
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

/* English chat words and romaji words of the venue's aspects, sorted. */
static const struct {
	const char *from, *to;
} words[] = {
	{ "anythin", "anything" }, { "ashita", "tomorrow" }, { "byee", "bye" }, { "comin", "coming" }, { "cya", "see you" },
	{ "doin", "doing" }, { "doyobi", "saturday" }, { "doyoubi", "saturday" },
	{ "getsuyobi", "monday" }, { "getsuyoubi", "monday" }, { "goin", "going" },
	{ "happenin", "happening" }, { "heijitsu", "weekdays" }, { "heijitu", "weekdays" },
	{ "helo", "hello" }, { "heyy", "hey" }, { "hii", "hi" },
	{ "ikura", "how much" }, { "kaigishitsu", "meeting room" },
	{ "kayobi", "tuesday" }, { "kayoubi", "tuesday" },
	{ "kinyobi", "friday" }, { "kinyoubi", "friday" }, { "kyou", "today" },
	{ "kyukan", "closed" }, { "kyukanbi", "closed" },
	{ "kyuukan", "closed" }, { "kyuukanbi", "closed" },
	{ "mokuyobi", "thursday" }, { "mokuyoubi", "thursday" },
	{ "nichiyobi", "sunday" }, { "nichiyoubi", "sunday" }, { "nothin", "nothing" },
	{ "oyasumi", "good night" }, { "sayonara", "goodbye" },
	{ "sayounara", "goodbye" }, { "shumatsu", "weekend" },
	{ "shuumatsu", "weekend" }, { "somethin", "something" }, { "suiyobi", "wednesday" },
	{ "suiyoubi", "wednesday" }, { "tatemono", "building" },
	{ "teikyubi", "closed" }, { "teikyuubi", "closed" },
	{ "thks", "thanks" }, { "thnks", "thanks" }, { "tks", "thanks" },
	{ "tnx", "thanks" }, { "tq", "thanks" }, { "ttyl", "bye" },
	{ "yasumi", "closed" }, { "yoyaku", "booking" },
};

static int
letter(int c)
{
	return c >= 'a' && c <= 'z';	/* folded: lower case */
}

/*
 * The ASCII word s[i..i+n) with letters held down let go, then as the
 * table spells it: the new spelling in w (or a table entry in *to), its
 * length; 0 when the word stays as it is.
 */
static size_t
english(const char *s, size_t len, size_t i, size_t n, char w[40], const char **to)
{
	const char *p = s + i;
	size_t m = 0, held = 0;

	*to = w;
	if (n >= 40)
		return 0;
	for (size_t k = 2; k < n && !held; k++)
		held = p[k] == p[k - 1] && p[k] == p[k - 2];
	if (held) {	/* hiii, byeee: one at the end; goooood: two inside; www stays */
		for (size_t k = 0; k < n; k++) {
			size_t run = 1;

			while (k + run < n && p[k + run] == p[k])
				run++;
			for (size_t r = 0; r < (run < 3 || run == n ? run : k + run == n ? 1 : 2); r++)
				w[m++] = p[k];
			k += run - 1;
		}
		p = w;
	} else {
		m = n;
	}
	for (size_t lo = 0, hi = sizeof words / sizeof *words; lo < hi;) {
		size_t mid = (lo + hi) / 2;
		const char *f = words[mid].from;
		int c = strncmp(p, f, m);

		if (c == 0 && f[m])
			c = -1;	/* a longer word of the table */
		if (c == 0) {
			*to = words[mid].to;
			return strlen(*to);
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	/* "r u a bot", "r they open": are */
	if (m == 1 && p[0] == 'r' && i + n + 2 < len && s[i + n] == ' ') {
		static const char *const next[] = { "u ", "you ", "they ", "we ", "u?", "you?" };

		for (size_t k = 0; k < sizeof next / sizeof *next; k++)
			if (len - (i + n + 1) >= strlen(next[k]) &&
			    strncmp(s + i + n + 1, next[k], strlen(next[k])) == 0) {
				*to = "are";
				return 3;
			}
	}
	return held ? m : 0;
}

/*
 * One pass; what stays as it is is copied a run at a time (s[keep..i)),
 * when something before it changes.
 */
char *
cc_casual(const char *s, size_t len, size_t *outlen)
{
	struct out o = {0};
	size_t i = 0, keep = 0;
	int changed = 0;

#define FLUSH() (put(&o, s + keep, i - keep), keep = i)
	while (i < len) {	/* o.s is allocated when something changes */
		unsigned char c = (unsigned char)s[i];

		if (letter(c) && (i == 0 || !letter(s[i - 1]))) {
			size_t n = 0, m;
			char w[40];
			const char *to;

			while (i + n < len && letter(s[i + n]))
				n++;
			/* not part of something else: b1f, www.x.jp, it's */
			if (!(i + n < len && ((s[i + n] >= '0' && s[i + n] <= '9') ||
			    s[i + n] == '\'' || s[i + n] == '.')) &&
			    (m = english(s, len, i, n, w, &to)) > 0) {
				FLUSH();
				put(&o, to, m);
				changed = 1;
				keep = i + n;
			}
			i += n;
			continue;
		}
		if (c == 0xE3 && i + 2 < len) {	/* kana: the three bytes of U+3xxx */
			int32_t cp = (s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F) | 0x3000;
			size_t used;

			if (begins(cp)) {
				FLUSH();	/* a pattern may rewrite the kana before */
				if ((used = japanese(&o, s, len, i))) {
					changed = 1;
					i = keep = i + used;
					continue;
				}
			}
			i += 3;
			continue;
		}
		if (c == 0xE2 || c >= 0xEF) {	/* symbols, emoji */
			size_t j = i;
			int32_t cp = cc_utf8_next(s, len, &j);

			if (symbol(cp)) {
				FLUSH();
				if (o.n && o.s[o.n - 1] != ' ')
					put(&o, " ", 1);
				changed = 1;
				i = keep = j;
				continue;
			}
			i = j;
			continue;
		}
		if (c == ' ' && i == keep && (!o.n || o.s[o.n - 1] == ' ')) {
			i = ++keep;	/* the space after a symbol taken away */
			continue;
		}
		i++;
	}
	if (!changed) {
		free(o.s);	/* kana read before a pattern that did not match */
		return NULL;
	}
	FLUSH();
#undef FLUSH
	while (o.n && o.s[o.n - 1] == ' ')
		o.n--;
	o.s[o.n] = '\0';
	if (outlen)
		*outlen = o.n;
	return o.s;
}
