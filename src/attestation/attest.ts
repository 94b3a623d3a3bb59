/**
 * Signing a report.json and checking the signature later: `attestReport` wraps an in-toto
 * Statement about the report's exact bytes in a DSSE envelope signed with Ed25519;
 * `verifyAttestation` says whether an envelope is the given key's signature of exactly these
 * bytes, and if not, which of three things is wrong: the report changed, another key signed, or the
 * envelope is damaged. Inputs that cannot be read at all (not PEM, not JSON, not a report) throw
 * AttestationInputError or ReportFileError (exit code 2): they are the user's mistake, not a finding.
 */
import type { KeyObject } from 'node:crypto';
import { sha256Hex } from '../report/digest.js';
import { parseReport } from '../report/load.js';
import { fromBase64, signatureVerifies, signEnvelope, type DsseEnvelope } from './dsse.js';
import { IN_TOTO_PAYLOAD_TYPE, predicateOf, statementOf, type ConformanceStatement } from './in-toto.js';
import { AttestationInputError, keyIdOf, privateKeyFrom, publicKeyFrom, type KeyInput } from './keys.js';
import { envelopeErrors, statementErrors } from './shape.js';

export const DEFAULT_SUBJECT_NAME = 'report.json';

export interface AttestReportInput {
  /** report.json exactly as saved: the subject's digest covers these bytes. */
  report: Uint8Array | string;
  /** Ed25519 private key: PEM text or a KeyObject. */
  privateKey: KeyInput;
  /** The passphrase of an encrypted PEM private key. */
  passphrase?: string;
  /** The subject's name (the file's name); default report.json. */
  name?: string;
}

export interface ReportAttestation {
  envelope: DsseEnvelope;
  statement: ConformanceStatement;
  /** Hex SHA-256 of the signing key's public key (SPKI DER): the envelope's keyid. */
  keyid: string;
  /** Hex SHA-256 of the report's bytes: the subject's digest. */
  sha256: string;
}

function bytesOf(value: Uint8Array | string): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value);
}

/** The statement about these bytes, and their digest. Throws ReportFileError when they are not a valid report. */
function statementAbout(report: Uint8Array | string, name: string): { statement: ConformanceStatement; sha256: string } {
  const bytes = bytesOf(report);
  const sha256 = sha256Hex(bytes);
  const parsed = parseReport(bytes.toString('utf8'), name);
  return { statement: statementOf({ name, digest: { sha256 } }, predicateOf(parsed)), sha256 };
}

/**
 * The statement about a report.json, unsigned: what `attest --predicate` and keyless signers
 * (GitHub's attest action, which builds the statement from a predicate file and the subject) need.
 * Throws ReportFileError when the bytes are not a valid report.
 */
export function conformanceStatement(report: Uint8Array | string, name = DEFAULT_SUBJECT_NAME): ConformanceStatement {
  return statementAbout(report, name).statement;
}

export function attestReport(input: AttestReportInput): ReportAttestation {
  const privateKey = privateKeyFrom(input.privateKey, undefined, input.passphrase);
  const { statement, sha256 } = statementAbout(input.report, input.name ?? DEFAULT_SUBJECT_NAME);
  const keyid = keyIdOf(privateKey);
  const envelope = signEnvelope(IN_TOTO_PAYLOAD_TYPE, Buffer.from(JSON.stringify(statement), 'utf8'), privateKey, keyid);
  return { envelope, statement, keyid, sha256 };
}

export interface VerifyAttestationInput {
  /** report.json as archived; only its bytes count (it need not even parse). */
  report: Uint8Array | string;
  /** The envelope: the file's text or bytes, or the parsed object. */
  envelope: string | Uint8Array | object;
  /** The Ed25519 public key (PEM, or a KeyObject); a private key's public half works too. */
  publicKey: KeyInput;
}

/** 'report-changed': the bytes are not the signed subject; 'wrong-key': another key signed; 'damaged': the envelope was altered or cut. */
export type AttestationProblem = 'report-changed' | 'wrong-key' | 'damaged';

export type VerificationResult =
  | { ok: true; sha256: string; keyid: string; statement: ConformanceStatement; message: string }
  | { ok: false; problem: AttestationProblem; message: string };

const failed = (problem: AttestationProblem, message: string): VerificationResult => ({ ok: false, problem, message });

/** Text that starts like an envelope but does not parse was cut or altered; anything else is not an envelope at all. */
const ENVELOPE_START = /^\s*\{\s*"(?:payloadType|payload|signatures)"/;
const ENVELOPE_KEYS = ['payloadType', 'payload', 'signatures'];
const CUT = 'it does not parse as JSON (cut short or altered)';

type Read = { value: unknown } | { damaged: string };

/** The envelopes of the input: one JSON envelope, or JSON Lines of them (in-toto's .intoto.jsonl bundles). */
function readEnvelopes(input: VerifyAttestationInput['envelope']): Read[] {
  if (typeof input !== 'string' && !(input instanceof Uint8Array)) return [{ value: input }];
  const text = typeof input === 'string' ? input : Buffer.from(input).toString('utf8');
  try {
    return [{ value: JSON.parse(text) }];
  } catch {
    // Not one JSON document: JSON Lines, or something cut short.
  }
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  const reads = lines.map((line): Read | undefined => {
    try {
      return { value: JSON.parse(line) };
    } catch {
      return ENVELOPE_START.test(line) ? { damaged: CUT } : undefined;
    }
  });
  if (reads.every((r) => r !== undefined)) return reads;
  if (ENVELOPE_START.test(text)) return [{ damaged: CUT }];
  throw new AttestationInputError('the envelope file is not JSON');
}

function isEnvelopeLike(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && ENVELOPE_KEYS.some((k) => k in value);
}

function verifyEnvelope(read: Read, reportSha256: string, publicKey: KeyObject, keyid: string): VerificationResult {
  if ('damaged' in read) return failed('damaged', `the envelope is damaged: ${read.damaged}`);
  const shape = envelopeErrors(read.value);
  if (shape.length > 0) return failed('damaged', `the envelope is damaged: ${shape[0]}`);
  const envelope = read.value as DsseEnvelope;

  // The signature first: nothing in the payload is read before it is known to be the key's.
  if (!envelope.signatures.some((s) => signatureVerifies(envelope, s, publicKey))) {
    const named = envelope.signatures.map((s) => s.keyid).filter((id): id is string => id !== undefined && id !== '');
    if (named.length === envelope.signatures.length && !named.includes(keyid)) {
      return failed('wrong-key', `the envelope was signed by another key (keyid ${named.join(', ')}), not by the public key given (keyid ${keyid})`);
    }
    if (named.includes(keyid)) return failed('damaged', `the envelope is damaged: the signature of key ${keyid} does not match its payload (payload or signature altered)`);
    return failed('wrong-key', `the signature does not verify with the public key given (keyid ${keyid}): another key signed it, or the envelope was altered`);
  }

  let statement: unknown;
  try {
    statement = JSON.parse(fromBase64(envelope.payload).toString('utf8'));
  } catch {
    return failed('damaged', 'the envelope is damaged: its signed payload is not JSON');
  }
  const errors = statementErrors(statement);
  if (errors.length > 0) return failed('damaged', `the envelope's signed payload is not a petstore-conformance statement: ${errors[0]}`);
  const signed = statement as ConformanceStatement;
  const subject = signed.subject.find((s) => s.digest.sha256 === reportSha256);
  if (subject === undefined) {
    const expected = signed.subject.map((s) => `${s.name} ${s.digest.sha256}`).join(', ');
    return failed('report-changed', `the report is not the one signed: its SHA-256 is ${reportSha256}, the attestation's subject is ${expected}`);
  }
  return {
    ok: true,
    sha256: reportSha256,
    keyid,
    statement: signed,
    message: `verified: the report (SHA-256 ${reportSha256}) is ${subject.name} as signed by key ${keyid}; ${signed.predicate.verdictLine}`,
  };
}

/** Of several envelopes none of which verifies, the failure that says most: one the key signed comes before one it did not. */
const SPECIFICITY: Readonly<Record<AttestationProblem, number>> = { 'report-changed': 2, damaged: 1, 'wrong-key': 0 };

export function verifyAttestation(input: VerifyAttestationInput): VerificationResult {
  const publicKey = publicKeyFrom(input.publicKey);
  const keyid = keyIdOf(publicKey);
  const reads = readEnvelopes(input.envelope);
  if (!reads.some((r) => 'damaged' in r || isEnvelopeLike(r.value))) {
    throw new AttestationInputError('the envelope file is not a DSSE envelope (no payloadType, payload or signatures)');
  }
  const sha256 = sha256Hex(bytesOf(input.report));
  const results = reads.map((read) => verifyEnvelope(read, sha256, publicKey, keyid));
  const verified = results.find((r) => r.ok);
  if (verified !== undefined) return verified;
  const rank = (r: VerificationResult): number => (r.ok ? 3 : SPECIFICITY[r.problem]);
  return results.reduce((best, r) => (rank(r) > rank(best) ? r : best));
}
