import mcp_servers

EXPECTED = {
    "ArenaServer", "RunningArena", "Binding", "CHECK_CODES", "CheckCode", "CompletionModel", "EmulatorMessage", "injected_failure_kind", "EmulatedTool", "EmulatorConfig", "EmulatorStats", "EnvLoadError", "EnvReport",
    "EnvServer", "EnvSpec", "Environment", "FINDING_CODES", "Finding", "FindingCode", "GoldenCall", "Isolation",
    "Limits", "LocalSandbox", "McpServersError", "Sandbox", "SandboxConfig", "SandboxError", "SandboxSession",
    "SandboxUnavailable", "Source", "Subtask", "Task", "ToolEmulator", "ToolOutcome", "ToolSpec", "VerifyReport",
    "answer_in_output", "generic_answer_reason", "build_env_server", "canonical_json", "compute_env_id", "emit_env", "expand_env_paths",
    "arena_env_url", "dependency_depths", "dependency_order", "dependency_scenario", "find_envs", "golden_levels", "golden_order", "load_env", "load_envs", "normalize_answer", "outcome_to_result", "perturbations", "serve_app", "serve_arena", "serve_http", "serve_stdio",
    "verify_env", "verify_paths",
}


def test_public_api_is_exactly_all() -> None:
    assert set(mcp_servers.__all__) == EXPECTED
    for name in mcp_servers.__all__:
        assert getattr(mcp_servers, name) is not None


def test_every_finding_code_named_by_design_exists() -> None:
    design = {"schema_invalid", "duplicate_tool_name", "golden_call_invalid_args", "golden_call_error", "answer_missing",
              "nondeterministic", "answer_not_distinctive", "timeout", "crash"}
    assert design <= set(mcp_servers.FINDING_CODES)
