"""World-first synthesis: code builds a typed world, its tools, its tasks and every answer.

A `World` is a small relational database with a typed schema (from a SQLite file, a world file,
or a domain whose schema a model proposes). Code fills its rows from a seed, compiles five kinds
of tools over them, walks keys and relations for tasks of ASTRA's four scenarios, and takes every
answer from executing the golden calls. `synthesize_from_worlds` writes ordinary environments.
"""

from synth.world._build import build_environment, check_in_process
from synth.world._domain import (
    DomainResult,
    WorldProposal,
    domain_language,
    propose_world,
    world_from_proposal,
)
from synth.world._rows import fill_rows
from synth.world._schema import (
    ANSWER_TYPES,
    Derived,
    Entity,
    FieldSpec,
    FieldType,
    World,
    label_text,
)
from synth.world._sqlite import SqliteWorld, world_from_sqlite
from synth.world._tools import WorldTool, compile_tools, environment_code
from synth.world._walk import (
    SCENARIOS,
    WALK_REJECTIONS,
    Step,
    Walk,
    Walker,
    WalkRejected,
    WalkSpec,
)
from synth.world.pipeline import (
    WORLD_REJECTIONS,
    WorldSynthConfig,
    WorldSynthStats,
    build_world_envs,
    synthesize_from_worlds,
)
from synth.world.proposals import propose_worlds
from synth.world.sources import (
    WorldSources,
    load_world_file,
    read_domains,
    read_sources,
)

__all__ = [
    "ANSWER_TYPES",
    "SCENARIOS",
    "WALK_REJECTIONS",
    "WORLD_REJECTIONS",
    "Derived",
    "DomainResult",
    "Entity",
    "FieldSpec",
    "FieldType",
    "SqliteWorld",
    "Step",
    "Walk",
    "WalkRejected",
    "WalkSpec",
    "Walker",
    "World",
    "WorldProposal",
    "WorldSources",
    "WorldSynthConfig",
    "WorldSynthStats",
    "WorldTool",
    "build_environment",
    "build_world_envs",
    "check_in_process",
    "compile_tools",
    "domain_language",
    "environment_code",
    "fill_rows",
    "label_text",
    "load_world_file",
    "propose_world",
    "propose_worlds",
    "read_domains",
    "read_sources",
    "synthesize_from_worlds",
    "world_from_proposal",
    "world_from_sqlite",
]
