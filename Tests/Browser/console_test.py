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

import base64
import html.parser
import http.client
import json
import os
import signal
import ssl
import struct
import subprocess
import tempfile
import unittest
import urllib.parse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.ui import Select, WebDriverWait

BUILD = os.environ.get("BADMINTON_BUILD", ".build/debug")
SERVER = os.path.join(BUILD, "badminton-server")
CLI = os.path.join(BUILD, "badminton")
SCREENSHOTS = os.environ.get("CONSOLE_SCREENSHOTS")

ADMIN_PHONE = "+8613900000001"
ADMIN_PASSWORD = "console secret"
PLAYER_PHONE = "+8613900000002"
PLAYER_PASSWORD = "rowdy secret"


def cli_environment(session):
    """The environment of a `badminton` command whose session file lives in `session`."""
    environment = dict(os.environ)
    if session:
        environment["XDG_CONFIG_HOME"] = session
    return environment


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

    def call(self, method, request, session=None):
        """Calls `method` through the `badminton` command, as the player logged in with the
        session folder `session` when given: (exit status, stdout, stderr)."""
        done = subprocess.run(
            [CLI, "call", "--server", self.rpc, method, json.dumps(request)],
            capture_output=True, text=True, timeout=60, env=cli_environment(session))
        return done.returncode, done.stdout, done.stderr

    def login(self, phone, password, session):
        """Logs `phone` in with `badminton login`, keeping the session in the folder `session`."""
        done = subprocess.run(
            [CLI, "login", "--server", self.rpc, phone], input=password + "\n",
            capture_output=True, text=True, timeout=60, env=cli_environment(session))
        if done.returncode != 0:
            raise RuntimeError(f"badminton login failed: {done.stderr}")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)
        self.process.stdout.close()


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

    def click(self, element):
        """Clicks `element` and returns once the page it leads to has replaced this one."""
        page = self.browser.find_element(By.TAG_NAME, "html")
        element.click()

        def replaced(_):
            try:
                page.is_enabled()
                return False
            except WebDriverException:
                # Stale, or (Chromium's word for it) a node of a document that is gone.
                return True

        WebDriverWait(self.browser, 60).until(replaced)

    def shoot(self, name):
        if SCREENSHOTS:
            os.makedirs(SCREENSHOTS, exist_ok=True)
            # The whole page: the window as tall as what it shows.
            height = self.browser.execute_script("return document.documentElement.scrollHeight")
            self.browser.set_window_size(1280, max(600, height + 200))
            self.browser.save_screenshot(os.path.join(SCREENSHOTS, name + ".png"))
            self.browser.set_window_size(1280, 1000)

    def sign_in(self, phone, password):
        self.open("/sign-in")
        self.browser.find_element(By.ID, "phone").send_keys(phone)
        self.browser.find_element(By.ID, "password").send_keys(password)
        self.click(self.browser.find_element(By.ID, "sign-in-submit"))

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
        self.click(self.browser.find_element(By.ID, "search-submit"))
        results = self.text("results")
        self.assertIn("Rowdy", results)
        self.assertIn(PLAYER_PHONE, results)
        self.shoot("players")
        self.click(self.browser.find_element(By.LINK_TEXT, "Rowdy"))
        self.assertEqual(self.text("player-id"), self.player_id)
        self.assertEqual(self.text("suspension"), "Not suspended")

        # A form without its CSRF token is refused, and nothing happens.
        self.browser.execute_script(
            "document.querySelector('#end-sessions input[name=csrf]').remove()")
        self.click(self.browser.find_element(By.ID, "end-sessions-submit"))
        self.assertIn("CSRF_INVALID", self.text("message"))
        self.open("/audit")
        self.assertTrue(self.browser.find_elements(By.ID, "no-entries"))

        # Suspend for 7 days: the RPC Login is refused with ACCOUNT_SUSPENDED.
        self.open(f"/players/{self.player_id}")
        self.browser.find_element(By.ID, "reason").send_keys("Abusive messages to other players")
        Select(self.browser.find_element(By.ID, "for")).select_by_value("7d")
        self.click(self.browser.find_element(By.ID, "suspend-submit"))
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
        self.click(self.browser.find_element(By.ID, "lift-submit"))
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
        self.click(self.browser.find_element(By.CSS_SELECTOR, "#sign-out button"))
        self.open("/players")
        self.assertTrue(self.browser.find_elements(By.ID, "sign-in"))


    def test_review_and_live(self):
        """The whole review of a real PNG certificate uploaded through the RPC API, and the
        live page showing a call made a moment before."""
        # A certificate, drawn by the browser itself: a real PNG.
        self.browser.set_window_size(520, 360)
        self.browser.get(
            "data:text/html,<body style='font:20px serif;background:%23fffbe8'>"
            "<h2>Regional Badminton Championship</h2><p>Winner: Rowdy</p>"
            "<p>Singles, 2026</p></body>")
        certificate = self.browser.get_screenshot_as_png()
        self.browser.set_window_size(1280, 1000)
        self.assertTrue(certificate.startswith(b"\x89PNG"))
        self.assertLess(len(certificate), 60_000)
        session = tempfile.mkdtemp()
        self.server.login(PLAYER_PHONE, PLAYER_PASSWORD, session)
        status, out, err = self.server.call(
            "Players/SubmitVerification",
            {"kind": "REGIONAL_CHAMPIONSHIP",
             "document": base64.b64encode(certificate).decode()}, session)
        self.assertEqual(status, 0, err)
        request_id = json.loads(out)["id"]

        self.sign_in(ADMIN_PHONE, ADMIN_PASSWORD)
        self.click(self.browser.find_element(By.ID, "nav-verifications"))
        queue = self.text("queue")
        self.assertIn("Rowdy", queue)
        self.assertIn("8", queue)
        self.shoot("verifications")
        self.click(self.browser.find_element(By.LINK_TEXT, "Review"))
        image = self.browser.find_element(By.ID, "certificate")
        # The browser loaded and decoded the certificate the player sent.
        self.assertTrue(self.browser.execute_script(
            "return arguments[0].complete && arguments[0].naturalWidth > 0", image))
        self.assertEqual(
            self.browser.execute_script("return arguments[0].naturalWidth", image),
            struct.unpack(">I", certificate[16:20])[0])
        self.shoot("verification")
        self.browser.find_element(By.ID, "note").send_keys("Certificate checked")
        self.click(self.browser.find_element(By.ID, "approve"))
        self.assertIn("approved", self.text("state").lower())
        self.assertIn("approved", self.text("message").lower())

        # Through the RPC API the player's profile now shows level 8 open to them.
        status, out, err = self.server.call(
            "Players/GetProfile", {"userId": self.player_id}, session)
        self.assertEqual(status, 0, err)
        self.assertEqual(json.loads(out)["verifiedMaxLevel"], 8)
        status, out, err = self.server.call("Players/GetMyProfile", {}, session)
        self.assertEqual(status, 0, err)
        self.open("/audit")
        self.assertIn("approve_verification", self.text("audit"))

        # The call just made is on the live page.
        self.click(self.browser.find_element(By.ID, "nav-live"))
        methods = self.browser.find_elements(
            By.CSS_SELECTOR, "section.method[data-method='/badminton.v1.Players/GetMyProfile']")
        self.assertEqual(len(methods), 1)
        self.assertTrue(methods[0].find_elements(By.TAG_NAME, "svg"))
        self.assertIn("GetMyProfile", self.text("methods"))
        self.shoot("live")
        self.click(self.browser.find_element(By.CSS_SELECTOR, "#sign-out button"))


class SignInForm(html.parser.HTMLParser):
    """The hidden CSRF token of a page's sign-in form."""

    token = None

    def handle_starttag(self, tag, attributes):
        attributes = dict(attributes)
        if tag == "input" and attributes.get("name") == "csrf":
            self.token = attributes.get("value")


class ConsoleOverTLS(unittest.TestCase):
    """The console with the RPC port's TLS options: HTTPS only, with the same certificate, and
    cookies marked Secure. Checked with Python's own TLS client against the certificate."""

    def test_console_serves_https_with_secure_cookies(self):
        with tempfile.TemporaryDirectory() as folder:
            key, chain = os.path.join(folder, "key.pem"), os.path.join(folder, "chain.pem")
            subprocess.run(
                ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                 "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", chain,
                 "-days", "1", "-subj", "/CN=localhost",
                 "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                check=True, capture_output=True)
            os.chmod(key, 0o600)
            data = os.path.join(folder, "data")
            first = Server(data)
            try:
                status, out, err = first.call(
                    "Accounts/Register",
                    {"phone": ADMIN_PHONE, "nickname": "Operator", "password": ADMIN_PASSWORD,
                     "selfLevel": 5})
                self.assertEqual(status, 0, err)
                admin_id = json.loads(out)["userId"]
            finally:
                first.stop()
            server = Server(
                data, "--admin-id", admin_id, "--console-port", "0",
                "--tls-certificate-chain", chain, "--tls-private-key", key)
            try:
                host, port = server.console.rsplit(":", 1)
                context = ssl.create_default_context(cafile=chain)

                def request(method, path, body=None, headers=None):
                    connection = http.client.HTTPSConnection(
                        host, int(port), context=context, timeout=60)
                    connection.request(method, path, body=body, headers=headers or {})
                    response = connection.getresponse()
                    answer = (response.status, response.getheaders(), response.read().decode())
                    connection.close()
                    return answer

                status, headers, page = request("GET", "/sign-in")
                self.assertEqual(status, 200)
                self.assertIn(("Strict-Transport-Security", "max-age=31536000"), headers)
                guard = [v for k, v in headers if k.lower() == "set-cookie"]
                self.assertEqual(len(guard), 1, guard)
                self.assertIn("Secure", guard[0])
                self.assertIn("HttpOnly", guard[0])
                form = SignInForm()
                form.feed(page)
                body = urllib.parse.urlencode(
                    {"csrf": form.token, "phone": ADMIN_PHONE, "password": ADMIN_PASSWORD})
                status, headers, _ = request(
                    "POST", "/sign-in", body,
                    {"Content-Type": "application/x-www-form-urlencoded",
                     "Cookie": guard[0].split(";", 1)[0]})
                self.assertEqual(status, 303)
                session = [v for k, v in headers
                           if k.lower() == "set-cookie" and v.startswith("console_session=")]
                self.assertEqual(len(session), 1, headers)
                for attribute in ["Secure", "HttpOnly", "SameSite=Strict"]:
                    self.assertIn(attribute, session[0])
                status, _, page = request(
                    "GET", "/players", headers={"Cookie": session[0].split(";", 1)[0]})
                self.assertEqual(status, 200)
                self.assertIn('id="search"', page)
                # Plain HTTP on the console's port gets no page.
                plain = http.client.HTTPConnection(host, int(port), timeout=60)
                with self.assertRaises((http.client.HTTPException, ConnectionError, OSError)):
                    plain.request("GET", "/sign-in")
                    plain.getresponse().read()
                plain.close()
            finally:
                server.stop()


if __name__ == "__main__":
    unittest.main(verbosity=2)
