import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { ResponseMemory } from '../src/engine/response-memory.ts';
import { ApiError } from '../src/errors.ts';
import { assertError, createOrganization, createTemplate, describeEachStore } from './harness.ts';

/** A template language text of about `kib` KiB, as clients send it (base64). */
const bigTcl = (kib: number) => randomBytes(Math.floor((kib * 1024 * 3) / 4)).toString('base64');

describeEachStore(
  'answers within a memory budget',
  { env: { STRATUM_RESPONSE_MAX_MIB: '1', STRATUM_RESPONSE_MEMORY_MIB: '2' } },
  (context) => {
    let organization: string;
    const templates = () => `/api/v1/organization/${organization}/template`;
    before(async () => {
      organization = await createOrganization(context.server);
      // Eight templates of 200 KiB, besides the three small defaults: about 1.6 MiB in all.
      for (let i = 0; i < 8; i++) await createTemplate(context.server, organization, { name: `big-${i}`, tcl: bigTcl(200) });
    });

    it('refuses an include larger than one answer may hold, and says to page instead', async () => {
      const errors = assertError(await context.server.get(`/api/v1/organization/${organization}?include=template`), 400);
      const error = errors[0] as { code?: string; detail: string; source?: { parameter?: string } };
      assert.equal(error.source?.parameter, 'include');
      assert.match(error.detail, /MiB.*page/);
      assert.equal((await context.server.get(`/api/v1/organization/${organization}?include=team`)).status, 200);
    });

    it('refuses a page larger than one answer may hold, and serves every record a smaller page at a time', async () => {
      const refused = assertError(await context.server.get(templates()), 400);
      assert.equal((refused[0] as { source?: { parameter?: string } }).source?.parameter, 'page');
      const seen: string[] = [];
      for (let number = 1; number <= 4; number++) {
        const page = await context.server.get(`${templates()}?page[number]=${number}&page[size]=3&fields[template]=name`);
        assert.equal(page.status, 200, page.text);
        seen.push(...page.body.data.map((t: { attributes: { name: string } }) => t.attributes.name));
      }
      assert.equal(seen.length, 11);
      assert.equal(seen.filter((name) => name.startsWith('big-')).length, 8);
    });

    it('builds concurrent answers in turn when together they would hold more than the total, and answers all of them', async () => {
      const reads = Array.from({ length: 16 }, (_, i) => context.server.get(`${templates()}?page[number]=${(i % 3) + 2}&page[size]=4`));
      const answers = await Promise.all(reads);
      for (const answer of answers) assert.equal(answer.status, 200, answer.text);
      assert.equal((await context.server.get('/healthz', { token: null })).status, 200);
    });
  },
);

describe('the memory of answers being built', () => {
  it('makes a read wait while others hold the total, and lets waiting reads in, in order, as memory is given back', async () => {
    const memory = new ResponseMemory(100, 150);
    const order: string[] = [];
    const first = memory.budget();
    await first.reserve(100, () => new ApiError(400, { code: 'x', detail: 'x' }));
    const second = memory.budget();
    const third = memory.budget();
    const refusal = () => new ApiError(400, { code: 'x', detail: 'x' });
    const waiting = [
      second.reserve(80, refusal).then(() => order.push('second')),
      third.reserve(30, refusal).then(() => order.push('third')),
    ];
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, [], 'both wait: the second does not fit, and the third does not pass it');
    first.close();
    await Promise.all(waiting);
    assert.deepEqual(order, ['second', 'third']);
    await assert.rejects(memory.budget().reserve(101, refusal), ApiError);
  });

  it('refuses at once the answer that would complete a circle of answers each waiting for memory another holds, and lets the others go on', async () => {
    const memory = new ResponseMemory(100, 150);
    const refusal = () => new ApiError(400, { code: 'x', detail: 'x' });
    const first = memory.budget();
    const second = memory.budget();
    await first.reserve(80, refusal);
    await second.reserve(60, refusal);
    const firstMore = first.reserve(15, refusal);
    let firstGot = false;
    void firstMore.then(() => (firstGot = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(firstGot, false, 'the first waits: the second still runs, and will give its memory back');
    // The second now waits too: neither could finish, so it is refused without waiting.
    await assert.rejects(second.reserve(15, refusal), (error: ApiError) => error.status === 503 && error.problems[0]?.code === 'busy');
    second.close();
    await firstMore;
    // An answer holding nothing waits, whatever the others do.
    const third = memory.budget();
    const waiting = third.reserve(60, refusal);
    let thirdGot = false;
    void waiting.then(() => (thirdGot = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(thirdGot, false);
    first.close();
    await waiting;
    third.close();
  });

  it('counts reservations of one answer made together against its limit at once, so they cannot pass it together while they wait', async () => {
    const memory = new ResponseMemory(100, 1000);
    const budget = memory.budget();
    const refusal = () => new ApiError(400, { code: 'too_large', detail: 'x' });
    const [one, two] = await Promise.allSettled([budget.reserve(60, refusal), budget.reserve(60, refusal)]);
    assert.equal(one.status, 'fulfilled');
    assert.equal(two.status, 'rejected');
    assert.equal(budget.remaining, 40);
  });

  it('counts records placed in an answer beyond what their load reserved: once more for each placement after the first', async () => {
    const memory = new ResponseMemory(10_000, 10_000);
    const budget = memory.budget();
    const refusal = () => new ApiError(400, { code: 'too_large', detail: 'x' });
    const rows = [{ id: 'a'.repeat(44) }, { id: 'b'.repeat(44) }];
    // What the rows' load reserved: 256 bytes a row besides their text.
    await budget.reserve(600, refusal);
    await budget.reservePlacement(rows, 700, () => refusal());
    assert.equal(budget.remaining, 10_000 - 600 - 100, 'their first placement counts beyond the rows only');
    await budget.reservePlacement(rows, 700, () => refusal());
    assert.equal(budget.remaining, 10_000 - 600 - 100 - 700, 'placed again: counted in full');
    await budget.reservePlacement([{ id: 'c'.repeat(44) }], 200, () => refusal());
    assert.equal(budget.remaining, 10_000 - 600 - 100 - 700, 'a new row placed within its own size adds nothing');
    await assert.rejects(
      budget.reservePlacement(rows, 9_000, () => refusal()),
      /x/,
    );
  });
});
