/**
 * Ed25519 keys from PEM files, and the keyid that names them. A file that is not a PEM key, or a
 * key of another type, is the user's mistake: AttestationInputError (exit 2), one line.
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';

export class AttestationInputError extends Error {
  readonly exitCode = 2;
  override name = 'AttestationInputError';
}

/** An encrypted private key and no passphrase: the caller says where a passphrase comes from. */
export class PassphraseNeededError extends AttestationInputError {}

export type KeyInput = string | Buffer | KeyObject;

const ENCRYPTED = /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/;

function keyObject(input: KeyInput, kind: 'private' | 'public', what: string, passphrase?: string): KeyObject {
  let key: KeyObject;
  if (typeof input === 'string' || Buffer.isBuffer(input)) {
    const text = input.toString();
    if (!/-----BEGIN [A-Z0-9 ]+-----/.test(text)) throw new AttestationInputError(`${what} is not a PEM file (no -----BEGIN line)`);
    if (kind === 'private' && /-----BEGIN PUBLIC KEY-----/.test(text)) throw new AttestationInputError(`${what} is a public key; signing needs the private key`);
    const encrypted = ENCRYPTED.test(text);
    if (kind === 'private' && encrypted && passphrase === undefined) throw new PassphraseNeededError(`${what} is encrypted and no passphrase was given`);
    try {
      // A private key yields its public half, so either file verifies.
      key = kind === 'private' ? createPrivateKey({ key: text, ...(passphrase === undefined ? {} : { passphrase }) }) : createPublicKey(text);
    } catch (error) {
      if (kind === 'private' && encrypted) throw new AttestationInputError(`${what} is encrypted and the passphrase given does not decrypt it`);
      const reason = error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
      throw new AttestationInputError(`${what} is not a readable ${kind} key: ${reason}`);
    }
  } else {
    key = input;
  }
  if (kind === 'private' && key.type !== 'private') throw new AttestationInputError(`${what} is a ${key.type} key; signing needs the private key`);
  if (key.asymmetricKeyType !== 'ed25519') throw new AttestationInputError(`${what} is a ${key.asymmetricKeyType ?? 'symmetric'} key; attestations use Ed25519 (openssl genpkey -algorithm ed25519)`);
  return key;
}

/** `passphrase`: for an encrypted PEM (openssl genpkey … -aes256). */
export function privateKeyFrom(input: KeyInput, what = 'the private key', passphrase?: string): KeyObject {
  return keyObject(input, 'private', what, passphrase);
}

/** The public key of a PEM public key, or of a PEM private key. */
export function publicKeyFrom(input: KeyInput, what = 'the public key'): KeyObject {
  const key = keyObject(input, 'public', what);
  return key.type === 'private' ? createPublicKey(key) : key;
}

/**
 * The keyid: lowercase hex SHA-256 of the public key's SubjectPublicKeyInfo (DER), the same as
 * `openssl pkey -pubin -in key.pub.pem -outform DER | sha256sum`.
 */
export function keyIdOf(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex');
}
