import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { QuartzExpressionError } from '../src/quartz/expression.ts';
import { nextFireTime } from '../src/quartz/schedule.ts';
import { firstMatchBySecond, randomPlainExpression } from './quartz-reference.ts';
import { Random, readSeed } from './seeded-random.ts';

/** The next `count` firing times after `after`, each found from the one before, as ISO strings (undefined once it stops). */
function fires(expression: string, after: string, count = 1): (string | undefined)[] {
  const times: (string | undefined)[] = [];
  let from: Date | undefined = new Date(after);
  for (let index = 0; index < count; index++) {
    from = from === undefined ? undefined : nextFireTime(expression, from);
    times.push(from?.toISOString());
  }
  return times;
}

/** Midnight UTC of each date, in ISO form. */
const midnights = (...dates: string[]): string[] => dates.map((date) => `${date}T00:00:00.000Z`);

describe('The next firing time of a Quartz cron expression', () => {
  it('is strictly after the given time, to the whole second', () => {
    assert.deepEqual(fires('0 0 12 * * ?', '2026-03-10T12:00:00.000Z'), ['2026-03-11T12:00:00.000Z']);
    assert.deepEqual(fires('0 0 12 * * ?', '2026-03-10T11:59:59.999Z'), ['2026-03-10T12:00:00.000Z']);
    assert.deepEqual(fires('* * * ? * *', '2026-03-10T10:00:00.500Z', 2), ['2026-03-10T10:00:01.000Z', '2026-03-10T10:00:02.000Z']);
    assert.equal(nextFireTime('* * * ? * *', new Date('2026-03-10T10:00:00.999Z'))?.getUTCMilliseconds(), 0);
  });

  it('rolls seconds into minutes, hours, days, months and years', () => {
    assert.deepEqual(fires('0/20 * * ? * *', '2026-03-10T10:00:40Z', 2), ['2026-03-10T10:01:00.000Z', '2026-03-10T10:01:20.000Z']);
    assert.deepEqual(fires('30 59 23 * * ?', '2026-12-31T23:59:30Z'), ['2027-01-01T23:59:30.000Z']);
    assert.deepEqual(fires('0 0 0 * * ?', '2026-12-31T23:59:59Z'), midnights('2027-01-01'));
    assert.deepEqual(fires('0 0 0 1 * ?', '2026-02-15T08:00:00Z', 2), midnights('2026-03-01', '2026-04-01'));
    assert.deepEqual(fires('0 0/5 14,18 * * ?', '2026-03-10T14:50:00Z', 3), [
      '2026-03-10T14:55:00.000Z',
      '2026-03-10T18:00:00.000Z',
      '2026-03-10T18:05:00.000Z',
    ]);
    assert.deepEqual(fires('15 10 9 ? * *', '2026-03-10T09:10:16Z'), ['2026-03-11T09:10:15.000Z']);
  });

  it('takes steps from a start, from the first value, and within a range', () => {
    const seconds = fires('5/15 0 0 * * ?', '2026-03-10T00:00:00Z', 5).map((time) => time?.slice(11, 19));
    assert.deepEqual(seconds, ['00:00:05', '00:00:20', '00:00:35', '00:00:50', '00:00:05']);
    assert.deepEqual(fires('0 10-30/10 14 * * ?', '2026-03-10T14:00:00Z', 4), [
      '2026-03-10T14:10:00.000Z',
      '2026-03-10T14:20:00.000Z',
      '2026-03-10T14:30:00.000Z',
      '2026-03-11T14:10:00.000Z',
    ]);
    // A start with a step walks to the end of the field: 22/3 is 22 alone.
    assert.deepEqual(fires('0 0 22/3 * * ?', '2026-01-01T23:00:00Z'), ['2026-01-02T22:00:00.000Z']);
    const days = midnights('2026-01-31', '2026-02-01', '2026-02-11', '2026-02-21', '2026-03-01');
    assert.deepEqual(fires('0 0 0 1/10 * ?', '2026-01-25T00:00:00Z', 5), days);
    assert.deepEqual(fires('0 0 0 ? * */3', '2026-01-01T00:00:00Z', 3), midnights('2026-01-03', '2026-01-04', '2026-01-07'));
    assert.deepEqual(fires('0 0 0 1 1 ? */50', '2026-06-01T00:00:00Z', 2), midnights('2070-01-01', '2120-01-01'));
  });

  it('reads lists and names in any case', () => {
    assert.deepEqual(fires('0 0 9 ? jan,Jul mon', '2026-01-01T00:00:00Z'), ['2026-01-05T09:00:00.000Z']);
    assert.deepEqual(fires('0 0 9 ? jan,Jul mon', '2026-02-01T00:00:00Z'), ['2026-07-06T09:00:00.000Z']);
    assert.deepEqual(fires('0 0 12 ? * 2,4,sat', '2026-01-01T00:00:00Z', 3), [
      '2026-01-03T12:00:00.000Z',
      '2026-01-05T12:00:00.000Z',
      '2026-01-07T12:00:00.000Z',
    ]);
  });

  it('wraps a range whose end comes before its start, as Quartz does', () => {
    const hours = ['2026-12-31T22', '2026-12-31T23', '2027-01-01T00', '2027-01-01T01', '2027-01-01T02', '2027-01-01T22'];
    assert.deepEqual(
      fires('0 0 22-2 ? * *', '2026-12-31T21:30:00Z', 6),
      hours.map((hour) => `${hour}:00:00.000Z`),
    );
    const weekend = midnights('2026-01-02', '2026-01-03', '2026-01-04', '2026-01-05', '2026-01-09');
    assert.deepEqual(fires('0 0 0 ? * FRI-MON', '2026-01-01T00:00:00Z', 5), weekend);
    assert.deepEqual(fires('0 0 0 ? * 6-2', '2026-01-01T00:00:00Z', 5), weekend);
    const winter = midnights('2026-11-01', '2026-12-01', '2027-01-01', '2027-02-01', '2027-11-01');
    assert.deepEqual(fires('0 0 0 1 NOV-FEB ?', '2026-03-01T00:00:00Z', 5), winter);
    const turn = midnights('2026-02-02', '2026-03-01', '2026-03-02', '2026-03-30', '2026-03-31', '2026-04-01');
    assert.deepEqual(fires('0 0 0 30-2 * ?', '2026-02-01T00:00:00Z', 6), turn);
    const seconds = fires('50-10/5 * * ? * *', '2026-03-10T11:59:47Z', 6).map((time) => time?.slice(14, 19));
    assert.deepEqual(seconds, ['59:50', '59:55', '00:00', '00:05', '00:10', '00:50']);
  });

  it('ignores a step after a name, as Quartz does', () => {
    assert.deepEqual(fires('0 0 0 1 JAN/3 ?', '2026-01-02T00:00:00Z'), midnights('2027-01-01'));
    const weekdays = ['2026-01-01T12', '2026-01-02T12', '2026-01-05T12'].map((hour) => `${hour}:00:00.000Z`);
    assert.deepEqual(fires('0 0 12 ? * MON-FRI/2', '2025-12-31T12:00:00Z', 3), weekdays);
    const stepped = ['2026-01-02T12', '2026-01-05T12', '2026-01-07T12'].map((hour) => `${hour}:00:00.000Z`);
    assert.deepEqual(fires('0 0 12 ? * 2-6/2', '2025-12-31T12:00:00Z', 3), stepped);
  });

  it('fires on the 29th of February in leap years only', () => {
    assert.deepEqual(fires('0 0 0 29 2 ?', '2025-03-01T00:00:00Z', 2), midnights('2028-02-29', '2032-02-29'));
    // 2100 is not a leap year: divisible by 100 and not by 400.
    assert.deepEqual(fires('0 0 0 29 FEB ?', '2096-03-01T00:00:00Z'), midnights('2104-02-29'));
    assert.deepEqual(fires('0 0 0 L 2 ?', '2027-03-01T00:00:00Z', 2), midnights('2028-02-29', '2029-02-28'));
  });

  it('takes the last day of the month, and days before it, with L and L-n', () => {
    const last = midnights('2027-01-31', '2027-02-28', '2027-03-31', '2027-04-30');
    assert.deepEqual(fires('0 0 0 L * ?', '2027-01-15T00:00:00Z', 4), last);
    assert.deepEqual(fires('0 0 0 L-2 * ?', '2027-01-15T00:00:00Z', 3), midnights('2027-01-29', '2027-02-26', '2027-03-29'));
    // L-30 is the 1st of a 31-day month, and no day of a shorter one.
    assert.deepEqual(fires('0 0 0 L-30 * ?', '2027-01-02T00:00:00Z', 2), midnights('2027-03-01', '2027-05-01'));
  });

  it('takes the weekday nearest a day within its month with nW and LW', () => {
    // Saturday 1 August 2026 moves on to Monday the 3rd, not back into July; also when asked on the 2nd.
    assert.deepEqual(fires('0 0 0 1W * ?', '2026-07-05T00:00:00Z'), midnights('2026-08-03'));
    assert.deepEqual(fires('0 0 0 1W * ?', '2026-08-02T00:00:00Z'), midnights('2026-08-03'));
    assert.deepEqual(fires('0 0 0 1W * ?', '2026-01-15T00:00:00Z'), midnights('2026-02-02'));
    // Sunday 31 May 2026 moves back to Friday the 29th; June has no 31st; Saturday 31 October moves to the 30th.
    const thirtyFirst = midnights('2026-05-29', '2026-07-31', '2026-08-31', '2026-10-30');
    assert.deepEqual(fires('0 0 0 31W * ?', '2026-05-01T00:00:00Z', 4), thirtyFirst);
    // Saturday 15 August 2026 moves to Friday the 14th, Sunday 15 November to Monday the 16th.
    assert.deepEqual(fires('0 0 0 15W AUG,NOV ?', '2026-08-01T00:00:00Z', 2), midnights('2026-08-14', '2026-11-16'));
    // Once the 14th's firing time has passed, the next is in the next month, not on the 15th.
    assert.deepEqual(fires('0 0 9 15W AUG,NOV ?', '2026-08-14T10:00:00Z'), ['2026-11-16T09:00:00.000Z']);
    // Saturday 31 January 2026, Saturday 28 February, Sunday 31 May: the Friday before each.
    const lastWeekdays = midnights('2026-01-30', '2026-02-27', '2026-03-31', '2026-04-30', '2026-05-29');
    assert.deepEqual(fires('0 0 0 LW * ?', '2026-01-01T00:00:00Z', 5), lastWeekdays);
  });

  it('takes Saturday for L, the last of a weekday with nL, and the k-th with n#k', () => {
    assert.deepEqual(fires('0 0 0 ? * L', '2026-01-01T00:00:00Z', 2), midnights('2026-01-03', '2026-01-10'));
    const lastFridays = midnights('2026-01-30', '2026-02-27', '2026-03-27');
    assert.deepEqual(
      fires('0 15 10 ? * 6L', '2026-01-01T00:00:00Z', 3),
      lastFridays.map((day) => day.replace('00:00', '10:15')),
    );
    assert.deepEqual(fires('0 0 0 ? * FRIL', '2026-01-01T00:00:00Z'), midnights('2026-01-30'));
    assert.deepEqual(fires('0 0 0 ? * 1L', '2026-03-01T00:00:00Z'), midnights('2026-03-29'));
    assert.deepEqual(fires('0 0 0 ? * 6#3', '2026-01-01T00:00:00Z', 3), midnights('2026-01-16', '2026-02-20', '2026-03-20'));
    assert.deepEqual(fires('0 0 0 ? * sun#1', '2026-01-01T00:00:00Z', 2), midnights('2026-01-04', '2026-02-01'));
    // Only March, June, August and November of 2026 have a fifth Monday.
    const fifthMondays = midnights('2026-03-30', '2026-06-29', '2026-08-31', '2026-11-30');
    assert.deepEqual(fires('0 0 0 ? * MON#5', '2026-01-01T00:00:00Z', 4), fifthMondays);
    assert.deepEqual(fires('0 0 0 ? FEB MON#5', '2026-01-01T00:00:00Z'), midnights('2044-02-29'));
  });

  it('fires only in the years the year field takes, up to 2199', () => {
    const years = fires('0 0 0 1 1 ? 2030-2032', '2026-01-01T00:00:00Z', 4);
    assert.deepEqual(years, [...midnights('2030-01-01', '2031-01-01', '2032-01-01'), undefined]);
    assert.deepEqual(fires('0 0 0 * * ? 2020', '2026-01-01T00:00:00Z'), [undefined]);
    assert.deepEqual(fires('* * * ? * *', '2199-12-31T23:59:58.500Z', 2), ['2199-12-31T23:59:59.000Z', undefined]);
    assert.deepEqual(fires('0 0 0 1 1 ?', '1960-05-05T00:00:00Z'), midnights('1970-01-01'));
    // Quartz refuses a year range that runs backwards; one that gets this far never fires.
    assert.deepEqual(fires('0 0 0 * * ? 2032-2030', '2026-01-01T00:00:00Z'), [undefined]);
  });

  it('gives up on expressions that never fire again, quickly', () => {
    for (const expression of [
      '0 0 0 30 FEB ?',
      '0 0 0 31 APR,JUN,SEP,NOV ?',
      '0 0 0 30W 2 ?',
      '0 0 0 L-29 FEB ?',
      '0 0 0 ? FEB MON#5 2045-2071',
      '0 0 0 29 2 ? 2100',
    ]) {
      const started = performance.now();
      assert.equal(nextFireTime(expression, new Date('2026-01-01T00:00:00Z')), undefined, expression);
      assert.ok(performance.now() - started < 100, `${expression} took ${performance.now() - started} ms`);
    }
  });

  it('refuses what is not a Quartz cron expression, or not a date', () => {
    assert.throws(
      () => nextFireTime('* * * * *', new Date()),
      (error) => error instanceof QuartzExpressionError && /5 fields/.test(error.message),
    );
    assert.throws(() => nextFireTime('0 0 12 1 * MON', new Date()), QuartzExpressionError);
    assert.throws(() => nextFireTime('0 0 12 * * ?', new Date(Number.NaN)), RangeError);
  });

  it('takes well under a millisecond for a typical expression', () => {
    const expressions = ['0 0/5 14,18 * * ?', '0 15 10 ? * MON-FRI', '0 0 12 LW * ?', '0 15 10 ? * 6#3', '*/15 * * ? JAN-DEC SUN *'];
    const count = 2000;
    const started = performance.now();
    for (let index = 0; index < count; index++) {
      nextFireTime(expressions[index % expressions.length] ?? '', new Date(Date.UTC(2026, 0, 1) + index * 7_777_777));
    }
    const each = (performance.now() - started) / count;
    assert.ok(each < 0.5, `${each} ms each`);
  });

  it('agrees with a second-by-second search for random plain expressions', () => {
    const seed = readSeed();
    const random = new Random(seed);
    for (let round = 0; round < 150; round++) {
      const expression = randomPlainExpression(random);
      let after = new Date(
        Date.UTC(
          2020 + random.int(11),
          random.int(12),
          1 + random.int(31),
          random.int(24),
          random.int(60),
          random.int(60),
          random.int(1000),
        ),
      );
      const until = new Date(after.getTime() + 400 * 86_400_000);
      for (let step = 0; step < 3; step++) {
        const expected = firstMatchBySecond(expression, after, until);
        const actual = nextFireTime(expression, after);
        const context = `${expression} after ${after.toISOString()} (STRATUM_FUZZ_SEED=${seed})`;
        if (expected === undefined) {
          assert.ok(actual === undefined || actual > until, `${context}: ${actual?.toISOString()} comes before ${until.toISOString()}`);
          break;
        }
        assert.equal(actual?.toISOString(), expected.toISOString(), context);
        after = expected;
      }
    }
  });
});
