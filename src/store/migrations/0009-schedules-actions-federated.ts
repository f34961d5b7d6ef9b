import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes, flagColumn, withAuditColumns } from './column-types.js';

/** An action Stratum ships: its id, where it shows, and its JSX source (stored as base64, as clients send it). */
interface BuiltInAction {
  id: string;
  name: string;
  label: string;
  category: string;
  description: string;
  type: string;
  source: string;
  displayCriteria: string;
}

/**
 * The actions a new installation starts with: those of Terrakube's built-ins that need nothing
 * Stratum lacks but a workspace's state (they show in the state's resource drawer once runs make
 * one), under Terrakube's ids, and a header button that works today. Terrakube's Azure and OpenAI
 * actions are left out: they call its `/proxy/v1`, which Stratum does not have.
 */
const builtInActions: readonly BuiltInAction[] = [
  {
    id: 'terrakube.open-documentation',
    name: 'Open Documentation',
    label: 'Open Documentation',
    category: 'General',
    description: "Opens the registry's documentation of the resource's type",
    type: 'Workspace/ResourceDrawer/Action',
    displayCriteria: '[{"filter": "true"}]',
    source: `({ context }) => {
  const provider = (context.state?.provider ?? '').replace(/^provider\\[|\\]$/g, '').split('/').slice(-2).join('/');
  const kind = (context.state?.type ?? '').split('_').slice(1).join('_');
  const page = 'https://registry.terraform.io/providers/' + provider + '/latest/docs/resources/' + kind;
  return (
    <Button target="_blank" rel="noreferrer" href={page} icon={<ReadOutlined />}>
      Documentation
    </Button>
  );
}`,
  },
  {
    id: 'terrakube.resource-details',
    name: 'Resource Details',
    label: 'Details',
    category: 'General',
    description: "Shows the resource's attributes and dependencies from the state",
    type: 'Workspace/ResourceDrawer/Tab',
    displayCriteria: '[{"filter": "true"}]',
    source: `({ context }) => {
  const values = context.state?.values ?? {};
  const dependencies = context.state?.depends_on ?? [];
  const shown = (value) => (value === null ? '' : typeof value === 'object' ? JSON.stringify(value, null, 2) : String(value));
  return (
    <Space direction="vertical" style={{ width: '100%' }}>
      <Descriptions bordered column={1} title="Attributes">
        {Object.keys(values).map((key) => (
          <Descriptions.Item key={key} label={key}>
            <Paragraph copyable={values[key] !== null} style={{ margin: 0 }}>{shown(values[key])}</Paragraph>
          </Descriptions.Item>
        ))}
      </Descriptions>
      {dependencies.length > 0 && (
        <Descriptions bordered column={1} title="Depends on">
          {dependencies.map((dependency) => (
            <Descriptions.Item key={dependency} label={<Tag>{dependency}</Tag>} />
          ))}
        </Descriptions>
      )}
    </Space>
  );
}`,
  },
  {
    // The web UI evaluates a workspace header's criteria where `context` is not defined, so this
    // one shows everywhere and hides itself when the workspace has no repository to open.
    id: 'stratum.open-repository',
    name: 'Open Repository',
    label: 'Repository',
    category: 'General',
    description: "Opens the workspace's repository",
    type: 'Workspace/Action',
    displayCriteria: '[{"filter": "true"}]',
    source: `({ context }) => {
  const source = context.workspace?.attributes?.source ?? '';
  if (!/^https?:\\/\\//.test(source)) return null;
  return (
    <Button target="_blank" rel="noreferrer" href={source.replace(/\\.git$/, '')} icon={<BranchesOutlined />}>
      Repository
    </Button>
  );
}`,
  },
];

/**
 * Schedules of workspaces, the workspace's list of the workspaces its state is shared with, and the
 * records of the whole service: actions (ids chosen by their authors; the built-in ones inserted)
 * and federated credentials with their claims. A schedule goes with its workspace, a claim with its
 * credential.
 */
export function schedulesActionsFederated(dialect: Dialect): Migration {
  const { text } = columnTypes(dialect);
  const audit = withAuditColumns(dialect);

  return {
    async up(db: Kysely<unknown>) {
      const index = async (name: string, table: string, columns: string[], unique = false) => {
        const builder = db.schema.createIndex(name).on(table).columns(columns);
        await (unique ? builder.unique() : builder).execute();
      };

      await db.schema
        .createTable('schedule')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('workspace_id', text, (c) => c.notNull().references('workspace.id').onDelete('cascade'))
        .addColumn('cron', text, (c) => c.notNull())
        .addColumn('template_reference', text)
        .addColumn('tcl', text)
        .addColumn('description', text)
        .$call(flagColumn('enabled', 1))
        .$call(flagColumn('firing', 0))
        .$call(audit)
        .execute();
      await index('schedule_workspace_created', 'schedule', ['workspace_id', 'created_date', 'id']);

      await db.schema.alterTable('workspace').addColumn('shared_ids', text).execute();

      await db.schema
        .createTable('action')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('name', text, (c) => c.notNull())
        .addColumn('label', text, (c) => c.notNull())
        .addColumn('category', text, (c) => c.notNull())
        .addColumn('description', text)
        .addColumn('type', text, (c) => c.notNull())
        .addColumn('action', text, (c) => c.notNull())
        .addColumn('display_criteria', text)
        .addColumn('version', text, (c) => c.notNull())
        .$call(flagColumn('active', 0))
        .$call(audit)
        .execute();
      await index('action_created', 'action', ['created_date', 'id']);

      await db.schema
        .createTable('federated')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('name', text, (c) => c.notNull())
        .addColumn('issuer_url', text, (c) => c.notNull())
        .addColumn('audience', text)
        .$call(audit)
        .execute();
      await index('federated_name_unique', 'federated', ['name'], true);
      await index('federated_created', 'federated', ['created_date', 'id']);

      await db.schema
        .createTable('federated_claim')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('federated_id', text, (c) => c.notNull().references('federated.id').onDelete('cascade'))
        .addColumn('claim_key', text, (c) => c.notNull())
        .addColumn('claim_value', text, (c) => c.notNull())
        .$call(audit)
        .execute();
      await index('federated_claim_federated_created', 'federated_claim', ['federated_id', 'created_date', 'id']);

      // One after another, a millisecond apart, so that they list in this order.
      const start = Date.now();
      const tables = db as Kysely<Record<string, Record<string, unknown>>>;
      for (const [position, action] of builtInActions.entries()) {
        const when = new Date(start + position).toISOString();
        await tables
          .insertInto('action')
          .values({
            id: action.id,
            name: action.name,
            label: action.label,
            category: action.category,
            description: action.description,
            type: action.type,
            action: Buffer.from(action.source).toString('base64'),
            display_criteria: action.displayCriteria,
            version: '1.0.0',
            active: 1,
            created_by: 'stratum',
            created_date: when,
            updated_by: 'stratum',
            updated_date: when,
          })
          .execute();
      }
    },
  };
}
