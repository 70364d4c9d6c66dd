"""The adbd side of the VirtualPhone: banner, shell, forwarded sockets, the u2 server.

:class:`AdbdBackendMixin` is what :class:`~omg_agent.vphone.adbd.AdbdServer` calls on the
phone (see ``AdbdBackend``) plus serving and closing; :class:`VirtualPhone` mixes it in and
sets the attributes declared here in its ``__init__``.
"""

from __future__ import annotations

import socket
import threading
from typing import TYPE_CHECKING

from omg_agent.vphone.memfs import MemFS
from omg_agent.vphone.profile import DeviceProfile
from omg_agent.vphone.shellio import ShellIO

if TYPE_CHECKING:
    from omg_agent.vphone.adbd import AdbdServer
    from omg_agent.vphone.shell import Shell
    from omg_agent.vphone.u2server import U2Server


class AdbdBackendMixin:
    profile: DeviceProfile
    lock: threading.RLock
    fs: MemFS
    adbd: AdbdServer | None
    _tcp: dict[int, int]
    _u2: dict[int, U2Server]
    _shell: Shell | None

    @property
    def online(self) -> bool:
        raise NotImplementedError  # the phone knows (faults)

    def banner(self) -> bytes:
        p = self.profile
        features = "shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,apex,abb,abb_exec"
        return (f"device::ro.product.name={p.product};ro.product.model={p.model};"
                f"ro.product.device={p.device};features={features}").encode()

    @property
    def shell(self) -> Shell:
        if self._shell is None:
            from omg_agent.vphone.shell import Shell

            self._shell = Shell(self)
        return self._shell

    def run_shell(self, cmd: str, io: ShellIO) -> int:
        return self.shell.run(cmd, io)

    def register_tcp(self, device_port: int, host_port: int) -> None:
        self._tcp[device_port] = host_port

    def unregister_tcp(self, device_port: int) -> None:
        self._tcp.pop(device_port, None)

    def open_tcp(self, device_port: int) -> socket.socket:
        host_port = self._tcp.get(device_port)
        if host_port is None:
            raise ConnectionRefusedError(f"nothing listens on device port {device_port}")
        sock = socket.create_connection(("127.0.0.1", host_port), timeout=10)
        # The timeout bounds the connect only: a forwarded stream may stay silent for as long
        # as the client waits (a 20 s uiautomator2 wait), as it does on a phone.
        sock.settimeout(None)
        return sock

    def start_uiautomator_server(self, port: int = 9008) -> None:
        from omg_agent.vphone.u2server import U2Server

        with self.lock:
            if port in self._u2:
                return
            server = U2Server(self)
            server.start(port)
            self._u2[port] = server

    def stop_uiautomator_server(self, port: int = 9008) -> None:
        server = self._u2.pop(port, None)
        if server is not None:
            server.stop()

    def serve(self, port: int = 0, host: str = "127.0.0.1") -> AdbdServer:
        """Start the ADB device server; returns it (``.port`` is the TCP port)."""
        from omg_agent.vphone.adbd import AdbdServer

        self.adbd = AdbdServer(self, host=host, port=port)
        self.adbd.start()
        return self.adbd

    def close(self) -> None:
        if self._shell is not None:
            self._shell.close()
        for port in list(self._u2):
            self.stop_uiautomator_server(port)
        if self.adbd is not None:
            self.adbd.stop()
            self.adbd = None
