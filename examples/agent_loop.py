#!/usr/bin/env python3
"""An agent loop in Python over a bashkit sandbox, driven by recorded chat-completions responses (offline).

A real agent sends the conversation and the tools' JSON Schemas to a model's chat-completions endpoint, runs
every tool call of the answer in the sandbox (the arguments arrive as JSON text), appends one "tool" message
per call with the JSON result, and asks again, until the model answers without tool calls. Here the
endpoint is RecordedModel, which replays examples/data/agent_chat.json and checks what a real API checks:
that every tool call of its previous answer got exactly one tool message back. Swap it for a client
(`client.chat.completions.create(model=..., messages=messages, tools=tools)`) and the loop is unchanged.

    PYTHONPATH=build/release/python python3 examples/agent_loop.py     # exit status 0 when all went as expected

ctest runs it as example_agent_loop_py (examples/CMakeLists.txt).
"""
import json
import os
import sys

import bashkit

RECORDING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "agent_chat.json")

GREET = '#!/bin/bash\nname=${1:-world}\necho "hello, $name"\n'


class RecordedModel:
    """Stands in for a chat-completions endpoint: answers with the recorded responses, one per request."""

    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            self.recording = json.load(f)
        self.responses = list(self.recording["responses"])
        self.pending = []  # the tool calls of the last answer, which the next request must answer

    def create(self, messages, tools):
        if not tools:
            raise ValueError("no tools offered")
        # A real API refuses a conversation where a tool call has no tool message (or one too many).
        answered = [m["tool_call_id"] for m in messages[-len(self.pending):]] if self.pending else []
        if answered != self.pending:
            raise ValueError(f"tool calls {self.pending} answered by {answered}")
        if not self.responses:
            raise ValueError("the recording has no more responses")
        response = self.responses.pop(0)
        self.pending = [c["id"] for c in response["choices"][0]["message"].get("tool_calls") or []]
        return response


def agent_loop(session, model, task, max_turns=8):
    """Runs the conversation to the model's final answer; returns (answer, tool results by call id)."""
    tools = [t.to_json() for t in session.tools()]  # {"type": "function", "function": {...}} each
    messages = [
        {"role": "system", "content": "You work in a sandboxed bash session. Use the tools."},
        {"role": "user", "content": task},
    ]
    results = {}
    for _ in range(max_turns):
        message = model.create(messages, tools)["choices"][0]["message"]
        messages.append({k: v for k, v in message.items() if v is not None})
        calls = message.get("tool_calls") or []
        if not calls:
            return message["content"], results
        for call in calls:
            name, arguments = call["function"]["name"], call["function"]["arguments"]  # arguments: JSON text
            result = session.call_tool(name, arguments)  # a dict; bad arguments give {"ok": False, "error": ...}
            results[call["id"]] = result
            print(f"> {name} {arguments}\n< {json.dumps(result)}")
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)})
    raise RuntimeError("no final answer within max_turns")


def main():
    model = RecordedModel(RECORDING)
    # An in-memory session (nothing on disk), no network (the default), private addresses refused anyway.
    sandbox = bashkit.BashkitSandbox(instance_id="example", ephemeral=True)
    with sandbox.session("agent-loop-py") as session:
        session.write_file("app/greet.sh", GREET)
        answer, results = agent_loop(session, model, model.recording["task"])
        print(f"model: {answer}")
        greet_now = session.read_file("app/greet.sh")

    checks = {
        "the listing shows greet.sh": [e["path"] for e in results["call_1"]["entries"]] == ["app/greet.sh"],
        "the model read the script": results["call_2"].get("content") == GREET,
        "one replacement": results["call_3"].get("replacements") == 1,
        "the test it wrote passes": results["call_5"].get("exit_code") == 0
        and results["call_5"].get("stdout") == "all tests passed\n",
        "no host file, no metadata address": results["call_6"].get("ok") is True
        and "root:" not in results["call_6"].get("stdout", "")
        and results["call_6"].get("stdout", "").endswith("status 7\n"),
        "truncated arguments come back as an error result": results["call_7"].get("ok") is False
        and "not valid JSON" in results["call_7"].get("error", ""),
        "the workspace kept the edit": greet_now == GREET.replace("hello", "bonjour"),
        "the model's final answer": answer.startswith("greet.sh now says bonjour"),
    }
    failed = [name for name, ok in checks.items() if not ok]
    for name in failed:
        print(f"FAILED: {name}", file=sys.stderr)
    if not failed:
        print("the agent loop behaved as expected")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
