/**
 * `petstore-conformance attest` and `verify`: the files around the library's attestReport and
 * verifyAttestation. A file that cannot be read or is not what it should be (no PEM, not JSON,
 * not a report) exits 2 with one line; a verification that fails exits 1 with one line saying
 * which of report, key or envelope is wrong.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { AttestOptions, VerifyOptions } from './args.js';
import { attestReport, conformanceStatement, verifyAttestation } from '../attestation/attest.js';
import { CONFORMANCE_PREDICATE_TYPE } from '../attestation/in-toto.js';
import { AttestationInputError, PassphraseNeededError, privateKeyFrom, publicKeyFrom } from '../attestation/keys.js';

export const PASSPHRASE_VARIABLE = 'PETSTORE_SIGNING_KEY_PASSPHRASE';

async function read(file: string, what: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new AttestationInputError(`cannot read ${what} "${file}": ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

async function write(file: string, text: string): Promise<void> {
  try {
    await writeFile(file, text, 'utf8');
  } catch (error) {
    throw new AttestationInputError(`cannot write "${file}": ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/** report.json → report.intoto.jsonl beside it: in-toto's name for a file of DSSE envelopes, one per line. */
export function defaultEnvelopePath(reportFile: string): string {
  return join(dirname(reportFile), `${basename(reportFile).replace(/\.json$/i, '')}.intoto.jsonl`);
}

export async function attestCommand(command: AttestOptions): Promise<number> {
  const report = await read(command.reportFile, 'the report');
  const name = basename(command.reportFile);
  let statement;
  if (command.keyFile === undefined) {
    statement = conformanceStatement(report, name);
  } else {
    // The passphrase of an encrypted key comes from the environment, never from a flag (shell history, process lists).
    const pem = await read(command.keyFile, 'the private key');
    let privateKey;
    try {
      privateKey = privateKeyFrom(pem, `the private key "${command.keyFile}"`, process.env[PASSPHRASE_VARIABLE]);
    } catch (error) {
      if (error instanceof PassphraseNeededError) throw new PassphraseNeededError(`${error.message}: set ${PASSPHRASE_VARIABLE}`);
      throw error;
    }
    const attestation = attestReport({ report, privateKey, name });
    const output = command.output ?? defaultEnvelopePath(command.reportFile);
    await write(output, `${JSON.stringify(attestation.envelope)}\n`);
    process.stdout.write(`attestation: ${output} (${name} SHA-256 ${attestation.sha256}, signed by key ${attestation.keyid})\n`);
    statement = attestation.statement;
  }
  if (command.predicateFile !== undefined) {
    await write(command.predicateFile, `${JSON.stringify(statement.predicate, null, 2)}\n`);
    process.stdout.write(`predicate: ${command.predicateFile} (type ${CONFORMANCE_PREDICATE_TYPE})\n`);
  }
  return 0;
}

export async function verifyCommand(command: VerifyOptions): Promise<number> {
  const [report, envelope, publicKeyPem] = await Promise.all([
    read(command.reportFile, 'the report'),
    read(command.envelopeFile, 'the envelope'),
    read(command.publicKeyFile, 'the public key'),
  ]);
  const publicKey = publicKeyFrom(publicKeyPem, `the public key "${command.publicKeyFile}"`);
  const result = verifyAttestation({ report, envelope, publicKey });
  if (result.ok) {
    process.stdout.write(`${result.message}\n`);
    return 0;
  }
  process.stderr.write(`petstore-conformance: verification failed: ${result.message}\n`);
  return 1;
}
