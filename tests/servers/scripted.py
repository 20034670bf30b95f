"""A hand-written, SDK-free MCP server for tests that need a hostile or old-fashioned peer.

Run as ``python scripted.py SPEC.json``. It speaks only the legacy (initialize) era over stdio
and does what the spec says, re-reading the spec at every start:

    pages            list of pages of tool definitions, sent verbatim by tools/list
    cursors          cursor returned after page i (one fewer than pages); "" is a real cursor
    loop_cursor      when true, the last page hands back the first cursor again
    raw_list_result  when set, tools/list answers exactly this (malformed on purpose)
    raw_call_result  when set, tools/call answers exactly this
    raw_call_line    when set, tools/call is answered by this line verbatim ("{id}" becomes
                     the request id), like raw_list_line
    raw_list_line    when set, tools/list is answered by this line verbatim ("{id}" becomes
                     the request id): any bytes at all, for fuzzing
    log              file that gets one JSON line per request received
    list_delay_s     seconds to wait before answering each tools/list (a slow listing)
    initialize_delay_s  seconds to wait before answering initialize (a slow start)
    answer_unknown   when false (default), unknown methods get no answer at all, like a
                     legacy server that ignores ``server/discover``
    echo_env         the name of an environment variable whose value every tools/call result,
                     JSON-RPC error and stderr line repeats (a server that leaks its token);
                     with ``echo_as`` = "result" (default), "is_error" or "rpc_error";
                     with ``fail_initialize`` the handshake itself fails with that text
    echo_meta        when true, tools/call answers with the ``traceparent`` its request carried
                     in ``params._meta`` ("traceparent=..." or "traceparent=none")
    whoami_env       the name of an environment variable: every tools/call answers with JSON
                     {"pid", "sha256" (of the variable's value), "value"} (whose process is
                     this, and whose credential does it hold)
    definition_env   the name of an environment variable whose value replaces every
                     ``{secret}`` in the tool pages (a server that writes its token into its
                     own tool definitions)
    fail_first_calls with ``call_count_file``: the first N tools/call requests, counted in that
                     file across restarts, fail: the process exits (``fail_as`` = "exit",
                     the default) or never answers ("hang")
"""

import hashlib
import json
import os
import sys
import time


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as spec_file:
        spec = json.load(spec_file)
    pages = spec.get("pages", [[]])
    if "definition_env" in spec:
        value = json.dumps(os.environ.get(spec["definition_env"], ""))[1:-1]
        pages = json.loads(json.dumps(pages).replace("{secret}", value))
    cursors = spec.get("cursors", [])
    log_path = spec.get("log")

    def log(message: dict) -> None:
        if log_path:
            with open(log_path, "a", encoding="utf-8") as log_file:
                log_file.write(json.dumps(message) + "\n")

    def reply(request_id, result=None, error=None) -> None:
        body = {"jsonrpc": "2.0", "id": request_id}
        body.update({"error": error} if error is not None else {"result": result})
        sys.stdout.write(json.dumps(body) + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        method = message.get("method")
        if "id" not in message:
            continue  # a notification
        log({"method": method, "params": message.get("params")})
        request_id = message["id"]
        params = message.get("params") or {}
        if method == "initialize" and spec.get("fail_initialize"):
            leaked = f"cannot start with token {os.environ.get(spec.get('echo_env', ''), '')}"
            reply(request_id, error={"code": -32603, "message": leaked})
        elif method == "initialize":
            time.sleep(spec.get("initialize_delay_s", 0))
            reply(
                request_id,
                {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "scripted", "version": "1"},
                },
            )
        elif method == "tools/list":
            time.sleep(spec.get("list_delay_s", 0))
            if "raw_list_line" in spec:
                sys.stdout.write(spec["raw_list_line"].replace("{id}", json.dumps(request_id)) + "\n")
                sys.stdout.flush()
                continue
            if "raw_list_result" in spec:
                reply(request_id, spec["raw_list_result"])
                continue
            cursor = params.get("cursor")
            index = 0 if cursor is None else cursors.index(cursor) + 1
            result = {"tools": pages[index]}
            if index < len(cursors):
                result["nextCursor"] = cursors[index]
            elif spec.get("loop_cursor") and cursors:
                result["nextCursor"] = cursors[0]
            reply(request_id, result)
        elif (
            method == "tools/call"
            and "call_count_file" in spec
            and _counted(spec) <= spec.get("fail_first_calls", 0)
        ):
            if spec.get("fail_as", "exit") == "exit":
                os._exit(3)
            while True:
                time.sleep(3600)
        elif method == "tools/call" and "echo_env" in spec:
            leaked = f"upstream says: your token is {os.environ.get(spec['echo_env'], '')}"
            sys.stderr.write(leaked + "\n")
            kind = spec.get("echo_as", "result")
            if kind == "rpc_error":
                reply(request_id, error={"code": -32603, "message": leaked})
            else:
                reply(
                    request_id, {"content": [{"type": "text", "text": leaked}], "isError": kind == "is_error"}
                )
        elif method == "tools/call" and "whoami_env" in spec:
            value = os.environ.get(spec["whoami_env"], "")
            digest = hashlib.sha256(value.encode()).hexdigest()
            text = json.dumps({"pid": os.getpid(), "sha256": digest, "value": value})
            reply(request_id, {"content": [{"type": "text", "text": text}]})
        elif method == "tools/call" and spec.get("echo_meta"):
            parent = (params.get("_meta") or {}).get("traceparent") or "none"
            reply(request_id, {"content": [{"type": "text", "text": f"traceparent={parent}"}]})
        elif method == "tools/call":
            if "raw_call_line" in spec:
                sys.stdout.write(spec["raw_call_line"].replace("{id}", json.dumps(request_id)) + "\n")
                sys.stdout.flush()
            elif "raw_call_result" in spec:
                reply(request_id, spec["raw_call_result"])
            else:
                text = json.dumps(params.get("arguments"), sort_keys=True)
                reply(request_id, {"content": [{"type": "text", "text": text}]})
        elif method == "ping":
            reply(request_id, {})
        elif spec.get("answer_unknown"):
            reply(request_id, error={"code": -32601, "message": "Method not found"})


def _counted(spec: dict) -> int:
    """One more tools/call in the spec's count file; the count including this one."""
    path = spec["call_count_file"]
    try:
        with open(path, encoding="utf-8") as count_file:
            count = int(count_file.read() or 0) + 1
    except FileNotFoundError:
        count = 1
    with open(path, "w", encoding="utf-8") as count_file:
        count_file.write(str(count))
    return count


if __name__ == "__main__":
    main()
