"""医院分诊与排班（样例数据）。"""

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
