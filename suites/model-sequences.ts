/**
 * Model-based sequences of listPets, createPet and getPet (src/conformance/sequence.ts), with a
 * model of the pets the sequence created: each command compares what the target answers with
 * what the model says must hold on any conforming server, shared or not.
 *
 * - createPet: the 201's id is new: no pet of the sequence has it, and neither did any pet the
 *   store showed before (the census and every response since) - PET-002.
 * - getPet of a pet the sequence created: 200 and the pet as its 201 showed it - CREATE-002.
 * - listPets (limit=100, filtered by a status or not): a filtered page holds only that status
 *   (LIST-005); any of the sequence's pets it shows is shown as created (CREATE-002); a page with
 *   room left (fewer than 100) shows every pet of the sequence it selects that a read has already
 *   shown since its creation (LIST-005 filtered, LIST-003 not), so that read-after-write lag the
 *   spec leaves room for is never taken for a lost pet.
 * Other clients' pets are facts of the store: no expectation is ever made of them.
 *
 * Every sequence starts from an empty model, so a failing one can be followed from its step 1 and
 * sent again by `replay`. The sequences are run once per run, by the first test that needs their
 * verdict (CREATE-002, LIST-003, LIST-005 or PET-002), and each records its own findings.
 */
import fc from 'fast-check';
import type { RequirementRun } from '../src/conformance/requirement-test.js';
import { runSequences, sequenceSummary, type SequenceDriver, type SequenceOp, type SequenceOutcome, type StepReport } from '../src/conformance/sequence.js';
import { deriveSeed } from '../src/conformance/seed.js';
import { jsonBody } from '../src/checks/body.js';
import { shownOnlyBy, violation, type Finding } from '../src/checks/finding.js';
import { checkAllHaveStatus, checkShowsCreated } from '../src/checks/list-page.js';
import { idKey, petsOf } from '../src/checks/pet-shape.js';
import { excerpt } from '../src/checks/text.js';
import type { Exchange } from '../src/http/exchange.js';
import { isJsonObject, stringifyJson, type JsonObject } from '../src/interface/json.js';
import { listLimits, statusValues, type PetStatus } from '../src/interface/openapi.js';
import { newPetBody, validNewPet, type NewPetInput } from '../src/arbitraries/newPet.js';
import { validStatus } from '../src/arbitraries/statusFilter.js';
import { MARKER_SLOT, withMarker } from '../src/arbitraries/marker.js';
import { SEQUENCE_COMMANDS, SEQUENCE_CREATES } from '../src/session/budget-plan.js';
import type { SequenceCommand } from '../src/report/types.js';
import { fetchCreated, petDifferences } from './fetch-pet.js';
import { SharedKey } from '../src/session/shared-results.js';

/** The requirements the sequences judge, each recording its own findings. */
export const SEQUENCE_REQUIREMENTS = ['PET-002', 'CREATE-002', 'LIST-003', 'LIST-005'] as const;

/** A pet the sequence created, as its 201 showed it. */
interface ModelPet {
  id: string;
  pet: JsonObject;
  /** The step that created it (from 1), and its exchange. */
  step: number;
  creation: Exchange;
  /** The seq of a read (getPet or a listing) that has shown it since its creation: from then on it must stay. */
  seenAt?: number;
}

interface PetModel {
  pets: ModelPet[];
  /** createPets sent, whatever their answer. */
  creates: number;
}

const PAGE = (): number => listLimits().max;
/** What shows a sequence's PET-002 finding: replay sends the sequence again, command by command. */
const SEQUENCE_SHOWS = 'the model-based sequence whose steps the report shows';
const MAX_SHOWN = 240;

function petText(pet: JsonObject): string {
  const shown: JsonObject = {};
  for (const field of ['id', 'name', 'categoryId', 'status']) if (pet[field] !== undefined) shown[field] = pet[field];
  return excerpt(stringifyJson(shown), MAX_SHOWN);
}

function sentText(ex: Exchange): string {
  const body = ex.request.body === undefined ? '' : ` ${excerpt(ex.request.body, MAX_SHOWN)}`;
  return `${ex.request.method} ${ex.request.target}${body}`;
}

function receivedText(ex: Exchange): string {
  if (ex.response === undefined) return `no response (${ex.error?.code ?? 'error'})`;
  return `${ex.response.status} ${excerpt(ex.response.bodyText.replace(/\s+/g, ' '), MAX_SHOWN)}`.trimEnd();
}

const named = (p: ModelPet): string => `pet ${p.id} (created in step ${p.step})`;

/** The model as report.html shows it beside each step: every pet of the sequence, as created, and whether a read has shown it since. */
function modelLines(model: Readonly<PetModel>): string[] {
  return model.pets.map((p) => `${named(p)}: ${petText(p.pet)}; ${p.seenAt === undefined ? 'no read has shown it yet' : `shown by exchange #${p.seenAt}, so it must stay`}`);
}

class CreatePet implements SequenceOp<PetModel> {
  constructor(readonly input: NewPetInput) {}

  check(model: Readonly<PetModel>): boolean {
    return model.creates < SEQUENCE_CREATES;
  }

  async run(model: PetModel, driver: SequenceDriver): Promise<void> {
    model.creates += 1;
    const { session } = driver.test;
    // Every id a response has shown so far (the census's among them) belongs to a pet that existed before this creation.
    const heldBefore = new Set(session.store.knownPets.keys());
    const input: NewPetInput = { ...this.input, name: withMarker(this.input.name, session.store.probes.next()) };
    const ex = await driver.send({ method: 'POST', path: '/pets', body: newPetBody(input), contentType: 'application/json' });
    const step = driver.steps.length + 1;
    const body = ex.response?.status === 201 ? jsonBody(ex) : undefined;
    const pet = body?.ok === true && isJsonObject(body.value) ? body.value : undefined;
    const id = pet === undefined ? undefined : idKey(pet['id']);
    const findings: Finding[] = [];
    const expected = `201 and the created Pet, with an id no pet had before: none of the ${heldBefore.size} ids earlier responses showed${model.pets.length > 0 ? ' nor one this sequence created' : ''} (a refusal is CREATE-001's to judge, and adds nothing to the model)`;
    if (pet !== undefined && id !== undefined) {
      session.store.recordCreated(pet, ex);
      const twin = model.pets.find((p) => p.id === id);
      if (twin !== undefined) findings.push(shownOnlyBy(violation('PET-002', `Received id ${id} for a new pet / Expected a new unique id (step ${twin.step}'s creation already returned it)`, ex.seq), SEQUENCE_SHOWS));
      else if (heldBefore.has(id)) {
        findings.push(shownOnlyBy(violation('PET-002', `Received id ${id} for a new pet / Expected an id no pet held before: a response before this creation showed a pet ${id}`, ex.seq), SEQUENCE_SHOWS));
      }
      model.pets.push({ id, pet, step, creation: ex });
    }
    const report: StepReport = {
      operation: 'createPet',
      command: { op: 'createPet', name: this.input.name, categoryId: this.input.categoryId.toString(), ...(this.input.status === undefined ? {} : { status: this.input.status }) },
      sent: sentText(ex),
      received: receivedText(ex),
      expected,
      exchanges: [ex],
      findings,
      model: modelLines(model),
    };
    driver.record(report);
  }

  toString(): string {
    return `createPet(${petText({ name: this.input.name, categoryId: this.input.categoryId, ...(this.input.status === undefined ? {} : { status: this.input.status }) })})`;
  }
}

class GetPet implements SequenceOp<PetModel> {
  /** `pick` chooses among the pets created so far (modulo their number), so every generated getPet can run. */
  constructor(readonly pick: number) {}

  check(model: Readonly<PetModel>): boolean {
    return model.pets.length > 0;
  }

  async run(model: PetModel, driver: SequenceDriver): Promise<void> {
    const index = this.pick % model.pets.length;
    const target = model.pets[index];
    if (target === undefined) return;
    // Through CREATE-002's own fetch, so a read-after-write lag the spec leaves room for is allowed here as there.
    const { exchanges, findings, found } = await fetchCreated(
      driver.test,
      { pet: target.pet, creation: target.creation, ...(target.seenAt === undefined ? {} : { seenAt: target.seenAt }) },
      (request) => driver.send(request),
    );
    const last = exchanges.at(-1);
    const fetched = last === undefined ? undefined : petsOf(last)[0];
    if (found && last !== undefined && fetched !== undefined && idKey(fetched['id']) === target.id) target.seenAt ??= last.seq;
    driver.record({
      operation: 'getPet',
      command: { op: 'getPet', pet: index },
      sent: last === undefined ? `GET /pets/${target.id}` : sentText(last),
      received: exchanges.map(receivedText).join('; then '),
      expected: `200 and ${named(target)} as its creation returned it: ${petText(target.pet)}`,
      exchanges,
      findings,
      model: modelLines(model),
    });
  }

  toString(): string {
    return `getPet(created pet #${this.pick})`;
  }
}

class ListPets implements SequenceOp<PetModel> {
  constructor(readonly status: PetStatus | undefined) {}

  check(): boolean {
    return true;
  }

  async run(model: PetModel, driver: SequenceDriver): Promise<void> {
    const limit = PAGE();
    const query: Array<[string, string]> = [...(this.status === undefined ? [] : [['status', this.status] as [string, string]]), ['limit', String(limit)]];
    const ex = await driver.send({ method: 'GET', path: '/pets', query });
    const listed = new Map(petsOf(ex).flatMap((pet) => {
      const id = idKey(pet['id']);
      return id === undefined ? [] : [[id, pet] as const];
    }));
    const selects = (p: ModelPet): boolean => this.status === undefined || p.pet['status'] === this.status;
    // Judged before this listing marks anything seen: only a read before it makes a pet required here.
    const required = model.pets.filter((p) => p.seenAt !== undefined && selects(p));
    const findings: Finding[] = [];
    if (this.status !== undefined) findings.push(...checkAllHaveStatus(ex, this.status, 'LIST-005'));
    for (const p of model.pets) {
      const shown = listed.get(p.id);
      if (shown === undefined) continue;
      p.seenAt ??= ex.seq;
      for (const d of petDifferences(shown, p.pet)) findings.push(violation('CREATE-002', `The listing shows ${named(p)} other than its creation returned it: ${d}`, ex.seq));
    }
    findings.push(
      ...checkShowsCreated(ex, {
        requirement: this.status === undefined ? 'LIST-003' : 'LIST-005',
        ...(this.status === undefined ? {} : { status: this.status }),
        limit,
        created: required.map((p) => p.pet),
        known: 'created by this sequence and already shown by a read',
      }),
    );
    driver.record({
      operation: 'listPets',
      command: { op: 'listPets', ...(this.status === undefined ? {} : { status: this.status }) },
      sent: sentText(ex),
      received: this.#received(ex, model, listed),
      expected: this.#expected(model, required),
      exchanges: [ex],
      findings,
      model: modelLines(model),
    });
  }

  #received(ex: Exchange, model: PetModel, listed: ReadonlyMap<string, JsonObject>): string {
    if (ex.response?.status !== 200) return receivedText(ex);
    const ours = model.pets.map((p) => {
      const shown = listed.get(p.id);
      return shown === undefined ? `not pet ${p.id}` : `pet ${p.id} as ${petText(shown)}`;
    });
    return `200: ${listed.size} pets${ours.length === 0 ? '' : `, among them ${ours.join('; ')}`}`;
  }

  #expected(model: PetModel, required: readonly ModelPet[]): string {
    const parts = [this.status === undefined ? '200 and a page of at most 100 pets' : `200 and only pets with status "${this.status}"`];
    if (model.pets.length > 0) parts.push(`any pet of this sequence shown as created (${model.pets.map((p) => petText(p.pet)).join('; ')})`);
    if (required.length > 0) parts.push(`with room left (fewer than ${PAGE()} pets), ${required.map(named).join(', ')}, already shown by a read`);
    return parts.join('; ');
  }

  toString(): string {
    return `listPets(${this.status === undefined ? 'limit=100' : `status=${this.status}, limit=100`})`;
  }
}

/** A name long enough for a store or a view that cuts names short to show it, with a marker slot. */
const SEQUENCE_NAME = `${MARKER_SLOT}model-sequence Ünïcödé 🐕‍🦺 名前 read after write, then again`.normalize('NFC');

/**
 * The sequence every run with room for sequences sends first: create a pet of the status the
 * store holds least of (so its filtered page has room), read it back twice, and list its status
 * and the whole store around it - the read-after-write patterns a stale cache or index breaks.
 */
function fixedSequences(status: PetStatus, categoryId: bigint): Array<{ label: string; commands: SequenceOp<PetModel>[] }> {
  return [
    {
      label: 'read-after-write',
      commands: [
        new ListPets(status),
        new CreatePet({ name: SEQUENCE_NAME, categoryId, status }),
        new GetPet(0),
        new ListPets(status),
        new GetPet(0),
        new ListPets(undefined),
      ],
    },
  ];
}

/** The status the store shows least of (the first such in the enumeration's order). */
function scarcestStatus(pets: readonly JsonObject[]): PetStatus {
  const statuses = statusValues();
  const count = (s: string): number => pets.filter((p) => p['status'] === s).length;
  return statuses.reduce((a, b) => (count(b) < count(a) ? b : a), statuses[0] ?? 'available');
}

function fromRecord(record: SequenceCommand): SequenceOp<PetModel> {
  switch (record.op) {
    case 'createPet':
      return new CreatePet({ name: record.name, categoryId: BigInt(record.categoryId), ...(record.status === undefined ? {} : { status: record.status }) });
    case 'getPet':
      return new GetPet(record.pet);
    case 'listPets':
      return new ListPets(record.status);
  }
}

/** A replay entry of the run's configuration that carries a sequence, whichever requirement it is under. */
function replayedSequence(t: RequirementRun): SequenceCommand[] | undefined {
  return Object.values(t.session.config.replay ?? {}).find((entry) => entry.sequence !== undefined)?.sequence;
}

interface SequencesRun {
  outcome: SequenceOutcome;
  examples: number;
}

/** The sequences run once, by the first of SEQUENCE_REQUIREMENTS to ask. */
const MODEL_SEQUENCES = new SharedKey<SequencesRun>('the model-based sequences');

async function runModelSequences(t: RequirementRun): Promise<SequencesRun> {
  const { session } = t;
  const replay = replayedSequence(t);
  const seed = deriveSeed(session.config.seed, 'model-sequences');
  const plan = await session.plan();
  if (replay === undefined && plan.sequences === 0) return { outcome: { findings: [], sequences: 0, steps: 0, seed }, examples: 0 };
  // Every pet any response has shown (the census's among them): known without another request.
  const known = [...session.store.knownPets.values()];
  const shown = session.store.shownCategoryIds(known);
  const categoryIds = [...new Set(shown)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // The first pet the store showed names a category it surely holds (CREATE-001 may have added int64's ends).
  const examples = fixedSequences(scarcestStatus(known), shown[0] ?? 1n);
  const outcome = await runSequences<PetModel>(t, {
    model: () => ({ pets: [], creates: 0 }),
    commands: [
      validNewPet({ categoryIds }).map((input) => new CreatePet(input)),
      fc.nat().map((pick) => new GetPet(pick)),
      fc.option(validStatus(), { nil: undefined }).map((status) => new ListPets(status)),
    ],
    maxCommands: SEQUENCE_COMMANDS,
    examples,
    fromRecord,
    sequences: plan.sequences,
    seed,
    ...(replay === undefined ? {} : { replay }),
    judged: (requirement) => session.isSelected(requirement),
  });
  session.store.storeWritten();
  return { outcome, examples: examples.length };
}

/**
 * The sequences' verdict on the calling requirement: its violations (from the failing sequence)
 * recorded, the failing sequence's steps noted when it broke this requirement, and what was run
 * as an observation. The sequences run once, in the first test that asks.
 */
export async function judgeSequences(t: RequirementRun): Promise<void> {
  if (t.session.config.readOnly) return;
  const { outcome, examples } = await t.session.shared.once(MODEL_SEQUENCES, () => runModelSequences(t));
  if (outcome.sequences === 0) return;
  t.record(outcome.findings.filter((f) => f.requirement === t.id));
  if (outcome.failure?.requirement === t.id) t.noteSequence(outcome.failure.record);
  t.observe(sequenceSummary(outcome, examples));
  // Replaying this requirement's failing sequence: one that could not be followed or finished says nothing of the fix.
  const unfinished = outcome.unfollowed ?? outcome.stopped;
  if (unfinished !== undefined && outcome.failure === undefined && t.session.config.replay?.[t.id]?.sequence !== undefined) {
    t.inconclusive(`the replayed sequence could not be followed: ${unfinished}`);
  }
}
