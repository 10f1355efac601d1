"""python-socketio's own client, measured the way keel-bench measures Keel's, against the same server.

usage: socketio_bench_client.py URL MODE COUNT
  ack      COUNT acknowledged "echo" emits one after another: prints "P50 P99" in microseconds
  burst    asks the server for COUNT "tick" events: prints events per second until the last one arrived, and the
           client's processor time per event over the same span, in microseconds
  connect  COUNT connections, one after another: prints the median time to join the namespace, in milliseconds
  cycles   COUNT connect and disconnect cycles: prints the growth of the resident memory, in KiB, from the end of
           the first tenth of the cycles to the end
"""

import asyncio
import resource
import sys
import time

import socketio


def rss_kib():
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * resource.getpagesize() // 1024


async def connected(url):
    client = socketio.AsyncClient(reconnection=False)
    await client.connect(url, transports=["websocket"])
    return client


async def main():
    url, mode, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode == "ack":
        client = await connected(url)
        samples = []
        for index in range(count):
            start = time.perf_counter_ns()
            answer = await client.call("echo", index)
            samples.append((time.perf_counter_ns() - start) / 1000)
            assert answer == index, answer
        await client.disconnect()
        samples.sort()
        print(samples[len(samples) // 2], samples[min(len(samples) - 1, len(samples) * 99 // 100)])
    elif mode == "burst":
        client = await connected(url)
        done = asyncio.Event()
        received = 0

        @client.on("tick")
        async def tick(index):
            nonlocal received
            received += 1
            if received == count:
                done.set()

        start = time.perf_counter()
        cpu_start = time.process_time()
        await client.emit("burst", count)
        await asyncio.wait_for(done.wait(), 120)
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
        await client.disconnect()
        print(count / elapsed, cpu * 1e6 / count)
    elif mode == "connect":
        times = []
        for _ in range(count):
            start = time.perf_counter()
            client = await connected(url)
            times.append((time.perf_counter() - start) * 1000)
            await client.disconnect()
        times.sort()
        print(times[len(times) // 2])
    elif mode == "cycles":
        baseline = None
        for cycle in range(count):
            client = await connected(url)
            await client.disconnect()
            if cycle + 1 == max(1, count // 10):
                baseline = rss_kib()
        print(rss_kib() - baseline)


asyncio.run(main())
