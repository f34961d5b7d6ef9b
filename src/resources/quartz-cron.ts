/**
 * Quartz cron expressions, the syntax Terrakube's scheduler takes and its web UI writes: six or
 * seven fields (seconds, minutes, hours, day of month, month, day of week, and an optional year),
 * checked as Quartz's `CronExpression` reads them. No npm package reads this dialect whole (the
 * year field, `?`, `L`, `W` and `#` together), so this is a validator of its own; it checks, and
 * never computes a firing time.
 */

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
const fields: readonly Field[] = [
  { name: 'seconds', min: 0, max: 59 },
  { name: 'minutes', min: 0, max: 59 },
  { name: 'hours', min: 0, max: 23 },
  dayOfMonth,
  { name: 'month', min: 1, max: 12, names: months },
  dayOfWeek,
  { name: 'year', min: 1970, max: 2199 },
];

/** A field's value that does not fit: thrown inside, turned into the sentence the API answers with. */
class FieldProblem extends Error {}

/** What is wrong with a Quartz cron expression, as a sentence; undefined when it is one. */
export function quartzCronProblem(expression: string): string | undefined {
  const parts = expression.trim().split(/\s+/);
  if (expression.trim() === '' || parts.length < 6 || parts.length > 7) {
    return `it has ${expression.trim() === '' ? 0 : parts.length} fields; Quartz takes 6 or 7: seconds minutes hours day-of-month month day-of-week [year], such as "0 0 12 ? * MON-FRI"`;
  }
  for (const [index, part] of parts.entries()) {
    const field = fields[index];
    if (field === undefined) break;
    try {
      checkField(field, part.toUpperCase());
    } catch (error) {
      if (!(error instanceof FieldProblem)) throw error;
      return `field ${index + 1} (${field.name}) "${part}": ${error.message}`;
    }
  }
  const days = [parts[3], parts[5]].map((part) => part === '?');
  if (days[0] === days[1]) {
    return days[0] === true
      ? 'only one of day-of-month and day-of-week may be "?"'
      : 'one of day-of-month and day-of-week must be "?" (Quartz does not take both)';
  }
  return undefined;
}

function checkField(field: Field, text: string): void {
  if (text === '?') {
    if (field.question === true) return;
    throw new FieldProblem('"?" is only for day-of-month or day-of-week');
  }
  const terms = text.split(',');
  for (const term of terms) {
    if (term === '') throw new FieldProblem('a list has an empty element');
    const special = field === dayOfMonth ? dayOfMonthSpecial(term) : field === dayOfWeek ? dayOfWeekSpecial(term) : false;
    if (special && terms.length > 1) throw new FieldProblem(`"${term}" cannot be part of a list`);
    if (!special) checkTerm(field, term);
  }
}

/** A day of month with L or W: `L`, `L-3`, `LW`, `15W`. */
function dayOfMonthSpecial(term: string): boolean {
  if (term === 'L' || term === 'LW') return true;
  const offset = /^L-(\d+)$/.exec(term);
  if (offset !== null) {
    if (Number(offset[1]) > 30) throw new FieldProblem('the offset from the last day is at most 30');
    return true;
  }
  const weekday = /^(\d+)W$/.exec(term);
  if (weekday !== null) {
    inRange(dayOfMonth, Number(weekday[1]));
    return true;
  }
  if (/[LW]/.test(term)) throw new FieldProblem('L and W take the forms L, L-n, LW and nW');
  return false;
}

/** A day of week with L or #: `L`, `6L` (the last Friday), `MON#2` (the second Monday). */
function dayOfWeekSpecial(term: string): boolean {
  if (term === 'L') return true;
  const last = /^([A-Z]{3}|\d+)L$/.exec(term);
  if (last?.[1] !== undefined) {
    value(dayOfWeek, last[1]);
    return true;
  }
  const nth = /^([A-Z]{3}|\d+)#(\d+)$/.exec(term);
  if (nth?.[1] !== undefined) {
    value(dayOfWeek, nth[1]);
    const week = Number(nth[2]);
    if (week < 1 || week > 5) throw new FieldProblem('the week after # is from 1 to 5');
    return true;
  }
  if (/[L#]/.test(term)) throw new FieldProblem('L and # take the forms L, nL and n#k');
  return false;
}

/** `*`, `a`, `a-b`, each with an optional `/step`. */
function checkTerm(field: Field, term: string): void {
  const [base = '', step, extra] = term.split('/');
  if (extra !== undefined) throw new FieldProblem('it has more than one "/"');
  if (step !== undefined) {
    if (!/^\d+$/.test(step)) throw new FieldProblem(`the step "${step}" is not a number`);
    const size = field.max - field.min + 1;
    if (Number(step) < 1 || Number(step) > size) throw new FieldProblem(`the step is from 1 to ${size}`);
  }
  if (base === '*') return;
  const bounds = base.split('-');
  if (bounds.length > 2) throw new FieldProblem(`"${base}" is not a value or a range`);
  // Quartz reads a range whose end comes before its start as one that wraps around (FRI-MON).
  for (const bound of bounds) value(field, bound);
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
