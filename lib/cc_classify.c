/*
 * A linear classifier over character n-grams (see cc_classify.h).
 *
 * A model is one block of memory with the layout of its file, so that a
 * trained model and a mapped one are read by the same code:
 *
 *   struct image          magic, sizes, stamp
 *   labels                NUL-terminated strings, padded to 8 bytes
 *   float bias[L]         each label's bias, padded to 8 bytes
 *   uint64_t key[cap]     n-gram hashes, 0 for an empty slot
 *   float weight[cap][L]  each n-gram's weight for each label
 *
 * The key table is open addressing with linear probing; cap is a power
 * of two at least twice the vocabulary, so a lookup of an unknown n-gram
 * stops at an empty slot soon.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "cc_util.h"
#include "cc_text.h"
#include "cc_classify.h"

#define MAX_N 4			/* longest n-gram, in code points */
#define EPOCHS 30		/* passes over the examples */
#define RATE 0.5		/* the first pass's step, divided by the pass number */
#define L2 1e-4			/* weight decay, on the n-grams a step touches */
#define MAX_LABELS 4096
#define FORMAT 2

static const char magic[8] = "ccnbayes";

struct image {
	char magic[8];
	uint32_t format, byte_order;	/* FORMAT, 0x01020304 as written */
	uint32_t nlabels, pad;
	uint64_t cap, labels_bytes;
	struct cc_classify_stamp stamp;
};

struct cc_classify {
	void *mem;		/* the image: malloc'd, or mapped */
	size_t len;
	int mapped;
	const struct image *h;
	const char **labels;	/* into the image */
	const float *bias, *weight;
	const uint64_t *key;
	uint64_t mask;
};

static size_t
pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* ---------------------------------------------------------------------- */
/* features */

struct gram {
	uint64_t key;
	const char *at;		/* in the folded text, for the reason */
	unsigned char len;
};

static uint64_t
hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h ? h : 1;	/* 0 marks an empty slot */
}

/*
 * The slot of key in the table: its own, or the empty one where it would
 * go; mask + 1 when the table is full without it (a damaged model file:
 * the tables built here are never more than half full).
 */
static uint64_t
slot_of(const uint64_t *keys, uint64_t mask, uint64_t key)
{
	uint64_t i = key & mask;

	for (uint64_t n = 0; n <= mask; n++, i = (i + 1) & mask)
		if (!keys[i] || keys[i] == key)
			return i;
	return mask + 1;
}

/*
 * The distinct n-grams of text, folded and padded with a space at each
 * end so that a word's first and last letters count as such.  *folded
 * holds the text the grams point into; the caller frees both.
 */
static struct gram *
grams_of(const char *text, size_t len, size_t *ngrams, char **folded)
{
	size_t flen, cap, n = 0, npos = 0, *pos, scap;
	uint64_t *seen;
	char *f = cc_text_fold(text, len, &flen, 0), *padded;
	struct gram *g;

	padded = cc_xmalloc(flen + 3);
	padded[0] = ' ';
	memcpy(padded + 1, f, flen);
	padded[flen + 1] = ' ';
	padded[flen + 2] = '\0';
	free(f);
	flen += 2;
	/* code point boundaries */
	pos = cc_xmalloc((flen + 1) * sizeof *pos);
	for (size_t i = 0; i < flen;) {
		pos[npos++] = i;
		cc_utf8_next(padded, flen, &i);
	}
	pos[npos] = flen;
	cap = npos * MAX_N + 1;
	g = cc_xmalloc(cap * sizeof *g);
	/* each n-gram once: a repeated word is not more evidence */
	for (scap = 64; scap < cap * 2; scap *= 2)
		;
	seen = calloc(scap, sizeof *seen);
	if (!seen)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	for (size_t i = 0; i < npos; i++)
		for (size_t k = 1; k <= MAX_N && i + k <= npos; k++) {
			size_t blen = pos[i + k] - pos[i];
			uint64_t key, at;

			if (k == 1 && padded[pos[i]] == ' ')
				continue;	/* a lone space says nothing */
			if (blen >= sizeof ((struct cc_classify_result *)0)->why[0])
				continue;
			key = hash_bytes(padded + pos[i], blen);
			at = slot_of(seen, scap - 1, key);
			if (seen[at])
				continue;
			seen[at] = key;
			g[n++] = (struct gram){ key, padded + pos[i], (unsigned char)blen };
		}
	free(seen);
	free(pos);
	*ngrams = n;
	*folded = padded;
	return g;
}

/* ---------------------------------------------------------------------- */
/* the image */

/* Point m's members into its image; 0, or -1 when the image is not one. */
static int
attach(struct cc_classify *m, char *err, size_t errlen)
{
	const struct image *h = m->mem;
	const char *p, *end;
	size_t need;

	if (m->len < sizeof *h || memcmp(h->magic, magic, sizeof magic) != 0 ||
	    h->format != FORMAT || h->byte_order != 0x01020304) {
		snprintf(err, errlen, "not a model of this version");
		return -1;
	}
	if (h->nlabels == 0 || h->nlabels > MAX_LABELS || h->cap == 0 ||
	    (h->cap & (h->cap - 1)) != 0 || h->cap > ((uint64_t)1 << 32) ||
	    h->labels_bytes > m->len) {
		snprintf(err, errlen, "a damaged model");
		return -1;
	}
	need = sizeof *h + pad8(h->labels_bytes) + pad8(h->nlabels * sizeof(float)) +
	    h->cap * sizeof(uint64_t) + h->cap * h->nlabels * sizeof(float);
	if (m->len != need) {
		snprintf(err, errlen, "a truncated model");
		return -1;
	}
	p = (const char *)(h + 1);
	end = p + h->labels_bytes;
	if (h->labels_bytes == 0 || end[-1] != '\0') {
		snprintf(err, errlen, "a damaged model");
		return -1;
	}
	m->labels = cc_xmalloc(h->nlabels * sizeof *m->labels);
	for (uint32_t i = 0; i < h->nlabels; i++) {
		if (p >= end) {
			free(m->labels);
			m->labels = NULL;
			snprintf(err, errlen, "a damaged model");
			return -1;
		}
		m->labels[i] = p;
		p += strlen(p) + 1;
	}
	m->h = h;
	m->bias = (const float *)((const char *)(h + 1) + pad8(h->labels_bytes));
	m->key = (const uint64_t *)((const char *)m->bias +
	    pad8(h->nlabels * sizeof(float)));
	m->weight = (const float *)(m->key + h->cap);
	m->mask = h->cap - 1;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* training */

struct vocabulary {
	uint64_t *key;		/* open addressing over the vocabulary */
	uint32_t *index;	/* key's row in the weights */
	uint64_t cap;
	size_t rows;
};

static uint32_t
vocabulary_row(struct vocabulary *c, uint64_t key)
{
	uint64_t i;

	if ((c->rows + 1) * 2 > c->cap) {	/* grow, keeping the load under 1/2 */
		uint64_t ncap = c->cap ? c->cap * 2 : 1024;
		uint64_t *nkey = calloc(ncap, sizeof *nkey);
		uint32_t *nindex = calloc(ncap, sizeof *nindex);

		if (!nkey || !nindex)
			cc_die(CC_EXIT_INTERNAL, "out of memory");
		for (uint64_t j = 0; j < c->cap; j++)
			if (c->key[j]) {
				uint64_t s = slot_of(nkey, ncap - 1, c->key[j]);

				nkey[s] = c->key[j];
				nindex[s] = c->index[j];
			}
		free(c->key);
		free(c->index);
		c->key = nkey;
		c->index = nindex;
		c->cap = ncap;
	}
	i = slot_of(c->key, c->cap - 1, key);
	if (!c->key[i]) {
		c->key[i] = key;
		c->index[i] = (uint32_t)c->rows++;
	}
	return c->index[i];
}

/*
 * Softmax regression by stochastic gradient descent: a fixed number of
 * passes in a fixed order (a seeded shuffle), so that the same examples
 * always give the same model.  Each text's features are scaled by
 * 1/sqrt(its n-grams), so a long text is not surer for being long, and an
 * n-gram every label has (a particle, "the") ends with little weight,
 * where naive Bayes let it favour whichever label used it most.
 */
struct cc_classify *
cc_classify_train(const char *const *texts, const size_t *label, size_t n,
    const char *const *labels, size_t nlabels)
{
	struct vocabulary c = {0};
	size_t labels_bytes = 0, len, cap, *nf = cc_xmalloc((n + 1) * sizeof *nf);
	uint32_t **feat = cc_xmalloc((n + 1) * sizeof *feat);
	size_t *order = cc_xmalloc((n + 1) * sizeof *order);
	double *w, *b = calloc(nlabels, sizeof *b), *p = calloc(nlabels, sizeof *p);
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	struct cc_classify *m;
	struct image *h;
	char *lp, err[64];
	float *bias, *weight;
	uint64_t *key;

	if (!b || !p || nlabels == 0 || nlabels > MAX_LABELS)
		cc_die(CC_EXIT_INTERNAL, "cc_classify_train: bad arguments");
	for (size_t i = 0; i < n; i++) {
		size_t ng;
		char *folded;
		struct gram *g = grams_of(texts[i], strlen(texts[i]), &ng, &folded);

		feat[i] = cc_xmalloc((ng + 1) * sizeof **feat);
		for (size_t j = 0; j < ng; j++)
			feat[i][j] = vocabulary_row(&c, g[j].key);
		nf[i] = ng;
		order[i] = i;
		free(g);
		free(folded);
	}
	w = calloc(c.rows * nlabels + 1, sizeof *w);
	if (!w)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	for (int epoch = 0; epoch < EPOCHS; epoch++) {
		double rate = RATE / (1.0 + epoch);

		for (size_t i = n; i > 1; i--) {	/* Fisher-Yates, seeded */
			size_t j, t;

			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			j = (size_t)(seed >> 33) % i;
			t = order[i - 1];
			order[i - 1] = order[j];
			order[j] = t;
		}
		for (size_t o = 0; o < n; o++) {
			size_t i = order[o];
			double x = nf[i] ? 1.0 / sqrt((double)nf[i]) : 0, top = -INFINITY, z = 0;

			for (size_t l = 0; l < nlabels; l++) {
				p[l] = b[l];
				for (size_t j = 0; j < nf[i]; j++)
					p[l] += x * w[(size_t)feat[i][j] * nlabels + l];
				if (p[l] > top)
					top = p[l];
			}
			for (size_t l = 0; l < nlabels; l++)
				z += (p[l] = exp(p[l] - top));
			for (size_t l = 0; l < nlabels; l++) {
				double g = p[l] / z - (label[i] == l);

				b[l] -= rate * g;
				for (size_t j = 0; j < nf[i]; j++) {
					double *wl = &w[(size_t)feat[i][j] * nlabels + l];

					*wl -= rate * (g * x + L2 * *wl);
				}
			}
		}
	}

	for (size_t i = 0; i < nlabels; i++)
		labels_bytes += strlen(labels[i]) + 1;
	for (cap = 1024; cap < c.rows * 2; cap *= 2)
		;
	len = sizeof *h + pad8(labels_bytes) + pad8(nlabels * sizeof(float)) +
	    cap * sizeof(uint64_t) + cap * nlabels * sizeof(float);
	m = calloc(1, sizeof *m);
	if (!m || !(m->mem = calloc(1, len)))
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	m->len = len;
	h = m->mem;
	memcpy(h->magic, magic, sizeof magic);
	h->format = FORMAT;
	h->byte_order = 0x01020304;
	h->nlabels = (uint32_t)nlabels;
	h->cap = cap;
	h->labels_bytes = labels_bytes;
	lp = (char *)(h + 1);
	for (size_t i = 0; i < nlabels; i++)
		lp = stpcpy(lp, labels[i]) + 1;
	bias = (float *)((char *)(h + 1) + pad8(labels_bytes));
	key = (uint64_t *)((char *)bias + pad8(nlabels * sizeof(float)));
	weight = (float *)(key + cap);
	for (size_t l = 0; l < nlabels; l++)
		bias[l] = (float)b[l];
	for (uint64_t j = 0; j < c.cap; j++) {
		uint64_t s;

		if (!c.key[j])
			continue;
		s = slot_of(key, cap - 1, c.key[j]);
		key[s] = c.key[j];
		for (size_t l = 0; l < nlabels; l++)
			weight[s * nlabels + l] = (float)w[(size_t)c.index[j] * nlabels + l];
	}
	for (size_t i = 0; i < n; i++)
		free(feat[i]);
	free(feat);
	free(nf);
	free(order);
	free(w);
	free(b);
	free(p);
	free(c.key);
	free(c.index);
	if (attach(m, err, sizeof err) < 0)
		cc_die(CC_EXIT_INTERNAL, "cc_classify_train: %s", err);
	return m;
}

/* ---------------------------------------------------------------------- */
/* files */

int
cc_classify_save(const struct cc_classify *m, const char *path,
    const struct cc_classify_stamp *stamp, char *err, size_t errlen)
{
	size_t n = strlen(path) + 32;
	char *tmp = cc_xmalloc(n), *dir = cc_xstrdup(path), *slash;
	struct image h = *m->h;
	int fd, ok;

	if ((slash = strrchr(dir, '/'))) {
		*slash = '\0';
		if (*dir && cc_mkdirs(dir) < 0) {
			snprintf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
			free(dir);
			free(tmp);
			return -1;
		}
	}
	free(dir);
	snprintf(tmp, n, "%s.%ld.tmp", path, (long)getpid());
	h.stamp = *stamp;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ok = fd >= 0 && write(fd, &h, sizeof h) == (ssize_t)sizeof h &&
	    write(fd, (const char *)m->mem + sizeof h, m->len - sizeof h) ==
	    (ssize_t)(m->len - sizeof h);
	if (fd >= 0 && close(fd) < 0)
		ok = 0;
	if (!ok || rename(tmp, path) < 0) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

struct cc_classify *
cc_classify_load(const char *path, const struct cc_classify_stamp *expect,
    char *err, size_t errlen)
{
	struct cc_classify *m;
	struct stat sb;
	void *mem;
	char why[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &sb) < 0 || sb.st_size < (off_t)sizeof(struct image)) {
		close(fd);
		snprintf(err, errlen, "'%s': not a model", path);
		return NULL;
	}
	mem = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (mem == MAP_FAILED) {
		snprintf(err, errlen, "cannot map '%s': %s", path, strerror(errno));
		return NULL;
	}
	m = calloc(1, sizeof *m);
	if (!m)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	m->mem = mem;
	m->len = (size_t)sb.st_size;
	m->mapped = 1;
	if (attach(m, why, sizeof why) < 0) {
		snprintf(err, errlen, "'%s': %s", path, why);
		cc_classify_free(m);
		return NULL;
	}
	if (expect && memcmp(&m->h->stamp, expect, sizeof *expect) != 0) {
		snprintf(err, errlen, "'%s': learnt from other examples", path);
		cc_classify_free(m);
		return NULL;
	}
	return m;
}

void
cc_classify_free(struct cc_classify *m)
{
	if (!m)
		return;
	if (m->mapped)
		munmap(m->mem, m->len);
	else
		free(m->mem);
	free(m->labels);
	free(m);
}

size_t
cc_classify_nlabels(const struct cc_classify *m)
{
	return m->h->nlabels;
}

const char *
cc_classify_label(const struct cc_classify *m, size_t i)
{
	return m->labels[i];
}

/* ---------------------------------------------------------------------- */
/* prediction */

void
cc_classify_predict(const struct cc_classify *m, const char *text, size_t len,
    int versus, struct cc_classify_result *r)
{
	size_t L = m->h->nlabels, ng;
	char *folded;
	struct gram *g = grams_of(text, len, &ng, &folded);
	const float **rows = cc_xmalloc((ng + 1) * sizeof *rows);
	double *s = cc_xmalloc(L * sizeof *s), z = 0, x;
	size_t *which = cc_xmalloc((ng + 1) * sizeof *which);

	memset(r, 0, sizeof *r);
	r->label = r->second = -1;
	for (size_t j = 0; j < ng; j++) {
		uint64_t i = slot_of(m->key, m->mask, g[j].key);

		if (i <= m->mask && m->key[i]) {
			which[r->known] = j;
			rows[r->known++] = m->weight + i * L;
		}
	}
	if (r->known == 0)
		goto out;
	/* scaled as in training, by the n-grams the model can weigh */
	x = 1.0 / sqrt((double)r->known);
	for (size_t l = 0; l < L; l++)
		s[l] = 0;
	for (size_t k = 0; k < r->known; k++)	/* row by row, as they lie */
		for (size_t l = 0; l < L; l++)
			s[l] += rows[k][l];
	for (size_t l = 0; l < L; l++) {
		s[l] = m->bias[l] + x * s[l];
		if (r->label < 0 || s[l] > s[r->label]) {
			r->second = r->label;
			r->label = (int)l;
		} else if (r->second < 0 || s[l] > s[r->second]) {
			r->second = (int)l;
		}
	}
	if (versus >= 0 && (size_t)versus < L && versus != r->label)
		r->second = versus;
	for (size_t l = 0; l < L; l++)
		z += exp(s[l] - s[r->label]);
	r->score = 1.0 / z;
	if (r->second < 0) {
		r->margin = INFINITY;
		goto out;
	}
	r->margin = s[r->label] - s[r->second];
	/* the reason: the n-grams that set the winner furthest apart */
	for (size_t k = 0; k < r->known; k++) {
		double d = x * (rows[k][r->label] - rows[k][r->second]);
		size_t at = r->nwhy;
		const struct gram *gr = &g[which[k]];

		if (d <= 0)
			continue;
		while (at > 0 && r->why_weight[at - 1] < d)
			at--;
		if (at >= CC_CLASSIFY_WHY)
			continue;
		if (r->nwhy < CC_CLASSIFY_WHY)
			r->nwhy++;
		memmove(&r->why[at + 1], &r->why[at],
		    (r->nwhy - 1 - at) * sizeof r->why[0]);
		memmove(&r->why_weight[at + 1], &r->why_weight[at],
		    (r->nwhy - 1 - at) * sizeof r->why_weight[0]);
		memcpy(r->why[at], gr->at, gr->len);
		r->why[at][gr->len] = '\0';
		r->why_weight[at] = d;
	}
out:
	free(g);
	free(folded);
	free(rows);
	free(which);
	free(s);
}
