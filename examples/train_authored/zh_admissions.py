"""两所大学：先查院校代码，再查在浙江的最低录取分 (zh, parallel_multi_hop；省份为枚举)."""


_PROVINCES = ["浙江", "江苏", "广东", "河南"]

FIELDS = {
    "domain": "university admissions",
    "language": "zh",
    "task": {"question": "我是浙江考生，北辰大学和南岭理工大学2024年在浙江的最低录取分各是多少？",
             "answer": "北辰大学 652 分，南岭理工大学 618 分", "scenario": "parallel_multi_hop"},
    "subtasks": [
        {"id": "bc_code", "question": "北辰大学的院校代码是什么？", "answer": "U1203",
         "golden_call": {"tool": "find_university", "arguments": {"name": "北辰大学"}}},
        {"id": "bc_score", "question": "U1203 在浙江 2024 年的最低录取分是多少？", "answer": "652", "depends_on": ["bc_code"],
         "golden_call": {"tool": "admission_score", "arguments": {"university_code": "U1203", "province": "浙江", "year": 2024}}},
        {"id": "nl_code", "question": "南岭理工大学的院校代码是什么？", "answer": "U4417",
         "golden_call": {"tool": "find_university", "arguments": {"name": "南岭理工大学"}}},
        {"id": "nl_score", "question": "U4417 在浙江 2024 年的最低录取分是多少？", "answer": "618", "depends_on": ["nl_code"],
         "golden_call": {"tool": "admission_score", "arguments": {"university_code": "U4417", "province": "浙江", "year": 2024}}},
    ],
    "tools": [
        {"name": "find_university", "description": "按校名查询院校代码、所在地和办学性质。",
         "input_schema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
        {"name": "admission_score", "description": "查询院校某年在某省普通类的最低录取分和最低位次。",
         "input_schema": {"type": "object",
                          "properties": {"university_code": {"type": "string", "pattern": "^U[0-9]{4}$"},
                                         "province": {"type": "string", "enum": _PROVINCES},
                                         "year": {"type": "integer", "minimum": 2015, "maximum": 2030}},
                          "required": ["university_code", "province", "year"]}},
    ],
}
