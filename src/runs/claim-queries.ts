import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database } from '../store/database.js';
import { organizationTurnTable, runTable } from './job-holds.js';
import { claimable, unfinishedStatuses } from './job-statuses.js';
import type { RunRecords } from './run-records.js';

/**
 * The queries of a claim and of recovery, built apart from running them so that their SQL on each
 * store is reviewed (test/snapshots/claim-*.sql): they decide which job runs next, for every
 * replica at once.
 */

/** Frees the workspaces of jobs a client ended while nobody ran them (rejected, or cancelled while waiting). */
export function releaseEndedHolds(db: Kysely<Database>, records: RunRecords) {
  return db
    .deleteFrom(runTable)
    .where('executor', 'is', null)
    .where(
      'job_id',
      'not in',
      db
        .selectFrom(records.job.table)
        .select('id')
        .where('status', 'in', [...unfinishedStatuses]),
    );
}

/**
 * Whose jobs a claim takes: those of the workspaces routed to one agent pool (an agent record's
 * id), or, null, those of the workspaces routed to none (the service's own executors, and agents of
 * no pool). A job never runs where its workspace does not send it.
 */
export type Pool = string | null;

/** The job `j` is of a workspace of `pool`: one look-up of its workspace by key. */
const ofPool = (records: RunRecords, pool: Pool) => (eb: ExpressionBuilder<Database, string>) =>
  eb.exists(
    eb
      .selectFrom(`${records.workspace.table} as p`)
      .select('p.id')
      .whereRef('p.id', '=', 'j.workspace_id')
      .where('p.agent_id', pool === null ? 'is' : '=', pool),
  );

/** Approved jobs of `pool` that hold their workspace and that no executor runs: their run goes on first. */
export function approvedUnheld(db: Kysely<Database>, records: RunRecords, pool: Pool) {
  return db
    .selectFrom(runTable)
    .innerJoin(`${records.job.table} as j`, 'j.id', `${runTable}.job_id`)
    .select('j.id')
    .where(`${runTable}.executor`, 'is', null)
    .where('j.status', '=', claimable.approved)
    .where(ofPool(records, pool))
    .limit(20);
}

/**
 * Pending jobs of `pool` an executor may take: of a workspace no job holds, that is not locked, with no
 * unfinished job created before it. Executor slots go round the organizations: those running the
 * fewest jobs (on every executor of the store) first, among them the one whose last job was taken
 * longest ago (never, first), then the oldest job. One organization's long queue holds another's
 * job back by one turn at most, whatever its size.
 */
export function takeablePending(db: Kysely<Database>, records: RunRecords, pool: Pool) {
  const jobs = records.job.table;
  return (
    db
      .selectFrom(`${jobs} as j`)
      .leftJoin(`${organizationTurnTable} as t`, 't.organization_id', 'j.organization_id')
      .selectAll('j')
      .select((eb) =>
        eb
          .selectFrom(`${runTable} as r`)
          .innerJoin(`${jobs} as h`, 'h.id', 'r.job_id')
          .select((inner) => inner.fn.countAll().as('n'))
          .whereRef('h.organization_id', '=', 'j.organization_id')
          .where('r.executor', 'is not', null)
          .as('organization_runs'),
      )
      .where('j.status', '=', claimable.fresh)
      .where(ofPool(records, pool))
      .where((eb) =>
        eb.not(eb.exists(eb.selectFrom(runTable).select('job_id').whereRef(`${runTable}.workspace_id`, '=', 'j.workspace_id'))),
      )
      // A locked workspace keeps its jobs waiting, as in Terrakube, until it is unlocked.
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom(`${records.workspace.table} as w`)
              .select('w.id')
              .whereRef('w.id', '=', 'j.workspace_id')
              .where('w.locked', '=', 1),
          ),
        ),
      )
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom(`${jobs} as e`)
              .select('e.id')
              .whereRef('e.workspace_id', '=', 'j.workspace_id')
              .where('e.status', 'in', [...unfinishedStatuses])
              .where((inner) =>
                inner.or([
                  inner('e.created_date', '<', inner.ref('j.created_date')),
                  inner.and([inner('e.created_date', '=', inner.ref('j.created_date')), inner('e.id', '<', inner.ref('j.id'))]),
                ]),
              ),
          ),
        ),
      )
      .orderBy('organization_runs')
      // '' sorts first on both stores, where NULL would sort first on one and last on the other.
      .orderBy((eb) => eb.fn.coalesce('t.taken_at', eb.val('')))
      .orderBy('j.created_date')
      .orderBy('j.id')
      .limit(20)
  );
}

/** The jobs executors hold, with their leases: what recovery looks through. */
export function heldJobs(db: Kysely<Database>) {
  return db.selectFrom(runTable).selectAll().where('executor', 'is not', null);
}
