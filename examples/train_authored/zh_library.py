"""图书馆查书：书名查索书号 (zh, single_hop；可选分馆参数，续借工具用不到)."""


FIELDS = {
    "domain": "libraries",
    "language": "zh",
    "task": {"question": "我想去市图书馆借《长河落日》，它的索书号是多少？", "answer": "I247.5/2281", "scenario": "single_hop"},
    "subtasks": [
        {"id": "call_no", "question": "《长河落日》的索书号是什么？", "answer": "I247.5/2281",
         "golden_call": {"tool": "search_book", "arguments": {"title": "长河落日"}}},
    ],
    "tools": [
        {"name": "search_book", "description": "按书名查询市图书馆馆藏：作者、索书号、各馆可借册数。",
         "input_schema": {"type": "object",
                          "properties": {"title": {"type": "string", "description": "书名，不含书名号"},
                                         "branch": {"type": "string", "enum": ["总馆", "东城分馆", "西湖分馆"],
                                                    "description": "只看某个馆（默认全部）"}},
                          "required": ["title"]}},
        {"name": "renew_loan", "description": "用读者证号续借一本已借图书。",
         "input_schema": {"type": "object",
                          "properties": {"card_no": {"type": "string", "pattern": "^[0-9]{10}$"},
                                         "barcode": {"type": "string", "pattern": "^[0-9]{8}$"}},
                          "required": ["card_no", "barcode"]}},
    ],
}
