/**
 * The scheme that does not match the port: https:// on a port that speaks plain HTTP, and
 * http:// on one that speaks TLS (a TLS front that cannot parse the request, and nginx's 400).
 * Each is the user's mistake: exit 2 in one line that names the scheme to use, never a verdict.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type RunningReferenceServer } from '../fixtures/reference-server/index.js';
import { SHORT_WINDOWS } from '../fixtures/variants/server-options.js';
import { startHttp, type HostileServer } from '../fixtures/hostile/base.js';
import * as tls from '../fixtures/hostile/tls.js';
import { runCli, type CliResult } from './support/cli.js';
import { tempDirs } from './support/temp-dirs.js';

const tempDir = tempDirs();

let reference: RunningReferenceServer;
let front: tls.TlsFront;
let nginxLike: HostileServer;
let ca: string;

beforeAll(async () => {
  reference = await startReferenceServer({ ...SHORT_WINDOWS });
  const certificate = await tls.selfSignedCertificate(await tempDir('scheme-certs'), { name: 'server', altNames: { ip: ['127.0.0.1'] } });
  ca = certificate.certFile;
  front = await tls.start({ target: reference.baseUrl, certificate });
  nginxLike = await startHttp((_req, res) => {
    res.writeHead(400, { 'content-type': 'text/html' });
    res.end('<html><head><title>400 The plain HTTP request was sent to HTTPS port</title></head><body><center><h1>400 Bad Request</h1></center><hr><center>nginx</center></body></html>');
  });
});

afterAll(async () => {
  await Promise.all([front.close(), nginxLike.close(), reference.close()]);
});

function expectOneLine(result: CliResult, line: string): void {
  expect(result.code).toBe(2);
  expect(result.stderr.trimEnd().split('\n')).toEqual([line]);
}

function httpsOf(url: string): string {
  return url.replace(/^http:/, 'https:');
}

describe('a scheme that does not match the port says which to use', () => {
  it('https:// on a plain-HTTP port: use http://', async () => {
    const result = await runCli(['--base-url', httpsOf(reference.baseUrl)], { PETSTORE_API_KEY: reference.keys.free });
    const at = new URL(reference.baseUrl).host;
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr.trimEnd()).toMatch(new RegExp(`^petstore-conformance: TLS error with ${at.replace(/\./g, '\\.')}: the port speaks plain HTTP, not TLS \\(ERR_SSL_[A-Z_]+\\); use http://$`));
    expect(result.stderr).not.toContain('certificate');
  });

  it('http:// on a TLS port that cannot parse the request: use https://', async () => {
    const plain = front.baseUrl.replace(/^https:/, 'http:');
    const result = await runCli(['--base-url', plain, '--ca', ca], { PETSTORE_API_KEY: reference.keys.free });
    expectOneLine(result, `petstore-conformance: ${new URL(plain).host} speaks TLS, not plain HTTP: use https://, --base-url ${front.baseUrl}`);
  });

  it('http:// on a port that answers 400 "The plain HTTP request was sent to HTTPS port": use https://', async () => {
    const result = await runCli(['--base-url', nginxLike.baseUrl], { PETSTORE_API_KEY: reference.keys.free });
    expectOneLine(result, `petstore-conformance: ${new URL(nginxLike.baseUrl).host} speaks TLS, not plain HTTP: use https://, --base-url ${httpsOf(nginxLike.baseUrl)}`);
  });
});
