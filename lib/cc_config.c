/* The environment shared by every program: data, domain, state, clock. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_time.h"

#ifndef CC_PKGDATADIR
#error "CC_PKGDATADIR must be defined by the build"
#endif
#ifndef CC_DEFAULT_DOMAIN
#error "CC_DEFAULT_DOMAIN must be defined by configure"
#endif

static const char *
env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);

	return v && *v ? v : fallback;
}

char *
cc_xdg_dir(const char *xdg_var, const char *home_dir)
{
	const char *xdg = getenv(xdg_var), *home = getenv("HOME");
	size_t n;
	char *p;

	if (xdg && *xdg == '/') {
		n = strlen(xdg) + sizeof "/concierge";
		p = cc_xmalloc(n);
		snprintf(p, n, "%s/concierge", xdg);
		return p;
	}
	if (!home || !*home)
		home = ".";
	n = strlen(home) + strlen(home_dir) + sizeof "//concierge";
	p = cc_xmalloc(n);
	snprintf(p, n, "%s/%s/concierge", home, home_dir);
	return p;
}

/*
 * A domain is a name of a folder under the data dir, or a path to a folder
 * of its own (it holds a '/': ./my-domain).  A name must not leave the
 * data dir.
 */
static int
valid_domain(const char *d)
{
	if (!*d || *d == '.')
		return 0;
	for (; *d; d++)
		if (!isalnum((unsigned char)*d) && *d != '-' && *d != '_' &&
		    *d != '.')
			return 0;
	return 1;
}

void
cc_config_load(struct cc_config *cfg)
{
	const char *now = getenv("CC_NOW"), *lock = getenv("CC_LOCK_TIMEOUT");

	cfg->datadir = env_or("CC_DATADIR", CC_PKGDATADIR);
	cfg->domain = env_or("CC_DOMAIN", CC_DEFAULT_DOMAIN);
	cfg->tz = env_or("CC_TZ", "Asia/Tokyo");
	cfg->store = getenv("CC_STORE") && *getenv("CC_STORE") ? getenv("CC_STORE") : NULL;
	if (strchr(cfg->domain, '/')) {
		size_t n = strlen(cfg->domain);

		cfg->domain_dir = cc_xstrdup(cfg->domain);
		while (n > 1 && cfg->domain_dir[n - 1] == '/')
			cfg->domain_dir[--n] = '\0';
		cfg->domain = strrchr(cfg->domain_dir, '/') + 1;
		if (!*cfg->domain)
			cfg->domain = cfg->domain_dir;
	} else if (!valid_domain(cfg->domain)) {
		cc_die(CC_EXIT_USAGE, "invalid CC_DOMAIN '%s': a name of letters, "
		    "digits, '-', '_' and '.', or a path to a folder", cfg->domain);
	} else {
		size_t n = strlen(cfg->datadir) + strlen(cfg->domain) + 2;

		cfg->domain_dir = cc_xmalloc(n);
		snprintf(cfg->domain_dir, n, "%s/%s", cfg->datadir, cfg->domain);
	}
	if (getenv("CC_STATE_DIR") && *getenv("CC_STATE_DIR"))
		cfg->state_dir = cc_xstrdup(getenv("CC_STATE_DIR"));
	else
		cfg->state_dir = cc_xdg_dir("XDG_STATE_HOME", ".local/state");
	cfg->lock_timeout_ms = 10000;
	if (lock && *lock) {
		char *end;
		double sec = strtod(lock, &end);

		if (*end || end == lock || !(sec >= 0 && sec <= 3600))
			cc_die(CC_EXIT_USAGE, "invalid CC_LOCK_TIMEOUT '%s': seconds, "
			    "such as 2.5", lock);
		cfg->lock_timeout_ms = (long)(sec * 1000);
	}
	cfg->now_frozen = now && *now;
	if (!cfg->now_frozen)
		cfg->now = time(NULL);
	else if (cc_time_parse_iso8601(now, &cfg->now) < 0)
		cc_die(CC_EXIT_USAGE, "invalid CC_NOW '%s': expected ISO 8601 "
		    "such as 2025-01-15T10:00:00+09:00", now);
}

char *
cc_config_cache_dir(void)
{
	const char *d = getenv("CC_CACHE_DIR");

	return d && *d ? cc_xstrdup(d) : cc_xdg_dir("XDG_CACHE_HOME", ".cache");
}

void
cc_config_tick(struct cc_config *cfg)
{
	if (!cfg->now_frozen)
		cfg->now = time(NULL);
}

void
cc_config_release(struct cc_config *cfg)
{
	free(cfg->state_dir);
	cfg->state_dir = NULL;
	free(cfg->domain_dir);
	cfg->domain_dir = NULL;
}

char *
cc_config_domain_path(const struct cc_config *cfg, const char *name)
{
	size_t n = strlen(cfg->domain_dir) + strlen(name) + 2;
	char *p = cc_xmalloc(n);

	snprintf(p, n, "%s/%s", cfg->domain_dir, name);
	return p;
}

static int
digits(const char **s, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++, (*s)++) {
		if (!isdigit((unsigned char)**s))
			return -1;
		v = v * 10 + (**s - '0');
	}
	*out = v;
	return 0;
}

int
cc_time_parse_iso8601(const char *s, time_t *t)
{
	int y, mo, d, h, mi, sec = 0, oh = 0, om = 0, sign = 1;
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	if (digits(&s, 4, &y) || *s++ != '-' || digits(&s, 2, &mo) ||
	    *s++ != '-' || digits(&s, 2, &d) || (*s != 'T' && *s != ' '))
		return -1;
	s++;
	if (digits(&s, 2, &h) || *s++ != ':' || digits(&s, 2, &mi))
		return -1;
	if (*s == ':') {
		s++;
		if (digits(&s, 2, &sec))
			return -1;
		if (*s == '.')	/* fractions of a second are ignored */
			for (s++; isdigit((unsigned char)*s); s++)
				;
	}
	if (*s == 'Z') {
		s++;
	} else if (*s == '+' || *s == '-') {
		sign = *s++ == '-' ? -1 : 1;
		if (digits(&s, 2, &oh))
			return -1;
		if (*s == ':')
			s++;
		if (digits(&s, 2, &om))
			return -1;
	} else {
		return -1;	/* a bare local time would depend on TZ */
	}
	if (mo == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400)))
		return -1;
	if (*s || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
	    h > 23 || mi > 59 || sec > 60 || oh > 23 || om > 59)
		return -1;
	*t = (time_t)cc_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 +
	    sec - sign * (oh * 3600 + om * 60);
	return 0;
}
