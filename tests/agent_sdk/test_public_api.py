"""The public API of agent_sdk is its `__all__`."""

from __future__ import annotations

import agent_sdk

CORE = {
    "DEFAULT_SYSTEM_PROMPT", "Agent", "AgentSdkError", "ArgumentRepair", "ChatMessage", "ChatModel", "ContextOverflowError", "McpServer",
    "ModelError", "ModelHTTPError", "ModelResponse", "OpenAIChatModel", "ParsedCalls", "RetryPolicy",
    "SamplingSettings", "Step", "StopReason", "ToolCall", "ToolCallRecord", "ToolInfo", "ToolResult", "Toolbox",
    "ToolboxError", "Trajectory", "Usage", "UserError", "parse_arguments", "parse_tool_calls", "read_openai_jsonl",
    "read_sft_parquet", "read_trajectories_jsonl", "server_from_target", "sft_record", "write_openai_jsonl",
    "write_sft_parquet", "write_trajectories_jsonl", "SFT_FILES", "write_sft_files",
    "EMBEDDED_MODEL_NAME", "LocalChatModel", "ServedModel", "VllmOptions", "cache_dir", "cpu_has_bf16", "embedded_model_dir", "find_vllm_python",
    "is_endpoint_target", "is_local_target", "load_causal_lm", "load_tokenizer", "local_model_path", "model_fingerprint",
    "model_from_target", "serve_model",
    "EMBEDDED_MODELS", "STUDENT", "TEACHER", "EmbeddedModel",
    "CombinedTools", "FilteredTools", "McpTools", "RecordedTools", "TimeLimitedTools", "ToolSource", "WrapperTools",
    "env_servers", "ModelProfile", "WrapperModel", "merge_settings", "SampledTokens", "TokenChoice",
    "ForbiddenRequestError", "FunctionModel", "ModelRequest", "RequestGuard",
    "JsonlContent", "JsonlError", "JsonlProblem", "JsonlRow", "OnProblem", "format_validation_error", "read_jsonl",
}  # fmt: skip


def test_all_lists_the_core_api_and_every_name_resolves():
    assert CORE == set(agent_sdk.__all__)
    assert len(agent_sdk.__all__) == len(set(agent_sdk.__all__))
    for name in agent_sdk.__all__:
        assert getattr(agent_sdk, name) is not None, name


def test_backends_satisfy_the_chat_model_protocol():
    model = agent_sdk.OpenAIChatModel("m", base_url="http://127.0.0.1:9/v1")
    assert isinstance(model, agent_sdk.ChatModel)
    assert isinstance(agent_sdk.FunctionModel(lambda messages, tools, settings: ""), agent_sdk.ChatModel)
