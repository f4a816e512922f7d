"""Drives Debian's Chromium, headless, through the inspector's page and
checks what a user sees, over the DevTools protocol (on a pipe: no port to
pick, no module beyond Python's own).

    inspector_browser.py URL EXPECT.json [--screenshot=FILE.png]
    inspector_browser.py URL --screenshot=FILE.png --only-screenshot

Checks, for the ticks inspector_ticks.py sent (EXPECT.json):
  - the page loads with no console error, exception or failed request;
  - the timeline steps forward and back (the buttons and the URL's hash);
  - each filter lists exactly the characters the answers flag;
  - the 3D view is not blank (the screenshot's pixels over the canvas);
  - the world position the page prints for a picked joint (picked through
    the URL's hash and the joint list) is the one EXPECT.json computed by
    forward kinematics, to 1e-6 m.
"""
import base64
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

CHROMIUM = "/usr/bin/chromium"
WIDTH, HEIGHT = 1400, 860
TOLERANCE_M = 1e-6


class DevTools:
    """A Chromium started with --remote-debugging-pipe: JSON messages, each
    ended by a NUL byte, on its fd 3 (to it) and fd 4 (from it)."""

    def __init__(self, profile):
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        flags = ["--headless=new", "--remote-debugging-pipe", "--no-sandbox",
                 "--no-first-run", "--no-default-browser-check",
                 "--disable-dev-shm-usage", "--disable-extensions",
                 "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
                 f"--user-data-dir={profile}",
                 f"--window-size={WIDTH},{HEIGHT}", "about:blank"]
        # The pipe ends go to fds 3 and 4 of the browser, where it looks.
        self.process = subprocess.Popen(
            ["/bin/sh", "-c", f'exec "$0" "$@" 3<&{to_browser_r} '
             f'4>&{from_browser_w}', CHROMIUM, *flags],
            pass_fds=(to_browser_r, from_browser_w),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next_id = 0
        self._answers = {}
        self.events = []
        self._lock = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buffer = b""
        while True:
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                break
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                with self._lock:
                    if "id" in message:
                        self._answers[message["id"]] = message
                    else:
                        self.events.append(message)
                    self._lock.notify_all()

    def send(self, method, session=None, timeout=30, **params):
        with self._lock:
            self._next_id += 1
            ident = self._next_id
        message = {"id": ident, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        with self._lock:
            if not self._lock.wait_for(lambda: ident in self._answers, timeout):
                raise TimeoutError(f"{method}: no answer in {timeout} s")
            answer = self._answers.pop(ident)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer["result"]

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except (OSError, RuntimeError, TimeoutError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Page:
    """One tab of the browser."""

    def __init__(self, browser):
        self.browser = browser
        target = browser.send("Target.createTarget", url="about:blank")
        self.session = browser.send("Target.attachToTarget", flatten=True,
                                    targetId=target["targetId"])["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride", width=WIDTH,
                  height=HEIGHT, deviceScaleFactor=1, mobile=False)

    def send(self, method, **params):
        return self.browser.send(method, session=self.session, **params)

    def evaluate(self, expression):
        answer = self.send("Runtime.evaluate", expression=expression,
                           awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in answer:
            raise RuntimeError(f"{expression}: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def wait_for(self, expression, what, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.evaluate(expression):
                return
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what} ({expression})")

    def errors(self):
        """Console errors, uncaught exceptions and failed loads so far."""
        out = []
        for event in self.browser.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                out.append(params["exceptionDetails"].get("text", "exception")
                           + " " + json.dumps(params["exceptionDetails"])[:300])
            elif (method == "Runtime.consoleAPICalled" and
                  params.get("type") in ("error", "assert")):
                out.append("console: " + json.dumps(params.get("args"))[:300])
            elif (method == "Log.entryAdded" and
                  params["entry"].get("level") == "error"):
                out.append("log: " + params["entry"].get("text", "") + " " +
                           params["entry"].get("url", ""))
        return out

    def screenshot(self, clip=None):
        params = {"format": "png"}
        if clip:
            params["clip"] = {**clip, "scale": 1}
        return base64.b64decode(self.send("Page.captureScreenshot",
                                          **params)["data"])


def png_pixels(png):
    """(width, height, rows of RGB(A) byte strings) of an 8-bit RGB or RGBA
    PNG, as Chromium writes them (non-interlaced)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, data = 8, b""
    while position < len(png):
        length, kind = struct.unpack(">I4s", png[position:position + 8])
        body = png[position + 8:position + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            data += body
        position += 12 + length
    assert depth == 8 and color in (2, 6), (depth, color)
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(data)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            corner = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                nearest = left if pa <= pb and pa <= pc else (
                    up if pb <= pc else corner)
                line[x] = (line[x] + nearest) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def check_canvas_drawn(page):
    """The view's pixels: many colours, most unlike the background."""
    rect = page.evaluate("(() => { const r = document.getElementById('canvas')"
                         ".getBoundingClientRect(); return {x: r.x, y: r.y, "
                         "width: r.width, height: r.height}; })()")
    png = page.screenshot(clip=rect)
    width, height, channels, rows = png_pixels(png)
    background = (0x15, 0x18, 0x1C)
    colours, drawn = set(), 0
    for row in rows[::2]:
        for x in range(0, width * channels, 2 * channels):
            pixel = tuple(row[x:x + 3])
            colours.add(pixel)
            drawn += max(abs(a - b) for a, b in zip(pixel, background)) > 24
    sampled = len(rows[::2]) * len(range(0, width * channels, 2 * channels))
    print(f"inspector_browser: canvas {width}x{height}: {len(colours)} "
          f"colours, {drawn / sampled:.1%} of pixels drawn")
    assert len(colours) > 50, f"canvas looks blank: {len(colours)} colours"
    assert drawn / sampled > 0.02, f"canvas looks blank: {drawn} pixels drawn"


def open_tick(page, index, character=None, joint=None):
    """Shows tick `index` through the URL's hash."""
    hash_ = f"tick={index}"
    if character is not None:
        hash_ += f"&character={character}"
    if joint is not None:
        hash_ += f"&joint={joint}"
    # The same hash again fires no hashchange: the page already shows it.
    if page.evaluate("location.hash") == f"#{hash_}":
        return
    page.evaluate(f"delete document.body.dataset.tick; "
                  f"location.hash = {json.dumps(hash_)}; true")
    page.wait_for(f"document.body.dataset.tick === '{index}'", f"tick {index}")


def check_timeline(page, count):
    open_tick(page, 0)
    # A bar per tick, each as tall as its run time, red where characters
    # failed; a click on one opens its tick.
    bars = page.evaluate(
        "[...document.querySelectorAll('#tick-bars .timeline-bar')].map((b) => "
        "[b.classList.contains('failed'), parseFloat(b.style.height)])")
    lines = page.evaluate("inspector.state.recording.ticks.map((t) => "
                          "[t.failed > 0, Number(t.ran_nanos)])")
    assert len(bars) == count == len(lines), (bars, lines)
    assert [b[0] for b in bars] == [l[0] for l in lines], (bars, lines)
    tallest = max(range(count), key=lambda i: lines[i][1])
    assert bars[tallest][1] == max(b[1] for b in bars), (bars, lines)
    page.evaluate(f"document.querySelectorAll('#tick-bars .timeline-bar')"
                  f"[{count - 1}].click(); true")
    page.wait_for(f"document.body.dataset.tick === '{count - 1}'",
                  "a click on the last bar")
    open_tick(page, 0)
    for expected in (1, 2):
        page.evaluate("document.getElementById('next').click(); true")
        page.wait_for(f"document.body.dataset.tick === '{expected}'",
                      f"next to tick {expected}")
        assert f"tick={expected}" in page.evaluate("location.hash")
        label = page.evaluate("document.getElementById('tick-label')"
                              ".textContent")
        assert label.startswith(f"tick {expected + 1} of {count}"), label
        # ikd's own times for the call, with their unit: a tick queued for
        # a while or not at all, and ran for more than nothing.
        times = re.search(r"queued (\d+\.\d{3}) ms, ran (\d+\.\d{3}) ms$",
                          label)
        assert times and float(times.group(2)) > 0.0, label
    page.evaluate("document.getElementById('previous').click(); true")
    page.wait_for("document.body.dataset.tick === '1'", "previous")
    print("inspector_browser: timeline steps forward and back")


def listed_ids(page):
    return page.evaluate("[...document.querySelectorAll('#character-list li')]"
                         ".map((li) => li.dataset.id)")


def check_filters(page, index, flags):
    open_tick(page, index)
    everyone = listed_ids(page)
    for name in ("failed", "violation", "unreached"):
        toggle = (f"(() => {{ const box = document.getElementById("
                  f"'filter-{name}'); box.click(); return true; }})()")
        page.evaluate(toggle)
        shown = listed_ids(page)
        assert sorted(shown) == sorted(flags[name]), (name, shown, flags[name])
        page.evaluate(toggle)
    assert listed_ids(page) == everyone
    print(f"inspector_browser: filters list {flags}")


def check_joint(page, index, check):
    open_tick(page, index, check["character"])
    # Pick through the joint list, as a user would.
    page.evaluate(
        "(() => { const s = document.getElementById('joint-select'); "
        "const o = [...s.options].find((o) => o.text === "
        f"{json.dumps(check['joint'])}); s.value = o.value; "
        "s.dispatchEvent(new Event('change')); return true; })()")
    shown = page.evaluate(
        "(() => { const d = document.getElementById('joint-position').dataset;"
        " const i = document.getElementById('joint-position-incoming').dataset;"
        " return [[d.x, d.y, d.z], [i.x, i.y, i.z], location.hash, "
        "document.getElementById('joint-moved-by').textContent]; })()")
    for got, want, what in ((shown[0], check["corrected"], "corrected"),
                            (shown[1], check["incoming"], "incoming")):
        error = max(abs(float(g) - w) for g, w in zip(got, want))
        assert error <= TOLERANCE_M, (check, what, got, want, error)
    assert f"joint={check['joint']}" in shown[2], shown[2]
    if check["moved_by"] is not None:
        want = ", ".join(check["moved_by"]) or "no job"
        assert shown[3].split("\n")[0] == want, (check, shown[3])
    print(f"inspector_browser: {check['character']} {check['joint']} at "
          f"{shown[0]} as computed; moved by: {shown[3]!r}")


def check_click(page, index, character, joint):
    """A click on a joint's dot picks it: the joint list and the hash follow."""
    open_tick(page, index)
    where = page.evaluate(
        "(() => { const s = inspector.state; const i = s.tick.characters"
        f".findIndex((c) => c.id === {json.dumps(character)}); const rig = "
        "s.recording.rigs[s.tick.characters[i].revision]; const j = rig.joints"
        f".findIndex((j) => j.name === {json.dumps(joint)}); "
        "return inspector.view.screenPosition(i, j); })()")
    for kind in ("mousePressed", "mouseReleased"):
        page.send("Input.dispatchMouseEvent", type=kind, x=where["x"],
                  y=where["y"], button="left", clickCount=1)
    page.wait_for(
        "(() => { const s = document.getElementById('joint-select'); "
        f"return s.options[s.selectedIndex]?.text === {json.dumps(joint)}; }})()",
        f"a click to pick {joint}")
    hash_ = page.evaluate("location.hash")
    assert f"character={character}&joint={joint}" in hash_, hash_
    print(f"inspector_browser: a click at ({where['x']:.0f}, {where['y']:.0f}) "
          f"picks {character} {joint}")


def check_details(page, index, flags):
    """A character's details show its goals' stop reasons and, for a pose
    check violation, its amount with a unit: no 0.0000 for 1.3e-5 rad."""
    open_tick(page, index)
    texts = page.evaluate(
        "(() => inspector.state.tick.characters.map((c, i) => { "
        "inspector.selectCharacter(i, -1); return [c.id, c.goals.length, "
        "document.getElementById('character-details').textContent]; }))()")
    with_goals = [text for _, goals, text in texts if goals > 0]
    assert all("stop: " in text or "no answer" in text
               for text in with_goals), texts
    for id_, _, text in texts:
        if id_ in flags["violation"]:
            assert re.search(r"OUTSIDE_LIMIT \d\.\d\d(e-\d+)? rad|"
                             r"TRANSLATION \d\.\d\d(e-\d+)? m|"
                             r"ROTATION_NOT_\w+ ", text), text
    print(f"inspector_browser: tick {index}: stop reasons and violation "
          "units in every character's details")


def check_crowd_focus(page, index, character):
    """In a crowd, a search by id narrows the list and Enter picks the first
    match; the camera turns to the picked character's root and the others
    fade, or vanish with "only the picked character"."""
    open_tick(page, index)
    crowd = page.evaluate("inspector.state.tick.characters.length")
    assert crowd >= 1000, f"tick {index} has {crowd} characters, not a crowd"
    page.evaluate(
        "(() => { const s = document.getElementById('character-search'); "
        f"s.value = {json.dumps(character)}; "
        "s.dispatchEvent(new Event('input')); "
        "s.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'})); "
        "return true; })()")
    listed = listed_ids(page)
    assert listed and all(character in id_ for id_ in listed), listed
    state = page.evaluate(
        "(() => { const v = inspector.view; const s = inspector.state; "
        "const c = s.tick.characters[s.character]; "
        "const shown = c.corrected ?? c.incoming; "
        "const crowd = v.tickGroup.children.filter((o) => o.userData.crowd); "
        "return { id: c.id, root: shown.positions.slice(0, 3), "
        "target: v.controls.target.toArray(), "
        "opacity: crowd.map((o) => o.material.opacity / o.userData.opacity) }; })()")
    assert state["id"] == listed[0], state
    assert all(abs(a - b) < 1e-9 for a, b in zip(state["root"], state["target"])), state
    assert state["opacity"] and all(abs(o - 0.2) < 1e-9 for o in state["opacity"]), state
    hidden = page.evaluate(
        "(() => { const i = document.getElementById('isolate'); i.checked = true; "
        "i.dispatchEvent(new Event('change')); "
        "return inspector.view.tickGroup.children.filter((o) => o.userData.crowd)"
        ".every((o) => !o.visible); })()")
    assert hidden, "the crowd is still drawn with only the picked character"
    page.evaluate(
        "(() => { const i = document.getElementById('isolate'); i.checked = false; "
        "i.dispatchEvent(new Event('change')); "
        "const s = document.getElementById('character-search'); s.value = ''; "
        "s.dispatchEvent(new Event('input')); return true; })()")
    print(f"inspector_browser: in {crowd} characters, search '{character}' "
          f"picks {listed[0]}, the camera on it, the crowd faded or hidden")


def check_track(page, index, character):
    """The picked character across ticks: a cell per tick that has it, the
    turns of its joints between them measured, and "next event" opening the
    next tick where something happened to it."""
    open_tick(page, index, character)
    page.wait_for(f"inspector.state.track?.id === {json.dumps(character)}",
                  f"{character}'s track")
    track = page.evaluate("inspector.state.track.ticks")
    cells = page.evaluate("document.querySelectorAll('#character-track "
                          ".track-cell').length")
    assert len(track) >= 2 and cells == len(track), (cells, track)
    assert any(entry["turn"] >= 0 for entry in track[1:]), track
    events = [e["tick"] for e in track
              if e["tick"] > index and (e["failed"] or e["violation"] or
                                        e["unreached"] or e["branch_switch"]
                                        or e["near_singularity"] or
                                        e["turn"] > 20 * 3.141592653589793 / 180)]
    moved = page.evaluate("inspector.nextEvent()")
    assert moved == bool(events), (moved, events)
    if events:
        page.wait_for(f"document.body.dataset.tick === '{events[0]}'",
                      "next event")
    print(f"inspector_browser: {character}'s track over {len(track)} ticks; "
          f"next event {'tick ' + str(events[0]) if events else 'none'}")


def check_single_call(page, index):
    """A single call drawn as one character named after its method, its
    label saying so, its goals' flags on the page."""
    open_tick(page, index)
    label = page.evaluate("document.getElementById('tick-label').textContent")
    assert "SolveChain (a single call, drawn as one character)" in label, label
    assert listed_ids(page) == ["SolveChain"], listed_ids(page)
    text = page.evaluate(
        "(() => { inspector.selectCharacter(0, -1); return document"
        ".getElementById('character-details').textContent; })()")
    assert "left_arm" in text and "stop: " in text, text
    print(f"inspector_browser: {label}")


def tick_indices(page):
    """The recording's tick index of each call EXPECT.json names (a tick by
    its sequence, a single call by its method), and the count of ticks."""
    lines = page.evaluate("fetch('/api/recording').then((r) => r.json())"
                          ".then((j) => j.ticks.map((t) => t.method."
                          "startsWith('Tick') ? String(t.sequence) : t.method))")
    indices = {}
    for i, call in enumerate(lines):
        indices.setdefault(call, i)
    return indices, len(lines)


def run(url, expect_path, screenshot, only_screenshot):
    with tempfile.TemporaryDirectory() as profile:
        browser = DevTools(profile)
        try:
            page = Page(browser)
            page.send("Page.navigate", url=url)
            page.wait_for("document.body && document.body.dataset.tick "
                          "!== undefined", "the first tick")
            if not only_screenshot:
                expect = json.loads(open(expect_path).read())
                indices, count = tick_indices(page)
                check_timeline(page, count)
                for call, flags in expect["flags"].items():
                    check_filters(page, indices[call], flags)
                    check_details(page, indices[call], flags)
                for check in expect["checks"]:
                    check_joint(page, indices[check["call"]], check)
                check_single_call(page, indices["SolveChain"])
                check_click(page, indices["9001"], "walker", "head")
                check_crowd_focus(page, 0, "3")
                check_track(page, 0, "3")
                # walker's goal out of reach in both its ticks: a later event.
                check_track(page, indices["9001"], "walker")
                open_tick(page, 0)
                check_canvas_drawn(page)
            else:
                time.sleep(1.0)
            if screenshot:
                with open(screenshot, "wb") as f:
                    f.write(page.screenshot())
            errors = page.errors()
            assert not errors, "\n".join(errors)
            print("inspector_browser: no console errors")
        finally:
            browser.close()


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    options = dict(a[2:].split("=", 1) if "=" in a else (a[2:], "")
                   for a in argv if a.startswith("--"))
    run(args[0], args[1] if len(args) > 1 else None,
        options.get("screenshot"), "only-screenshot" in options)


if __name__ == "__main__":
    main(sys.argv[1:])
