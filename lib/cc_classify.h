/*
 * cc_classify.h: a text classifier learnt from labelled examples, for
 * what hand-written rules do not cover (a typo in the deciding word, a
 * polite form no rule saw).
 *
 * The features are the character n-grams (1 to 4 code points) of the
 * folded text (cc_text_fold), each counted once per text: they need no
 * word segmentation for Japanese and survive a typo, since "semminar"
 * still shares most of its n-grams with "seminar".  The model is a
 * softmax regression over those n-grams (a weight per n-gram and label,
 * learnt by a fixed, seeded stochastic gradient descent, so the same
 * examples give the same model): unlike naive Bayes it learns to ignore
 * an n-gram every label has, and it explains itself by the n-grams whose
 * weights set the winner apart.  Labels are opaque strings here.
 *
 * A model lives in a file (the cache, beside the knowledge-base index),
 * mapped read-only: a table of n-gram hashes and their log-probabilities
 * per label, stamped with what it was learnt from so that a changed
 * examples file is noticed.
 *
 * Owns: the model (built, or mapped from its file).  Borrows: the texts
 * and labels it is given.
 */
#ifndef CC_CLASSIFY_H
#define CC_CLASSIFY_H

#include <stddef.h>
#include <stdint.h>

struct cc_classify;

/*
 * What the model was learnt from: the examples file's size, change time
 * and a hash of its path; a model whose stamp differs is stale.
 */
struct cc_classify_stamp {
	uint64_t size, mtime_s, mtime_ns, path_hash;
};

/* Learn from n texts; label[i] is texts[i]'s label, an index into labels. */
struct cc_classify *cc_classify_train(const char *const *texts,
	const size_t *label, size_t n, const char *const *labels, size_t nlabels);

/*
 * Write the model to path atomically (a temporary file, then rename), or
 * map it from path.  Load returns NULL with err set when the file is
 * missing, of another format, truncated or stamped otherwise than
 * `expect` (a stale model): the caller trains it again.
 */
int cc_classify_save(const struct cc_classify *m, const char *path,
	const struct cc_classify_stamp *stamp, char *err, size_t errlen);
struct cc_classify *cc_classify_load(const char *path,
	const struct cc_classify_stamp *expect, char *err, size_t errlen);
void cc_classify_free(struct cc_classify *m);

size_t cc_classify_nlabels(const struct cc_classify *m);
const char *cc_classify_label(const struct cc_classify *m, size_t i);

#define CC_CLASSIFY_WHY 5	/* n-grams given as the reason */

/*
 * The verdict on one text.  score is the winner's probability; margin
 * is the log-odds of the winner over the runner-up (or over `versus`),
 * the number a caller sets its threshold on.  The text's features are
 * scaled by 1/sqrt(its known n-grams), as in training, so a long text is
 * not surer for being long.  why[]
 * are the n-grams that most favoured the winner over that label,
 * strongest first, with their weights (log-odds).
 */
struct cc_classify_result {
	int label, second;	/* indices; -1 when the text has no known n-gram */
	double score, margin;
	size_t known;		/* the text's n-grams the model knows */
	char why[CC_CLASSIFY_WHY][20];	/* UTF-8, at most 4 code points */
	double why_weight[CC_CLASSIFY_WHY];
	size_t nwhy;
};

/*
 * versus: a label to weigh the winner against instead of the runner-up
 * (the one a caller would otherwise keep), or -1.  When it wins itself,
 * second is the runner-up as usual.
 */
void cc_classify_predict(const struct cc_classify *m, const char *text,
	size_t len, int versus, struct cc_classify_result *r);

#endif
