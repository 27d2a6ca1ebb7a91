"""A model as an MCP client agent: model backends, MCP toolbox, agent loop, trajectories."""

from agent_sdk._messages import ChatMessage, ModelResponse, SamplingSettings, ToolCall, Usage
from agent_sdk._model import ChatModel

__all__ = ["ChatMessage", "ChatModel", "ModelResponse", "SamplingSettings", "ToolCall", "Usage"]
