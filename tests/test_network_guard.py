import socket

import pytest
from conftest import NetworkBlocked


def test_guard_refuses_non_loopback():
    with pytest.raises(NetworkBlocked):
        socket.create_connection(("93.184.216.34", 80), timeout=1)
    with pytest.raises(NetworkBlocked):
        socket.getaddrinfo("example.com", 443)


def test_guard_allows_loopback():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(2)
    try:
        with socket.create_connection(server.getsockname(), timeout=1) as client:
            peer, _ = server.accept()
            with peer:
                client.sendall(b"ping")
                assert peer.recv(4) == b"ping"  # bytes really went through the loopback connection
        with socket.socket() as other:
            other.settimeout(1)
            assert other.connect_ex(server.getsockname()) == 0
        assert socket.getaddrinfo("localhost", 80)  # resolving the loopback name is allowed too
    finally:
        server.close()
