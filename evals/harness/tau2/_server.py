"""One tau2 task's environment behind MCP servers: the agent's tools and the user's tools.

Calls go through tau2's own `Environment.get_response`, so results (text, error flag, tool
syncing between the user's phone and the operator's database in telecom) are tau2's; the
text is returned unchanged because tau2's evaluator re-executes the recorded calls and
requires identical tool messages.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext

__all__ = ["DONE_TOOL", "Tau2Episode"]

DONE_TOOL = "done"
"""Solo mode's stop tool (tau2's solo agent has one of the same name); it ends the episode."""


class Tau2Episode:
    """A fresh tau2 environment for one task, initialised from the task's initial state.

    Args:
        domain: "retail", "airline" or "telecom".
        task: the tau2 `Task`.
        solo_mode: telecom's solo mode: the agent also holds the user's tools, no user.
    """

    def __init__(self, domain: str, task: Any, *, solo_mode: bool = False) -> None:
        from tau2.registry import registry

        self.domain = domain
        self.task = task
        self.solo_mode = solo_mode
        self.env = registry.get_env_constructor(domain)(solo_mode=solo_mode)
        state = task.initial_state
        self.env.set_state(
            initialization_data=state.initialization_data if state else None,
            initialization_actions=state.initialization_actions if state else None,
            message_history=list(state.message_history or []) if state else [],
        )
        self.done = False
        agent_tools = list(self.env.get_tools())
        user_tools = list(self.env.get_user_tools()) if self.env.user_tools is not None else []
        if solo_mode:
            agent_tools += user_tools
        self.agent_server = self._server("assistant", agent_tools, with_done=solo_mode)
        self.user_server = self._server("user", user_tools) if user_tools and not solo_mode else None

    def call(self, name: str, arguments: dict[str, Any], requestor: Literal["user", "assistant"]) -> tuple[bool, str]:
        """Run one call through tau2's environment; returns (ok, tool message text)."""
        from tau2.data_model.message import ToolCall

        message = self.env.get_response(ToolCall(id=uuid.uuid4().hex, name=name, arguments=arguments, requestor=requestor))
        return not message.error, message.content or ""

    def _server(self, requestor: Literal["user", "assistant"], tools: list[Any], *, with_done: bool = False) -> Server[Any]:
        listed = [
            types.Tool(name=t.name, description=t.openai_schema["function"].get("description", ""),
                       input_schema=t.openai_schema["function"]["parameters"])
            for t in tools
        ]
        if with_done:
            listed.append(types.Tool(name=DONE_TOOL, description="Call this when you have solved the ticket.",
                                     input_schema={"type": "object", "properties": {}}))
        names = {t.name for t in listed}

        async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
            return types.ListToolsResult(tools=listed)

        async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
            if params.name not in names:
                ok, text = False, f"Error: Tool '{params.name}' not found."
            elif params.name == DONE_TOOL:
                self.done, ok, text = True, True, "###STOP###"
            else:
                ok, text = self.call(params.name, dict(params.arguments or {}), requestor)
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=not ok)

        return Server(f"tau2-{self.domain}-{requestor}", version="1", on_list_tools=list_tools, on_call_tool=call_tool)
