"""The tool-call path end to end with what the chat-completions APIs return (recorded responses, no network):
the arguments of a tool call are a JSON string; optional arguments may be null; integers may come as 2.0."""
import json

import pytest

import bashkit

# An OpenAI chat-completions response (as recorded): arguments are JSON text.
OPENAI_RESPONSE = json.loads(r'''{
  "id": "chatcmpl-9x", "object": "chat.completion", "created": 1733200000, "model": "gpt-4o-2024-08-06",
  "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": null,
    "message": {"role": "assistant", "content": null, "refusal": null, "tool_calls": [
      {"id": "call_a1", "type": "function",
       "function": {"name": "write_file", "arguments": "{\"path\":\"notes/todo.txt\",\"content\":\"one\\ntwo\\nthree\\n\"}"}},
      {"id": "call_a2", "type": "function",
       "function": {"name": "read_file", "arguments": "{\"path\":\"notes/todo.txt\",\"offset\":2.0,\"limit\":null}"}},
      {"id": "call_a3", "type": "function",
       "function": {"name": "bash", "arguments": "{\"command\":\"wc -l < notes/todo.txt\",\"timeout_seconds\":null}"}}
    ]}}],
  "usage": {"prompt_tokens": 812, "completion_tokens": 95, "total_tokens": 907}
}''')

# A Mistral chat-completions response (as recorded): the same shape, arguments as JSON text.
MISTRAL_RESPONSE = json.loads(r'''{
  "id": "6a1f0c", "object": "chat.completion", "created": 1733200001, "model": "mistral-large-latest",
  "choices": [{"index": 0, "finish_reason": "tool_calls",
    "message": {"role": "assistant", "content": "", "prefix": false, "tool_calls": [
      {"id": "D681PevKs", "type": "function", "index": 0,
       "function": {"name": "edit_file", "arguments": "{\"path\": \"notes/todo.txt\", \"old_string\": \"two\", \"new_string\": \"2\", \"replace_all\": null}"}},
      {"id": "Xk2LmQ9rT", "type": "function", "index": 1,
       "function": {"name": "list_files", "arguments": "{\"path\": \"notes\", \"recursive\": null, \"pattern\": null}"}},
      {"id": "bad000001", "type": "function", "index": 2,
       "function": {"name": "read_file", "arguments": "{\"path\": "}}
    ]}}],
  "usage": {"prompt_tokens": 640, "total_tokens": 702, "completion_tokens": 62}
}''')


def run_tool_calls(session, response):
    """What an agent loop does with a response: one tool message per call."""
    messages = []
    for call in response["choices"][0]["message"]["tool_calls"]:
        result = session.call_tool(call["function"]["name"], call["function"]["arguments"])
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)})
    return messages


def test_openai_then_mistral_responses(tmp_path):
    sb = bashkit.BashkitSandbox(base_dir=str(tmp_path))
    with sb.session("tools") as s:
        out = [json.loads(m["content"]) for m in run_tool_calls(s, OPENAI_RESPONSE)]
        assert out[0]["ok"] is True
        assert out[1] == {"ok": True, "content": "two\nthree\n", "total_lines": 3, "truncated": False}
        assert out[2]["ok"] is True and out[2]["stdout"] == "3\n"
        out = [json.loads(m["content"]) for m in run_tool_calls(s, MISTRAL_RESPONSE)]
        assert out[0] == {"ok": True, "path": "notes/todo.txt", "replacements": 1}
        assert out[1]["ok"] is True and [e["path"] for e in out[1]["entries"]] == ["notes/todo.txt"]
        assert out[1]["truncated"] is False
        assert out[2]["ok"] is False and out[2]["error"].startswith("read_file: arguments are not valid JSON")
        assert s.read_file("notes/todo.txt") == "one\n2\nthree\n"


def test_async_session_takes_json_text(tmp_path):
    import asyncio

    async def main():
        async with bashkit.BashkitSandbox(base_dir=str(tmp_path)).session("a") as s:
            return await s.call_tool("bash", '{"command": "echo $((1+1))"}')

    assert asyncio.run(main())["stdout"] == "2\n"


def test_arguments_forms(session):
    assert session.call_tool("bash", {"command": "echo d"})["stdout"] == "d\n"  # a dict
    assert session.call_tool("bash", b'{"command": "echo b"}')["stdout"] == "b\n"  # bytes
    assert session.call_tool("list_files", "")["ok"] is True  # empty text: no arguments
    assert session.call_tool("list_files")["ok"] is True
    r = session.call_tool("bash", '["echo"]')
    assert r == {"ok": False, "error": "bash: arguments must be a JSON object"}
    r = session.call_tool("read_file", {"path": None})
    assert r == {"ok": False, "error": "read_file: argument 'path' must be of type string"}  # null for a required one
    r = session.call_tool("read_file", {"path": "x", "limit": 2.5})
    assert r == {"ok": False, "error": "read_file: argument 'limit' must be of type integer"}


def test_schemas_validate_under_draft_4():
    for t in bashkit.tools_for("full", background_processes=True):
        p = t.parameters
        assert "required" not in p or p["required"], t.name  # draft 4: at least one name when present
    assert "required" not in bashkit.tools_for("files")[3].parameters  # list_files: nothing is required


def test_strict_schemas():
    tools = {t.name: t.to_json(strict=True) for t in bashkit.tools_for("full")}
    f = tools["read_file"]["function"]
    assert f["strict"] is True
    assert sorted(f["parameters"]["required"]) == ["limit", "offset", "path"]
    assert f["parameters"]["properties"]["path"]["type"] == "string"
    assert f["parameters"]["properties"]["offset"]["type"] == ["integer", "null"]
    assert f["parameters"]["additionalProperties"] is False
    assert sorted(tools["list_files"]["function"]["parameters"]["required"]) == ["path", "pattern", "recursive"]
    assert "strict" not in bashkit.tools_for("full")[0].to_json()["function"]


def test_list_files_says_when_it_is_cut(tmp_path):
    sb = bashkit.BashkitSandbox(base_dir=str(tmp_path))
    with sb.session("many") as s:
        assert s.execute("mkdir d && for i in $(seq 5001); do : > d/f$i; done").exit_code == 0
        r = s.call_tool("list_files", {"path": "d"})
        assert r["ok"] is True and r["truncated"] is True and len(r["entries"]) == 5000
        r = s.call_tool("list_files", {"path": "d", "pattern": "f1"})
        assert r["truncated"] is True  # the listing was cut before the pattern filtered it


def test_process_ids_are_not_truncated(tmp_path):
    sb = bashkit.DangerousLocalSandbox(workspace=str(tmp_path))
    with sb.session("procs") as s:
        assert s.call_tool("start_process", {"command": "sleep 30"})["process_id"] == 1
        for pid in (4294967297, -1, 2 ** 63, 2 ** 64 - 1):
            r = s.call_tool("read_process_output", {"process_id": pid})
            assert r == {"ok": False, "error": "read_process_output: no process %d" % pid}
        r = s.call_tool("read_process_output", '{"process_id": %d}' % 2 ** 70)  # beyond JSON's 64-bit integers
        assert r == {"ok": False, "error": "read_process_output: arguments: cannot convert to JSON: integer out of "
                                           "the 64-bit range"}
        assert s.call_tool("kill_process", {"process_id": 1.0})["ok"] is True  # 1.0 is the integer 1
