// Preloaded into the MCP conformance suite (NODE_OPTIONS=--require) by
// crates/cli/tests/cli/conformance.rs: every request the suite makes to the
// server under test carries the bearer token in SWITCHBOARD_TEST_TOKEN, as a
// configured agent's would. The suite has no option for a header; the
// server refuses every request without a token. Requests that already name
// an Authorization header keep it.
'use strict';

const token = process.env.SWITCHBOARD_TEST_TOKEN;
const bearer = `Bearer ${token}`;
const named = (headers) =>
  Object.keys(headers || {}).some((name) => name.toLowerCase() === 'authorization');

// The SDK's client: fetch.
const originalFetch = globalThis.fetch;
globalThis.fetch = (input, init = {}) => {
  const headers = new Headers(init.headers || (input instanceof Request ? input.headers : undefined));
  if (!headers.has('authorization')) headers.set('authorization', bearer);
  return originalFetch(input, { ...init, headers });
};

// The suite's own raw requests (DNS rebinding): undici's request.
const path = require('node:path');
const undici = require(require.resolve('undici', { paths: [path.dirname(process.argv[1] || '.')] }));
const originalRequest = undici.request;
undici.request = (url, options = {}) => {
  const headers = { ...(options.headers || {}) };
  if (!named(headers)) headers.authorization = bearer;
  return originalRequest(url, { ...options, headers });
};
