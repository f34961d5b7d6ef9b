import type { WriteContext } from '../engine/declaration.js';
import { auditName } from '../auth/caller.js';
import type { Row } from '../store/database.js';
import { newRecordId } from '../store/record-id.js';

/** A job flow in the template language: ordered steps of the infrastructure tool. */
function flow(description: string, steps: [type: string, name: string, step: number][]): { description: string; tcl: string } {
  const yaml = ['flow:', ...steps.flatMap(([type, name, step]) => [`  - type: "${type}"`, `    name: "${name}"`, `    step: ${step}`])].join('\n');
  // Templates travel as standard padded base64 of the YAML, as Terrakube clients encode and decode them.
  return { description, tcl: Buffer.from(`${yaml}\n`).toString('base64') };
}

const defaults: Record<string, { description: string; tcl: string }> = {
  Plan: flow('Runs a plan of the workspace.', [['terraformPlan', 'Plan', 100]]),
  'Plan and apply': flow('Runs a plan, then applies it.', [
    ['terraformPlan', 'Plan', 100],
    ['terraformApply', 'Apply', 200],
  ]),
  Destroy: flow('Destroys the resources of the workspace.', [['terraformDestroy', 'Destroy', 100]]),
};

/** Every new organization starts with these templates, in the transaction that creates it. */
export async function insertDefaultTemplates(context: WriteContext, organization: Row): Promise<void> {
  const who = auditName(context.caller);
  // Time-ordered ids keep the templates in this order in lists sorted by creation.
  const rows = Object.entries(defaults).map(([name, template]) => ({
    id: newRecordId(),
    organization_id: organization.id,
    name,
    description: template.description,
    version: '1.0.0',
    tcl: template.tcl,
    created_by: who,
    created_date: context.now,
    updated_by: who,
    updated_date: context.now,
  }));
  await context.trx.insertInto('template').values(rows).execute();
}
