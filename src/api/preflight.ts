/**
 * Before spending any of the target's quota, make sure it can be reached at all, by the route the
 * run's requests will take, without an HTTP request to the target: a TCP connect (and a TLS
 * handshake for https, with the client certificate when there is one); through a proxy, the
 * same over a CONNECT tunnel the proxy opens, as the transport's are. Refused connections, DNS
 * failures, certificate problems, a proxy that refuses or demands credentials become one clear
 * line and exit code 2 instead of a run of inconclusives, and never a verdict on the server.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, rootCertificates, type TLSSocket } from 'node:tls';
import { STATUS_CODES } from 'node:http';
import { describeProxy, type ProxyRoute } from '../http/proxy-route.js';
import type { ClientCertificate } from '../http/transport.js';

export class UnreachableError extends Error {
  readonly exitCode = 2;
}

export interface ReachOptions {
  timeoutMs: number;
  ca?: string | undefined;
  proxy?: ProxyRoute | undefined;
  clientCertificate?: ClientCertificate | undefined;
}

interface Endpoint {
  host: string;
  port: number;
}

const TLS_HINTS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate; pass its CA with --ca <file>',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed certificate in chain; pass its CA with --ca <file>',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'certificate issuer unknown; pass its CA with --ca <file>',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'certificate issuer unknown; pass its CA with --ca <file>',
  CERT_HAS_EXPIRED: 'certificate has expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'certificate does not match the host name',
};

/** TLS alerts a server sends about the client's certificate: what it asked for, or what it refused. */
const CLIENT_CERTIFICATE_ALERTS = /CERTIFICATE_REQUIRED|BAD_CERTIFICATE|UNKNOWN_CA|CERTIFICATE_UNKNOWN|UNSUPPORTED_CERTIFICATE|CERTIFICATE_EXPIRED|CERTIFICATE_REVOKED|ACCESS_DENIED|HANDSHAKE_FAILURE/;

/**
 * With TLS 1.3 the server judges the client's certificate after the client's handshake is done;
 * its refusal (an alert) or its acceptance (a session ticket, which most servers send at once)
 * arrives a round trip later. This long is waited for either, then the certificate is taken as accepted.
 */
const TLS13_VERDICT_WAIT_MS = 1_000;

function code(error: NodeJS.ErrnoException): string {
  return error.code ?? '';
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

/** host:port as a URL writes it: an IPv6 address in brackets, `[::1]:8443`. */
function hostPort(at: Endpoint): string {
  return `${isIP(at.host) === 6 ? `[${at.host}]` : at.host}:${at.port}`;
}

function describeConnect(error: NodeJS.ErrnoException, what: string, at: Endpoint): string {
  const c = code(error);
  if (c === 'ENOTFOUND' || c === 'EAI_AGAIN') return `${what} unreachable: cannot resolve host "${at.host}"`;
  if (c === 'ECONNREFUSED') return `${what} unreachable: connection refused by ${hostPort(at)}`;
  if (c === 'ETIMEDOUT' || c === 'PC_TIMEOUT') return `${what} unreachable: no connection to ${hostPort(at)} within the timeout`;
  return `${what} unreachable: ${c === '' ? firstLine(error.message) : `${c} (${firstLine(error.message)})`}`;
}

/** What a TLS error code means to the user. At an address, a certificate must list it as an IP entry of its subjectAltName: a DNS entry never matches one. */
function tlsHint(c: string, host: string): string | undefined {
  return c === 'ERR_TLS_CERT_ALTNAME_INVALID' && isIP(host) !== 0 ? 'certificate does not match the IP address' : TLS_HINTS[c];
}

function describeTls(error: NodeJS.ErrnoException, at: Endpoint, withCertificate: boolean): string {
  const c = code(error);
  const where = `TLS error with ${hostPort(at)}`;
  // OpenSSL reads a plain-HTTP server's answer (or silence cut short) as a record of an unknown version.
  if (c === 'ERR_SSL_WRONG_VERSION_NUMBER' || c === 'ERR_SSL_PACKET_LENGTH_TOO_LONG') return `${where}: the port speaks plain HTTP, not TLS (${c}); use http://`;
  const hint = tlsHint(c, at.host);
  if (hint !== undefined) return `${where}: ${hint} (no insecure fallback is made)`;
  if (CLIENT_CERTIFICATE_ALERTS.test(c) || (withCertificate && c === 'ECONNRESET')) {
    return withCertificate
      ? `${where}: the server refused the client certificate (${c}); check --client-cert against the CA the server trusts`
      : `${where}: the server asks for a client certificate (${c}); pass --client-cert and --client-key`;
  }
  return `${where}: ${c === '' ? firstLine(error.message) : `${c} (${firstLine(error.message)})`}`;
}

function endpointOf(baseUrl: string): Endpoint & { secure: boolean } {
  const url = new URL(baseUrl);
  const secure = url.protocol === 'https:';
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port === '' ? (secure ? 443 : 80) : Number(url.port), secure };
}

function trust(ca: string | undefined): { rejectUnauthorized: true; ca?: string[] } {
  // Pinned, as in the client: NODE_TLS_REJECT_UNAUTHORIZED=0 must not turn checks off.
  return { rejectUnauthorized: true, ...(ca === undefined ? {} : { ca: [...rootCertificates, ca] }) };
}

/** SNI takes host names only: Node warns on stderr about an IP address. */
function serverName(host: string): { servername?: string } {
  return isIP(host) === 0 ? { servername: host } : {};
}

/** A socket settled once: the first of success, failure or the timeout wins, and it is destroyed on failure. */
function settle<T extends Socket>(socket: T, timeoutMs: number, onTimeout: () => string, onError: (error: NodeJS.ErrnoException) => string): { promise: Promise<T>; resolve: () => void } {
  let done: (() => void) | undefined;
  const promise = new Promise<T>((resolve, reject) => {
    const fail = (message: string): void => {
      socket.destroy();
      reject(new UnreachableError(message));
    };
    socket.setTimeout(timeoutMs, () => fail(onTimeout()));
    socket.on('error', (error: NodeJS.ErrnoException) => fail(onError(error)));
    done = () => {
      socket.setTimeout(0);
      socket.removeAllListeners('error');
      socket.on('error', () => undefined);
      resolve(socket);
    };
  });
  return { promise, resolve: () => done?.() };
}

function connectDirect(at: Endpoint, timeoutMs: number): Promise<Socket> {
  const socket = tcpConnect({ host: at.host, port: at.port });
  const settled = settle(socket, timeoutMs, () => describeConnect({ name: 'timeout', message: 'timeout', code: 'PC_TIMEOUT' }, 'target', at), (e) => describeConnect(e, 'target', at));
  socket.once('connect', settled.resolve);
  return settled.promise;
}

function proxyAnswer(res: IncomingMessage, proxy: ProxyRoute, target: Endpoint): string {
  const status = res.statusCode ?? 0;
  const text = `${status} ${res.statusMessage ?? STATUS_CODES[status] ?? ''}`.trim();
  const named = `the proxy ${describeProxy(proxy)}`;
  const to = hostPort(target);
  if (status === 407) {
    return proxy.authorization === undefined
      ? `${named} demands credentials (${text}): give them in its URL, http://user:password@host:port`
      : `${named} refused its credentials (${text})`;
  }
  if (status === 502 || status === 503 || status === 504) return `${named} could not reach ${to} (${text})`;
  return `${named} refused to open a tunnel to ${to} (${text})`;
}

/** A CONNECT tunnel to `target` through the proxy: the socket, once the proxy answered 200. */
function connectThroughProxy(proxy: ProxyRoute, target: Endpoint, options: ReachOptions): Promise<Socket> {
  const to = hostPort(target);
  const request = (proxy.secure ? httpsRequest : httpRequest)({
    host: proxy.host,
    port: proxy.port,
    method: 'CONNECT',
    path: to,
    agent: false,
    headers: { host: to, ...(proxy.authorization === undefined ? {} : { 'proxy-authorization': proxy.authorization }) },
    ...(proxy.secure ? { ...trust(options.ca), ...serverName(proxy.host) } : {}),
  });
  const named = `proxy ${describeProxy(proxy)}`;
  return new Promise((resolve, reject) => {
    const fail = (message: string): void => {
      request.destroy();
      reject(new UnreachableError(message));
    };
    request.setTimeout(options.timeoutMs, () => fail(`${named}: no answer to CONNECT ${to} within the timeout`));
    request.on('error', (error: NodeJS.ErrnoException) => {
      const c = code(error);
      const hint = tlsHint(c, proxy.host);
      fail(hint !== undefined || c.startsWith('ERR_TLS_') || c.startsWith('ERR_SSL_') ? `TLS error with the ${named}: ${hint ?? c}` : describeConnect(error, named, proxy));
    });
    request.on('connect', (res: IncomingMessage, socket: Socket) => {
      request.setTimeout(0);
      if (res.statusCode === 200) {
        resolve(socket);
        return;
      }
      socket.destroy();
      fail(proxyAnswer(res, proxy, target));
    });
    request.end();
  });
}

/**
 * The TLS handshake with the target over `socket`, and with a client certificate, the server's verdict on it.
 * Over a socket of its own, Node checks the certificate against `servername`, else `host`, else
 * "localhost": with an IP address, which SNI must not carry, only `host` names it (issue 30: a
 * certificate for IP:127.0.0.1 was refused, and one for DNS:localhost accepted, at 127.0.0.1).
 */
function handshake(socket: Socket, target: Endpoint, options: ReachOptions): Promise<TLSSocket> {
  const withCertificate = options.clientCertificate !== undefined;
  const secure = tlsConnect({ socket, host: target.host, ...serverName(target.host), ...trust(options.ca), ...(options.clientCertificate ?? {}) });
  const settled = settle(secure, options.timeoutMs, () => `TLS error with ${hostPort(target)}: no handshake within the timeout`, (e) => describeTls(e, target, withCertificate));
  secure.once('secureConnect', () => {
    if (secure.getProtocol() !== 'TLSv1.3') {
      settled.resolve();
      return;
    }
    // Read, so that an alert about the client certificate (or its absence) arrives as an error.
    secure.resume();
    const timer = setTimeout(settled.resolve, Math.min(TLS13_VERDICT_WAIT_MS, options.timeoutMs));
    const accepted = (): void => {
      clearTimeout(timer);
      settled.resolve();
    };
    secure.once('session', accepted);
    secure.once('close', () => clearTimeout(timer));
    secure.once('end', () => secure.emit('error', Object.assign(new Error('the server closed the connection after the handshake'), { code: 'ECONNRESET' })));
  });
  return settled.promise;
}

export async function checkReachable(baseUrl: string, options: ReachOptions): Promise<void> {
  const target = endpointOf(baseUrl);
  const socket = options.proxy === undefined ? await connectDirect(target, options.timeoutMs) : await connectThroughProxy(options.proxy, target, options);
  try {
    if (target.secure) (await handshake(socket, target, options)).destroy();
  } finally {
    socket.destroy();
  }
}
