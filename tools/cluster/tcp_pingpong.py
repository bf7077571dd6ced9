#!/usr/bin/env python3
"""TCP round trips between two hosts of a heist-cluster: what a small MPI
message sees from the network (heist-cluster ping runs it).

  tcp_pingpong.py serve PORT           echo 16-byte messages (one connection, then exit)
  tcp_pingpong.py ping HOST PORT N     N round trips; prints min/median/p90/max in us

Both ends set TCP_NODELAY, as OpenMPI's btl/tcp does. The client retries its
connection for 10 s (the server may still be starting) and every socket call
times out after 10 s, so a lost peer ends the measurement instead of hanging it.
"""
import socket
import sys
import time

MESSAGE = 16


def serve(port):
    with socket.create_server(("0.0.0.0", port), reuse_port=False) as server:
        server.settimeout(20)
        conn, _ = server.accept()
        with conn:
            conn.settimeout(10)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            while True:
                data = conn.recv(MESSAGE)
                if not data:
                    return
                conn.sendall(data)


def ping(host, port, count):
    deadline = time.monotonic() + 10
    while True:
        try:
            conn = socket.create_connection((host, port), timeout=10)
            break
        except (ConnectionRefusedError, OSError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    with conn:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        payload = b"x" * MESSAGE
        times = []
        for _ in range(count):
            start = time.perf_counter()
            conn.sendall(payload)
            got = 0
            while got < MESSAGE:
                chunk = conn.recv(MESSAGE - got)
                if not chunk:
                    raise ConnectionError("the server closed the connection")
                got += len(chunk)
            times.append((time.perf_counter() - start) * 1e6)
    times.sort()
    print(f"tcp rtt us: min {times[0]:.0f} median {times[len(times) // 2]:.0f} "
          f"p90 {times[len(times) * 9 // 10]:.0f} max {times[-1]:.0f} ({count} round trips)")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "serve":
        serve(int(sys.argv[2]))
    elif len(sys.argv) == 5 and sys.argv[1] == "ping":
        ping(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(__doc__)
