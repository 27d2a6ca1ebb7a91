"""A model as an MCP client agent: model backends, MCP tool sources, agent loop, trajectories."""

from agent_sdk._agent import DEFAULT_SYSTEM_PROMPT, Agent
from agent_sdk._combined import CombinedTools
from agent_sdk._connections import McpServer, server_from_target
from agent_sdk._cpu import cpu_has_bf16
from agent_sdk._embedded import EMBEDDED_MODEL_NAME, EMBEDDED_MODELS, STUDENT, TEACHER, EmbeddedModel, embedded_model_dir, is_endpoint_target, load_causal_lm, load_tokenizer
from agent_sdk._env_dirs import env_servers
from agent_sdk._export import (
    SFT_FILES,
    read_openai_jsonl,
    read_sft_parquet,
    read_trajectories_jsonl,
    sft_record,
    write_openai_jsonl,
    write_sft_files,
    write_sft_parquet,
    write_trajectories_jsonl,
)
from agent_sdk._function_model import FunctionModel, ModelRequest
from agent_sdk._jsonl import JsonlContent, JsonlProblem, JsonlRow, OnProblem, format_validation_error, read_jsonl
from agent_sdk._local import LocalChatModel
from agent_sdk._local_targets import is_local_target, local_model_path
from agent_sdk._mcp_tools import McpTools
from agent_sdk._messages import ArgumentRepair, ChatMessage, ModelResponse, SampledTokens, SamplingSettings, TokenChoice, ToolCall, Usage
from agent_sdk._model import ChatModel, ModelProfile, WrapperModel, merge_settings
from agent_sdk._model_cache import cache_dir
from agent_sdk._openai import OpenAIChatModel, RetryPolicy
from agent_sdk._request_guard import RequestGuard
from agent_sdk._serve import ServedModel, VllmOptions, find_vllm_python, serve_model
from agent_sdk._targets import model_fingerprint, model_from_target
from agent_sdk._tool_parsing import ParsedCalls, parse_arguments, parse_tool_calls
from agent_sdk._tool_source import ToolInfo, ToolResult, ToolSource, WrapperTools
from agent_sdk._toolbox import Toolbox
from agent_sdk._trajectory import Step, StopReason, ToolCallRecord, Trajectory
from agent_sdk._wrappers import FilteredTools, RecordedTools, TimeLimitedTools
from agent_sdk.exceptions import (
    AgentSdkError,
    ContextOverflowError,
    ForbiddenRequestError,
    JsonlError,
    ModelError,
    ModelHTTPError,
    ToolboxError,
    UserError,
)

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "SFT_FILES",
    "Agent",
    "AgentSdkError",
    "ArgumentRepair",
    "ChatMessage",
    "ChatModel",
    "ModelProfile",
    "WrapperModel",
    "merge_settings",
    "ContextOverflowError",
    "McpServer",
    "ModelError",
    "ModelHTTPError",
    "ModelResponse",
    "OpenAIChatModel",
    "ParsedCalls",
    "RetryPolicy",
    "SampledTokens",
    "SamplingSettings",
    "Step",
    "StopReason",
    "TokenChoice",
    "ToolCall",
    "ToolCallRecord",
    "ToolInfo",
    "ToolResult",
    "Toolbox",
    "ToolboxError",
    "Trajectory",
    "Usage",
    "UserError",
    "parse_arguments",
    "parse_tool_calls",
    "read_openai_jsonl",
    "read_sft_parquet",
    "read_trajectories_jsonl",
    "server_from_target",
    "sft_record",
    "write_openai_jsonl",
    "write_sft_files",
    "write_sft_parquet",
    "write_trajectories_jsonl",
    # Tool sources: one MCP server, and the wrappers `Toolbox` composes.
    "CombinedTools",
    "FilteredTools",
    "McpTools",
    "RecordedTools",
    "TimeLimitedTools",
    "ToolSource",
    "WrapperTools",
    "env_servers",
    # The one JSONL reader.
    "JsonlContent",
    "JsonlError",
    "JsonlProblem",
    "JsonlRow",
    "OnProblem",
    "format_validation_error",
    "read_jsonl",
    # The test double for a model, and the guard that keeps tests off real endpoints.
    "ForbiddenRequestError",
    "FunctionModel",
    "ModelRequest",
    "RequestGuard",
    # Local backend, the embedded default model, model serving and model targets.
    "EMBEDDED_MODELS",
    "EMBEDDED_MODEL_NAME",
    "STUDENT",
    "TEACHER",
    "EmbeddedModel",
    "LocalChatModel",
    "ServedModel",
    "VllmOptions",
    "cache_dir",
    "cpu_has_bf16",
    "embedded_model_dir",
    "find_vllm_python",
    "is_endpoint_target",
    "is_local_target",
    "load_causal_lm",
    "load_tokenizer",
    "local_model_path",
    "model_fingerprint",
    "model_from_target",
    "serve_model",
]
