//! A real headless Chromium driven over the DevTools protocol, for tests of the pages latchkey
//! writes: load a page, run script in it, click, press keys, read what it logged as errors, take
//! a screenshot.
#![allow(dead_code)] // each page's tests use their own part

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

/// How long any one step may take before the test fails.
const PATIENCE: Duration = Duration::from_secs(60);

/// The browser's executable: `CHROMIUM` if set, else the first of Debian's and others' names
/// found on the path.
fn executable() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|p| p.is_file())
}

/// A headless browser with one page open.
pub struct Browser {
    child: Child,
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
    session: String,
    next_id: u64,
    /// Errors the page reported: exceptions, `console.error`, failed loads.
    pub errors: Vec<String>,
    profile: PathBuf,
    loaded: bool,
}

impl Browser {
    /// Starts the browser, or says why it cannot: `None` where no browser is installed, except
    /// in CI (`CI` set), where the browser must be there and its absence fails the test.
    pub fn start() -> Option<Browser> {
        let Some(exe) = executable() else {
            assert!(
                std::env::var_os("CI").is_none(),
                "no Chromium on the path: .ci/run installs Debian's chromium (or set CHROMIUM)"
            );
            eprintln!("SKIPPED: no Chromium on the path (install Debian's chromium, or set CHROMIUM); the page is not checked");
            return None;
        };
        let profile = std::env::temp_dir().join(format!("latchkey-chromium-{}-{}", std::process::id(), unique()));
        let mut child = Command::new(&exe)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-extensions",
                "--remote-debugging-port=0",
                "--window-size=1100,700",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", exe.display()));
        // "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/ID" comes on standard error.
        let stderr = BufReader::new(child.stderr.take().expect("piped"));
        let (found, address) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut sent = false;
            for line in stderr.lines().map_while(Result::ok) {
                if let (false, Some(at)) = (sent, line.find("ws://")) {
                    let _ = found.send(line[at..].trim().to_owned());
                    sent = true;
                }
            }
        });
        let url = address.recv_timeout(PATIENCE).expect("the browser says where it listens");
        let (socket, _) = tungstenite::connect(url.as_str()).expect("connect to the browser");
        let mut browser =
            Browser { child, socket, session: String::new(), next_id: 0, errors: Vec::new(), profile, loaded: false };
        let target = browser.call_browser("Target.createTarget", json!({ "url": "about:blank" }));
        let target = target["targetId"].as_str().expect("a target").to_owned();
        let attached = browser.call_browser("Target.attachToTarget", json!({ "targetId": target, "flatten": true }));
        browser.session = attached["sessionId"].as_str().expect("a session").to_owned();
        for domain in ["Page.enable", "Runtime.enable", "Log.enable"] {
            browser.call(domain, json!({}));
        }
        Some(browser)
    }

    /// Loads `path` and waits for its load event.
    pub fn open(&mut self, path: &Path) {
        let url = format!("file://{}", path.canonicalize().expect("the page exists").display());
        self.loaded = false;
        let reply = self.call("Page.navigate", json!({ "url": url }));
        assert!(reply.get("errorText").is_none(), "cannot open {url}: {reply}");
        let begun = Instant::now();
        while !self.loaded {
            assert!(begun.elapsed() < PATIENCE, "{url} did not load");
            let message = self.receive();
            self.note(&message);
        }
    }

    /// The value of the JavaScript `expression` in the page.
    pub fn eval(&mut self, expression: &str) -> Value {
        let reply = self.call("Runtime.evaluate", json!({ "expression": expression, "returnByValue": true }));
        if let Some(e) = reply.get("exceptionDetails") {
            panic!("{expression} threw: {e}");
        }
        reply["result"]["value"].clone()
    }

    /// Clicks the element `selector` where a person would: the mouse pressed and released at its
    /// centre.
    pub fn click(&mut self, selector: &str) {
        let centre = self.eval(&format!(
            "(() => {{ const r = document.querySelector({selector:?}).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
        ));
        let (x, y) = (centre[0].as_f64().expect("x"), centre[1].as_f64().expect("y"));
        for kind in ["mousePressed", "mouseReleased"] {
            let event = json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 });
            self.call("Input.dispatchMouseEvent", event);
        }
    }

    /// Presses and releases the key `key` (a DOM key name such as "ArrowRight").
    pub fn press(&mut self, key: &str, code: u32) {
        for kind in ["rawKeyDown", "keyUp"] {
            let event = json!({ "type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code });
            self.call("Input.dispatchKeyEvent", event);
        }
    }

    /// A PNG screenshot of the page, written to `path`.
    pub fn screenshot(&mut self, path: &Path) {
        use base64::Engine;
        let shot = self.call("Page.captureScreenshot", json!({ "format": "png" }));
        let png =
            base64::engine::general_purpose::STANDARD.decode(shot["data"].as_str().expect("data")).expect("base64");
        std::fs::write(path, png).expect("write the screenshot");
    }

    /// Sends `method` to the page and returns its result; events that come meanwhile are noted.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let session = self.session.clone();
        self.send(method, params, Some(&session))
    }

    fn call_browser(&mut self, method: &str, params: Value) -> Value {
        self.send(method, params, None)
    }

    fn send(&mut self, method: &str, params: Value, session: Option<&str>) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            message["sessionId"] = json!(s);
        }
        self.socket.send(Message::text(message.to_string())).expect("send to the browser");
        let begun = Instant::now();
        loop {
            assert!(begun.elapsed() < PATIENCE, "{method}: no answer");
            let message = self.receive();
            if message["id"].as_u64() == Some(id) {
                if let Some(e) = message.get("error") {
                    panic!("{method} failed: {e}");
                }
                return message["result"].clone();
            }
            self.note(&message);
        }
    }

    fn receive(&mut self) -> Value {
        loop {
            match self.socket.read().expect("read from the browser") {
                Message::Text(text) => return serde_json::from_str(&text).expect("JSON from the browser"),
                Message::Close(_) => panic!("the browser closed the connection"),
                _ => {}
            }
        }
    }

    /// Keeps what an event says about the page: its load, its errors.
    fn note(&mut self, event: &Value) {
        let params = &event["params"];
        match event["method"].as_str().unwrap_or("") {
            "Page.loadEventFired" => self.loaded = true,
            "Runtime.exceptionThrown" => self.errors.push(format!("exception: {}", params["exceptionDetails"])),
            "Runtime.consoleAPICalled" if params["type"] == "error" => {
                self.errors.push(format!("console.error: {}", params["args"]))
            }
            "Log.entryAdded" if params["entry"]["level"] == "error" => {
                self.errors.push(format!("log: {}", params["entry"]["text"]))
            }
            _ => {}
        }
    }
}

impl Drop for Browser {
    /// Asks the browser to close, so that it and its helper processes stop writing to the
    /// profile and remove their own temporary files; kills it if it has not exited within a few
    /// seconds; then removes the profile.
    fn drop(&mut self) {
        let close = json!({ "id": self.next_id + 1, "method": "Browser.close", "params": {} });
        if self.socket.send(Message::text(close.to_string())).is_ok() {
            let begun = Instant::now();
            while matches!(self.child.try_wait(), Ok(None)) && begun.elapsed() < Duration::from_secs(5) {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// A number no other browser of this process has used.
fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
