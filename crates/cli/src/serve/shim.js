// The window's page in a browser (`switchboard serve`): what the page asks
// of Tauri — a command, an event — goes to the server instead, over fetch
// and server-sent events, on this same origin with this browser's cookie.
(() => {
  const invoke = async (command, args) => {
    const response = await fetch(`/api/invoke/${encodeURIComponent(command)}`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(args ?? {}),
    });
    const text = await response.text();
    let value = null;
    try {
      value = text ? JSON.parse(text) : null;
    } catch (_) {
      value = { code: "internal", message: text };
    }
    if (!response.ok) {
      throw value ?? { code: "unavailable", message: `the server answered ${response.status}` };
    }
    return value;
  };
  const handlers = new Map();
  let source = null;
  const follow = () => {
    if (source) return;
    source = new EventSource("/api/events");
    const hand = (event, payload) => {
      for (const handler of handlers.get(event) ?? []) handler({ event, payload, id: 0 });
    };
    source.onmessage = (message) => {
      const { event, payload } = JSON.parse(message.data);
      hand(event, payload);
    };
    // Back after the stream dropped (a phone that slept, a proxy that
    // closed it): what changed meanwhile was not heard, so each view
    // reads again.
    let opened = false;
    source.onopen = () => {
      if (opened) {
        for (const change of ["deliveries", "sessions", "agents", "team", "knowledge"]) hand("store-changed", change);
        hand("everywhere-changed", null);
      }
      opened = true;
    };
  };
  const listen = async (event, handler) => {
    follow();
    if (!handlers.has(event)) handlers.set(event, []);
    handlers.get(event).push(handler);
    return () => handlers.set(event, (handlers.get(event) ?? []).filter((each) => each !== handler));
  };
  window.__SWITCHBOARD_BROWSER__ = true;
  window.__TAURI_INTERNALS__ = { invoke };
  window.__TAURI__ = { core: { invoke }, event: { listen } };
})();
