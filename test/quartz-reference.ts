import type { Random } from './seeded-random.ts';

/**
 * A second-by-second reading of Quartz cron expressions made of plain fields (values, ranges,
 * steps, lists, names; no L, W or #), to check the computation of firing times against. It reads
 * each term as a test on one value (is it in the range, on the step) rather than listing the values
 * a term takes, so it does not share the computation's way of getting them wrong.
 */

interface Shape {
  min: number;
  max: number;
  names?: readonly string[];
}

const months = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const weekDays = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];
const second: Shape = { min: 0, max: 59 };
const hour: Shape = { min: 0, max: 23 };
const dayOfMonth: Shape = { min: 1, max: 31 };
const month: Shape = { min: 1, max: 12, names: months };
const dayOfWeek: Shape = { min: 1, max: 7, names: weekDays };
const year: Shape = { min: 1970, max: 2199 };
const shapes = [second, second, hour, dayOfMonth, month, dayOfWeek, year];

/** Whether a field's text takes a value. A range whose end is before its start wraps around. */
function takes(text: string, value: number, shape: Shape): boolean {
  const size = shape.max - shape.min + 1;
  return text
    .toUpperCase()
    .split(',')
    .some((term) => {
      const [base = '', stepText] = term.split('/');
      const step = stepText === undefined ? 1 : Number(stepText);
      if (base === '*') return (value - shape.min) % step === 0;
      const [from = Number.NaN, to] = base.split('-').map((bound) => {
        const named = shape.names?.indexOf(bound) ?? -1;
        return named >= 0 ? named + 1 : Number(bound);
      });
      if (to === undefined) return stepText === undefined ? value === from : value >= from && (value - from) % step === 0;
      const offset = (value - from + size) % size;
      return offset <= (to - from + size) % size && offset % step === 0;
    });
}

/** Which values of its shape a field takes, by value; undefined for `?`. */
function table(text: string, shape: Shape): boolean[] | undefined {
  if (text === '?') return undefined;
  return Array.from({ length: shape.max + 1 }, (_, value) => value >= shape.min && takes(text, value, shape));
}

/**
 * The first second after `after`, up to `until`, that the expression takes: every second of every
 * day whose date the expression takes is tried in turn.
 */
export function firstMatchBySecond(expression: string, after: Date, until: Date): Date | undefined {
  const parts = expression.trim().split(/\s+/);
  if (parts.length === 6) parts.push('*');
  const [seconds, minutes, hours, days, monthsTaken, weekdays, years] = parts.map((part, index) => table(part, shapes[index] ?? second));
  const last = Math.floor(until.getTime() / 1000);
  let at = Math.floor(after.getTime() / 1000) + 1;
  while (at <= last) {
    const date = new Date(at * 1000);
    const dateTaken =
      years?.[date.getUTCFullYear()] === true &&
      monthsTaken?.[date.getUTCMonth() + 1] === true &&
      (days !== undefined ? days[date.getUTCDate()] === true : weekdays?.[date.getUTCDay() + 1] === true);
    const nextDay = (Math.floor(at / 86_400) + 1) * 86_400;
    if (dateTaken) {
      for (; at < nextDay && at <= last; at++) {
        const time = at % 86_400;
        if (seconds?.[time % 60] === true && minutes?.[Math.floor(time / 60) % 60] === true && hours?.[Math.floor(time / 3600)] === true) {
          return new Date(at * 1000);
        }
      }
    }
    at = nextDay;
  }
  return undefined;
}

/** A field of values, ranges (wrapping ones too), steps and lists, with names in either case. */
function randomField(random: Random, shape: Shape, near: [number, number] = [shape.min, shape.max]): string {
  if (random.chance(0.25)) return random.chance(0.5) ? '*' : `*/${1 + random.int(Math.ceil((shape.max - shape.min + 1) / 2))}`;
  const pick = (): number => near[0] + random.int(near[1] - near[0] + 1);
  const terms: string[] = [];
  for (let count = random.count(); count > 0; count--) {
    const step = 1 + random.int(Math.ceil((near[1] - near[0] + 1) / 3));
    let [from, to] = [pick(), pick()];
    // Quartz refuses a year range that runs backwards, and a range of a name and a number; it
    // reads no step after a name.
    if (shape === year && to < from) [from, to] = [to, from];
    const named = shape.names !== undefined && random.chance(0.4);
    const lower = random.chance(0.5);
    const spell = (value: number): string => {
      const name = named ? shape.names?.[value - 1] : undefined;
      if (name === undefined) return String(value);
      return lower ? name.toLowerCase() : name;
    };
    const term = random.weighted<string>([
      [spell(from), 3],
      [`${spell(from)}-${spell(to)}`, 3],
      [`${from}/${step}`, 2],
      [`${from}-${to}/${step}`, 2],
    ]);
    terms.push(term);
  }
  return terms.join(',');
}

/** An expression of plain fields, six or seven, by day of month or by day of week. */
export function randomPlainExpression(random: Random): string {
  const byDayOfMonth = random.chance(0.5);
  const fields = [
    randomField(random, second),
    randomField(random, second),
    randomField(random, hour),
    byDayOfMonth ? randomField(random, dayOfMonth) : '?',
    randomField(random, month),
    byDayOfMonth ? '?' : randomField(random, dayOfWeek),
  ];
  if (random.chance(0.4)) fields.push(random.chance(0.2) ? '*' : randomField(random, year, [2019, 2033]));
  return fields.join(' ');
}
