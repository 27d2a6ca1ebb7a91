"""A domain becomes a world: a scripted model proposes, code checks and sends back what is wrong."""

from __future__ import annotations

import json

import pytest
from world_proposal import clinic_proposal

from agent_sdk import FunctionModel
from synth.world import domain_language, fill_rows, propose_world


def test_domain_language():
    assert domain_language("在线医疗（挂号、问诊）") == "zh" and domain_language("Cloud Computing") == "en"


@pytest.mark.anyio
async def test_a_refused_proposal_is_sent_back_with_the_error_then_accepted():
    bad = clinic_proposal()
    bad["entities"][2]["fields"][1]["ref"] = "physician"
    model = FunctionModel.from_replies(json.dumps(bad, ensure_ascii=False), json.dumps(clinic_proposal(), ensure_ascii=False))
    result = await propose_world(model, "在线医疗（挂号、问诊）")
    assert result.world is not None and result.calls == 2 and result.language == "zh"
    retry = model.requests[1].messages[-1].content
    assert "visit.doctor_id" in retry and "'physician'" in retry
    world = fill_rows(result.world)
    assert [e.key for e in world.entities] == ["doctor_id", "patient_id", "visit_id"]
    assert {d.kind for d in world.derived} == {"count", "sum"} and len(world.relations) == 2
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in r["name"]) for r in world.entity("patient").rows)


@pytest.mark.anyio
async def test_a_world_with_too_few_relations_is_refused():
    flat = clinic_proposal()
    flat["entities"][2]["fields"] = flat["entities"][2]["fields"][2:]
    model = FunctionModel.from_replies(*[json.dumps(flat, ensure_ascii=False)] * 3)
    result = await propose_world(model, "在线医疗（挂号、问诊）")
    assert result.world is None and result.reason == "invalid_output" and "at least 2 ref fields" in result.detail


@pytest.mark.anyio
async def test_english_labels_for_a_chinese_domain_are_refused():
    english = clinic_proposal()
    english["entities"][0]["label"] = "doctor"
    model = FunctionModel.from_replies(*[json.dumps(english, ensure_ascii=False)] * 3)
    result = await propose_world(model, "在线医疗（挂号、问诊）")
    assert result.world is None and "'doctor' is not Chinese" in result.detail


@pytest.mark.anyio
async def test_a_vocabulary_named_but_not_listed_is_asked_for_on_its_own():
    nameless = clinic_proposal()
    nameless["entities"][0].update(name="clinic", label="诊所")
    nameless["entities"][2]["fields"][1]["ref"] = "clinic"
    nameless["vocabularies"] = []
    clinics = ["仁和诊所", "康宁诊所", "华山诊所", "安心诊所", "同济诊所", "博爱诊所", "长青诊所", "明德诊所"]
    model = FunctionModel.from_replies(json.dumps(nameless, ensure_ascii=False), json.dumps({"values": clinics}, ensure_ascii=False),
                                       json.dumps({"values": ["内科", "外科", "儿科"]}, ensure_ascii=False))  # fmt: skip
    result = await propose_world(model, "在线医疗（挂号、问诊）")
    assert result.world is not None and result.calls == 3, result.detail
    assert result.world.vocabularies["clinic_name"] == clinics and result.world.vocabularies["specialties"] == ["内科", "外科", "儿科"]
    assert "诊所 姓名" in model.requests[1].messages[0].content
    world = fill_rows(result.world)
    assert {r["name"] for r in world.entity("clinic").rows} <= set(clinics)
    assert [d.kind for d in world.derived] == ["count", "sum", "count", "sum"]


@pytest.mark.anyio
async def test_a_vocabulary_the_model_cannot_list_refuses_the_world():
    nameless = clinic_proposal()
    nameless["vocabularies"] = []
    model = FunctionModel.from_replies(json.dumps(nameless, ensure_ascii=False), *[json.dumps({"values": ["内科", "内科", "内科"]})] * 3)
    result = await propose_world(model, "在线医疗（挂号、问诊）")
    assert result.world is None and result.detail.startswith("vocabulary 'specialties':") and result.calls == 4


@pytest.mark.anyio
async def test_names_written_in_chinese_are_spelled_in_pinyin():
    chinese = clinic_proposal()
    chinese["entities"][2]["name"] = "就诊"
    chinese["entities"][0]["fields"][1].update(name="科室", vocabulary="科室表")
    chinese["vocabularies"][0]["name"] = "科室表"
    model = FunctionModel.from_replies(json.dumps(chinese, ensure_ascii=False))
    result = await propose_world(model, "在线医疗（挂号、问诊）")
    assert result.world is not None and result.world.entity("doctor").field("ke_shi").vocabulary == "ke_shi_biao"
    assert [(c.name, f.name, p.name) for c, f, p in result.world.relations][1] == ("jiu_zhen", "doctor_id", "doctor")


@pytest.mark.anyio
async def test_a_reference_to_an_entity_in_the_plural_is_to_the_entity():
    plural = clinic_proposal()
    plural["entities"][2]["fields"][0]["ref"] = "patients"
    model = FunctionModel.from_replies(json.dumps(plural, ensure_ascii=False))
    result = await propose_world(model, "在线医疗（挂号、问诊）")
    assert result.world is not None and result.world.entity("visit").field("patient_id").ref == "patient"


@pytest.mark.anyio
async def test_a_reference_named_for_its_entity_points_at_it():
    unnamed = clinic_proposal()
    del unnamed["entities"][2]["fields"][0]["ref"]
    unnamed["entities"][2]["fields"][0]["name"] = "patient"
    model = FunctionModel.from_replies(json.dumps(unnamed, ensure_ascii=False))
    result = await propose_world(model, "在线医疗（挂号、问诊）")
    assert result.world is not None and result.world.entity("visit").field("patient").ref == "patient"


@pytest.mark.anyio
async def test_a_field_typed_against_its_label_is_sent_back():
    odd = clinic_proposal()
    odd["entities"][1]["fields"][1]["type"] = "money"  # 电话 as an amount of money
    model = FunctionModel.from_replies(*[json.dumps(odd, ensure_ascii=False)] * 3)
    result = await propose_world(model, "在线医疗（挂号、问诊）")
    assert result.world is None and "(patient.phone): '电话' is not a money: make it a code" in result.detail
