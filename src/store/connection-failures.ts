/**
 * Failures to reach a store, told the way an operator fixes them: which setting points where
 * (with any password hidden), what the database answered, and the likely fix. A driver's own
 * message ("connect ECONNREFUSED", "database migration unknown failed") names neither.
 */
export class StoreUnreachableError extends Error {}

/** The data folder or its database does not exist, and nothing was asked to create it. */
export class MissingStoreError extends Error {}

/** A connection string as it may be printed: the password (in the authority or the query) replaced by ***. */
export function redactDatabaseUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password !== '') url.password = '***';
    for (const name of [...url.searchParams.keys()]) if (/pass/i.test(name)) url.searchParams.set(name, '***');
    // URL encodes the asterisks of a query parameter.
    return url.toString().replace(/%2A%2A%2A/g, '***');
  } catch {
    // Not a URL the parser reads: hide everything between the scheme's user and the host.
    return text.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  }
}

/** Explains an error met while connecting to PostgreSQL at `databaseUrl`. */
export function postgresConnectionFailure(error: unknown, databaseUrl: string): StoreUnreachableError {
  const where = `DATABASE_URL=${redactDatabaseUrl(databaseUrl)}`;
  const { host, port, user, database } = partsOf(databaseUrl);
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  const reason = ((): string => {
    switch (code) {
      case 'ECONNREFUSED':
        return `nothing accepts connections at ${host}:${port}. Is PostgreSQL running there? Start it, or correct the host and port in DATABASE_URL`;
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return `the host "${host}" is not known. Correct the host in DATABASE_URL`;
      case 'ETIMEDOUT':
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        return `${host}:${port} did not answer. Check the host and port in DATABASE_URL, and that no firewall stands between`;
      case '3D000':
        return `the database "${database}" does not exist. Create it (createdb -h ${host} -p ${port} -U <an administrator> -O ${user} ${database}), or correct its name in DATABASE_URL`;
      case '28000':
        return /role/i.test(message)
          ? `the role "${user}" does not exist. Create it (CREATE ROLE "${user}" LOGIN PASSWORD '...';), or correct the user in DATABASE_URL`
          : `the server refuses this connection (${message}). Allow it in pg_hba.conf, or connect as it expects (sslmode=require in DATABASE_URL)`;
      case '28P01':
        return `password authentication failed for the role "${user}". Correct the password in DATABASE_URL`;
      case '53300':
        return `the server has no connection slot left. Lower STRATUM_DATABASE_POOL_SIZE (per process, times the replicas) or raise max_connections`;
      case '57P03':
        return 'the server is starting up or shutting down. Try again in a moment';
      default:
        if (/timeout exceeded when trying to connect|Connection terminated due to connection timeout/i.test(message)) {
          return `${host}:${port} did not answer within 5 s. Check the host and port in DATABASE_URL, and that no firewall stands between`;
        }
        if (/does not support SSL/i.test(message))
          return 'the server does not support SSL. Remove sslmode from DATABASE_URL, or enable SSL on the server';
        return `${message}. Check DATABASE_URL and that the server is running`;
    }
  })();
  return new StoreUnreachableError(`cannot connect to the database at ${where}: ${reason}`, { cause: error });
}

/** Explains an error met while opening the embedded database in `dataDir`. */
export function embeddedOpenFailure(error: unknown, dataDir: string, file: string): Error {
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  const where = `the data folder ${dataDir} (STRATUM_DATA_DIR)`;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
    case 'SQLITE_READONLY':
    case 'SQLITE_CANTOPEN':
      return new StoreUnreachableError(
        `cannot open ${file} in ${where}: ${message}. Check that the folder exists and that this user may read and write it, or set STRATUM_DATA_DIR to one it may`,
        { cause: error },
      );
    case 'SQLITE_NOTADB':
    case 'SQLITE_CORRUPT':
      return new StoreUnreachableError(
        `${file} in ${where} is not a readable SQLite database (${message}). Restore it from a backup (stratum backup), or point STRATUM_DATA_DIR at the right folder`,
        { cause: error },
      );
    default:
      return error instanceof Error ? error : new Error(message);
  }
}

function partsOf(databaseUrl: string): { host: string; port: string; user: string; database: string } {
  try {
    const url = new URL(databaseUrl);
    return {
      host: url.hostname === '' ? 'localhost' : url.hostname,
      port: url.port === '' ? '5432' : url.port,
      user: decodeURIComponent(url.username) || (process.env.PGUSER ?? process.env.USER ?? 'the current user'),
      database: decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username) || 'postgres',
    };
  } catch {
    return { host: 'localhost', port: '5432', user: 'the user', database: 'the database' };
  }
}
