#!/usr/bin/env python3
"""The household page in a real browser: headless Chromium driven by Selenium against a real stack.

Run by Tests/EndToEndTests/BrowserTests.swift, which starts the stack and seeds it, then:

    household_page.py --url http://127.0.0.1:PORT --home HEARTH_HOME --bin BIN_DIR \
        --shots DIR --code GAME_CODE --todo TITLE --suggestion TITLE --web-listen HOST:PORT --web-pid PID

Each check waits for what it expects with a bounded timeout (WebDriverWait), never a fixed sleep.
A failed check exits non-zero with the reason on stderr. Screenshots of every view at a phone's
width (360 px) and a kitchen display's (1920 px) go to --shots.
"""
import argparse
import os
import signal
import subprocess
import sys
import time

from axe_selenium_python import Axe

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

VIEWS = ["year", "today", "stats", "timetable", "people", "game", "devices", "search", "changes"]


def view_address(args, view):
    """A view's address: the game with its code, a search for the todo's first word."""
    if view == "game":
        return f"{args.url}/game?code={args.code}"
    if view == "search":
        return f"{args.url}/search?q={args.todo.split()[0]}"
    return f"{args.url}/{view}"


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--hide-scrollbars", "--force-device-scale-factor=1"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def hearth(args, arguments):
    """Runs the hearth CLI against the stack; returns its output."""
    environment = dict(os.environ, HEARTH_HOME=args.home)
    result = subprocess.run([os.path.join(args.bin, "hearth")] + arguments, env=environment,
                            capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        raise AssertionError(f"hearth {' '.join(arguments)} failed: {result.stderr}")
    return result.stdout


def wait(driver, timeout):
    """A bounded wait that looks again when the page swapped its view under it."""
    return WebDriverWait(driver, timeout, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException))


def live(driver, timeout=10):
    """Waits until the page's event stream is connected (the stream's hello arrived) and the
    refresh that the hello starts has been applied."""
    wait(driver, timeout).until(
        lambda d: d.find_element(By.ID, "live-state").get_attribute("data-connected") == "yes"
        and d.find_element(By.ID, "main").get_attribute("data-busy") == "no")


def click(driver, by, locator, timeout=5):
    """Clicks the element, found again if a live refresh replaced it meanwhile."""
    def attempt(d):
        d.find_element(by, locator).click()
        return True
    wait(driver, timeout).until(attempt)


def text_of(driver, by, locator, timeout=5):
    """The element's text once it has some, found again if a live refresh replaced it while it
    was read (the wait returns what its condition returned)."""
    return wait(driver, timeout).until(lambda d: d.find_element(by, locator).text)


def text_appears(driver, text, timeout):
    wait(driver, timeout).until(lambda d: text in d.find_element(By.ID, "main").text)


def no_script_errors(driver, refused_events=False):
    """Fails on any error the browser logged since the last look (a script error, a refused
    script or style under the content security policy, a failed request). With refused_events,
    a refused reconnection of the event stream is expected: the test stopped the server."""
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
              and not (refused_events and entry["source"] == "network" and "/events" in entry["message"]
                       and "ERR_CONNECTION_REFUSED" in entry["message"])]
    if errors:
        raise AssertionError(f"the browser reported errors: {errors}")


def screenshots(driver, args):
    os.makedirs(args.shots, exist_ok=True)
    for width, height, name in [(360, 800, "phone"), (1920, 1080, "desktop")]:
        driver.set_window_size(width, height)
        for view in VIEWS:
            address = view_address(args, view)
            driver.get(address)
            wait(driver, 10).until(ec.presence_of_element_located((By.ID, "main")))
            # Nothing may stick out sideways on a phone.
            overflow = driver.execute_script(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
            if overflow > 0:
                raise AssertionError(f"/{view} is {overflow} px wider than a {width} px screen")
            # No heading, column header or navigation word is broken across two lines.
            broken = driver.execute_script(BROKEN_WORDS)
            if broken:
                raise AssertionError(f"/{view} at {width} px breaks words across lines: {broken}")
            driver.save_screenshot(os.path.join(args.shots, f"{view}-{name}.png"))
    driver.set_window_size(1280, 900)


# The words of headings, column headers and navigation laid out on more than one line (a word
# broken mid-way, as "Colle/ction"): each word's text range, its boxes' distinct tops.
BROKEN_WORDS = """
const broken = [];
for (const el of document.querySelectorAll('h1, h2, thead th, nav a')) {
  if (!el.offsetParent) continue;
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const words = /\\S+/g;
    let match;
    while ((match = words.exec(node.data))) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].map(rect => Math.round(rect.top)));
      if (tops.size > 1) broken.push(`${el.tagName.toLowerCase()} '${match[0]}'`);
    }
  }
}
return broken;
"""


# Every button's text against what is behind it, in the browser: the first background that is not
# transparent, walking up the tree. Returns the buttons under WCAG's 4.5:1.
CONTRAST = """
function rgb(text) { const m = text.match(/[\\d.]+/g).map(Number); return {r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1}; }
function lum(c) { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); }
function behind(el) { for (let e = el; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
  if (c.a > 0) return c; } return {r: 255, g: 255, b: 255, a: 1}; }
const low = [];
for (const b of document.querySelectorAll('button, input[type=submit], a.button')) {
  if (!b.offsetParent) continue;
  const fg = rgb(getComputedStyle(b).color), bg = behind(b);
  const [l1, l2] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  const ratio = (l1 + 0.05) / (l2 + 0.05);
  if (ratio < 4.5) low.push(`${(b.innerText || b.value || b.id).trim().slice(0, 40)}: ${getComputedStyle(b).color} on ${JSON.stringify(bg)} = ${ratio.toFixed(2)}`);
}
return low;
"""


def accessibility(driver, args):
    """axe-core (axe-selenium-python) on every view, light and dark, at a phone's width and a
    kitchen display's: no violation of any rule; and every visible button's text at least 4.5:1
    against what is behind it."""
    problems = []
    for scheme in ["light", "dark"]:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                               {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        for width, height, name in [(360, 800, "phone"), (1920, 1080, "desktop")]:
            driver.set_window_size(width, height)
            for view in VIEWS:
                driver.get(view_address(args, view))
                wait(driver, 10).until(ec.presence_of_element_located((By.ID, "main")))
                axe = Axe(driver)
                axe.inject()
                results = axe.run()
                for violation in results["violations"]:
                    nodes = "; ".join(node["target"][0] if isinstance(node["target"][0], str) else str(node["target"])
                                      for node in violation["nodes"][:4])
                    problems.append(f"/{view} {scheme} {name}: {violation['id']} ({violation['impact']}): "
                                    f"{violation['help']} — {nodes}")
                for low in driver.execute_script(CONTRAST):
                    problems.append(f"/{view} {scheme} {name}: button contrast {low}")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    driver.set_window_size(1280, 900)
    if problems:
        raise AssertionError("accessibility:\n" + "\n".join(problems))


def main():
    parser = argparse.ArgumentParser()
    for option in ["url", "home", "bin", "shots", "code", "todo", "suggestion", "web-listen", "web-pid"]:
        parser.add_argument(f"--{option}", required=True)
    # The subject on now (empty on a weekend): the timetable must highlight it in the day's list
    # and in the fortnight grid, so that the checks below see the highlight's colours.
    parser.add_argument("--lesson-now", default="")
    args = parser.parse_args()
    driver = browser()
    started = []
    try:
        # Tick a todo: it shows done.
        driver.get(f"{args.url}/today")
        live(driver)
        click(driver, By.XPATH, f"//label[normalize-space()='{args.todo}']/preceding-sibling::input[@type='checkbox']")
        wait(driver, 5).until(lambda d: d.find_element(
            By.XPATH, f"//label[normalize-space()='{args.todo}']/ancestor::li").get_attribute("class") == "done")
        if "[x]" not in hearth(args, ["calendar", "day"]):
            raise AssertionError("the store does not have the todo done")
        print("ok: ticked a todo and saw it done")

        # Accept a suggestion: it is on its card.
        driver.get(f"{args.url}/year")
        live(driver)
        click(driver, By.XPATH, "//form[contains(@action, '/accept')]/button")
        wait(driver, 5).until(lambda d: not d.find_elements(By.XPATH, "//form[contains(@action, '/accept')]"))
        text_appears(driver, args.suggestion, 5)
        print("ok: accepted a suggestion")

        # A change made with the CLI appears on the open page within a second of being made
        # (timed from the CLI's answer: the change is in the store then).
        hearth(args, ["event", "set", "dec", "--title", "Carols at the hall"])
        made = time.monotonic()
        text_appears(driver, "Carols at the hall", 1)
        print(f"ok: a CLI change appeared {time.monotonic() - made:.3f} s after the CLI answered")

        # Done in the game view: the next player's name.
        driver.get(f"{args.url}/game?code={args.code}")
        live(driver)
        text_appears(driver, "YOUR TURN", 5)
        first = text_of(driver, By.CLASS_NAME, "big-name")
        click(driver, By.ID, "game-done")
        wait(driver, 5).until(lambda d: d.find_element(By.CLASS_NAME, "big-name").text != first)
        print(f"ok: Done passed the turn from {first} to {text_of(driver, By.CLASS_NAME, 'big-name')}")

        no_script_errors(driver)

        # A page whose connection drops (the web service restarts) catches up with what changed meanwhile.
        driver.get(f"{args.url}/year")
        live(driver)
        os.kill(int(args.web_pid), signal.SIGTERM)
        wait(driver, 10).until(
            lambda d: d.find_element(By.ID, "live-state").get_attribute("data-connected") == "no")
        hearth(args, ["event", "set", "nov", "--title", "Made while the page was cut off"])
        environment = dict(os.environ, HEARTH_HOME=args.home, HEARTH_WEB_LISTEN=args.web_listen)
        started.append(subprocess.Popen([os.path.join(args.bin, "hearth-web")], env=environment,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        text_appears(driver, "Made while the page was cut off", 15)
        print("ok: a page whose connection dropped caught up")
        no_script_errors(driver, refused_events=True)
        if args.lesson_now:
            driver.get(view_address(args, "timetable"))
            live(driver)
            for where in ["ol.lessons li.current", "table.grid td.current[aria-current='time']"]:
                # `wait` reads again when the live page replaced the view under it.
                try:
                    wait(driver, 5).until(lambda d: any(
                        args.lesson_now in e.text for e in d.find_elements(By.CSS_SELECTOR, where)))
                except TimeoutException:
                    raise AssertionError(f"/timetable does not mark {args.lesson_now} as on now in {where}")
            print(f"ok: the timetable marks {args.lesson_now} as on now, in the day and in the grid")
        screenshots(driver, args)
        no_script_errors(driver)
        print(f"ok: screenshots of {len(VIEWS)} views at 360 and 1920 px in {args.shots}")
        accessibility(driver, args)
        print(f"ok: axe-core finds no violation on {len(VIEWS)} views, light and dark, phone and desktop; "
              "every button's text at least 4.5:1")
    finally:
        driver.quit()
        for process in started:
            process.terminate()
            process.wait(timeout=10)


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # reported to the Swift test, which fails with it
        print(f"FAILED: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
