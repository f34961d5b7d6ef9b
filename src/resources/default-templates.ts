import type { Row, WriteContext } from '../model/index.js';
import { template } from './template.js';

/** A job flow in the template language: ordered steps of the infrastructure tool. */
function flow(description: string, steps: [type: string, name: string, step: number][]): { description: string; tcl: string } {
  const yaml = [
    'flow:',
    ...steps.flatMap(([type, name, step]) => [`  - type: "${type}"`, `    name: "${name}"`, `    step: ${step}`]),
  ].join('\n');
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
  // One after another: time-ordered ids keep the templates in this order in lists sorted by creation.
  for (const [name, { description, tcl }] of Object.entries(defaults)) {
    await context.insert(template, String(organization.id), { name, description, version: '1.0.0', tcl });
  }
}
