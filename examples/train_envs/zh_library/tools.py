"""市图书馆馆藏（样例数据）。"""

BOOKS = {
    "长河落日": ("周砚秋", 2019, "I247.5/2281", {"总馆": (3, 2), "东城分馆": (1, 0)}),
    "长河之歌": ("林未央", 2015, "I247.5/1930", {"总馆": (2, 1), "西湖分馆": (1, 1)}),
    "落日与海": ("程北", 2021, "I267/0457", {"西湖分馆": (2, 2)}),
}
LOANS = {}


def search_book(title: str, branch: str | None = None) -> str:
    """书目信息和各馆册数（总册数 / 可借册数）。"""
    book = BOOKS.get(title.strip().strip("《》"))
    if book is None:
        return f"馆藏中没有《{title}》。馆藏相近书目：{'、'.join(f'《{t}》' for t in BOOKS)}"
    author, year, call_no, holdings = book
    rows = [(b, n) for b, n in holdings.items() if branch in (None, b)]
    where = "；".join(f"{b} {total} 册（可借 {free} 册）" for b, (total, free) in rows) or f"{branch}无馆藏"
    return f"《{title.strip('《》')}》{author} 著，{year} 年，索书号 {call_no}；{where}"


def renew_loan(card_no: str, barcode: str) -> str:
    """续借一次，延长 30 天；同一本书每个会话只能续借一次。"""
    if (card_no, barcode) in LOANS:
        return f"条码 {barcode} 已续借过，不能再次续借。"
    LOANS[(card_no, barcode)] = True
    return f"读者证 {card_no} 的图书 {barcode} 已续借 30 天。"
