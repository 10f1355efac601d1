"""The Sandbox console in a real headless browser: Debian's Chromium driven by Playwright (Tests/Browser/requirements.txt).

  console_browser.py check --base URL --key KEY --chromium PATH [--render-limit SECONDS]
      what SandboxConsoleBrowserTests asks of the page, on a Sandbox the test started (with one Socket.IO client
      connected, which the page is to disconnect): prints `ok NAME: what was seen` for each check, or
      `fail NAME: why` and exits 1 at the first that fails.
  console_browser.py screenshot --base URL --key KEY --chromium PATH --out FILE
      the page with some traffic, for the Sandbox guide (`make console-screenshot`).
"""

import argparse
import http.client
import http.server
import json
import sys
import threading
import time
import urllib.error
import urllib.request

from playwright.sync_api import sync_playwright

JOURNAL_SIZE = 10_000


class Failed(Exception):
    pass


def wait_until(page, expression, timeout):
    """Polls `expression` in the page until it is true, for at most `timeout` seconds. From outside the page: the
    page's Content-Security-Policy forbids evaluating strings inside it, which Playwright's own waiting does."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise Failed(f"waited {timeout} s for {expression}")
        time.sleep(0.005)


def check(name, condition, seen):
    if not condition:
        raise Failed(f"{name}: {seen}")
    print(f"ok {name}: {seen}", flush=True)


class Sandbox:
    """The Sandbox under test, asked as a test client would: HTTP on 127.0.0.1, the key in `Sandbox-Key`."""

    def __init__(self, base, key):
        self.base, self.key = base, key
        self.host, self.port = base.split("//")[1].split(":")[0], int(base.rsplit(":", 1)[1])

    def status(self, method, path, body=None, keyed=False):
        headers = {"Api-Token": "T", "Content-Type": "application/json"}
        if keyed:
            headers["Sandbox-Key"] = self.key
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def faults(self):
        return json.loads(self.status("GET", "/_sandbox/faults", keyed=True)[1])["faults"]

    def flood(self, count, connections=4):
        """`count` requests to /v3/users/{n}, over a few kept-alive connections at once."""

        def send(indices):
            connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
            for index in indices:
                connection.request("GET", f"/v3/users/u{index}", headers={"Api-Token": "T"})
                connection.getresponse().read()
            connection.close()

        threads = [threading.Thread(target=send, args=(range(n, count, connections),)) for n in range(connections)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()


def other_origin_server():
    """A page at another port of 127.0.0.1 (the same site, another origin) that tries to read and drive the console."""

    page = b"""<!DOCTYPE html><html><body><p id="result">running</p><script>
const base = new URLSearchParams(location.search).get('sandbox');
const tries = [
  fetch(base + '/_sandbox/state', {credentials: 'include'}).then(r => r.text()).then(t => 'read ' + t.length, e => 'blocked'),
  fetch(base + '/_sandbox/faults', {method: 'POST', credentials: 'include', mode: 'no-cors',
    headers: {'Content-Type': 'text/plain'}, body: '{"route":"*","status":500}'}).then(() => 'sent', () => 'blocked'),
  fetch(base + '/_sandbox/faults', {method: 'POST', credentials: 'include',
    headers: {'Content-Type': 'application/json', 'Sandbox-Console': '1'}, body: '{"route":"*","status":500}'})
    .then(() => 'sent', () => 'blocked'),
];
Promise.all(tries).then(results => { document.getElementById('result').textContent = results.join(','); });
</script></body></html>"""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def checks(playwright, chromium, sandbox, render_limit):
    browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
    console = f"{sandbox.base}/_sandbox/console"

    # Without the key: nothing shown.
    stranger = browser.new_page()
    answer = stranger.goto(console)
    check("no key, no page", answer.status == 401 and stranger.query_selector("#journal") is None,
          f"status {answer.status}")
    stranger.close()

    # Without JavaScript, the static parts read: every panel's heading and what it is for.
    plain = browser.new_context(java_script_enabled=False).new_page()
    plain.goto(f"{console}?key={sandbox.key}")
    text = plain.inner_text("body")
    check("readable without JavaScript", all(heading in text for heading in ["Journal", "Traffic", "Sockets", "Chat",
                                                                            "Controls"]), " / ".join(text.split()[:12]))
    plain.close()

    # The key once, in the address: the page, the key gone from the address bar.
    context = browser.new_context()
    page = context.new_page()
    errors, hosts = [], set()
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: hosts.add(request.url.split("/")[2]))
    page.goto(f"{console}?key={sandbox.key}")
    wait_until(page, "window.sandboxConsole && window.sandboxConsole.ready", 10)
    check("key to cookie", page.url == console and sandbox.key not in page.content(), page.url)

    # A request from a test client is in the journal within a second.
    before = page.evaluate("window.sandboxConsole.total()")
    started = time.monotonic()
    sandbox.status("GET", "/v3/users/journal-me")
    wait_until(page, f"window.sandboxConsole.total() > {before}", 1)
    page.wait_for_selector('#journal .row >> text="/v3/users/journal-me"', timeout=1_000)
    check("live journal", True, f"shown {time.monotonic() - started:.3f} s after the request")

    # The filters narrow the journal; a row's detail shows its headers, secrets masked.
    page.fill("#filter-path", "journal-me")
    wait_until(page, "window.sandboxConsole.entries() === 1", 5)
    page.select_option("#filter-status", "5xx")
    wait_until(page, "window.sandboxConsole.entries() === 0", 5)
    page.select_option("#filter-status", "all")
    page.click('#journal .row >> text="/v3/users/journal-me"')
    page.wait_for_selector('#detail >> text="api-token"', timeout=5_000)
    detail = page.inner_text("#detail")
    check("filters and detail", "***" in detail and "GET /v3/users/journal-me" in detail, " / ".join(detail.split()[:8]))
    page.fill("#filter-path", "")
    wait_until(page, f"window.sandboxConsole.entries() === window.sandboxConsole.total()", 5)

    # The connected SocketIOClient is listed.
    page.wait_for_selector('#sockets tr >> text="/"', timeout=5_000)
    check("sockets listed", True, page.inner_text("#socket-count"))

    # A fault set on the page fails the next request as set; removing it restores it.
    page.fill("#fault-route", "/v3/users")
    page.select_option("#fault-method", "GET")
    page.fill("#fault-status", "503")
    page.click("#fault-add")
    page.wait_for_selector("#faults .fault", timeout=5_000)
    status, _ = sandbox.status("GET", "/v3/users")
    check("fault from the page", status == 503 and len(sandbox.faults()) == 1, f"GET /v3/users answered {status}")
    page.click("#faults .fault-remove")
    page.wait_for_selector("#faults .fault", state="detached", timeout=5_000)
    status, _ = sandbox.status("GET", "/v3/users")
    check("fault removed from the page", status == 200 and sandbox.faults() == [], f"GET /v3/users answered {status}")

    # The page drops every socket: the test's client sees it.
    page.click("#socket-drop")
    wait_until(page, "document.getElementById('error').textContent === ''", 5)
    check("socket drop", True, "clicked")

    # Another origin of the same site, with the console's cookie in the same browser, reads and drives nothing.
    server = other_origin_server()
    try:
        other = context.new_page()
        other.goto(f"http://127.0.0.1:{server.server_address[1]}/?sandbox={sandbox.base}")
        wait_until(other, "document.getElementById('result').textContent !== 'running'", 10)
        result = other.inner_text("#result")
        check("another origin", result.startswith("blocked") and "sent" not in result.split(",")[2:] and
              sandbox.faults() == [], f"its tries ended {result}; faults in force: {sandbox.faults()}")
        other.close()
    finally:
        server.shutdown()

    # 10,000 requests in the journal: the page shows the last of them within a second of opening.
    status, _ = sandbox.status("POST", "/_sandbox/reset", body={}, keyed=True)
    check("reset", status == 200, status)
    sandbox.flood(JOURNAL_SIZE)
    started = time.monotonic()
    page.goto(console)
    wait_until(page, f"window.sandboxConsole.ready && window.sandboxConsole.total() === {JOURNAL_SIZE}", 10)
    page.wait_for_selector(f'#journal .row[data-id="{JOURNAL_SIZE}"]', timeout=10_000)
    elapsed = time.monotonic() - started
    check(f"10,000 requests rendered within {render_limit:g} s", elapsed < render_limit,
          f"{elapsed:.3f} s from opening the page")

    check("no console errors", errors == [], errors)
    check("no other host", hosts == {f"{sandbox.host}:{sandbox.port}"}, sorted(hosts))
    browser.close()


def screenshot(playwright, chromium, sandbox, out):
    browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(f"{sandbox.base}/_sandbox/console?key={sandbox.key}")
    wait_until(page, "window.sandboxConsole && window.sandboxConsole.ready", 10)
    for index in range(40):
        sandbox.status("POST", "/v3/users", body={"user_id": f"user{index}", "nickname": f"User {index}",
                                                  "profile_url": ""})
        sandbox.status("GET", f"/v3/users/user{index if index % 7 else 999}")
    sandbox.status("POST", "/_sandbox/faults", body={"route": "/v3/users", "method": "GET", "status": 503,
                                                     "rate": 0.3, "seed": 7}, keyed=True)
    for _ in range(20):
        sandbox.status("GET", "/v3/users")
    page.wait_for_timeout(2_500)  # two `state` events: the chart and the totals
    page.click("#journal .row >> nth=3")
    page.wait_for_timeout(300)
    page.screenshot(path=out, full_page=True)
    browser.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["check", "screenshot"])
    parser.add_argument("--base", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--chromium", required=True)
    parser.add_argument("--out")
    parser.add_argument("--render-limit", type=float, default=1.0,
                        help="seconds from opening the page to the last of 10,000 requests shown")
    options = parser.parse_args()
    sandbox = Sandbox(options.base, options.key)
    with sync_playwright() as playwright:
        try:
            if options.mode == "check":
                checks(playwright, options.chromium, sandbox, options.render_limit)
            else:
                screenshot(playwright, options.chromium, sandbox, options.out)
        except Failed as failure:
            print(f"fail {failure}", flush=True)
            sys.exit(1)
        except Exception as error:  # Playwright's own errors (a timeout, a selector): on the same one line
            print(f"fail {type(error).__name__}: {' '.join(str(error).split())[:2_000]}", flush=True)
            sys.exit(1)


if __name__ == "__main__":
    main()
