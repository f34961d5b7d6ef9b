import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Terrakube's web UI runs an action's code with the icons of its own curated list in scope, and
 * nothing else: two built-in actions named icons outside it (ReadOutlined, BranchesOutlined), so a
 * workspace page showing them broke with "is not defined". They now use icons of that list. A
 * built-in action an administrator has changed so that it no longer names the old icon is left as
 * it is.
 */
const replacements: readonly (readonly [id: string, from: string, to: string])[] = [
  ['terrakube.open-documentation', '<ReadOutlined />', '<InfoCircleOutlined />'],
  ['stratum.open-repository', '<BranchesOutlined />', '<LinkOutlined />'],
];

export function actionIcons(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const [id, from, to] of replacements) {
        const { rows } = await sql<{ action: string }>`select action from action where id = ${id}`.execute(db);
        // Sources are stored as base64, as clients send them.
        const stored = rows[0]?.action;
        const source = stored === undefined ? undefined : Buffer.from(stored, 'base64').toString('utf8');
        if (stored === undefined || source === undefined || !source.includes(from)) continue;
        const fixed = Buffer.from(source.replaceAll(from, to)).toString('base64');
        await sql`update action set action = ${fixed} where id = ${id} and action = ${stored}`.execute(db);
      }
    },
  };
}
