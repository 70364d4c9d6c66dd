"""The todo list: rendered in one place, read back in one place."""

from __future__ import annotations

from omg_agent.core.todo import TodoItem, read_todo, render_todo


def test_a_rendered_list_reads_back_as_the_same_items() -> None:
    items = [TodoItem(1, "Open Settings", True), TodoItem(2, "Turn off Wi-Fi", False)]
    assert read_todo(render_todo(items)) == [(True, "1. Open Settings"),
                                             (False, "2. Turn off Wi-Fi")]


def test_a_model_written_checklist_reads_with_any_mark_and_bare_lines_open() -> None:
    text = "[X] opened Shop\n* [ ] search\n\n   \n- add to cart\nsave the price"
    assert read_todo(text) == [(True, "opened Shop"), (False, "search"),
                               (False, "add to cart"), (False, "save the price")]


def test_a_mark_alone_is_no_item() -> None:
    assert read_todo("- [x]\n- [ ]   \n-") == []
