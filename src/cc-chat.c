/*
 * cc-chat: ask the pipeline questions, interactively (readline) or from
 * a script, one session per chat.
 *
 * Each question runs the stages once, as child processes in a group of
 * their own (cc_pipe.c): Ctrl-C kills that group and the chat goes on,
 * and every stage reads the clock afresh, so session memory expires as
 * it should.  Questions given as arguments (`concierge ask`) run the
 * domain's stages in this process instead when the library has every one
 * (cc_chain.c): a cold question then costs one process, not six.  The
 * user's text only ever travels inside a JSON record.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <stdio.h>
#include <time.h>
#include <readline/history.h>
#include <readline/readline.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_term.h"
#include "cc_pipe.h"
#include "cc_chain.h"
#include "cc_domain.h"

/*
 * libreadline (and libtinfo under it) is loaded with dlopen() when a
 * chat starts on a terminal, not linked: linking it cost every start its
 * relocations and mappings, a cold `concierge ask` too, which never
 * edits a line.  Functions and variables are used through this table.
 */
#define RL_SYMBOLS(X) \
	X(add_history) X(append_history) X(clear_history) X(history_base) \
	X(history_get) X(history_length) X(history_truncate_file) \
	X(read_history) X(rl_callback_handler_install) \
	X(rl_callback_handler_remove) X(rl_callback_read_char) \
	X(rl_callback_sigcleanup) X(rl_catch_signals) X(rl_free_line_state) \
	X(rl_instream) X(rl_on_new_line) X(rl_outstream) X(rl_readline_name) \
	X(rl_redisplay) X(rl_replace_line)

static struct {
#define X(f) __typeof__(f) *f;
	RL_SYMBOLS(X)
#undef X
} rl;

/* Load libreadline; -1 with a message in err if it cannot be. */
static int
rl_load(char *err, size_t errlen)
{
	static const char *const names[] = { "libreadline.so.8", "libreadline.so", NULL };
#define X(f) #f,
	static const char *const syms[] = { RL_SYMBOLS(X) NULL };
#undef X
#define X(f) (void **)&rl.f,
	static void **const slots[] = { RL_SYMBOLS(X) };
#undef X

	return cc_dl_load("libreadline", names, "", syms, slots, err, errlen) ? 0 : -1;
}

#define add_history (*rl.add_history)
#define append_history (*rl.append_history)
#define clear_history (*rl.clear_history)
#define history_base (*rl.history_base)
#define history_get (*rl.history_get)
#define history_length (*rl.history_length)
#define history_truncate_file (*rl.history_truncate_file)
#define read_history (*rl.read_history)
#define rl_callback_handler_install (*rl.rl_callback_handler_install)
#define rl_callback_handler_remove (*rl.rl_callback_handler_remove)
#define rl_callback_read_char (*rl.rl_callback_read_char)
#define rl_callback_sigcleanup (*rl.rl_callback_sigcleanup)
#define rl_catch_signals (*rl.rl_catch_signals)
#define rl_free_line_state (*rl.rl_free_line_state)
#define rl_instream (*rl.rl_instream)
#define rl_on_new_line (*rl.rl_on_new_line)
#define rl_outstream (*rl.rl_outstream)
#define rl_readline_name (*rl.rl_readline_name)
#define rl_redisplay (*rl.rl_redisplay)
#define rl_replace_line (*rl.rl_replace_line)

static const char usage_text[] =
	"usage: cc-chat [-djD] [-s SESSION] [-l ja|en] [QUESTION...]\n"
	"Asks the concierge pipeline questions: each argument in turn, else each\n"
	"line of standard input (with line editing and history on a terminal).\n"
	"  -s, --session ID   continue this session (default: a new one; none\n"
	"                     for questions given as arguments)\n"
	"  -l, --lang ja|en   answer in this language whatever the question's\n"
	"  -d, --debug        show the route, matched rules and passages\n"
	"  -j, --json         print each whole record instead of the answer\n"
	"  -H, --no-history   do not read or write the history file\n"
	"  -h, --help         show this help\n"
	"  -V, --version      show the version\n"
	"In the chat, /help lists the commands.\n";

static const char help_text[] =
	"commands:\n"
	"  /help              this list\n"
	"  /session [ID]      show the session, or continue session ID\n"
	"  /new               start a new session (forget the conversation)\n"
	"  /lang ja|en|auto   the answer language (auto: the question's)\n"
	"  /debug [on|off]    show the route, matched rules and passages\n"
	"  /quit              leave (or Ctrl-D); Ctrl-C cancels an answer\n"
	"A line starting with // is sent as a question without its first /.\n";

struct chat {
	struct cc_config cfg;
	char **stages;
	size_t nstages;
	char *session;		/* NULL: no session */
	const char *lang;	/* NULL: detect; "ja" or "en" */
	int json, debug, history;
	int in_tty, out_tty, utf8;
	int worst;		/* worst exit status of a question */
	int cancelled;		/* Ctrl-C stopped an answer */
	int quit;
	char *history_path;
	struct cc_pipe pipe;	/* the resident pipeline, while running */
	int running;
	int running_lang;	/* it runs without the detector (/lang) */
	int sfd;		/* its stream's read end, or -1 */
	char fdname[16];
	struct cc_chain *chain;	/* the stages in this process, or NULL */
};

static volatile sig_atomic_t interrupted, in_chain;

/*
 * An answer in this process cannot be interrupted half way, and is only
 * ever the one question of a `concierge ask`: Ctrl-C ends it there as
 * the cancelled answer ends it (the message, status 130).  What a stage
 * had begun to write in the session store is rolled back by SQLite, as
 * when a stage process is killed.
 */
static void
on_sigint(int sig)
{
	static const char msg[] = "(cancelled)\n";

	(void)sig;
	if (in_chain) {
		if (write(2, msg, sizeof msg - 1) < 0) {
			/* nothing more to do */
		}
		_exit(130);
	}
	interrupted = 1;
}

/*
 * poll(2) that a Ctrl-C always ends: SIGINT is blocked from the look at
 * `interrupted` until ppoll waits, so one that comes in between is not
 * left for after the wait.  It was: a Ctrl-C then let the answer run its
 * whole time, or waited at the prompt and took the next key typed for
 * itself (tests/chat.test failed so on a busy machine).  -1 with EINTR
 * when interrupted, before the wait or in it.
 */
static int
wait_for(struct pollfd *pf, nfds_t n)
{
	sigset_t block, old;
	int rc;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (interrupted) {
		errno = EINTR;
		rc = -1;
	} else {
		rc = ppoll(pf, n, NULL, &old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

static char *
new_session_id(void)
{
	unsigned char r[6];
	char *id = cc_xmalloc(32);
	size_t k = 0;

	if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
		/* no entropy source: time and pid still keep chats apart */
		unsigned long x = (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);

		for (size_t i = 0; i < sizeof r; i++, x >>= 8)
			r[i] = (unsigned char)x;
	}
	k += (size_t)snprintf(id, 32, "chat-");
	for (size_t i = 0; i < sizeof r; i++)
		k += (size_t)snprintf(id + k, 32 - k, "%02x", r[i]);
	return id;
}

/* ---- reading the output record ---- */

/*
 * The answer's few members read from the checked text, not from a jv of
 * the whole record: its retrieval and debug trace (kilobytes) made
 * building one a twelfth of a cold question.  A record with escaped
 * member names (matched byte-wise in the text) is read as a jv.
 */
static jv
member_at(const struct cc_json_doc *doc, const char *key, const char *sub)
{
	const struct cc_json_field *f;
	jv v;

	if (doc->needs_rewrite) {
		v = cc_json_to_jv(doc->text.data, doc->text.len);
		v = jv_object_get(v, jv_string(key));
		if (sub && jv_get_kind(v) == JV_KIND_OBJECT)
			v = jv_object_get(v, jv_string(sub));
		else if (sub) {
			jv_free(v);
			v = jv_null();
		}
	} else if (!(f = cc_json_field(doc, key)) ||
	    (sub && !(f = cc_json_subfield(doc, f, sub)))) {
		return jv_invalid();
	} else {
		v = cc_json_to_jv(doc->text.data + f->val_at, f->val_len);
	}
	if (jv_get_kind(v) == JV_KIND_NULL) {	/* as get() reads it */
		jv_free(v);
		v = jv_invalid();
	}
	return v;
}

/* 1 if the record has member key, not null. */
static int
has_member(const struct cc_json_doc *doc, const char *key)
{
	jv v = member_at(doc, key, NULL);
	int has = jv_is_valid(v);

	jv_free(v);
	return has;
}

/* The member at a dotted path ("route.agent", "retrieval.results.0"); owned. */
static jv
get(jv v, const char *path)
{
	char key[64];

	v = jv_copy(v);
	while (*path && jv_is_valid(v)) {
		size_t k = strcspn(path, ".");

		snprintf(key, sizeof key, "%.*s", (int)k, path);
		path += k + (path[k] == '.');
		if (jv_get_kind(v) == JV_KIND_OBJECT) {
			v = jv_object_get(v, jv_string(key));
			if (jv_get_kind(v) == JV_KIND_NULL) {
				jv_free(v);
				v = jv_invalid();
			}
		} else if (jv_get_kind(v) == JV_KIND_ARRAY && key[0] >= '0' && key[0] <= '9') {
			int i = atoi(key);

			if (i < jv_array_length(jv_copy(v)))
				v = jv_array_get(v, i);
			else {
				jv_free(v);
				v = jv_invalid();
			}
		} else {
			jv_free(v);
			v = jv_invalid();
		}
	}
	return v;
}

/* Append the string at path (or nothing) to b; 1 if there was one. */
static int
add_str(struct cc_buf *b, jv rec, const char *path)
{
	jv v = get(rec, path);
	int ok = jv_get_kind(v) == JV_KIND_STRING;

	if (ok)
		cc_buf_add(b, jv_string_value(v), (size_t)jv_string_length_bytes(jv_copy(v)));
	jv_free(v);
	return ok;
}

/* ---- showing text ---- */

static const struct {
	const char *tag, *emoji;
} emotions[] = {
	{ "happy", "\xF0\x9F\x98\x8A" },	/* smiling face with smiling eyes */
	{ "sad", "\xF0\x9F\x98\xA2" },		/* crying face */
	{ "relaxed", "\xF0\x9F\x98\x8C" },	/* relieved face */
	{ "surprised", "\xF0\x9F\x98\xB2" },	/* astonished face */
	{ "angry", "\xF0\x9F\x98\xA0" },
	{ "neutral", "\xF0\x9F\x98\x90" },
};

/* The emotion tag "[happy]" at s, or -1; *len is its length. */
static int
emotion_at(const char *s, size_t n, size_t *len)
{
	for (size_t i = 0; i < sizeof emotions / sizeof emotions[0]; i++) {
		size_t k = strlen(emotions[i].tag);

		if (n >= k + 2 && s[0] == '[' && s[k + 1] == ']' &&
		    memcmp(s + 1, emotions[i].tag, k) == 0) {
			*len = k + 2;
			return (int)i;
		}
	}
	return -1;
}

/*
 * Write answer text: control characters escaped always; on a terminal
 * the emotion tags are shown as faces (or "(happy)" without UTF-8).
 */
static void
show(struct chat *c, const char *s, size_t n)
{
	struct cc_buf b = {0};
	size_t i = 0, run = 0, k;
	int e;

	while (c->out_tty && i < n) {
		if (s[i] == '[' && (e = emotion_at(s + i, n - i, &k)) >= 0) {
			cc_term_escape(&b, s + run, i - run, CC_TERM_KEEP_NEWLINE | CC_TERM_KEEP_TAB);
			if (c->utf8) {
				cc_buf_add(&b, emotions[e].emoji, strlen(emotions[e].emoji));
				cc_buf_add(&b, " ", 1);
			} else {
				cc_buf_add(&b, "(", 1);
				cc_buf_add(&b, emotions[e].tag, strlen(emotions[e].tag));
				cc_buf_add(&b, ") ", 2);
			}
			i += k;
			run = i;
		} else {
			i++;
		}
	}
	cc_term_escape(&b, s + run, n - run, CC_TERM_KEEP_NEWLINE | CC_TERM_KEEP_TAB);
	fwrite(b.data, 1, b.len, stdout);
	cc_buf_release(&b);
}

/* Streamed text arrives in pieces: hold back a split character or tag. */
struct stream {
	struct cc_buf pending;
	int any;		/* something was shown */
	int last_newline;
};

static void
stream_feed(struct chat *c, struct stream *st, const char *s, size_t n, int end)
{
	struct cc_buf *p = &st->pending;
	size_t keep = 0, len;

	cc_buf_add(p, s, n);
	len = p->len;
	if (!end && len > 0) {
		/* an incomplete UTF-8 sequence at the end */
		size_t back = 0;

		while (back < 3 && back < len &&
		    ((unsigned char)p->data[len - 1 - back] & 0xC0) == 0x80)
			back++;
		if (back < len && (unsigned char)p->data[len - 1 - back] >= 0xC0)
			keep = back + 1;
		/* a tag that may still be coming: "[hap" */
		for (size_t i = len - keep; i > 0 && len - i < 12; i--) {
			if (p->data[i - 1] == ']')
				break;
			if (p->data[i - 1] == '[') {
				keep = len - (i - 1);
				break;
			}
		}
	}
	if (len - keep > 0) {
		show(c, p->data, len - keep);
		st->any = 1;
		st->last_newline = p->data[len - keep - 1] == '\n';
		fflush(stdout);
	}
	memmove(p->data, p->data + len - keep, keep);
	p->len = keep;
	if (p->data)
		p->data[keep] = '\0';
}

/* Without cc-respond: say what the route decided, and the best passage. */
static void
show_fallback(struct chat *c, jv rec)
{
	struct cc_buf b = {0};

	cc_buf_add(&b, "[", 1);
	if (add_str(&b, rec, "route.agent")) {
		cc_buf_add(&b, " ", 1);
		add_str(&b, rec, "route.category");
		cc_buf_add(&b, " ", 1);
		if (!add_str(&b, rec, "route.request_type"))
			b.len--;
	} else {
		cc_buf_add(&b, "not routed", 10);
	}
	cc_buf_add(&b, "]", 1);
	cc_buf_add(&b, " ", 1);
	if (!add_str(&b, rec, "retrieval.results.0.content"))
		b.len--;
	show(c, b.data, b.len);
	cc_buf_release(&b);
}

/* ---- /debug: why the pipeline answered so, on stderr ---- */

static void
debug_line(const char *label, jv v)
{
	struct cc_buf b = {0};

	if (jv_get_kind(v) == JV_KIND_STRING) {
		cc_term_escape(&b, jv_string_value(v), (size_t)jv_string_length_bytes(jv_copy(v)), 0);
	} else if (jv_is_valid(v)) {
		jv t = jv_dump_string(jv_copy(v), 0);

		cc_term_escape(&b, jv_string_value(t), (size_t)jv_string_length_bytes(jv_copy(t)), 0);
		jv_free(t);
	}
	if (b.data)
		fprintf(stderr, "  %-10s %s\n", label, b.data);
	cc_buf_release(&b);
	jv_free(v);
}

static void
show_debug(jv rec)
{
	jv route = get(rec, "route"), results = get(rec, "retrieval.results");

	if (jv_is_valid(route)) {
		jv r = jv_object(), cls = get(route, "debug_info.classification");

		static const char *const keys[] = { "agent", "category", "request_type",
			"language", "confidence" };
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
			jv v = get(route, keys[i]);

			r = jv_object_set(r, jv_string(keys[i]), jv_is_valid(v) ? v : jv_null());
		}
		fputs("debug:\n", stderr);
		debug_line("route", r);
		debug_line("reason", get(cls, "reason"));
		debug_line("rules", get(cls, "rules"));
		debug_line("matched", get(cls, "matched"));
		debug_line("slots", get(cls, "slots"));
		debug_line("context", get(cls, "context"));
		debug_line("session", get(route, "debug_info.session"));
		jv_free(cls);
	}
	if (jv_get_kind(results) == JV_KIND_ARRAY) {
		int n = jv_array_length(jv_copy(results));

		fprintf(stderr, "  %-10s %d passage%s\n", "retrieval", n, n == 1 ? "" : "s");
		for (int i = 0; i < n && i < 5; i++) {
			jv h = jv_array_get(jv_copy(results), i), line;
			jv id = get(h, "id"), title = get(h, "title"), score = get(h, "score");
			char label[16];

			line = jv_string_fmt("%s %.2f %s",
			    jv_get_kind(id) == JV_KIND_STRING ? jv_string_value(id) : "-",
			    jv_get_kind(score) == JV_KIND_NUMBER ? jv_number_value(score) : 0.0,
			    jv_get_kind(title) == JV_KIND_STRING ? jv_string_value(title) : "");
			snprintf(label, sizeof label, "%d.", i + 1);
			debug_line(label, line);
			jv_free(id);
			jv_free(title);
			jv_free(score);
			jv_free(h);
		}
	}
	debug_line("events", get(rec, "events.time_range"));
	debug_line("emotion", get(rec, "response.emotion"));
	debug_line("sources", get(rec, "response.metadata.sources"));
	debug_line("error", get(rec, "error"));
	jv_free(route);
	jv_free(results);
}

/* ---- one question through the pipeline ---- */

/*
 * Answers that cannot be written (a full disk, a reader gone) end the
 * chat with status 5: before, they were dropped without a word and the
 * chat went on asking the pipeline for answers nobody could see.
 */
static void
check_output(struct chat *c)
{
	int e = fflush(stdout) == EOF ? errno : ferror(stdout) ? EIO : 0;

	if (!e)
		return;
	if (e != EPIPE)	/* a reader that left needs no message */
		cc_warn("cannot write output: %s", strerror(e));
	c->quit = 1;
	c->worst = CC_EXIT_INTERNAL;
}

/*
 * The resident pipeline: started at the first question and kept, so a
 * question costs its records' work, not five process starts.  It is
 * started again (before the next question) when /lang changes its
 * stages, when Ctrl-C killed it, or when a stage has died.
 */
static int
pipeline_start(struct chat *c)
{
	char *stages[CC_PIPE_MAX + 1], err[512];
	const char *env[4] = { NULL };
	int sfd[2] = { -1, -1 };
	size_t n = 0;

	/* the chat decides the language: no detector */
	for (size_t i = 0; i < c->nstages && n < CC_PIPE_MAX; i++)
		if (!c->lang || strcmp(cc_stage_name(c->stages[i]), "cc-detect-lang") != 0)
			stages[n++] = c->stages[i];
	stages[n] = NULL;
	/* a stage that writes the answer as it comes writes it here */
	if (!c->json && pipe2(sfd, O_CLOEXEC) == 0) {
		fcntl(sfd[1], F_SETFD, 0);
		snprintf(c->fdname, sizeof c->fdname, "%d", sfd[1]);
		env[0] = "CC_STREAM_FD";
		env[1] = c->fdname;
	}
	if (cc_pipe_start(&c->pipe, stages, n, env, err, sizeof err) < 0) {
		cc_warn("%s", err);
		if (sfd[0] >= 0) {
			close(sfd[0]);
			close(sfd[1]);
		}
		return -1;
	}
	if (sfd[1] >= 0) {
		close(sfd[1]);
		fcntl(sfd[0], F_SETFL, O_NONBLOCK);
	}
	fcntl(c->pipe.in, F_SETFL, O_NONBLOCK);
	c->sfd = sfd[0];
	c->running = 1;
	c->running_lang = c->lang != NULL;
	return 0;
}

/* Stop the pipeline (killed first when kill is set): its worst status. */
static int
pipeline_stop(struct chat *c, int kill)
{
	if (!c->running)
		return 0;
	if (kill)
		cc_pipe_kill(&c->pipe);
	if (c->sfd >= 0)
		close(c->sfd);
	c->sfd = -1;
	c->running = 0;
	return cc_pipe_finish(&c->pipe);
}

/* What is left of a streamed answer: it was all written before the record. */
static void
stream_drain(struct chat *c, struct stream *st)
{
	char buf[8192];
	ssize_t k;

	while (c->sfd >= 0 && (k = read(c->sfd, buf, sizeof buf)) != 0) {
		if (k < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		stream_feed(c, st, buf, (size_t)k, 0);
	}
	stream_feed(c, st, "", 0, 1);
}

static int
ask(struct chat *c, const char *q, size_t qlen)
{
	struct cc_buf rec = {0}, out = {0};
	struct cc_jw w;
	struct stream st = {0};
	size_t off = 0;
	int status = 0, cancelled = 0, answered = 0;
	char *nl = NULL;

	cc_jw_init(&w, &rec);
	cc_jw_object(&w);
	cc_jw_key(&w, "query");
	cc_jw_str(&w, q, qlen);
	if (c->session) {
		cc_jw_key(&w, "session_id");
		cc_jw_cstr(&w, c->session);
	}
	if (c->lang) {	/* the chat decides the language: no detector */
		cc_jw_key(&w, "language_detection");
		cc_jw_object(&w);
		cc_jw_key(&w, "detected_language");
		cc_jw_cstr(&w, c->lang);
		cc_jw_key(&w, "confidence");
		cc_jw_num(&w, 1);
		cc_jw_key(&w, "is_mixed");
		cc_jw_bool(&w, 0);
		cc_jw_key(&w, "cue");
		cc_jw_cstr(&w, "user");
		cc_jw_end(&w);
	}
	cc_jw_end(&w);
	cc_buf_add(&rec, "\n", 1);

	if (c->chain) {
		interrupted = 0;
		in_chain = 1;
		cc_chain_line(c->chain, rec.data, rec.len, &out);
		/* what cc-respond commits when its input is quiet: the next
		 * question may ask about this answer */
		cc_chain_idle(c->chain);
		in_chain = 0;
		answered = (nl = memchr(out.data, '\n', out.len)) != NULL;
		goto show;
	}
	if (c->running && (c->running_lang != (c->lang != NULL) || !cc_pipe_alive(&c->pipe))) {
		int dead = c->running_lang == (c->lang != NULL);
		int s = pipeline_stop(c, 1);

		if (dead) {	/* its status is the chat's, as it would have been */
			cc_warn("the pipeline stopped (exit status %d): starting it again", s);
			if (s > c->worst)
				c->worst = s;
		}
	}
	interrupted = 0;
	if (!c->running && pipeline_start(c) < 0) {
		cc_buf_release(&rec);
		return CC_EXIT_INTERNAL;
	}

	/* one record in, one record out; the stream beside it */
	while (!answered) {
		struct pollfd pf[3] = {
			{ off < rec.len ? c->pipe.in : -1, POLLOUT, 0 },
			{ c->pipe.out, POLLIN, 0 }, { c->sfd, POLLIN, 0 },
		};
		char buf[8192];
		ssize_t k;

		if (wait_for(pf, 3) < 0) {
			if (errno == EINTR && interrupted) {
				/* this Ctrl-C is spent: the prompt must not see it */
				interrupted = 0;
				cancelled = 1;
				pipeline_stop(c, 1);
				break;
			}
			if (errno == EINTR)
				continue;
			cc_warn("poll: %s", strerror(errno));
			status = pipeline_stop(c, 1);
			break;
		}
		if (pf[0].revents) {
			k = write(c->pipe.in, rec.data + off, rec.len - off);
			if (k > 0)
				off += (size_t)k;
			else if (k < 0 && errno != EAGAIN && errno != EINTR)
				off = rec.len;	/* the first stage is gone: its end says why */
		}
		if (pf[1].revents) {
			k = read(c->pipe.out, buf, sizeof buf);
			if (k > 0) {
				cc_buf_add(&out, buf, (size_t)k);
				answered = (nl = memchr(out.data, '\n', out.len)) != NULL;
			} else if (k == 0 || errno != EINTR) {
				/* a stage died: what it wrote, and how it ended */
				status = pipeline_stop(c, 0);
				break;
			}
		}
		if (pf[2].revents && c->sfd >= 0) {
			k = read(c->sfd, buf, sizeof buf);
			if (k > 0) {
				stream_feed(c, &st, buf, (size_t)k, 0);
			} else if (k == 0 || (errno != EINTR && errno != EAGAIN)) {
				close(c->sfd);
				c->sfd = -1;
			}
		}
	}
show:
	if (answered)
		stream_drain(c, &st);
	else if (!cancelled)
		stream_feed(c, &st, "", 0, 1);
	cc_buf_release(&rec);

	if (cancelled) {
		c->cancelled = 1;
		if (st.any && !st.last_newline)
			putchar('\n');
		fflush(stdout);
		fputs("(cancelled)\n", stderr);
		cc_buf_release(&st.pending);
		cc_buf_release(&out);
		return CC_EXIT_OK;
	}
	if (!answered) {
		if (status == 0)
			status = CC_EXIT_INTERNAL;
		cc_warn("the pipeline gave no answer (exit status %d)", status);
	} else {
		size_t len = (size_t)(nl - out.data);
		struct cc_json_doc doc = {0};
		int is_record = cc_json_scan(&doc, out.data, len) == 0 &&
		    doc.text.len && doc.text.data[0] == '{';
		jv r = jv_invalid();

		if (!is_record) {
			cc_warn("the pipeline wrote something that is not a record");
			if (status < CC_EXIT_INTERNAL)
				status = CC_EXIT_INTERNAL;
		} else if (c->json) {
			fwrite(out.data, 1, len, stdout);
			putchar('\n');
		} else if (has_member(&doc, "error")) {
			/* the stage said why on stderr */
			if (status < CC_EXIT_DATA)
				status = CC_EXIT_DATA;
		} else {
			jv text = member_at(&doc, "response", "text");

			if (st.any) {
				if (!st.last_newline)
					putchar('\n');
			} else if (jv_get_kind(text) == JV_KIND_STRING) {
				show(c, jv_string_value(text),
				    (size_t)jv_string_length_bytes(jv_copy(text)));
				putchar('\n');
			} else {
				r = cc_json_to_jv(doc.text.data, doc.text.len);
				show_fallback(c, r);
				putchar('\n');
			}
			jv_free(text);
		}
		check_output(c);
		if (c->debug && is_record) {
			if (!jv_is_valid(r))
				r = cc_json_to_jv(doc.text.data, doc.text.len);
			show_debug(r);
		}
		jv_free(r);
		cc_json_doc_release(&doc);
		if (out.len > len + 1) {
			/* one record in owes one out: a stage that breaks that is
			 * not to be trusted with the next question */
			cc_warn("the pipeline wrote more than one record: starting it again");
			pipeline_stop(c, 1);
		}
	}
	if (status > c->worst)
		c->worst = status;
	cc_buf_release(&st.pending);
	cc_buf_release(&out);
	return status;
}

/* ---- the stages in this process ---- */

static void
no_message(void *ctx, const char *message)
{
	(void)ctx;
	(void)message;
}

/*
 * The domain's stages in this process, or NULL for the processes: when
 * the user set CC_STAGES (they are what runs), when an LLM is configured
 * (its answer is shown as it comes, which takes a stage process writing
 * beside its record), when the manifest has a problem or names a stage
 * the library does not have, or when a stage cannot start here (its
 * program then says why, as it always did).
 */
static struct cc_chain *
chain_open(struct chat *c)
{
	const char *llm = getenv("CC_LLM_BASE_URL");
	struct cc_problems quiet = { no_message, NULL, 0 };
	struct cc_domain *d;
	struct cc_chain *chain = NULL;
	char *names[CC_DOMAIN_MAX_STAGES], *path, err[768];
	size_t n = 0;
	int status, all = 1;

	if (getenv("CC_STAGES") || (llm && *llm))
		return NULL;
	path = cc_config_domain_path(&c->cfg, CC_DOMAIN_FILE);
	d = cc_domain_parse(path, &quiet);
	free(path);
	if (!d || quiet.n) {
		cc_domain_free(d);
		return NULL;
	}
	for (size_t i = 0; i < d->nstages; i++) {
		all &= cc_chain_has(d->pipeline[i]);
		/* the chat decides the language: no detector */
		if (!c->lang || strcmp(d->pipeline[i], "cc-detect-lang") != 0)
			names[n++] = d->pipeline[i];
	}
	if (all && n)
		chain = cc_chain_open(names, n, &status, err, sizeof err);
	cc_domain_free(d);
	return chain;
}

/* ---- commands ---- */

static int
on_off(const char *arg, int cur)
{
	if (!*arg)
		return !cur;
	return strcmp(arg, "on") == 0 || strcmp(arg, "1") == 0;
}

static void
command(struct chat *c, const char *line)
{
	char name[16];
	size_t k = strcspn(line, " \t");
	const char *arg = line + k;

	while (*arg == ' ' || *arg == '\t')
		arg++;
	snprintf(name, sizeof name, "%.*s", (int)k, line);
	if (strcmp(name, "/help") == 0 || strcmp(name, "/?") == 0) {
		fputs(help_text, stderr);
	} else if (strcmp(name, "/quit") == 0 || strcmp(name, "/exit") == 0 ||
	    strcmp(name, "/q") == 0) {
		c->quit = 1;
	} else if (strcmp(name, "/session") == 0) {
		if (*arg) {
			free(c->session);
			c->session = cc_xstrdup(arg);
		}
		fprintf(stderr, "session %s\n", c->session ? c->session : "(none)");
	} else if (strcmp(name, "/new") == 0) {
		free(c->session);
		c->session = new_session_id();
		fprintf(stderr, "new session %s\n", c->session);
	} else if (strcmp(name, "/lang") == 0) {
		if (strcmp(arg, "ja") == 0 || strcmp(arg, "en") == 0)
			c->lang = strcmp(arg, "ja") == 0 ? "ja" : "en";
		else if (strcmp(arg, "auto") == 0)
			c->lang = NULL;
		else if (*arg)
			fputs("usage: /lang ja|en|auto\n", stderr);
		fprintf(stderr, "language %s\n", c->lang ? c->lang : "auto (the question's)");
	} else if (strcmp(name, "/debug") == 0) {
		c->debug = on_off(arg, c->debug);
		fprintf(stderr, "debug %s\n", c->debug ? "on" : "off");
	} else {
		struct cc_buf b = {0};

		cc_term_escape(&b, name, strlen(name), 0);
		fprintf(stderr, "unknown command '%s' (/help lists them)\n", b.data);
		cc_buf_release(&b);
	}
}

/* A line of input: a command, or a question. */
static void
handle(struct chat *c, char *line)
{
	size_t n = strlen(line);

	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	if (strspn(line, " \t") == n)
		return;
	if (line[0] == '/' && line[1] != '/') {
		command(c, line);
		return;
	}
	if (line[0] == '/')
		line++, n--;
	ask(c, line, n);
}

/* ---- history, under the state directory ---- */

static void
history_open(struct chat *c)
{
	size_t n = strlen(c->cfg.state_dir) + 16;
	int fd;

	c->history_path = cc_xmalloc(n);
	snprintf(c->history_path, n, "%s/chat_history", c->cfg.state_dir);
	if (cc_mkdirs(c->cfg.state_dir) < 0 ||
	    (fd = open(c->history_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) < 0) {
		cc_warn("no history: cannot create '%s': %s", c->history_path, strerror(errno));
		free(c->history_path);
		c->history_path = NULL;
		return;
	}
	fchmod(fd, 0600);
	close(fd);
	read_history(c->history_path);
}

static void
history_add(struct chat *c, const char *line)
{
	HIST_ENTRY *last = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;

	if (last && strcmp(last->line, line) == 0)
		return;
	add_history(line);
	if (c->history_path)
		append_history(1, c->history_path);
}

/* ---- the two loops: readline on a terminal, plain lines otherwise ---- */

static char *rl_pending;
static int rl_got_line, rl_eof;

static void
on_rl_line(char *line)
{
	/* removed here, or readline shows the prompt again at once */
	rl_callback_handler_remove();
	if (!line)
		rl_eof = 1;
	rl_pending = line;
	rl_got_line = 1;
}

static void
repl(struct chat *c)
{
	const char *prompt = "concierge> ";

	rl_readline_name = "cc-chat";
	rl_instream = stdin;
	rl_outstream = stderr;
	rl_catch_signals = 0;
	if (c->history)
		history_open(c);
	fprintf(stderr, "concierge chat, session %s (continue it with --session %s)\n"
	    "/help for commands, Ctrl-D to leave\n", c->session, c->session);
	rl_callback_handler_install(prompt, on_rl_line);
	while (!c->quit) {
		struct pollfd pf = { 0, POLLIN, 0 };

		if (wait_for(&pf, 1) < 0 && errno != EINTR)
			break;
		if (interrupted) {	/* Ctrl-C at the prompt: a fresh line */
			interrupted = 0;
			rl_free_line_state();
			rl_callback_sigcleanup();
			rl_replace_line("", 0);
			fputs("^C\n", stderr);
			rl_on_new_line();
			rl_redisplay();
			continue;
		}
		if (!(pf.revents & (POLLIN | POLLHUP)))
			continue;
		rl_callback_read_char();
		if (!rl_got_line)
			continue;
		rl_got_line = 0;
		if (rl_eof) {
			fputc('\n', stderr);
			break;
		}
		if (strspn(rl_pending, " \t") < strlen(rl_pending))
			history_add(c, rl_pending);
		handle(c, rl_pending);
		free(rl_pending);
		rl_pending = NULL;
		if (!c->quit)
			rl_callback_handler_install(prompt, on_rl_line);
	}
	rl_callback_handler_remove();
	if (c->history_path)
		history_truncate_file(c->history_path, 1000);
	clear_history();
	free(c->history_path);
}

static void
lines(struct chat *c)
{
	char *line = NULL;
	size_t cap = 0;

	while (!c->quit) {
		errno = 0;
		if (getline(&line, &cap, stdin) < 0) {
			if (errno == EINTR && interrupted) {
				c->worst = 130;
			}
			break;
		}
		handle(c, line);
	}
	free(line);
}

/*
 * The concierge front (src/concierge.c) links this file with main named
 * cc_chat_main, and answers `concierge ask` with it in its own process.
 */
#ifndef CC_CHAT_MAIN
#define CC_CHAT_MAIN main
#endif
int CC_CHAT_MAIN(int argc, char **argv);

int
CC_CHAT_MAIN(int argc, char **argv)
{
	static const struct option opts[] = {
		CC_COMMON_LONGOPTS,
		{"session", required_argument, NULL, 's'},
		{"lang", required_argument, NULL, 'l'},
		{"debug", no_argument, NULL, 'd'},
		{"json", no_argument, NULL, 'j'},
		{"no-history", no_argument, NULL, 'H'},
		{NULL, 0, NULL, 0},
	};
	struct chat c = { .history = 1, .sfd = -1 };
	struct sigaction sa;
	char err[512];
	const char *cs;
	int ch;

	cc_set_progname(argv[0]);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+" CC_COMMON_SHORTOPTS "s:l:djH", opts, NULL)) != -1) {
		if (cc_option_common(ch, argv, usage_text, NULL))
			continue;
		switch (ch) {
		case 's':
			if (!*optarg)
				cc_die(CC_EXIT_USAGE, "empty session id");
			free(c.session);
			c.session = cc_xstrdup(optarg);
			break;
		case 'l':
			if (strcmp(optarg, "ja") == 0 || strcmp(optarg, "en") == 0)
				c.lang = strcmp(optarg, "ja") == 0 ? "ja" : "en";
			else if (strcmp(optarg, "auto") != 0)
				cc_die(CC_EXIT_USAGE, "invalid language '%s': expected ja, en or auto", optarg);
			break;
		case 'd': c.debug = 1; break;
		case 'j': c.json = 1; break;
		case 'H': c.history = 0; break;
		}
	}
	cc_config_load(&c.cfg);
	if (optind < argc)
		c.chain = chain_open(&c);
	if (!c.chain && !(c.stages = cc_stages_find(&c.nstages, err, sizeof err)))
		cc_die(CC_EXIT_USAGE, "%s", err);
	if (!c.chain && c.nstages == 0)
		cc_die(CC_EXIT_USAGE, "no stages to run: build the programs or set CC_STAGES");
	c.in_tty = isatty(0);
	c.out_tty = isatty(1);
	/*
	 * The stages in this process run in the C locale, as their programs
	 * do (a printf'd number must not take the user's decimal comma); the
	 * terminal's character set is all the answer needs of the user's, and
	 * loading the whole locale cost a cold question a dozen files.  Only
	 * a terminal is shown faces (show()): an answer written to a pipe or
	 * a file does not load even the character set (three files, a
	 * 350 kB mapping; issue 16).
	 */
	if (!c.chain || c.out_tty) {
		setlocale(c.chain ? LC_CTYPE : LC_ALL, "");
		cs = nl_langinfo(CODESET);
		c.utf8 = cs && strcmp(cs, "UTF-8") == 0;
		if (c.chain)
			setlocale(LC_CTYPE, "C");
	}

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;	/* no SA_RESTART: poll and read return */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (optind < argc) {
		for (int i = optind; i < argc && !c.cancelled && !c.quit; i++)
			ask(&c, argv[i], strlen(argv[i]));
		if (c.cancelled)
			c.worst = 130;
	} else {
		if (!c.session)
			c.session = new_session_id();
		if (c.in_tty && rl_load(err, sizeof err) == 0) {
			repl(&c);
		} else {
			if (c.in_tty)
				cc_warn("%s: no line editing", err);
			lines(&c);
		}
	}
	/* the stages' own verdict on the whole chat: input they refused,
	 * an upstream that failed */
	if ((ch = pipeline_stop(&c, 0)) > c.worst)
		c.worst = ch;
	/* a chat asked on its command line ends here: no frees */
	if ((ch = (optind < argc ? cc_chain_close_at_exit : cc_chain_close)(c.chain)) > c.worst)
		c.worst = ch;
	free(c.session);
	cc_stages_free(c.stages);
	cc_config_release(&c.cfg);
	return c.worst;
}
