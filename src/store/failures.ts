import Sqlite from 'better-sqlite3';
import { ApiError, conflict, unavailable } from '../errors.js';
import { columnOf, type ResourceDeclaration } from '../model/index.js';

/** A database failure the API can explain, reduced to what both stores have in common. */
export type DatabaseFailure =
  | { kind: 'unique'; columns: string[] }
  | { kind: 'foreignKey' }
  | { kind: 'missing' }
  | { kind: 'outOfRange' }
  /** More values or terms than the database takes in one statement. */
  | { kind: 'tooLarge' }
  | { kind: 'unavailable' }
  | { kind: 'contention' };

const postgresUnavailable = new Set(['57P01', '57P02', '57P03', '53300', '53000', '08000', '08001', '08003', '08004', '08006']);
const networkUnavailable = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);
/** PostgreSQL's program limits: a statement too complex, too many columns or arguments. */
const postgresTooLarge = new Set(['54000', '54001', '54011', '54023']);
/** SQLite's limits of one statement, which it reports as a plain SQLITE_ERROR. */
const sqliteTooLarge =
  /^(too many (SQL variables|terms in ORDER BY clause|terms in compound SELECT|columns|arguments on function)|Expression tree is too large)/;
/** Values PostgreSQL refuses: numbers out of range, text it cannot represent (NUL), malformed input. */
const postgresOutOfRange = new Set(['22003', '22P02', '22021', '22001', '22007', '22008']);

/**
 * Classifies an error thrown by either store: a unique violation (which columns), a broken
 * reference, a missing required value, a value the store refuses, or a database that cannot be
 * reached right now. Anything else is undefined and stays a bug to be logged.
 */
export function classifyDatabaseError(error: unknown): DatabaseFailure | undefined {
  if (error instanceof Sqlite.SqliteError) return classifySqlite(error);
  if (!(error instanceof Error)) return undefined;
  const code = (error as Error & { code?: unknown }).code;
  if (code === '23505') {
    // "Key (organization_id, name)=(..., x) already exists."
    const raw = (error as Error & { detail?: unknown }).detail;
    const match = /^Key \((.+?)\)=/.exec(typeof raw === 'string' ? raw : '');
    return { kind: 'unique', columns: match?.[1] === undefined ? [] : match[1].split(',').map((c) => c.trim().replace(/"/g, '')) };
  }
  if (code === '23503') return { kind: 'foreignKey' };
  if (code === '23502') return { kind: 'missing' };
  // deadlock_detected, serialization_failure: the transaction lost to a concurrent one and was rolled
  // back whole, so running it again is safe (see retryOnContention).
  if (code === '40P01' || code === '40001') return { kind: 'contention' };
  // statement_timeout: the database was too slow for this request, as if unavailable for it.
  if (code === '57014') return { kind: 'unavailable' };
  if (typeof code === 'string' && postgresOutOfRange.has(code)) return { kind: 'outOfRange' };
  if (typeof code === 'string' && postgresTooLarge.has(code)) return { kind: 'tooLarge' };
  // More than 65535 parameters: the count in the protocol's bind message wraps around.
  if (code === '08P01' && /^bind message has \d+ parameter formats/.test(error.message)) return { kind: 'tooLarge' };
  if (typeof code === 'string' && (postgresUnavailable.has(code) || networkUnavailable.has(code))) return { kind: 'unavailable' };
  if (
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end/.test(
      error.message,
    )
  ) {
    return { kind: 'unavailable' };
  }
  return undefined;
}

function classifySqlite(error: InstanceType<typeof Sqlite.SqliteError>): DatabaseFailure | undefined {
  const { code } = error;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    // "UNIQUE constraint failed: organization.name, organization.x"
    const columns = error.message
      .replace(/^.*failed: /, '')
      .split(',')
      .map((c) => c.trim().replace(/^.*\./, ''));
    return { kind: 'unique', columns };
  }
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return { kind: 'foreignKey' };
  if (code === 'SQLITE_CONSTRAINT_NOTNULL') return { kind: 'missing' };
  if (code === 'SQLITE_TOOBIG' || code === 'SQLITE_MISMATCH') return { kind: 'outOfRange' };
  if (code === 'SQLITE_ERROR' && sqliteTooLarge.test(error.message)) return { kind: 'tooLarge' };
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED') || code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR')) {
    return { kind: 'unavailable' };
  }
  return undefined;
}

/**
 * The one map from database failures to API errors. `resource` is the record being written, which
 * names the field of a unique violation. Undefined for a failure the API cannot explain: a bug.
 */
export function databaseApiError(error: unknown, resource?: ResourceDeclaration): ApiError | undefined {
  const failure = classifyDatabaseError(error);
  switch (failure?.kind) {
    case undefined:
      return undefined;
    case 'unique': {
      if (resource === undefined) return conflict('A record with these values already exists.');
      const parent = resource.parent === undefined ? undefined : resource.relationships[resource.parent];
      // A record its parent holds at most one of (a workspace's webhook) is unique by the parent's key alone.
      if (parent?.kind === 'toOne' && failure.columns.length === 1 && failure.columns[0] === parent.column)
        return conflict(`This ${parent.type} already has ${article(resource.type).toLowerCase()} ${resource.type}; it holds one at most.`);
      const attribute = uniqueAttribute(resource, failure.columns);
      const scope = resource.parent === undefined ? '' : ` in this ${resource.relationships[resource.parent]?.type ?? resource.parent}`;
      return conflict(`${article(resource.type)} ${resource.type} with this ${attribute} already exists${scope}.`, { attribute });
    }
    case 'foreignKey':
      // A record the write belongs to or links was deleted by a request that committed first.
      return new ApiError(404, { code: 'not_found', detail: 'A record this one belongs to or links no longer exists.' });
    case 'missing':
      return new ApiError(422, { code: 'required', detail: 'A required value or relationship is missing.' });
    case 'outOfRange':
      return new ApiError(400, { code: 'invalid_value', detail: 'A value is outside what the database can store or compare.' });
    case 'tooLarge':
      return new ApiError(400, {
        code: 'request_too_large',
        detail: 'The request asks the database for more values or terms than it takes in one statement; ask for fewer.',
      });
    case 'unavailable':
      return unavailable();
    case 'contention':
      return contentionError();
  }
}

const contentionCode = 'write_contention';

/** The answer to a write that kept losing to concurrent ones after its retries. */
export function contentionError(): ApiError {
  return new ApiError(
    503,
    { code: contentionCode, detail: 'Concurrent writes kept this one from completing; retry shortly.' },
    { retryAfterSeconds: 1 },
  );
}

/** A transaction lost to a concurrent one: the database's failure, or the API error it became inside a batch. */
export function isContention(error: unknown): boolean {
  if (error instanceof ApiError) return error.problems.some((problem) => problem.code === contentionCode);
  return classifyDatabaseError(error)?.kind === 'contention';
}

const contentionAttempts = 4;

/**
 * Runs a transaction again when the database rolled it back because it lost to a concurrent one
 * (PostgreSQL's deadlock detector picks a victim; cascading deletes and inserts under the same parent
 * can lock rows in opposite orders). `work` must be the whole transaction, so each attempt starts over.
 */
export async function retryOnContention<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= contentionAttempts || !isContention(error)) throw error;
      // A random pause, growing with each attempt, so the same transactions do not meet again in step.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}

/** The attribute a unique violation names: a declared unique attribute among its columns, else its last column. */
function uniqueAttribute(resource: ResourceDeclaration, columns: string[]): string {
  const declared = (resource.unique ?? []).find((name) => columns.includes(columnOf(name)));
  if (declared !== undefined) return declared;
  const column = columns.at(-1) ?? 'id';
  return Object.keys(resource.attributes).find((name) => columnOf(name) === column) ?? column;
}

function article(noun: string): string {
  return /^[aeiou]/i.test(noun) ? 'An' : 'A';
}
