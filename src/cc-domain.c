/*
 * cc-domain: list the installed domains, check a domain's folder, show its
 * manifest (cc-domain(5)).  `concierge domains` and `concierge check` are
 * this program.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_rules.h"
#include "cc_kb.h"
#include "cc_texts.h"
#include "cc_event.h"
#include "cc_domain.h"
#include "cc_examples.h"

static const char usage_text[] =
	"usage: cc-domain list\n"
	"       cc-domain check [DOMAIN|DIR]...\n"
	"       cc-domain show [DOMAIN|DIR]\n"
	"Domains are folders under the data directory ($CC_DATADIR), or any\n"
	"folder given by its path; each has a manifest, `domain' (cc-domain(5)).\n"
	"  list    the installed domains and their descriptions (* in use)\n"
	"  check   check each domain's manifest, routing rules, response texts,\n"
	"          knowledge base and calendars (default: the domain in use);\n"
	"          every problem is printed as FILE:LINE: WHY; exit 3 if any\n"
	"  show    the manifest as JSON\n"
	"  -D, --domain D   the domain in use (default $CC_DOMAIN)\n"
	"  -h, --help       show this help\n"
	"  -V, --version    show the version\n";

/* Texts each way of answering says (cc_answer.c), by answer kind. */
static const char *const texts_kb[] = { "found", "found.list", "not_found", NULL };
static const char *const texts_events[] = {
	"events.found", "events.item", "events.more", "events.no_description",
	"events.none", "events.regular", "events.kb", "range.other", "datetime",
	"time", "weekdays", "months", "ampm", NULL,
};
static const char *const texts_search[] = {
	"general.kb", "general.kb_web", "general.web", "general.web_item",
	"general.none", NULL,
};
static const char *const texts_memory[] = {
	"memory.list", "memory.none", "memory.turn", "memory.answer", NULL,
};
static const char *const texts_clarify[] = { "clarify", NULL };
static const char *const texts_time[] = {
	"time.now", "weekdays", "weekdays_long", "months", "ampm", NULL,
};
static const char *const texts_tool[] = { "not_found", NULL };
static const char *const *const texts_for[] = {
	[CC_ANSWER_KB] = texts_kb, [CC_ANSWER_EVENTS] = texts_events,
	[CC_ANSWER_SEARCH] = texts_search, [CC_ANSWER_MEMORY] = texts_memory,
	[CC_ANSWER_CLARIFY] = texts_clarify, [CC_ANSWER_TIME] = texts_time,
	[CC_ANSWER_TOOL] = texts_tool,
};

static void
print_problem(void *ctx, const char *message)
{
	(void)ctx;
	printf("%s\n", message);
}

/* Where a stage program is: beside this one, else in PATH; 1 if found. */
static int
stage_installed(const char *name)
{
	char self[PATH_MAX], *slash, *path, *dir, *save = NULL;
	ssize_t k = readlink("/proc/self/exe", self, sizeof self - 64);
	int found = 0;

	if (k > 0) {
		self[k] = '\0';
		if ((slash = strrchr(self, '/'))) {
			snprintf(slash + 1, sizeof self - (size_t)(slash + 1 - self), "%s", name);
			if (access(self, X_OK) == 0)
				return 1;
		}
	}
	path = cc_xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	for (dir = strtok_r(path, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char p[PATH_MAX];

		snprintf(p, sizeof p, "%s/%s", *dir ? dir : ".", name);
		found = access(p, X_OK) == 0;
	}
	free(path);
	return found;
}

struct agent_check {
	const struct cc_domain *d;
	const char *rules;
	struct cc_problems *p;
};

static void
rules_agent(void *ctx, const char *value, int line)
{
	struct agent_check *c = ctx;

	for (size_t i = 0; i < c->d->nagents; i++)
		if (strcmp(c->d->agents[i].name, value) == 0)
			return;
	if (line)
		cc_problem(c->p, "%s:%d: agent '%s' is not in the manifest", c->rules,
		    line, value);
	else
		cc_problem(c->p, "%s: context-skip names agent '%s', which is not in "
		    "the manifest", c->rules, value);
}

static void
check_rules(const struct cc_config *cfg, const struct cc_domain *d, struct cc_problems *p)
{
	char *path = cc_config_domain_path(cfg, "routing.rules");
	struct cc_rules *r = cc_rules_check(path, p);
	struct agent_check c = { d, path, p };

	if (r) {
		cc_rules_each_value(r, "agent", rules_agent, &c);
		cc_rules_free(r);
	}
	free(path);
}

/* Every text the domain's ways of answering need, in every language it speaks. */
static void
check_texts(const struct cc_config *cfg, const struct cc_domain *d, struct cc_problems *p)
{
	char *path = cc_config_domain_path(cfg, "responses");
	struct cc_texts *t = cc_texts_read(path, p);
	const char *langs[8];
	size_t nlangs = 0;
	unsigned used = 0;

	if (!t) {
		free(path);
		return;
	}
	for (size_t i = 0; i < cc_texts_count(t); i++) {
		const char *lang, *seen = NULL;

		cc_texts_entry(t, i, &lang, NULL);
		for (size_t k = 0; k < nlangs && !seen; k++)
			seen = strcmp(langs[k], lang) == 0 ? lang : NULL;
		if (!seen && strcmp(lang, "*") != 0 && nlangs < 8)
			langs[nlangs++] = lang;
	}
	for (size_t i = 0; i < d->nagents; i++)
		used |= 1u << d->agents[i].answer;
	for (int kind = 0; kind <= CC_ANSWER_TOOL; kind++) {
		if (!(used >> kind & 1))
			continue;
		for (const char *const *k = texts_for[kind]; *k; k++) {
			if (!cc_texts_has(t, *k, NULL) && !cc_texts_has(t, *k, "*")) {
				cc_problem(p, "%s: no text '%s' (the answer '%s' says it)", path,
				    *k, cc_answer_kind_name((enum cc_answer_kind)kind));
				continue;
			}
			for (size_t l = 0; l < nlangs; l++)
				if (!cc_texts_has(t, *k, langs[l]) && !cc_texts_has(t, *k, "*"))
					cc_problem(p, "%s: text '%s' has no '%s' version", path,
					    *k, langs[l]);
		}
	}
	cc_texts_free(t);
	free(path);
}

static int
is_md(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && strcmp(name + n - 3, ".md") == 0 && name[0] != '.';
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
check_kb(const struct cc_config *cfg, struct cc_problems *p)
{
	char *dir = cc_config_domain_path(cfg, "kb");
	DIR *dp = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, passages = 0;

	if (!dp) {
		cc_problem(p, "%s: cannot read the knowledge base: %s", dir, strerror(errno));
		free(dir);
		return;
	}
	while ((e = readdir(dp)))
		if (is_md(e->d_name)) {
			names = cc_xrealloc(names, (n + 1) * sizeof *names);
			names[n++] = cc_xstrdup(e->d_name);
		}
	closedir(dp);
	qsort(names, n, sizeof *names, cmp_str);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(dir) + strlen(names[i]) + 2;
		char *path = cc_xmalloc(len);
		struct cc_kbdoc_file f = { .report = p };

		snprintf(path, len, "%s/%s", dir, names[i]);
		cc_kbdoc_load(&f, path);
		passages += f.n;
		cc_kbdoc_file_release(&f);
		free(path);
		free(names[i]);
	}
	if (!passages)
		cc_problem(p, "%s: no passages (the knowledge base is *.md files; see cc-kb(5))",
		    dir);
	free(names);
	free(dir);
}

/* Check one domain; returns the number of problems. */
static unsigned
check(const char *domain)
{
	struct cc_config cfg;
	struct cc_problems p = { print_problem, NULL, 0 };
	struct cc_domain *d;
	char *path;

	if (domain && setenv("CC_DOMAIN", domain, 1) < 0)
		cc_die(CC_EXIT_INTERNAL, "setenv: %s", strerror(errno));
	cc_config_load(&cfg);
	path = cc_config_domain_path(&cfg, CC_DOMAIN_FILE);
	d = cc_domain_parse(path, &p);
	if (d) {
		if (d->name && strcmp(d->name, cfg.domain) != 0)
			cc_problem(&p, "%s: name '%s' is not the folder's name '%s'", path,
			    d->name, cfg.domain);
		for (size_t i = 0; i < d->nstages; i++)
			if (!stage_installed(d->pipeline[i]))
				cc_problem(&p, "%s: pipeline: '%s' is neither installed nor "
				    "beside cc-domain", path, d->pipeline[i]);
		if (cc_domain_runs(d, "cc-route"))
			check_rules(&cfg, d, &p);
		if (d->examples) {	/* each row's question and route */
			struct cc_examples ex;

			cc_examples_read(&cfg, d, NULL, &ex, &p);
			cc_examples_release(&ex);
		}
		if (cc_domain_runs(d, "cc-respond"))
			check_texts(&cfg, d, &p);
		if (cc_domain_runs(d, "cc-rag"))
			check_kb(&cfg, &p);
		if (cc_domain_runs(d, "cc-event"))
			cc_event_check(&cfg, &p);
	}
	if (p.n)
		printf("%s: %u problem%s\n", cfg.domain, p.n, p.n == 1 ? "" : "s");
	else
		printf("%s: ok (%zu agents; %s)\n", cfg.domain, d->nagents, d->description);
	cc_domain_free(d);
	free(path);
	cc_config_release(&cfg);
	return p.n;
}

static void
ignore_problem(void *ctx, const char *message)
{
	(void)ctx;
	(void)message;
}

static int
list(void)
{
	struct cc_config cfg;
	DIR *dp;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;

	cc_config_load(&cfg);
	if (!(dp = opendir(cfg.datadir)))
		cc_die(CC_EXIT_USAGE, "cannot read the data directory '%s': %s",
		    cfg.datadir, strerror(errno));
	while ((e = readdir(dp))) {
		size_t len = strlen(cfg.datadir) + strlen(e->d_name) + sizeof CC_DOMAIN_FILE + 2;
		char *m = cc_xmalloc(len);
		struct stat st;

		snprintf(m, len, "%s/%s/%s", cfg.datadir, e->d_name, CC_DOMAIN_FILE);
		if (e->d_name[0] != '.' && stat(m, &st) == 0 && S_ISREG(st.st_mode)) {
			names = cc_xrealloc(names, (n + 1) * sizeof *names);
			names[n++] = m;
		} else {
			free(m);
		}
	}
	closedir(dp);
	qsort(names, n, sizeof *names, cmp_str);
	for (size_t i = 0; i < n; i++) {
		struct cc_problems p = { ignore_problem, NULL, 0 };
		struct cc_domain *d = cc_domain_parse(names[i], &p);
		char *folder = names[i] + strlen(cfg.datadir) + 1;

		folder[strcspn(folder, "/")] = '\0';
		printf("%c %-18s %s%s\n", strcmp(folder, cfg.domain) == 0 ? '*' : ' ', folder,
		    d && d->description ? d->description : "",
		    p.n ? " (has problems: concierge check shows them)" : "");
		cc_domain_free(d);
		free(names[i]);
	}
	free(names);
	if (!n)
		printf("no domains under '%s'\n", cfg.datadir);
	cc_config_release(&cfg);
	return n ? CC_EXIT_OK : CC_EXIT_NEGATIVE;
}

static int
show(const char *domain)
{
	struct cc_config cfg;
	struct cc_domain *d;
	struct cc_buf b = {0};
	struct cc_jw w;

	if (domain && setenv("CC_DOMAIN", domain, 1) < 0)
		cc_die(CC_EXIT_INTERNAL, "setenv: %s", strerror(errno));
	cc_config_load(&cfg);
	d = cc_domain_load(&cfg);
	cc_jw_init(&w, &b);
	cc_jw_object(&w);
	cc_jw_key(&w, "name");
	cc_jw_cstr(&w, d->name);
	cc_jw_key(&w, "description");
	cc_jw_cstr(&w, d->description);
	cc_jw_key(&w, "folder");
	cc_jw_cstr(&w, cfg.domain_dir);
	cc_jw_key(&w, "pipeline");
	cc_jw_array(&w);
	for (size_t i = 0; i < d->nstages; i++)
		cc_jw_cstr(&w, d->pipeline[i]);
	cc_jw_end(&w);
	cc_jw_key(&w, "agents");
	cc_jw_array(&w);
	for (size_t i = 0; i < d->nagents; i++) {
		const struct cc_domain_agent *a = &d->agents[i];

		cc_jw_object(&w);
		cc_jw_key(&w, "name");
		cc_jw_cstr(&w, a->name);
		cc_jw_key(&w, "answer");
		cc_jw_cstr(&w, cc_answer_kind_name(a->answer));
		if (a->tool) {
			cc_jw_key(&w, "tool");
			cc_jw_cstr(&w, a->tool);
		}
		cc_jw_key(&w, "stages");
		cc_jw_array(&w);
		for (size_t s = 0; s < d->nstages; s++)
			if (a->stages >> s & 1)
				cc_jw_cstr(&w, d->pipeline[s]);
		cc_jw_end(&w);
		cc_jw_end(&w);
	}
	cc_jw_end(&w);
	cc_jw_key(&w, "fallback");
	cc_jw_object(&w);
	cc_jw_key(&w, "agent");
	cc_jw_cstr(&w, d->fallback->name);
	cc_jw_key(&w, "category");
	cc_jw_cstr(&w, d->fallback_category);
	cc_jw_end(&w);
	cc_jw_key(&w, "eval");
	cc_jw_object(&w);
	cc_jw_key(&w, "query");
	cc_jw_cstr(&w, d->eval_query ? d->eval_query : "query");
	cc_jw_key(&w, "alternatives");
	cc_jw_cstr(&w, d->eval_alternatives);
	cc_jw_key(&w, "labels");
	cc_jw_array(&w);
	for (size_t i = 0; i < d->nlabels; i++) {
		cc_jw_object(&w);
		cc_jw_key(&w, "name");
		cc_jw_cstr(&w, d->labels[i].name);
		cc_jw_key(&w, "path");
		cc_jw_cstr(&w, d->labels[i].path);
		cc_jw_key(&w, "alt");
		cc_jw_cstr(&w, d->labels[i].alt);
		cc_jw_end(&w);
	}
	cc_jw_end(&w);
	cc_jw_key(&w, "aliases");
	cc_jw_array(&w);
	for (size_t i = 0; i < d->naliases; i++) {
		if (d->aliases[i].one_way)
			continue;
		cc_jw_object(&w);
		cc_jw_key(&w, "label");
		cc_jw_cstr(&w, d->aliases[i].label);
		cc_jw_key(&w, "from");
		cc_jw_raw(&w, d->aliases[i].from, strlen(d->aliases[i].from));
		cc_jw_key(&w, "to");
		cc_jw_raw(&w, d->aliases[i].to, strlen(d->aliases[i].to));
		cc_jw_end(&w);
	}
	cc_jw_end(&w);
	cc_jw_key(&w, "accepts");
	cc_jw_array(&w);
	for (size_t i = 0; i < d->naliases; i++) {
		if (!d->aliases[i].one_way)
			continue;
		cc_jw_object(&w);
		cc_jw_key(&w, "label");
		cc_jw_cstr(&w, d->aliases[i].label);
		cc_jw_key(&w, "expected");
		cc_jw_raw(&w, d->aliases[i].from, strlen(d->aliases[i].from));
		cc_jw_key(&w, "also");
		cc_jw_raw(&w, d->aliases[i].to, strlen(d->aliases[i].to));
		cc_jw_end(&w);
	}
	cc_jw_end(&w);
	cc_jw_end(&w);
	cc_jw_end(&w);
	printf("%s\n", b.data);
	cc_buf_release(&b);
	cc_domain_free(d);
	cc_config_release(&cfg);
	return CC_EXIT_OK;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		CC_COMMON_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	const char *cmd;
	int c, status = CC_EXIT_OK;

	cc_set_progname(argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+" CC_COMMON_SHORTOPTS, opts, NULL)) != -1)
		if (!cc_option_common(c, argv, usage_text, NULL))
			cc_die(CC_EXIT_INTERNAL, "unhandled option -%c", c);
	if (optind == argc) {
		fputs(usage_text, stderr);
		return CC_EXIT_USAGE;
	}
	cmd = argv[optind++];
	if (strcmp(cmd, "list") == 0 && optind == argc) {
		status = list();
	} else if (strcmp(cmd, "check") == 0) {
		unsigned problems = 0;

		if (optind == argc)
			problems = check(NULL);
		for (int i = optind; i < argc; i++)
			problems += check(argv[i]);
		status = problems ? CC_EXIT_DATA : CC_EXIT_OK;
	} else if (strcmp(cmd, "show") == 0 && argc - optind <= 1) {
		status = show(optind < argc ? argv[optind] : NULL);
	} else {
		cc_warn("unknown command or arguments: '%s'", cmd);
		fputs(usage_text, stderr);
		return CC_EXIT_USAGE;
	}
	if (fflush(stdout) == EOF || ferror(stdout)) {
		cc_warn("cannot write output: %s", strerror(errno));
		status = CC_EXIT_INTERNAL;
	}
	return status;
}
