/**
 * Before spending any of the target's quota, make sure it can be reached at all: a TCP connect
 * (and a TLS handshake for https) without an HTTP request. Refused connections, DNS failures and
 * certificate problems become one clear line and exit code 2 instead of a run of inconclusives.
 */
import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, rootCertificates } from 'node:tls';

export class UnreachableError extends Error {
  readonly exitCode = 2;
}

const TLS_HINTS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate; pass its CA with --ca <file>',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed certificate in chain; pass its CA with --ca <file>',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'certificate issuer unknown; pass its CA with --ca <file>',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'certificate issuer unknown; pass its CA with --ca <file>',
  CERT_HAS_EXPIRED: 'certificate has expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'certificate does not match the host name',
};

function describe(error: NodeJS.ErrnoException, host: string, port: number): string {
  const code = error.code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `target unreachable: cannot resolve host "${host}"`;
  if (code === 'ECONNREFUSED') return `target unreachable: connection refused by ${host}:${port}`;
  if (code === 'ETIMEDOUT' || code === 'PC_TIMEOUT') return `target unreachable: no connection to ${host}:${port} within the timeout`;
  const hint = TLS_HINTS[code];
  if (hint !== undefined) return `TLS error with ${host}:${port}: ${hint} (no insecure fallback is made)`;
  return `target unreachable: ${code === '' ? error.message : `${code} (${error.message.split('\n')[0] ?? ''})`}`;
}

export function checkReachable(baseUrl: string, options: { timeoutMs: number; ca?: string }): Promise<void> {
  const url = new URL(baseUrl);
  const secure = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port === '' ? (secure ? 443 : 80) : Number(url.port);
  return new Promise((resolve, reject) => {
    const onConnected = (): void => {
      socket.destroy();
      resolve();
    };
    const socket: Socket = secure
      ? tlsConnect(
          {
            host,
            port,
            // SNI takes host names only: Node warns on stderr about an IP address here.
            ...(isIP(host) === 0 ? { servername: host } : {}),
            // Pinned, as in the client: NODE_TLS_REJECT_UNAUTHORIZED=0 must not turn checks off.
            rejectUnauthorized: true,
            ...(options.ca === undefined ? {} : { ca: [...rootCertificates, options.ca] }),
          },
          onConnected,
        )
      : tcpConnect({ host, port }, onConnected);
    socket.setTimeout(options.timeoutMs, () => {
      socket.destroy();
      reject(new UnreachableError(describe(Object.assign(new Error('timeout'), { code: 'PC_TIMEOUT' }), host, port)));
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      socket.destroy();
      reject(new UnreachableError(describe(error, host, port)));
    });
  });
}
