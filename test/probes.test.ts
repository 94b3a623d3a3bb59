import { describe, expect, it } from 'vitest';
import { ProbeLedger } from '../src/session/probes.js';
import { checkPetShape } from '../src/checks/pet-shape.js';
import type { AuthMode, Exchange } from '../src/http/exchange.js';
import { invalidNewPetExamples } from '../src/arbitraries/invalidNewPet.js';
import { withMarker } from '../src/arbitraries/marker.js';
import { makeExchange, pet } from './support/exchange-factory.js';
import { observations, violations } from './support/findings.js';

const RUN = 'ab12cd34ef';

/** A createPet exchange sending `body`, answered with `status` (and the created pet on a 2xx). */
function post(body: string, status: number, options: { auth?: AuthMode; id?: number } = {}): Exchange {
  const ex = makeExchange({ method: 'POST', status, auth: options.auth ?? 'key', json: status === 201 ? pet(options.id ?? 1) : { code: 'x', message: 'x', status } });
  return { ...ex, request: { ...ex.request, body } };
}

const named = (marker: string, extra = ''): string => `{"name":"${marker}rex","categoryId":1${extra}}`;

describe('ProbeLedger: one probe, one marker', () => {
  it('gives every request its own marker and finds it in names and raw bodies', () => {
    const probes = new ProbeLedger(RUN);
    const [a, b] = [probes.next(), probes.next()];
    expect(a).not.toBe(b);
    expect(probes.markerIn(`${b}🐶`)).toBe(b);
    expect(probes.markerIn(`<pet><name>${a}xml</name></pet>`)).toBe(a);
    expect(probes.markerOf({ name: `pc-${RUN}-12-x` })).toBe(`pc-${RUN}-12-`);
    expect(probes.markerOf({ name: 'pc-otherrun1-3-x' })).toBeUndefined();
    expect(probes.isOtherRunName('pc-0123456789-3-x')).toBe(true);
    expect(probes.isOtherRunName(`${a}x`)).toBe(false);
  });

  it('files refused keyed requests under CREATE-004 and unauthorised ones under AUTH-004', () => {
    const probes = new ProbeLedger(RUN);
    const [invalid, unauthorised] = [probes.next(), probes.next()];
    const refused = post(named(invalid, ',"status":"adopted"'), 400);
    probes.note(refused);
    probes.note(post(named(unauthorised), 401, { auth: 'none' }));
    expect([...probes.refused('CREATE-004').keys()]).toEqual([invalid]);
    expect(probes.refused('CREATE-004').get(invalid)).toBe(refused);
    expect([...probes.refused('AUTH-004').keys()]).toEqual([unauthorised]);
    expect(probes.refusedSource({ id: 9, name: `${invalid}rex` }, 'CREATE-004')).toBe(refused);
    expect(probes.refusedSource({ id: 9, name: `${invalid}rex` }, 'AUTH-004')).toBeUndefined();
  });

  it('never counts a marker that was ever accepted, nor a 429, as refused', () => {
    const probes = new ProbeLedger(RUN);
    const [retried, throttled] = [probes.next(), probes.next()];
    probes.note(post(named(retried), 400));
    probes.note(post(named(retried), 201, { id: 5 }));
    probes.note(post(named(throttled), 429));
    expect(probes.refused('CREATE-004').size).toBe(0);
    expect(probes.creations.map((c) => c.id)).toEqual([5n]);
    expect(probes.lastCreateAccepted).toBe(false);
    expect(probes.bracketOpen).toBe(false);
  });

  it('keeps a bracket open across refused createPets only: a 429 or a 5xx closes it', () => {
    const probes = new ProbeLedger(RUN);
    expect(probes.bracketOpen).toBe(false);
    probes.note(post(named(probes.next()), 400));
    expect(probes.bracketOpen).toBe(false);
    probes.note(post(named(probes.next()), 201, { id: 1 }));
    probes.note(post(named(probes.next(), ',"status":"adopted"'), 400));
    probes.note(post(named(probes.next()), 401, { auth: 'none' }));
    expect(probes.lastCreateAccepted).toBe(false);
    expect(probes.bracketOpen).toBe(true);
    probes.note(post(named(probes.next()), 429));
    expect(probes.bracketOpen).toBe(false);
    probes.note(post(named(probes.next()), 201, { id: 2 }));
    probes.note(post(named(probes.next()), 500));
    expect(probes.bracketOpen).toBe(false);
  });

  it('knows the pets made from bodies that should have been refused, and PET-001 notes them instead of failing', () => {
    const probes = new ProbeLedger(RUN);
    const [invalid, valid] = [probes.next(), probes.next()];
    probes.note(post(named(invalid, ',"status":"adopted"'), 201, { id: 1 }));
    probes.note(post(named(valid), 201, { id: 2 }));
    expect(probes.lastCreateAccepted).toBe(true);
    const odd = { id: 1, name: `${invalid}rex`, categoryId: 1, status: 'adopted' };
    expect(probes.isAcceptedInvalid(odd)).toBe(true);
    expect(probes.isAcceptedInvalid({ ...odd, name: `${valid}rex` })).toBe(false);
    const listing = makeExchange({ json: [odd, { ...odd, id: 2, name: `${valid}rex` }] });
    const findings = checkPetShape(listing, (p) => probes.isAcceptedInvalid(p));
    expect(violations(findings, 'PET-001')).toHaveLength(1);
    expect(observations(findings, 'PET-001').some((f) => f.message.includes('pet #1 of the listing') && f.message.includes('CREATE-003'))).toBe(true);
  });

  it('traces a pet stored from either half of a body that is not one JSON text to that request', () => {
    const probes = new ProbeLedger(RUN);
    const sent = (kind: string, marker: string): string => withMarker(invalidNewPetExamples().find((e) => e.kind === kind)?.body ?? '', marker);
    const [twoHalves, trailing] = [probes.next(), probes.next()];
    const refused = post(sent('two-newpets-back-to-back', twoHalves), 400);
    probes.note(refused);
    expect(refused.request.body?.split(twoHalves)).toHaveLength(3);
    expect(probes.refusedSource({ id: 7, name: `${twoHalves}example` }, 'CREATE-004')).toBe(refused);
    expect(probes.refusedSource({ id: 8, name: `${twoHalves}example-second` }, 'CREATE-004')).toBe(refused);
    // Accepted, it is a body that should have been refused: its pet is CREATE-003's finding alone.
    probes.note(post(sent('trailing-bytes', trailing), 201, { id: 9 }));
    expect(probes.isAcceptedInvalid({ id: 9, name: `${trailing}example` })).toBe(true);
    expect(probes.refused('CREATE-004').size).toBe(1);
  });
});
