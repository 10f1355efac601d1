"""A python-socketio server for Keel's realtime tests and keel-bench: an independent Socket.IO v5 implementation.

Prints "PORT <n>" on standard output once it listens on 127.0.0.1, then serves until killed; with --log, every packet
and every close with its reason on standard error.

Namespaces: "/" and "/chat" accept everyone; "/private" wants the CONNECT auth {"token": "letmein"} and refuses
anything else with CONNECT_ERROR {"message": "Not authorized"}.
Events (every namespace):
  echo ARGS...          emits "echo" with ARGS back to the sender, and acknowledges with ARGS
  join ROOM             joins ROOM, acknowledges "joined"
  to_room ROOM ARGS...  emits "room_message" with ARGS to everyone in ROOM
  disconnect_me         the server disconnects the sender
  ask                   the server emits "question" asking for an acknowledgement, then emits "answer" with what
                        the acknowledgement carried
  burst N               emits "tick" N times with the index (for throughput), then acknowledges N
"""

import argparse
import asyncio
import logging
import signal
import sys

import socketio
from aiohttp import web


def timed_logger(name):
    """A logger of every message at INFO and above, each with its time, on standard error."""
    logger = logging.getLogger(name)
    logger.setLevel(logging.INFO)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(message)s"))
    logger.addHandler(handler)
    return logger


def make_server(ping_interval, ping_timeout, log):
    sio = socketio.AsyncServer(
        async_mode="aiohttp",
        # Every packet and every close with its reason, on standard error, for a test that asks (--log).
        logger=timed_logger("socketio") if log else False,
        engineio_logger=timed_logger("engineio") if log else False,
        ping_interval=ping_interval,
        ping_timeout=ping_timeout,
        transports=["websocket"],
        # Everything else as the library ships it, as a user's server runs: the same-origin check on the Origin
        # header (cors_allowed_origins), the 1,000,000-byte message limit (max_http_buffer_size).
    )

    async def connect(sid, environ, auth, namespace):
        if namespace == "/private" and not (isinstance(auth, dict) and auth.get("token") == "letmein"):
            raise socketio.exceptions.ConnectionRefusedError("Not authorized")

    for namespace in ("/", "/chat", "/private"):
        def bind(namespace):
            @sio.on("connect", namespace=namespace)
            async def on_connect(sid, environ, auth=None):
                await connect(sid, environ, auth, namespace)

            @sio.on("echo", namespace=namespace)
            async def on_echo(sid, *args):
                await sio.emit("echo", list(args), to=sid, namespace=namespace)
                return tuple(args)

            @sio.on("join", namespace=namespace)
            async def on_join(sid, room):
                await sio.enter_room(sid, room, namespace=namespace)
                return "joined"

            @sio.on("to_room", namespace=namespace)
            async def on_to_room(sid, room, *args):
                await sio.emit("room_message", list(args), room=room, namespace=namespace)
                return "sent"

            @sio.on("disconnect_me", namespace=namespace)
            async def on_disconnect_me(sid, *args):
                await sio.disconnect(sid, namespace=namespace)

            @sio.on("ask", namespace=namespace)
            async def on_ask(sid, *args):
                answer = await sio.call("question", "what is 6 x 7?", to=sid, namespace=namespace, timeout=120)
                await sio.emit("answer", answer, to=sid, namespace=namespace)

            @sio.on("burst", namespace=namespace)
            async def on_burst(sid, count):
                for index in range(int(count)):
                    await sio.emit("tick", index, to=sid, namespace=namespace)
                return count

        bind(namespace)
    return sio


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--ping-interval", type=float, default=25)
    parser.add_argument("--ping-timeout", type=float, default=20)
    parser.add_argument("--log", action="store_true")
    options = parser.parse_args()
    sio = make_server(options.ping_interval, options.ping_timeout, options.log)
    app = web.Application()
    sio.attach(app)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", options.port, reuse_address=True)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    print(f"PORT {port}", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    # A parent that ignores SIGTERM passes that on; this server ends on it.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
