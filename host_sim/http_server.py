"""The HTTP server of the host-side web pages and test servers (the web simulator, the
Lichess test server): Python's threading server, quiet about clients that go away."""
import sys
from http.server import ThreadingHTTPServer

# what a client that goes away mid-request raises in the handler's thread
CLIENT_GONE = (ConnectionResetError, BrokenPipeError, ConnectionAbortedError)


class QuietHTTPServer(ThreadingHTTPServer):
    """ThreadingHTTPServer with daemon threads whose handle_error prints nothing for a client
    that went away (a board's power cut, a closed browser tab): that is part of the game, not
    an error worth a traceback. Anything else still prints one."""

    daemon_threads = True

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], CLIENT_GONE):
            return
        ThreadingHTTPServer.handle_error(self, request, client_address)
