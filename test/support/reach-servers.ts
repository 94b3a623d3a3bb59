/**
 * The network between a CI runner and staging, made of real parts on loopback: a forward proxy
 * (the `proxy` package, as Squid would be, optionally demanding credentials), a proxy that
 * refuses every tunnel, and an access gateway that forwards to the target only requests carrying
 * its header (a 403 of its own otherwise), counting what it refused.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createProxy } from 'proxy';

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

function listen(server: Server, host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as AddressInfo).port)));
}

/** Closes now, dropping kept-alive connections and open tunnels. */
function closer(server: Server, sockets: Set<Socket>): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

function tracked(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return sockets;
}

export interface ForwardProxy extends RunningServer {
  /** host:port of every CONNECT the proxy accepted. */
  readonly tunnels: string[];
  /** Every request it saw, tunnels and plain forwards, accepted or not. */
  readonly seen: number;
  /** Requests it answered 407. */
  readonly refused: number;
  /** An https proxy's: the server name (SNI) each client sent, `false` for none. */
  readonly serverNames: ReadonlyArray<string | false>;
}

/**
 * A real forward proxy; with `credentials` ("user:password"), 407 to anything without them; with
 * `tls`, an https:// proxy with that certificate; on `host` (default 127.0.0.1; ::1 for IPv6).
 */
export async function startForwardProxy(options: { credentials?: string; tls?: { cert: string; key: string }; host?: string } = {}): Promise<ForwardProxy> {
  const server = createProxy(options.tls === undefined ? createServer() : createHttpsServer(options.tls));
  const serverNames: Array<string | false> = [];
  server.on('secureConnection', (socket: TLSSocket) => serverNames.push(socket.servername ?? false));
  const sockets = tracked(server);
  const tunnels: string[] = [];
  let seen = 0;
  let refused = 0;
  const expected = options.credentials === undefined ? undefined : `Basic ${Buffer.from(options.credentials).toString('base64')}`;
  const authorized = (req: IncomingMessage): boolean => expected === undefined || req.headers['proxy-authorization'] === expected;
  server.authenticate = (req) => {
    seen += 1;
    if (!authorized(req)) {
      refused += 1;
      return false;
    }
    if (req.method === 'CONNECT' && req.url !== undefined) tunnels.push(req.url);
    return true;
  };
  const host = options.host ?? '127.0.0.1';
  const port = await listen(server, host);
  return {
    url: `${options.tls === undefined ? 'http' : 'https'}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    get tunnels() {
      return tunnels;
    },
    get serverNames() {
      return serverNames;
    },
    get seen() {
      return seen;
    },
    get refused() {
      return refused;
    },
    close: closer(server, sockets),
  };
}

/** A proxy whose policy forbids every tunnel: 403 to each CONNECT. */
export async function startRefusingProxy(): Promise<RunningServer> {
  const server = createServer((_req, res) => res.writeHead(403).end());
  const sockets = tracked(server);
  server.on('connect', (_req: IncomingMessage, socket: Socket) => socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n'));
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}`, close: closer(server, sockets) };
}

export interface Gateway extends RunningServer {
  /** Base URL of the target as seen through the gateway (the target's path kept). */
  baseUrl: string;
  /** Requests forwarded, and requests refused for a missing or wrong header. */
  readonly forwarded: number;
  readonly refused: number;
}

/**
 * An access gateway in front of `target` (an http base URL): every request must carry each of
 * `headers` with its value, whatever its Authorization; the headers are stripped before forwarding,
 * as a gateway consumes its own.
 */
export async function startGateway(target: string, headers: Readonly<Record<string, string>>): Promise<Gateway> {
  const upstream = new URL(target);
  let forwarded = 0;
  let refused = 0;
  const server = createServer((req, res) => {
    const missing = Object.entries(headers).some(([name, value]) => req.headers[name.toLowerCase()] !== value);
    if (missing) {
      refused += 1;
      req.resume();
      res.writeHead(403, { 'content-type': 'text/plain' }).end('gateway: missing or wrong access header\n');
      return;
    }
    forwarded += 1;
    const outgoing = { ...req.headers };
    for (const name of Object.keys(headers)) delete outgoing[name.toLowerCase()];
    const proxied = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: outgoing }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    proxied.on('error', () => res.destroy());
    req.pipe(proxied);
  });
  const sockets = tracked(server);
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    baseUrl: `http://127.0.0.1:${port}${upstream.pathname}`,
    get forwarded() {
      return forwarded;
    },
    get refused() {
      return refused;
    },
    close: closer(server, sockets),
  };
}
