/**
 * The fixtures of issue 23's body variants do what their stacks do: Go's encoding/json matches
 * member names ignoring case (the last match wins) and json.Decoder reads the first value only;
 * the reference reads member names exactly and refuses a body that is not one JSON text.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startReferenceServer, type RunningReferenceServer } from '../fixtures/reference-server/index.js';
import { JSON_BODY_VARIANTS } from '../fixtures/variants/json-bodies.js';
import { isJsonObject, parseJson, type JsonObject } from '../src/interface/json.js';

const started: RunningReferenceServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.close()));
});

async function serverOf(variant?: string): Promise<RunningReferenceServer> {
  const behaviour = variant === undefined ? {} : JSON_BODY_VARIANTS.find((v) => v.name === variant)?.server?.behaviour;
  if (behaviour === undefined) throw new Error(`no variant ${variant}`);
  const server = await startReferenceServer({ pets: 0, behaviour });
  started.push(server);
  return server;
}

async function send(server: RunningReferenceServer, method: 'GET' | 'POST', path: string, body?: string): Promise<{ status: number; pet: JsonObject | undefined }> {
  const response = await request(`${server.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.keys.business}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body }),
  });
  const parsed = parseJson(await response.body.text());
  return { status: response.statusCode, pet: parsed.ok && isJsonObject(parsed.value) ? parsed.value : undefined };
}

const post = (server: RunningReferenceServer, body: string) => send(server, 'POST', '/pets', body);
const names = (server: RunningReferenceServer): string[] => server.store.pets.map((pet) => pet.name);

const CASE_ONLY = '{"NAME":"x","CATEGORYID":1}';
const BESIDE = '{"name":"a","Name":"b","categoryId":1}';
const TRAILING = '{"name":"x","categoryId":1} trailing';
const BACK_TO_BACK = '{"name":"x","categoryId":1}{"name":"y","categoryId":2}';

describe('JSON body variants', () => {
  it('the reference reads member names exactly and refuses what is not one JSON text', async () => {
    const server = await serverOf();
    expect((await post(server, CASE_ONLY)).status).toBe(400);
    expect((await post(server, BESIDE)).pet?.['name']).toBe('a');
    expect((await post(server, TRAILING)).status).toBe(400);
    expect((await post(server, BACK_TO_BACK)).status).toBe(400);
    expect(names(server)).toEqual(['a']);
  });

  it("member names matched ignoring case, the last match winning, as Go's encoding/json does", async () => {
    const server = await serverOf('member-names-case-insensitive');
    const caseOnly = await post(server, CASE_ONLY);
    expect([caseOnly.status, caseOnly.pet?.['name'], caseOnly.pet?.['categoryId']]).toEqual([201, 'x', 1]);
    expect((await post(server, BESIDE)).pet?.['name']).toBe('b');
    expect((await post(server, '{"Name":"b","name":"a","categoryId":1}')).pet?.['name']).toBe('a');
    expect(names(server)).toEqual(['x', 'b', 'a']);
  });

  it("the first JSON value read and the rest ignored, as Go's json.Decoder does", async () => {
    const server = await serverOf('first-json-value-only');
    expect((await post(server, TRAILING)).pet?.['name']).toBe('x');
    expect((await post(server, BACK_TO_BACK)).pet?.['name']).toBe('x');
    expect((await post(server, '{"name":"x","categoryId":1')).status).toBe(400);
    expect((await post(server, '{"name":"}{","categoryId":1}]')).pet?.['name']).toBe('}{');
    expect(names(server)).toEqual(['x', 'x', '}{']);
  });

  it('every value stored, then the body refused', async () => {
    const server = await serverOf('json-values-stored-then-refused');
    expect((await post(server, BACK_TO_BACK)).status).toBe(400);
    expect((await post(server, TRAILING)).status).toBe(400);
    expect((await post(server, '{"name":3,"categoryId":1}')).status).toBe(400);
    expect(names(server)).toEqual(['x', 'y', 'x']);
  });

  it('conforming: a member named like a field in another case refused, or kept as an extra field', async () => {
    const refusing = await serverOf('member-names-in-other-case-refused');
    expect((await post(refusing, BESIDE)).status).toBe(400);
    expect((await post(refusing, CASE_ONLY)).status).toBe(400);
    expect((await post(refusing, '{"name":"a","categoryId":1}')).status).toBe(201);
    const keeping = await serverOf('other-members-stored');
    expect((await post(keeping, BESIDE)).pet).toMatchObject({ name: 'a', Name: 'b' });
  });

  it('the 201 and the store each named by another member: the one that the fetch shows differs from the 201', async () => {
    const echoOther = await serverOf('echo-named-by-other-case-member');
    const echoed = await post(echoOther, BESIDE);
    expect(echoed.pet?.['name']).toBe('b');
    expect((await send(echoOther, 'GET', `/pets/${String(echoed.pet?.['id'])}`)).pet?.['name']).toBe('a');
    const storeOther = await serverOf('stored-name-from-other-case-member');
    const stored = await post(storeOther, BESIDE);
    expect(stored.pet?.['name']).toBe('a');
    expect((await send(storeOther, 'GET', `/pets/${String(stored.pet?.['id'])}`)).pet?.['name']).toBe('b');
    expect((await post(storeOther, '{"name":"c","categoryId":1}')).pet?.['name']).toBe('c');
  });
});
