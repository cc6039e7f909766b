// The window's page in a browser (`switchboard serve`): what the page asks
// of Tauri — a command, an event — goes to the server instead, over fetch
// on this same origin, with this browser's cookie and this page's key.
//
// The key is what a cookie alone lacks: cookies keep to a host, not a port,
// so every other server on this host receives the cookie. The pairing
// page's link hands the key over once, in the address's fragment
// (`/#key=…`, which a browser never sends to a server); it is kept in this
// origin's localStorage, which no page of another scheme, host or port
// reads, and taken out of the address at once.
(() => {
  const KEPT = "switchboard-page-key";
  const handed = /^#key=([0-9a-f]{64})$/.exec(location.hash);
  // Where storage is refused (a private window keeping nothing), the key
  // lasts as long as this page.
  let held = "";
  if (handed) {
    held = handed[1];
    try {
      localStorage.setItem(KEPT, held);
    } catch (_) {
      // Kept in `held` only.
    }
    history.replaceState(history.state, "", location.pathname + location.search);
  }
  // Read at each request: pairing again in another tab replaces both the
  // cookie and the key.
  const key = () => {
    try {
      return localStorage.getItem(KEPT) ?? held;
    } catch (_) {
      return held;
    }
  };
  const keyed = (headers) => {
    const now = key();
    return now ? { ...headers, "X-Switchboard-Key": now } : headers;
  };
  // How this page reaches its server, as the page shows it: "connecting",
  // "connected", "reconnecting" (the network or the server went away:
  // what shows may be out of date) or "unpaired" (revoked, or the key
  // lost). Told to the page as the "browser-connection" event, and to each
  // new listener of it at once.
  const CONNECTION = "browser-connection";
  let connection = "connecting";
  const connect = (state) => {
    if (state === connection) return;
    connection = state;
    hand(CONNECTION, state);
  };
  const invoke = async (command, args) => {
    let response;
    try {
      response = await fetch(`/api/invoke/${encodeURIComponent(command)}`, {
        method: "POST",
        credentials: "same-origin",
        headers: keyed({ "Content-Type": "application/json" }),
        body: JSON.stringify(args ?? {}),
      });
    } catch (_) {
      // No answer at all: the network is down or the server stopped.
      if (connection !== "unpaired") connect("reconnecting");
      reopen();
      throw {
        code: "UNAVAILABLE",
        message:
          "Switchboard cannot be reached from this browser now (the network is down or the server stopped): it is tried again, and the page reads everything again once it is back.",
      };
    }
    if (response.status === 401) connect("unpaired");
    const text = await response.text();
    let value = null;
    try {
      value = text ? JSON.parse(text) : null;
    } catch (_) {
      value = { code: "INTERNAL", message: text };
    }
    if (!response.ok) {
      throw value ?? { code: "UNAVAILABLE", message: `the server answered ${response.status}` };
    }
    return value;
  };
  const handlers = new Map();
  let reopen = () => {};
  const hand = (event, payload) => {
    for (const handler of handlers.get(event) ?? []) {
      try {
        handler({ event, payload, id: 0 });
      } catch (error) {
        console.error(error);
      }
    }
  };
  // Back after the stream dropped (a phone that slept, a proxy that
  // closed it, a server started again): what changed meanwhile was not
  // heard, so each view reads again (the page also hears "connected").
  const readAgain = () => {
    for (const change of ["deliveries", "sessions", "agents", "team", "knowledge"]) hand("store-changed", change);
    hand("everywhere-changed", null);
  };
  // One server-sent event's block: its `data:` lines, as one JSON text.
  const heard = (block) => {
    const data = block
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n");
    if (!data) return;
    const { event, payload } = JSON.parse(data);
    hand(event, payload);
  };
  // The server-sent events over fetch, which sends the key in a header (an
  // EventSource could send it only in the address, which proxies log). A
  // stream that dropped is opened again after a pause; one refused as not
  // paired (401) is not: the page says how to pair again. A stream that
  // hears nothing for longer than two of the server's heartbeats (15 s) is
  // taken for dropped — a phone that lost its network hears no end — and
  // so is one when the phone says it is back online.
  const SILENT_MS = 35000;
  let following = false;
  const follow = () => {
    if (following) return;
    following = true;
    let opened = false;
    let current = null;
    let retry = null;
    const again = (ms) => {
      clearTimeout(retry);
      retry = setTimeout(open, ms);
    };
    const open = async () => {
      clearTimeout(retry);
      if (current) current.abort();
      const aborter = new AbortController();
      current = aborter;
      let silence = setTimeout(() => aborter.abort(), SILENT_MS);
      const heardSomething = () => {
        clearTimeout(silence);
        silence = setTimeout(() => aborter.abort(), SILENT_MS);
      };
      let response;
      try {
        response = await fetch("/api/events", {
          credentials: "same-origin",
          cache: "no-store",
          headers: keyed({ Accept: "text/event-stream" }),
          signal: aborter.signal,
        });
      } catch (_) {
        clearTimeout(silence);
        if (current !== aborter) return;
        connect("reconnecting");
        again(2000);
        return;
      }
      if (response.status === 401) {
        clearTimeout(silence);
        connect("unpaired");
        return;
      }
      if (!response.ok || !response.body) {
        clearTimeout(silence);
        connect("reconnecting");
        again(response.status === 429 ? 15000 : 3000);
        return;
      }
      const back = opened;
      opened = true;
      connect("connected");
      if (back) readAgain();
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let pending = "";
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          heardSomething();
          pending += decoder.decode(value, { stream: true });
          let end;
          while ((end = pending.indexOf("\n\n")) >= 0) {
            heard(pending.slice(0, end));
            pending = pending.slice(end + 2);
          }
        }
      } catch (_) {
        // Dropped, or taken for dropped: opened again below.
      }
      clearTimeout(silence);
      // Another stream took this one's place (opened again at once).
      if (current !== aborter) return;
      if (connection !== "unpaired") connect("reconnecting");
      again(1000);
    };
    reopen = () => {
      if (connection !== "unpaired") again(0);
    };
    window.addEventListener("online", reopen);
    open();
  };
  const listen = async (event, handler) => {
    follow();
    if (!handlers.has(event)) handlers.set(event, []);
    handlers.get(event).push(handler);
    if (event === CONNECTION) {
      // The state now, as the first thing it hears.
      queueMicrotask(() => handler({ event, payload: connection, id: 0 }));
    }
    return () => handlers.set(event, (handlers.get(event) ?? []).filter((each) => each !== handler));
  };
  window.__SWITCHBOARD_BROWSER__ = true;
  window.__TAURI_INTERNALS__ = { invoke };
  window.__TAURI__ = { core: { invoke }, event: { listen } };
})();
