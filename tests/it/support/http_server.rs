//! A local HTTP/1.1 server for the summarizer tests, speaking the wire by hand over a tokio
//! `TcpListener`: it records every request (method, path, headers, body) and answers each from
//! a script of replies — fixed bodies, event streams sent piece by piece (chunked or
//! close-delimited), pauses, a cut connection, or no answer at all. It notices when the client
//! closes a connection. It does not speak TLS and serves only the test that started it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{ReadHalf, WriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

/// One request as the server read it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Names lower-cased, in the order sent.
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// Which connection carried it (0, 1, …).
    pub connection: usize,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The request line and headers as sent, for "is the key anywhere" checks.
    pub fn raw_head(&self) -> String {
        let mut s = format!("{} {}\n", self.method, self.path);
        for (n, v) in &self.headers {
            s.push_str(&format!("{n}: {v}\n"));
        }
        s
    }
}

/// A piece of a reply body.
#[derive(Debug, Clone)]
pub enum Step {
    Send(String),
    Wait(Duration),
}

/// How the body is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `Content-Length` (the body is sent at once; waits still apply).
    Length,
    /// `Transfer-Encoding: chunked`, one chunk per `Send`.
    Chunked,
    /// No length: the body ends when the server closes the connection.
    Close,
}

/// How the reply ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// Properly (final chunk, or close for `Framing::Close`).
    Complete,
    /// The connection is closed in the middle (no final chunk).
    Cut,
    /// Nothing more is sent, the connection stays open.
    Hang,
}

/// One scripted answer.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub steps: Vec<Step>,
    pub framing: Framing,
    pub finish: Finish,
    /// Send nothing at all, not even a status line.
    pub silent: bool,
}

impl Reply {
    /// A JSON body with `Content-Length`.
    pub fn json(status: u16, body: &str) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            steps: vec![Step::Send(body.into())],
            framing: Framing::Length,
            finish: Finish::Complete,
            silent: false,
        }
    }

    /// An event stream, one chunk per event text.
    pub fn sse(events: &[String]) -> Reply {
        Reply {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            steps: events.iter().map(|e| Step::Send(e.clone())).collect(),
            framing: Framing::Chunked,
            finish: Finish::Complete,
            silent: false,
        }
    }

    /// Reads the request and never answers.
    pub fn silent() -> Reply {
        Reply {
            silent: true,
            finish: Finish::Hang,
            ..Reply::json(200, "")
        }
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }

    pub fn framing(mut self, framing: Framing) -> Reply {
        self.framing = framing;
        self
    }

    pub fn finish(mut self, finish: Finish) -> Reply {
        self.finish = finish;
        self
    }

    /// Inserts a pause before the step at `index`.
    pub fn wait_before(mut self, index: usize, pause: Duration) -> Reply {
        self.steps.insert(index, Step::Wait(pause));
        self
    }
}

#[derive(Default)]
struct Shared {
    script: Vec<Reply>,
    requests: Vec<Recorded>,
    closed: Vec<usize>,
}

/// A running server; it stops with the test's runtime.
pub struct TestServer {
    pub addr: std::net::SocketAddr,
    shared: Arc<Mutex<Shared>>,
    closed: Arc<Notify>,
}

impl TestServer {
    /// Serves `script` in order, one reply per request; the last reply repeats.
    pub async fn start(script: Vec<Reply>) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Mutex::new(Shared {
            script,
            ..Shared::default()
        }));
        let closed = Arc::new(Notify::new());
        let (s, c) = (shared.clone(), closed.clone());
        tokio::spawn(async move {
            let mut id = 0;
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, id, s.clone(), c.clone()));
                id += 1;
            }
        });
        TestServer {
            addr,
            shared,
            closed,
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.lock().unwrap().requests.clone()
    }

    /// Whether the client closed connection `id` within `within`.
    pub async fn closed_within(&self, id: usize, within: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let notified = self.closed.notified();
            if self.shared.lock().unwrap().closed.contains(&id) {
                return true;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return self.shared.lock().unwrap().closed.contains(&id);
            }
        }
    }
}

async fn serve(mut stream: TcpStream, id: usize, shared: Arc<Mutex<Shared>>, closed: Arc<Notify>) {
    let (mut rd, mut wr) = stream.split();
    let mut buf = Vec::new();
    loop {
        let Some(mut request) = read_request(&mut rd, &mut buf).await else {
            break;
        };
        request.connection = id;
        let reply = {
            let mut s = shared.lock().unwrap();
            s.requests.push(request);
            if s.script.len() > 1 {
                s.script.remove(0)
            } else {
                s.script[0].clone()
            }
        };
        if !answer(&reply, &mut rd, &mut wr, &mut buf).await {
            break;
        }
    }
    shared.lock().unwrap().closed.push(id);
    closed.notify_waiters();
}

/// Sends `reply`; false when the connection is over (closed by either side).
async fn answer(
    reply: &Reply,
    rd: &mut ReadHalf<'_>,
    wr: &mut WriteHalf<'_>,
    buf: &mut Vec<u8>,
) -> bool {
    if !reply.silent {
        let mut head = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
        for (n, v) in &reply.headers {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        match reply.framing {
            Framing::Length => {
                let len: usize = reply
                    .steps
                    .iter()
                    .map(|s| match s {
                        Step::Send(t) => t.len(),
                        Step::Wait(_) => 0,
                    })
                    .sum();
                head.push_str(&format!("content-length: {len}\r\n"));
            }
            Framing::Chunked => head.push_str("transfer-encoding: chunked\r\n"),
            Framing::Close => head.push_str("connection: close\r\n"),
        }
        head.push_str("\r\n");
        if wr.write_all(head.as_bytes()).await.is_err() {
            return false;
        }
        for step in &reply.steps {
            let ok = match step {
                Step::Wait(d) => wait_or_closed(rd, buf, *d).await,
                Step::Send(t) if reply.framing == Framing::Chunked => {
                    let chunk = format!("{:x}\r\n{t}\r\n", t.len());
                    wr.write_all(chunk.as_bytes()).await.is_ok() && wr.flush().await.is_ok()
                }
                Step::Send(t) => {
                    wr.write_all(t.as_bytes()).await.is_ok() && wr.flush().await.is_ok()
                }
            };
            if !ok {
                return false;
            }
        }
    }
    match reply.finish {
        Finish::Complete if reply.framing == Framing::Chunked => {
            wr.write_all(b"0\r\n\r\n").await.is_ok()
        }
        Finish::Complete => reply.framing == Framing::Length,
        Finish::Cut => false,
        Finish::Hang => {
            wait_or_closed(rd, buf, Duration::from_secs(3600)).await;
            false
        }
    }
}

/// Sleeps `d`, reading meanwhile; false if the client closed the connection first.
async fn wait_or_closed(rd: &mut ReadHalf<'_>, buf: &mut Vec<u8>, d: Duration) -> bool {
    let sleep = tokio::time::sleep(d);
    tokio::pin!(sleep);
    let mut chunk = [0u8; 4096];
    loop {
        tokio::select! {
            _ = &mut sleep => return true,
            n = rd.read(&mut chunk) => match n {
                Ok(0) | Err(_) => return false,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            },
        }
    }
}

/// One request (head and `Content-Length` body); None at end of connection.
async fn read_request(rd: &mut ReadHalf<'_>, buf: &mut Vec<u8>) -> Option<Recorded> {
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = rd.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, path) = (first.next()?.to_string(), first.next()?.to_string());
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let start = head_end + 4;
    while buf.len() < start + len {
        let n = rd.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = String::from_utf8(buf[start..start + len].to_vec()).unwrap();
    buf.drain(..start + len);
    Some(Recorded {
        method,
        path,
        headers,
        body,
        connection: 0,
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        529 => "Overloaded",
        _ => "Status",
    }
}
