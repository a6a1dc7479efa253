"""An OpenAI-compatible chat completions server on 127.0.0.1 that plays scenario.py.

    python3 fake_openai.py [--port-file F] [--log F]

Listens on a free port (printed, and written to --port-file), answers
`POST /v1/chat/completions`. Stateless: the run is read from the `[run N]` mark in the
user prompt, the response within the run from the number of assistant messages already
in the conversation, so retries and several clients at once get the same answers.
Each request is logged (run, response, tools offered, tool results received) as a JSON
line to --log, which make.py checks against the script.
"""

import argparse
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import scenario

RUN_RE = re.compile(r"\[run (\d+)\]")
LOG_LOCK = threading.Lock()


def find_run(messages):
    for m in messages:
        if m.get("role") == "user":
            found = RUN_RE.search(json.dumps(m.get("content")))
            if found:
                return int(found.group(1)) - 1
    return None


def offered(body):
    names = []
    for t in body.get("tools") or []:
        fn = t.get("function") or t
        names.append(fn.get("name"))
    return names


def answer(body):
    """The chat completion for a request, and the log entry describing it."""
    messages = body.get("messages") or []
    run = find_run(messages)
    if run is None or not 0 <= run < len(scenario.RUNS):
        raise ValueError("no [run N] mark in the user prompt")
    step = sum(1 for m in messages if m.get("role") == "assistant")
    responses = scenario.RUNS[run][2]
    log = {
        "run": run + 1,
        "response": step + 1,
        "tools": offered(body),
        "tool_results": [m.get("tool_call_id") for m in messages if m.get("role") == "tool"],
    }
    if step < len(responses):
        calls = [{
            "id": scenario.call_id(run, step, k),
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        } for k, (name, args) in enumerate(responses[step])]
        message = {"role": "assistant", "content": None, "tool_calls": calls}
        finish = "tool_calls"
    else:
        message = {"role": "assistant", "content": scenario.final_text(run)}
        finish = "stop"
    completion = {
        "id": f"chatcmpl-r{run + 1}s{step + 1}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model") or scenario.MODEL,
        "system_fingerprint": "fp_fake",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": 50 + 10 * step, "completion_tokens": 12,
                  "total_tokens": 62 + 10 * step},
    }
    return completion, log


def stream_chunks(completion):
    """The same completion as server-sent chat.completion.chunk events."""
    choice = completion["choices"][0]
    msg = choice["message"]
    base = {k: completion[k] for k in ("id", "created", "model", "system_fingerprint")}
    base["object"] = "chat.completion.chunk"
    delta = {"role": "assistant"}
    if msg.get("tool_calls"):
        delta["tool_calls"] = [dict(tc, index=i) for i, tc in enumerate(msg["tool_calls"])]
    else:
        delta["content"] = msg["content"]
    yield dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": None}])
    yield dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}],
               usage=completion["usage"])


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log_path = None

    def log_message(self, fmt, *args):  # quiet: the JSON log says what happened
        pass

    def send(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.rstrip("/").endswith("/models"):
            self.send(200, {"object": "list", "data": [{"id": scenario.MODEL, "object": "model"}]})
        else:
            self.send(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self.send(404, {"error": {"message": f"no route {self.path}; use chat completions"}})
            return
        try:
            body = json.loads(raw)
            completion, log = answer(body)
        except (ValueError, TypeError, AttributeError) as e:
            self.send(400, {"error": {"message": str(e), "type": "invalid_request_error"}})
            return
        if self.log_path:
            with LOG_LOCK, open(self.log_path, "a") as f:
                f.write(json.dumps(log) + "\n")
        if body.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            for chunk in stream_chunks(completion):
                self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            self.wfile.write(b"data: [DONE]\n\n")
            self.close_connection = True
        else:
            self.send(200, completion)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file")
    ap.add_argument("--log")
    args = ap.parse_args()
    Handler.log_path = args.log
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = server.server_address[1]
    if args.port_file:
        with open(args.port_file, "w") as f:
            f.write(str(port))
    print(f"fake OpenAI on http://127.0.0.1:{port}/v1", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
