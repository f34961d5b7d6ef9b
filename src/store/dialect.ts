/** The two stores: the embedded SQLite database and PostgreSQL. */
export type Dialect = 'sqlite' | 'postgres';
