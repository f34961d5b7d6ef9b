import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { quartzCronProblem } from '../src/resources/quartz-cron.ts';

describe('Quartz cron expressions', () => {
  it('accepts what Quartz reads, in six or seven fields', () => {
    for (const expression of [
      // What Terrakube's web UI writes from its editor's default, "* * * * *".
      '0 * * ? * * *',
      '0 0 12 * * ?',
      '0 15 10 ? * *',
      '0 15 10 * * ? 2005',
      '0 0/5 14,18 * * ?',
      '0 0-5 14 * * ?',
      '0 10,44 14 ? 3 WED',
      '0 15 10 ? * MON-FRI',
      '0 15 10 L * ?',
      '0 15 10 L-2 * ?',
      '0 15 10 LW * ?',
      '0 15 10 15W * ?',
      '0 15 10 ? * 6L',
      '0 15 10 ? * FRIL 2002-2005',
      '0 15 10 ? * 6#3',
      '0 15 10 ? * MON#2',
      '0 0 12 1/5 * ?',
      '0 11 11 11 11 ?',
      '*/15 * * ? JAN-DEC SUN *',
      '0 0 22-2 ? * *',
      '  0   0 12 * * ?  ',
      '0 0 12 ? * mon-fri',
    ]) {
      assert.equal(quartzCronProblem(expression), undefined, expression);
    }
  });

  it('says what is wrong with anything else, naming the field', () => {
    const cases: [string, RegExp][] = [
      ['', /0 fields/],
      ['* * * * *', /5 fields; Quartz takes 6 or 7/],
      ['0 0 12 * * ? 2020 extra', /8 fields/],
      ['60 * * ? * *', /field 1 \(seconds\) "60": 60 is not from 0 to 59/],
      ['0 0 24 ? * *', /field 3 \(hours\).*24 is not from 0 to 23/],
      ['0 0 12 32 * ?', /field 4 \(day-of-month\).*32 is not from 1 to 31/],
      ['0 0 12 0 * ?', /field 4 \(day-of-month\).*0 is not from 1 to 31/],
      ['0 0 12 ? 13 *', /field 5 \(month\).*13 is not from 1 to 12/],
      ['0 0 12 ? FOO *', /field 5 \(month\).*"FOO" is not a number or one of JAN/],
      ['0 0 12 ? * 8', /field 6 \(day-of-week\).*8 is not from 1 to 7/],
      ['0 0 12 ? * * 1969', /field 7 \(year\).*1969 is not from 1970 to 2199/],
      ['? 0 12 * * *', /field 1 \(seconds\).*"\?" is only for day-of-month or day-of-week/],
      ['0 0 12 * * *', /one of day-of-month and day-of-week must be "\?"/],
      ['0 0 12 1 * MON', /must be "\?"/],
      ['0 0 12 ? * ?', /only one of day-of-month and day-of-week may be "\?"/],
      ['0 0/0 12 ? * *', /field 2 \(minutes\).*the step is from 1 to 60/],
      ['0 0/61 12 ? * *', /the step is from 1 to 60/],
      ['0 0/x 12 ? * *', /the step "x" is not a number/i],
      ['0 0/5/2 12 ? * *', /more than one "\/"/],
      ['0 1-2-3 12 ? * *', /"1-2-3" is not a value or a range/],
      ['0 1,,2 12 ? * *', /a list has an empty element/],
      ['0 0 12 L,15 * ?', /"L" cannot be part of a list/],
      ['0 0 12 L-31 * ?', /offset from the last day is at most 30/],
      ['0 0 12 32W * ?', /32 is not from 1 to 31/],
      ['0 0 12 W * ?', /L and W take the forms/],
      ['0 0 12 ? * 6#6', /the week after # is from 1 to 5/],
      ['0 0 12 ? * 6#2,MON', /"6#2" cannot be part of a list/],
      ['0 0 12 ? * 9L', /9 is not from 1 to 7/],
      ['0 0 12 ? * L#2', /L and # take the forms/],
      ['0 0 12 ? * -1', /"" is not a number/],
      ['0 0 12 15L * ?', /L and W take the forms/],
    ];
    for (const [expression, problem] of cases) assert.match(quartzCronProblem(expression) ?? 'accepted', problem, expression);
  });
});
