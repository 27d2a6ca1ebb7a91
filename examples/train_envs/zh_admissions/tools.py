"""高校录取分数线（样例数据）。"""

UNIVERSITIES = {"北辰大学": ("U1203", "北京", "公办本科"), "南岭理工大学": ("U4417", "广州", "公办本科"),
                "东岳师范学院": ("U2380", "济南", "公办本科")}
SCORES = {
    ("U1203", "浙江", 2024): (652, 5812), ("U1203", "江苏", 2024): (641, 3905), ("U1203", "浙江", 2023): (647, 6230),
    ("U4417", "浙江", 2024): (618, 21460), ("U4417", "江苏", 2024): (603, 17240), ("U4417", "广东", 2024): (597, 30115),
    ("U2380", "浙江", 2024): (589, 48730),
}


def find_university(name: str) -> str:
    """院校代码等基本信息。"""
    u = UNIVERSITIES.get(name.strip())
    if u is None:
        return f"未找到院校「{name}」。已收录：{'、'.join(UNIVERSITIES)}"
    code, city, kind = u
    return f"{name.strip()}：院校代码 {code}，所在地 {city}，{kind}"


def admission_score(university_code: str, province: str, year: int) -> str:
    """某年某省普通类最低录取分与位次。"""
    names = {v[0]: k for k, v in UNIVERSITIES.items()}
    if university_code not in names:
        return f"未知院校代码 {university_code}，请先用 find_university 查询。"
    row = SCORES.get((university_code, province, year))
    if row is None:
        return f"{names[university_code]}（{university_code}）{year}年在{province}暂无录取数据。"
    score, rank = row
    return f"{names[university_code]}（{university_code}）{year}年在{province}普通类最低录取分 {score}，最低位次 {rank:,}"
