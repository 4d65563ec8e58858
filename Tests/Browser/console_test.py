"""The operator console in a real browser: Debian's headless Chromium driven by Selenium.

Starts `badminton-server` from the build folder on a new data folder, registers an
administrator and a player through the RPC API (the `badminton` command), starts the server
again with that administrator named and the console on, and then, in the browser: signs in with
a wrong password and the right one, sends a form without its CSRF token, finds the player,
suspends them (their RPC Login is then refused with ACCOUNT_SUSPENDED), lifts the suspension
(Login works again), reads the audit log and signs out.

Run by scripts/browser-test. With CONSOLE_SCREENSHOTS=DIR it saves a screenshot of every page in
DIR (docs/console/ holds the ones docs/console.md shows).
"""

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import unittest

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

BUILD = os.environ.get("BADMINTON_BUILD", ".build/debug")
SERVER = os.path.join(BUILD, "badminton-server")
CLI = os.path.join(BUILD, "badminton")
SCREENSHOTS = os.environ.get("CONSOLE_SCREENSHOTS")

ADMIN_PHONE = "+8613900000001"
ADMIN_PASSWORD = "console secret"
PLAYER_PHONE = "+8613900000002"
PLAYER_PASSWORD = "rowdy secret"


class Server:
    """A badminton-server process; its ports read from the lines it prints when it listens."""

    def __init__(self, data_dir, *arguments):
        self.process = subprocess.Popen(
            [SERVER, "--port", "0", "--data-dir", data_dir, "--scrypt-log-n", "10",
             "--log-level", "warning", *arguments],
            stdout=subprocess.PIPE, text=True)
        self.rpc = self._address("listening on")
        self.console = self._address("console on") if "--console-port" in arguments else None

    def _address(self, marker):
        line = self.process.stdout.readline()
        if marker not in line:
            self.stop()
            raise RuntimeError(f"badminton-server printed {line!r}, not a line with {marker!r}")
        return line.strip().rsplit(" ", 1)[1]

    def call(self, method, request):
        """Calls `method` through the `badminton` command: (exit status, stdout, stderr)."""
        done = subprocess.run(
            [CLI, "--server", self.rpc, "call", method, json.dumps(request)],
            capture_output=True, text=True, timeout=60)
        return done.returncode, done.stdout, done.stderr

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)


class ConsoleInTheBrowser(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.data = tempfile.TemporaryDirectory()
        first = Server(cls.data.name)
        try:
            ids = []
            for phone, nickname, password in [
                (ADMIN_PHONE, "Operator", ADMIN_PASSWORD),
                (PLAYER_PHONE, "Rowdy", PLAYER_PASSWORD),
            ]:
                status, out, err = first.call(
                    "Accounts/Register",
                    {"phone": phone, "nickname": nickname, "password": password, "selfLevel": 5})
                assert status == 0, err
                ids.append(json.loads(out)["userId"])
            cls.admin_id, cls.player_id = ids
        finally:
            first.stop()
        # The administrator is named once their account exists, as an operator does.
        cls.server = Server(
            cls.data.name, "--admin-id", cls.admin_id, "--console-port", "0")
        cls.base = f"http://{cls.server.console}"
        options = webdriver.ChromeOptions()
        options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                         "--window-size=1280,1000"]:
            options.add_argument(argument)
        driver = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
        cls.browser = webdriver.Chrome(service=Service(driver), options=options)

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        cls.server.stop()
        cls.data.cleanup()

    # Helpers

    def open(self, path):
        self.browser.get(self.base + path)

    def text(self, element_id):
        return self.browser.find_element(By.ID, element_id).text

    def shoot(self, name):
        if SCREENSHOTS:
            os.makedirs(SCREENSHOTS, exist_ok=True)
            self.browser.save_screenshot(os.path.join(SCREENSHOTS, name + ".png"))

    def sign_in(self, phone, password):
        self.open("/sign-in")
        self.browser.find_element(By.ID, "phone").send_keys(phone)
        self.browser.find_element(By.ID, "password").send_keys(password)
        self.browser.find_element(By.ID, "sign-in-submit").click()

    def player_login(self):
        return self.server.call(
            "Accounts/Login", {"phone": PLAYER_PHONE, "password": PLAYER_PASSWORD})

    # The test: one administrator's visit, in order.

    def test_administrator_visit(self):
        # Not signed in: every page is the sign-in page.
        for path in ["/players", "/audit", f"/players/{self.player_id}"]:
            self.open(path)
            self.assertTrue(self.browser.find_elements(By.ID, "sign-in"), path)
            self.assertFalse(self.browser.find_elements(By.ID, "nav-players"), path)
        self.shoot("sign-in")

        # A wrong password, and a player who is not an administrator: the same message.
        for phone, password in [(ADMIN_PHONE, "wrong secret"), (PLAYER_PHONE, PLAYER_PASSWORD)]:
            self.sign_in(phone, password)
            self.assertIn("Wrong phone or password", self.text("message"))
            self.assertTrue(self.browser.find_elements(By.ID, "sign-in"))

        self.sign_in(ADMIN_PHONE, ADMIN_PASSWORD)
        self.assertIn("Operator", self.text("administrator"))

        # Find the player by the start of their nickname and open their page.
        search = self.browser.find_element(By.ID, "q")
        search.send_keys("row")
        self.browser.find_element(By.ID, "search-submit").click()
        results = self.text("results")
        self.assertIn("Rowdy", results)
        self.assertIn(PLAYER_PHONE, results)
        self.shoot("players")
        self.browser.find_element(By.LINK_TEXT, "Rowdy").click()
        self.assertEqual(self.text("player-id"), self.player_id)
        self.assertEqual(self.text("suspension"), "Not suspended")

        # A form without its CSRF token is refused, and nothing happens.
        self.browser.execute_script(
            "document.querySelector('#end-sessions input[name=csrf]').remove()")
        self.browser.find_element(By.ID, "end-sessions-submit").click()
        self.assertIn("CSRF_INVALID", self.text("message"))
        self.open("/audit")
        self.assertTrue(self.browser.find_elements(By.ID, "no-entries"))

        # Suspend for 7 days: the RPC Login is refused with ACCOUNT_SUSPENDED.
        self.open(f"/players/{self.player_id}")
        self.browser.find_element(By.ID, "reason").send_keys("Abusive messages to other players")
        Select(self.browser.find_element(By.ID, "for")).select_by_value("7d")
        self.browser.find_element(By.ID, "suspend-submit").click()
        self.assertRegex(
            self.text("suspension"),
            r"^Suspended until \d{4}-\d\d-\d\d \d\d:\d\d.*Abusive messages to other players")
        self.shoot("player")
        status, _, err = self.player_login()
        self.assertNotEqual(status, 0)
        self.assertIn("ACCOUNT_SUSPENDED", err)
        self.assertIn("This account is suspended until", err)

        # Lift it: Login works again.
        self.browser.find_element(By.ID, "note").send_keys("Apologised")
        self.browser.find_element(By.ID, "lift-submit").click()
        self.assertEqual(self.text("suspension"), "Not suspended")
        status, out, err = self.player_login()
        self.assertEqual(status, 0, err)
        self.assertEqual(json.loads(out)["userId"], self.player_id)

        # The audit log has both actions, newest first, by this administrator.
        self.open("/audit")
        rows = [row.text for row in self.browser.find_elements(By.CSS_SELECTOR, "#audit tbody tr")]
        self.assertEqual(len(rows), 2, rows)
        self.assertIn("lift_suspension", rows[0])
        self.assertIn("Apologised", rows[0])
        self.assertIn("suspend", rows[1])
        self.assertIn("Abusive messages", rows[1])
        self.shoot("audit")

        # Signing out ends the session: the pages are the sign-in page again.
        self.browser.find_element(By.CSS_SELECTOR, "#sign-out button").click()
        self.open("/players")
        self.assertTrue(self.browser.find_elements(By.ID, "sign-in"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
