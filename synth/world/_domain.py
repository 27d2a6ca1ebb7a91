"""A domain becomes a world: a model proposes the schema and vocabularies, code checks all of it.

One bounded structured request per domain asks for 3-5 entities with typed fields, the foreign
keys between them and the value lists of their enums and names. Code adds what a model should
not decide (each entity's key, which field names its rows, the derived counts and totals along
relations), then validates: the `World` invariants, at least 3 entities and 2 relations, labels
in the domain's language, a vocabulary for every name that Faker cannot make. A failure goes
back to the model with the error; rows are filled by code later, from a seed.
"""

from __future__ import annotations

import hashlib
import re
import time
from typing import Literal

from pydantic import BaseModel, Field, ValidationError
from pypinyin import lazy_pinyin

from agent_sdk import ChatMessage, SamplingSettings
from synth.core.structured import ask_structured
from synth.world._schema import Derived, Entity, FieldSpec, World
from synth.world._tools import plural_name

__all__ = ["DomainResult", "ProposedEntity", "ProposedField", "VocabularyValues", "WorldProposal", "domain_language", "propose_world", "world_from_proposal"]

_CJK = re.compile(r"[\u4e00-\u9fff]")
_PEOPLE = re.compile(r"customer|client|patient|guest|passenger|user|employee|staff|student|teacher|doctor|driver|member|author|player|"
                     r"agent|instructor|owner|tenant|buyer|seller|traveler|traveller|contact|person|artist|coach|nurse|volunteer|candidate")  # fmt: skip
_COMPANIES = re.compile(r"company|vendor|supplier|manufacturer|brand|carrier|airline|partner|merchant|publisher|provider|agency|firm")
_PEOPLE_ZH = re.compile(r"客户|顾客|患者|病人|乘客|旅客|用户|员工|职员|学生|教师|老师|医生|司机|会员|作者|球员|租客|房客|住客|客人|买家|卖家|联系人|艺术家|教练|护士|志愿者|候选人|读者|主播|骑手|快递员")
_COMPANIES_ZH = re.compile(r"公司|供应商|厂商|品牌|商家|商户|机构|出版社|银行|保险公司|承运商")
_FAKER_FIELDS = re.compile(r"phone|email|address|street|city")
MIN_ENTITIES, MIN_RELATIONS = 3, 2
_KINDS: tuple[tuple[re.Pattern[str], frozenset[str], str], ...] = (
    (re.compile(r"e-?mail|邮箱|邮件", re.IGNORECASE), frozenset({"code", "name"}), "code"),
    (re.compile(r"phone|mobile|telephone|电话|手机", re.IGNORECASE), frozenset({"code"}), "code"),
    (re.compile(r"description|note|comment|remark|描述|说明|备注|简介", re.IGNORECASE), frozenset({"name", "enum"}), "name or enum"),
    (re.compile(r"\bdate\b|日期", re.IGNORECASE), frozenset({"date"}), "date"),
    (re.compile(r"\bname\b|名称|姓名|名字", re.IGNORECASE), frozenset({"name", "enum", "code"}), "name"),
)
"""What a label says a field holds, the types that can hold it, and the one to suggest: an e-mail is no amount of money."""


class ProposedField(BaseModel):
    """A field as a model proposes it (the key is added by code)."""

    name: str = Field(description="lower_snake_case English identifier")
    label: str = Field(description="what a user calls it, in the domain's language")
    type: Literal["name", "enum", "integer", "money", "date", "time", "duration", "quantity", "code", "ref"]
    ref: str | None = Field(default=None, description="for type ref: the name of the entity it points to")
    vocabulary: str | None = Field(default=None, description="for enum (and name of things): the vocabulary name")
    unit: str | None = Field(default=None, description="for quantity, duration, integer: the unit")
    currency: str | None = Field(default=None, description="for money: ISO code such as USD or CNY")
    min: float | None = None
    max: float | None = None


class ProposedEntity(BaseModel):
    """An entity as a model proposes it."""

    name: str = Field(description="singular lower_snake_case English identifier")
    label: str = Field(description="what a user calls one, in the domain's language")
    fields: list[ProposedField] = Field(min_length=2, max_length=6)


class ProposedVocabulary(BaseModel):
    """A named value list."""

    name: str = Field(description="lower_snake_case identifier")
    values: list[str] = Field(min_length=3, max_length=30)


class WorldProposal(BaseModel):
    """A model's proposal for one domain: entities, fields, references and vocabularies."""

    name: str = Field(description="lower_snake_case English name of the world")
    entities: list[ProposedEntity] = Field(min_length=3, max_length=4)
    vocabularies: list[ProposedVocabulary] = Field(default_factory=list, max_length=16)


class DomainResult(BaseModel):
    """What one domain gave: a world, or the reason it was refused, with its cost."""

    domain: str
    language: str
    world: World | None = None
    reason: str | None = None
    detail: str = ""
    calls: int = 0
    tokens: int = 0
    seconds: float = 0.0


def domain_language(domain: str) -> Literal["en", "zh"]:
    """"zh" for a domain written in Chinese, else "en"."""
    return "zh" if _CJK.search(domain) else "en"


def _key_label(language: str) -> str:
    return "编号" if language == "zh" else "id"


def _title_provider(entity: ProposedEntity) -> str | None:
    if _PEOPLE.search(entity.name) or _PEOPLE_ZH.search(entity.label):
        return "name"
    if _COMPANIES.search(entity.name) or _COMPANIES_ZH.search(entity.label):
        return "company"
    return None


def world_from_proposal(proposal: WorldProposal, *, domain: str, language: Literal["en", "zh"], seed: int) -> World:
    """The world a proposal describes, with keys, names and derived quantities added by code.

    Raises:
        ValueError: naming what is wrong (fed back to the model).
    """
    proposal = _canonical(proposal, seed)
    vocabularies = {v.name: v.values for v in proposal.vocabularies}
    entities = []
    for i, pe in enumerate(proposal.entities):
        key = f"{pe.name}_id"
        fields = [FieldSpec(name=key, label=_key_label(language), type="id")]
        title = None
        for j, pf in enumerate(pe.fields):
            if pf.name == key:
                continue
            for pattern, types, suggested in _KINDS:
                if pattern.search(pf.label) and pf.type not in types and (pf.type != "ref" or suggested != "name"):
                    raise ValueError(f"entities[{i}].fields[{j}] ({pe.name}.{pf.name}): {pf.label!r} is not a {pf.type}: make it a {suggested}")
            spec = pf.model_dump(exclude_none=True)
            if pf.type == "money" and not pf.currency:
                spec["currency"] = "CNY" if language == "zh" else "USD"
            if pf.type == "date":  # code dates rows in the recent past and near future; a model's years are no fact
                spec.pop("min", None), spec.pop("max", None)
            if pf.type == "name" and pf.vocabulary and pf.vocabulary not in vocabularies and _title_provider(pe):
                del spec["vocabulary"]  # people and companies are named by Faker: a missing list is no missing fact
            if pf.type == "name" and title is None:
                title, spec["unique"] = pf.name, True
                if pf.vocabulary is None and not _FAKER_FIELDS.search(pf.name):
                    provider = _title_provider(pe)
                    if provider is None:
                        raise ValueError(
                            f"entities[{i}].fields[{j}] ({pe.name}.{pf.name}): a {pe.name} is named from a vocabulary: "
                            f"add a vocabulary of at least 8 {pe.name} names and set 'vocabulary'"
                        )
                    spec["faker"] = provider
            if pf.type == "name" and title != pf.name and pf.vocabulary is None and not _FAKER_FIELDS.search(pf.name):
                spec["faker"] = _title_provider(pe) or "city"
            try:
                fields.append(FieldSpec.model_validate(spec))
            except ValidationError as exc:
                raise ValueError(f"entities[{i}].fields[{j}] ({pe.name}.{pf.name}): {_first_error(exc)}") from exc
        rows = 12 if title is None else 16
        entities.append(Entity(name=pe.name, label=pe.label, key=key, title=title, fields=fields, row_count=rows))
    world = World(name=proposal.name, domain=domain, languages=[language], seed=seed, entities=entities, vocabularies=vocabularies)
    derived = []
    for child, via, parent in world.relations:
        count_label = f"{child.label}数量" if language == "zh" else f"number of {plural_name(str(child.label).replace(' ', '_')).replace('_', ' ')}"
        unit = "个" if language == "zh" else plural_name(str(child.label).replace(" ", "_")).replace("_", " ")
        count_name = f"{plural_name(child.name)}_of_{parent.name}"
        if sum(c.name == child.name and p.name == parent.name for c, _, p in world.relations) > 1:
            count_name = f"{plural_name(child.name)}_by_{via.name}"
        derived.append(Derived(name=count_name[:40].rstrip("_"), label=count_label,
                               kind="count", entity=parent.name, child=child.name, via=via.name, unit=unit))  # fmt: skip
        for f in child.fields:
            if f.type == "money":
                what = f.label if str(f.label).startswith(str(child.label)) else f"{child.label}{f.label}"
                total = f"{what}合计" if language == "zh" else f"total {f.label} of its {unit}"
                derived.append(Derived(name=f"total_{f.name}_of_{parent.name}"[:40].rstrip("_"), label=total, kind="sum",
                                       entity=parent.name, child=child.name, via=via.name, field=f.name))  # fmt: skip
    names = [d.name for d in derived]
    derived = [d for i, d in enumerate(derived) if d.name not in names[:i]]
    return World.model_validate({**world.model_dump(), "derived": [d.model_dump() for d in derived]})


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    return f"{where + ': ' if where else ''}{err['msg'].removeprefix('Value error, ')}"


def _canonical(proposal: WorldProposal, seed: int) -> WorldProposal:
    """Names written as identifiers ('People_id' -> 'people_id', '8 booker names' -> 'w_8_booker_names'), the same on both
    sides of a reference: a model names things, code spells them."""
    raw = proposal.model_dump()
    raw["name"] = _identifier(raw["name"], seed) if re.search(r"[A-Za-z0-9\u4e00-\u9fff]", raw["name"]) else f"world_{seed:x}"
    for e in raw["entities"]:
        e["name"] = _identifier(e["name"], seed)
        for f in e["fields"]:
            for key in ("name", "ref", "vocabulary"):
                if f.get(key):
                    f[key] = _identifier(f[key], seed)
    for v in raw["vocabularies"]:
        v["name"] = _identifier(v["name"], seed)
    entities = {e["name"] for e in raw["entities"]}
    for e in raw["entities"]:
        for f in e["fields"]:
            if f["type"] == "ref" and not f.get("ref"):  # a ref named for its entity: 'ke_hu' or 'ke_hu_id'
                f["ref"] = next((n for n in entities if f["name"] in (n, f"{n}_id")), None)
            if f.get("ref") and f["ref"] not in entities:  # 'guests' for the entity 'guest'
                f["ref"] = next((n for n in entities if f["ref"] in (n + "s", n + "es", n[:-1] + "ies")), f["ref"])
    return WorldProposal.model_validate(raw)


def _check(proposal: WorldProposal, domain: str, language: Literal["en", "zh"], seed: int) -> tuple[World | None, str | None]:
    try:
        world = world_from_proposal(proposal, domain=domain, language=language, seed=seed)
    except (ValidationError, ValueError) as exc:
        return None, str(exc)[:1500]
    if len(world.entities) < MIN_ENTITIES:
        return None, f"a world needs at least {MIN_ENTITIES} entities; it has {len(world.entities)}"
    if len(world.relations) < MIN_RELATIONS:
        return None, f"a world needs at least {MIN_RELATIONS} ref fields between its entities; it has {len(world.relations)}"
    return world, None


def _prompt(domain: str, language: str) -> list[ChatMessage]:
    lang = "Chinese (简体中文)" if language == "zh" else "English"
    text = (
        f"Design a small relational database for the domain: {domain}\n"
        f"- 3 or 4 entities (tables) a service in this domain keeps, each with 3 to 5 fields; names in lower_snake_case English.\n"
        f"- Every 'label' (entities and fields) is written in {lang}: it is what a user calls the thing.\n"
        "- Field types: name, enum, integer, money, date, time, duration, quantity, code, ref. Do not add an id field: code adds one.\n"
        "- Link the entities with at least 2 fields of type 'ref' whose 'ref' is another entity's name (a booking refers to a guest).\n"
        "- The first 'name' field of an entity names its rows. Unless the rows are people or companies, set its 'vocabulary' "
        "to a vocabulary name such as \"product_names\" and list that vocabulary in 'vocabularies' with 8 to 12 realistic names.\n"
        "- Every 'enum' field sets 'vocabulary' to a vocabulary name listed in 'vocabularies' with 3 to 12 realistic values.\n"
        "- money has a 'currency' (ISO code); quantity and duration have a 'unit'; give min and max for numbers."
    )
    return [ChatMessage(role="user", content=text)]


def _seed(domain: str) -> int:
    return int(hashlib.sha256(domain.encode("utf-8")).hexdigest()[:8], 16)


class VocabularyValues(BaseModel):
    """A model's values for one vocabulary a proposal named but did not list."""

    values: list[str] = Field(min_length=3, max_length=16)


def _named_vocabularies(proposal: WorldProposal) -> tuple[WorldProposal, dict[str, str]]:
    """The proposal with a vocabulary named for every thing Faker cannot name, and each vocabulary it names
    but does not list, with what it holds ("doctor specialty")."""
    raw = proposal.model_dump()
    listed = {v["name"] for v in raw["vocabularies"]}
    missing: dict[str, str] = {}
    for pe, e in zip(proposal.entities, raw["entities"], strict=True):
        titled = False
        for f in e["fields"]:
            if f["type"] not in {"name", "enum"}:
                if f["type"] != "code" or f.get("vocabulary") not in listed:
                    f["vocabulary"] = None  # dates and numbers take no value list; an unlisted one is no missing fact
                continue
            first = f["type"] == "name" and not titled
            titled = titled or f["type"] == "name"
            if f["type"] == "name" and (_title_provider(pe) or _FAKER_FIELDS.search(f["name"])):
                f["vocabulary"] = f["vocabulary"] if f.get("vocabulary") in listed else None
                continue
            if first and not f.get("vocabulary"):
                f["vocabulary"] = f"{e['name']}_{f['name']}"[:40]
            if f.get("vocabulary") and f["vocabulary"] not in listed:
                missing[f["vocabulary"]] = f"{pe.label} {f['label']}"
    return WorldProposal.model_validate(raw), missing


def _values_prompt(domain: str, language: str, what: str) -> list[ChatMessage]:
    lang = "Chinese (简体中文)" if language == "zh" else "English"
    text = f"In the domain '{domain}', list 8 to 12 realistic, distinct values of: {what}. Write them in {lang}, short, one per item."
    return [ChatMessage(role="user", content=text)]


def _values_problem(reply: VocabularyValues) -> str | None:
    values = [v.strip() for v in reply.values]
    if len(set(values)) < 3 or any(not v or len(v) > 60 for v in values):
        return "give at least 3 distinct short values, each under 60 characters"
    return None


async def propose_world(model: object, domain: str, *, retries: int = 2, name: str | None = None) -> DomainResult:
    """Ask `model` for the world of `domain` and check it; the result holds the world or why not.

    One structured request proposes the schema and vocabularies; a vocabulary the proposal names but
    does not list is asked for on its own (a short list is what a small model gets right). Every
    request's error goes back to the model.

    Args:
        model: a `ChatModel`.
        domain: the domain in words (its language is the world's).
        retries: extra requests after a refused proposal, each with the error.
        name: the world's name (default: the proposal's, made an identifier).
    """
    language = domain_language(domain)
    seed = _seed(domain)
    checked: dict[str, tuple[WorldProposal, dict[str, str]]] = {}

    def check(proposal: WorldProposal) -> str | None:
        named, missing = _named_vocabularies(_canonical(proposal, seed))
        stand_in = [*named.vocabularies, *(ProposedVocabulary(name=v, values=[f"{v} {i}" for i in range(12)]) for v in missing)]
        _, error = _check(named.model_copy(update={"vocabularies": stand_in}), domain, language, seed)
        if error is None:
            checked["proposal"] = (named, missing)
        return error

    started = time.perf_counter()
    settings = SamplingSettings(max_tokens=2048, temperature=0.3)
    result = await ask_structured(model, _prompt(domain, language), WorldProposal, retries=retries, check=check, settings=settings)
    calls, usage = result.attempts, result.usage
    world, reason, detail = None, result.reason_code or "invalid_output", result.detail
    if result.value is not None and "proposal" in checked:
        proposal, missing = checked["proposal"]
        vocabularies = list(proposal.vocabularies)
        for vocabulary, what in missing.items():
            asked = await ask_structured(model, _values_prompt(domain, language, what), VocabularyValues, retries=retries,
                                         check=_values_problem, settings=SamplingSettings(max_tokens=400, temperature=0.3))  # fmt: skip
            calls, usage = calls + asked.attempts, usage + asked.usage
            if asked.value is None:
                reason, detail = asked.reason_code or "invalid_output", f"vocabulary {vocabulary!r}: {asked.detail}"
                break
            vocabularies.append(ProposedVocabulary(name=vocabulary, values=list(dict.fromkeys(v.strip() for v in asked.value.values))))
        else:
            world, error = _check(proposal.model_copy(update={"vocabularies": vocabularies}), domain, language, seed)
            reason, detail = ("invalid_output", error or "") if world is None else (None, "")
    out = DomainResult(domain=domain, language=language, calls=calls, seconds=round(time.perf_counter() - started, 2),
                       tokens=usage.prompt_tokens + usage.completion_tokens)  # fmt: skip
    if world is None:
        return out.model_copy(update={"reason": reason, "detail": detail[:600]})
    return out.model_copy(update={"world": world.model_copy(update={"name": _identifier(name or world.name, seed)})})


def _identifier(text: str, seed: int) -> str:
    """`text` spelled as an identifier, Chinese in pinyin ('客户编号' -> 'ke_hu_bian_hao'); text with nothing to
    spell is returned as is, so validation names it."""
    if _CJK.search(text):
        text = "_".join(lazy_pinyin(text))
    name = re.sub(r"[^a-z0-9_]+", "_", text.lower()).strip("_")[:40]
    if not name:
        return text
    return name if name[0].isalpha() else ("w_" + name)[:40]
