/**
 * The report's digest and its attestation, as an auditor uses them: a real run against the
 * embedded reference server writes report.json, report.html and summary.md (the two show the
 * SHA-256 of exactly the bytes of report.json); `attest` signs it with an Ed25519 key made here;
 * `verify` accepts it, and refuses, with exit 1 and one line saying which, a report with one
 * byte changed, another key, and a damaged envelope; unreadable inputs exit 2. The library's
 * attestReport and verifyAttestation are checked directly too, and the envelope is checked
 * against the DSSE and in-toto rules independently of our code (PAE built here, node:crypto).
 */
import { createHash, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
// The library's face: what `import … from 'petstore-conformance'` gives.
import {
  AttestationInputError,
  attestReport,
  conformanceStatement,
  CONFORMANCE_PREDICATE_TYPE,
  keyIdOf,
  pae,
  verifyAttestation,
  type ConformancePredicate,
  type ConformanceStatement,
  type DsseEnvelope,
  type VerificationResult,
} from '../src/index.js';
import { signEnvelope } from '../src/attestation/dsse.js';
import { envelopeErrors, predicateErrors, statementErrors } from '../src/attestation/shape.js';
import { renderHtml } from '../src/report/render/html.js';
import { renderMarkdown } from '../src/report/render/markdown.js';
import type { Report } from '../src/report/types.js';
import { runCli, type CliResult } from './support/cli.js';
import { mixedReport } from './support/report-factory.js';
import { tempDirs } from './support/temp-dirs.js';
import { RUN_TIMEOUT_MS } from './support/hang-guard.js';

const tempDir = tempDirs();
const sha256 = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex');

interface KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
  privateFile: string;
  publicFile: string;
}

async function keyPair(dir: string, name: string): Promise<KeyPair> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const privateFile = join(dir, `${name}.pem`);
  const publicFile = join(dir, `${name}.pub.pem`);
  await writeFile(privateFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  await writeFile(publicFile, publicKey.export({ type: 'spki', format: 'pem' }));
  return { privateKey, publicKey, privateFile, publicFile };
}

/** One line on stderr, no stack trace, the exit code given. */
function expectOneLine(result: CliResult, code: number, pattern: RegExp): void {
  expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code });
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

let dir: string;
let reportFile: string;
let reportBytes: Buffer;
let report: Report;
let signer: KeyPair;
let stranger: KeyPair;
let envelopeFile: string;
let envelope: DsseEnvelope;

beforeAll(async () => {
  dir = await tempDir('attest');
  const run = await runCli(['--report-dir', dir, '--reporter', 'json,html,markdown', '--seed', '19']);
  expect(run.code, run.stderr).toBe(0);
  reportFile = join(dir, 'report.json');
  reportBytes = await readFile(reportFile);
  report = JSON.parse(reportBytes.toString('utf8')) as Report;
  signer = await keyPair(dir, 'signer');
  stranger = await keyPair(dir, 'stranger');
  const attest = await runCli(['attest', reportFile, '--key', signer.privateFile]);
  expect(attest.code, attest.stderr).toBe(0);
  envelopeFile = join(dir, 'report.intoto.jsonl');
  envelope = JSON.parse(await readFile(envelopeFile, 'utf8')) as DsseEnvelope;
}, RUN_TIMEOUT_MS);

describe('the SHA-256 of report.json in report.html and summary.md', () => {
  it('is the digest of the exact bytes written', async () => {
    const digest = sha256(reportBytes);
    const html = await readFile(join(dir, 'report.html'), 'utf8');
    const md = await readFile(join(dir, 'summary.md'), 'utf8');
    expect(html).toContain(`<code class="digest" data-sha256="${digest}">${digest}</code>`);
    expect(md).toContain(`SHA-256 of report.json: \`${digest}\``);
  });

  it('`report` re-renders with the digest of the saved file\'s bytes, whatever its formatting', async () => {
    const out = await tempDir('attest-rerender');
    const compact = join(out, 'report.json');
    await writeFile(compact, JSON.stringify(report)); // same report, other bytes
    const result = await runCli(['report', compact, '--reporter', 'html,markdown']);
    expect(result.code, result.stderr).toBe(0);
    const digest = sha256(await readFile(compact));
    expect(digest).not.toBe(sha256(reportBytes));
    expect(await readFile(join(out, 'report.html'), 'utf8')).toContain(`data-sha256="${digest}"`);
    expect(await readFile(join(out, 'summary.md'), 'utf8')).toContain(`\`${digest}\``);
  });

  it('is shown only when known: a renderer called without the context shows none', async () => {
    expect(await renderHtml(mixedReport())).not.toContain('SHA-256');
    expect(renderMarkdown(mixedReport())).not.toContain('SHA-256');
    const digest = 'a'.repeat(64);
    expect(renderMarkdown(mixedReport(), { reportSha256: digest })).toContain(`SHA-256 of report.json: \`${digest}\``);
  });
});

describe('attest', () => {
  it('writes a DSSE envelope whose signature covers PAE(payloadType, payload), by the key named in keyid', () => {
    expect(envelopeErrors(envelope)).toEqual([]);
    expect(envelope.payloadType).toBe('application/vnd.in-toto+json');
    const payload = Buffer.from(envelope.payload, 'base64');
    // PAE written out here from the DSSE spec, not with our pae().
    const signed = Buffer.concat([Buffer.from(`DSSEv1 28 application/vnd.in-toto+json ${payload.length} `), payload]);
    expect(envelope.signatures).toHaveLength(1);
    const [signature] = envelope.signatures;
    expect(verify(null, signed, signer.publicKey, Buffer.from(signature?.sig ?? '', 'base64'))).toBe(true);
    expect(signature?.keyid).toBe(sha256(signer.publicKey.export({ type: 'spki', format: 'der' })));
  });

  it('signs an in-toto Statement v1 about report.json: its name and SHA-256, and the run\'s facts as predicate', () => {
    const statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as ConformanceStatement;
    expect(statementErrors(statement)).toEqual([]);
    expect(statement._type).toBe('https://in-toto.io/Statement/v1');
    expect(statement.subject).toEqual([{ name: 'report.json', digest: { sha256: sha256(reportBytes) } }]);
    expect(statement.predicateType).toBe(CONFORMANCE_PREDICATE_TYPE);
    const p = statement.predicate;
    expect(p).toMatchObject({ target: report.target, tool: report.tool, spec: report.spec, seed: 19, runId: report.runId, options: report.options, verdict: 'conforms', verdictLine: report.verdictLine, complete: true });
    expect(p.requirements).toEqual(report.requirements.map((r) => ({ id: r.id, level: r.level, status: r.status })));
    expect(p.requirements.length).toBeGreaterThan(30);
  });

  it('--predicate writes the predicate alone (no key needed, no envelope), the same as the signed one', async () => {
    const out = await tempDir('attest-predicate');
    const predicateFile = join(out, 'predicate.json');
    const result = await runCli(['attest', reportFile, '--predicate', predicateFile]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(CONFORMANCE_PREDICATE_TYPE);
    const predicate = JSON.parse(await readFile(predicateFile, 'utf8')) as ConformancePredicate;
    expect(predicateErrors(predicate)).toEqual([]);
    expect(predicate).toEqual((JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as ConformanceStatement).predicate);
  });

  it('an encrypted private key: its passphrase from PETSTORE_SIGNING_KEY_PASSPHRASE, never a flag', async () => {
    const out = await tempDir('attest-encrypted');
    const encrypted = join(out, 'encrypted.pem');
    await writeFile(encrypted, signer.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'correct horse' }));
    const args = ['attest', reportFile, '--key', encrypted, '--output', join(out, 'report.intoto.jsonl')];
    expectOneLine(await runCli(args), 2, /the private key ".*encrypted\.pem" is encrypted and no passphrase was given: set PETSTORE_SIGNING_KEY_PASSPHRASE$/);
    expectOneLine(await runCli(args, { PETSTORE_SIGNING_KEY_PASSPHRASE: 'wrong horse' }), 2, /is encrypted and the passphrase given does not decrypt it/);
    const signed = await runCli(args, { PETSTORE_SIGNING_KEY_PASSPHRASE: 'correct horse' });
    expect(signed.code, signed.stderr).toBe(0);
    expect(signed.stdout).toContain(`signed by key ${keyIdOf(signer.publicKey)}`);
  });

  it('--output puts the envelope elsewhere', async () => {
    const output = join(await tempDir('attest-output'), 'signed.json');
    const result = await runCli(['attest', reportFile, '--key', signer.privateFile, '--output', output]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(output);
    expect((await runCli(['verify', reportFile, '--envelope', output, '--public-key', signer.publicFile])).code).toBe(0);
  });
});

describe('verify', () => {
  it('exits 0 with one line when the signature verifies and the digest matches', async () => {
    const result = await runCli(['verify', reportFile, '--envelope', envelopeFile, '--public-key', signer.publicFile]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stdout).toContain(`verified: the report (SHA-256 ${sha256(reportBytes)})`);
    expect(result.stdout).toContain(report.verdictLine);
  });

  it('one changed byte of report.json: exit 1, the report is not the one signed', async () => {
    const changed = Buffer.from(reportBytes);
    const at = Math.floor(changed.length / 2);
    changed[at] = (changed[at] ?? 0) ^ 0x01;
    const file = join(await tempDir('attest-flip'), 'report.json');
    await writeFile(file, changed);
    const result = await runCli(['verify', file, '--envelope', envelopeFile, '--public-key', signer.publicFile]);
    expectOneLine(result, 1, new RegExp(`verification failed: the report is not the one signed: its SHA-256 is ${sha256(changed)}, the attestation's subject is report.json ${sha256(reportBytes)}`));
  });

  it('another key: exit 1, signed by another key', async () => {
    const result = await runCli(['verify', reportFile, '--envelope', envelopeFile, '--public-key', stranger.publicFile]);
    expectOneLine(result, 1, new RegExp(`verification failed: the envelope was signed by another key \\(keyid ${keyIdOf(signer.publicKey)}\\), not by the public key given \\(keyid ${keyIdOf(stranger.publicKey)}\\)`));
  });

  it('a truncated envelope: exit 1, the envelope is damaged', async () => {
    const text = await readFile(envelopeFile, 'utf8');
    const out = await tempDir('attest-damaged');
    const cut = join(out, 'cut.jsonl');
    await writeFile(cut, text.slice(0, Math.floor(text.length / 2)));
    expectOneLine(await runCli(['verify', reportFile, '--envelope', cut, '--public-key', signer.publicFile]), 1, /verification failed: the envelope is damaged: it does not parse as JSON/);
    // Cut inside: a shortened signature, a payload missing its end. Still JSON, still damaged.
    const sig = envelope.signatures[0]?.sig ?? '';
    const variants: Array<[string, DsseEnvelope]> = [
      ['short-sig', { ...envelope, signatures: [{ keyid: keyIdOf(signer.publicKey), sig: sig.slice(0, 40) }] }],
      ['short-payload', { ...envelope, payload: envelope.payload.slice(0, 200) }],
      ['no-signatures', { ...envelope, signatures: [] }],
    ];
    for (const [name, damaged] of variants) {
      const file = join(out, `${name}.jsonl`);
      await writeFile(file, JSON.stringify(damaged));
      expectOneLine(await runCli(['verify', reportFile, '--envelope', file, '--public-key', signer.publicFile]), 1, /verification failed: the envelope is damaged/);
    }
  });

  it('unreadable inputs exit 2 with one line: a missing file, a key that is not PEM, an envelope that is not JSON or not an envelope', async () => {
    const missing = join(dir, 'nope.json');
    const html = join(dir, 'report.html');
    const cases: Array<[string[], RegExp]> = [
      [['verify', missing, '--envelope', envelopeFile, '--public-key', signer.publicFile], /cannot read the report ".*nope\.json": ENOENT/],
      [['verify', reportFile, '--envelope', missing, '--public-key', signer.publicFile], /cannot read the envelope/],
      [['verify', reportFile, '--envelope', envelopeFile, '--public-key', missing], /cannot read the public key/],
      [['verify', reportFile, '--envelope', envelopeFile, '--public-key', reportFile], /the public key ".*report\.json" is not a PEM file/],
      [['verify', reportFile, '--envelope', html, '--public-key', signer.publicFile], /the envelope file is not JSON/],
      [['verify', reportFile, '--envelope', reportFile, '--public-key', signer.publicFile], /is not a DSSE envelope/],
      [['attest', reportFile, '--key', missing], /cannot read the private key/],
      [['attest', reportFile, '--key', signer.publicFile], /is a public key; signing needs the private key/],
      [['attest', html, '--key', signer.privateFile], /"report\.html" is not JSON/],
      [['attest', envelopeFile, '--key', signer.privateFile], /is not a petstore-conformance report/],
    ];
    for (const [args, pattern] of cases) expectOneLine(await runCli(args), 2, pattern);
  });

  it('usage mistakes exit 2 with one line', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['verify', reportFile, '--public-key', signer.publicFile], /verify needs --envelope <file> and --public-key <pem>/],
      [['verify', '--envelope', envelopeFile, '--public-key', signer.publicFile], /verify needs the path of a report\.json/],
      [['attest', reportFile], /attest needs --key/],
      [['attest', reportFile, '--output', 'x.jsonl', '--predicate', 'p.json'], /--output names the signed envelope: attest needs --key/],
      [['attest', reportFile, '--key', signer.privateFile, '--seed', '3'], /--seed does not apply to attest/],
      [['--key', signer.privateFile], /--key applies to attest and verify only/],
    ];
    for (const [args, pattern] of cases) expectOneLine(await runCli(args), 2, pattern);
  });
});

describe('the library: attestReport and verifyAttestation', () => {
  const problem = (result: VerificationResult): string => (result.ok ? 'ok' : result.problem);

  it('PAE is the DSSE spec\'s example', () => {
    expect(pae('http://example.com/HelloWorld', Buffer.from('hello world')).toString()).toBe('DSSEv1 29 http://example.com/HelloWorld 11 hello world');
  });

  it('signs and verifies from keys and bytes; each kind of damage is told apart', () => {
    const bytes = reportBytes;
    const signed = attestReport({ report: bytes, privateKey: signer.privateKey });
    expect(signed.sha256).toBe(sha256(bytes));
    expect(signed.keyid).toBe(keyIdOf(signer.publicKey));
    expect(signed.statement).toEqual(conformanceStatement(bytes));
    const ok = verifyAttestation({ report: bytes, envelope: signed.envelope, publicKey: signer.publicKey });
    expect(ok.ok && ok.statement.predicate.verdict).toBe('conforms');
    // The envelope file's text, and the public key as PEM, work the same.
    expect(problem(verifyAttestation({ report: bytes, envelope: JSON.stringify(signed.envelope), publicKey: signer.publicKey.export({ type: 'spki', format: 'pem' }) }))).toBe('ok');

    expect(problem(verifyAttestation({ report: Buffer.concat([bytes, Buffer.from(' ')]), envelope: signed.envelope, publicKey: signer.publicKey }))).toBe('report-changed');
    expect(problem(verifyAttestation({ report: bytes, envelope: signed.envelope, publicKey: stranger.publicKey }))).toBe('wrong-key');
    // A payload swapped for another statement, keeping the signature: the key's signature no longer matches.
    const forged = { ...signed.statement, predicate: { ...signed.statement.predicate, verdict: 'does-not-conform' } };
    const swapped = { ...signed.envelope, payload: Buffer.from(JSON.stringify(forged)).toString('base64') };
    expect(problem(verifyAttestation({ report: bytes, envelope: swapped, publicKey: signer.publicKey }))).toBe('damaged');
    expect(problem(verifyAttestation({ report: bytes, envelope: { ...signed.envelope, payloadType: 'text/plain' }, publicKey: signer.publicKey }))).toBe('damaged');
    // Without a keyid, a signature by another key cannot be told from an altered one: reported as the key.
    const anonymous = { ...signed.envelope, signatures: signed.envelope.signatures.map((s) => ({ sig: s.sig })) };
    expect(problem(verifyAttestation({ report: bytes, envelope: anonymous, publicKey: signer.publicKey }))).toBe('ok');
    expect(problem(verifyAttestation({ report: bytes, envelope: anonymous, publicKey: stranger.publicKey }))).toBe('wrong-key');
  });

  it('reads JSON Lines of envelopes (an .intoto.jsonl bundle): the key\'s envelope among others verifies', () => {
    const mine = attestReport({ report: reportBytes, privateKey: signer.privateKey }).envelope;
    const theirs = attestReport({ report: reportBytes, privateKey: stranger.privateKey }).envelope;
    const bundle = `${JSON.stringify(theirs)}\n${JSON.stringify(mine)}\n`;
    expect(problem(verifyAttestation({ report: reportBytes, envelope: bundle, publicKey: signer.publicKey }))).toBe('ok');
    expect(problem(verifyAttestation({ report: reportBytes, envelope: bundle, publicKey: stranger.publicKey }))).toBe('ok');
    // None verifies: the most specific failure is told (the key's own envelope, about other bytes).
    expect(problem(verifyAttestation({ report: `${reportBytes.toString()} `, envelope: bundle, publicKey: signer.publicKey }))).toBe('report-changed');
    const third = generateKeyPairSync('ed25519');
    expect(problem(verifyAttestation({ report: reportBytes, envelope: bundle, publicKey: third.publicKey }))).toBe('wrong-key');
    // A pretty-printed envelope cut short is damaged, not "not JSON".
    const pretty = JSON.stringify(mine, null, 2);
    expect(problem(verifyAttestation({ report: reportBytes, envelope: pretty, publicKey: signer.publicKey }))).toBe('ok');
    expect(problem(verifyAttestation({ report: reportBytes, envelope: pretty.slice(0, 120), publicKey: signer.publicKey }))).toBe('damaged');
  });

  it('a statement of another predicate type, correctly signed, is refused', () => {
    const { statement } = attestReport({ report: reportBytes, privateKey: signer.privateKey });
    const other = Buffer.from(JSON.stringify({ ...statement, predicateType: 'https://slsa.dev/provenance/v1' }));
    const envelopeOther = signEnvelope('application/vnd.in-toto+json', other, signer.privateKey, keyIdOf(signer.publicKey));
    const result = verifyAttestation({ report: reportBytes, envelope: envelopeOther, publicKey: signer.publicKey });
    expect(result.ok ? '' : `${result.problem}: ${result.message}`).toMatch(/^damaged: .*not a petstore-conformance statement: \/predicateType/);
  });

  it('unreadable inputs throw AttestationInputError (exit code 2): not PEM, another key type, not a report', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(() => attestReport({ report: reportBytes, privateKey: 'not a key' })).toThrow(AttestationInputError);
    expect(() => attestReport({ report: reportBytes, privateKey: rsa.privateKey })).toThrow(/rsa key; attestations use Ed25519/);
    expect(() => verifyAttestation({ report: reportBytes, envelope: envelope, publicKey: rsa.publicKey })).toThrow(/rsa key/);
    expect(() => attestReport({ report: '{"verdict":"conforms"}', privateKey: signer.privateKey })).toThrow(/not a petstore-conformance report/);
    expect(() => verifyAttestation({ report: reportBytes, envelope: 'hello', publicKey: signer.publicKey })).toThrow(/not JSON/);
  });
});
