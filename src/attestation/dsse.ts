/**
 * DSSE (Dead Simple Signing Envelope, https://github.com/secure-systems-lab/dsse): the signature
 * covers PAE(payloadType, payload), never the JSON of the envelope, so re-serialising an envelope
 * cannot break or forge a signature. Signing and verifying are Ed25519 from node:crypto.
 */
import { sign, verify, type KeyObject } from 'node:crypto';

export interface DsseSignature {
  /** Names the key (here: keyIdOf the public key); a hint for the verifier, not trusted by itself. */
  keyid?: string;
  /** Base64 signature of PAE(payloadType, payload). */
  sig: string;
}

export interface DsseEnvelope {
  payloadType: string;
  /** Base64 of the payload bytes. */
  payload: string;
  signatures: DsseSignature[];
}

/** Pre-Authentication Encoding: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, lengths in bytes, ASCII decimal. */
export function pae(payloadType: string, payload: Uint8Array): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${payload.length} `), payload]);
}

/** DSSE accepts both base64 alphabets; Node's decoder reads either. */
export function fromBase64(text: string): Buffer {
  return Buffer.from(text, 'base64');
}

export function signEnvelope(payloadType: string, payload: Uint8Array, privateKey: KeyObject, keyid: string): DsseEnvelope {
  const sig = sign(null, pae(payloadType, payload), privateKey).toString('base64');
  return { payloadType, payload: Buffer.from(payload).toString('base64'), signatures: [{ keyid, sig }] };
}

/** True when this signature is the key's signature of the envelope's PAE. A malformed signature is simply not one. */
export function signatureVerifies(envelope: DsseEnvelope, signature: DsseSignature, publicKey: KeyObject): boolean {
  try {
    return verify(null, pae(envelope.payloadType, fromBase64(envelope.payload)), publicKey, fromBase64(signature.sig));
  } catch {
    return false;
  }
}
