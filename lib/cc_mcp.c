/*
 * MCP over stdio: framing, JSON-RPC checks, dispatch, version negotiation.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc_util.h"
#include "cc_mcp.h"

const char *const cc_mcp_versions[] = {
	"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25",
};
const size_t cc_mcp_nversions = sizeof cc_mcp_versions / sizeof cc_mcp_versions[0];

void
cc_mcp_init(struct cc_mcp *m, jv tools)
{
	memset(m, 0, sizeof *m);
	m->tools = tools;
	m->page_size = 50;
	m->max_line = 4 << 20;
	m->name = "cc-mcp";
	m->version = PACKAGE_VERSION;
}

void
cc_mcp_release(struct cc_mcp *m)
{
	jv_free(m->tools);
	m->tools = jv_null();
	cc_json_doc_release(&m->doc);
}

/* {"jsonrpc":"2.0","id":ID, then the caller adds "result" or "error". */
static void
head(struct cc_buf *r, const char *id, size_t idlen)
{
	cc_buf_add(r, "{\"jsonrpc\":\"2.0\",\"id\":", 22);
	if (id)
		cc_buf_add(r, id, idlen);
	else
		cc_buf_add(r, "null", 4);
}

static void
reply_error(struct cc_buf *r, const char *id, size_t idlen, int code, const char *msg)
{
	char num[32];

	head(r, id, idlen);
	snprintf(num, sizeof num, "%d", code);
	cc_buf_add(r, ",\"error\":{\"code\":", 17);
	cc_buf_add(r, num, strlen(num));
	cc_buf_add(r, ",\"message\":", 11);
	{
		jv m = jv_string(msg);

		cc_json_put(r, m);
		jv_free(m);
	}
	cc_buf_add(r, "}}\n", 3);
}

/* result consumed. */
static void
reply_result(struct cc_buf *r, const char *id, size_t idlen, jv result)
{
	head(r, id, idlen);
	cc_buf_add(r, ",\"result\":", 10);
	cc_json_put(r, result);
	cc_buf_add(r, "}\n", 2);
	jv_free(result);
}

/* The text of member key of the request, or NULL. */
static const char *
member(struct cc_mcp *m, const char *key, size_t *len)
{
	const struct cc_json_field *f = cc_json_field(&m->doc, key);

	if (!f)
		return NULL;
	*len = f->val_len;
	return m->doc.text.data + f->val_at;
}

static jv
initialize(struct cc_mcp *m, jv params, const char **err)
{
	jv v = jv_object_get(jv_copy(params), jv_string("protocolVersion"));
	const char *agreed = cc_mcp_versions[cc_mcp_nversions - 1];
	jv r, caps;

	if (jv_get_kind(v) != JV_KIND_STRING) {
		jv_free(v);
		*err = "initialize: params.protocolVersion must be a string";
		return jv_invalid();
	}
	for (size_t i = 0; i < cc_mcp_nversions; i++)
		if (strcmp(jv_string_value(v), cc_mcp_versions[i]) == 0)
			agreed = cc_mcp_versions[i];
	jv_free(v);
	snprintf(m->protocol, sizeof m->protocol, "%s", agreed);
	m->initialized = 1;
	caps = jv_object_set(jv_object(), jv_string("tools"),
	    jv_object_set(jv_object(), jv_string("listChanged"), jv_false()));
	r = jv_object_set(jv_object(), jv_string("protocolVersion"), jv_string(agreed));
	r = jv_object_set(r, jv_string("capabilities"), caps);
	r = jv_object_set(r, jv_string("serverInfo"),
	    jv_object_set(jv_object_set(jv_object(), jv_string("name"), jv_string(m->name)),
	    jv_string("version"), jv_string(m->version)));
	if (m->instructions)
		r = jv_object_set(r, jv_string("instructions"), jv_string(m->instructions));
	return r;
}

/* The cursor is the index of the page's first tool, as decimal text. */
static jv
tools_list(struct cc_mcp *m, jv params, const char **err)
{
	jv cur = jv_object_get(jv_copy(params), jv_string("cursor"));
	size_t n = (size_t)jv_array_length(jv_copy(m->tools)), at = 0, end;
	jv r;

	if (jv_get_kind(cur) == JV_KIND_STRING) {
		const char *s = jv_string_value(cur);
		char *e;
		unsigned long v;

		errno = 0;
		v = strtoul(s, &e, 10);
		if (!*s || *e || errno || *s == '-' || *s == '+' || v == 0 || v >= n) {
			jv_free(cur);
			*err = "tools/list: invalid cursor";
			return jv_invalid();
		}
		at = v;
	} else if (jv_is_valid(cur) && jv_get_kind(cur) != JV_KIND_NULL) {
		jv_free(cur);
		*err = "tools/list: params.cursor must be a string";
		return jv_invalid();
	}
	jv_free(cur);
	end = m->page_size && n - at > m->page_size ? at + m->page_size : n;
	r = jv_object_set(jv_object(), jv_string("tools"),
	    jv_array_slice(jv_copy(m->tools), (int)at, (int)end));
	if (end < n) {
		char c[32];

		snprintf(c, sizeof c, "%zu", end);
		r = jv_object_set(r, jv_string("nextCursor"), jv_string(c));
	}
	return r;
}

static jv
tools_call(struct cc_mcp *m, jv params, const char **err, int *code)
{
	jv name = jv_object_get(jv_copy(params), jv_string("name"));
	jv args = jv_object_get(jv_copy(params), jv_string("arguments"));
	jv answer = jv_null(), r, text;
	enum cc_mcp_call how;
	struct cc_buf b = {0};

	*code = CC_MCP_INVALID_PARAMS;
	if (jv_get_kind(name) != JV_KIND_STRING || !jv_string_length_bytes(jv_copy(name)) ||
	    (size_t)jv_string_length_bytes(jv_copy(name)) != strlen(jv_string_value(name))) {
		*err = "tools/call: params.name must be a tool's name";
		goto bad;
	}
	if (!jv_is_valid(args) || jv_get_kind(args) == JV_KIND_NULL) {
		jv_free(args);
		args = jv_object();
	} else if (jv_get_kind(args) == JV_KIND_STRING) {
		/* some clients send the arguments as a JSON text */
		jv t = cc_json_parse(jv_string_value(args),
		    (size_t)jv_string_length_bytes(jv_copy(args)));

		jv_free(args);
		args = t;
	}
	if (jv_get_kind(args) != JV_KIND_OBJECT) {
		*err = "tools/call: params.arguments must be an object (or the JSON text of one)";
		goto bad;
	}
	how = m->call(m->ctx, jv_string_value(name), args, &answer);
	if (how == CC_MCP_NO_TOOL) {
		jv_free(answer);
		*err = "Unknown tool";
		goto bad;
	}
	if (jv_get_kind(answer) == JV_KIND_STRING) {
		text = jv_copy(answer);
	} else {
		cc_json_put(&b, answer);
		text = jv_string_sized(b.data ? b.data : "", (int)b.len);
		cc_buf_release(&b);
	}
	jv_free(answer);
	r = jv_object_set(jv_object(), jv_string("content"), JV_ARRAY(
	    jv_object_set(jv_object_set(jv_object(), jv_string("type"), jv_string("text")),
	    jv_string("text"), text)));
	r = jv_object_set(r, jv_string("isError"), jv_bool(how == CC_MCP_TOOL_ERROR));
	jv_free(name);
	jv_free(args);
	return r;
bad:
	jv_free(name);
	jv_free(args);
	return jv_invalid();
}

void
cc_mcp_handle(struct cc_mcp *m, const char *line, size_t len, struct cc_buf *reply)
{
	const char *id, *ver, *meth, *par, *err = NULL;
	size_t idlen = 0, verlen = 0, methlen = 0, parlen = 0;
	char method[64];
	int code = CC_MCP_INVALID_PARAMS;
	jv params, result;

	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	while (len && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	if (!len)
		return;
	if (cc_json_scan(&m->doc, line, len) < 0) {
		reply_error(reply, NULL, 0, CC_MCP_PARSE_ERROR, "Parse error: not JSON");
		return;
	}
	if (m->doc.text.data[0] != '{') {
		reply_error(reply, NULL, 0, CC_MCP_INVALID_REQUEST, m->doc.text.data[0] == '[' ?
		    "Invalid Request: batches are not supported" :
		    "Invalid Request: expected an object");
		return;
	}
	id = member(m, "id", &idlen);
	if (id && (*id == '{' || *id == '[' || *id == 't' || *id == 'f')) {
		reply_error(reply, id, idlen, CC_MCP_INVALID_REQUEST,
		    "Invalid Request: id must be a string, a number or null");
		return;
	}
	ver = member(m, "jsonrpc", &verlen);
	meth = member(m, "method", &methlen);
	if (!meth && (cc_json_field(&m->doc, "result") || cc_json_field(&m->doc, "error")))
		return;	/* a response: this server sends no requests */
	if (!ver || verlen != 5 || memcmp(ver, "\"2.0\"", 5) != 0 || !meth || *meth != '"') {
		if (id || !meth)
			reply_error(reply, id, idlen, CC_MCP_INVALID_REQUEST, "Invalid Request: "
			    "expected {\"jsonrpc\": \"2.0\", \"method\": string, ...}");
		return;
	}
	/* method names worth knowing are short and unescaped */
	if (methlen - 2 >= sizeof method || memchr(meth + 1, '\\', methlen - 2)) {
		method[0] = '\0';
	} else {
		memcpy(method, meth + 1, methlen - 2);
		method[methlen - 2] = '\0';
	}
	if (!id) {	/* a notification: never answered */
		if (strcmp(method, "notifications/initialized") == 0 && m->protocol[0])
			m->initialized = 2;
		return;
	}
	par = member(m, "params", &parlen);
	if (par && *par != '{' && *par != '[' && strncmp(par, "null", 4) != 0) {
		reply_error(reply, id, idlen, CC_MCP_INVALID_REQUEST,
		    "Invalid Request: params must be an object");
		return;
	}
	params = par && *par == '{' ? cc_json_to_jv(par, parlen) : jv_object();
	if (par && *par == '[') {
		jv_free(params);
		reply_error(reply, id, idlen, CC_MCP_INVALID_PARAMS,
		    "Invalid params: expected an object");
		return;
	}
	if (strcmp(method, "ping") == 0) {
		result = jv_object();
	} else if (strcmp(method, "initialize") == 0) {
		if (m->initialized) {
			jv_free(params);
			reply_error(reply, id, idlen, CC_MCP_INVALID_REQUEST,
			    "Invalid Request: already initialized");
			return;
		}
		result = initialize(m, params, &err);
	} else if (!m->initialized) {
		jv_free(params);
		reply_error(reply, id, idlen, CC_MCP_INVALID_REQUEST,
		    "Invalid Request: the server is not initialized (send initialize first)");
		return;
	} else if (strcmp(method, "tools/list") == 0) {
		result = tools_list(m, params, &err);
	} else if (strcmp(method, "tools/call") == 0) {
		result = tools_call(m, params, &err, &code);
	} else {
		jv_free(params);
		reply_error(reply, id, idlen, CC_MCP_METHOD_NOT_FOUND, "Method not found");
		return;
	}
	jv_free(params);
	if (!jv_is_valid(result)) {
		jv_free(result);
		reply_error(reply, id, idlen, code, err ? err : "Invalid params");
		return;
	}
	reply_result(reply, id, idlen, result);
}

static int
write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int
cc_mcp_serve(struct cc_mcp *m, int in, int out)
{
	struct cc_buf line = {0}, reply = {0};
	char chunk[65536];
	int skipping = 0, rc = 0;
	ssize_t n;

	for (;;) {
		n = read(in, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (char *p = chunk, *end = chunk + n; p < end;) {
			char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t take = (size_t)((nl ? nl : end) - p);

			if (!skipping && line.len + take > m->max_line) {
				skipping = 1;
				line.len = 0;
			}
			if (!skipping)
				cc_buf_add(&line, p, take);
			p += take;
			if (!nl)
				break;
			p++;
			reply.len = 0;
			if (skipping) {
				char msg[96];

				snprintf(msg, sizeof msg, "Invalid Request: a line longer than "
				    "%zu bytes", m->max_line);
				reply_error(&reply, NULL, 0, CC_MCP_INVALID_REQUEST, msg);
				skipping = 0;
			} else {
				cc_mcp_handle(m, line.data ? line.data : "", line.len, &reply);
			}
			line.len = 0;
			if (reply.len && write_all(out, reply.data, reply.len) < 0) {
				rc = -1;
				goto done;
			}
		}
	}
	/* a last request without its newline */
	reply.len = 0;
	if (skipping)
		reply_error(&reply, NULL, 0, CC_MCP_INVALID_REQUEST,
		    "Invalid Request: a line longer than the limit");
	else if (line.len)
		cc_mcp_handle(m, line.data, line.len, &reply);
	if (reply.len && write_all(out, reply.data, reply.len) < 0)
		rc = -1;
done:
	cc_buf_release(&line);
	cc_buf_release(&reply);
	return rc;
}
