import Sqlite from 'better-sqlite3';

/** A database failure the API can explain, reduced to what both stores have in common. */
export type DatabaseFailure =
  | { kind: 'unique'; columns: string[] }
  | { kind: 'reference' }
  | { kind: 'unavailable' };

const postgresUnavailable = new Set(['57P01', '57P02', '57P03', '53300', '53000', '08000', '08001', '08003', '08004', '08006']);
const networkUnavailable = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);

/**
 * Classifies an error thrown by either store, in one place: a unique violation (which columns), a
 * broken reference, or a database that cannot be reached right now. Anything else is undefined and
 * stays a bug to be logged.
 */
export function classifyDatabaseError(error: unknown): DatabaseFailure | undefined {
  if (error instanceof Sqlite.SqliteError) {
    if (error.code === 'SQLITE_CONSTRAINT_UNIQUE' || error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      // "UNIQUE constraint failed: organization.name, organization.x"
      const columns = error.message
        .replace(/^.*failed: /, '')
        .split(',')
        .map((c) => c.trim().replace(/^.*\./, ''));
      return { kind: 'unique', columns };
    }
    if (error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return { kind: 'reference' };
    if (error.code.startsWith('SQLITE_BUSY') || error.code.startsWith('SQLITE_LOCKED') || error.code === 'SQLITE_FULL' || error.code.startsWith('SQLITE_IOERR')) {
      return { kind: 'unavailable' };
    }
    return undefined;
  }
  if (!(error instanceof Error)) return undefined;
  const code = (error as Error & { code?: unknown }).code;
  if (code === '23505') {
    // "Key (organization_id, name)=(..., x) already exists."
    const raw = (error as Error & { detail?: unknown }).detail;
    const detail = typeof raw === 'string' ? raw : '';
    const match = /^Key \((.+?)\)=/.exec(detail);
    return { kind: 'unique', columns: match?.[1] === undefined ? [] : match[1].split(',').map((c) => c.trim().replace(/"/g, '')) };
  }
  if (code === '23503') return { kind: 'reference' };
  if (typeof code === 'string' && (postgresUnavailable.has(code) || networkUnavailable.has(code))) return { kind: 'unavailable' };
  if (/Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end/.test(error.message)) {
    return { kind: 'unavailable' };
  }
  return undefined;
}
