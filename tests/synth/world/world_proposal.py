"""A domain proposal as a model would write it, for the tests that script the proposer."""

from __future__ import annotations


def clinic_proposal(**changes) -> dict:
    """A valid proposal for an online clinic (Chinese labels), with `changes` merged in at the top level."""
    proposal = {
        "name": "clinic_visits",
        "entities": [
            {"name": "doctor", "label": "医生", "fields": [
                {"name": "name", "label": "姓名", "type": "name"},
                {"name": "specialty", "label": "科室", "type": "enum", "vocabulary": "specialties"}]},
            {"name": "patient", "label": "患者", "fields": [
                {"name": "name", "label": "姓名", "type": "name"},
                {"name": "phone", "label": "电话", "type": "code"}]},
            {"name": "visit", "label": "就诊记录", "fields": [
                {"name": "patient_id", "label": "患者", "type": "ref", "ref": "patient"},
                {"name": "doctor_id", "label": "医生", "type": "ref", "ref": "doctor"},
                {"name": "visit_date", "label": "就诊日期", "type": "date"},
                {"name": "fee", "label": "费用", "type": "money", "currency": "CNY", "min": 20, "max": 800}]},
        ],
        "vocabularies": [{"name": "specialties", "values": ["内科", "外科", "儿科", "眼科", "皮肤科"]}],
    }  # fmt: skip
    proposal.update(changes)
    return proposal
