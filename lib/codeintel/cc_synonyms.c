/*
 * Seed 003's NL -> symbol check (query_frame.py is_related) with its
 * dictionary (BASIC_SYNONYMS) read from the domain's synonyms file.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_text.h"
#include "cc_synonyms.h"
#include "cc_datafile.h"

struct group {
	char *key;		/* as written: compared with the term as given */
	char **words;		/* lower case */
	size_t nwords;
};

struct cc_synonyms {
	struct group *groups;
	size_t ngroups;
	char **ignore;		/* taken out of the term before step 2 */
	size_t nignore;
};

static void
add(char ***list, size_t *n, const char *w)
{
	*list = cc_xrealloc(*list, (*n + 1) * sizeof **list);
	(*list)[(*n)++] = cc_xstrdup(w);
}

void
cc_synonyms_free(struct cc_synonyms *s)
{
	if (!s)
		return;
	for (size_t g = 0; g < s->ngroups; g++) {
		for (size_t w = 0; w < s->groups[g].nwords; w++)
			free(s->groups[g].words[w]);
		free(s->groups[g].words);
		free(s->groups[g].key);
	}
	for (size_t i = 0; i < s->nignore; i++)
		free(s->ignore[i]);
	free(s->ignore);
	free(s->groups);
	free(s);
}

/* What a line of the file is read into, and where its errors go. */
struct reading {
	struct cc_synonyms *s;
	const char *path;
	char *err;
	size_t errlen;
};

/* ignore WORD... | TERM WORD... */
static int
synonyms_line(void *ctx, char *rest, int lineno)
{
	struct reading *r = ctx;
	struct cc_synonyms *s = r->s;
	char *w = cc_word(&rest);

	if (strcmp(w, "ignore") == 0) {
		while (*(w = cc_word(&rest)))
			add(&s->ignore, &s->nignore, w);
		return 0;
	}
	struct group g = { .key = cc_xstrdup(w) };

	while (*(w = cc_word(&rest))) {
		char *low = cc_text_lower(w, strlen(w), NULL);

		add(&g.words, &g.nwords, low);
		free(low);
	}
	s->groups = cc_xrealloc(s->groups, (s->ngroups + 1) * sizeof *s->groups);
	s->groups[s->ngroups++] = g;
	if (!g.nwords)
		return cc_datafile_error(r->err, r->errlen, r->path, lineno,
		    "'%s' has no words (TERM WORD...)", g.key);
	return 0;
}

struct cc_synonyms *
cc_synonyms_load(const char *path, char *err, size_t errlen)
{
	struct cc_synonyms *s = calloc(1, sizeof *s);
	struct reading r = { s, path, err, errlen };

	if (!s)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	if (cc_datafile_each(path, synonyms_line, &r, err, errlen) < 0) {
		cc_synonyms_free(s);
		return NULL;
	}
	return s;
}

static int
contains(const char *hay, size_t hl, const char *needle, size_t nl)
{
	return nl == 0 || (nl <= hl && memmem(hay, hl, needle, nl) != NULL);
}

/* Python's str.isspace(), for split() */
static int
py_space(int32_t c)
{
	return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 ||
	    c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
	    c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

/* Any word of the group in s[0..len)? */
static int
group_in(const struct group *g, const char *s, size_t len)
{
	for (size_t w = 0; w < g->nwords; w++)
		if (contains(s, len, g->words[w], strlen(g->words[w])))
			return 1;
	return 0;
}

/* Step 2: a word of two characters or more of the term in the symbol. */
static int
word_in_symbol(const struct cc_synonyms *s, const char *nl, size_t nll,
    const char *sym, size_t syml)
{
	struct cc_buf t = {0};
	size_t i = 0;
	int found = 0;

	cc_buf_add(&t, nl, nll);
	/* nl.replace(w, "") for each ignore word, in order */
	for (size_t k = 0; k < s->nignore; k++) {
		size_t wl = strlen(s->ignore[k]);
		char *p;

		while (wl && t.len && (p = memmem(t.data, t.len, s->ignore[k], wl))) {
			memmove(p, p + wl, t.len - (size_t)(p - t.data) - wl);
			t.len -= wl;
		}
	}
	while (i < t.len && !found) {
		size_t at = i, chars = 1;

		if (py_space(cc_utf8_next(t.data, t.len, &i)))
			continue;
		while (i < t.len) {
			size_t here = i;

			if (py_space(cc_utf8_next(t.data, t.len, &i))) {
				i = here;
				break;
			}
			chars++;
		}
		found = chars >= 2 && contains(sym, syml, t.data + at, i - at);
	}
	cc_buf_release(&t);
	return found;
}

int
cc_synonyms_related(const struct cc_synonyms *s, const char *nl, size_t nllen,
    const char *sym, size_t symlen)
{
	size_t nll, syml;
	char *n = cc_text_lower(nl, nllen, &nll), *y = cc_text_lower(sym, symlen, &syml);
	int step = 0;

	if (contains(y, syml, n, nll) || contains(n, nll, y, syml))
		step = 1;
	else if (word_in_symbol(s, n, nll, y, syml))
		step = 2;
	for (size_t g = 0; !step && g < s->ngroups; g++)
		if (contains(nl, nllen, s->groups[g].key, strlen(s->groups[g].key)) &&
		    group_in(&s->groups[g], y, syml))
			step = 3;
	for (size_t g = 0; !step && g < s->ngroups; g++)
		if (group_in(&s->groups[g], n, nll) && group_in(&s->groups[g], y, syml))
			step = 4;
	free(n);
	free(y);
	return step;
}
