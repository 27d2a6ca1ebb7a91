"""按症状找科室，再查当日值班医生，两位病人并行 (zh, parallel_multi_hop)."""


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
