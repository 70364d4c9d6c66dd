"""``ip`` and ``ifconfig``: the phone's loopback and Wi-Fi interfaces.

``wlan0`` has an IPv4 address while Wi-Fi is on (``settings global wifi_on``) and is down
without one while it is off, as on a phone. The address is stable per phone (its seed).
"""

from __future__ import annotations

from typing import Any

from omg_agent.vphone.shell.context import CommandTable, Ctx


def _wlan(phone: Any) -> tuple[bool, str, str]:
    """(up, IPv4 address, MAC) of wlan0."""
    seed = int(getattr(phone, "seed", 0))
    up = phone.settings.get("global", {}).get("wifi_on", "1") != "0"
    return up, f"192.168.1.{100 + seed % 100}", f"02:00:00:4f:4d:{seed % 256:02x}"


def _ip_addr(ctx: Ctx, dev: str | None) -> int:
    up, addr, mac = _wlan(ctx.phone)
    blocks = {
        "lo": ["1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group "
               "default qlen 1000",
               "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00",
               "    inet 127.0.0.1/8 scope host lo",
               "       valid_lft forever preferred_lft forever",
               "    inet6 ::1/128 scope host",
               "       valid_lft forever preferred_lft forever"],
        "wlan0": [f"2: wlan0: <BROADCAST,MULTICAST{',UP,LOWER_UP' if up else ''}> mtu 1500 "
                  f"qdisc mq state {'UP' if up else 'DOWN'} group default qlen 3000",
                  f"    link/ether {mac} brd ff:ff:ff:ff:ff:ff"]
        + ([f"    inet {addr}/24 brd 192.168.1.255 scope global wlan0",
            "       valid_lft forever preferred_lft forever"] if up else []),
    }
    if dev is not None and dev not in blocks:
        ctx.errln(f'Device "{dev}" does not exist.')
        return 1
    for name, lines in blocks.items():
        if dev in (None, name):
            for line in lines:
                ctx.outln(line)
    return 0


def ip(ctx: Ctx, args: list[str]) -> int:
    args = [a for a in args if a not in ("-4", "-6", "-o")]
    obj = args[0] if args else ""
    rest = args[1:]
    if obj in ("a", "addr", "address", "link", "l"):
        rest = [a for a in rest if a not in ("show", "list", "dev")]
        return _ip_addr(ctx, rest[0] if rest else None)
    if obj in ("r", "route"):
        up, addr, _ = _wlan(ctx.phone)
        if up:
            ctx.outln(f"192.168.1.0/24 dev wlan0 proto kernel scope link src {addr}")
        return 0
    if not obj:
        ctx.errln("Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }")
        return 255
    ctx.errln(f'Object "{obj}" is unknown, try "ip help".')
    return 255


def ifconfig(ctx: Ctx, args: list[str]) -> int:
    up, addr, mac = _wlan(ctx.phone)
    blocks = {
        "lo": ["lo        Link encap:Local Loopback",
               "          inet addr:127.0.0.1  Mask:255.0.0.0",
               "          inet6 addr: ::1/128 Scope: Host",
               "          UP LOOPBACK RUNNING  MTU:65536  Metric:1"],
        "wlan0": [f"wlan0     Link encap:Ethernet  HWaddr {mac}"]
        + ([f"          inet addr:{addr}  Bcast:192.168.1.255  Mask:255.255.255.0",
            "          UP BROADCAST RUNNING MULTICAST  MTU:1500  Metric:1"] if up else
           ["          BROADCAST MULTICAST  MTU:1500  Metric:1"]),
    }
    if args and args[0] not in blocks:
        return ctx.fail(f"{args[0]}: No such device")
    shown = [args[0]] if args else [n for n in blocks if n == "lo" or up]
    for name in shown:
        for line in blocks[name]:
            ctx.outln(line)
        ctx.outln()
    return 0


COMMANDS: CommandTable = {"ip": ip, "ifconfig": ifconfig}
