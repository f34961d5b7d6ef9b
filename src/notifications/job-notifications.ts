import { sql, type Kysely } from 'kysely';
import { columnOf, type Database, type JobStatusChanged, type ManyToMany, type ResourceDeclaration, type Row } from '../model/index.js';
import { deliveryTarget, type Notifier } from './deliveries.js';
import { failureReasonOf, uiPages } from './messages.js';
import { appliesToTemplateCondition } from './narrowing.js';

/** The records a job's notifications are found in: configurations, their triggers, and the templates they are narrowed to. */
export interface JobNotificationRecords {
  configuration: ResourceDeclaration;
  /** The relationship of a configuration that names its workspace (none: organization-wide). */
  workspaceLink: string;
  trigger: ResourceDeclaration;
  templates: ManyToMany;
  organization: ResourceDeclaration;
  workspace: ResourceDeclaration;
  /** The job whose status changed: its commit and, when it failed, why. */
  job: ResourceDeclaration;
}

/**
 * Delivers the notifications of a job's status change: every active configuration of its
 * organization (organization-wide, or of its workspace) with a trigger on that status, and not
 * narrowed to other templates than the job's. Each delivery is recorded under the job's workspace,
 * where the workspace's deliveries list shows it and a failed one is retried. `open` gives a
 * configuration with its signing secret opened. Each message carries the job's commit, why it
 * failed, and links to its pages in the web UI at `uiUrl` (none without it).
 */
export class JobNotifications {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly notifier: Notifier,
    private readonly records: JobNotificationRecords,
    private readonly open: (organizationId: string, configurationId: string) => Promise<Row | undefined>,
    private readonly uiUrl: string | undefined,
  ) {}

  async deliver(change: JobStatusChanged): Promise<void> {
    const { configuration, trigger } = this.records;
    const workspaceColumn = this.linkColumn(configuration, this.records.workspaceLink);
    const organizationColumn = this.linkColumn(configuration, configuration.parent);
    const triggerColumn = this.linkColumn(trigger, trigger.parent);
    const statusColumn = columnOf('jobStatus');
    const found = await this.db
      .selectFrom(`${configuration.table} as c`)
      .select('c.id')
      .where(`c.${organizationColumn}`, '=', change.organizationId)
      .where((eb) => eb.or([eb(`c.${workspaceColumn}`, 'is', null), eb(`c.${workspaceColumn}`, '=', change.workspaceId)]))
      .where(
        sql<boolean>`exists (select 1 from ${sql.table(trigger.table)} t where t.${sql.ref(triggerColumn)} = c.id and t.${sql.ref(statusColumn)} = ${change.status})`,
      )
      .where(appliesToTemplateCondition(this.records.templates, 'c', change.templateId))
      .execute();
    if (found.length === 0) return;
    const names = await this.names(change);
    const job = await this.db
      .selectFrom(this.records.job.table)
      .select([columnOf('commitId'), columnOf('comments')])
      .where('id', '=', String(change.jobId))
      .executeTakeFirst();
    const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
    const details = {
      ...uiPages(this.uiUrl, { organizationId: change.organizationId, workspaceId: change.workspaceId, jobId: change.jobId }),
      commitId: text(job?.[columnOf('commitId')]),
      failureReason: failureReasonOf(change.status, text(job?.[columnOf('comments')])),
    };
    for (const { id } of found) {
      const row = await this.open(change.organizationId, String(id));
      // Recorded under the job's workspace, an organization-wide configuration's delivery too.
      const target = row === undefined ? undefined : deliveryTarget(row, change.workspaceId);
      if (target?.active !== true) continue;
      await this.notifier.deliver(target, {
        kind: 'job',
        organization: names.organization,
        workspace: names.workspace,
        jobId: change.jobId,
        status: change.status,
        ...details,
      });
    }
  }

  private linkColumn(resource: ResourceDeclaration, name: string | undefined): string {
    const link = name === undefined ? undefined : resource.relationships[name];
    if (link?.kind !== 'toOne') throw new Error(`${resource.type} has no to-one relationship ${String(name)}`);
    return link.column;
  }

  private async names(change: JobStatusChanged): Promise<{ organization: string; workspace: string | null }> {
    const { organization, workspace } = this.records;
    const nameOf = async (resource: ResourceDeclaration, id: string) => {
      const row = await this.db.selectFrom(resource.table).select(columnOf('name')).where('id', '=', id).executeTakeFirst();
      return row === undefined ? undefined : String(row[columnOf('name')]);
    };
    return {
      organization: (await nameOf(organization, change.organizationId)) ?? change.organizationId,
      workspace: (await nameOf(workspace, change.workspaceId)) ?? null,
    };
  }
}
