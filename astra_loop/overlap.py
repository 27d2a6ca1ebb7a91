"""The train/eval separation check: evaluation environments must be absent from training data.

Two checks, both fail closed: an evaluation environment's id among the training environments
(the id is content-derived, so a copy is caught even under another directory name), and a
training question that near-duplicates an evaluation question (cosine of all-MiniLM-L6-v2
embeddings, `rl.Embedder`, at or above a threshold; exact matches after normalization always
count). Training questions are the verified environments' task and subtask questions and the
user turns of the SFT rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from agent_sdk import read_jsonl
from astra_loop.exceptions import OverlapError
from mcp_servers import find_envs, load_envs, normalize_answer


class Question(BaseModel):
    """A question and where it comes from."""

    text: str
    ref: str = Field(description="Where it was read: an environment directory (and field) or `file:line`.")


class Overlap(BaseModel):
    """One reason the training data is not separate from the evaluation set."""

    kind: Literal["env_id", "question"]
    train_ref: str
    eval_ref: str
    score: float = Field(description="1.0 for an id or an exact match, else the cosine similarity.")
    train_text: str = ""
    eval_text: str = ""

    def describe(self) -> str:
        """One line naming both sides."""
        if self.kind == "env_id":
            return f"env id {self.train_text}: {self.train_ref} is the evaluation environment {self.eval_ref}"
        return f"question ({self.score:.2f}): {self.train_ref} {self.train_text!r:.120} ~ {self.eval_ref} {self.eval_text!r:.120}"


def env_ids(dirs: Iterable[Path]) -> dict[str, str]:
    """Environment id -> directory, for every environment under `dirs`."""
    return {env.spec.id: str(env.path) for env in load_envs(*dirs)}


def env_questions(dirs: Iterable[Path], *, subtasks: bool = True) -> list[Question]:
    """The task question (and optionally every subtask question) of each environment under `dirs`."""
    out: list[Question] = []
    for env in load_envs(*dirs):
        spec, p = env.spec, env.path
        out.append(Question(text=spec.task.question, ref=f"{p}:task"))
        if subtasks:
            out += [Question(text=s.question, ref=f"{p}:subtask {s.id}") for s in spec.subtasks]
    return out


def sft_questions(files: Iterable[Path]) -> list[Question]:
    """The user turns of OpenAI-format SFT JSONL files (`{"messages": [...]}` per line)."""
    out: list[Question] = []
    for path in files:
        if not path.is_file():
            continue
        # A line that is not a JSON object holds no question to compare (the SFT trainer reports it).
        for row in read_jsonl(path, on_problem="collect").rows:
            for m in row.value.get("messages", []):
                if isinstance(m, dict) and m.get("role") == "user" and isinstance(m.get("content"), str) and m["content"].strip():
                    out.append(Question(text=m["content"], ref=row.ref))
    return out


def question_overlaps(train: Sequence[Question], evaluation: Sequence[Question], *, embedder: object, threshold: float) -> list[Overlap]:
    """Training questions at or above `threshold` cosine to an evaluation question (best match each).

    `embedder` is an `rl.Embedder` (anything with `embed(texts) -> normalized matrix`).
    """
    if not train or not evaluation:
        return []
    exact = {normalize_answer(q.text): q for q in evaluation}
    train_vecs = embedder.embed([q.text for q in train])  # type: ignore[attr-defined]
    eval_vecs = embedder.embed([q.text for q in evaluation])  # type: ignore[attr-defined]
    scores = train_vecs @ eval_vecs.T
    found: list[Overlap] = []
    for i, q in enumerate(train):
        match = exact.get(normalize_answer(q.text))
        if match is not None:
            found.append(Overlap(kind="question", train_ref=q.ref, eval_ref=match.ref, score=1.0, train_text=q.text, eval_text=match.text))
            continue
        j = int(scores[i].argmax())
        if float(scores[i, j]) >= threshold:
            e = evaluation[j]
            found.append(Overlap(kind="question", train_ref=q.ref, eval_ref=e.ref, score=round(float(scores[i, j]), 4), train_text=q.text, eval_text=e.text))
    return found


def find_overlaps(
    *, train_envs: Sequence[Path], sft_files: Sequence[Path], eval_envs: Path, embedder: object, threshold: float
) -> list[Overlap]:
    """Every overlap between the training data and the evaluation environments."""
    train_ids = env_ids(train_envs)
    eval_ids = env_ids([eval_envs])
    found = [
        Overlap(kind="env_id", train_ref=train_ids[i], eval_ref=eval_ids[i], score=1.0, train_text=i, eval_text=i)
        for i in sorted(set(train_ids) & set(eval_ids))
    ]
    train = env_questions(train_envs) + sft_questions(sft_files)
    # Eval subtask questions are generic one-hop lookups ("Gate of LX2084?"); the tasks are what must stay unseen.
    found += question_overlaps(train, env_questions([eval_envs], subtasks=False), embedder=embedder, threshold=threshold)
    return found


def check_separation(
    *, train_envs: Sequence[Path], sft_files: Sequence[Path], eval_envs: Path, embedder: object, threshold: float, report: Path | None = None
) -> int:
    """Fail closed unless the training data and the evaluation set are separate.

    Returns:
        The number of training questions compared.

    Raises:
        OverlapError: listing every overlap (and writing them to `report` when given).
    """
    if not find_envs(eval_envs):
        raise OverlapError(f"{eval_envs}: no environments to evaluate on")
    found = find_overlaps(train_envs=train_envs, sft_files=sft_files, eval_envs=eval_envs, embedder=embedder, threshold=threshold)
    if report is not None:
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text("".join(o.model_dump_json() + "\n" for o in found), encoding="utf-8")
    if found:
        lines = "\n".join(f"  - {o.describe()}" for o in found)
        raise OverlapError(
            f"training data overlaps the evaluation set {eval_envs} ({len(found)} finding(s)); "
            f"remove them from the training data or evaluate on other environments:\n{lines}"
        )
    return len(env_questions(train_envs)) + len(sft_questions(sft_files))
