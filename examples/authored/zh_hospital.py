"""按症状找科室，再查当日值班医生，两位病人并行 (zh, parallel_multi_hop)."""

CODE = '''"""医院分诊与排班（样例数据）。"""

TRIAGE = {
    "反复头痛": "神经内科",
    "胸闷气短": "心血管内科",
    "皮肤瘙痒": "皮肤科",
    "膝盖疼痛": "骨科",
}
ROSTER = {
    ("神经内科", "周三"): "王志远 主任医师",
    ("神经内科", "周四"): "陈雅琴 副主任医师",
    ("心血管内科", "周三"): "赵海峰 副主任医师",
    ("骨科", "周四"): "周晓东 主治医师",
    ("皮肤科", "周三"): "林静 主治医师",
}


def triage(symptom: str) -> str:
    """根据主要症状推荐就诊科室。"""
    dept = TRIAGE.get(symptom.strip())
    if dept is None:
        return f"无法根据“{symptom}”分诊，请咨询导诊台。"
    return f"症状“{symptom}”建议就诊：{dept}"


def duty_doctor(department: str, weekday: str) -> str:
    """查询科室某天的出诊医生。"""
    doctor = ROSTER.get((department.strip(), weekday))
    if doctor is None:
        return f"{department}{weekday}无专家出诊。"
    return f"{department}{weekday}出诊：{doctor}"
'''

_WEEKDAY = {"type": "string", "enum": ["周一", "周二", "周三", "周四", "周五", "周六", "周日"]}

FIELDS = {
    "domain": "medical",
    "language": "zh",
    "task": {"question": "周三我父亲反复头痛、母亲胸闷气短，他们分别该挂哪个科、哪位医生出诊？",
             "answer": "父亲挂神经内科（王志远）；母亲挂心血管内科（赵海峰）", "scenario": "parallel_multi_hop"},
    "subtasks": [
        {"id": "dept_a", "question": "反复头痛应挂哪个科室？", "answer": "神经内科",
         "golden_call": {"tool": "triage", "arguments": {"symptom": "反复头痛"}}},
        {"id": "doc_a", "question": "神经内科周三出诊的是谁？", "answer": "王志远", "depends_on": ["dept_a"],
         "golden_call": {"tool": "duty_doctor", "arguments": {"department": "神经内科", "weekday": "周三"}}},
        {"id": "dept_b", "question": "胸闷气短应挂哪个科室？", "answer": "心血管内科",
         "golden_call": {"tool": "triage", "arguments": {"symptom": "胸闷气短"}}},
        {"id": "doc_b", "question": "心血管内科周三出诊的是谁？", "answer": "赵海峰", "depends_on": ["dept_b"],
         "golden_call": {"tool": "duty_doctor", "arguments": {"department": "心血管内科", "weekday": "周三"}}},
    ],
    "tools": [
        {"name": "triage", "description": "根据症状推荐就诊科室。",
         "input_schema": {"type": "object", "properties": {"symptom": {"type": "string"}}, "required": ["symptom"]}},
        {"name": "duty_doctor", "description": "查询某科室某天（周一至周日）出诊的医生。",
         "input_schema": {"type": "object", "properties": {"department": {"type": "string"}, "weekday": _WEEKDAY},
                          "required": ["department", "weekday"]}},
    ],
}
