// A real OAuth 2.0 / OpenID Connect authorization server for the identity tests: node-oidc-provider
// (installed into .tools/oidc by scripts/install-node-tools.sh), configured for machine-to-machine use.
//
//   - client credentials grant, client_secret_basic or client_secret_post;
//   - resource indicators (RFC 8707): a token asked for `resource=R` is a JWT access token with `aud: R`,
//     signed with the newest key (RS256); without a resource, an opaque token (introspectable);
//   - introspection (RFC 7662) and revocation; discovery at /.well-known/openid-configuration; JWKS;
//   - short lifetimes: OIDC_TOKEN_TTL seconds (default 5), so renewal is exercised;
//   - token exchange (RFC 8693), which oidc-provider does not implement: a custom grant (below) that takes
//     a JWT access token this server signed as `subject_token` and issues a JWT access token for the
//     `resource` asked for, whose `sub` is the subject token's and whose `act` names the client that asked
//     (nested when the subject token already had an actor).
//
//   - with OIDC_LOGIN=1, users sign in (authorization code with PKCE) through oidc-provider's development
//     interactions: GET the authorization URL, POST /interaction/UID `prompt=login&login=NAME&password=x`,
//     then `prompt=consent`; GET /interaction/UID/abort denies. Clients allowed the refresh_token grant get
//     refresh tokens. OIDC_PUBLIC_CLIENTS (JSON list of {client_id, redirect_uris}) are pre-registered public
//     native clients (no secret; a loopback redirect URI matches on any port);
//   - with OIDC_CIMD=1 also, a client id may be the https URL of a client ID metadata document (the
//     experimental clientIdMetadataDocument feature), fetched even from loopback addresses (the provider's
//     SSRF guard is lifted: a test server); trust its certificate with NODE_EXTRA_CA_CERTS.
//
// Environment: OIDC_PORT (default 0: an ephemeral port), OIDC_TOKEN_TTL, OIDC_SCOPES (space-separated,
// default "read write"), OIDC_CLIENTS (JSON list of {client_id, client_secret, scope?}; default one client
// "agent-a"/"secret-a"), OIDC_LOGIN, OIDC_CIMD, OIDC_PUBLIC_CLIENTS, OIDC_PROVIDER_MODULE (default
// .tools/oidc/node_modules/oidc-provider/lib/index.js).
//
// Once listening it prints one JSON line on stdout: {"issuer": "http://127.0.0.1:PORT", "port": PORT}.
//
// Test controls under /admin (loopback only, no authentication: a test server):
//   POST /admin/rotate            a new signing key first in the JWKS, the old ones kept (?retire=1 drops
//                                 them); answers {"kid": new kid}. The provider is rebuilt in place.
//   POST /admin/mode?token=M      the token endpoint answers normally (normal), never in time (slow: the
//                                 answer held until the client leaves), with a 200 that is not JSON
//                                 (garbage), or with a 503 (error)
//   GET  /admin/stats             {"token_requests": n, "exchanges": n, "kids": [...]}
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
const { default: Provider, errors } = await import(pathToFileURL(modulePath).href);
const grants = await import(pathToFileURL(path.join(path.dirname(modulePath), 'helpers', 'grants.js')).href);

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt';

const ttl = Number(process.env.OIDC_TOKEN_TTL || '5');
const scopes = (process.env.OIDC_SCOPES || 'read write').trim();
const clients = JSON.parse(
  process.env.OIDC_CLIENTS || '[{"client_id": "agent-a", "client_secret": "secret-a"}]',
);
const login = process.env.OIDC_LOGIN === '1';
const cimd = process.env.OIDC_CIMD === '1';
const publicClients = JSON.parse(process.env.OIDC_PUBLIC_CLIENTS || '[]');

function newKey() {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: crypto.randomUUID(), use: 'sig', alg: 'RS256' };
}

let keys = [newKey()];
let mode = 'normal';
let tokenRequests = 0;
let exchanges = 0;
let issuer = '';
let provider = null;
let handle = null;

function build() {
  const built = new Provider(issuer, {
    clients: clients.map((c) => ({
      client_id: c.client_id,
      client_secret: c.client_secret,
      grant_types: ['client_credentials', TOKEN_EXCHANGE],
      redirect_uris: [],
      response_types: [],
      scope: c.scope || scopes,
    })).concat(publicClients.map((c) => ({
      client_id: c.client_id,
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: c.redirect_uris,
      scope: c.scope || scopes,
    }))),
    jwks: { keys },
    scopes: scopes.split(/\s+/),
    // a refresh token for every client allowed the grant (the default also wants offline_access)
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // the provider's fetch refuses loopback addresses; the test's client metadata documents are there
    fetch: (url, { dispatcher: _guard, ...options }) => fetch(url, options),
    features: {
      devInteractions: { enabled: login },
      clientIdMetadataDocument: cimd ? { enabled: true, ack: 'draft-02' } : { enabled: false },
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
    formats: {
      customizers: {
        // an exchanged token speaks for its subject, with the client that asked as the actor
        async jwt(_ctx, token, jwt) {
          const exchanged = onBehalfOf.get(token);
          if (exchanged) Object.assign(jwt.payload, exchanged);
        },
      },
    },
  });
  built.registerGrantType(TOKEN_EXCHANGE, (ctx) => tokenExchange(built, ctx), [
    'subject_token', 'subject_token_type', 'actor_token', 'actor_token_type', 'requested_token_type',
    'audience', 'resource', 'scope',
  ]);
  built.on('server_error', (_ctx, err) => console.error(`oidc server_error: ${err}`));
  return built;
}

const onBehalfOf = new WeakMap(); // an exchanged token -> its sub and act claims

function verified(token) {
  // a JWT this server signed with one of its keys, not expired, of this issuer: the subject token
  const [head, body, signature] = String(token).split('.');
  if (!signature) return undefined;
  let header;
  let claims;
  try {
    header = JSON.parse(Buffer.from(head, 'base64url'));
    claims = JSON.parse(Buffer.from(body, 'base64url'));
  } catch {
    return undefined;
  }
  const key = keys.find((k) => k.kid === header.kid);
  if (!key || header.alg !== 'RS256') return undefined;
  const publicKey = crypto.createPublicKey({ key, format: 'jwk' });
  const valid = crypto.verify('sha256', Buffer.from(`${head}.${body}`), publicKey, Buffer.from(signature, 'base64url'));
  if (!valid || claims.iss !== issuer || typeof claims.exp !== 'number' || claims.exp * 1000 < Date.now()) {
    return undefined;
  }
  return claims;
}

async function tokenExchange(built, ctx) {
  const { params, client } = ctx.oidc;
  if (![ACCESS_TOKEN_TYPE, JWT_TOKEN_TYPE].includes(params.subject_token_type)) {
    throw new errors.InvalidRequest(`subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
  }
  if (params.requested_token_type && params.requested_token_type !== ACCESS_TOKEN_TYPE) {
    throw new errors.InvalidRequest(`only ${ACCESS_TOKEN_TYPE} can be requested`);
  }
  if (params.actor_token) {
    throw new errors.InvalidRequest('actor_token is not supported: the authenticated client is the actor');
  }
  const subject = verified(params.subject_token);
  if (!subject || typeof subject.sub !== 'string') {
    throw new errors.InvalidGrant('subject_token is not a valid access token of this server');
  }
  const resourceServers = await grants.resolveRequestedResources(built, ctx);
  if (resourceServers.length !== 1) {
    throw new errors.InvalidTarget('ask for exactly one resource');
  }
  const [resourceServer] = resourceServers;
  // never more than the subject token granted, nor than the resource serves
  const granted = new Set(String(subject.scope || '').split(' ').filter(Boolean));
  const served = new Set(resourceServer.scope.split(' '));
  const asked = params.scope ? params.scope.split(' ') : [...granted];
  const scope = asked.filter((s) => granted.has(s) && served.has(s)).join(' ') || undefined;
  const token = new built.ClientCredentials({ client, scope });
  token.resourceServer = resourceServer;
  onBehalfOf.set(token, {
    sub: subject.sub,
    act: subject.act ? { sub: client.clientId, act: subject.act } : { sub: client.clientId },
  });
  ctx.oidc.entity('ClientCredentials', token);
  const value = await token.save();
  exchanges += 1;
  ctx.body = grants.buildTokenResponse(built, {
    accessToken: value,
    expiresIn: token.expiration,
    issuedTokenType: ACCESS_TOKEN_TYPE,
    scope,
    tokenType: token.tokenType,
  });
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
    return json(res, 200, { token_requests: tokenRequests, exchanges, kids: keys.map((k) => k.kid) });
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
