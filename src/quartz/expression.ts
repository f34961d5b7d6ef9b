/**
 * Quartz cron expressions read into what each field takes: six or seven fields (seconds, minutes,
 * hours, day of month, month, day of week, and an optional year), as Quartz's `CronExpression`
 * reads them. No npm package reads this dialect whole (the year field, `?`, `L`, `W` and `#`
 * together), so this reader is Stratum's own; the validator of schedules and the computation of
 * firing times both use it, so they cannot disagree on what an expression means.
 */

/** A day-of-month form with L or W, which names no fixed set of days. */
export type DayOfMonthForm =
  /** `L`, `L-n`: the last day of the month, or n days before it; `LW`: the weekday nearest the last day. */
  | { form: 'last-day'; offset: number; weekday: boolean }
  /** `nW`: the weekday nearest day n, within the same month. */
  | { form: 'nearest-weekday'; day: number };

/** A day-of-week form with L or #, which names no fixed set of days. */
export type DayOfWeekForm =
  /** `nL`: the last weekday n of the month (1 = Sunday). */
  | { form: 'last-of-week'; weekday: number }
  /** `n#k`: the k-th weekday n of the month. */
  | { form: 'nth-of-week'; weekday: number; week: number };

export interface QuartzExpression {
  /** The values each field takes, ascending. */
  seconds: readonly number[];
  minutes: readonly number[];
  hours: readonly number[];
  /** Days 1 to 31, or a form; undefined for `?`. Exactly one of the two day fields is undefined. */
  dayOfMonth: readonly number[] | DayOfMonthForm | undefined;
  months: readonly number[];
  /** 1 = Sunday ... 7 = Saturday, as Quartz numbers them, or a form; undefined for `?`. */
  dayOfWeek: readonly number[] | DayOfWeekForm | undefined;
  years: readonly number[];
}

/** Why an expression is not one Quartz reads, as a sentence that names the field. */
export class QuartzExpressionError extends Error {}

interface Field {
  name: string;
  min: number;
  max: number;
  /** Names that stand for numbers (JAN = 1, SUN = 1), upper case. */
  names?: readonly string[];
  /** `?`, which says "no particular value" of one of the two day fields. */
  question?: true;
}

const months = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const weekDays = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const dayOfMonth: Field = { name: 'day-of-month', min: 1, max: 31, question: true };
const dayOfWeek: Field = { name: 'day-of-week', min: 1, max: 7, names: weekDays, question: true };
const year: Field = { name: 'year', min: 1970, max: 2199 };
const fields: readonly Field[] = [
  { name: 'seconds', min: 0, max: 59 },
  { name: 'minutes', min: 0, max: 59 },
  { name: 'hours', min: 0, max: 23 },
  dayOfMonth,
  { name: 'month', min: 1, max: 12, names: months },
  dayOfWeek,
  year,
];

/** A field's value that does not fit: thrown inside, turned into the sentence that names the field. */
class FieldProblem extends Error {}

/** What a Quartz cron expression fires on; throws a QuartzExpressionError when Quartz would not read it. */
export function readQuartzExpression(expression: string): QuartzExpression {
  const parts = expression.trim().split(/\s+/);
  if (expression.trim() === '' || parts.length < 6 || parts.length > 7) {
    throw new QuartzExpressionError(
      `it has ${expression.trim() === '' ? 0 : parts.length} fields; Quartz takes 6 or 7: seconds minutes hours day-of-month month day-of-week [year], such as "0 0 12 ? * MON-FRI"`,
    );
  }
  // One field after the other, so that a problem is told for the first field that has one.
  const seconds = readPlain(parts, 0);
  const minutes = readPlain(parts, 1);
  const hours = readPlain(parts, 2);
  const dayOfMonth = read(parts, 3, dayOfMonthSpecial);
  const months = readPlain(parts, 4);
  const dayOfWeek = read(parts, 5, dayOfWeekSpecial);
  const years = readPlain(parts, 6);
  if ((dayOfMonth === undefined) === (dayOfWeek === undefined)) {
    throw new QuartzExpressionError(
      dayOfMonth === undefined
        ? 'only one of day-of-month and day-of-week may be "?"'
        : 'one of day-of-month and day-of-week must be "?" (Quartz does not take both)',
    );
  }
  return { seconds, minutes, hours, dayOfMonth, months, dayOfWeek, years };
}

/** A field that takes only values (no `?`, L, W or #); the year, when left out, takes all of its own. */
function readPlain(parts: readonly string[], index: number): readonly number[] {
  const reading = read<never>(parts, index, () => undefined);
  if (reading === undefined) throw new Error(`field ${index + 1} read as "?"`);
  return reading;
}

function read<Form>(
  parts: readonly string[],
  index: number,
  special: (term: string) => Form | readonly number[] | undefined,
): readonly number[] | Form | undefined {
  const field = fields[index];
  if (field === undefined) throw new Error(`Quartz has no field ${index + 1}`);
  const part = parts[index] ?? '*';
  try {
    return readField(field, part.toUpperCase(), special);
  } catch (error) {
    if (!(error instanceof FieldProblem)) throw error;
    throw new QuartzExpressionError(`field ${index + 1} (${field.name}) "${part}": ${error.message}`);
  }
}

function readField<Form>(
  field: Field,
  text: string,
  special: (term: string) => Form | readonly number[] | undefined,
): readonly number[] | Form | undefined {
  if (text === '?') {
    if (field.question === true) return undefined;
    throw new FieldProblem('"?" is only for day-of-month or day-of-week');
  }
  const terms = text.split(',');
  const taken = new Set<number>();
  for (const term of terms) {
    if (term === '') throw new FieldProblem('a list has an empty element');
    const form = special(term);
    if (form !== undefined && terms.length > 1) throw new FieldProblem(`"${term}" cannot be part of a list`);
    if (form !== undefined) return form;
    for (const value of termValues(field, term)) taken.add(value);
  }
  return [...taken].sort((a, b) => a - b);
}

/** A day of month with L or W: `L`, `L-3`, `LW`, `15W`. */
function dayOfMonthSpecial(term: string): DayOfMonthForm | undefined {
  if (term === 'L' || term === 'LW') return { form: 'last-day', offset: 0, weekday: term === 'LW' };
  const offset = /^L-(\d+)$/.exec(term);
  if (offset !== null) {
    if (Number(offset[1]) > 30) throw new FieldProblem('the offset from the last day is at most 30');
    return { form: 'last-day', offset: Number(offset[1]), weekday: false };
  }
  const weekday = /^(\d+)W$/.exec(term);
  if (weekday !== null) return { form: 'nearest-weekday', day: inRange(dayOfMonth, Number(weekday[1])) };
  if (/[LW]/.test(term)) throw new FieldProblem('L and W take the forms L, L-n, LW and nW');
  return undefined;
}

/** A day of week with L or #: `L` (Saturday, as Quartz reads it alone), `6L` (the last Friday), `MON#2` (the second Monday). */
function dayOfWeekSpecial(term: string): DayOfWeekForm | readonly number[] | undefined {
  if (term === 'L') return [7];
  const last = /^([A-Z]{3}|\d+)L$/.exec(term);
  if (last?.[1] !== undefined) return { form: 'last-of-week', weekday: value(dayOfWeek, last[1]) };
  const nth = /^([A-Z]{3}|\d+)#(\d+)$/.exec(term);
  if (nth?.[1] !== undefined) {
    const weekday = value(dayOfWeek, nth[1]);
    const week = Number(nth[2]);
    if (week < 1 || week > 5) throw new FieldProblem('the week after # is from 1 to 5');
    return { form: 'nth-of-week', weekday, week };
  }
  if (/[L#]/.test(term)) throw new FieldProblem('L and # take the forms L, nL and n#k');
  return undefined;
}

/** `*`, `a`, `a-b`, each with an optional `/step`. */
function termValues(field: Field, term: string): number[] {
  const [base = '', step, extra] = term.split('/');
  if (extra !== undefined) throw new FieldProblem('it has more than one "/"');
  if (step !== undefined) {
    if (!/^\d+$/.test(step)) throw new FieldProblem(`the step "${step}" is not a number`);
    const size = field.max - field.min + 1;
    if (Number(step) < 1 || Number(step) > size) throw new FieldProblem(`the step is from 1 to ${size}`);
  }
  const by = step === undefined ? 1 : Number(step);
  if (base === '*') return walk(field, field.min, field.max, by);
  const bounds = base.split('-');
  if (bounds.length > 2) throw new FieldProblem(`"${base}" is not a value or a range`);
  const [start = 0, end] = bounds.map((bound) => value(field, bound));
  // Quartz reads a term that starts with a name only up to that name or range of names, so a step
  // after one (JAN/3, MON-FRI/2) changes nothing.
  if (field.names?.includes(bounds[0] ?? '') === true) return walk(field, start, end ?? start, 1);
  if (end === undefined) return step === undefined ? [start] : walk(field, start, field.max, by);
  return walk(field, start, end, by);
}

/**
 * From start to end by a step. Quartz reads a range whose end comes before its start as one that
 * wraps around (FRI-MON, 22-2), except in the year: Quartz refuses such a year range, which the
 * validator lets through, so it takes no year here and the expression never fires.
 */
function walk(field: Field, start: number, end: number, by: number): number[] {
  if (end < start && field === year) return [];
  const size = field.max - field.min + 1;
  const stop = end < start ? end + size : end;
  const taken: number[] = [];
  for (let at = start; at <= stop; at += by) taken.push(field.min + ((at - field.min) % size));
  return taken;
}

/** One value of a field, by number or name, within its range. */
function value(field: Field, text: string): number {
  const named = field.names?.indexOf(text) ?? -1;
  if (named >= 0) return named + 1;
  if (!/^\d+$/.test(text)) {
    throw new FieldProblem(
      field.names === undefined ? `"${text}" is not a number` : `"${text}" is not a number or one of ${field.names.join(', ')}`,
    );
  }
  return inRange(field, Number(text));
}

function inRange(field: Field, number: number): number {
  if (number < field.min || number > field.max) throw new FieldProblem(`${number} is not from ${field.min} to ${field.max}`);
  return number;
}
