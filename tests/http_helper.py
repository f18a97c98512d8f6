"""For the HTTP servers' tests: a client that goes away in the middle of a request."""
import socket
import struct
import time


def cut_off_mid_request(port, head):
    """Send the start of a request (`head`, headers never ended) to 127.0.0.1:`port`, then
    reset the connection, as a board losing power or a closed browser tab does."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(head)
    time.sleep(0.2)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close = reset
    sock.close()
    time.sleep(0.3)
