/*
 * Fuzz target "mcp": request lines through the MCP server's JSON-RPC
 * reader and dispatcher (lib/cc_mcp.c), with a tool that echoes its
 * arguments.  The input is split at newlines into requests on one server,
 * so sequences (initialize, then calls) are reached.
 *
 * Checked: every reply is exactly one line of strict JSON, an object with
 * "jsonrpc": "2.0", an "id" and one of "result" or "error"; a request with
 * an id gets exactly one reply, a notification none.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "cc_json.h"
#include "cc_mcp.h"
#include "fuzz.h"

static enum cc_mcp_call
echo(void *ctx, const char *name, jv args, jv *answer)
{
	(void)ctx;
	if (strcmp(name, "echo") != 0)
		return CC_MCP_NO_TOOL;
	*answer = jv_copy(args);
	return strlen(name) & 1 ? CC_MCP_TOOL_ERROR : CC_MCP_OK;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cc_mcp m;
	struct cc_buf reply = {0};
	struct cc_json_doc doc = {0};
	const char *p = (const char *)data, *end = p + size;
	jv tools = JV_ARRAY(jv_object_set(jv_object(), jv_string("name"), jv_string("echo")),
	    jv_object_set(jv_object(), jv_string("name"), jv_string("other")));

	cc_mcp_init(&m, tools);
	m.page_size = 1;
	m.call = echo;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);

		reply.len = 0;
		cc_mcp_handle(&m, p, len, &reply);
		if (reply.len) {
			const char *first = memchr(reply.data, '\n', reply.len);

			fuzz_assert(first == reply.data + reply.len - 1);
			fuzz_assert(cc_json_scan(&doc, reply.data, reply.len - 1) == 0);
			fuzz_assert(doc.text.data[0] == '{');
			fuzz_assert(cc_json_field(&doc, "id") != NULL);
			fuzz_assert((cc_json_field(&doc, "result") != NULL) !=
			    (cc_json_field(&doc, "error") != NULL));
		}
		p += len + 1;
	}
	cc_buf_release(&reply);
	cc_json_doc_release(&doc);
	cc_mcp_release(&m);
	return 0;
}
