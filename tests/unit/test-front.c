/* Unit tests of the front ends' library parts: cc_term.c and cc_pipe.c. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_term.h"
#include "cc_pipe.h"
#include "tap.h"

static char *
escaped(const char *s, size_t n, int flags)
{
	static struct cc_buf b;

	b.len = 0;
	cc_term_escape(&b, s, n, flags);
	return b.data;
}

#define ESC(s, flags) escaped((s), sizeof(s) - 1, (flags))

static void
test_term(void)
{
	struct cc_buf b = {0};

	is_str(ESC("エンジニアカフェ 9:00-22:00", 0), "エンジニアカフェ 9:00-22:00",
	    "term: text is kept");
	is_str(ESC("\033[31mred\033[0m", 0), "^[[31mred^[[0m", "term: ESC in caret notation");
	is_str(ESC("a\007b\rc\x7f", 0), "a^Gb^Mc^?", "term: BEL, CR and DEL");
	is_str(ESC("one\ntwo\tx", 0), "one^Jtwo^Ix", "term: newline and tab escaped by default");
	is_str(ESC("one\ntwo\tx", CC_TERM_KEEP_NEWLINE | CC_TERM_KEEP_TAB), "one\ntwo\tx",
	    "term: kept when asked");
	is_str(ESC("a\xc2\x85z", 0), "a<U+0085>z", "term: C1 controls");
	is_str(ESC("abc\xe2\x80\xaetxt.exe", 0), "abc<U+202E>txt.exe",
	    "term: a right-to-left override is shown, not obeyed");
	is_str(ESC("\xe2\x81\xa6x\xe2\x81\xa9", 0), "<U+2066>x<U+2069>", "term: isolates");
	is_str(ESC("bad \xff\xfe end", 0), "bad \\xFF\\xFE end", "term: invalid bytes as \\xFF");
	is_str(ESC("cut \xe3\x81", 0), "cut \\xE3\\x81", "term: a cut sequence");
	is_str(ESC("\xef\xbf\xbd", 0), "\xef\xbf\xbd", "term: a real U+FFFD is text");
	is_str(escaped("a\0b", 3, 0), "a^@b", "term: NUL");
	is_int(cc_term_escape(&b, "\033\033ok\xff", 5, 0), 3, "term: returns the count escaped");
	is_str(escaped("", 0, 0), "", "term: empty text gives an empty string");
	cc_buf_release(&b);
}

/* Run stages on input, return the output (fresh) and the status. */
static char *
run(char *const *stages, size_t n, const char *const *env, const char *in, int *status)
{
	struct cc_pipe p;
	struct cc_buf out = {0};
	char err[256], buf[4096];
	ssize_t k;

	if (cc_pipe_start(&p, stages, n, env, err, sizeof err) < 0) {
		printf("# %s\n", err);
		*status = -1;
		return NULL;
	}
	if (write(p.in, in, strlen(in)) < 0)
		*status = -2;
	close(p.in);
	p.in = -1;
	while ((k = read(p.out, buf, sizeof buf)) > 0)
		cc_buf_add(&out, buf, (size_t)k);
	*status = cc_pipe_finish(&p);
	if (!out.data)
		cc_buf_add(&out, "", 0);
	return out.data;
}

static void
test_pipe(void)
{
	char *cat2[] = { "cat", "cat", NULL }, *sh1[] = { "sh", NULL };
	char *missing[] = { "cat", "./no-such-stage-here", NULL };
	const char *env[] = { "CC_TEST_VALUE", "hello from env", NULL };
	char **v, err[256];
	size_t n;
	int st;
	char *out;

	out = run(cat2, 2, NULL, "{\"query\":\"x\"}\n", &st);
	is_str(out, "{\"query\":\"x\"}\n", "pipe: records pass through two stages");
	is_int(st, 0, "pipe: status 0");
	free(out);

	out = run(sh1, 1, env, "echo \"$CC_TEST_VALUE\"; exit 3\n", &st);
	is_str(out, "hello from env\n", "pipe: the environment is set in the stages");
	is_int(st, 3, "pipe: a stage's exit status comes back");
	free(out);

	out = run(sh1, 1, NULL, "exit 99\n", &st);
	is_int(st, CC_EXIT_INTERNAL, "pipe: a status outside the table is internal");
	free(out);

	out = run(missing, 2, NULL, "x\n", &st);
	is_int(st, CC_EXIT_USAGE, "pipe: a stage that cannot be run is a usage error");
	free(out);

	{	/* cancel: the whole group goes */
		struct cc_pipe p;

		ok(cc_pipe_start(&p, (char *[]){ "sh", NULL }, 1, NULL, err, sizeof err) == 0,
		    "pipe: started a stage to cancel");
		if (write(p.in, "sleep 30\n", 9) < 0)
			printf("# write failed\n");
		close(p.in);
		p.in = -1;
		usleep(100000);
		cc_pipe_kill(&p);
		is_int(cc_pipe_finish(&p), 0, "pipe: a cancelled pipeline is not an error");
	}

	setenv("CC_STAGES", "/a/cc-detect-lang::cc-route:", 1);
	v = cc_stages_find(&n, err, sizeof err);
	ok(v && n == 2 && strcmp(v[0], "/a/cc-detect-lang") == 0 && strcmp(v[1], "cc-route") == 0,
	    "stages: CC_STAGES, empty items dropped");
	is_str(v ? cc_stage_name(v[0]) : NULL, "cc-detect-lang", "stages: the name of a path");
	cc_stages_free(v);
	unsetenv("CC_STAGES");
}

int
main(void)
{
	cc_set_progname("test-front");
	signal(SIGPIPE, SIG_IGN);
	test_term();
	test_pipe();
	free(escaped("", 0, 0));
	return tap_done();
}
