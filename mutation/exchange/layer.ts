/**
 * The black-box mutation layer (issue 45): a loopback reverse proxy in front of any server (the
 * reference, a conforming variant) that sees only HTTP exchanges. It hands each request and each
 * response to one Mutation, and forwards everything the mutation leaves alone byte for byte: the
 * raw header lines in their order and case, the body's bytes, the status line. Each client
 * connection gets a connection of its own upstream (an agent of one socket), so what a server keys
 * on its connections sees the client's connections, not the proxy's pool.
 *
 * The layer never looks inside the server: what it knows of an exchange is what a proxy on the
 * wire would know (the operation its method and path name in openapi.yaml, whether a key was sent,
 * the X-RateLimit-Reset the server announced).
 */
import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { operations } from '../../src/interface/openapi.js';
import { isJsonObject, parseJson, stringifyJson, type JsonValue } from '../../src/interface/json.js';

/** Raw header lines, as received: [name, value] in order, case kept. */
export type HeaderLines = [string, string][];

export interface WireRequest {
  method: string;
  /** The request target as received: path and query. */
  target: string;
  headers: HeaderLines;
  body: Buffer;
}

export interface WireResponse {
  status: number;
  statusMessage: string;
  headers: HeaderLines;
  body: Buffer;
}

/** What the layer knows of an exchange besides its bytes. */
export interface ExchangeInfo {
  /** 0-based, in the order requests arrived. */
  index: number;
  /** The operationId of openapi.yaml the method and path name, if any. */
  operation: string | undefined;
  /** The path below the base address ("/pets/7"), and the query. */
  path: string;
  query: URLSearchParams;
  /** A bearer credential was sent. */
  keyed: boolean;
  /** Requests of the same operation in flight when this one arrived (itself excluded). */
  overlapping: number;
  /** Local time the request arrived (ms since the epoch). */
  arrivedMs: number;
}

/**
 * One operator on one target, under its condition: stateful (it may remember what it saw). A hook
 * returns undefined to leave the message as it is, which the layer then forwards unchanged.
 */
export interface Mutation {
  request?(request: WireRequest, info: ExchangeInfo): WireRequest | undefined;
  /** `answer` instead of forwarding: the layer itself answers the request (a limiter refusing it). */
  answer?(request: WireRequest, info: ExchangeInfo): WireResponse | undefined;
  response?(response: WireResponse, request: WireRequest, info: ExchangeInfo): WireResponse | undefined;
}

export const IDENTITY: Mutation = {};

export interface RunningLayer {
  /** The proxy's base address: the upstream's with the proxy's host and port. */
  baseUrl: string;
  /** Exchanges a hook changed (or answered): 0 after a run means the mutant was never reached. */
  readonly applied: number;
  readonly exchanges: number;
  close(): Promise<void>;
}

// ---------------------------------------------------------------- header lines

export const headerOf = (headers: HeaderLines, name: string): string | undefined => headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];

export const withoutHeader = (headers: HeaderLines, name: string): HeaderLines => headers.filter(([n]) => n.toLowerCase() !== name.toLowerCase());

/** The header set to `value`, in its own place when present, else appended. */
export function withHeader(headers: HeaderLines, name: string, value: string): HeaderLines {
  const at = headers.findIndex(([n]) => n.toLowerCase() === name.toLowerCase());
  if (at < 0) return [...headers, [name, value]];
  return headers.map((line, i) => (i === at ? [line[0], value] : line));
}

/** The response with another body, Content-Length following it. */
export function withBody<M extends WireRequest | WireResponse>(message: M, body: Buffer): M {
  const headers = headerOf(message.headers, 'content-length') === undefined ? message.headers : withHeader(message.headers, 'Content-Length', String(body.length));
  return { ...message, headers, body };
}

/** The message's body as JSON (lossless: int64s beyond 2^53 stay exact), undefined when it is none. */
export function jsonBodyOf(message: WireRequest | WireResponse): JsonValue | undefined {
  if (message.body.length === 0) return undefined;
  const parsed = parseJson(message.body.toString('utf8'));
  return parsed.ok ? parsed.value : undefined;
}

export const withJsonBody = <M extends WireRequest | WireResponse>(message: M, value: JsonValue): M => withBody(message, Buffer.from(stringifyJson(value), 'utf8'));

export { isJsonObject };

// ---------------------------------------------------------------- operations

interface OperationRoute {
  operationId: string;
  method: string;
  pattern: RegExp;
}

/** The operations of openapi.yaml as path patterns below the base address. */
function routes(): OperationRoute[] {
  return operations().map((op) => ({
    operationId: op.operationId,
    method: op.method,
    pattern: new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
}

/** The operation a request names, by its method and its path below `basePath`. */
export function operationOf(method: string, path: string, table: readonly OperationRoute[] = routes()): string | undefined {
  return table.find((r) => r.method === method && r.pattern.test(path))?.operationId;
}

// ---------------------------------------------------------------- the proxy

function linesOf(raw: readonly string[]): HeaderLines {
  const lines: HeaderLines = [];
  for (let i = 0; i + 1 < raw.length; i += 2) lines.push([raw[i] ?? '', raw[i + 1] ?? '']);
  return lines;
}

async function bodyOf(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Hop-by-hop lines a proxy must not forward as they are (RFC 9110 7.6.1); Node frames the body itself. */
const HOP_BY_HOP = new Set(['transfer-encoding']);

function forward(upstream: URL, agent: Agent, request: WireRequest): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    // The lines as they came, in their place; a body that came chunked is sent with its length.
    const headers = request.headers.filter(([n]) => !HOP_BY_HOP.has(n.toLowerCase()));
    if (headerOf(headers, 'content-length') === undefined && request.body.length > 0) headers.push(['Content-Length', String(request.body.length)]);
    const outgoing = httpRequest({ host: upstream.hostname, port: upstream.port, method: request.method, path: request.target, headers: headers.flat(), agent, setHost: false }, (res) => {
      bodyOf(res).then(
        (body) => resolve({ status: res.statusCode ?? 502, statusMessage: res.statusMessage ?? '', headers: linesOf(res.rawHeaders), body }),
        reject,
      );
    });
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

function write(res: ServerResponse, response: WireResponse): void {
  res.sendDate = false;
  const lines = response.headers.filter(([n]) => !HOP_BY_HOP.has(n.toLowerCase()));
  res.writeHead(response.status, response.statusMessage, lines.flat());
  res.end(response.body);
}

/**
 * Starts the layer in front of `upstreamBaseUrl` (e.g. http://127.0.0.1:4123/v1), applying
 * `mutation` (IDENTITY: none). Paths are forwarded as they are; the base path is only stripped to
 * name the operation.
 */
export async function startLayer(upstreamBaseUrl: string, mutation: Mutation = IDENTITY): Promise<RunningLayer> {
  const upstream = new URL(upstreamBaseUrl);
  const basePath = upstream.pathname.replace(/\/$/, '');
  const table = routes();
  const agents = new WeakMap<Socket, Agent>();
  const allAgents = new Set<Agent>();
  const inFlight = new Map<string, number>();
  let index = 0;
  let applied = 0;

  const agentFor = (socket: Socket): Agent => {
    let agent = agents.get(socket);
    if (agent === undefined) {
      const created = new Agent({ keepAlive: true, maxSockets: 1 });
      agents.set(socket, created);
      allAgents.add(created);
      socket.once('close', () => {
        created.destroy();
        allAgents.delete(created);
      });
      agent = created;
    }
    return agent;
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrivedMs = Date.now();
    const url = new URL(req.url ?? '/', 'http://layer.invalid');
    const path = url.pathname.startsWith(`${basePath}/`) ? url.pathname.slice(basePath.length) : url.pathname;
    const operation = operationOf(req.method ?? 'GET', path, table);
    // Counted from the request's head, before its body is read: two requests sent together overlap here.
    const key = operation ?? '';
    const overlapping = inFlight.get(key) ?? 0;
    inFlight.set(key, overlapping + 1);
    const body = await bodyOf(req);
    const original: WireRequest = { method: req.method ?? 'GET', target: req.url ?? '/', headers: linesOf(req.rawHeaders), body };
    const authorization = headerOf(original.headers, 'authorization');
    const info: ExchangeInfo = {
      index: index++,
      operation,
      path,
      query: url.searchParams,
      keyed: authorization !== undefined && /^bearer\s/i.test(authorization),
      overlapping,
      arrivedMs,
    };
    try {
      let changed = false;
      const answered = mutation.answer?.(original, info);
      let response: WireResponse;
      if (answered !== undefined) {
        changed = true;
        response = answered;
      } else {
        const mutated = mutation.request?.(original, info);
        if (mutated !== undefined) changed = true;
        const sent = mutated ?? original;
        const received = await forward(upstream, agentFor(req.socket), sent);
        const altered = mutation.response?.(received, sent, info);
        if (altered !== undefined) changed = true;
        response = altered ?? received;
      }
      if (changed) applied += 1;
      write(res, response);
    } catch (error) {
      // The upstream went away (or a hook threw): the client sees a broken connection, as it would behind a failing proxy.
      process.emitWarning(`exchange layer: ${error instanceof Error ? error.message : String(error)}`);
      res.destroy();
    } finally {
      inFlight.set(key, (inFlight.get(key) ?? 1) - 1);
    }
  }

  const server = createServer((req, res) => {
    void handle(req, res);
  });
  // As mutation/serve.ts keeps them: the client may leave a connection idle longer than Node's 5 s on a busy machine.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    baseUrl: `http://127.0.0.1:${port}${basePath}`,
    get applied() {
      return applied;
    },
    get exchanges() {
      return index;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const agent of allAgents) agent.destroy();
      });
      return closed;
    },
  };
}
