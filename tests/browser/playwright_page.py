"""A Playwright test of a WebGPU page, as a web application's test suite would have one: serves
tests/browser/ on 127.0.0.1, opens compute.html in Chromium (the system's, CHROMIUM names its
binary), waits for the page to finish and checks its result. Prints the page's origin and its
"wgprof-page:" lines; exits 0 where the page's result is ok. Extra browser flags: its arguments."""

import functools
import http.server
import os
import sys
import threading

from playwright.sync_api import sync_playwright

here = os.path.dirname(os.path.abspath(__file__))
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=here)
http.server.SimpleHTTPRequestHandler.log_message = lambda *args: None
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
origin = f"http://127.0.0.1:{server.server_address[1]}"
print("origin", origin, flush=True)

lines = []
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path=os.environ["CHROMIUM"], headless=True,
                                args=["--enable-unsafe-webgpu"] + sys.argv[1:])
    page = browser.new_page()
    page.on("console", lambda m: lines.append(m.text) if m.text.startswith("wgprof-page: ") else None)
    page.goto(origin + "/compute.html?steps=20")
    page.wait_for_function("document.title.startsWith('done')", timeout=60000)
    title = page.title()
    browser.close()
server.shutdown()
for line in lines:
    print(line)
print("title", title)
sys.exit(0 if title == "done ok" else 1)
