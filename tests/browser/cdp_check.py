#!/usr/bin/env python3
"""Drives headless Chromium over the DevTools protocol on a pipe (fds 3/4, NUL-separated JSON) to
check the report site: every page loads without console errors or exceptions, the replications
page grades fixture reports given through a real file input, the estimate form matches the CLI,
and each page is screenshotted. Python standard library only (no websocket, no npm).

usage: cdp_check.py PLAN.json  — the plan names the site, the pages, the expectations and where the
screenshots go; see tests/cli/site_browser.sh, which writes it."""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

TIMEOUT_S = 20.0
# Chromium's own start-up, before its first answer: under `ctest -j` with a busy second core it
# once ran past TIMEOUT_S in CI (no answer to the first command), so it gets a deadline of its own.
STARTUP_TIMEOUT_S = 90.0


class Browser:
    def __init__(self, chromium):
        r1, w1 = os.pipe()  # we write commands → chromium reads fd 3
        r2, w2 = os.pipe()  # chromium writes fd 4 → we read
        self.profile = tempfile.mkdtemp(prefix="ec-chromium-")

        def child_fds():
            a, b = os.dup(r1), os.dup(w2)  # above every fd in use, so dup2 cannot clobber
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [chromium, "--headless=new", "--remote-debugging-pipe", "--no-sandbox",
                "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--disable-sync", "--mute-audio", "--hide-scrollbars",
                "--user-data-dir=" + self.profile, "about:blank"]
        self.proc = subprocess.Popen(args, preexec_fn=child_fds, close_fds=False,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(r1)
        os.close(w2)
        self.out = os.fdopen(w1, "wb", buffering=0)
        self.inp = os.fdopen(r2, "rb", buffering=0)
        self.next_id = 0
        self.responses = {}
        self.events = []
        self.cv = threading.Condition()
        threading.Thread(target=self._reader, daemon=True).start()
        try:
            self.send("Browser.getVersion", timeout=STARTUP_TIMEOUT_S)
        except Exception:
            self.proc.kill()
            shutil.rmtree(self.profile, ignore_errors=True)
            raise

    def _reader(self):
        buf = b""
        while True:
            chunk = self.inp.read(65536)
            if not chunk:
                break
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                with self.cv:
                    if "id" in msg:
                        self.responses[msg["id"]] = msg
                    else:
                        self.events.append(msg)
                    self.cv.notify_all()

    def send(self, method, params=None, session=None, timeout=TIMEOUT_S):
        self.next_id += 1
        mid = self.next_id
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.out.write(json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        with self.cv:
            while mid not in self.responses:
                if time.time() > deadline or self.proc.poll() is not None:
                    raise RuntimeError(f"no answer to {method} (chromium exit {self.proc.poll()})")
                self.cv.wait(0.2)
            msg = self.responses.pop(mid)
        if "error" in msg:
            raise RuntimeError(f"{method}: {msg['error']}")
        return msg.get("result", {})

    def wait_event(self, method, session, since):
        deadline = time.time() + TIMEOUT_S
        with self.cv:
            while True:
                for e in self.events[since:]:
                    if e.get("method") == method and e.get("sessionId") == session:
                        return e
                if time.time() > deadline:
                    raise RuntimeError(f"timed out waiting for {method}")
                self.cv.wait(0.2)

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    def __init__(self, browser):
        self.b = browser
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.s = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "DOM"):
            self.cmd(domain + ".enable")
        self.cmd("Emulation.setDeviceMetricsOverride",
                 {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False})
        self.mark = len(browser.events)

    def cmd(self, method, params=None):
        return self.b.send(method, params, self.s)

    def goto(self, url):
        self.mark = len(self.b.events)
        self.cmd("Page.navigate", {"url": url})
        self.b.wait_event("Page.loadEventFired", self.s, self.mark)
        time.sleep(0.3)

    def errors(self):
        """Console errors and uncaught exceptions since the last navigation."""
        out = []
        with self.b.cv:
            events = [e for e in self.b.events[self.mark:] if e.get("sessionId") == self.s]
        for e in events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: " + d.get("exception", {}).get("description", d.get("text", "")))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console.error: " + " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append("log: " + p["entry"].get("text", "") + " " + p["entry"].get("url", ""))
        return out

    def eval(self, expression):
        r = self.cmd("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError(f"evaluate failed: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait_for(self, expression):
        deadline = time.time() + TIMEOUT_S
        while time.time() < deadline:
            v = self.eval(expression)
            if v:
                return v
            time.sleep(0.1)
        raise RuntimeError(f"timed out waiting for: {expression}")

    def screenshot(self, path):
        height = self.eval("Math.ceil(document.documentElement.scrollHeight)") or 900
        height = max(600, min(int(height), 8000))
        self.cmd("Emulation.setDeviceMetricsOverride",
                 {"width": 1280, "height": height, "deviceScaleFactor": 1, "mobile": False})
        data = self.cmd("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        self.cmd("Emulation.setDeviceMetricsOverride",
                 {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False})

    def set_file(self, selector, path):
        root = self.cmd("DOM.getDocument", {"depth": 1})["root"]["nodeId"]
        node = self.cmd("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        if not node:
            raise RuntimeError(f"no element {selector}")
        self.cmd("DOM.setFileInputFiles", {"files": [path], "nodeId": node})


TABLE_ROW_JS = """(() => {
  const t = document.querySelector(%s);
  if (!t) return null;
  const keys = [...t.querySelectorAll('thead th')].map(th => th.dataset.key);
  const cells = [...t.querySelectorAll('tbody tr:first-child td')].map(td => td.textContent);
  const o = {}; keys.forEach((k, i) => o[k] = cells[i]); return o; })()"""


def same(page_value, cli_value):
    """A table cell ("—" for absent) against the CLI's JSON value: numbers must be equal."""
    if cli_value is None or cli_value == "":
        return page_value in ("—", "")
    if isinstance(cli_value, (int, float)) and not isinstance(cli_value, bool):
        try:
            return float(page_value) == float(cli_value)
        except ValueError:
            return False
    return str(page_value) == str(cli_value)


def compare_row(what, page_row, cli_row, failures):
    if page_row is None:
        failures.append(f"{what}: no result table on the page")
        return
    for key, want in cli_row.items():
        if key not in page_row:
            failures.append(f"{what}: column '{key}' missing on the page")
        elif not same(page_row[key], want):
            failures.append(f"{what}: {key}: page shows '{page_row[key]}', CLI says {want!r}")


def main():
    plan = json.load(open(sys.argv[1]))
    shots = plan["screenshots"]
    os.makedirs(shots, exist_ok=True)
    failures, passes = [], 0
    browser = Browser(plan.get("chromium", "/usr/bin/chromium"))
    try:
        page = Page(browser)
        for base in plan["bases"]:
            for name in plan["pages"]:
                url = base + name
                page.goto(url)
                title = page.eval("document.title")
                errs = page.errors()
                content = page.eval("document.querySelector('main') ? document.querySelector('main').innerText.length : 0")
                if errs:
                    failures.append(f"{url}: " + "; ".join(errs[:5]))
                elif not title or content < 200:
                    failures.append(f"{url}: page looks empty (title '{title}', {content} chars)")
                else:
                    passes += 1
                # The measured configurations fit the page: no column hides behind a scroll bar.
                if name == "measured.html":
                    overflow = page.eval("Math.max(0, ...[...document.querySelectorAll('#measured-table .table-wrap')]"
                                         ".map((w) => w.scrollWidth - w.clientWidth))")
                    if overflow > 1:
                        failures.append(f"{url}: the configurations table is {overflow} px wider than the page")
                    else:
                        passes += 1
                    # The CPU run's KL and top-1 against FP16 are in its row.
                    want = plan.get("measured_row_has", [])
                    rows = page.eval("[...document.querySelectorAll('#measured-table tbody tr')].map((r) => r.innerText)") or []
                    if want and not any(all(w in r for w in want) for r in rows):
                        failures.append(f"{url}: no configuration row shows {want}")
                    else:
                        passes += 1
                if base == plan["bases"][0]:
                    page.screenshot(os.path.join(shots, name.replace(".html", ".png")))
        base = plan["bases"][0]

        for i, case in enumerate(plan["replications"]):
            page.goto(base + "replications.html")
            page.set_file("#report-file", case["file"])
            verdict = page.wait_for("document.querySelector('#verdict') && document.querySelector('#verdict').textContent")
            what = f"replications {os.path.basename(case['file'])}"
            if verdict != case["verdict"]:
                failures.append(f"{what}: verdict '{verdict}', expected '{case['verdict']}'")
            else:
                passes += 1
            if "row" in case:
                before = len(failures)
                compare_row(what, page.eval(TABLE_ROW_JS % json.dumps("#regression")), case["row"], failures)
                passes += len(failures) == before
            if "error_contains" in case:
                text = page.eval("document.querySelector('#result').innerText")
                if case["error_contains"] not in text:
                    failures.append(f"{what}: page does not say '{case['error_contains']}': {text[:300]}")
                else:
                    passes += 1
            errs = page.errors()
            if errs:
                failures.append(f"{what}: " + "; ".join(errs[:5]))
            if case.get("screenshot"):
                page.screenshot(os.path.join(shots, case["screenshot"]))

        page.goto(base + "estimate.html")
        for case in plan["estimates"]:
            page.eval("""(() => {
              document.querySelector('#estimate-out').textContent = '';
              document.querySelector('#params-b').value = %s;
              document.querySelector('#arch').value = %s;
              document.querySelector('#precision').value = %s;
              document.querySelector('#estimate-form').requestSubmit(); })()""" % (
                json.dumps(case["params_b"]), json.dumps(case["arch"]), json.dumps(case["precision"])))
            page.wait_for("document.querySelector('#estimate-row') !== null")
            what = f"estimate {case['params_b']} B {case['arch']} {case['precision']}"
            before = len(failures)
            compare_row(what, page.eval(TABLE_ROW_JS % json.dumps("#estimate-row")), case["expect"], failures)
            passes += len(failures) == before
            if case.get("screenshot"):
                page.screenshot(os.path.join(shots, case["screenshot"]))
        errs = page.errors()
        if errs:
            failures.append("estimate page: " + "; ".join(errs[:5]))
    finally:
        browser.close()

    copy_to = os.environ.get("EC_SCREENSHOT_DIR")
    if copy_to:
        os.makedirs(copy_to, exist_ok=True)
        for f in sorted(os.listdir(shots)):
            shutil.copy(os.path.join(shots, f), os.path.join(copy_to, f))
    for f in failures:
        print("FAIL:", f)
    print(f"browser: {passes} passed, {len(failures)} failed; screenshots in {shots}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
