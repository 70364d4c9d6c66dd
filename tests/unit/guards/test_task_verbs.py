"""One verb table for a task's sensitive classes (guards/task_verbs.py, issue 34): the
authorisation reader (what the user's words let through) and the done rule (what a run must
have done) read "remove" alike — a delete, unless it takes something out of a cart, whose
Remove button the gate holds as harmless."""

from __future__ import annotations

import pytest

from omg_agent.guards.authorisation import parse_authorisations
from omg_agent.guards.cues import label_class
from omg_agent.guards.ledger import task_classes
from omg_agent.guards.task_objects import deleted_names
from omg_agent.guards.task_verbs import removes_from_a_cart, verb_class


def granted_deletes(task: str) -> list[str | None]:
    return [a.target for a in parse_authorisations(task) if a.cls == "delete" and a.grants]


@pytest.mark.parametrize("task", [
    "Remove the note Milk", "Please remove the note Milk in Notes",
    "Can you remove the note Milk?", "Open Notes and remove the note Milk",
    "删除备忘录Milk", "Delete the note Milk"])
def test_removing_a_note_is_a_delete_for_the_done_rule_as_for_the_grant(task: str) -> None:
    # the grant reads a delete of Milk: done must then ask for a delete that went through
    assert granted_deletes(task), task
    assert task_classes(task) == ("delete",), task


@pytest.mark.parametrize("task", [
    "Remove USB-C 数据线 from the cart in Shop", "Remove the cable from the cart in Shop",
    "Open Shop and remove the item Cable from the cart",
    "Remove the cable from my shopping cart", "Remove AirPods Pro out of the basket",
    "You may remove items from the cart",
    "Remove from the cart the cable I added"])  # the cart right after the verb
def test_removing_from_a_cart_is_no_delete_for_either_reader(task: str) -> None:
    assert granted_deletes(task) == [], task
    assert deleted_names(task) == [], task
    assert task_classes(task) == (), task


def test_the_gate_holds_a_cart_s_remove_as_harmless_and_a_delete_as_a_delete() -> None:
    # the control the rule mirrors: a lone Remove is no delete, Delete and Remove all are
    assert label_class("Remove") is None
    assert label_class("Delete") == ("delete", "delete")
    assert label_class("Remove all") == ("delete", "remove all")


def test_remove_counts_by_its_own_clause_and_a_delete_word_whatever_its_object() -> None:
    # a delete elsewhere keeps its class; the cart in another clause changes nothing
    assert task_classes("Remove the note Milk, then remove the cable from the cart") == (
        "delete",)
    assert task_classes("Remove Milk from Notes and add a cable to the cart") == ("delete",)
    assert task_classes("Delete the cable from the cart") == ("delete",)  # a Delete is held
    assert task_classes("从购物车删除数据线") == ("delete",)
    assert granted_deletes("You may remove notes") == ["notes"]


def test_the_verb_table_reads_remove_by_the_words_after_it() -> None:
    assert verb_class("remove") == "delete"
    assert verb_class("Remove", "the note Milk") == "delete"
    assert verb_class("remove", "the cable from the cart") is None
    assert verb_class("delete", "the cable from the cart") == "delete"
    assert verb_class("删除") == "delete" and verb_class("look") is None
    assert removes_from_a_cart("removing", "it off the wish list")
    assert removes_from_a_cart("remove", "数据线 从购物车")
    assert not removes_from_a_cart("remove", "the note Cart")
    assert not removes_from_a_cart("erase", "it from the cart")
