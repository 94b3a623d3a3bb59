/**
 * The SHA-256 of report.json as written: report.html and summary.md show it, and an attestation
 * signs it. It is computed over bytes, never over a re-serialisation, so `sha256sum report.json`
 * gives the same hex years later. It cannot live inside report.json (the file would have to
 * contain its own digest), so renderers receive it beside the report, in a RenderContext.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/** What a renderer may know besides the report itself. */
export interface RenderContext {
  /** Lowercase hex SHA-256 of the report.json bytes this rendering goes with; absent when unknown. */
  reportSha256?: string;
}

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The context of a saved report.json: its digest, from the file's bytes. */
export async function renderContextOfFile(file: string): Promise<RenderContext> {
  return { reportSha256: sha256Hex(await readFile(file)) };
}
