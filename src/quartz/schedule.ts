import { type DayOfMonthForm, type DayOfWeekForm, type QuartzExpression, readQuartzExpression } from './expression.js';

/**
 * When a Quartz cron expression fires, as Quartz's `CronExpression` (getTimeAfter) computes it in
 * UTC, to whole seconds. The search walks the fields from the year down to the second, taking each
 * field's next value rather than trying every second, and ends with the last year Quartz takes, so
 * an expression that never fires (30 FEB) costs a few thousand months at most.
 */

/**
 * The first time strictly after `after` at which the expression fires, in UTC; undefined when it
 * never fires again (e.g. a year field in the past). Throws a QuartzExpressionError when the
 * expression is not one Quartz reads.
 */
export function nextFireTime(expression: string, after: Date): Date | undefined {
  const cron = readQuartzExpression(expression);
  const time = after.getTime();
  if (Number.isNaN(time)) throw new RangeError('the time to fire after is not a valid date');
  // Quartz fires on whole seconds: the first candidate is the second after the one `after` is in.
  const from = new Date((Math.floor(time / 1000) + 1) * 1000);
  const fromYear = from.getUTCFullYear();
  const fromMonth = from.getUTCMonth() + 1;
  const fromDay = from.getUTCDate();
  const fromTime: Clock = [from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds()];
  for (const year of cron.years) {
    if (year < fromYear) continue;
    for (const month of cron.months) {
      if (year === fromYear && month < fromMonth) continue;
      const firstMonth = year === fromYear && month === fromMonth;
      for (const day of firingDays(cron, year, month)) {
        if (firstMonth && day < fromDay) continue;
        const clock = firstClock(cron, firstMonth && day === fromDay ? fromTime : midnight);
        if (clock !== undefined) return new Date(Date.UTC(year, month - 1, day, ...clock));
      }
    }
  }
  return undefined;
}

/** Hours, minutes and seconds of a day. */
type Clock = [number, number, number];

const midnight: Clock = [0, 0, 0];

/** The first time of day at or after `from` that the time fields take; undefined when none is left that day. */
function firstClock(cron: QuartzExpression, [hour, minute, second]: Clock): Clock | undefined {
  for (const h of cron.hours) {
    if (h < hour) continue;
    for (const m of cron.minutes) {
      if (h === hour && m < minute) continue;
      const rest = h === hour && m === minute ? second : 0;
      const s = cron.seconds.find((candidate) => candidate >= rest);
      if (s !== undefined) return [h, m, s];
    }
  }
  return undefined;
}

/** The days of a month the day fields fire on, ascending. */
function firingDays(cron: QuartzExpression, year: number, month: number): readonly number[] {
  const length = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const firstWeekday = new Date(Date.UTC(year, month - 1, 1)).getUTCDay();
  // Quartz numbers the days of the week from 1 (Sunday) to 7 (Saturday).
  const shape: MonthShape = { length, weekday: (day) => ((firstWeekday + day - 1) % 7) + 1 };
  if (cron.dayOfMonth !== undefined) return daysOfMonth(cron.dayOfMonth, shape);
  if (cron.dayOfWeek !== undefined) return daysOfWeek(cron.dayOfWeek, shape);
  return [];
}

interface MonthShape {
  length: number;
  weekday: (day: number) => number;
}

function daysOfMonth(reading: readonly number[] | DayOfMonthForm, month: MonthShape): readonly number[] {
  if (isValues(reading)) return reading.filter((day) => day <= month.length);
  if (reading.form === 'nearest-weekday') {
    // Like a plain day, a day the month does not have (31W in April) does not fire that month.
    return reading.day > month.length ? [] : [nearestWeekday(reading.day, month)];
  }
  // L-n in a month shorter than n + 1 days does not fire that month.
  const day = month.length - reading.offset;
  if (day < 1) return [];
  return [reading.weekday ? nearestWeekday(day, month) : day];
}

function daysOfWeek(reading: readonly number[] | DayOfWeekForm, month: MonthShape): readonly number[] {
  if (isValues(reading)) {
    return Array.from({ length: month.length }, (_, index) => index + 1).filter((day) => reading.includes(month.weekday(day)));
  }
  if (reading.form === 'last-of-week') return [month.length - ((month.weekday(month.length) - reading.weekday + 7) % 7)];
  const day = 1 + ((reading.weekday - month.weekday(1) + 7) % 7) + 7 * (reading.week - 1);
  // A month without that week's day (no fifth Monday for MON#5) does not fire, as Quartz skips it.
  return day > month.length ? [] : [day];
}

/**
 * The weekday nearest a day, within its month (Quartz's W): a Saturday moves to the Friday before,
 * a Sunday to the Monday after, unless that leaves the month: Saturday the 1st goes to Monday the
 * 3rd, and a Sunday that ends the month to the Friday two days before.
 */
function nearestWeekday(day: number, month: MonthShape): number {
  const weekday = month.weekday(day);
  if (weekday === 7) return day === 1 ? 3 : day - 1;
  if (weekday === 1) return day === month.length ? day - 2 : day + 1;
  return day;
}

function isValues(reading: readonly number[] | DayOfMonthForm | DayOfWeekForm): reading is readonly number[] {
  return Array.isArray(reading);
}
