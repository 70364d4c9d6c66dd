"""Device names: what a Ray resource says about where a device is, and what it fits."""

from __future__ import annotations

import json

import pytest

from omg_agent.errors import ConfigError
from omg_agent.fleet.devices import FleetDevice, from_resources, local_devices, resources_json


def test_a_name_says_which_adb_server_sees_the_phone() -> None:
    assert FleetDevice("R58M123").adb_address() == ("R58M123", None, None)
    assert FleetDevice("127.0.0.1:5555@10.0.0.5:5037").adb_address() == (
        "127.0.0.1:5555", "10.0.0.5", 5037)
    assert FleetDevice("vphone-a1").is_vphone and not FleetDevice("R58M123").is_vphone


@pytest.mark.parametrize("name", ["", "a b", "x@host", "x@host:port", "a;rm -rf", "é"])
def test_a_name_that_is_no_device_is_refused_saying_what_is(name: str) -> None:
    with pytest.raises(ConfigError, match="'vphone-LABEL', an adb serial, or SERIAL@HOST:PORT"):
        FleetDevice(name)


def test_a_nodes_resources_give_its_devices_and_nothing_else() -> None:
    resources = {"CPU": 1.0, "memory": 1e9, "node:10.0.0.2": 1.0, "omg-device:vphone-b1": 1.0,
                 "omg-device:R58M@10.0.0.5:5037": 1.0, "omg-device:bad name": 1.0}
    assert [(d.name, d.node) for d in from_resources(resources, "n2")] == [
        ("R58M@10.0.0.5:5037", "n2"), ("vphone-b1", "n2")]


def test_resources_json_offers_one_unit_per_device_and_names_are_unique() -> None:
    offered = json.loads(resources_json(local_devices(["R58M"], vphones=2)))
    assert offered == {"omg-device:R58M": 1, "omg-device:vphone-1": 1,
                       "omg-device:vphone-2": 1}
    with pytest.raises(ConfigError, match="named twice: R58M"):
        local_devices(["R58M", "R58M"])


def test_needs_match_the_model_without_case_and_the_app_exactly() -> None:
    pixel = FleetDevice("p", profile="Pixel 7", apps=("com.android.settings",))
    assert pixel.matches("pixel 7", "com.android.settings") and pixel.matches(None, None)
    assert not pixel.matches("Pixel 8", None) and not pixel.matches(None, "com.android")
