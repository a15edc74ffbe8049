/* A memo of values computed from their key alone (cc_memo.h). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_memo.h"

#define PROBE 4

/*
 * FNV-1a's constants, eight bytes at a step: a key may be a 5 kB list of
 * passages, and a byte at a time cost more than reading them.  The
 * table compares whole keys, so the hash only spreads them: of a long
 * key, its length and its first and last HASHED bytes are enough (two
 * lists of passages that begin and end alike are rare, and would only
 * share a probe).
 */
#define HASHED 512

static uint64_t
mix(uint64_t h, const char *s, size_t n)
{
	uint64_t w;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 1099511628211ULL;
		h ^= h >> 32;
	}
	for (; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static size_t
hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL ^ n;

	if (n <= 2 * HASHED)
		h = mix(h, s, n);
	else
		h = mix(mix(h, s, HASHED), s + n - HASHED, HASHED);
	return (size_t)(h ^ (h >> 29));
}

static void
clear(struct cc_memo_entry *e)
{
	free(e->key);
	free(e->value);
	cc_json_doc_release(&e->index);
	*e = (struct cc_memo_entry){0};
}

static int
holds(const struct cc_memo_entry *e, const void *key, size_t klen)
{
	return e->key && e->klen == klen && memcmp(e->key, key, klen) == 0;
}

struct cc_memo_entry *
cc_memo_find(struct cc_memo *m, const void *key, size_t klen)
{
	size_t h;

	if (klen > CC_MEMO_MAX_KEY)
		return NULL;
	if (!m->tab) {
		if (!m->first.key || holds(&m->first, key, klen))
			return &m->first;
		/* a second key: the table, the first one's entry in its place */
		if (!(m->tab = calloc(CC_MEMO_SLOTS, sizeof *m->tab)))
			return NULL;
		m->tab[hash(m->first.key, m->first.klen) % CC_MEMO_SLOTS] = m->first;
		m->first = (struct cc_memo_entry){0};
	}
	h = hash(key, klen);
	for (size_t k = 0; k < PROBE; k++) {
		struct cc_memo_entry *e = &m->tab[(h + k) % CC_MEMO_SLOTS];

		if (!e->key || holds(e, key, klen))
			return e;
	}
	/* the probe is full: its first entry goes */
	clear(&m->tab[h % CC_MEMO_SLOTS]);
	return &m->tab[h % CC_MEMO_SLOTS];
}

void
cc_memo_set(struct cc_memo_entry *e, const void *key, size_t klen,
    const void *value, size_t vlen, int index)
{
	clear(e);
	e->key = cc_xmalloc(klen ? klen : 1);
	memcpy(e->key, key, klen);
	e->klen = klen;
	e->value = cc_xmalloc(vlen + 1);
	memcpy(e->value, value, vlen);
	e->value[vlen] = '\0';
	e->vlen = vlen;
	e->indexed = index && cc_json_index(&e->index, e->value, vlen) == 0;
}

void
cc_memo_release(struct cc_memo *m)
{
	clear(&m->first);
	for (size_t i = 0; m->tab && i < CC_MEMO_SLOTS; i++)
		clear(&m->tab[i]);
	free(m->tab);
	m->tab = NULL;
}
