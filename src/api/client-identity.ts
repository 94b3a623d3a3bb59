/**
 * A client certificate for a target behind mutual TLS, checked before anything is sent: a
 * certificate, a private key it opens (with the passphrase when the key is encrypted), the two
 * belonging together, and the certificate within its validity. Each mistake is one line naming
 * what to fix; the passphrase is never quoted.
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import type { ClientCertificate } from '../http/transport.js';

export interface ClientIdentity extends ClientCertificate {
  /** The certificate's subject, one line ("CN=ci-runner, O=Example"): what the report shows. */
  subject: string;
  /** SHA-256 fingerprint of the certificate ("AB:CD:..."). */
  fingerprint256: string;
}

/** How messages name the inputs: the CLI's flags and variable, or the library's option names. */
export interface IdentityNames {
  cert: string;
  key: string;
  passphrase: string;
}

export const LIBRARY_NAMES: IdentityNames = { cert: 'clientCert', key: 'clientKey', passphrase: 'clientKeyPassphrase' };

/** The user's mistake: exit 2 with its one line, wherever it is caught. */
export class ClientIdentityError extends Error {
  override name = 'ClientIdentityError';
  readonly exitCode = 2;
}

const PRIVATE_KEY_PEM = /-----BEGIN (?:[A-Z]+ )?(?:ENCRYPTED )?PRIVATE KEY-----/;
/** PKCS#8 encrypted, or the legacy OpenSSL form's header. */
const ENCRYPTED_PEM = /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/;

function privateKey(pem: string, passphrase: string | undefined, names: IdentityNames): KeyObject {
  const encrypted = ENCRYPTED_PEM.test(pem);
  if (encrypted && passphrase === undefined) throw new ClientIdentityError(`${names.key} is encrypted: set ${names.passphrase} to its passphrase`);
  try {
    return createPrivateKey({ key: pem, format: 'pem', ...(passphrase === undefined ? {} : { passphrase }) });
  } catch {
    if (encrypted) throw new ClientIdentityError(`${names.key} cannot be decrypted with the passphrase in ${names.passphrase}: wrong passphrase`);
    throw new ClientIdentityError(`${names.key} is not a PEM private key`);
  }
}

function certificate(pem: string, names: IdentityNames): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw new ClientIdentityError(`${names.cert} is not a PEM certificate`);
  }
}

/** Undefined when neither is given; throws ClientIdentityError on the first mistake. */
export function clientIdentity(
  input: { cert?: string | undefined; key?: string | undefined; passphrase?: string | undefined },
  names: IdentityNames = LIBRARY_NAMES,
  now: Date = new Date(),
): ClientIdentity | undefined {
  const { cert, passphrase } = input;
  if (cert === undefined && input.key === undefined) return undefined;
  if (cert === undefined) throw new ClientIdentityError(`${names.key} needs ${names.cert}, the certificate it belongs to`);
  // A PEM file may hold both, as curl's --cert allows.
  const key = input.key ?? (PRIVATE_KEY_PEM.test(cert) ? cert : undefined);
  if (key === undefined) throw new ClientIdentityError(`${names.cert} needs ${names.key}, the certificate's private key (PEM)`);
  const x509 = certificate(cert, names);
  const opened = privateKey(key, passphrase === '' ? undefined : passphrase, names);
  if (!x509.checkPrivateKey(opened)) throw new ClientIdentityError(`${names.cert} and ${names.key} do not belong together: the key is not the certificate's`);
  if (new Date(x509.validTo) < now) throw new ClientIdentityError(`${names.cert} expired on ${new Date(x509.validTo).toISOString()}`);
  if (new Date(x509.validFrom) > now) throw new ClientIdentityError(`${names.cert} is not valid before ${new Date(x509.validFrom).toISOString()}`);
  return {
    cert,
    key,
    ...(passphrase === undefined || passphrase === '' ? {} : { passphrase }),
    subject: x509.subject.split('\n').filter((part) => part !== '').join(', '),
    fingerprint256: x509.fingerprint256,
  };
}

/** What the TLS connection needs of an identity: the PEM texts and the passphrase. */
export function certificateOf(identity: ClientIdentity): ClientCertificate {
  return { cert: identity.cert, key: identity.key, ...(identity.passphrase === undefined ? {} : { passphrase: identity.passphrase }) };
}
