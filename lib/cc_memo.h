/*
 * A memo of what a stage computes from a few bytes alone (a question's
 * language, the time range it names): key bytes to value bytes, in a
 * table of CC_MEMO_SLOTS entries made at the second distinct key, so a
 * single question pays nothing.  A visitor's questions repeat ("営業時間
 * は?"), and a value read from the memo is the one computed, byte for
 * byte: only what is a function of its key may be kept here (the caller
 * puts everything the value depends on into the key).
 *
 * An entry may also keep its value's cc_json_index(), for a stage that
 * writes the value as its whole output (cc_jw_raw_indexed): the next
 * chained stage then takes the index instead of checking the text again.
 */
#ifndef CC_MEMO_H
#define CC_MEMO_H

#include <stddef.h>

#include "cc_json.h"

#define CC_MEMO_SLOTS 1024	/* distinct keys remembered, at most */
/*
 * Longer keys are not remembered (cc_memo_find() gives NULL): a stream
 * of long distinct questions must not hold gigabytes.
 */
#define CC_MEMO_MAX_KEY 16384

struct cc_memo_entry {
	char *key, *value;	/* owned; key NULL: empty */
	size_t klen, vlen;
	struct cc_json_doc index;
	int indexed;
};

struct cc_memo {
	struct cc_memo_entry first;	/* until a second key comes */
	struct cc_memo_entry *tab;	/* NULL: not made yet */
};

/*
 * The entry of key[0..klen): one holding it (value set), or an empty one
 * to fill with cc_memo_set() (value NULL); NULL when the key is longer
 * than CC_MEMO_MAX_KEY or memory ran out.  The
 * entry is valid until the next call.
 */
struct cc_memo_entry *cc_memo_find(struct cc_memo *m, const void *key,
	size_t klen);
/*
 * Fill the entry cc_memo_find() gave for key with a copy of
 * value[0..vlen); with index, the copy's cc_json_index() is kept too.
 */
void cc_memo_set(struct cc_memo_entry *e, const void *key, size_t klen,
	const void *value, size_t vlen, int index);
void cc_memo_release(struct cc_memo *m);

#endif
