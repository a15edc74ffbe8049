/*
 * The MCP tool "ask": a question through an installed domain's pipeline,
 * run as the concierge driver (`concierge --domain D ask --json`), with an
 * argument vector, a time limit and an output cap (cc_spawn).
 */
#include "config.h"

#include <string.h>

#include "cc_json.h"
#include "cc_spawn.h"
#include "cc_ask.h"

const char cc_ask_description[] = "Ask the concierge: answers a question through "
	"an installed domain's pipeline (a venue's concierge, a homework coach, ...) "
	"and returns the answer text and the whole record.";

const char cc_ask_schema[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"question\":{\"type\":\"string\",\"description\":\"The question, in the visitor's words\"},"
	"\"domain\":{\"type\":\"string\",\"description\":\"The installed domain that answers "
	"by name (concierge domains lists them; default: the server's)\"},"
	"\"session\":{\"type\":\"string\",\"description\":\"A conversation id: questions with "
	"the same id are one conversation\"}},"
	"\"required\":[\"question\"]}";

static jv
tool_error(const char *code, const char *msg)
{
	return jv_object_set(jv_object_set(jv_object(), jv_string("error"), jv_string(code)),
	    jv_string("message"), jv_string(msg));
}

/*
 * A domain or session name passed to the driver: printable, no leading
 * '-'; a domain is an installed one, by name (no '/', not "." or ".."),
 * never a folder the agent picks.
 */
static int
plain(const char *s, size_t max, int is_domain)
{
	size_t n = strlen(s);

	if (!n || n > max || *s == '-' || (is_domain && (strchr(s, '/') || *s == '.')))
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

jv
cc_ask(const char *driver, long timeout_ms, jv args)
{
	jv q = jv_object_get(jv_copy(args), jv_string("question"));
	jv d = jv_object_get(jv_copy(args), jv_string("domain"));
	jv se = jv_object_get(jv_copy(args), jv_string("session"));
	struct cc_buf out = {0}, err = {0};
	struct cc_spawn sp = { .timeout_ms = timeout_ms, .out_cap = 4 << 20,
		.err_cap = 2048 };
	char *argv[12];
	size_t n = 0;
	jv ans, rec = jv_invalid();

	if (jv_get_kind(q) != JV_KIND_STRING || !jv_string_length_bytes(jv_copy(q)) ||
	    jv_string_length_bytes(jv_copy(q)) > 8192 ||
	    (size_t)jv_string_length_bytes(jv_copy(q)) != strlen(jv_string_value(q)) ||
	    (jv_is_valid(d) && jv_get_kind(d) != JV_KIND_NULL &&
	    (jv_get_kind(d) != JV_KIND_STRING || !plain(jv_string_value(d), 256, 1))) ||
	    (jv_is_valid(se) && jv_get_kind(se) != JV_KIND_NULL &&
	    (jv_get_kind(se) != JV_KIND_STRING || !plain(jv_string_value(se), 256, 0)))) {
		ans = tool_error("invalid_arguments", "ask: 'question' must be a non-empty "
		    "string of at most 8192 bytes; 'domain' an installed domain's name and "
		    "'session' a name, each of 1 to 256 printable characters not starting "
		    "with '-'");
		goto done;
	}
	argv[n++] = (char *)driver;
	if (jv_get_kind(d) == JV_KIND_STRING) {
		argv[n++] = "--domain";
		argv[n++] = (char *)jv_string_value(d);
	}
	argv[n++] = "ask";
	argv[n++] = "--json";
	if (jv_get_kind(se) == JV_KIND_STRING) {
		argv[n++] = "--session";
		argv[n++] = (char *)jv_string_value(se);
	}
	argv[n++] = "--";
	argv[n++] = (char *)jv_string_value(q);
	argv[n] = NULL;
	if (cc_spawn_run(&sp, argv, &out, &err) < 0) {
		ans = tool_error("unavailable", "ask: the concierge driver cannot be run");
		goto done;
	}
	if (sp.timed_out || sp.status != 0 || sp.truncated) {
		char *nl;

		while (err.data && (nl = strchr(err.data, '\n')))
			*nl = ' ';
		ans = tool_error(sp.timed_out ? "timeout" : "failed", sp.timed_out ?
		    "ask: the pipeline took longer than the time limit" :
		    err.len ? err.data : "ask: the pipeline failed");
		goto done;
	}
	rec = cc_json_parse(out.data, out.len);
	if (jv_get_kind(rec) != JV_KIND_OBJECT) {
		ans = tool_error("failed", "ask: the pipeline wrote no record");
		goto done;
	}
	{
		jv resp = jv_object_get(jv_copy(rec), jv_string("response"));
		jv text = jv_get_kind(resp) == JV_KIND_OBJECT ?
		    jv_object_get(jv_copy(resp), jv_string("text")) : jv_null();

		jv_free(resp);
		/* "[relaxed]We are open...": the avatar's cue, not the answer */
		if (jv_get_kind(text) == JV_KIND_STRING) {
			const char *t = jv_string_value(text);
			size_t k = 1;

			while (t[0] == '[' && k <= 16 && t[k] >= 'a' && t[k] <= 'z')
				k++;
			if (t[0] == '[' && k > 1 && t[k] == ']') {
				jv cut = jv_string(t + k + 1);

				jv_free(text);
				text = cut;
			}
		}
		if (jv_get_kind(text) != JV_KIND_STRING) {
			jv e = jv_object_get(jv_copy(rec), jv_string("error"));

			jv_free(text);
			text = jv_null();
			if (jv_get_kind(e) == JV_KIND_OBJECT) {
				jv_free(rec);
				ans = jv_object_set(tool_error("failed", "ask: the pipeline "
				    "answered with an error record"), jv_string("record"), e);
				rec = jv_invalid();
				goto done;
			}
			jv_free(e);
		}
		ans = jv_object_set(jv_object(), jv_string("answer"), text);
		ans = jv_object_set(ans, jv_string("domain"), jv_copy(d));
		ans = jv_object_set(ans, jv_string("session"), jv_copy(se));
		ans = jv_object_set(ans, jv_string("record"), rec);
		rec = jv_invalid();
	}
done:
	jv_free(rec);
	jv_free(q);
	jv_free(d);
	jv_free(se);
	cc_buf_release(&out);
	cc_buf_release(&err);
	return ans;
}
