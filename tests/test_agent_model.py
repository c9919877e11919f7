"""OpenAIModel through the real `openai` AsyncOpenAI client against a loopback chat-completions server."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import openai
import pytest
from agent_doubles import FakeSession, LinkClicker, done

from plandvc.agent import Model, OpenAIModel, Planner, Team
from plandvc.agent.schema import RESPONSE_FORMAT


class _Completions(BaseHTTPRequestHandler):
    """Answers POST /v1/chat/completions with the next canned content, keeping each request body."""

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append((self.path, body))
        if self.server.status != 200:
            self.send_response(self.server.status)
            payload = json.dumps({"error": {"message": "overloaded"}}).encode()
        else:
            self.send_response(200)
            content = self.server.replies.pop(0)
            payload = json.dumps(
                {
                    "id": "c1",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body["model"],
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": content},
                        }
                    ],
                }
            ).encode()
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Completions)
    srv.requests, srv.replies, srv.status = [], [], 200
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _client(srv):
    return openai.AsyncOpenAI(
        base_url=f"http://127.0.0.1:{srv.server_address[1]}/v1", api_key="none", max_retries=0, timeout=10
    )


async def test_openai_model_drives_the_planner_with_response_format_passed_through(server):
    server.replies.append(json.dumps(done("All done.")))
    model = OpenAIModel(_client(server), "planner-7b")
    assert isinstance(model, Model) and model.wants_screenshot
    res = await Planner(
        FakeSession(), "Do it.", model, Team(FakeSession(), model=LinkClicker("Orders"))
    ).run()
    assert res.success and res.done_text == "All done."
    ((path, body),) = server.requests
    assert path == "/v1/chat/completions" and body["model"] == "planner-7b"
    assert body["response_format"] == RESPONSE_FORMAT and body["temperature"] == 0
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["messages"][1]["content"][1]["type"] == "image_url"


async def test_openai_model_server_error_propagates(server):
    server.status = 503
    with pytest.raises(openai.APIStatusError):
        await OpenAIModel(_client(server), "m").respond([{"role": "user", "content": "x"}], RESPONSE_FORMAT)
