import { loadConfig } from '../config.js';
import type { Session } from '../engine/index.js';
import { attributeFields, fromColumn, type AttributeValue, type AttributeValues, type Row } from '../model/index.js';
import { auditRecords } from '../resources/index.js';
import { consoleSession } from './console-session.js';
import { openConsoleStore, requireMigrated } from './console-store.js';
import { CommandFailure } from './exit-codes.js';
import { columns, jsonForTerminal } from './terminal-text.js';

/** Which changes `stratum audit` reads. */
export interface AuditFilters {
  organization?: string;
  since?: string;
  until?: string;
  type?: string;
  actor?: string;
}

/** Rows read per query: pages follow each other by id, so a trail growing meanwhile neither repeats nor skips one. */
const pageSize = 1000;

/** `stratum audit list`: the newest changes as a table, read beside a running server. */
export async function listAudit(options: AuditFilters & { limit: string }): Promise<void> {
  const limit = Number(options.limit);
  if (!Number.isSafeInteger(limit) || limit < 1) throw new CommandFailure(`--limit must be a whole number from 1, got "${options.limit}"`);
  const rows: AttributeValues[] = [];
  await readTrail(options, limit, (change) => rows.push(change));
  if (rows.length === 0) {
    process.stdout.write('no changes match\n');
    return;
  }
  const cell = (value: AttributeValue | undefined) => (value === null || value === undefined ? '-' : String(value));
  process.stdout.write(
    columns(
      ['AT', 'ORGANIZATION', 'ACTOR', 'ACTION', 'TYPE', 'RECORD', 'CHANGED'],
      rows.map((change) => [
        cell(change.at),
        cell(change.organizationId),
        `${cell(change.actorKind)}:${cell(change.actorSubject)}`,
        cell(change.action),
        cell(change.recordType),
        cell(change.recordId),
        Object.keys(parsed(change.attributes)).join(','),
      ]),
    ),
  );
}

/** `stratum audit export`: every matching change, newest first, one JSON object a line. */
export async function exportAudit(options: AuditFilters): Promise<void> {
  await readTrail(options, Number.POSITIVE_INFINITY, (change) => {
    process.stdout.write(`${jsonForTerminal({ ...change, attributes: parsed(change.attributes) }, 0)}\n`);
  });
}

/** Reads the changes the filters keep through the instance-wide view, as the console's administrator. */
async function readTrail(options: AuditFilters, limit: number, each: (change: AttributeValues) => void): Promise<void> {
  const config = loadConfig();
  const store = await openConsoleStore(config, 'readonly');
  try {
    await requireMigrated(store, config, false);
    const session = consoleSession(config, store);
    const filter = auditFilter(options);
    let read = 0;
    let before: string | undefined;
    while (read < limit) {
      const rows = await page(session, filter, before, Math.min(pageSize, limit - read));
      for (const row of rows) each({ id: String(row.id), ...attributesOf(row) });
      read += rows.length;
      before = rows.at(-1)?.id as string | undefined;
      if (rows.length < pageSize) break;
    }
  } finally {
    await store.close();
  }
}

async function page(session: Session, filter: readonly string[], before: string | undefined, size: number): Promise<Row[]> {
  const terms = before === undefined ? filter : [...filter, `id=lt=${quoted(before)}`];
  const found = await session.list(
    { resource: auditRecords.trail, ancestors: [] },
    {
      ...(terms.length === 0 ? {} : { filter: { name: 'filter', value: terms.join(';') } }),
      page: { limit: { name: 'limit', value: size } },
    },
  );
  return found.rows;
}

/** The filters as RSQL over the trail's attributes; a time is checked and written as stored (ISO 8601 UTC). */
function auditFilter(options: AuditFilters): string[] {
  const terms: string[] = [];
  const time = (name: string, text: string) => {
    const parsedTime = new Date(text);
    if (Number.isNaN(parsedTime.getTime()))
      throw new CommandFailure(`${name} must be a date or time, such as 2026-01-31 or 2026-01-31T12:00:00Z`);
    return quoted(parsedTime.toISOString());
  };
  if (options.organization !== undefined) terms.push(`${auditRecords.organization}==${quoted(options.organization)}`);
  if (options.since !== undefined) terms.push(`${auditRecords.time}=ge=${time('--since', options.since)}`);
  if (options.until !== undefined) terms.push(`${auditRecords.time}=lt=${time('--until', options.until)}`);
  if (options.type !== undefined) terms.push(`${auditRecords.recordType}==${quoted(options.type)}`);
  if (options.actor !== undefined) terms.push(`${auditRecords.actorSubject}==${quoted(options.actor)}`);
  return terms;
}

/** An RSQL string, taken literally (its quotes and backslashes escaped). */
const quoted = (text: string) => `"${text.replace(/[\\"]/g, (character) => `\\${character}`)}"`;

function attributesOf(row: Row): AttributeValues {
  return Object.fromEntries(
    attributeFields(auditRecords.trail).map(({ name, attribute, column }) => [name, fromColumn(attribute, row[column])]),
  );
}

function parsed(attributes: unknown): Record<string, unknown> {
  return typeof attributes === 'string' ? (JSON.parse(attributes) as Record<string, unknown>) : {};
}
