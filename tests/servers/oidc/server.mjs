// A real OAuth 2.0 / OpenID Connect authorization server for the identity tests: node-oidc-provider
// (installed into .tools/oidc by scripts/install-node-tools.sh), configured for machine-to-machine use.
//
//   - client credentials grant, client_secret_basic or client_secret_post;
//   - resource indicators (RFC 8707): a token asked for `resource=R` is a JWT access token with `aud: R`,
//     signed with the newest key (RS256); without a resource, an opaque token (introspectable);
//   - introspection (RFC 7662) and revocation; discovery at /.well-known/openid-configuration; JWKS;
//   - short lifetimes: OIDC_TOKEN_TTL seconds (default 5), so renewal is exercised.
//
// Environment: OIDC_PORT (default 0: an ephemeral port), OIDC_TOKEN_TTL, OIDC_SCOPES (space-separated,
// default "read write"), OIDC_CLIENTS (JSON list of {client_id, client_secret, scope?}; default one client
// "agent-a"/"secret-a"), OIDC_PROVIDER_MODULE (default .tools/oidc/node_modules/oidc-provider/lib/index.js).
//
// Once listening it prints one JSON line on stdout: {"issuer": "http://127.0.0.1:PORT", "port": PORT}.
//
// Test controls under /admin (loopback only, no authentication: a test server):
//   POST /admin/rotate            a new signing key first in the JWKS, the old ones kept (?retire=1 drops
//                                 them); answers {"kid": new kid}. The provider is rebuilt in place.
//   POST /admin/mode?token=M      the token endpoint answers normally (normal), never in time (slow: the
//                                 answer held until the client leaves), with a 200 that is not JSON
//                                 (garbage), or with a 503 (error)
//   GET  /admin/stats             {"token_requests": n, "kids": [...]}
//   POST /admin/sign              body {"claims": {...}, "header": {...}}: a JWT signed with the current key
//                                 (the tests' expired, wrong-audience and wrong-issuer tokens)
import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..', '..');
const modulePath = process.env.OIDC_PROVIDER_MODULE
  || path.join(root, '.tools', 'oidc', 'node_modules', 'oidc-provider', 'lib', 'index.js');
const { default: Provider } = await import(pathToFileURL(modulePath).href);

const ttl = Number(process.env.OIDC_TOKEN_TTL || '5');
const scopes = (process.env.OIDC_SCOPES || 'read write').trim();
const clients = JSON.parse(
  process.env.OIDC_CLIENTS || '[{"client_id": "agent-a", "client_secret": "secret-a"}]',
);

function newKey() {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: crypto.randomUUID(), use: 'sig', alg: 'RS256' };
}

let keys = [newKey()];
let mode = 'normal';
let tokenRequests = 0;
let issuer = '';
let provider = null;
let handle = null;

function build() {
  const built = new Provider(issuer, {
    clients: clients.map((c) => ({
      client_id: c.client_id,
      client_secret: c.client_secret,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      scope: c.scope || scopes,
    })),
    jwks: { keys },
    scopes: scopes.split(/\s+/),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: scopes,
          audience: resource,
          accessTokenTTL: ttl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    ttl: { ClientCredentials: ttl },
  });
  built.on('server_error', (_ctx, err) => console.error(`oidc server_error: ${err}`));
  return built;
}

const b64 = (value) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

function sign(claims, header) {
  const key = keys[0];
  const head = { alg: 'RS256', typ: 'at+jwt', kid: key.kid, ...header };
  const input = `${b64(head)}.${b64(claims)}`;
  const signature = crypto.sign('sha256', Buffer.from(input), crypto.createPrivateKey({ key, format: 'jwk' }));
  return `${input}.${signature.toString('base64url')}`;
}

function json(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString() || '{}';
  return JSON.parse(text);
}

async function admin(req, res, url) {
  if (url.pathname === '/admin/rotate' && req.method === 'POST') {
    const key = newKey();
    keys = url.searchParams.get('retire') ? [key] : [key, ...keys];
    provider = build();
    handle = provider.callback();
    return json(res, 200, { kid: key.kid });
  }
  if (url.pathname === '/admin/mode' && req.method === 'POST') {
    mode = url.searchParams.get('token') || 'normal';
    return json(res, 200, { token: mode });
  }
  if (url.pathname === '/admin/stats') {
    return json(res, 200, { token_requests: tokenRequests, kids: keys.map((k) => k.kid) });
  }
  if (url.pathname === '/admin/sign' && req.method === 'POST') {
    const body = await readJson(req);
    return json(res, 200, { token: sign(body.claims || {}, body.header || {}) });
  }
  return json(res, 404, { error: 'not_found' });
}

function tokenEndpoint(req, res) {
  tokenRequests += 1;
  if (mode === 'slow') {
    const timer = setTimeout(() => json(res, 503, { error: 'temporarily_unavailable' }), 60_000);
    res.on('close', () => clearTimeout(timer));
    return true;
  }
  if (mode === 'garbage') {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html>this is not a token response</html>');
    return true;
  }
  if (mode === 'error') {
    json(res, 503, { error: 'temporarily_unavailable', error_description: 'maintenance' });
    return true;
  }
  return false;
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, issuer);
  if (url.pathname.startsWith('/admin/')) {
    admin(req, res, url).catch((err) => json(res, 400, { error: String(err) }));
    return;
  }
  if (url.pathname === '/token' && req.method === 'POST' && tokenEndpoint(req, res)) {
    return;
  }
  handle(req, res);
});

server.listen(Number(process.env.OIDC_PORT || '0'), '127.0.0.1', () => {
  const { port } = server.address();
  issuer = `http://127.0.0.1:${port}`;
  provider = build();
  handle = provider.callback();
  process.stdout.write(`${JSON.stringify({ issuer, port })}\n`);
});

process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
