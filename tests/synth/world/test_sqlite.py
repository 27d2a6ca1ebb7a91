"""SQLite introspection on a database the test builds: keys, foreign keys, types, row caps."""

from __future__ import annotations

import sqlite3

import pytest

from synth.world import world_from_sqlite


@pytest.fixture
def shop_db(tmp_path):
    path = tmp_path / "shop.sqlite"
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, full_name TEXT, city TEXT, joined TEXT);
        CREATE TABLE products (sku TEXT PRIMARY KEY, title TEXT, category TEXT, price REAL);
        CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(customer_id),
                             sku TEXT REFERENCES products(sku), quantity INTEGER, placed_at TEXT);
        CREATE TABLE order_tags (order_id INTEGER, tag TEXT, PRIMARY KEY (order_id, tag));
        """
    )
    cities = ["Lyon", "Porto", "Oslo"]
    db.executemany("INSERT INTO customers VALUES (?, ?, ?, ?)",
                   [(i, f"Customer {i:03d}", cities[i % 3], f"2024-0{1 + i % 9}-1{i % 10}") for i in range(1, 101)])  # fmt: skip
    categories = ["kitchen", "garden", "office"]
    db.executemany("INSERT INTO products VALUES (?, ?, ?, ?)",
                   [(f"SK-{i:03d}", f"Product {i}", categories[i % 3], 5.5 + i) for i in range(60)])  # fmt: skip
    db.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?)",
                   [(1000 + i, 1 + (i * 37) % 100, f"SK-{(i * 7) % 60:03d}", 1 + i % 4, f"2025-03-{1 + i % 28:02d}") for i in range(200)])  # fmt: skip
    db.commit()
    db.close()
    return path


def test_tables_keys_and_foreign_keys_are_read(shop_db):
    read = world_from_sqlite(shop_db, row_cap=20)
    world = read.world
    assert world.name == "shop" and [e.name for e in world.entities] == ["customer", "order", "product"]
    assert read.skipped == {"order_tags": "a composite primary key ['order_id', 'tag']"}
    relations = {(c.name, f.name, p.name) for c, f, p in world.relations}
    assert relations == {("order", "customer_id", "customer"), ("order", "sku", "product")}
    order = world.entity("order")
    assert order.key == "order_id" and order.field("order_id").type == "id"
    assert order.field("placed_at").type == "date" and order.field("quantity").type == "integer"
    product = world.entity("product")
    assert product.key == "sku" and product.field("sku").type == "code"
    assert product.field("category").type == "enum" and world.vocabularies["product_category"] == ["garden", "kitchen", "office"]
    assert product.field("price").type == "quantity" and product.field("title").type == "name" and product.title_field.name == "title"
    assert world.entity("customer").field("full_name").label == "full name"


def test_rows_are_capped_and_every_reference_resolves(shop_db):
    world = world_from_sqlite(shop_db, row_cap=20).world
    orders = world.entity("order").rows
    assert len(orders) == 20
    customers = {c["customer_id"] for c in world.entity("customer").rows}
    products = {p["sku"] for p in world.entity("product").rows}
    assert all(o["customer_id"] in customers and o["sku"] in products for o in orders)
    assert len(customers) >= 20  # the cap, then the rows orders point at


def test_a_file_that_is_not_sqlite_is_refused(tmp_path):
    bad = tmp_path / "notes.db"
    bad.write_text("not a database at all, just text " * 20)
    with pytest.raises(ValueError, match=r"notes\.db: not a SQLite database"):
        world_from_sqlite(bad)
