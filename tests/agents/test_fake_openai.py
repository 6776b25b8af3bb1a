"""The fake server other tests and benchmarks rely on: it records and replays faithfully."""

from __future__ import annotations

import httpx

from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall, usage


def test_records_requests_and_serves_in_order() -> None:
    with FakeOpenAIServer() as srv:
        srv.enqueue(FakeReply(text=["one"]), FakeReply(status=429, error_body="slow down"))
        srv.responder = lambda req: FakeReply(text=[req.json["messages"][0]["content"].upper()])
        with httpx.Client() as c:
            url = srv.url + "/v1/chat/completions"
            first = c.post(url, json={"messages": [{"role": "user", "content": "a"}]})
            second = c.post(url, json={"n": 2}, headers={"X-Test": "yes"})
            third = c.post(url, json={"messages": [{"role": "user", "content": "echo"}]})
            assert c.get(srv.url + "/health").json() == {"status": "ok"}
            assert c.get(srv.url + "/v1/models").json()["data"][0]["id"] == "fake-model"
            assert c.get(srv.url + "/nope").status_code == 404
        assert '"content":"one"' in first.text and first.text.endswith("data: [DONE]\n\n")
        assert second.status_code == 429 and second.text == "slow down"
        assert '"content":"ECHO"' in third.text
        posts = srv.chat_requests
        assert [p.json for p in posts][1] == {"n": 2}
        assert posts[1].headers["x-test"] == "yes"
        assert len(srv.requests) == 6


def test_reply_wire_order_and_tool_call_fragments() -> None:
    reply = FakeReply(
        reasoning=["r"],
        text=["t"],
        tool_calls=[FakeToolCall("grep", '{"pattern": "x"}', id="c9", fragments=3)],
        usage=usage(10, 2, cached=4),
    )
    lines = [e.decode() for e in reply.events()]
    assert '"reasoning_content":"r"' in lines[1] and '"content":"t"' in lines[2]
    frags = lines[3:6]
    assert '"id":"c9"' in frags[0] and all('"index":0' in f for f in frags)
    assert '"finish_reason":"tool_calls"' in lines[6]
    assert '"cached_tokens":4' in lines[7] and '"choices":[]' in lines[7]
    assert lines[8] == "data: [DONE]\n\n"


def test_cut_reply_has_no_terminator() -> None:
    events = FakeReply(text=["a"] * 5, cut_after=3).events()
    assert len(events) == 3 and b"[DONE]" not in b"".join(events)
