import { Command, CommanderError, Option } from 'commander';
import { schemaVersion } from '../store/migrate.js';
import { packageVersion } from '../version.js';
import { exportAudit, listAudit, type AuditFilters } from './audit.js';
import { backup } from './backup.js';
import { check } from './check.js';
import { agent, createAgentToken, listAgentTokens, revokeAgentToken } from './agent.js';
import { executor } from './executor.js';
import { ExitCode, CommandFailure } from './exit-codes.js';
import { migrate } from './migrate.js';
import { rotateEncryptionKey } from './rotate-encryption-key.js';
import { serve } from './serve.js';
import { mintToken } from './token.js';
import { listTokens, revokeToken } from './tokens.js';

const configurationHelp = `
Configuration comes from the environment, as for the server: STRATUM_DATA_DIR (default ./data) for
the embedded store, or DATABASE_URL and STRATUM_ENCRYPTION_KEY for PostgreSQL. The README lists
every setting; \`stratum check\` says whether they work together.

Exit codes: 0 done, 1 failed or (check) something to fix, 2 wrong usage, 3 migrations pending
(migrate --check).`;

const initOption = () =>
  new Option('--init', 'create a new data folder (and its keys) when STRATUM_DATA_DIR names none; without it a missing folder is an error');

/** The `stratum` command line: parses `argv` (without node and the script) and runs one command. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const program = new Command('stratum')
    .description(
      'Stratum runs Terraform/OpenTofu automation, Terrakube-compatible: its configuration over JSON:API and GraphQL, ' +
        'plan/apply jobs with their logs and state, and a private module registry.',
    )
    .version(`${packageVersion()} (schema ${schemaVersion})`, '-V, --version', 'print the version and the database schema it migrates to')
    .helpOption('-h, --help', 'print this help')
    .helpCommand('help [command]', 'print the help of a command')
    .showSuggestionAfterError(true)
    .showHelpAfterError('(add --help for the commands and options)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => process.stdout.write(text),
      writeErr: (text) => process.stderr.write(text),
    })
    .addHelpText('after', configurationHelp);

  program
    .command('serve')
    .description('run the service (what `npm start` runs); migrations are applied at start')
    .action(() => serve());

  program
    .command('executor')
    .description('run jobs without serving HTTP, beside servers of the same PostgreSQL store (set STRATUM_EXECUTOR=off on them)')
    .action(() => executor());

  program
    .command('agent')
    .description(
      'run jobs for the servers at STRATUM_PUBLIC_URL over HTTP with the agent token in STRATUM_AGENT_TOKEN, holding neither the database nor any key',
    )
    .action(() => agent());

  const agentTokens = program
    .command('agent-token')
    .description('issue, list and revoke the tokens agents take jobs with, as an administrator at the console');
  agentTokens
    .command('create')
    .description("print a new agent token (the last line): for one agent pool's workspaces, or without --pool for those routed to no pool")
    .option('--pool <id>', "an agent record's id (an organization's agent pool): the agent takes the jobs of the workspaces routed to it")
    .option('--description <text>', 'what the token is for')
    .option('--ttl <duration>', 'lifetime: a number and a unit s, m, h or d, combinable, or never', '365d')
    .action((options: { pool?: string; description?: string; ttl: string }) => createAgentToken(options));
  agentTokens
    .command('list')
    .description('every live agent token, oldest first')
    .option('--all', 'revoked and expired tokens too')
    .option('--json', 'print JSON')
    .action((options: { all?: boolean; json?: boolean }) => listAgentTokens(options));
  agentTokens
    .command('revoke')
    .description('revoke an agent token: agents holding it are refused from their next call')
    .argument('<id>', 'the token id, as `stratum agent-token list` shows it')
    .action((id: string) => revokeAgentToken(id));

  program
    .command('migrate')
    .description('apply pending database migrations and exit, for deploy pipelines')
    .option('--check', `apply nothing: exit ${ExitCode.pending} when migrations are pending, 0 when none are`)
    .addOption(initOption())
    .action((options: { check?: boolean; init?: boolean }) => migrate(options));

  program
    .command('check')
    .description(
      'check the configuration, reach the database, and confirm the keys match what the store holds; prints what it found and what to fix',
    )
    .action(() => check());

  program
    .command('token')
    .description("mint a bearer token signed with the server's key; the token is the last line printed")
    .option('--subject <email>', 'who the token speaks for (required); an email address is also its email claim')
    .option('--groups <list>', 'comma-separated directory groups, e.g. STRATUM_ADMIN for an administrator', '')
    .option('--ttl <duration>', 'lifetime: a number and a unit s, m, h or d, combinable (90m, 1d12h)', '30d')
    .addOption(initOption())
    .addHelpText('after', '\nExample:\n  npx stratum token --subject you@example.com --groups STRATUM_ADMIN --ttl 12h')
    .action((options: { subject?: string; groups: string; ttl: string; init?: boolean }) => mintToken(options));

  const tokens = program
    .command('tokens')
    .description('list and revoke every team and personal API token, as an administrator at the console');
  tokens
    .command('list')
    .description('every live team and personal token, oldest first')
    .option('--all', 'revoked and expired tokens too')
    .option('--json', "print the administrators' JSON view (as GET /admin/v1/tokens)")
    .action((options: { all?: boolean; json?: boolean }) => listTokens(options));
  tokens
    .command('revoke')
    .description('revoke a token and every token created from it')
    .argument('<id>', 'the token id (its jti), as `stratum tokens list` shows it')
    .action((id: string) => revokeToken(id));

  const audit = program
    .command('audit')
    .description('read the audit trail: every change of every record, who made it and through what, as an administrator at the console');
  const filters = (command: Command) =>
    command
      .option('--organization <id>', 'the changes of one organization')
      .option('--since <time>', 'changes at or after this time (ISO 8601, UTC unless it says otherwise)')
      .option('--until <time>', 'changes before this time')
      .option('--type <type>', 'changes of records of one type (workspace, variable, team, ...)')
      .option('--actor <subject>', 'changes made by one subject (a user, a team token, a job)');
  filters(audit.command('list').description('the newest changes, newest first, as a table'))
    .option('--limit <n>', 'how many changes', '50')
    .action((options: AuditFilters & { limit: string }) => listAudit(options));
  filters(
    audit.command('export').description('every matching change, newest first, as JSON lines (the attributes of GET /api/v1/audit_trail)'),
  ).action((options: AuditFilters) => exportAudit(options));

  program
    .command('backup')
    .description('copy the embedded store to FILE, consistently, while the server runs (SQLite backup API)')
    .argument('<file>', 'where the copy goes; it must not exist yet')
    .action((file: string) => backup(file));

  program
    .command('rotate-encryption-key')
    .description('re-encrypt every secret (and the signing key kept in PostgreSQL) under a new key; run it with the server stopped')
    .addHelpText(
      'after',
      "\nThe current key is STRATUM_ENCRYPTION_KEY or the data folder's encryption.key; the new one is\nSTRATUM_NEW_ENCRYPTION_KEY, or generated. A key file is replaced; a key given in the environment is\nreplaced by you before the server starts again.",
    )
    .action(() => rotateEncryptionKey());

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    if (error instanceof CommandFailure) {
      process.stderr.write(`stratum: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`stratum: ${error instanceof Error ? error.message : String(error)}\n`);
    return ExitCode.failed;
  }
}
