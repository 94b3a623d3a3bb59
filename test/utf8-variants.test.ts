/** Issue 44: the store that is not UTF-8 past its first page fails MEDIA-001, the catalog's requirement for it, on every seed. */
import { describe, expect, it } from 'vitest';
import { UTF8_BODY_VARIANTS } from '../fixtures/variants/utf8-bodies.js';
import { runVariant } from './support/variant-run.js';

const mutant = UTF8_BODY_VARIANTS.find((v) => v.name === 'listing-not-utf8-past-page');

describe('listing-not-utf8-past-page on several seeds', () => {
  it.each([1, 77])('fails MEDIA-001 alone with --seed %i (the census, limit=100, shows pet #31)', async (seed) => {
    if (mutant === undefined) throw new Error('variant missing');
    // parseArgs keeps the last --seed: this one, over the table's fixed seed.
    const run = await runVariant({ ...mutant, server: { ...mutant.server, seed }, args: ['--seed', String(seed)] });
    expect(run.failing).toEqual(['MEDIA-001']);
    const media = run.report?.requirements.find((r) => r.id === 'MEDIA-001');
    expect(JSON.stringify(media)).toContain('in pet #31 of');
    expect(JSON.stringify(media)).toContain('/pets?limit=100');
  }, 120_000);
});
