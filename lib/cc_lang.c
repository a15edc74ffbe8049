/*
 * Reply-language detection: which language should the answer be in?
 *
 * The answer follows the grammar of the sentence, not its nouns: in
 * "password教えて" the noun is English and the frame (教えて) Japanese.  So
 * the detector looks for frames.  Hiragana carries Japanese grammar
 * (particles, verb endings); English grammar shows as function words
 * (what, is, the, ...).  Han and English content words are weaker, noun-like
 * evidence; katakana, proper nouns and tech terms (Wi-Fi, MTG) are neutral.
 * Text with no letters falls back to Japanese, as the spec does when
 * detection fails.  Conventions: ../shared/eval/README.md section 3 and
 * cc-detect-lang(1).
 *
 * Everything is decided by tables and counts in one pass over the NFKC form
 * of the text, so it costs a few microseconds and always explains itself.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "cc_json.h"
#include "cc_text.h"
#include "cc_lang.h"

/* English grammar words: any of these makes an English frame. */
static const char *const en_function[] = {
	"a", "about", "am", "an", "and", "any", "anyone", "anything", "are",
	"aren't", "at", "be", "been", "but", "by", "can", "can't", "could",
	"did", "do", "does", "doesn't", "don't", "for", "from", "get", "give",
	"go", "going", "gonna", "had", "has", "have", "he", "hello", "her",
	"here", "hey", "hi", "his", "how", "how's", "hows", "i", "i'd", "i'm",
	"i've", "if", "in", "into", "is", "isn't", "it", "it's", "its", "let",
	"let's", "may", "me", "might", "must", "my", "need", "no", "not", "of",
	"on", "or", "our", "please", "pls", "plz", "shall", "she", "should",
	"show", "so", "some", "tell", "than", "thank", "thanks", "that",
	"that's", "the", "their", "them", "then", "there", "there's", "these",
	"they", "this", "those", "thx", "to", "too", "u", "ur", "us", "wanna",
	"want", "was", "wat", "we", "were", "what", "what's", "whats", "when",
	"where", "where's", "wheres", "which", "who", "whom", "whose", "why",
	"will", "with", "would", "wut", "yes", "you", "your",
};

/* Common English content words: noun-like evidence of English. */
static const char *const en_content[] = {
	"access", "address", "afternoon", "artificial", "available", "bar",
	"basement", "bathroom", "beer", "book", "booking", "booth", "busy",
	"cafe", "café", "calendar", "charge", "close", "closed", "closes",
	"closing", "coffee", "conference", "connection", "cost", "costs",
	"current", "day", "days", "desk", "directions", "drink", "drinks",
	"early", "engineer", "engineers", "evening", "event", "events", "fee",
	"fees", "first", "floor", "focus", "food", "free", "friday", "hackathon",
	"help", "history", "hour", "hours", "intelligence", "internet", "last",
	"late", "latest", "learning", "location", "locker", "long", "machine",
	"map", "meeting", "meetings", "meetup", "member", "menu", "monday",
	"monitor", "month", "morning", "much", "network", "news", "next",
	"night", "now", "open", "opening", "opens", "outlet", "outlets",
	"park", "parking", "password", "power", "price", "prices", "pricing",
	"printer", "programming", "projector", "question", "quiet", "register",
	"reservation", "reserve", "restroom", "room", "rooms", "saturday",
	"schedule", "seat", "seats", "seminar", "session", "space", "spaces",
	"startup", "station", "study", "sunday", "talk", "tea", "tech",
	"technology", "thursday", "time", "times", "today", "toilet",
	"tomorrow", "tonight", "training", "trend", "trends", "tuesday",
	"visit", "weather", "wednesday", "week", "weekend", "year",
};

/*
 * Romanised Japanese words that are not also English words: "ima nanji?"
 * is Japanese typed without an IME.  Deliberately leaves out no, to, yo,
 * are, dare, sore, nan, which English also uses.
 */
static const char *const romaji_cue[] = {
	"aru", "arigato", "arigatou", "arimasu", "ashita", "basho", "benkyoukai",
	"chika", "daijoubu", "deshita", "desu", "desuka", "doko", "dou",
	"doushite", "eigyo", "eigyou", "ga", "gozaimasu", "hai", "ibento",
	"ii", "iie", "ikura", "ima", "itsu", "jikan", "ka", "kaigishitsu",
	"kongetsu", "konbanwa", "konnichiha", "konnichiwa", "konshuu", "kore",
	"kudasai", "kyou", "mashita", "masu", "masuka", "nai", "nani", "nanji",
	"ne", "ohayou", "onegai", "onegaishimasu", "oshiete", "raishuu",
	"ryokin", "ryoukin", "shitai", "sumimasen", "supeesu", "tsukaeru",
	"tsukaemasu", "wa", "wakarimasen", "wo", "yoyaku",
};

/* Japanese net slang typed in Latin letters. */
static const char *const romaji_slang[] = { "kusa", "orz", "w", "ww", "www", "wwww" };

/* The word lists in one hash table: a lookup per word, whichever list. */
enum { W_FUNCTION = 1, W_CONTENT = 2, W_ROMAJI = 4, W_SLANG = 8 };
#define LEXICON_SLOTS 1024	/* a power of two, over twice the words */

static struct {
	const char *word;
	unsigned flags;
} lexicon[LEXICON_SLOTS];

static unsigned
word_hash(const char *w)
{
	uint32_t h = 2166136261u;

	while (*w)
		h = (h ^ (unsigned char)*w++) * 16777619u;
	return h & (LEXICON_SLOTS - 1);
}

static void
lexicon_add(const char *const *list, size_t n, unsigned flag)
{
	for (size_t i = 0; i < n; i++) {
		unsigned h = word_hash(list[i]);

		while (lexicon[h].word && strcmp(lexicon[h].word, list[i]) != 0)
			h = (h + 1) & (LEXICON_SLOTS - 1);
		lexicon[h].word = list[i];
		lexicon[h].flags |= flag;
	}
}

#define ADD(list, flag) lexicon_add((list), sizeof(list) / sizeof(*(list)), (flag))

static unsigned
lookup(const char *w)
{
	static int built;
	unsigned h = word_hash(w);

	if (!built) {
		ADD(en_function, W_FUNCTION);
		ADD(en_content, W_CONTENT);
		ADD(romaji_cue, W_ROMAJI);
		ADD(romaji_slang, W_SLANG);
		built = 1;
	}
	while (lexicon[h].word) {
		if (strcmp(lexicon[h].word, w) == 0)
			return lexicon[h].flags;
		h = (h + 1) & (LEXICON_SLOTS - 1);
	}
	return 0;
}

static int
vowel(char c)
{
	return c == 'a' || c == 'i' || c == 'u' || c == 'e' || c == 'o';
}

/* 1 if the lower-case ASCII word splits into Hepburn/kunrei syllables. */
static int
romaji_word(const char *p)
{
	static const char *const onsets[] = {
		"ch", "sh", "ts", "by", "dy", "gy", "hy", "jy", "ky", "my", "ny",
		"py", "ry", "sy", "ty", "zy", "b", "d", "f", "g", "h", "j", "k",
		"m", "n", "p", "r", "s", "t", "w", "y", "z",
	};

	while (*p) {
		size_t i, n = 0;

		if (vowel(*p) || (*p == '-' && p[1] != '-')) {	/* supe-su */
			p++;
			continue;
		}
		if (*p == 'n' && !vowel(p[1]) && p[1] != 'y') {	/* syllabic n */
			p += p[1] == '\'' ? 2 : 1;
			continue;
		}
		if ((*p == p[1] && strchr("kstpcgdbhfjmrz", *p)) ||
		    (*p == 't' && p[1] == 'c' && p[2] == 'h')) {	/* sokuon */
			p++;
			continue;
		}
		for (i = 0; i < sizeof onsets / sizeof *onsets; i++) {
			n = strlen(onsets[i]);
			if (strncmp(p, onsets[i], n) == 0 && vowel(p[n]))
				break;
		}
		if (i == sizeof onsets / sizeof *onsets)
			return 0;
		p += n + 1;
	}
	return 1;
}

struct word {
	char text[48];		/* lower case, NUL-terminated; may be cut short */
	size_t tlen;		/* bytes in text */
	size_t len;		/* letters, however long the word */
	int first_upper, other_upper, ascii;
};

/* A place's name among Japanese is capitalised, and is not English grammar. */
#define TITLE_CASE(w) ((w)->first_upper && !(w)->other_upper)

static void
word_add(struct word *w, const void *p, size_t n)
{
	if (w->tlen + n < sizeof w->text) {
		memcpy(w->text + w->tlen, p, n);
		w->tlen += n;
		w->text[w->tlen] = '\0';
	} else {
		w->tlen = sizeof w->text;	/* too long to look up */
	}
}

struct scan {
	struct cc_lang_result *r;
	unsigned words, parsed_romaji, slang, lexical;
	unsigned capitalised;	/* Latin words in Title or UPPER case */
	unsigned other_words;	/* runs of two or more letters of other scripts */
	int first_seen;
};

static void
classify_word(struct scan *sc, struct word *w, int japanese_nearby, int first)
{
	struct cc_lang_result *r = sc->r;
	const char *key = w->text;
	unsigned flags;

	if (w->len == 0)
		return;
	sc->words++;
	if (w->len >= 2)
		r->latin_words++;
	if (w->first_upper)
		sc->capitalised++;
	if (w->tlen >= sizeof w->text)
		return;
	flags = lookup(key);
	if (flags & W_SLANG)
		sc->slang++;
	if (flags & W_ROMAJI)
		r->romaji++;
	/* "RustとGo": a capitalised word inside Japanese text is a name */
	if ((flags & W_FUNCTION) && !(japanese_nearby && TITLE_CASE(w) && !first)) {
		r->en_function++;
		sc->lexical++;
	} else if ((flags & W_CONTENT) && !(japanese_nearby && TITLE_CASE(w))) {
		r->en_content++;
		sc->lexical++;
	}
}

static int
japanese(enum cc_script s)
{
	return s == CC_SCRIPT_HIRAGANA || s == CC_SCRIPT_KATAKANA ||
	    s == CC_SCRIPT_HAN;
}

static void
scan(const char *s, size_t len, struct scan *sc)
{
	struct cc_lang_result *r = sc->r;
	struct word words[64], *w = &words[0];
	unsigned nwords = 0, other_run = 0;
	size_t i = 0;
	int jp = 0;

	memset(w, 0, sizeof *w);
	while (i < len) {
		int32_t cp = cc_utf8_next(s, len, &i);
		enum cc_script cls = cc_text_script(cp);

		r->scripts[cls]++;
		jp |= japanese(cls);
		/* one letter of another script (the ω of a kaomoji) is no word */
		if (cls == CC_SCRIPT_OTHER) {
			other_run++;
		} else {
			sc->other_words += other_run > 1;
			other_run = 0;
		}
		if (!sc->first_seen && (japanese(cls) || cls == CC_SCRIPT_LATIN)) {
			r->first_script = japanese(cls) ? CC_LANG_JA : CC_LANG_EN;
			sc->first_seen = 1;
		}
		if (cls == CC_SCRIPT_LATIN) {
			int32_t lc = utf8proc_tolower(cp);
			utf8proc_uint8_t enc[4];

			if (w->len == 0)
				w->ascii = 1, w->first_upper = lc != cp;
			else
				w->other_upper |= lc != cp;
			w->ascii &= cp < 0x80;
			word_add(w, enc, (size_t)utf8proc_encode_char(lc, enc));
			w->len++;
			continue;
		}
		/* an apostrophe or hyphen between letters stays in the word */
		if ((cp == '\'' || cp == 0x2019 || cp == '-') && w->len && i < len &&
		    cc_text_script((unsigned char)s[i]) == CC_SCRIPT_LATIN) {
			word_add(w, cp == '-' ? "-" : "'", 1);
			continue;
		}
		if (w->len) {	/* past 64 words, the last slot is reused */
			if (nwords < 63)
				w = &words[++nwords];
			memset(w, 0, sizeof *w);
		}
	}
	if (w->len)
		nwords++;
	sc->other_words += other_run > 1;
	/* Title case means a name only where Japanese surrounds it. */
	for (unsigned k = 0; k < nwords; k++)
		classify_word(sc, &words[k], jp, k == 0);
	/* romaji matters only for Latin letters alone with a Japanese word */
	for (unsigned k = 0; !jp && r->romaji && k < nwords; k++)
		if (words[k].ascii && words[k].tlen < sizeof words[k].text &&
		    romaji_word(words[k].text))
			sc->parsed_romaji++;
}

static void
decide(struct cc_lang_result *r, struct scan *sc)
{
	unsigned hira = r->scripts[CC_SCRIPT_HIRAGANA];
	unsigned kata = r->scripts[CC_SCRIPT_KATAKANA];
	unsigned han = r->scripts[CC_SCRIPT_HAN];
	int has_jp = hira || kata || han;

	r->is_mixed = has_jp && r->latin_words > 0;
	if (has_jp && r->latin_words == 0 && r->en_function == 0) {
		r->lang = CC_LANG_JA;
		r->cue = hira ? "ja-frame" : kata ? "japanese-script" : "han-only";
		r->confidence = hira ? 0.9 : kata ? 0.8 : 0.6;
		r->ambiguous = !hira && !kata && han > 1;
		return;
	}
	if (has_jp) {
		int ja_frame = hira > 0, en_frame = r->en_function > 0;

		if (ja_frame != en_frame) {
			r->lang = ja_frame ? CC_LANG_JA : CC_LANG_EN;
			r->cue = ja_frame ? "ja-frame" : "en-frame";
			r->confidence = 0.85;
		} else if (!ja_frame && (r->en_content > 0) != (han > 0)) {
			r->lang = han ? CC_LANG_JA : CC_LANG_EN;
			r->cue = han ? "ja-content" : "en-content";
			r->confidence = 0.7;
		} else {
			/* two frames or none: bilingual text, the first script wins */
			r->lang = r->first_script;
			r->cue = "first-script";
			r->confidence = 0.55;
			r->ambiguous = 1;
		}
		return;
	}
	if (r->scripts[CC_SCRIPT_HANGUL] || (sc->other_words &&
	    !r->scripts[CC_SCRIPT_LATIN])) {
		/* recognisably not Japanese: English is the wider fallback */
		r->lang = CC_LANG_EN;
		r->cue = r->scripts[CC_SCRIPT_HANGUL] ? "hangul" : "other-script";
		r->confidence = 0.5;
		r->ambiguous = 1;
		return;
	}
	if (sc->slang && sc->slang == sc->words) {
		r->lang = CC_LANG_JA;
		r->cue = "romaji-slang";
		r->confidence = 0.6;
		r->ambiguous = 1;
		return;
	}
	if (r->latin_words == 0 && sc->lexical == 0) {
		/* digits, emoji, punctuation, floor codes (B1, 2F): detection fails */
		r->lang = CC_LANG_JA;
		r->cue = "no-letters";
		r->confidence = 0.5;
		return;
	}
	if (r->romaji > 0 && sc->parsed_romaji == sc->words) {
		r->lang = CC_LANG_JA;
		r->cue = "romaji";
		r->confidence = 0.6;
		r->ambiguous = 1;
		return;
	}
	r->lang = CC_LANG_EN;
	if (!r->en_function && sc->capitalised == sc->words && sc->words <= 3 &&
	    !r->scripts[CC_SCRIPT_DIGIT]) {
		/* a name ("Central Station") says little about the reader */
		r->cue = "latin-name";
		r->confidence = 0.6;
		r->ambiguous = 1;
		return;
	}
	r->cue = r->en_function ? "en-frame" : r->en_content ? "en-content" : "latin-script";
	r->confidence = r->en_function ? 0.9 : r->en_content ? 0.8 : 0.6;
	r->ambiguous = !r->en_function && !r->en_content;
}

void
cc_lang_detect(const char *s, size_t len, struct cc_lang_result *r)
{
	struct scan sc = { .r = r };
	size_t nlen = 0;
	char *norm = cc_text_nfkc(s, len, &nlen);

	memset(r, 0, sizeof *r);
	r->first_script = CC_LANG_JA;
	/* NFKC first: fullwidth Latin becomes ASCII, halfwidth kana fullwidth */
	scan(norm ? norm : s, norm ? nlen : len, &sc);
	free(norm);
	decide(r, &sc);
}

int
cc_lang_known_word(const char *word)
{
	return lookup(word) & (W_FUNCTION | W_CONTENT);
}

const char *
cc_lang_name(enum cc_lang lang)
{
	return lang == CC_LANG_EN ? "en" : "ja";
}

void
cc_lang_write(const struct cc_lang_result *r, struct cc_jw *w)
{
	static const char *const names[CC_SCRIPT_COUNT] = {
		[CC_SCRIPT_NONE] = NULL, [CC_SCRIPT_DIGIT] = "digit",
		[CC_SCRIPT_HIRAGANA] = "hiragana", [CC_SCRIPT_KATAKANA] = "katakana",
		[CC_SCRIPT_HAN] = "han", [CC_SCRIPT_LATIN] = "latin",
		[CC_SCRIPT_HANGUL] = "hangul", [CC_SCRIPT_OTHER] = "other",
	};

	cc_jw_object(w);
	cc_jw_key(w, "detected_language");
	cc_jw_cstr(w, cc_lang_name(r->lang));
	cc_jw_key(w, "confidence");
	cc_jw_num(w, r->confidence);
	cc_jw_key(w, "is_mixed");
	cc_jw_bool(w, r->is_mixed);
	cc_jw_key(w, "ambiguous");
	cc_jw_bool(w, r->ambiguous);
	cc_jw_key(w, "cue");
	cc_jw_cstr(w, r->cue);
	cc_jw_key(w, "first_script");
	cc_jw_cstr(w, cc_lang_name(r->first_script));
	cc_jw_key(w, "scripts");
	cc_jw_object(w);
	for (int i = 0; i < CC_SCRIPT_COUNT; i++) {
		if (names[i] && r->scripts[i]) {
			cc_jw_key(w, names[i]);
			cc_jw_num(w, r->scripts[i]);
		}
	}
	cc_jw_end(w);
	cc_jw_key(w, "words");
	cc_jw_object(w);
	cc_jw_key(w, "latin");
	cc_jw_num(w, r->latin_words);
	cc_jw_key(w, "en_function");
	cc_jw_num(w, r->en_function);
	cc_jw_key(w, "en_content");
	cc_jw_num(w, r->en_content);
	cc_jw_key(w, "romaji");
	cc_jw_num(w, r->romaji);
	cc_jw_end(w);
	cc_jw_end(w);
}
