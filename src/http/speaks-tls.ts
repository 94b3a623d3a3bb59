/**
 * Whether a port answers a TLS handshake: what an http:// base URL's failed request means when
 * the server expected TLS (it cannot parse the request, so it resets or sends an alert). Only the
 * handshake is made, nothing is sent over it, and the certificate is verified as always: a
 * certificate the client refuses still shows the port speaks TLS.
 */
import { isIP } from 'node:net';
import { connect } from 'node:tls';

export function speaksTls(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, rejectUnauthorized: true, ...(isIP(host) === 0 ? { servername: host } : {}) });
    const settle = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => settle(false));
    socket.once('secureConnect', () => settle(true));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? '';
      // A certificate refused: the server did answer the handshake with one.
      settle(code.startsWith('ERR_TLS_') || /CERT|SELF_SIGNED|ISSUER|LEAF_SIGNATURE/.test(code));
    });
  });
}
